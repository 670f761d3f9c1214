//! `polyfold bench DIR --report json` (issue 50, item 3): one document
//! for the run, byte-identical across runs with `--no-timings`; expected
//! sizes of symbolic kernels as formulas; a size regression is its own
//! line, exit 1, and is flagged in the document. Every corpus written
//! here is a copy in a temporary folder (the repository is never
//! written).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::{polyfold, root, text};

/// A scratch folder with an `expected/` folder.
fn scratch(test: &str) -> PathBuf {
    let dir = crate::common::scratch("benchjson", test);
    fs::create_dir_all(dir.join("expected")).expect("create scratch dir");
    dir
}

/// A corpus of the kernels `names` of `corpus/`, with their committed
/// expectations and the published figures.
fn corpus_subset(test: &str, names: &[&str]) -> PathBuf {
    let dir = scratch(test);
    let corpus = root().join("corpus");
    fs::copy(corpus.join("published.txt"), dir.join("published.txt")).expect("copy");
    for name in names {
        fs::copy(
            corpus.join(format!("{name}.c")),
            dir.join(format!("{name}.c")),
        )
        .expect("copy");
        for ext in ["sizes", "merged", "c"] {
            let from = corpus.join(format!("expected/{name}.{ext}"));
            if from.exists() {
                fs::copy(&from, dir.join(format!("expected/{name}.{ext}"))).expect("copy");
            }
        }
    }
    dir
}

fn bench(dir: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec!["bench".as_ref(), dir.as_os_str()];
    args.extend(
        ["--repeats", "1"]
            .iter()
            .map(|a| a.as_ref() as &std::ffi::OsStr),
    );
    args.extend(extra.iter().map(|a| a.as_ref() as &std::ffi::OsStr));
    polyfold(&args)
}

fn kernel<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .find(|k| k["kernel"] == name)
        .unwrap_or_else(|| panic!("no kernel {name} in {doc}"))
}

fn array<'a>(k: &'a Value, name: &str) -> &'a Value {
    k["arrays"]
        .as_array()
        .expect("arrays")
        .iter()
        .find(|a| a["array"] == name)
        .unwrap_or_else(|| panic!("no array {name} in {k}"))
}

