//! The model of a generated test program, its C printer and its concrete
//! checker.
//!
//! A [`GenProgram`] is a tiny affine kernel as plain data: `#define`d
//! sizes, local temporary arrays and scalars, and a tree of loops, affine
//! `if`s and assignments. [`GenProgram::to_c`] prints it as a complete C11
//! program whose `main` initialises the external input `in` with integer
//! formulas, calls the kernel and prints every cell of the external output
//! `out` with `%.17g`. [`GenProgram::check_well_defined`] runs the control
//! flow of the kernel for the concrete sizes and checks that every access
//! is in bounds and that no temporary cell or scalar is read before it is
//! written (which would make the original program's output garbage).
//!
//! This module does NOT generate programs (see `generate`) and does not
//! run polyfold or a compiler (see `check`).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::real_c::{RealCForm, Unit};
use crate::WEIGHTS;

/// Size of the external input array `in`.
pub const INPUT_SIZE: i64 = 160;
/// Size of the external output array `out`.
pub const OUTPUT_SIZE: i64 = 40;

/// An affine expression over loop iterators and size macros, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aff {
    /// Terms `coefficient * name`, each name at most once, no zero
    /// coefficients after [`Aff::normalised`].
    pub terms: Vec<(String, i64)>,
    pub constant: i64,
}

impl Aff {
    /// The constant `value`.
    pub fn constant(value: i64) -> Aff {
        Aff {
            terms: Vec::new(),
            constant: value,
        }
    }

    /// The name `name` plus `offset`.
    pub fn var(name: &str, offset: i64) -> Aff {
        Aff {
            terms: vec![(name.to_string(), 1)],
            constant: offset,
        }
    }

    /// The coefficient of `name` (0 when absent).
    pub fn coeff(&self, name: &str) -> i64 {
        self.terms
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, c)| *c)
            .sum()
    }

    /// `self + factor * other`, normalised.
    pub fn plus_scaled(&self, other: &Aff, factor: i64) -> Aff {
        let mut result = self.clone();
        for (name, c) in &other.terms {
            result.terms.push((name.clone(), c * factor));
        }
        result.constant += other.constant * factor;
        result.normalised()
    }

    /// Merges equal names and drops zero coefficients, keeping the first
    /// occurrence order.
    pub fn normalised(&self) -> Aff {
        let mut terms: Vec<(String, i64)> = Vec::new();
        for (name, c) in &self.terms {
            if let Some(entry) = terms.iter_mut().find(|(n, _)| n == name) {
                entry.1 += c;
            } else {
                terms.push((name.clone(), *c));
            }
        }
        terms.retain(|(_, c)| *c != 0);
        Aff {
            terms,
            constant: self.constant,
        }
    }

    /// Substitutes `name + shift[name]` for each shifted name, where the
    /// shifts are affine expressions themselves.
    pub fn shifted_by(&self, shift: &[(String, Aff)]) -> Aff {
        let mut result = self.clone();
        for (name, d) in shift {
            result = result.plus_scaled(d, self.coeff(name));
        }
        result.normalised()
    }

    /// Substitutes `name + shift[name]` for each shifted name.
    pub fn shifted(&self, shift: &[(String, i64)]) -> Aff {
        let mut result = self.clone();
        for (name, d) in shift {
            result.constant += self.coeff(name) * d;
        }
        result
    }

    /// The value for the given environment (`None` when a name is unbound
    /// or the arithmetic overflows).
    pub fn eval(&self, env: &HashMap<String, i64>) -> Option<i64> {
        let mut value = self.constant;
        for (name, c) in &self.terms {
            let v = *env.get(name)?;
            value = value.checked_add(c.checked_mul(v)?)?;
        }
        Some(value)
    }

    /// C text, e.g. `i + 2 * j - N0 + 1`.
    pub fn to_c(&self) -> String {
        self.to_c_with(&|_| false)
    }

    /// C text where the names for which `compound` holds (macros whose
    /// body is an expression, inline `N0 / 2` atoms) are parenthesised
    /// unless they appear with coefficient +1.
    pub fn to_c_with(&self, compound: &dyn Fn(&str) -> bool) -> String {
        let mut out = String::new();
        for (name, c) in &self.terms {
            if *c == 0 {
                continue;
            }
            let magnitude = c.abs();
            if out.is_empty() {
                if *c < 0 {
                    out.push('-');
                }
            } else if *c < 0 {
                out.push_str(" - ");
            } else {
                out.push_str(" + ");
            }
            if magnitude != 1 {
                let _ = write!(out, "{magnitude} * ");
            }
            if *c != 1 && compound(name) {
                let _ = write!(out, "({name})");
            } else {
                out.push_str(name);
            }
        }
        if out.is_empty() {
            let _ = write!(out, "{}", self.constant);
        } else if self.constant > 0 {
            let _ = write!(out, " + {}", self.constant);
        } else if self.constant < 0 {
            let _ = write!(out, " - {}", -(self.constant as i128));
        }
        out
    }
}

/// A temporary local array of the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TempArray {
    pub name: String,
    /// One extent per dimension (affine in the size macros).
    pub extents: Vec<Aff>,
}

/// What an assignment writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A temporary array cell.
    Temp { array: usize, subscripts: Vec<Aff> },
    /// A local scalar (by index into `GenProgram::scalars`).
    Scalar(usize),
    /// A cell of the external output `out`.
    Output(Aff),
    /// `out[SIZE * var + offset]` (the `products` form): a size times an
    /// iterator in the subscript of an array the SCoP writes, which the
    /// front end folds with the size's known value (`out[8 * i + j]`); it
    /// concerns `out`'s cells only, not the temporaries' lifetimes.
    OutputScaled {
        size: String,
        var: String,
        offset: Aff,
    },
}

/// What an assignment reads (each with a coefficient from a small table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read {
    Temp {
        array: usize,
        subscripts: Vec<Aff>,
    },
    Scalar(usize),
    Input(Aff),
    /// `in[SIZE * var + offset]`: a size times an iterator, which the
    /// front end folds with the size's known value (`in[8 * i + j]`); the
    /// SCoP only reads `in`, so that value decides no dataflow.
    InputScaled {
        size: String,
        var: String,
        offset: Aff,
    },
    /// `in[index / k]`, `in[index % k]`, `in[index % k + k]` or
    /// `in[(index / a) % b]`: a quotient in a subscript, which the front
    /// end models as a quotient dimension of the statement (C's
    /// truncation, negative values included).
    InputQuotient {
        index: Aff,
        form: QuotientForm,
    },
    /// The value of an affine expression of the iterators, `(t0 + 1)`
    /// (the `time-loops` form: a time step's iterator in the values).
    Value(Aff),
}

/// How a [`Read::InputQuotient`] divides its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotientForm {
    Div(i64),
    Mod(i64),
    /// `x % k + k`: in `1..2k` for every sign of `x`.
    ModShifted(i64),
    /// `(x / a) % b`.
    DivMod(i64, i64),
}

impl QuotientForm {
    /// The index C computes from `x` (Rust's `/` and `%` on `i64`
    /// truncate like C's); `None` on overflow or a zero divisor.
    pub fn apply(self, x: i64) -> Option<i64> {
        match self {
            QuotientForm::Div(k) => x.checked_div(k),
            QuotientForm::Mod(k) => x.checked_rem(k),
            QuotientForm::ModShifted(k) => x.checked_rem(k)?.checked_add(k),
            QuotientForm::DivMod(a, b) => x.checked_div(a)?.checked_rem(b),
        }
    }

    /// The C text for an index whose text is `x`.
    pub fn text(self, x: &str, single: bool) -> String {
        let x = if single {
            x.to_string()
        } else {
            format!("({x})")
        };
        match self {
            QuotientForm::Div(k) => format!("{x} / {k}"),
            QuotientForm::Mod(k) => format!("{x} % {k}"),
            QuotientForm::ModShifted(k) => format!("{x} % {k} + {k}"),
            QuotientForm::DivMod(a, b) => format!("({x} / {a}) % {b}"),
        }
    }
}

/// One node of the kernel body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// `for (var = lower; var <= upper; var++) { body }`.
    Loop {
        var: String,
        lower: Aff,
        upper: Aff,
        body: Vec<Node>,
    },
    /// `if (c1 >= 0 && c2 >= 0 ...) { body }`, or with `any`
    /// `if (c1 >= 0 || c2 >= 0 ...) { body }` (the `chains` form).
    If {
        conditions: Vec<Aff>,
        any: bool,
        body: Vec<Node>,
    },
    /// `if (c1 >= 0 && ...) { then_body } else { else_body }`.
    IfElse {
        conditions: Vec<Aff>,
        then_body: Vec<Node>,
        else_body: Vec<Node>,
    },
    /// `{ double T[..]; body }`: temporaries declared in a nested block
    /// (fresh, unwritten cells at each entry).
    Block { temps: Vec<usize>, body: Vec<Node> },
    /// `#pragma omp parallel for private(..)` on the loop in `body` (one
    /// `Loop`), whose iterations must be independent.
    Parallel {
        private: Vec<String>,
        chunked: bool,
        body: Vec<Node>,
    },
    /// `target = e` or `target += e` with
    /// `e = w1 * r1 + w2 * r2 + ... + constant`.
    Assign {
        target: Target,
        accumulate: bool,
        reads: Vec<(usize, Read)>,
        constant: i64,
    },
}

