//! Robustness of the front end: mutated versions of every grammar case
//! (bytes deleted, duplicated or replaced by C tokens) must never make
//! `frontend::extract` panic, and every SCoP it returns must satisfy
//! `ir::verify`. The dump must also be deterministic (two runs, same text).
//!
//! Seeded with `polyfold::util::rng::Rng`; set `POLYFOLD_FUZZ_CASES=N` to
//! run N mutations per grammar case instead of the default 20.

use std::fs;
use std::path::Path;

use polyfold::frontend::{Options, extract};
use polyfold::ir;
use polyfold::util::rng::Rng;

const TOKENS: &[&str] = &[
    "for",
    "(",
    ")",
    "{",
    "}",
    ";",
    "[",
    "]",
    "i",
    "j",
    "N",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "&&",
    "||",
    "!",
    "?",
    ":",
    "=",
    "+=",
    "++",
    "--",
    "&",
    "0",
    "1",
    "-1",
    "9223372036854775807",
    "if",
    "else",
    "while",
    "#pragma scop\n",
    "#pragma endscop\n",
    "#define N 10\n",
    "#define N N\n",
    "#define MIN(a, b) MIN(b, a)\n",
    "#define M (M + 1)\n",
    "M",
    "(i)",
    "(N) - ",
    "-(",
    "unsigned",
    "int",
    "double",
    "A",
    "MIN(",
    ",",
    "\n",
];

fn mutate(rng: &mut Rng, source: &str) -> String {
    let mut bytes: Vec<u8> = source.as_bytes().to_vec();
    let n_edits = 1 + rng.below(2);
    for _ in 0..n_edits {
        let len = bytes.len();
        let at = if len == 0 { 0 } else { rng.below(len + 1) };
        match rng.below(3) {
            0 if len > 0 => {
                let end = (at + 1 + rng.below(8)).min(len);
                bytes.drain(at.min(len)..end);
            }
            1 if len > 0 => {
                let end = (at + 1 + rng.below(16)).min(len);
                let chunk: Vec<u8> = bytes[at.min(len)..end].to_vec();
                bytes.splice(at..at, chunk);
            }
            _ => {
                let tok = rng.pick(TOKENS);
                bytes.splice(at..at, tok.bytes());
            }
        }
    }
    // Keep the text UTF-8 (the driver rejects other input before parsing).
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn mutated_inputs_never_break_the_front_end() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammar-tests");
    let per_case: usize = std::env::var("POLYFOLD_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let mut names: Vec<_> = fs::read_dir(&dir)
        .expect("grammar-tests/")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    names.sort();
    let mut rng = Rng::new(0x5eed_f00d);
    let mut n_scops = 0usize;
    let mut n_runs = 0usize;
    for path in &names {
        let source = fs::read_to_string(path).expect("case");
        for _ in 0..per_case {
            let text = mutate(&mut rng, &source);
            let options = Options {
                defines: vec![("N".into(), 5)],
                ..Default::default()
            };
            let a = extract("m.c", &text, &options);
            let b = extract("m.c", &text, &options);
            assert_eq!(ir::emit_program(&a), ir::emit_program(&b), "deterministic");
            for scop in &a.scops {
                if let Err(e) = ir::verify(scop, &text) {
                    panic!("ir::verify failed: {e}\n--- input ---\n{text}");
                }
            }
            n_scops += a.scops.len();
            n_runs += 1;
        }
    }
    // The mutations keep many inputs analysable: the test is not vacuous.
    assert!(n_runs >= 40 * 20.min(per_case));
    assert!(
        n_scops * 20 >= n_runs,
        "only {n_scops} SCoPs in {n_runs} runs"
    );
}

#[test]
fn deeply_nested_input_is_refused_without_crashing() {
    let deep_parens = format!(
        "void f(double A[10]) {{\n  for (int i = 0; i < 10; i++)\n    A[i] = {}1{};\n}}\n",
        "(".repeat(20_000),
        ")".repeat(20_000)
    );
    let long_sum = format!(
        "void f(double A[10]) {{\n  for (int i = 0; i < 10; i++)\n    A[i] = 1{};\n}}\n",
        " + 1".repeat(50_000)
    );
    let deep_blocks = format!(
        "void f(double A[10]) {{\n  for (int i = 0; i < 10; i++) {}A[i] = 1;{}\n}}\n",
        "{".repeat(5_000),
        "}".repeat(5_000)
    );
    for source in [deep_parens, long_sum, deep_blocks] {
        let p = extract("deep.c", &source, &Options::default());
        assert!(p.scops.is_empty());
        assert!(
            p.diagnostics
                .iter()
                .any(|d| d.code == polyfold::diag::Code::TooDeep),
            "{:?}",
            p.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
        );
    }
    // Nesting just under the limit is still analysed, in subscripts, bounds
    // and right-hand sides (this also runs in debug builds on a 2 MB test
    // thread stack).
    let ok = format!(
        "void f(double A[10], double B[10]) {{\n  for (int i = 0; i < {}10{}; i++)\n    A[{}i{}] = {}B[i]{};\n}}\n",
        "(".repeat(180),
        ")".repeat(180),
        "(".repeat(180),
        ")".repeat(180),
        "(".repeat(180),
        ")".repeat(180)
    );
    let p = extract("ok.c", &ok, &Options::default());
    assert_eq!(p.scops.len(), 1, "{:?}", p.diagnostics);
    assert_eq!(p.scops[0].stmts[0].reads.len(), 1);
}