#[test]
fn the_json_document_is_byte_identical_without_timings() {
    let dir = corpus_subset("same", &["dynprog", "pingpong1d", "song_example1"]);
    let first = bench(&dir, &["--report", "json", "--no-timings"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stdout));
    let second = bench(&dir, &["--report", "json", "--no-timings"]);
    assert_eq!(first.stdout, second.stdout, "two runs print the same bytes");
    let doc: Value = serde_json::from_slice(&first.stdout).expect("one JSON document");
    assert_eq!(doc["schema"], "polyfold-bench");
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["timings"], false);
    assert!(!text(&first.stdout).contains("time_ms"));
    assert_eq!(doc["totals"]["kernels"], 3);
    assert_eq!(doc["totals"]["regressions"], 0);
    // dynprog.c: sum_c[N][N][N] with N = 10 is 1000 cells, one value live
    // at a time (seed 001, Figure 3: 1000 -> 1).
    let dynprog = kernel(&doc, "dynprog");
    assert_eq!(dynprog["file"], "dynprog.c");
    assert_eq!(dynprog["golden"], "ok");
    assert_eq!(dynprog["trace"], "ok");
    let sum_c = array(dynprog, "sum_c");
    assert_eq!(sum_c["function"], "dynprog_kernel");
    assert_eq!(sum_c["original_cells"], 1000);
    assert_eq!(sum_c["new_cells"], 1);
    assert_eq!(sum_c["lower_bound"], 1);
    assert_eq!(sum_c["expected"], serde_json::json!({ "cells": 1 }));
    assert_eq!(sum_c["published"], "1 (heur) / 1 (opt)");
    assert_eq!(sum_c["status"], "ok");
    assert_eq!(sum_c["regression"], false);
    // song_example1.c: A[i] is read by the next iteration only once the
    // loops are fused: two cells (seed 003, corpus/published.txt).
    let a = array(kernel(&doc, "song_example1"), "A");
    assert_eq!(a["new_cells"], 2);
    assert_eq!(a["folded"], true);
    // With timings, the times are there.
    let timed = bench(&dir, &["--report", "json"]);
    let doc: Value = serde_json::from_slice(&timed.stdout).expect("JSON");
    assert_eq!(doc["timings"], true);
    assert!(kernel(&doc, "dynprog")["time_ms"].is_number());
    // The text table without timings has no time column either.
    let a = bench(&dir, &["--no-timings"]);
    let b = bench(&dir, &["--no-timings"]);
    assert_eq!(a.stdout, b.stdout);
    assert!(!text(&a.stdout).contains("time ms"), "{}", text(&a.stdout));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_size_regression_is_its_own_line_exit_1_and_flagged_in_json() {
    let dir = corpus_subset("regress", &["dynprog"]);
    // Deliberately too small: sum_c needs one cell, not zero; and an array
    // that no longer exists stands for one that stops being folded.
    fs::write(
        dir.join("expected/dynprog.sizes"),
        "dynprog_kernel.sum_c 0\ndynprog_kernel.gone 7\n",
    )
    .expect("write");
    let out = bench(&dir, &["--no-timings"]);
    assert_eq!(out.status.code(), Some(1));
    let table = text(&out.stdout);
    let lines: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("REGRESSION: "))
        .collect();
    assert_eq!(
        lines,
        [
            "REGRESSION: dynprog: size regression: dynprog_kernel.sum_c needs 1 cells, expected at most 0 cells",
            "REGRESSION: dynprog: size regression: dynprog_kernel.gone is no longer a folded temporary (expected 7 cells)",
        ],
        "{table}"
    );
    let out = bench(&dir, &["--no-timings", "--report", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["status"], "regression");
    assert_eq!(doc["totals"]["regressions"], 2);
    let k = kernel(&doc, "dynprog");
    assert_eq!(k["status"], "regression");
    assert_eq!(array(k, "sum_c")["status"], "regression");
    assert_eq!(array(k, "sum_c")["regression"], true);
    assert_eq!(array(k, "gone")["status"], "missing");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn symbolic_kernels_record_their_sizes_as_formulas() {
    let dir = scratch("symbolic");
    fs::copy(
        root().join("tests/symbolic/durbin_vla.c"),
        dir.join("durbin_vla.c"),
    )
    .expect("copy");
    let out = bench(&dir, &["--bless", "--no-timings"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let sizes = fs::read_to_string(dir.join("expected/durbin_vla.sizes")).expect("blessed");
    // y[n][n] folds to (2i + k) mod (2n - 1) for every n
    // (tests/pipeline/symbolic_sizes.rs runs it at n = 1..5, 17, 100).
    assert!(sizes.contains("durbin_kernel.y = (2 * n - 1)\n"), "{sizes}");
    let out = bench(&dir, &["--report", "json", "--no-timings"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let y = array(kernel(&doc, "durbin_vla"), "y");
    assert_eq!(
        y["expected"],
        serde_json::json!({ "formula": "(2 * n - 1)" })
    );
    assert_eq!(y["new_formula"], "(2 * n - 1)");
    assert_eq!(y["original_formula"], "n * n");
    assert_eq!(y["status"], "ok");
    // One cell fewer than the fold needs at every n: a regression.
    let blessed = sizes.clone();
    fs::write(
        dir.join("expected/durbin_vla.sizes"),
        blessed.replace("(2 * n - 1)", "(2 * n - 2)"),
    )
    .expect("write");
    let out = bench(&dir, &["--no-timings"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains(
            "REGRESSION: durbin_vla: size regression: durbin_kernel.y needs (2 * n - 1) cells, expected at most (2 * n - 2) cells"
        ),
        "{}",
        text(&out.stdout)
    );
    // A larger expectation: the fold is an improvement (a note, exit 0).
    fs::write(
        dir.join("expected/durbin_vla.sizes"),
        blessed.replace("(2 * n - 1)", "n * n"),
    )
    .expect("write");
    let out = bench(&dir, &["--no-timings"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains(
            "note: durbin_vla: durbin_kernel.y improved from n * n cells to (2 * n - 1) cells"
        ),
        "{}",
        text(&out.stdout)
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn json_and_no_timings_are_refused_with_scale_and_speed() {
    let corpus = root().join("corpus");
    let cases: [&[&str]; 2] = [
        &["--scale", "--report", "json"],
        &["--speed", "--no-timings", "--min-time", "0.1"],
    ];
    for extra in cases {
        let mut args: Vec<&std::ffi::OsStr> = vec!["bench".as_ref(), corpus.as_os_str()];
        args.extend(extra.iter().map(|a| a.as_ref() as &std::ffi::OsStr));
        let out = polyfold(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
    }
}
