//! `polyfold bench FILE --speed`: the layout of the table on one tiny
//! kernel at its own size (`--factor 1`, one pair of runs). Nothing here
//! depends on the times measured: only the columns, the factor, the
//! parameters and that both programs print the same.

use std::path::Path;
use std::process::Command;

fn bench(extra: &[&str]) -> (i32, String) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cost_rule/pingpong_local.c");
    let out = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg("bench")
        .arg(&file)
        .args([
            "--speed",
            "--factor",
            "1",
            "--repeats",
            "1",
            "--no-inter-array",
        ])
        .args(extra)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const HEADER: [&str; 13] = [
    "kernel", "factor", "pairs", "orig", "ms", "new", "ms", "ratio", "q1-q3", "orig", "kB", "new",
    "kB",
];

fn check_header(table: &str) {
    let mut lines = table.lines();
    let note = lines.next().expect("a first line");
    assert!(note.starts_with("# cc: "), "{table}");
    assert!(note.contains("-O3 -march=native"), "{table}");
    let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
    assert_eq!(header[..13], HEADER, "{table}");
    assert_eq!(header[13..], ["mem", "output", "params"], "{table}");
}

#[test]
fn a_measured_kernel_has_one_row_with_every_column() {
    // With --min-memory P is folded: the output differs and is measured.
    let (code, table) = bench(&["--min-memory"]);
    assert_eq!(code, 0, "{table}");
    check_header(&table);
    let rows: Vec<&str> = table.lines().skip(2).collect();
    assert_eq!(rows.len(), 1, "{table}");
    let cols: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(cols.len(), 13, "{table}");
    assert_eq!(cols[..3], ["pingpong_local", "1", "1"], "{table}");
    for (i, col) in cols[3..6].iter().enumerate() {
        assert!(
            col.parse::<f64>().is_ok_and(|v| v >= 0.0),
            "column {i}: {table}"
        );
    }
    // One pair: the quartiles are the ratio itself.
    assert_eq!(cols[6], format!("{}-{}", cols[5], cols[5]), "{table}");
    if cfg!(target_os = "linux") {
        for col in &cols[7..9] {
            assert!(col.parse::<u64>().is_ok_and(|kb| kb > 0), "{table}");
        }
        assert!(cols[9].parse::<f64>().is_ok(), "{table}");
    }
    assert_eq!(cols[10..], ["same", "N=40", "T=5"], "{table}");
}

#[test]
fn an_unchanged_kernel_is_not_run() {
    // By default the cost rule keeps P: the output is the input.
    let (code, table) = bench(&[]);
    assert_eq!(code, 0, "{table}");
    check_header(&table);
    let rows: Vec<&str> = table.lines().skip(2).collect();
    assert_eq!(rows.len(), 1, "{table}");
    let cols: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(
        cols,
        [
            "pingpong_local",
            "1",
            "0",
            "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            "unchanged",
            "N=40",
            "T=5"
        ],
        "{table}"
    );
}

#[test]
fn both_flag_sets_at_the_cache_size_give_a_table_each_and_the_ratios_side_by_side() {
    // Declared cells at factor f: in, P, Q of the kernel and main's `in`,
    // N + 2 each, and the scalar `result`: 4 (40 f + 2) + 1, so 169 at
    // f = 1, 329 at f = 2, 649 at f = 4. At most 400: factor 2 (N = 80,
    // T = 10). The runs of main per process grow until the original takes
    // --min-time: at least one.
    // (`bench` fixes the factor with --factor 1: not here.)
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cost_rule/pingpong_local.c");
    let out = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg("bench")
        .arg(&file)
        .args([
            "--speed",
            "--repeats",
            "1",
            "--no-inter-array",
            "--min-memory",
            "--opt",
            "O2,O3",
            "--size",
            "cache",
            "--cache-cells",
            "400",
            "--min-time",
            "0.001",
        ])
        .output()
        .expect("the binary runs");
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{table}");
    let sections: Vec<&str> = table.split("\n\n").collect();
    assert_eq!(sections.len(), 3, "{table}");
    for (section, flags) in sections[..2].iter().zip(["-O2 ", "-O3 -march=native "]) {
        let mut lines = section.lines();
        let note = lines.next().expect("a note");
        assert!(
            note.starts_with("# cc: ") && note.contains(flags),
            "{table}"
        );
        assert!(note.contains("size: cache (at most 400 cells"), "{table}");
        let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
        assert_eq!(
            header[..4],
            ["kernel", "factor", "pairs", "runs"],
            "{table}"
        );
        let row: Vec<&str> = lines.next().expect("a row").split_whitespace().collect();
        assert_eq!(row.len(), 14, "{table}");
        assert_eq!(row[..3], ["pingpong_local", "2", "1"], "{table}");
        assert!(row[3].parse::<u64>().is_ok_and(|r| r >= 1), "{table}");
        assert_eq!(row[11..], ["same", "N=80", "T=10"], "{table}");
        assert!(lines.next().is_none(), "{table}");
    }
    let summary: Vec<&str> = sections[2].lines().collect();
    assert!(summary[0].starts_with("# ratio output/original"), "{table}");
    assert_eq!(
        summary[1].split_whitespace().collect::<Vec<_>>(),
        ["kernel", "O2/cache", "O3/cache"],
        "{table}"
    );
    assert!(summary[2].starts_with("pingpong_local "), "{table}");
    assert_eq!(summary.len(), 3, "{table}");
}

#[test]
fn the_memory_size_is_the_first_factor_that_declares_enough_cells() {
    // 4 (40 f + 2) + 1 cells (see above): 649 at f = 4, 1289 at f = 8.
    // At least 1000: factor 8 (N = 320, T = 40). By default the output is
    // the input (the cost rule keeps P), so nothing runs.
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cost_rule/pingpong_local.c");
    let out = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg("bench")
        .arg(&file)
        .args([
            "--speed",
            "--repeats",
            "1",
            "--no-inter-array",
            "--size",
            "memory",
            "--memory-cells",
            "1000",
        ])
        .output()
        .expect("the binary runs");
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{table}");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(
        lines[0].contains("-O3 -march=native") && lines[0].contains("size: memory"),
        "{table}"
    );
    let row: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(
        row,
        [
            "pingpong_local",
            "8",
            "0",
            "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            "-",
            "unchanged",
            "N=320",
            "T=40"
        ],
        "{table}"
    );
}

#[test]
fn a_flag_set_or_size_that_does_not_exist_is_a_usage_error() {
    for args in [["--opt", "O1"], ["--opt", "O2,O2"], ["--size", "small"]] {
        let (code, _) = bench(&args);
        assert_eq!(code, 2, "{args:?}");
    }
}