/// A generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenProgram {
    /// The seed it was generated from (printed in the header).
    pub seed: u64,
    /// `#define NAME VALUE` sizes, in order.
    pub sizes: Vec<(String, i64)>,
    pub temps: Vec<TempArray>,
    pub scalars: Vec<String>,
    pub body: Vec<Node>,
    /// How sizes are written and which other builds and calls the program
    /// has (the classic generator leaves it at its default).
    pub shape: Shape,
}

/// Which forms of C the generator may use. Each is a switch: with every
/// switch off ([`Forms::classic`]) the generator makes exactly the
/// programs of the original generator for the same seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Forms {
    /// Sizes as macros with operators: `#define LAST0 N0-1`,
    /// `#define PLUS0 N0+2`, `#define HALF0 (N0)/2`, in extents, bounds,
    /// subscripts.
    pub derived_macros: bool,
    /// `N0 / 2` and `N0 % 4` written inline in bounds, extents and
    /// subscripts.
    pub div_mod: bool,
    /// Sizes chosen by `#ifdef SMALL_DATASET` (three styles), built with
    /// each choice.
    pub ifdef_sizes: bool,
    /// Sizes behind `#ifndef N0`, built again with `-DN0=<other>`.
    pub other_sizes: bool,
    /// Comments at line ends (after `for (...)` headers too).
    pub comments: bool,
    /// Brace-less `if` / `for` / `else` bodies.
    pub braceless: bool,
    /// `if (...) ... else ...`.
    pub else_branches: bool,
    /// Ping-pong stencils whose copy back runs over the whole array under
    /// a guard, followed by a probe read inside the time loop.
    pub copy_back: bool,
    /// Temporaries declared inside loop bodies (sibling blocks).
    pub block_scoped: bool,
    /// Sizes as `int` parameters of the kernel (VLAs), called with tiny
    /// sizes (1, 2, 3) as well as the normal ones.
    pub vla: bool,
    /// `#pragma omp parallel for` on loops with independent iterations.
    pub openmp: bool,
    /// Reads of the input `in[N0 * i + j]`: a size times an iterator in
    /// the subscripts of an array the SCoP only reads.
    pub products: bool,
    /// A temporary passed to the kernel as a parameter and declared a
    /// temporary by `#pragma polyfold temp(NAME)`.
    pub temp_parameters: bool,
    /// Dynamic-programming triangles (dynprog's shape): `T[i][j]` from
    /// the row's earlier cells `T[i][k]`, `i < k < j`, and the corner
    /// `T[0][N - 1]` read after the nest, which no iteration writes when
    /// N = 1 (live-in cells at the smallest size only); or row sums of an
    /// upper triangle (reg_detect's `sum_t`) read whole by a later nest
    /// (quasi-affine moduli).
    pub triangles: bool,
    /// Linearised chains (mot_detect's `Delta`): `T[W * j + k]` (or
    /// `T[i][W * j + k]`) from the cell before it, `W` a constant row
    /// width, under `if (j - 1 >= 0 || k - 1 >= 0)`, the first cell
    /// written before the nest and the last one read after it.
    pub chains: bool,
    /// Skewed temporaries (issue 21's unimodular reindexing): written at
    /// `T[i + j][j]`, `T[i][i + j]` or `T[i - j + Q - 1][j]` over a
    /// rectangle and read whole by a later nest.
    pub skewed: bool,
    /// Strided temporaries (issue 21's stride removal): written at
    /// `T[g * i + r][c]` (`g` 2 or 3, one column `c` of up to three) or
    /// `T[g * i + r][j]`, maybe as a recurrence from `T[g * (i - 1) + r]`,
    /// maybe with a second residue, and read by a later nest.
    pub strided: bool,
    /// Temporaries holding two or three regions of one buffer
    /// (`T[i]`, `T[P + 2 + i]`, `T[2 * P + i]`; issue 21's split by
    /// reference groups), each written by the producer and read by a
    /// later nest, in order or in reverse; sometimes two regions overlap
    /// (for some sizes or all), so that no split is proven.
    pub regions: bool,
    /// Temporaries declared at the kernel's top level with an initialiser
    /// (`double T0[N0][N1] = {0};`, sizes all macros), whose values no
    /// read sees: a new declarator must drop it.
    pub initialised: bool,
    /// Loops that declare their iterator in the header (`for (int i0 =
    /// ...)`, shadowing the function's `int i0`), where code generation
    /// declares rotating indices with it.
    pub declared_iterators: bool,
    /// Multi-nest stencil chains that loop shifting and fusion applies to:
    /// 2 to 4 sibling loops (or 2-d nests), each stage reading the one
    /// before at small constant offsets (`T1[i] = w * T0[i + 1] + w' *
    /// T0[i - 2]`), its bounds shrunk by the offsets so that every read
    /// is in bounds, the first stage reading `in`, the last writing `out`.
    /// Drawn from a stream of its own: a program that does not draw it is
    /// the one its seed made before the form existed.
    pub stencil_chains: bool,
    /// The forms of issue 45 (see [`super::real_c`]): each writes a kernel
    /// of its own after the main kernel, drawn from a stream of its own
    /// (programs without one are the ones their seeds made before).
    /// Stateful calls in loops (an LCG `noise()`, a byte reader,
    /// `bias = noise();` between loops, a global read through
    /// `get_total()`) and pure helpers.
    pub stateful_calls: bool,
    /// The kernel called with one array for two parameters (`k(n, x, x)`,
    /// overlapping parts), and `restrict` kernels with distinct arrays.
    pub in_place_calls: bool,
    /// Loops `for (i = base; i < base + n; i++)`, subscripts `i - base`,
    /// called with `base = INT_MAX - n`, `INT_MIN` and ordinary values.
    pub extreme_bases: bool,
    /// A `long j` loop computing `j * 1000000` next to an `int i` loop.
    pub long_iterators: bool,
    /// Per-row scratch in a parallel loop whose pragma is under
    /// `#ifdef _OPENMP`, `#if USE_OMP`, `_Pragma` or a macro of it.
    pub openmp_ifdef: bool,
    /// VLA sizes written after the declaration, initialisers with calls.
    pub declaration_effects: bool,
    /// `#undef N` / `#define N 4` between two kernels.
    pub undef_macros: bool,
    /// `#define RESTRICT __restrict`, an attribute macro on a parameter,
    /// `FOR(i, a, b)` loops, `_Pragma` before a loop and a function.
    pub c_macros: bool,
    /// Issue 47: a `static` kernel whose scratch is an array parameter
    /// that `main` owns (a local array or VLA, `malloc`/`calloc` memory,
    /// a PolyBench-style macro family), with variants where it escapes.
    pub caller_buffers: bool,
    /// Issue 47: a kernel that allocates its scratch with `malloc` or
    /// `calloc` and frees it, with variants where it escapes.
    pub heap_buffers: bool,
    /// Issue 48: the kernel's loop nests, or a run of sibling loops inside
    /// one, wrapped in 1 to 3 enclosing time loops `for (t0 = 0; t0 <=
    /// TT0 - 1; t0++)` (`TT0` a size, sometimes 0 or 1), with kernels of
    /// their own inside: a scratch rewritten every step, a value carried
    /// across steps, a copy-back stencil, a producer and a consumer as
    /// sibling loops; the time iterators in values and subscripts. Drawn
    /// from a stream of its own (see `generate`).
    pub time_loops: bool,
    /// Issue 51: loops labelled `L<k>:` (on a line of their own or before
    /// the loop on its line, as HLS code names its loops), and loop
    /// conditions written `(i <= ub) & (i - 1 < ub)`, a `&` of comparisons.
    /// Printing only, drawn from a stream of its own.
    pub labels_bitwise: bool,
}

impl Forms {
    /// No new form: the original generator.
    pub fn classic() -> Forms {
        Forms::default()
    }

    /// Every form.
    pub fn all() -> Forms {
        Forms {
            derived_macros: true,
            div_mod: true,
            ifdef_sizes: true,
            other_sizes: true,
            comments: true,
            braceless: true,
            else_branches: true,
            copy_back: true,
            block_scoped: true,
            vla: true,
            openmp: true,
            products: true,
            temp_parameters: true,
            triangles: true,
            chains: true,
            skewed: true,
            strided: true,
            regions: true,
            initialised: true,
            declared_iterators: true,
            stencil_chains: true,
            stateful_calls: true,
            in_place_calls: true,
            extreme_bases: true,
            long_iterators: true,
            openmp_ifdef: true,
            declaration_effects: true,
            undef_macros: true,
            c_macros: true,
            caller_buffers: true,
            heap_buffers: true,
            time_loops: true,
            labels_bitwise: true,
        }
    }

