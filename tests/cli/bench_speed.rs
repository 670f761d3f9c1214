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
