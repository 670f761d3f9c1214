//! The corpus regression check of `polyfold bench corpus/`: every kernel's
//! per-array sizes are no larger than `corpus/expected/NAME.sizes`, every
//! merged SCoP needs no more cells than `corpus/expected/NAME.merged`
//! records (seed 000 Table 1's stencils at their max-live bound, jacobi-2d
//! below Table 1) and no SCoP recorded there stops merging, its transformed
//! output equals the reviewed golden `corpus/expected/NAME.c`, and the trace
//! verifier accepts every mapping. `POLYFOLD_BLESS=1`
//! rewrites the expectations after a deliberate change (review the diff!).

use crate::common;

use std::path::Path;

use polyfold::bench::{BenchOptions, run_bench};

#[test]
fn corpus_meets_its_expected_sizes_and_golden_outputs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let bless = common::snapshot::bless_requested();
    let options = BenchOptions {
        repeats: 1,
        bless,
        ..BenchOptions::default()
    };
    let result = run_bench(&dir, &options).expect("the corpus folder is readable");
    println!("{}", result.table);
    for n in &result.notes {
        println!("note: {n}");
    }
    assert!(
        result.regressions.is_empty(),
        "regressions:\n{}",
        result.regressions.join("\n")
    );
}

/// `polyfold bench corpus/ --no-inter-array`: folding each array alone
/// still meets the per-array sizes (the merged arrays' sizes are checked
/// by their size alone in the default run too, so this checks the path
/// that does not merge at all), and the trace verifier accepts every
/// mapping.
#[test]
fn corpus_meets_its_expected_sizes_without_merging() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut options = BenchOptions {
        repeats: 1,
        bless: false,
        ..BenchOptions::default()
    };
    options.contract.inter_array = false;
    let result = run_bench(&dir, &options).expect("the corpus folder is readable");
    println!("{}", result.table);
    assert!(
        !result.table.contains("(merged)"),
        "a merged row without merging:\n{}",
        result.table
    );
    assert!(
        result.regressions.is_empty(),
        "regressions:\n{}",
        result.regressions.join("\n")
    );
}