    /// Every form but those of issue 45 (the main kernel's forms only).
    pub fn all_but_real_c() -> Forms {
        let mut forms = Forms::all();
        for form in RealCForm::ALL {
            *forms.switch(form.name()).expect("a form name") = false;
        }
        forms
    }

    /// The forms of issue 45 that are on, in order.
    pub fn real_c(&self) -> Vec<RealCForm> {
        RealCForm::ALL
            .into_iter()
            .filter(|f| self.get(f.name()) == Some(true))
            .collect()
    }

    /// Whether no form but those of issue 45 is on.
    pub fn only_real_c(&self) -> bool {
        let mut rest = *self;
        for form in RealCForm::ALL {
            *rest.switch(form.name()).expect("a form name") = false;
        }
        rest == Forms::classic()
    }

    /// The names of the switches, in order.
    pub const NAMES: [&'static str; 33] = [
        "derived-macros",
        "div-mod",
        "ifdef-sizes",
        "other-sizes",
        "comments",
        "braceless",
        "else",
        "copy-back",
        "block-scoped",
        "vla",
        "openmp",
        "products",
        "temp-parameters",
        "triangles",
        "chains",
        "skewed",
        "strided",
        "regions",
        "initialised",
        "declared-iterators",
        "stencil-chains",
        "stateful-calls",
        "in-place-calls",
        "extreme-bases",
        "long-iterators",
        "openmp-ifdef",
        "declaration-effects",
        "undef-macros",
        "c-macros",
        "caller-buffers",
        "heap-buffers",
        "time-loops",
        "labels-bitwise",
    ];

    fn switch(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "derived-macros" => &mut self.derived_macros,
            "div-mod" => &mut self.div_mod,
            "ifdef-sizes" => &mut self.ifdef_sizes,
            "other-sizes" => &mut self.other_sizes,
            "comments" => &mut self.comments,
            "braceless" => &mut self.braceless,
            "else" => &mut self.else_branches,
            "copy-back" => &mut self.copy_back,
            "block-scoped" => &mut self.block_scoped,
            "vla" => &mut self.vla,
            "openmp" => &mut self.openmp,
            "products" => &mut self.products,
            "temp-parameters" => &mut self.temp_parameters,
            "triangles" => &mut self.triangles,
            "chains" => &mut self.chains,
            "skewed" => &mut self.skewed,
            "strided" => &mut self.strided,
            "regions" => &mut self.regions,
            "initialised" => &mut self.initialised,
            "declared-iterators" => &mut self.declared_iterators,
            "stencil-chains" => &mut self.stencil_chains,
            "stateful-calls" => &mut self.stateful_calls,
            "in-place-calls" => &mut self.in_place_calls,
            "extreme-bases" => &mut self.extreme_bases,
            "long-iterators" => &mut self.long_iterators,
            "openmp-ifdef" => &mut self.openmp_ifdef,
            "declaration-effects" => &mut self.declaration_effects,
            "undef-macros" => &mut self.undef_macros,
            "c-macros" => &mut self.c_macros,
            "caller-buffers" => &mut self.caller_buffers,
            "heap-buffers" => &mut self.heap_buffers,
            "time-loops" => &mut self.time_loops,
            "labels-bitwise" => &mut self.labels_bitwise,
            _ => return None,
        })
    }

    /// Sets the switch `name`; false when there is no such switch.
    pub fn set(&mut self, name: &str, on: bool) -> bool {
        match self.switch(name) {
            Some(slot) => {
                *slot = on;
                true
            }
            None => false,
        }
    }

    /// Whether the switch `name` is on.
    pub fn get(&self, name: &str) -> Option<bool> {
        let mut copy = *self;
        copy.switch(name).map(|b| *b)
    }

    /// `classic`, `all`, or a comma-separated list of switch names (a
    /// name prefixed with `-` is removed from `all`).
    pub fn parse(text: &str) -> Result<Forms, String> {
        match text {
            "classic" | "none" => return Ok(Forms::classic()),
            "all" => return Ok(Forms::all()),
            _ => {}
        }
        let names: Vec<&str> = text.split(',').map(str::trim).collect();
        let subtractive = names.iter().all(|n| n.starts_with('-'));
        let mut forms = if subtractive {
            Forms::all()
        } else {
            Forms::classic()
        };
        for name in names {
            let (value, bare) = match name.strip_prefix('-') {
                Some(bare) => (false, bare),
                None => (true, name),
            };
            let slot = forms.switch(bare).ok_or_else(|| {
                format!(
                    "unknown form `{bare}` (known: classic, all, {})",
                    Forms::NAMES.join(", ")
                )
            })?;
            *slot = value;
        }
        Ok(forms)
    }
}

/// Whether the sizes of generated programs have values polyfold can see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SizeMode {
    /// The generator as it was: sizes are `#define`d (or chosen by `-D`
    /// builds), and the `vla` form makes some of them kernel parameters.
    /// Seeds keep their programs.
    Values,
    /// Every size, time steps included, is an `int` parameter of the
    /// kernel with no value anywhere (no `#define`, no `-D`): temporaries
    /// are VLAs of symbolic extent, and the kernel is called with several
    /// sizes (see `generate::generate_sized`).
    Symbolic,
    /// `Symbolic` on the seeds whose second bit is set (`seed / 2` odd),
    /// `Values` on the others, so that both meet both `--inter-array`
    /// choices of the seed's parity.
    #[default]
    Mixed,
}

impl SizeMode {
    /// `symbolic`, `values` or `mixed`.
    pub fn parse(text: &str) -> Result<SizeMode, String> {
        match text {
            "symbolic" => Ok(SizeMode::Symbolic),
            "values" => Ok(SizeMode::Values),
            "mixed" => Ok(SizeMode::Mixed),
            _ => Err(format!(
                "unknown size mode `{text}` (known: symbolic, values, mixed)"
            )),
        }
    }

    /// Whether the program of `seed` has symbolic sizes.
    pub fn symbolic_for(self, seed: u64) -> bool {
        match self {
            SizeMode::Values => false,
            SizeMode::Symbolic => true,
            SizeMode::Mixed => (seed / 2) % 2 == 1,
        }
    }
}

/// How a base size is written.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum SizeForm {
    /// `#define N0 8`.
    #[default]
    Define,
    /// `#ifndef N0` / `#define N0 8` / `#endif` (so `-DN0=..` overrides it).
    Guarded,
    /// Chosen by the dataset macros: `small` under `-DSMALL_DATASET`,
    /// `large` under `-DLARGE_DATASET` (PolyBench style only), the size's
    /// value otherwise.
    Dataset { small: i64, large: i64 },
    /// An `int` parameter of the kernel (arrays sized by it are VLAs).
    Parameter,
}

/// How the dataset sizes are selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DatasetStyle {
    /// `#ifdef SMALL_DATASET` small `#else` default `#endif`.
    #[default]
    IfdefSmall,
    /// `#ifndef SMALL_DATASET` default `#else` small `#endif` (the active
    /// default is not the last `#define` in the text).
    IfndefSmall,
    /// PolyBench: `MEDIUM_DATASET` unless another is given, then one
    /// `#ifdef` block per dataset (small, medium, large).
    PolyBench,
}

/// A size written as an expression of a base size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derived {
    /// The macro name, or for an inline atom its text (e.g. `N0 / 2`).
    pub name: String,
    /// The macro body (`N0-1`, `(N0)/2`); equal to `name` when inline.
    pub text: String,
    pub base: String,
    pub op: DerivedOp,
    pub inline: bool,
}

/// The operator of a [`Derived`] size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DerivedOp {
    Add(i64),
    Div(i64),
    Mod(i64),
}

impl DerivedOp {
    /// The value for a base value (C semantics; bases are never negative).
    pub fn apply(self, base: i64) -> i64 {
        match self {
            DerivedOp::Add(c) => base + c,
            DerivedOp::Div(d) => base / d,
            DerivedOp::Mod(m) => base % m,
        }
    }
}

/// Another build of the same program: `-D` flags and the base sizes they
/// give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeConfig {
    pub flags: Vec<String>,
    pub values: Vec<(String, i64)>,
}

