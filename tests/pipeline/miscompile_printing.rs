//! Issue 14, classes 3 and 6: printed C must mean what the mapping says.
//!
//! Each `tests/miscompile/*.c` program is a minimal case of a miscompile
//! (its header says which): a macro whose body is several tokens printed
//! bare next to an operator (`#define LAST N-1`, `#define N M+2`), and a
//! new VLA extent that is not positive for sizes the program uses
//! (`w - 2` at `w = 2`, `n - 1` at `n = 1`). Each is contracted by the
//! library (with the `-D` values a user would give for the VLA kernels),
//! then the original and the output are compiled with
//! `-fsanitize=address,undefined`, run, and must print the same; the
//! expected output is the original program's own, computed by the C
//! compiler. All of them failed before the fix (out-of-bounds read, wrong
//! sums, non-positive VLA bound).

use crate::common;

use std::path::{Path, PathBuf};

fn case(name: &str) -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/miscompile")
        .join(format!("{name}.c"));
    let source = std::fs::read_to_string(&path).expect("readable test program");
    (path, source)
}

/// Contracts `name` with `defines`, checks that the output changed exactly
/// when `expect_change` says so, and compares the sanitized runs of the
/// original and the output. Returns the output text.
fn check(name: &str, defines: &[(&str, i64)], expect_change: bool) -> String {
    let (path, source) = case(name);
    let options = polyfold::frontend::Options {
        defines: defines.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        ..Default::default()
    };
    let program = polyfold::frontend::extract(&path.display().to_string(), &source, &options);
    // `min_memory`: these cases are about printing folds, some of which
    // save too little to pass the cost rule (`P[w]` -> `P[i % (w - 2)]`).
    let contract = polyfold::pipeline::ContractOptions {
        min_memory: true,
        pin_sizes: true,
        ..Default::default()
    };
    let contraction = polyfold::pipeline::contract_program(&program, &contract).expect("contracts");
    assert_eq!(
        contraction.output != source,
        expect_change,
        "{name}: output:\n{}",
        contraction.output
    );
    common::assert_runs_like_original(&path, name, "printing", &contraction.output);
    contraction.output
}

#[test]
fn a_subscript_that_is_a_multi_token_macro_is_parenthesised() {
    let output = check("macro_last_n_minus_1", &[], true);
    // The pin must hold for `LAST` as the compiler reads it: `LAST == 15`
    // is `N - (1 == 15)`, true for every N.
    assert!(
        !output.contains(" LAST == ")
            && !output.contains("(LAST ==")
            && !output.contains("&& LAST =="),
        "{output}"
    );
}

#[test]
fn a_modulus_that_is_a_multi_token_macro_is_parenthesised() {
    check("macro_n_m_plus_2", &[], true);
}

#[test]
fn a_macro_regrouped_by_the_operator_next_to_it_is_not_modelled_as_one_operand() {
    check("macro_regrouped_operand", &[], false);
}

#[test]
fn a_new_vla_extent_is_positive_for_every_size_the_program_may_use() {
    check("vla_w_minus_2", &[("w", 64)], true);
}

#[test]
fn a_vla_is_not_shrunk_to_an_extent_that_may_be_zero() {
    check("vla_n_minus_1", &[("n", 64)], false);
}
