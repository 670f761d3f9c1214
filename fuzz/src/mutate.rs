//! The seeded input mutator and the no-panic check of the library entry
//! points.
//!
//! [`fuzz_input`] makes one input from a seed and a list of seed files:
//! random bytes (valid UTF-8 or not), random C-like token soup, a
//! truncated seed file, a seed file with byte and token mutations (huge
//! constants, deleted and duplicated ranges, extra braces and pragmas), deep
//! nesting of loops, parentheses, blocks and `if`s, a seed file rewritten
//! into the forms of issue 14 (line-end comments, brace-less bodies,
//! OpenMP pragmas, `#ifdef`'d sizes, sizes with operators: `(N)/2`,
//! `N-1`, `N % 4`), or the empty file.
//! [`check_no_panic`] runs `frontend::extract`, `contract_program` and
//! `verify_contraction` on it under `catch_unwind` with a wall-clock limit.
//!
//! This module does NOT run the `polyfold` binary (the test and the
//! `polyfold-fuzz` binary do that) and does not generate whole programs.

use std::time::Duration;

use super::check::{FailureKind, run_guarded};
use polyfold::pipeline::ContractOptions;
use polyfold::poly::Budget;
use polyfold::util::rng::Rng;

/// Tokens spliced into mutated inputs.
const TOKENS: [&str; 40] = [
    "for",
    "if",
    "else",
    "while",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    "=",
    "+=",
    "-",
    "+",
    "*",
    "/",
    "%",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "&&",
    "||",
    "?",
    ":",
    "i",
    "N",
    "int",
    "double",
    "#pragma scop\n",
    "#pragma endscop\n",
    "#define N ",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999999",
    "2147483648",
    "0x7fffffffffffffff",
    "\n",
];

/// Huge or edgy integer literals for the constant-replacement mutation.
const BIG_NUMBERS: [&str; 9] = [
    "9223372036854775807",
    "9223372036854775808",
    "4611686018427387904",
    "2147483647",
    "-2147483648",
    "0",
    "-1",
    "1000000000",
    "340282366920938463463374607431768211456",
];

/// How an input was made (for statistics and reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputKind {
    RandomBytes,
    TokenSoup,
    Truncated,
    Mutated,
    DeepNesting,
    HugeConstants,
    FormRewritten,
    Empty,
}

/// One fuzz input made from `seed` and the seed files.
/// The seed files of the mutator: the `.c` files of `corpus/`,
/// `grammar-tests/` and `tests/regressions/` under `root` (sorted, unreadable
/// ones skipped), then the programs of generator seeds `0..generated`.
pub fn seed_files(root: &std::path::Path, generated: u64) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for dir in ["corpus", "grammar-tests", "tests/regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<std::path::PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("c"))
            .collect();
        paths.sort();
        files.extend(paths.iter().filter_map(|p| std::fs::read(p).ok()));
    }
    let all = crate::program::Forms::all();
    for seed in 0..generated {
        files.push(crate::generate::generate(seed).to_c().into_bytes());
        files.push(
            crate::generate::generate_with(seed, &all)
                .to_c()
                .into_bytes(),
        );
    }
    files
}

pub fn fuzz_input(seed: u64, seeds: &[Vec<u8>]) -> (InputKind, Vec<u8>) {
    let mut rng = Rng::new(seed);
    let choice = rng.below(100);
    if seeds.is_empty() || choice < 8 {
        let len = rng.below(400);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        return (InputKind::RandomBytes, bytes);
    }
    if choice < 16 {
        let n = rng.below(200);
        let mut text = String::new();
        for _ in 0..n {
            let token: &&str = rng.pick(&TOKENS);
            text.push_str(token);
            text.push(' ');
        }
        return (InputKind::TokenSoup, text.into_bytes());
    }
    if choice < 18 {
        return (InputKind::Empty, Vec::new());
    }
    let base = rng.pick(seeds).clone();
    if choice < 30 {
        let cut = if base.is_empty() {
            0
        } else {
            rng.below(base.len() + 1)
        };
        return (InputKind::Truncated, base[..cut].to_vec());
    }
    if choice < 36 {
        return (InputKind::DeepNesting, deep_nesting(&mut rng));
    }
    if choice < 46 {
        return (InputKind::HugeConstants, replace_numbers(&mut rng, &base));
    }
    if choice < 60 {
        let mut text = String::from_utf8_lossy(&base).into_owned();
        for _ in 0..1 + rng.below(4) {
            text = rewrite_form(&mut rng, &text);
        }
        return (InputKind::FormRewritten, text.into_bytes());
    }
    let mut bytes = base;
    let n = 1 + rng.below(4);
    for _ in 0..n {
        mutate_once(&mut rng, &mut bytes);
    }
    (InputKind::Mutated, bytes)
}

