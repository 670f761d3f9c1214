//! The diagnostic codes and severities: one variant per code, each with
//! its severity, a one-line title and its explanation (what triggers it,
//! why, what to do). It depends on nothing else of the crate.
//!
//! This table is the one place a code is described: the emitting sites
//! name a variant, `polyfold explain CODE` prints its entry, and
//! `docs/diagnostics.md` is generated from it ([`reference_markdown`]; a
//! unit test fails when the committed page differs). Codes are stable:
//! a code that goes away leaves a gap, it is never reused.

use std::fmt;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

/// The word of a severity (`error`, `warning`, `note`).
pub fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// What one code means, for a human.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// What in the C source triggers the diagnostic.
    pub trigger: &'static str,
    /// Why polyfold refuses or reports it.
    pub why: &'static str,
    /// What the user can do about it.
    pub fix: &'static str,
}

/// Declares [`Code`] and its table from one list: variant, code string,
/// severity, title and explanation.
macro_rules! codes {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $code:literal, $severity:ident, $title:literal,
            trigger: $trigger:literal,
            why: $why:literal,
            fix: $fix:literal;
    )*) => {
        /// A stable diagnostic code (`PF010`). Variants are declared in the
        /// order of their codes, so the derived order is the codes' order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in the order of the codes.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The code as printed: `PF010`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// The severity of every diagnostic with this code.
            pub fn severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$severity,)* }
            }

            /// A one-line title, e.g. `non-affine subscript`.
            pub(crate) fn title(self) -> &'static str {
                match self { $(Code::$variant => $title,)* }
            }

            /// What triggers the code, why, and what to do.
            pub(crate) fn explanation(self) -> Explanation {
                match self {
                    $(Code::$variant => Explanation { trigger: $trigger, why: $why, fix: $fix },)*
                }
            }
        }
    };
}