/// The non-classic parts of a program.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Shape {
    /// One per entry of `GenProgram::sizes` (empty: all `Define`).
    pub size_forms: Vec<SizeForm>,
    pub dataset_style: DatasetStyle,
    pub derived: Vec<Derived>,
    /// Other builds (`-DN0=..`, `-DSMALL_DATASET`), each well defined.
    pub configs: Vec<SizeConfig>,
    /// Extra calls of the kernel: values of the `Parameter` sizes, in
    /// order (the first call uses the sizes' values).
    pub calls: Vec<Vec<i64>>,
    /// Comments at line ends.
    pub comments: bool,
    /// Brace-less bodies where legal.
    pub braceless: bool,
    /// An assignment `x = 1.0 * y;` prints as the plain copy `x = y;`
    /// (the same value), the form dead-copy elimination looks for.
    pub plain_copies: bool,
    /// Seed of the printing choices (which bodies lose their braces,
    /// which lines get comments).
    pub style_seed: u64,
    /// Made in [`SizeMode::Symbolic`]: every base size is a `Parameter`
    /// and no build gives one a value.
    pub symbolic: bool,
    /// The first temporary declared in the kernel's body (not in a block,
    /// not private to a parallel loop) is a parameter of the kernel
    /// instead, declared a temporary by `#pragma polyfold temp(NAME)`; the
    /// caller passes an array of its own (programs whose sizes are macros).
    pub temp_parameter: bool,
    /// The temporaries declared at the kernel's top level get the
    /// initialiser `= {0}` (the `initialised` form; not for VLAs).
    pub initialised: bool,
    /// Some loops declare their iterator in their header (the
    /// `declared-iterators` form).
    pub declared_iterators: bool,
    /// Some loops are labelled and some loop conditions are a `&` of two
    /// comparisons (the `labels-bitwise` form).
    pub labels_bitwise: bool,
    /// The kernels of their own printed after the main kernel, in the
    /// forms of issue 45 (see [`super::real_c`]).
    pub units: Vec<Unit>,
    /// The forms the program drew (a subset of the caller's; those of
    /// issue 45 when it has a unit of them): the campaign counts programs
    /// per form.
    pub drawn: Forms,
}

/// Comments put at line ends by the printer (some with `;`, `{`, `}`).
const COMMENTS: [&str; 6] = [
    "// copy back",
    "/* step */",
    "// u[i] = un[i]; }",
    "// { keep }",
    "/* ; */",
    "// next",
];

/// The printer's state: choices drawn from the style seed.
struct Style {
    rng: polyfold::util::rng::Rng,
    comments: bool,
    braceless: bool,
    declared_iterators: bool,
    labels_bitwise: bool,
    /// The labels printed so far (each label of the kernel is new).
    labels: usize,
    /// The next loop follows a pragma that applies to it (`omp parallel
    /// for`): no label between them.
    after_pragma: bool,
}

impl Style {
    fn comment(&mut self) -> String {
        if self.comments && self.rng.chance(1, 3) {
            format!(" {}", self.rng.pick(&COMMENTS))
        } else {
            String::new()
        }
    }

    fn drop_braces(&mut self) -> bool {
        self.braceless && self.rng.chance(2, 3)
    }

    /// A label before a loop at `indent` (`L3:` and a line break with
    /// the indentation, or `L3: `), or nothing.
    fn label(&mut self, indent: &str) -> String {
        let after_pragma = std::mem::take(&mut self.after_pragma);
        if !self.labels_bitwise || after_pragma || !self.rng.chance(1, 2) {
            return String::new();
        }
        let name = format!("L{}", self.labels);
        self.labels += 1;
        if self.rng.chance(1, 2) {
            format!("{name}:\n{indent}")
        } else {
            format!("{name}: ")
        }
    }

    /// The condition of a loop `var <= upper`: as it is, or as a `&` of
    /// it and a bound it implies, `(var <= upper) & (var - 1 < upper)`
    /// (as a filter bank bounds its taps: `((k < 32) & ((j - k) >= 0))`).
    /// Not on a loop an `omp` pragma applies to: OpenMP wants a plain
    /// comparison there (gcc -fopenmp: "invalid controlling predicate";
    /// found by the campaign, seed 53002).
    fn loop_condition(&mut self, var: &str, upper: &str, parallel: bool) -> String {
        if self.labels_bitwise && !parallel && self.rng.chance(1, 2) {
            format!("({var} <= {upper}) & ({var} - 1 < {upper})")
        } else {
            format!("{var} <= {upper}")
        }
    }

    /// `int ` before a loop's iterator, or nothing.
    fn declare_iterator(&mut self) -> &'static str {
        if self.declared_iterators && self.rng.chance(1, 2) {
            "int "
        } else {
            ""
        }
    }
}

/// Why a program is not well defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllDefined(pub String);

/// A size chosen by the dataset macros: its name, then its value in the
/// small, the default (medium) and the large dataset.
type Dataset = (String, i64, i64, i64);

impl GenProgram {
    /// The form of each base size (`Define` when the shape says nothing).
    pub fn size_form(&self, index: usize) -> SizeForm {
        self.shape
            .size_forms
            .get(index)
            .cloned()
            .unwrap_or_default()
    }

    /// The names of the sizes that are kernel parameters, in order.
    pub fn parameter_sizes(&self) -> Vec<String> {
        (0..self.sizes.len())
            .filter(|&i| self.size_form(i) == SizeForm::Parameter)
            .map(|i| self.sizes[i].0.clone())
            .collect()
    }

    /// Whether no size has a value polyfold could see: every base size
    /// is a kernel parameter, and no build defines one (`-D`).
    pub fn sizes_are_symbolic(&self) -> bool {
        (0..self.sizes.len()).all(|i| self.size_form(i) == SizeForm::Parameter)
            && self.shape.configs.is_empty()
    }

    /// The values of the parameter sizes at each call of the kernel by
    /// `main`, in order (the first call uses the sizes' own values); one
    /// empty call when the kernel has no parameter.
    pub fn runtime_sizes(&self) -> Vec<Vec<i64>> {
        let params = self.parameter_sizes();
        let first: Vec<i64> = params
            .iter()
            .map(|p| self.sizes.iter().find(|(n, _)| n == p).map_or(1, |s| s.1))
            .collect();
        std::iter::once(first)
            .chain(self.shape.calls.iter().cloned())
            .collect()
    }

    /// The parameter sizes' values at each call of the kernel, by name
    /// (what `CheckOptions::trace_sizes` takes).
    pub fn call_assignments(&self) -> Vec<Vec<(String, i64)>> {
        let params = self.parameter_sizes();
        self.runtime_sizes()
            .into_iter()
            .map(|call| params.iter().cloned().zip(call).collect())
            .collect()
    }

    /// Whether `name` is a derived size (printed in parentheses unless
    /// its coefficient is +1).
    fn is_compound(&self, name: &str) -> bool {
        self.shape.derived.iter().any(|d| d.name == name)
    }

    /// C text of an affine expression of this program.
    pub fn aff_text(&self, aff: &Aff) -> String {
        aff.to_c_with(&|name| self.is_compound(name))
    }

    /// The environment of the sizes for base values `base` (each size's
    /// own value when absent), derived sizes included.
    pub fn environment(&self, base: &[(String, i64)]) -> HashMap<String, i64> {
        let mut env: HashMap<String, i64> = self.sizes.iter().cloned().collect();
        for (name, value) in base {
            env.insert(name.clone(), *value);
        }
        for d in &self.shape.derived {
            if let Some(b) = env.get(&d.base).copied() {
                env.insert(d.name.clone(), d.op.apply(b));
            }
        }
        env
    }

    /// Every assignment of base sizes the compiled program runs with:
    /// each build (the default and `shape.configs`) times each call.
    pub fn size_assignments(&self) -> Vec<Vec<(String, i64)>> {
        let params = self.parameter_sizes();
        let mut builds: Vec<Vec<(String, i64)>> = vec![Vec::new()];
        builds.extend(self.shape.configs.iter().map(|c| c.values.clone()));
        let mut result = Vec::new();
        for build in builds {
            result.push(build.clone());
            for call in &self.shape.calls {
                let mut values = build.clone();
                values.extend(params.iter().cloned().zip(call.iter().copied()));
                result.push(values);
            }
        }
        result
    }

