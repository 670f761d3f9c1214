//! The corpus regression check of `polyfold bench corpus/`: every kernel's
//! per-array sizes are no larger than `corpus/expected/NAME.sizes`, its
//! transformed output equals the reviewed golden `corpus/expected/NAME.c`,
//! and the trace verifier accepts every mapping. `POLYFOLD_BLESS=1`
//! rewrites the expectations after a deliberate change (review the diff!).

mod common;

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

/// `polyfold bench corpus/ --inter-array`: every merged SCoP needs no more
/// cells than `corpus/expected/NAME.merged` records (seed 000 Table 1's
/// stencils at their max-live bound, jacobi-2d below Table 1), no SCoP
/// recorded there stops merging, and the per-array mappings still pass the
/// trace verifier.
#[test]
fn corpus_meets_its_expected_merged_sizes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut options = BenchOptions {
        repeats: 1,
        bless: false,
        ..BenchOptions::default()
    };
    options.contract.inter_array = true;
    let result = run_bench(&dir, &options).expect("the corpus folder is readable");
    println!("{}", result.table);
    assert!(
        result.table.contains("(merged)"),
        "no merged row:\n{}",
        result.table
    );
    assert!(
        result.regressions.is_empty(),
        "regressions:\n{}",
        result.regressions.join("\n")
    );
}