codes! {
    /// The file does not parse.
    SyntaxError = "PF001", Error, "syntax error",
        trigger: "the first ERROR or MISSING node of tree-sitter's parse of the file (or a file the C parser cannot read at all)",
        why: "polyfold only transforms files that parse",
        fix: "fix the C; nothing was written";
    /// The file has no loop.
    NoLoops = "PF002", Note, "no loops in this file",
        trigger: "a file without any loop (also an empty file)",
        why: "there is nothing to analyse",
        fix: "nothing: the file is left as it is";
    /// The file has loops but no SCoP.
    NoScop = "PF003", Note, "no static control part found",
        trigger: "the file has loops, but no SCoP was found in it",
        why: "every loop nest was rejected; the warnings say why",
        fix: "see the warnings about what was rejected";
    /// `#pragma scop` / `#pragma endscop` do not pair up.
    UnpairedPragmas = "PF004", Warning, "unpaired scop pragmas",
        trigger: "`#pragma scop` and `#pragma endscop` do not pair up (an unclosed region, nested regions, or an `endscop` alone)",
        why: "the region is ambiguous",
        fix: "an unclosed region is ignored; fix the pragmas";
    /// The file nests too deeply to analyse.
    TooDeep = "PF005", Warning, "nesting too deep",
        trigger: "the file nests statements or expressions more than 200 levels deep",
        why: "this keeps every recursion bounded (no stack overflow on any input)",
        fix: "no SCoP is extracted from this file; nest less deeply";
    /// A subscript that is not affine.
    NonAffineSubscript = "PF010", Warning, "non-affine subscript",
        trigger: "a subscript that is not affine in the loop iterators and parameters, e.g. `A[idx[i]]`, `A[i * j]`",
        why: "dependences and lifetimes need affine accesses",
        fix: "use affine index expressions; the statement stays out of the SCoP";
    /// A loop bound that is not affine.
    NonAffineBound = "PF011", Warning, "non-affine loop bound",
        trigger: "a loop bound that is not affine, e.g. `i < n * m`, a `double` bound, a global that is not `const`",
        why: "the iteration domain must be a polyhedron",
        fix: "compute the bound into a parameter before the nest";
    /// An `if` condition that is not affine.
    NonAffineCondition = "PF012", Warning, "non-affine condition",
        trigger: "an `if` whose condition is not affine (it reads data, e.g. `if (A[i][0] < 0)`) with a loop in a branch",
        why: "a condition that reads data is modelled around assignments only: both branches may run (a write that may happen also reads its cell, the condition's reads go with the first assignment of each branch); a loop under it would have a domain that depends on data",
        fix: "move the test inside the loop (`for (...) if (c) ...`) or into the right-hand side (`x = c ? a : b`)";
    /// A loop whose form polyfold does not model.
    UnsupportedLoop = "PF013", Warning, "unsupported loop form",
        trigger: "a `for` loop without an iterator, with a step that is not a constant, with a condition that is not a conjunction of bounds in the step's direction (`!=`, `||`), or with an unsigned iterator",
        why: "the loop would not have an affine domain, or could wrap around",
        fix: "write the loop as `for (i = lb; i < ub; i += c)` with a signed iterator";
    /// The iterator is assigned in the loop body.
    IteratorAssigned = "PF014", Warning, "loop iterator assigned in the body",
        trigger: "the loop's iterator is assigned in the loop body",
        why: "the domain would not be the loop's",
        fix: "use another variable";
    /// A parameter is written in the SCoP.
    ParameterWritten = "PF015", Warning, "parameter written in the SCoP",
        trigger: "a bound, a subscript, or the condition of an `if` around a loop uses a value written in the SCoP (e.g. `for (i < n) ... n--`; around assignments such a condition reads data, see PF012) that is not an affine value assigned earlier in the same block (see \"scalar offsets\" in docs/frontend.md), or a pragma region writes a name it also uses as a parameter (the region is split)",
        why: "parameters must be constant during the SCoP",
        fix: "compute the value before the SCoP";
    /// `/` or `%` by something else than a constant or known parameters.
    QuasiAffine = "PF016", Warning, "quasi-affine division or remainder",
        trigger: "`/` or `%` by something other than a constant or parameters with known values, e.g. `A[i % m]` with `m` a function parameter",
        why: "not modelled: a divisor must be a number for the model to be exact (see \"Decision on `/` and `%`\" in docs/frontend.md)",
        fix: "divide by a constant, or give the divisor's parameters values with `-D NAME=VALUE`";
    /// A statement writes two locations.
    TwoWrites = "PF020", Warning, "statement writes two locations",
        trigger: "a statement that writes two locations (`A[i] = x++`, a comma expression; a chained `a = b = 0` is accepted)",
        why: "the model has one write per statement",
        fix: "split it into one statement per write";
    /// An address is taken.
    AddressTaken = "PF021", Warning, "address taken",
        trigger: "an address taken (`&x`, `&A[i]`), or an array used as a pointer value (`f(A)`)",
        why: "a pointer lets calls write the data",
        fix: "pass elements, not addresses";
    /// A statement that is not static control.
    UnsupportedStatement = "PF022", Warning, "unsupported statement",
        trigger: "a `while`, `do`, `switch`, `return`, `break`, `continue` or `goto`, or a label that a `goto` of the function names (other labelled statements are read as their statement)",
        why: "it is not static control: a `goto` may enter the labelled statement from elsewhere",
        fix: "the loop nests inside it are still searched (not inside a statement a `goto` may jump to)";
    /// An expression statement that is not an assignment.
    NotAnAssignment = "PF023", Warning, "statement that is not an assignment",
        trigger: "an expression statement that is not an assignment (a call statement `f(A);`), or an unknown variable",
        why: "a call statement may write memory",
        fix: "move the call out of the loop nest, or declare the variable";
    /// An access through a pointer.
    PointerAccess = "PF024", Warning, "access through a pointer",
        trigger: "an access through a pointer: `p[i]` with `double *p`, `*p`",
        why: "pointers may alias",
        fix: "declare arrays (`double A[N]`; VLA parameters are fine)";
    /// A partial access to an array.
    PartialAccess = "PF025", Warning, "partial access to an array",
        trigger: "an access with fewer subscripts than the array has dimensions (`A[i]` of a 2-d array)",
        why: "the result is a pointer",
        fix: "access whole elements (`A[i][j]`)";
    /// A struct member access.
    StructMember = "PF026", Warning, "struct member access",
        trigger: "a struct member access (`s.a[i]`)",
        why: "struct members are not modelled",
        fix: "use plain arrays in the loop nest";
    /// An access written in a macro body.
    AccessInMacro = "PF027", Warning, "access inside a macro body",
        trigger: "a macro body that names a variable or accesses an array (`#define GET(i) A[i]`)",
        why: "the access would have no source span to edit",
        fix: "write the access in the code";
    /// A declaration with an initialiser inside a SCoP.
    InitialisedDeclaration = "PF028", Warning, "declaration with an initialiser",
        trigger: "a declaration with an initialiser inside a SCoP",
        why: "declarations inside a SCoP are not modelled",
        fix: "declare before the nest, assign inside";
    /// A condition with too many disjuncts.
    TooManyDisjuncts = "PF029", Warning, "too many disjuncts",
        trigger: "a condition (or the conditions around a statement) that needs more than 64 disjuncts",
        why: "this keeps the model small",
        fix: "simplify the condition";
    /// An array of more than 4 dimensions.
    TooManyDimensions = "PF030", Warning, "too many array dimensions",
        trigger: "an array of more than 4 dimensions",
        why: "this is a limit of the IR",
        fix: "use at most 4 dimensions";
    /// An iterator read after its loop.
    IteratorReadAfterLoop = "PF031", Warning, "iterator read after its loop",
        trigger: "the value of a loop iterator read outside its loop (`last = i` after the loop)",
        why: "the final value of an iterator is not modelled",
        fix: "store the value explicitly";
    /// A preprocessor condition polyfold cannot evaluate.
    UndecidedCondition = "PF032", Warning, "preprocessor condition not evaluated",
        trigger: "a preprocessor condition polyfold cannot evaluate (`__GNUC__`, `_OPENMP` or another name the compiler may predefine, a function-like macro, `__has_include`, an unsupported token)",
        why: "the branch compiled is not known",
        fix: "the macros defined or undefined under it have no value (code using them stays out of SCoPs); the functions and globals under it are not analysed; pass the name with `-D`";
    /// Loops under `#if` inside a function body.
    LoopsUnderConditional = "PF033", Warning, "loops under a preprocessor conditional",
        trigger: "loops under `#if`/`#ifdef` inside a function body",
        why: "the branch compiled may change with the build",
        fix: "move the conditional outside the function";
    /// A quoted `#include` that cannot be read.
    HeaderNotRead = "PF034", Warning, "header not read",
        trigger: "a quoted `#include \"X.h\"` that cannot be read (not found next to the file or in any `-I` directory, bytes that are not UTF-8 mixed with the characters U+10FF80..U+10FFFF, nested more than 64 deep, a computed `#include MACRO`)",
        why: "its macros are not known",
        fix: "pass `-I DIR`; code that uses its macros stays out of SCoPs";
    /// Statements of a pragma region left out of every SCoP.
    RegionWithoutLoop = "PF035", Warning, "region statements without a loop",
        trigger: "statements of a `#pragma scop` region left out of every SCoP because their part of the region has no loop (e.g. cut off by a rejected statement)",
        why: "a SCoP needs a loop, and nothing in a region is dropped silently",
        fix: "see the warnings about the statements around them";
    /// A local array declared through a function-like macro.
    MacroDeclarator = "PF036", Note, "array declared through a macro",
        trigger: "a local array declared through a function-like macro (`double DECL(t, N);`)",
        why: "its declarator is the macro's text, and polyfold never rewrites inside a macro",
        fix: "it keeps its layout; write the declarator in the code to let it fold";
    /// A `-D NAME` that nothing mentions.
    UnusedDefine = "PF037", Warning, "unused -D name",
        trigger: "a `-D NAME` that neither the file nor a header it reads mentions",
        why: "it is probably a misspelt name",
        fix: "the `-D` changes nothing; check the name";
    /// A `-D NAME=VALUE` the file `#define`s to another value.
    RedefinedDefine = "PF038", Warning, "-D value redefined by the file",
        trigger: "a `-D NAME=VALUE` whose name the file `#define`s (in an active branch) to another value",
        why: "`cc -D` compiles with the file's `#define` after it, while polyfold analyses the `-D` value, so storage pinned to that value fails its `_Static_assert`",
        fix: "change the `#define`, or guard it with `#ifndef NAME`";
    /// A coefficient overflows 64 bits.
    Overflow = "PF040", Warning, "coefficient overflow",
        trigger: "a coefficient that overflows 64 bits",
        why: "polyfold uses exact arithmetic only",
        fix: "use smaller coefficients";
    /// A macro means something else at an array's declaration.
    MacroMeaningChanged = "PF041", Warning, "macro means something else at a declaration",
        trigger: "a macro used in the declaration of an array of the SCoP declared outside its function, or a parameter of the SCoP, means something else there than in the function (`#undef`/`#define` in between)",
        why: "the array's extents and the pins printed at its declaration would read another value",
        fix: "the SCoP is left out; declare the array after the last definition, or use one name per value";
}