    /// The complete C program.
    pub fn to_c(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "/* Generated by polyfold's random program generator (seed {}). */",
            self.seed
        );
        out.push_str("#include <stdio.h>\n\n");
        out.push_str("#pragma GCC diagnostic ignored \"-Wunknown-pragmas\"\n");
        out.push_str("#pragma STDC FP_CONTRACT OFF\n\n");
        let mut datasets: Vec<Dataset> = Vec::new();
        for (index, (name, value)) in self.sizes.iter().enumerate() {
            match self.size_form(index) {
                SizeForm::Define => {
                    let _ = writeln!(out, "#define {name} {value}");
                }
                SizeForm::Guarded => {
                    let _ = writeln!(out, "#ifndef {name}\n#define {name} {value}\n#endif");
                }
                SizeForm::Dataset { small, large } => {
                    datasets.push((name.clone(), small, *value, large))
                }
                SizeForm::Parameter => {}
            }
        }
        if !datasets.is_empty() {
            self.print_datasets(&datasets, &mut out);
        }
        for d in self.shape.derived.iter().filter(|d| !d.inline) {
            let _ = writeln!(out, "#define {} {}", d.name, d.text);
        }
        let _ = writeln!(out, "#define IN_SIZE {INPUT_SIZE}");
        let _ = writeln!(out, "#define OUT_SIZE {OUTPUT_SIZE}");
        out.push('\n');
        let params = self.parameter_sizes();
        let mut scoped = Vec::new();
        collect_scoped(&self.body, &mut scoped);
        let temp_parameter = self.temp_parameter(&params, &scoped);
        let mut param_text: String = params.iter().map(|p| format!("int {p}, ")).collect();
        if let Some(t) = temp_parameter {
            let declaration = self.declaration(&self.temps[t]);
            let _ = write!(param_text, "{}, ", declaration.trim_end_matches(';'));
        }
        let _ = writeln!(
            out,
            "static void kernel({param_text}double in[IN_SIZE], double out[OUT_SIZE])\n{{"
        );
        let mut vars: Vec<String> = Vec::new();
        collect_vars(&self.body, &mut vars);
        if !vars.is_empty() {
            let _ = writeln!(out, "    int {};", vars.join(", "));
        }
        // An initialiser only where no size is a parameter (no VLA).
        let initialised = self.shape.initialised
            && (0..self.sizes.len()).all(|i| self.size_form(i) != SizeForm::Parameter);
        for (index, temp) in self.temps.iter().enumerate() {
            if !scoped.contains(&index) && temp_parameter != Some(index) {
                let declaration = self.declaration(temp);
                if initialised && !temp.extents.is_empty() {
                    let _ = writeln!(out, "    {} = {{0}};", declaration.trim_end_matches(';'));
                } else {
                    let _ = writeln!(out, "    {declaration}");
                }
            }
        }
        for scalar in &self.scalars {
            let _ = writeln!(out, "    double {scalar};");
        }
        out.push('\n');
        if let Some(t) = temp_parameter {
            let _ = writeln!(out, "#pragma polyfold temp({})", self.temps[t].name);
        }
        out.push_str("#pragma scop\n");
        let mut style = Style {
            rng: polyfold::util::rng::Rng::new(self.shape.style_seed),
            comments: self.shape.comments,
            braceless: self.shape.braceless,
            declared_iterators: self.shape.declared_iterators,
            labels_bitwise: self.shape.labels_bitwise,
            labels: 0,
            after_pragma: false,
        };
        for node in &self.body {
            self.print_node(node, 1, &mut out, &mut style);
        }
        out.push_str("#pragma endscop\n}\n\n");
        for unit in &self.shape.units {
            out.push_str(&unit.file_text());
            out.push('\n');
        }
        out.push_str("int main(void)\n{\n");
        out.push_str("    static double in[IN_SIZE];\n    static double out[OUT_SIZE];\n");
        if let Some(t) = temp_parameter {
            let _ = writeln!(out, "    static {}", self.declaration(&self.temps[t]));
        }
        out.push_str("    int i;\n\n");
        out.push_str("    for (i = 0; i < IN_SIZE; i++)\n");
        out.push_str("        in[i] = (double)((i * 37 + 11) % 23) - 11.0;\n");
        out.push_str("    for (i = 0; i < OUT_SIZE; i++)\n        out[i] = 0.0;\n");
        if params.is_empty() {
            match temp_parameter {
                Some(t) => {
                    let _ = writeln!(out, "    kernel({}, in, out);", self.temps[t].name);
                }
                None => out.push_str("    kernel(in, out);\n"),
            }
            out.push_str("    for (i = 0; i < OUT_SIZE; i++)\n");
            out.push_str("        printf(\"out[%d] %.17g\\n\", i, out[i]);\n");
        } else {
            for (number, call) in self.runtime_sizes().iter().enumerate() {
                let args: String = call.iter().map(|v| format!("{v}, ")).collect();
                let _ = writeln!(out, "    kernel({args}in, out);");
                out.push_str("    for (i = 0; i < OUT_SIZE; i++)\n");
                let _ = writeln!(
                    out,
                    "        printf(\"call {number} out[%d] %.17g\\n\", i, out[i]);"
                );
            }
        }
        for unit in &self.shape.units {
            out.push_str(&unit.main_text());
        }
        out.push_str("    return 0;\n}\n");
        out
    }

    /// The text of the main kernel (`static void kernel(...)` to its
    /// closing brace) in [`GenProgram::to_c`].
    pub fn kernel_c(&self) -> String {
        let text = self.to_c();
        let start = text.find("static void kernel(").unwrap_or(0);
        let end = text[start..]
            .find("#pragma endscop\n}\n")
            .map_or(text.len(), |e| start + e + "#pragma endscop\n}\n".len());
        text[start..end].to_string()
    }

    /// Whether some unit may show a wrong fold only under the sanitizers
    /// (see [`Unit::needs_sanitizers`]): the campaign builds the program
    /// with them always.
    pub fn needs_sanitizers(&self) -> bool {
        self.shape.units.iter().any(Unit::needs_sanitizers)
    }

    /// The forms of issue 45 the program's units write, in order.
    pub fn real_c_forms(&self) -> Vec<RealCForm> {
        let mut forms: Vec<RealCForm> = self.shape.units.iter().map(Unit::form).collect();
        forms.sort();
        forms.dedup();
        forms
    }

    fn print_datasets(&self, datasets: &[Dataset], out: &mut String) {
        let defines = |pick: &dyn Fn(&Dataset) -> i64| -> String {
            datasets
                .iter()
                .map(|d| format!("#define {} {}\n", d.0, pick(d)))
                .collect()
        };
        match self.shape.dataset_style {
            DatasetStyle::IfdefSmall => {
                let _ = write!(
                    out,
                    "#ifdef SMALL_DATASET\n{}#else\n{}#endif\n",
                    defines(&|d| d.1),
                    defines(&|d| d.2)
                );
            }
            DatasetStyle::IfndefSmall => {
                let _ = write!(
                    out,
                    "#ifndef SMALL_DATASET\n{}#else\n{}#endif\n",
                    defines(&|d| d.2),
                    defines(&|d| d.1)
                );
            }
            DatasetStyle::PolyBench => {
                out.push_str(
                    "#if !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)\n\
                     #define MEDIUM_DATASET\n#endif\n",
                );
                let _ = write!(
                    out,
                    "#ifdef SMALL_DATASET\n{}#endif\n#ifdef MEDIUM_DATASET\n{}#endif\n#ifdef LARGE_DATASET\n{}#endif\n",
                    defines(&|d| d.1),
                    defines(&|d| d.2),
                    defines(&|d| d.3)
                );
            }
        }
    }

    /// The temporary printed as a kernel parameter (see
    /// [`Shape::temp_parameter`]), when the program has one: sizes that
    /// are macros only, the first temporary of the body that is no
    /// block's and no parallel loop's private.
    fn temp_parameter(&self, params: &[String], scoped: &[usize]) -> Option<usize> {
        if !self.shape.temp_parameter || !params.is_empty() {
            return None;
        }
        let mut private = Vec::new();
        collect_private(&self.body, &mut private);
        (0..self.temps.len()).find(|t| {
            !scoped.contains(t)
                && !self.temps[*t].extents.is_empty()
                && !private.contains(&self.temps[*t].name)
        })
    }

    fn declaration(&self, temp: &TempArray) -> String {
        let dims: String = temp
            .extents
            .iter()
            .map(|e| format!("[{}]", self.aff_text(e)))
            .collect();
        format!("double {}{};", temp.name, dims)
    }

    fn access_text(&self, array: usize, subscripts: &[Aff]) -> String {
        let mut text = self.temps[array].name.clone();
        for s in subscripts {
            let _ = write!(text, "[{}]", self.aff_text(s));
        }
        text
    }

    fn target_text(&self, target: &Target) -> String {
        match target {
            Target::Temp { array, subscripts } => self.access_text(*array, subscripts),
            Target::Scalar(s) => self.scalars[*s].clone(),
            Target::Output(index) => format!("out[{}]", self.aff_text(index)),
            Target::OutputScaled { size, var, offset } => {
                let mut index = offset.clone();
                index.terms.insert(0, (format!("{size} * {var}"), 1));
                format!("out[{}]", self.aff_text(&index))
            }
        }
    }

    fn read_text(&self, read: &Read) -> String {
        match read {
            Read::Temp { array, subscripts } => self.access_text(*array, subscripts),
            Read::Scalar(s) => self.scalars[*s].clone(),
            Read::Input(index) => format!("in[{}]", self.aff_text(index)),
            Read::InputQuotient { index, form } => {
                let single = index.constant == 0
                    && index.terms.len() == 1
                    && index.terms[0].1 == 1
                    && !self.is_compound(&index.terms[0].0);
                format!("in[{}]", form.text(&self.aff_text(index), single))
            }
            Read::InputScaled { size, var, offset } => {
                // The product is one term of the index (coefficient 1).
                let mut index = offset.clone();
                index.terms.insert(0, (format!("{size} * {var}"), 1));
                format!("in[{}]", self.aff_text(&index))
            }
            Read::Value(value) => format!("({})", self.aff_text(value)),
        }
    }

    fn condition_text(&self, conditions: &[Aff]) -> String {
        let text: Vec<String> = if conditions.is_empty() {
            vec!["1".to_string()]
        } else {
            conditions
                .iter()
                .map(|c| format!("{} >= 0", self.aff_text(c)))
                .collect()
        };
        text.join(" && ")
    }

    /// Prints `header` (a `for (...)`, `if (...)` or `else`) and its body,
    /// without braces when the style says so and it is legal:
    /// `assign_only` (the `then` part of an `if` with an `else`) allows it
    /// only for a single assignment, so that no `else` can attach to an
    /// inner `if`.
    fn print_controlled(
        &self,
        header: &str,
        body: &[Node],
        depth: usize,
        assign_only: bool,
        out: &mut String,
        style: &mut Style,
    ) {
        let indent = "    ".repeat(depth);
        let single = if body.len() == 1 {
            Some(&body[0])
        } else {
            None
        };
        let can_drop = match single {
            Some(Node::Assign { .. }) => true,
            Some(Node::Loop { .. } | Node::If { .. } | Node::IfElse { .. }) => !assign_only,
            _ => false,
        };
        if can_drop && style.drop_braces() {
            let comment = style.comment();
            let _ = writeln!(out, "{indent}{header}{comment}");
            self.print_node(&body[0], depth + 1, out, style);
            return;
        }
        let comment = style.comment();
        let _ = writeln!(out, "{indent}{header} {{{comment}");
        if let Some(Node::Block { temps, body }) = single {
            // `for (...) { double R[..]; ... }`: the loop body is the block.
            for t in temps {
                let _ = writeln!(out, "{indent}    {}", self.declaration(&self.temps[*t]));
            }
            for child in body {
                self.print_node(child, depth + 1, out, style);
            }
        } else {
            for child in body {
                self.print_node(child, depth + 1, out, style);
            }
        }
        let _ = writeln!(out, "{indent}}}");
    }

    fn print_node(&self, node: &Node, depth: usize, out: &mut String, style: &mut Style) {
        let indent = "    ".repeat(depth);
        match node {
            Node::Loop {
                var,
                lower,
                upper,
                body,
            } => {
                let parallel = style.after_pragma;
                let label = style.label(&indent);
                let declare = style.declare_iterator();
                let (lower, upper) = (self.aff_text(lower), self.aff_text(upper));
                let condition = style.loop_condition(var, &upper, parallel);
                let header = format!("{label}for ({declare}{var} = {lower}; {condition}; {var}++)");
                self.print_controlled(&header, body, depth, false, out, style);
            }
            Node::If {
                conditions,
                any,
                body,
            } => {
                let header = if *any && !conditions.is_empty() {
                    let text: Vec<String> = conditions
                        .iter()
                        .map(|c| format!("{} >= 0", self.aff_text(c)))
                        .collect();
                    format!("if ({})", text.join(" || "))
                } else {
                    format!("if ({})", self.condition_text(conditions))
                };
                self.print_controlled(&header, body, depth, false, out, style);
            }
            Node::IfElse {
                conditions,
                then_body,
                else_body,
            } => {
                let header = format!("if ({})", self.condition_text(conditions));
                self.print_controlled(&header, then_body, depth, true, out, style);
                self.print_controlled("else", else_body, depth, false, out, style);
            }
            Node::Block { temps, body } => {
                let comment = style.comment();
                let _ = writeln!(out, "{indent}{{{comment}");
                for t in temps {
                    let _ = writeln!(out, "{indent}    {}", self.declaration(&self.temps[*t]));
                }
                for child in body {
                    self.print_node(child, depth + 1, out, style);
                }
                let _ = writeln!(out, "{indent}}}");
            }
            Node::Parallel {
                private,
                chunked,
                body,
            } => {
                let mut pragma = "#pragma omp parallel for".to_string();
                if !private.is_empty() {
                    let _ = write!(pragma, " private({})", private.join(", "));
                }
                if *chunked {
                    pragma.push_str(" schedule(static, 1)");
                }
                let _ = writeln!(out, "{pragma}");
                for child in body {
                    style.after_pragma = true;
                    self.print_node(child, depth, out, style);
                }
            }
            Node::Assign {
                target,
                accumulate,
                reads,
                constant,
            } => {
                let mut rhs: Vec<String> = reads
                    .iter()
                    .map(|(w, r)| {
                        format!("{} * {}", WEIGHTS[*w % WEIGHTS.len()], self.read_text(r))
                    })
                    .collect();
                if *constant != 0 || rhs.is_empty() {
                    rhs.push(format!("{}.0", constant));
                }
                if self.shape.plain_copies
                    && !*accumulate
                    && *constant == 0
                    && reads.len() == 1
                    && WEIGHTS[reads[0].0 % WEIGHTS.len()] == "1.0"
                {
                    rhs = vec![self.read_text(&reads[0].1)];
                }
                let op = if *accumulate { "+=" } else { "=" };
                let comment = style.comment();
                let _ = writeln!(
                    out,
                    "{indent}{} {op} {};{comment}",
                    self.target_text(target),
                    rhs.join(" + ")
                );
            }
        }
    }

    /// Checks the units (see [`Unit::check`]), then runs the kernel's
    /// control flow for every size assignment the
    /// compiled program runs with (see [`GenProgram::size_assignments`])
    /// and checks that every subscript is in bounds, every temporary cell
    /// and scalar is written before it is read, the trip count stays
    /// small, and the iterations of each `Parallel` loop are independent.
    pub fn check_well_defined(&self) -> Result<(), IllDefined> {
        for unit in &self.shape.units {
            unit.check()
                .map_err(|e| IllDefined(format!("unit {}: {}", unit.number, e.0)))?;
        }
        for values in self.size_assignments() {
            self.check_well_defined_for(&values).map_err(|e| {
                if values.is_empty() {
                    e
                } else {
                    IllDefined(format!("{} (sizes {values:?})", e.0))
                }
            })?;
        }
        Ok(())
    }

    /// [`GenProgram::check_well_defined`] for one assignment of base sizes.
    pub fn check_well_defined_for(&self, base: &[(String, i64)]) -> Result<(), IllDefined> {
        let mut env = self.environment(base);
        let mut extents: Vec<Vec<i64>> = Vec::new();
        for temp in &self.temps {
            let mut dims = Vec::new();
            for e in &temp.extents {
                let v = e
                    .eval(&env)
                    .ok_or_else(|| IllDefined(format!("extent of {} unknown", temp.name)))?;
                if v <= 0 || v > 10_000 {
                    return Err(IllDefined(format!("extent {v} of {}", temp.name)));
                }
                dims.push(v);
            }
            if dims.iter().product::<i64>() > 100_000 {
                return Err(IllDefined(format!("{} too big", temp.name)));
            }
            extents.push(dims);
        }
        let mut state = CheckState {
            extents,
            written: vec![HashSet::new(); self.temps.len()],
            scalar_written: vec![false; self.scalars.len()],
            steps: 0,
            statements_run: 0,
            iteration: None,
            touched: HashMap::new(),
        };
        for node in &self.body {
            self.check_node(node, &mut env, &mut state)?;
        }
        Ok(())
    }

    fn cell(
        &self,
        state: &CheckState,
        array: usize,
        subscripts: &[Aff],
        env: &HashMap<String, i64>,
    ) -> Result<Vec<i64>, IllDefined> {
        let dims = state
            .extents
            .get(array)
            .ok_or_else(|| IllDefined(format!("no array {array}")))?;
        if dims.len() != subscripts.len() {
            return Err(IllDefined("wrong number of subscripts".into()));
        }
        let mut cell = Vec::new();
        for (s, extent) in subscripts.iter().zip(dims) {
            let v = s
                .eval(env)
                .ok_or_else(|| IllDefined(format!("unbound name in {}", s.to_c())))?;
            if v < 0 || v >= *extent {
                return Err(IllDefined(format!(
                    "{} out of bounds: {v} not in 0..{extent}",
                    self.temps[array].name
                )));
            }
            cell.push(v);
        }
        Ok(cell)
    }

    /// Runs one node of the kernel's control flow for the values of
    /// `env`, checking each statement instance it runs.
    fn check_node(
        &self,
        node: &Node,
        env: &mut HashMap<String, i64>,
        state: &mut CheckState,
    ) -> Result<(), IllDefined> {
        state.steps += 1;
        if state.steps > 200_000 {
            return Err(IllDefined("too many steps".into()));
        }
        match node {
            Node::Loop {
                var,
                lower,
                upper,
                body,
            } => self.check_loop(var, (lower, upper), body, env, state),
            Node::If {
                conditions,
                any,
                body,
            } => {
                let holds = if *any && !conditions.is_empty() {
                    let mut one = false;
                    for c in conditions {
                        one |= self.holds(std::slice::from_ref(c), env)?;
                    }
                    one
                } else {
                    self.holds(conditions, env)?
                };
                if holds {
                    self.check_body(body, env, state)?;
                }
                Ok(())
            }
            Node::IfElse {
                conditions,
                then_body,
                else_body,
            } => {
                let body = if self.holds(conditions, env)? {
                    then_body
                } else {
                    else_body
                };
                self.check_body(body, env, state)
            }
            Node::Block { temps, body } => {
                // Fresh storage at each entry: nothing is written yet, and
                // inside a parallel loop every iteration has its own copy.
                for t in temps {
                    if let Some(w) = state.written.get_mut(*t) {
                        w.clear();
                    }
                    state
                        .touched
                        .retain(|loc, _| !matches!(loc, Location::Temp(a, _) if a == t));
                }
                self.check_body(body, env, state)
            }
            Node::Parallel { private, body, .. } => self.check_parallel(private, body, env, state),
            Node::Assign {
                target,
                accumulate,
                reads,
                ..
            } => {
                state.statements_run += 1;
                for (_, read) in reads {
                    self.check_read(read, env, state)?;
                }
                self.check_target(target, *accumulate, env, state)
            }
        }
    }

    /// Runs the nodes of `body` in order.
    fn check_body(
        &self,
        body: &[Node],
        env: &mut HashMap<String, i64>,
        state: &mut CheckState,
    ) -> Result<(), IllDefined> {
        for child in body {
            self.check_node(child, env, state)?;
        }
        Ok(())
    }

    /// Runs a sequential loop of `var` from `lower` to `upper` (both
    /// included); its iterator must not be one of an enclosing loop.
    fn check_loop(
        &self,
        var: &str,
        (lower, upper): (&Aff, &Aff),
        body: &[Node],
        env: &mut HashMap<String, i64>,
        state: &mut CheckState,
    ) -> Result<(), IllDefined> {
        if env.contains_key(var) {
            return Err(IllDefined(format!("iterator {var} reused")));
        }
        let lo = lower
            .eval(env)
            .ok_or_else(|| IllDefined("unbound name in a bound".into()))?;
        let hi = upper
            .eval(env)
            .ok_or_else(|| IllDefined("unbound name in a bound".into()))?;
        let mut value = lo;
        while value <= hi {
            env.insert(var.to_string(), value);
            for child in body {
                let result = self.check_node(child, env, state);
                if result.is_err() {
                    env.remove(var);
                    return result;
                }
            }
            value += 1;
        }
        env.remove(var);
        Ok(())
    }

    /// Runs a `Parallel` node: one loop, not inside another parallel
    /// loop, whose inner iterators are private; each iteration's accesses
    /// are recorded so that two iterations touching one location fail.
    fn check_parallel(
        &self,
        private: &[String],
        body: &[Node],
        env: &mut HashMap<String, i64>,
        state: &mut CheckState,
    ) -> Result<(), IllDefined> {
        if state.iteration.is_some() {
            return Err(IllDefined("nested parallel loops".into()));
        }
        let [
            Node::Loop {
                var,
                lower,
                upper,
                body: loop_body,
            },
        ] = body
        else {
            return Err(IllDefined("a parallel pragma without its loop".into()));
        };
        // Inner iterators must be private (C shares them otherwise).
        let mut inner = Vec::new();
        collect_vars(loop_body, &mut inner);
        if inner.iter().any(|v| !private.contains(v)) {
            return Err(IllDefined("a shared inner iterator".into()));
        }
        let (Some(lo), Some(hi)) = (lower.eval(env), upper.eval(env)) else {
            return Err(IllDefined("unbound name in a bound".into()));
        };
        state.touched.clear();
        for value in lo..=hi {
            state.iteration = Some(value);
            env.insert(var.clone(), value);
            for child in loop_body {
                if let Err(e) = self.check_node(child, env, state) {
                    env.remove(var);
                    state.iteration = None;
                    return Err(e);
                }
            }
        }
        env.remove(var);
        state.iteration = None;
        state.touched.clear();
        Ok(())
    }

    /// Checks one read of a statement instance: a temporary cell or a
    /// scalar written before, an input index in bounds.
    fn check_read(
        &self,
        read: &Read,
        env: &HashMap<String, i64>,
        state: &mut CheckState,
    ) -> Result<(), IllDefined> {
        match read {
            Read::Temp { array, subscripts } => {
                let cell = self.cell(state, *array, subscripts, env)?;
                if !state.written[*array].contains(&cell) {
                    return Err(IllDefined(format!(
                        "{}{cell:?} read before written",
                        self.temps[*array].name
                    )));
                }
                state.touch(Location::Temp(*array, cell), false)?;
            }
            Read::Scalar(s) => {
                if !state.scalar_written.get(*s).copied().unwrap_or(false) {
                    return Err(IllDefined(format!("scalar {s} read before written")));
                }
                state.touch(Location::Scalar(*s), false)?;
            }
            Read::Input(index) => {
                let v = index
                    .eval(env)
                    .ok_or_else(|| IllDefined("unbound name in in[]".into()))?;
                if !(0..INPUT_SIZE).contains(&v) {
                    return Err(IllDefined(format!("in[{v}] out of bounds")));
                }
            }
            Read::InputQuotient { index, form } => {
                let v = index
                    .eval(env)
                    .and_then(|x| form.apply(x))
                    .ok_or_else(|| IllDefined("unbound name in in[]".into()))?;
                if !(0..INPUT_SIZE).contains(&v) {
                    return Err(IllDefined(format!("in[{v}] out of bounds")));
                }
            }
            Read::InputScaled { size, var, offset } => {
                let v = scaled_index("in", size, var, offset, env)?;
                if !(0..INPUT_SIZE).contains(&v) {
                    return Err(IllDefined(format!("in[{v}] out of bounds")));
                }
            }
            Read::Value(value) => {
                value
                    .eval(env)
                    .ok_or_else(|| IllDefined("unbound name in a value".into()))?;
            }
        }
        Ok(())
    }

    /// Checks the write of a statement instance: in bounds, and an
    /// accumulation only into a cell or scalar written before.
    fn check_target(
        &self,
        target: &Target,
        accumulate: bool,
        env: &HashMap<String, i64>,
        state: &mut CheckState,
    ) -> Result<(), IllDefined> {
        match target {
            Target::Temp { array, subscripts } => {
                let cell = self.cell(state, *array, subscripts, env)?;
                if accumulate && !state.written[*array].contains(&cell) {
                    return Err(IllDefined("accumulation into an unwritten cell".into()));
                }
                state.written[*array].insert(cell.clone());
                state.touch(Location::Temp(*array, cell), true)?;
            }
            Target::Scalar(s) => {
                let Some(flag) = state.scalar_written.get_mut(*s) else {
                    return Err(IllDefined(format!("no scalar {s}")));
                };
                if accumulate && !*flag {
                    return Err(IllDefined("accumulation into an unwritten scalar".into()));
                }
                *flag = true;
                state.touch(Location::Scalar(*s), true)?;
            }
            Target::Output(index) => {
                let v = index
                    .eval(env)
                    .ok_or_else(|| IllDefined("unbound name in out[]".into()))?;
                if !(0..OUTPUT_SIZE).contains(&v) {
                    return Err(IllDefined(format!("out[{v}] out of bounds")));
                }
                state.touch(Location::Output(v), true)?;
            }
            Target::OutputScaled { size, var, offset } => {
                let v = scaled_index("out", size, var, offset, env)?;
                if !(0..OUTPUT_SIZE).contains(&v) {
                    return Err(IllDefined(format!("out[{v}] out of bounds")));
                }
                state.touch(Location::Output(v), true)?;
            }
        }
        Ok(())
    }

    fn holds(&self, conditions: &[Aff], env: &HashMap<String, i64>) -> Result<bool, IllDefined> {
        for c in conditions {
            let v = c
                .eval(env)
                .ok_or_else(|| IllDefined("unbound name in a condition".into()))?;
            if v < 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Number of top-level loop nests.
    pub fn nest_count(&self) -> usize {
        self.body
            .iter()
            .filter(|n| matches!(n, Node::Loop { .. }))
            .count()
    }

    /// Whether the kernel has an OpenMP loop.
    pub fn has_parallel(&self) -> bool {
        fn any(nodes: &[Node]) -> bool {
            nodes.iter().any(|n| match n {
                Node::Parallel { .. } => true,
                Node::Loop { body, .. } | Node::If { body, .. } | Node::Block { body, .. } => {
                    any(body)
                }
                Node::IfElse {
                    then_body,
                    else_body,
                    ..
                } => any(then_body) || any(else_body),
                Node::Assign { .. } => false,
            })
        }
        any(&self.body)
    }
}

/// A location touched inside a parallel loop.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Location {
    Temp(usize, Vec<i64>),
    Scalar(usize),
    Output(i64),
}

