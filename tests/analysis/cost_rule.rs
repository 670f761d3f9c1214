//! Issue 18, item 1: the cost rule. A fold that puts a `%` on the accesses
//! and saves less than a quarter of the array's cells is refused, with its
//! reason in the reports; `--min-memory` takes it. Both outputs are
//! compiled with `cc -O1 -fsanitize=address,undefined` with the original
//! and must print what the original prints.
//!
//! `tests/cost_rule/pingpong_local.c`: P[N + 2] -> P[i % N] at N = 40
//! saves 2 of 42 cells (before the rule it was taken); `--min-memory`
//! fuses the copy-back loop inside the time loop instead, P in 2 cells
//! (the default refuses that fusion: the `%` stays in the fused loop).
//! `tests/cost_rule/pingpong_symbolic.c`: the same without a value of n
//! (`n + 2` -> `n`: the same degree, 2 of 18 cells at the probe n = 16).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use polyfold_fuzz::check::{build_and_run, scratch_dir};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/cost_rule")
        .join(name)
}

fn polyfold(args: &[&str], file: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(args)
        .arg(file)
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The JSON report entry of array `name`.
fn entry(report: &serde_json::Value, name: &str) -> serde_json::Value {
    report["files"][0]["arrays"]
        .as_array()
        .expect("arrays")
        .iter()
        .find(|a| a["array"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no entry for {name} in {report}"))
}

/// Builds the original and `output` with the sanitizers, runs both and
/// checks they print the same (and something).
fn prints_the_same(file: &Path, output: &str, tag: &str) {
    let dir = scratch_dir("cost-rule").expect("scratch directory");
    let out_path = dir.join(format!("{tag}.c"));
    std::fs::write(&out_path, output).expect("write the output");
    let limit = Duration::from_secs(30);
    let want = build_and_run(file, &format!("{tag}.orig"), &dir, true, limit, None)
        .unwrap_or_else(|(_, e)| panic!("the original fails: {e}"));
    let got = build_and_run(&out_path, &format!("{tag}.new"), &dir, true, limit, None)
        .unwrap_or_else(|(_, e)| panic!("{tag}: the output fails: {e}"));
    assert!(!want.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "{tag}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// One case: by default P keeps its declaration and the report gives the
/// rule's reason (`saved` of `of` cells); with `--min-memory` it folds to
/// `folded` (a `%` subscript).
fn check(file_name: &str, saved_text: &str, declared: &str, folded: &str) {
    let file = case(file_name);
    let tag = file_name.trim_end_matches(".c");
    // By default: kept, with the reason in the text and JSON reports.
    let default = stdout(&polyfold(&["--no-inter-array"], &file));
    assert!(default.contains(declared), "{default}");
    assert!(default.contains("P[i] = 0.25"), "{default}");
    assert!(!default.contains(folded), "{default}");
    let report = stdout(&polyfold(
        &["--no-inter-array", "--report", "text", "--no-timings"],
        &file,
    ));
    let reason =
        format!("kept: not worth a `%` on its accesses: the best mapping saves {saved_text}");
    assert!(report.contains(&reason), "{report}");
    assert!(report.contains("(--min-memory takes it)"), "{report}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&polyfold(
        &["--no-inter-array", "--report", "json", "--no-timings"],
        &file,
    )))
    .expect("JSON report");
    let p = entry(&json, "P");
    assert_eq!(p["mapping"], serde_json::Value::Null, "{p}");
    assert!(
        p["note"].as_str().is_some_and(|n| n.contains(&reason)),
        "{p}"
    );
    prints_the_same(&file, &default, &format!("{tag}.default"));
    // --min-memory: the smallest storage.
    let small = stdout(&polyfold(&["--no-inter-array", "--min-memory"], &file));
    assert!(small.contains(folded), "{small}");
    assert!(!small.contains(declared), "{small}");
    let report = stdout(&polyfold(
        &[
            "--no-inter-array",
            "--min-memory",
            "--report",
            "text",
            "--no-timings",
        ],
        &file,
    ));
    assert!(!report.contains("not worth"), "{report}");
    prints_the_same(&file, &small, &format!("{tag}.min-memory"));
}

#[test]
fn a_fold_that_saves_two_of_n_plus_two_cells_is_refused_unless_min_memory() {
    check(
        "pingpong_local.c",
        "2 of 42 cells, less than a quarter",
        "double P[N + 2];",
        // --min-memory fuses the copy loop into the stencil loop, shifted
        // by one: each value of P is read one iteration after its write,
        // so two cells (by hand; the output is run against the original).
        "P[i % 2] = 0.25",
    );
}

#[test]
fn without_values_the_same_degree_and_the_probe_sizes_decide() {
    check(
        "pingpong_symbolic.c",
        "2 of 18 cells at the probe sizes and its size grows as fast, less than a quarter",
        "double P[n + 2];",
        "P[i % 2] = 0.25",
    );
}

#[test]
fn merged_buffers_that_select_on_the_iterators_need_min_memory() {
    // With the inter-array path P and Q (84 cells declared) share 43: N + 1 cells for the time-iterated values (41 at N = 40) and one
    // for each boundary value, made for every N. But the boundary values
    // live in buffers of their own and the first time step reads the
    // input copy, so the accesses of the inner loop select their buffer
    // with conditionals on `t` and `i`: measured up to 6 times slower, the
    // rule refuses it and says why; --min-memory takes it.
    let file = case("pingpong_local.c");
    let out = stdout(&polyfold(&[], &file));
    assert!(!out.contains("polyfold_buf"), "{out}");
    let report = stdout(&polyfold(&["--report", "text", "--no-timings"], &file));
    assert!(
        report.contains("through a conditional on the loop iterators")
            && report.contains("(--min-memory takes it)"),
        "{report}"
    );
    let small = stdout(&polyfold(&["--min-memory"], &file));
    assert!(
        small.contains("polyfold_buf0[N + 1 > 1 ? N + 1 : 1]"),
        "{small}"
    );
    let report = stdout(&polyfold(
        &["--min-memory", "--report", "text", "--no-timings"],
        &file,
    ));
    // 43 = (N + 1) + 1 + 1 at N = 40; 82 = 42 (Q) + 40 (P[i % N], taken
    // by --min-memory); 84 = 2 (N + 2) declared.
    assert!(
        report.contains("43 cells instead of 82") && report.contains("temporaries Q, P (84 cells)"),
        "{report}"
    );
    prints_the_same(&file, &small, "pingpong_local.merged");
}

#[test]
fn a_schedule_that_puts_a_varying_modulo_in_vectorisable_loops_needs_min_memory() {
    // tests/cost_rule/jacobi_interior.c: the five stencils' inner loops
    // have no condition and vectorise. Re-scheduled as one skewed nest,
    // the steps' arrays fold with a `%` that varies with the inner
    // iterator (96 % fewer cells): measured 3.0 to 4.7 times slower in
    // the cache and 1.8 to 1.9 times at N = 1024 (see the file's header).
    // By default the schedule is kept (its rotating indices advanced by
    // the inner loops and its `%` varying with them are both refused), so
    // nothing shrinks (the original schedule keeps every value of every
    // step live at once), and the report says why; --min-memory
    // re-schedules.
    let file = case("jacobi_interior.c");
    let json: serde_json::Value = serde_json::from_str(&stdout(&polyfold(
        &["--no-inter-array", "--report", "json", "--no-timings"],
        &file,
    )))
    .expect("JSON report");
    for name in ["a", "A0", "A1", "A2", "A3", "A4"] {
        let e = entry(&json, name);
        assert_eq!(e["mapping"], serde_json::Value::Null, "{e}");
    }
    let kept = json.to_string();
    assert!(
        kept.contains("re-scheduled as one nest")
            && kept.contains("stops its vectorisation")
            && kept.contains("(--min-memory takes it)"),
        "{kept}"
    );
    let small = stdout(&polyfold(&["--no-inter-array", "--min-memory"], &file));
    assert!(small.contains("double a[2 * N];"), "{small}");
    assert!(small.contains("% (2 * N)"), "{small}");
    prints_the_same(&file, &small, "jacobi_interior.min-memory");
}