impl Code {
    /// The code named `text` (`PF016`, case and surrounding blanks
    /// ignored), if polyfold has it.
    pub fn parse(text: &str) -> Option<Code> {
        let wanted = text.trim().to_ascii_uppercase();
        Code::ALL.iter().copied().find(|c| c.as_str() == wanted)
    }

    /// What `polyfold explain CODE` prints: the code, its severity and
    /// title, then the explanation, one paragraph a line.
    pub fn explain_text(self) -> String {
        let e = self.explanation();
        format!(
            "{} ({}): {}\n\nWhat triggers it: {}.\nWhy: {}.\nWhat to do: {}.\n",
            self.as_str(),
            severity_word(self.severity()),
            self.title(),
            e.trigger,
            e.why,
            e.fix
        )
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The reference page of every code, `docs/diagnostics.md` (what
/// `polyfold explain --markdown` prints).
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "# polyfold's diagnostics\n\
         \n\
         <!-- Generated from `src/diag/code.rs` by `polyfold explain --markdown`; do not edit by hand. -->\n\
         \n\
         Every diagnostic has a stable code. Rejections are warnings: the code\n\
         stays out of the SCoP and the run succeeds. In a function without\n\
         pragmas, rejected statements that contain no loop (`printf(...)`,\n\
         `return`) are left out silently. `polyfold explain CODE` prints one\n\
         entry of this page; `--allow CODE` hides a code's warnings and notes\n\
         (errors always print).\n\
         \n\
         | code | severity | title |\n\
         |---|---|---|\n",
    );
    for &code in Code::ALL {
        out.push_str(&format!(
            "| [{}](#{}) | {} | {} |\n",
            code.as_str(),
            code.as_str().to_ascii_lowercase(),
            severity_word(code.severity()),
            code.title()
        ));
    }
    for &code in Code::ALL {
        let e = code.explanation();
        out.push_str(&format!(
            "\n## {}\n\n**{}** ({}).\n\n- What triggers it: {}.\n- Why: {}.\n- What to do: {}.\n",
            code.as_str(),
            code.title(),
            severity_word(code.severity()),
            e.trigger,
            e.why,
            e.fix
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_well_formed_and_in_order() {
        let strings: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        for s in &strings {
            assert!(
                s.len() == 5 && s.starts_with("PF") && s[2..].chars().all(|c| c.is_ascii_digit()),
                "{s}"
            );
        }
        let mut sorted = strings.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, strings, "codes are unique and declared in order");
        // The derived order of the variants is the order of the strings
        // (the front end sorts diagnostics by code).
        for pair in Code::ALL.windows(2) {
            assert!(pair[0] < pair[1] && pair[0].as_str() < pair[1].as_str());
        }
    }

    #[test]
    fn parse_finds_every_code_and_nothing_else() {
        for &c in Code::ALL {
            assert_eq!(Code::parse(c.as_str()), Some(c));
            assert_eq!(
                Code::parse(&format!(" {} ", c.as_str().to_lowercase())),
                Some(c)
            );
        }
        for bad in ["", "PF", "PF000", "PF039", "PF999", "PF16", "XX016"] {
            assert_eq!(Code::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn explanations_are_single_lines_without_a_final_period() {
        for &c in Code::ALL {
            let e = c.explanation();
            for text in [c.title(), e.trigger, e.why, e.fix] {
                assert!(!text.is_empty() && !text.contains('\n'), "{c}: {text:?}");
                assert!(!text.ends_with('.'), "{c}: {text:?} (the period is added)");
            }
        }
        let text = Code::QuasiAffine.explain_text();
        assert!(text.starts_with("PF016 (warning): quasi-affine division or remainder\n\n"));
        assert_eq!(text.lines().count(), 5, "{text}");
    }

    /// `docs/diagnostics.md` is what the table generates.
    #[test]
    fn docs_diagnostics_md_is_generated_from_the_codes() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/diagnostics.md");
        let bless = std::env::var_os("POLYFOLD_BLESS").is_some_and(|v| v == "1");
        if let Err(e) = crate::util::snapshot::check_snapshot(
            &path,
            &reference_markdown(),
            bless,
            "POLYFOLD_BLESS=1 cargo test --release --lib diag (or `polyfold explain --markdown > docs/diagnostics.md`)",
        ) {
            panic!("{e}");
        }
    }
}
