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

/// `NAME (max live K)` entries of a memory plot's legend, each with the
/// heading of its run above it (`original schedule`, `transformed
/// schedule`; empty when the plot draws one run).
fn legend_runs(svg: &str) -> Vec<(String, String, usize)> {
    let mut heading = String::new();
    let mut out = Vec::new();
    for t in svg.split("<text").skip(1) {
        let Some(body) = t.split('>').nth(1).and_then(|b| b.split('<').next()) else {
            continue;
        };
        if t.split('>')
            .next()
            .is_some_and(|attrs| attrs.contains("font-weight=\"bold\""))
            && !t.contains("font-size=\"14\"")
        {
            heading = body.to_string();
            continue;
        }
        if let Some((name, rest)) = body.split_once(" (max live ")
            && let Ok(live) = rest.trim_end_matches(')').parse()
        {
            out.push((heading.clone(), name.to_string(), live));
        }
    }
    out
}

/// The legend's entries of the run the output makes (the last one drawn).
fn legend_max_live(svg: &str) -> Vec<(String, usize)> {
    let runs = legend_runs(svg);
    let last = runs.last().map(|(h, _, _)| h.clone()).unwrap_or_default();
    runs.into_iter()
        .filter(|(h, _, _)| *h == last)
        .map(|(_, n, v)| (n, v))
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

/// Per array, the max-live values `polyfold verify ARGS FILE` prints for
/// SCoP 0 (`(all)` included).
fn verify_max_live(file: &str, extra: &[&str]) -> Vec<(String, usize)> {
    let run = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .current_dir(root())
        .arg("verify")
        .args(extra)
        .arg(file)
        .output()
        .expect("polyfold runs");
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let text = String::from_utf8_lossy(&run.stdout).to_string();
    text.split("  SCoP ")
        .find(|s| s.starts_with("0 in"))
        .unwrap_or_else(|| panic!("no SCoP 0 in\n{text}"))
        .lines()
        .filter_map(|l| {
            let (name, rest) = l.trim().split_once(" max live ")?;
            let live = rest.split_whitespace().next()?.parse().ok()?;
            Some((name.trim().to_string(), live))
        })
        .collect()
}

#[test]
fn a_fused_kernel_draws_both_schedules() {
    let out = scratch("plot-fused");
    // filter_chain (N = 1000), by hand: the first loop writes t1[1..N],
    // all read by the second (t1[j] last at i = j + 1), so all N are live
    // when it ends; the second writes t2[2..N-1], all read by the third:
    // N - 2 live; together at most N (each t2 written as a t1 dies).
    // The arrays declare 2 (N + 2) cells.
    let run = plot(&["corpus/filter_chain.c"], &out, &["-q"]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert!(
        run.stderr.is_empty(),
        "-q: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let svg = std::fs::read_to_string(out.join("filter_chain.scop0.memory.svg")).expect("written");
    let runs = legend_runs(&svg);
    let of = |heading: &str| -> Vec<(String, usize)> {
        runs.iter()
            .filter(|(h, _, _)| h == heading)
            .map(|(_, n, v)| (n.clone(), *v))
            .collect()
    };
    let original = of("original schedule");
    assert_eq!(
        original,
        vec![
            ("t1".into(), 1000),
            ("t2".into(), 998),
            ("all".into(), 1000)
        ],
        "{svg}"
    );
    assert!(svg.contains(">original storage: 2004<"), "{svg}");
    assert!(svg.contains("Dotted: the original schedule (the loops as written): max live 1000"));
    assert!(svg.contains("Solid: the transformed schedule of the output (loops `i`"));
    // The transformed run's peaks are the trace of the output's.
    let verified = verify_max_live("corpus/filter_chain.c", &[]);
    let transformed = of("transformed schedule");
    assert_eq!(transformed.len(), 3, "{svg}");
    for (name, live) in transformed.iter().filter(|(n, _)| n != "all") {
        assert!(
            verified.contains(&(name.clone(), *live)),
            "{name} {live}: {verified:?}"
        );
    }
    // song_example2: both runs against `polyfold verify` of the loops as
    // written and of the output.
    let run = plot(&["corpus/song_example2.c"], &out, &["-q"]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let svg = std::fs::read_to_string(out.join("song_example2.scop0.memory.svg")).expect("written");
    let runs = legend_runs(&svg);
    for (heading, extra) in [
        ("original schedule", &["--no-fusion"][..]),
        ("transformed schedule", &[][..]),
    ] {
        let verified = verify_max_live("corpus/song_example2.c", extra);
        let drawn: Vec<_> = runs
            .iter()
            .filter(|(h, n, _)| h == heading && n != "all")
            .collect();
        assert_eq!(drawn.len(), 2, "{heading}: {runs:?}");
        for (_, name, live) in drawn {
            assert!(
                verified.contains(&(name.clone(), *live)),
                "{heading} {name} {live}: {verified:?}"
            );
        }
    }
    // The paper's targets: ZA 456 -> 2 (its 437 local values and 19
    // edge values), ZB -> JN = 24.
    assert!(
        runs.contains(&("original schedule".into(), "ZA".into(), 456)),
        "{runs:?}"
    );
    assert!(
        runs.contains(&("transformed schedule".into(), "ZB".into(), 24)),
        "{runs:?}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The numbers of the DS caption `clipped to |d| <= K: P points shown
/// (the whole set spans [a, b] x [c, d])`.
fn clip_caption(svg: &str) -> Option<(i64, usize, [i64; 4])> {
    // The texts of the picture, joined (the caption is wrapped).
    let text = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| t.split('>').nth(1)?.split('<').next())
        .collect::<Vec<_>>()
        .join(" ")
        .replace("&lt;", "<");
    let rest = text.split("clipped to |d| <= ").nth(1)?;
    let (reach, rest) = rest.split_once(": ")?;
    let (shown, rest) = rest.split_once(" points shown")?;
    let spans = rest.split("spans").nth(1)?;
    let nums: Vec<i64> = spans
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter(|t| !t.is_empty() && *t != "-")
        .take(4)
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    Some((
        reach.parse().ok()?,
        shown.parse().ok()?,
        nums.try_into().ok()?,
    ))
}

#[test]
fn a_large_difference_set_is_clipped() {
    let out = scratch("plot-clipped");
    // triangle_temp at its size (N = 64): L[i][j], 0 <= j <= i < 64, so
    // the differences lie in [-63, 63]² (by hand), a box of 127² points:
    // more than the 81² the picture tests, so it is clipped to |d| <= 40.
    let run = plot(&["corpus/triangle_temp.c"], &out, &["-q"]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let svg = std::fs::read_to_string(out.join("triangle_temp.scop0.L.ds.svg")).expect("drawn");
    let (reach, shown, spans) = clip_caption(&svg).unwrap_or_else(|| panic!("{svg}"));
    assert_eq!(reach, 40, "{svg}");
    assert!(spans.iter().all(|v| v.abs() <= 63), "{spans:?}");
    assert!(spans.iter().any(|v| v.abs() > 40), "{spans:?}");
    // Each point drawn is one grey square of the path.
    let grey = svg
        .lines()
        .find(|l| l.contains("fill=\"#c8c8c8\""))
        .expect("grey path");
    assert_eq!(grey.matches('z').count(), shown);
    assert!(shown > 0 && shown <= 81 * 81, "{shown}");
    // durbin at N = 1000 (its set too large to enumerate before the
    // window): drawn, with no note.
    let run = plot(&["corpus/durbin.c"], &out, &["-D", "N=1000"]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!err.contains("not drawn"), "{err}");
    assert!(out.join("durbin.scop0.y.ds.svg").exists());
    let _ = std::fs::remove_dir_all(&out);
}
