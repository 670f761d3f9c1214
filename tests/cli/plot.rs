//! `polyfold plot` (issue 22): the SVG text of a small case is a snapshot
//! (reviewed by rendering it: see the README), the max-live values it
//! plots are the report's lower bounds, and files without values get a
//! note, not a picture.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::snapshot::check_snapshot;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `polyfold plot FILE... --out DIR` from the repository root.
fn plot(files: &[&str], out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .current_dir(root())
        .arg("plot")
        .args(files)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("polyfold runs")
}

fn scratch(tag: &str) -> PathBuf {
    polyfold_fuzz::check::scratch_dir(tag).expect("scratch directory")
}

#[test]
fn small_case_svgs_are_the_snapshots() {
    // reg_detect's are the README's pictures, of the loops as written
    // (fused, its triangles fold to single cells).
    let out = scratch("plot-small");
    let run = plot(
        &["tests/plot/small.c", "corpus/reg_detect.c"],
        &out,
        &["-q", "--no-fusion"],
    );
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let listed = String::from_utf8_lossy(&run.stdout).to_string();
    let mut failures = Vec::new();
    for name in [
        "small.scop0.memory.svg",
        "small.scop0.t.ds.svg",
        "reg_detect.scop0.memory.svg",
        "reg_detect.scop0.sum_t.ds.svg",
        "index.html",
    ] {
        assert!(listed.contains(name), "{name} not listed in\n{listed}");
        let text = std::fs::read_to_string(out.join(name)).expect("written");
        if let Err(e) = check_snapshot(&root().join("tests/snapshots/plot").join(name), &text) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&out);
}

/// `NAME (max live K)` entries of a memory plot's legend.
fn legend_max_live(svg: &str) -> Vec<(String, usize)> {
    svg.split("<text")
        .filter_map(|t| {
            let body = t.split('>').nth(1)?.split('<').next()?;
            let (name, rest) = body.split_once(" (max live ")?;
            Some((name.to_string(), rest.trim_end_matches(')').parse().ok()?))
        })
        .collect()
}

#[test]
fn plotted_max_live_is_the_report_bound() {
    let out = scratch("plot-bounds");
    for (kernel, arrays) in [("durbin", 4), ("reg_detect", 4), ("small", 2)] {
        let file = if kernel == "small" {
            "tests/plot/small.c".to_string()
        } else {
            format!("corpus/{kernel}.c")
        };
        let run = plot(&[&file], &out, &["-q"]);
        assert_eq!(run.status.code(), Some(0), "{run:?}");
        let svg = std::fs::read_to_string(out.join(format!("{kernel}.scop0.memory.svg")))
            .expect("written");
        let plotted = legend_max_live(&svg);
        let report = Command::new(env!("CARGO_BIN_EXE_polyfold"))
            .current_dir(root())
            .args(["--report", "text", "--no-timings", "-q", &file])
            .output()
            .expect("polyfold runs");
        let report = String::from_utf8_lossy(&report.stdout).to_string();
        let mut compared = 0;
        for (name, live) in &plotted {
            if name == "all" {
                continue;
            }
            let line = report
                .lines()
                .find(|l| l.contains(&format!(".{name}: ")))
                .unwrap_or_else(|| panic!("{kernel}: no report line for {name}\n{report}"));
            let bound = line
                .split("lower bound ")
                .nth(1)
                .and_then(|r| r.split(',').next())
                .unwrap_or("");
            assert_eq!(bound, live.to_string(), "{kernel}.{name}: {line}");
            compared += 1;
        }
        assert_eq!(compared, arrays, "{kernel}: {plotted:?}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_file_without_values_gets_a_note() {
    let out = scratch("plot-novalues");
    let run = plot(&["tests/symbolic/durbin_vla.c"], &out, &[]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("has no value (pass -D"), "{err}");
    let index = std::fs::read_to_string(out.join("index.html")).expect("index written");
    assert!(index.contains("has no value"), "{index}");
    assert!(!index.contains(".svg"), "{index}");
    // With a value it is drawn.
    let run = plot(
        &["tests/symbolic/durbin_vla.c"],
        &out,
        &["-D", "n=12", "-q"],
    );
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert!(out.join("durbin_vla.scop0.memory.svg").exists());
    // --out is required.
    let run = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(["plot", "tests/plot/small.c"])
        .current_dir(root())
        .output()
        .expect("polyfold runs");
    assert_eq!(run.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&out);
}