struct CheckState {
    extents: Vec<Vec<i64>>,
    written: Vec<HashSet<Vec<i64>>>,
    scalar_written: Vec<bool>,
    steps: u64,
    statements_run: u64,
    /// The iteration of the enclosing parallel loop.
    iteration: Option<i64>,
    /// Inside a parallel loop: per location, the one iteration that
    /// touched it (`None` for several readers) and whether it was written.
    touched: HashMap<Location, (Option<i64>, bool)>,
}

impl CheckState {
    /// Records an access inside a parallel loop; a race when two
    /// iterations touch one location and one of them writes it.
    fn touch(&mut self, location: Location, write: bool) -> Result<(), IllDefined> {
        let Some(iteration) = self.iteration else {
            return Ok(());
        };
        let entry = self
            .touched
            .entry(location.clone())
            .or_insert((Some(iteration), write));
        if entry.0 != Some(iteration) {
            if entry.1 || write {
                return Err(IllDefined(format!(
                    "data race on {location:?} between parallel iterations"
                )));
            }
            entry.0 = None;
        }
        entry.1 |= write;
        Ok(())
    }
}

/// Every loop iterator name used in `nodes`, in first-use order.
pub fn collect_vars(nodes: &[Node], vars: &mut Vec<String>) {
    visit(nodes, &mut |node| {
        if let Node::Loop { var, .. } = node
            && !vars.contains(var)
        {
            vars.push(var.clone());
        }
    });
}