/// Replaces some integer literals of `base` with huge or edgy ones.
fn replace_numbers(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(base.len() + 64);
    let mut i = 0;
    while i < base.len() {
        if base[i].is_ascii_digit() && (i == 0 || !base[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < base.len() && base[i].is_ascii_alphanumeric() {
                i += 1;
            }
            if rng.chance(1, 3) {
                out.extend_from_slice((*rng.pick(&BIG_NUMBERS)).as_bytes());
            } else {
                out.extend_from_slice(&base[start..i]);
            }
        } else {
            out.push(base[i]);
            i += 1;
        }
    }
    out
}

/// A kernel with deeply nested loops, parentheses, blocks or `if`s.
fn deep_nesting(rng: &mut Rng) -> Vec<u8> {
    let depth = *rng.pick(&[20usize, 100, 400, 2000]);
    let mut body = String::new();
    match rng.below(4) {
        0 => {
            for d in 0..depth {
                body.push_str(&format!("for (i{d} = 0; i{d} < N; i{d}++) {{\n"));
            }
            body.push_str("A[0] = A[0] + 1.0;\n");
            body.push_str(&"}\n".repeat(depth));
        }
        1 => {
            body.push_str("A[");
            body.push_str(&"(".repeat(depth));
            body.push('i');
            body.push_str(&" + 1)".repeat(depth));
            body.push_str("] = 1.0;\n");
        }
        2 => {
            body.push_str(&"{\n".repeat(depth));
            body.push_str("A[i] = 2.0;\n");
            body.push_str(&"}\n".repeat(depth));
        }
        _ => {
            for d in 0..depth {
                body.push_str(&format!("if (i >= {d}) "));
            }
            body.push_str("A[i] = 3.0;\n");
        }
    }
    let mut text = String::from("#define N 10\nvoid f(double A[N]) {\n  int i;\n  double T[N];\n");
    if rng.chance(1, 2) {
        text.push_str("#pragma scop\nfor (i = 0; i < N; i++) {\n");
        text.push_str(&body);
        text.push_str("}\n#pragma endscop\n");
    } else {
        text.push_str(&body);
    }
    text.push_str("}\n");
    text.into_bytes()
}

/// Byte offsets of the starts of the lines of `text` for which `keep`
/// holds (given the trimmed line).
fn line_starts(text: &str, keep: &dyn Fn(&str) -> bool) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if keep(line.trim()) {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts
}

/// One rewrite of `text` into a form of issue 14 (the text is returned
/// unchanged when the form has no place in it).
fn rewrite_form(rng: &mut Rng, text: &str) -> String {
    let mut out = text.to_string();
    match rng.below(6) {
        0 => {
            // A comment at the end of a line (after a `for (...)` header
            // too), some holding `;`, `{` or `}`.
            let ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
            if !ends.is_empty() {
                let at = *rng.pick(&ends);
                let comment =
                    *rng.pick(&[" // copy back", " /* ; */", " // }", " // {", " /* step"]);
                out.insert_str(at, comment);
            }
        }
        1 => {
            // Drop the braces of a block opened at a line end.
            let opens: Vec<usize> = text.match_indices("{\n").map(|(i, _)| i).collect();
            if !opens.is_empty() {
                let open = *rng.pick(&opens);
                let mut depth = 0i64;
                let mut close = None;
                for (i, c) in text[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                close = Some(open + i);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                if let Some(close) = close {
                    out = format!(
                        "{}{}{}",
                        &text[..open],
                        &text[open + 1..close],
                        &text[close + 1..]
                    );
                }
            }
        }
        2 => {
            // An OpenMP pragma before a `for`.
            let fors = line_starts(text, &|l| l.starts_with("for"));
            if !fors.is_empty() {
                let at = *rng.pick(&fors);
                let pragma = *rng.pick(&[
                    "#pragma omp parallel for\n",
                    "#pragma omp parallel for private(j)\n",
                    "#pragma omp simd\n",
                    "#pragma GCC ivdep\n",
                ]);
                out.insert_str(at, pragma);
            }
        }
        3 => {
            // A `#define` moved under `#ifdef SMALL_DATASET`.
            let defines = line_starts(text, &|l| l.starts_with("#define"));
            if !defines.is_empty() {
                let at = *rng.pick(&defines);
                let end = text[at..].find('\n').map_or(text.len(), |e| at + e);
                let line = &text[at..end];
                let name = line.split_whitespace().nth(1).unwrap_or("N");
                let small = rng.range(1, 4);
                out = format!(
                    "{}#ifdef SMALL_DATASET\n#define {name} {small}\n#else\n{line}\n#endif{}",
                    &text[..at],
                    &text[end..]
                );
            }
        }
        4 => {
            // A size name replaced by an expression with an operator.
            let names: Vec<usize> = text
                .match_indices('N')
                .map(|(i, _)| i)
                .filter(|&i| i == 0 || !text.as_bytes()[i - 1].is_ascii_alphanumeric())
                .collect();
            if !names.is_empty() {
                let at = *rng.pick(&names);
                let end = text[at..]
                    .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .map_or(text.len(), |e| at + e);
                let name = &text[at..end];
                let form = match rng.below(5) {
                    0 => format!("({name})/2"),
                    1 => format!("{name}-1"),
                    2 => format!("{name}+2"),
                    3 => format!("{name} % 4"),
                    _ => format!("{name} / 2"),
                };
                out = format!("{}{form}{}", &text[..at], &text[end..]);
            }
        }
        _ => {
            // A declaration moved into a nested block.
            let decls = line_starts(text, &|l| l.starts_with("double") && l.contains('['));
            let opens: Vec<usize> = text.match_indices("{\n").map(|(i, _)| i + 2).collect();
            if !decls.is_empty() && !opens.is_empty() {
                let from = *rng.pick(&decls);
                let end = text[from..].find('\n').map_or(text.len(), |e| from + e + 1);
                let line = text[from..end].to_string();
                let to = *rng.pick(&opens);
                let mut rest = format!("{}{}", &text[..from], &text[end..]);
                let to = if to > from {
                    to.saturating_sub(line.len())
                } else {
                    to
                };
                if to <= rest.len() && rest.is_char_boundary(to) {
                    rest.insert_str(to, &line);
                }
                out = rest;
            }
        }
    }
    out
}

fn mutate_once(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let len = bytes.len();
    match rng.below(7) {
        0 if len > 0 => {
            let i = rng.below(len);
            bytes[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            bytes[i] = rng.next_u64() as u8;
        }
        2 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(40)).min(len);
            bytes.drain(a..b);
        }
        3 if len > 0 => {
            let a = rng.below(len);
            let b = (a + 1 + rng.below(80)).min(len);
            let chunk: Vec<u8> = bytes[a..b].to_vec();
            let at = rng.below(len + 1);
            bytes.splice(at..at, chunk);
        }
        4 => {
            let at = rng.below(len + 1);
            let token = format!(" {} ", *rng.pick(&TOKENS));
            bytes.splice(at..at, token.into_bytes());
        }
        5 if len > 0 => {
            // Swap a digit run for a huge number.
            let i = rng.below(len);
            if let Some(offset) = bytes[i..].iter().position(u8::is_ascii_digit) {
                let start = i + offset;
                let mut end = start;
                while end < len && bytes[end].is_ascii_digit() {
                    end += 1;
                }
                let big = (*rng.pick(&BIG_NUMBERS)).as_bytes().to_vec();
                bytes.splice(start..end, big);
            }
        }
        _ => {
            let at = rng.below(len + 1);
            let b = (at + rng.below(10)).min(len);
            bytes.drain(at..b);
        }
    }
}

/// The contraction options used when fuzzing: small step budgets (200 000
/// steps per array) and a generous time limit, so that many inputs run per
/// second, the budget-exhaustion paths are exercised, and every run is
/// reproducible (a step budget does not depend on the machine's load).
pub fn fuzz_contract_options() -> ContractOptions {
    ContractOptions {
        steps_per_array: 200_000,
        time_per_array: Duration::from_secs(60),
        // Every fold (no cost rule), as in `check`.
        min_memory: true,
        ..ContractOptions::default()
    }
}

/// Runs every library entry point on `bytes` (the contraction and the
/// verifier only when `full`; the front end and the IR printer always);
/// `Err` on a panic or when the calls take longer than `limit`.
pub fn check_no_panic(
    bytes: &[u8],
    full: bool,
    limit: Duration,
) -> Result<(), (FailureKind, String)> {
    let bytes = bytes.to_vec();
    run_guarded(limit, move || {
        let text = match std::str::from_utf8(&bytes) {
            Ok(text) => text.to_string(),
            Err(_) => String::from_utf8_lossy(&bytes).into_owned(),
        };
        let program =
            polyfold::frontend::extract("fuzz.c", &text, &polyfold::frontend::Options::default());
        let _ = polyfold::ir::dump::emit_program(&program);
        if !full {
            return;
        }
        if let Ok(contraction) =
            polyfold::pipeline::contract_program(&program, &fuzz_contract_options())
        {
            let mut budget = Budget::new(200_000, Some(Duration::from_secs(60)));
            let _ = polyfold::pipeline::verify_contraction(&program, &contraction, &mut budget);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_reproducible_and_varied() {
        let seeds = vec![b"int main(void) { return 42; }\n".to_vec()];
        let mut kinds = std::collections::HashSet::new();
        for seed in 0..500 {
            let a = fuzz_input(seed, &seeds);
            let b = fuzz_input(seed, &seeds);
            assert_eq!(a, b);
            kinds.insert(a.0);
        }
        assert_eq!(kinds.len(), 8, "every kind of input shows up: {kinds:?}");
    }
}