/// Calls `f` on every node of `nodes` and of their bodies, in order.
fn visit(nodes: &[Node], f: &mut impl FnMut(&Node)) {
    for node in nodes {
        f(node);
        match node {
            Node::Loop { body, .. }
            | Node::If { body, .. }
            | Node::Block { body, .. }
            | Node::Parallel { body, .. } => visit(body, f),
            Node::IfElse {
                then_body,
                else_body,
                ..
            } => {
                visit(then_body, f);
                visit(else_body, f);
            }
            Node::Assign { .. } => {}
        }
    }
}

/// The names private to the parallel loops of `nodes`.
fn collect_private(nodes: &[Node], names: &mut Vec<String>) {
    visit(nodes, &mut |node| {
        if let Node::Parallel { private, .. } = node {
            names.extend(private.iter().cloned());
        }
    });
}

/// The temporaries declared in `Block`s.
fn collect_scoped(nodes: &[Node], scoped: &mut Vec<usize>) {
    visit(nodes, &mut |node| {
        if let Node::Block { temps, .. } = node {
            scoped.extend(temps.iter().copied());
        }
    });
}

/// The index `size * var + offset` of a `products` access to `array` in
/// the environment `env`.
fn scaled_index(
    array: &str,
    size: &str,
    var: &str,
    offset: &Aff,
    env: &HashMap<String, i64>,
) -> Result<i64, IllDefined> {
    let unbound = || IllDefined(format!("unbound name in {array}[]"));
    let s = Aff::var(size, 0).eval(env).ok_or_else(unbound)?;
    let i = Aff::var(var, 0).eval(env).ok_or_else(unbound)?;
    s.checked_mul(i)
        .and_then(|p| p.checked_add(offset.eval(env)?))
        .ok_or_else(unbound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_expressions_print_as_c() {
        let a = Aff {
            terms: vec![("i".into(), 1), ("j".into(), -2), ("N0".into(), 1)],
            constant: -1,
        };
        assert_eq!(a.to_c(), "i - 2 * j + N0 - 1");
        assert_eq!(Aff::constant(0).to_c(), "0");
        assert_eq!(
            Aff::var("j", 0).plus_scaled(&Aff::var("j", 1), -1).to_c(),
            "-1"
        );
    }

    #[test]
    fn compound_sizes_are_parenthesised_unless_added() {
        let a = Aff {
            terms: vec![
                ("i".into(), 1),
                ("LAST0".into(), -1),
                ("N0 % 4".into(), 2),
                ("N0 / 2".into(), 1),
            ],
            constant: 0,
        };
        let compound = |n: &str| n != "i";
        assert_eq!(
            a.to_c_with(&compound),
            "i - (LAST0) + 2 * (N0 % 4) + N0 / 2"
        );
        assert_eq!(a.to_c(), "i - LAST0 + 2 * N0 % 4 + N0 / 2");
    }

    #[test]
    fn derived_sizes_follow_their_base_in_every_build() {
        let program = GenProgram {
            seed: 0,
            sizes: vec![("N0".into(), 7)],
            temps: vec![],
            scalars: vec![],
            body: vec![],
            shape: Shape {
                derived: vec![
                    Derived {
                        name: "HALF0".into(),
                        text: "(N0)/2".into(),
                        base: "N0".into(),
                        op: DerivedOp::Div(2),
                        inline: false,
                    },
                    Derived {
                        name: "N0 % 4".into(),
                        text: "N0 % 4".into(),
                        base: "N0".into(),
                        op: DerivedOp::Mod(4),
                        inline: true,
                    },
                ],
                ..Shape::default()
            },
        };
        let env = program.environment(&[]);
        assert_eq!((env["HALF0"], env["N0 % 4"]), (3, 3));
        let env = program.environment(&[("N0".into(), 10)]);
        assert_eq!((env["HALF0"], env["N0 % 4"]), (5, 2));
        let text = program.to_c();
        assert!(text.contains("#define HALF0 (N0)/2\n"));
        assert!(!text.contains("#define N0 % 4"));
    }

    #[test]
    fn a_race_between_parallel_iterations_is_ill_defined() {
        // out[i] per iteration is independent; out[0] is written by every
        // iteration: a race in the original program.
        let make = |index: Aff| GenProgram {
            seed: 0,
            sizes: vec![("N0".into(), 4)],
            temps: vec![],
            scalars: vec![],
            body: vec![Node::Parallel {
                private: vec![],
                chunked: false,
                body: vec![Node::Loop {
                    var: "i".into(),
                    lower: Aff::constant(0),
                    upper: Aff::var("N0", -1),
                    body: vec![Node::Assign {
                        target: Target::Output(index),
                        accumulate: true,
                        reads: vec![(0, Read::Input(Aff::var("i", 0)))],
                        constant: 0,
                    }],
                }],
            }],
            shape: Shape::default(),
        };
        assert!(make(Aff::var("i", 1)).check_well_defined().is_ok());
        assert!(make(Aff::constant(0)).check_well_defined().is_err());
        let text = make(Aff::var("i", 1)).to_c();
        assert!(text.contains("#pragma omp parallel for\n    for (i = 0;"));
    }

    #[test]
    fn forms_parse_by_name() {
        assert_eq!(Forms::parse("all"), Ok(Forms::all()));
        assert_eq!(Forms::parse("classic"), Ok(Forms::classic()));
        let some = Forms::parse("comments,vla").expect("known names");
        assert!(some.comments && some.vla && !some.openmp);
        let most = Forms::parse("-openmp").expect("known name");
        assert!(!most.openmp && most.comments);
        assert!(Forms::parse("nonsense").is_err());
        for name in Forms::NAMES {
            assert_eq!(Forms::all().get(name), Some(true));
        }
    }

    #[test]
    fn reading_an_unwritten_cell_is_ill_defined() {
        let program = GenProgram {
            seed: 0,
            sizes: vec![("N0".into(), 4)],
            temps: vec![TempArray {
                name: "T0".into(),
                extents: vec![Aff::var("N0", 0)],
            }],
            scalars: vec![],
            body: vec![Node::Loop {
                var: "i".into(),
                lower: Aff::constant(1),
                upper: Aff::var("N0", -1),
                body: vec![Node::Assign {
                    target: Target::Temp {
                        array: 0,
                        subscripts: vec![Aff::var("i", 0)],
                    },
                    accumulate: false,
                    reads: vec![(
                        0,
                        Read::Temp {
                            array: 0,
                            subscripts: vec![Aff::var("i", -1)],
                        },
                    )],
                    constant: 0,
                }],
            }],
            shape: Shape::default(),
        };
        // T0[0] is never written, and i = 1 reads it.
        assert!(program.check_well_defined().is_err());
        let mut fixed = program.clone();
        if let Node::Loop { lower, .. } = &mut fixed.body[0] {
            *lower = Aff::constant(0);
        }
        // Now i = 0 reads T0[-1]: out of bounds.
        assert!(fixed.check_well_defined().is_err());
    }
}
