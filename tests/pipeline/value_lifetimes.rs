//! Issue 48: value lifetimes. A value lives from its write to the last
//! read that sees it, so a scratch array that a time loop rewrites in
//! every step holds only what one step needs. Each case's expected layout
//! is worked out by hand from the lifetimes (in the C file's comment);
//! every output is compiled with ASan/UBSan, run, and must print what the
//! original prints; `polyfold verify`'s max-live count (an independent
//! trace) agrees with the size.

use crate::common;

use std::path::{Path, PathBuf};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lifetimes")
        .join(format!("{name}.c"))
}

fn polyfold(args: &[&str], path: &Path) -> String {
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    all.push(path.as_os_str());
    common::polyfold_stdout(&all)
}

fn assert_has(output: &str, needle: &str) {
    assert!(output.contains(needle), "missing `{needle}` in\n{output}");
}

/// The max-live count `polyfold verify` traces for `array` in the first
/// SCoP of `path`.
fn verified_max_live(path: &Path, array: &str) -> usize {
    let text = polyfold(&["verify"], path);
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(array))
        .unwrap_or_else(|| panic!("no line for `{array}` in\n{text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "live").expect("max live");
    words[at + 1].parse().expect("a count")
}

#[test]
fn a_scratch_rewritten_in_every_time_step_is_one_cell() {
    let path = case("time_scratch");
    let output = polyfold(&[], &path);
    assert_has(&output, "double tmp; /* polyfold: tmp[i] -> tmp */");
    assert_has(&output, "b[i] = b[i] * 0.5 + tmp * 2.0;");
    let report = polyfold(&["--report", "text", "--no-timings"], &path);
    assert_has(&report, "kernel.tmp: 100 -> 1 cells, lower bound 1");
    assert!(!report.contains("lifetimes: of cells"), "{report}");
    assert_eq!(verified_max_live(&path, "tmp"), 1);
    common::assert_runs_like_original(&path, "time_scratch", "lifetimes", &output);
}

#[test]
fn a_producer_and_its_consumer_inside_a_time_loop_fuse_to_one_cell() {
    let path = case("nested_fusion");
    let output = polyfold(&[], &path);
    assert_has(&output, "double tmp; /* polyfold: tmp[i] -> tmp */");
    assert_has(
        &output,
        "            tmp = a[i] * (t + 1);\n            acc[i] += tmp;\n",
    );
    let report = polyfold(&["--report", "text", "--no-timings"], &path);
    assert_has(&report, "kernel.tmp: 64 -> 1 cells");
    assert_has(&report, "fused (none shifted)");
    assert_eq!(verified_max_live(&path, "tmp"), 1);
    common::assert_runs_like_original(&path, "nested_fusion", "lifetimes", &output);
}

#[test]
fn values_carried_to_the_next_step_keep_their_cells() {
    let path = case("carried");
    let source = std::fs::read_to_string(&path).expect("case");
    let output = polyfold(&[], &path);
    assert_eq!(output, source, "nothing may fold");
    let report = polyfold(&["--report", "text", "--no-timings"], &path);
    // All 32 values of a step are read in the next one.
    assert_has(&report, "kernel.tmp: 32 -> 32 cells, lower bound 32");
    assert_eq!(verified_max_live(&path, "tmp"), 32);
}

#[test]
fn an_alternating_direction_sweep_needs_one_row_of_each_coefficient() {
    let path = case("adi_sweep");
    let output = polyfold(&[], &path);
    // p[i][j] and q[i][j] are read back in the same row `i` only: the row
    // axis drops; the column axis stays as declared (`j < n - 1 <= N`,
    // for every n), at the parameter and where main declares them.
    assert_has(
        &output,
        // Over 120 columns on one line: broken after the comma, aligned
        // after the parenthesis (issue 49).
        "double p[1][N] /* polyfold: p[i][j] -> p[0][j] */,\n                  \
         double q[1][N] /* polyfold: q[i][j] -> q[0][j] */)",
    );
    assert_has(&output, "    double p[1][N], q[1][N];");
    assert_has(&output, "u[i][j] = p[0][j] * u[i][j + 1] + q[0][j];");
    let report = polyfold(&["--report", "text", "--no-timings"], &path);
    assert_has(&report, "certified for every parameter value");
    assert_has(
        &report,
        "resized: main line 29, the local array: `N` -> `1`",
    );
    common::assert_runs_like_original(&path, "adi_sweep", "lifetimes", &output);
}

#[test]
fn where_the_last_writer_is_not_exact_the_reports_say_cell_lifetimes() {
    // mot_detect's `Delta` is a chain through a disjunctive condition
    // (`if (j - 1 >= 0 || k - 1 >= 0)`): its last writer is not exact, so
    // its conflicts come from cell lifetimes (a superset), and both
    // reports say so.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/mot_detect.c");
    let text = polyfold(&["--report", "text", "--no-timings"], &path);
    assert_has(
        &text,
        "lifetimes: of cells, a superset: the last write of `Delta` that S2 reads is not exact",
    );
    let json: serde_json::Value =
        serde_json::from_str(&polyfold(&["--report", "json", "--no-timings"], &path))
            .expect("JSON report");
    let arrays = json["files"][0]["arrays"].as_array().expect("arrays");
    let delta = arrays
        .iter()
        .find(|a| a["array"] == "Delta")
        .expect("Delta");
    assert!(
        delta["cell_lifetimes"]
            .as_str()
            .is_some_and(|w| w.contains("not exact")),
        "{delta}"
    );
    // An exact one has no such key.
    let scratch = polyfold(&["--report", "json", "--no-timings"], &case("time_scratch"));
    assert!(!scratch.contains("cell_lifetimes"), "{scratch}");
}

#[test]
fn a_claim_of_optimality_names_the_schedule_and_the_fusion_not_tried() {
    // At N = 24 one step of the fused `i` touches a row of A, all of B
    // (24 rows of 24 doubles, 4.6 KB) and a row of T: below the 64 KiB of
    // `schedule::footprint`, so the rows fuse by default (issue 52) and
    // each T[i][j] is read in the iteration that computes it: one cell.
    let path = case("product_rows");
    let small = polyfold(&[], &path);
    assert_has(&small, "double T; /* polyfold: T[i][j] -> T */");
    assert_has(&small, "out[i] += T * (j % 3 + 1);");
    common::assert_runs_like_original(&path, "product_rows", "lifetimes", &small);
    // At N = 200, B alone is 200 rows of 1.6 KB (320 KB): the nests stay
    // apart, and the report names the schedule and the fusion not tried.
    let dir = common::scratch("pipeline", "product_rows_200");
    let big = dir.join("product_rows.c");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&big, common::with_define(&text, "N", 200)).expect("write");
    let report = polyfold(&["--report", "text", "--no-timings"], &big);
    // (At this size the max-live bound is not computed: the cells only.)
    assert_has(&report, "kernel.T: 40000 -> 40000 cells");
    let min = polyfold(&["--min-memory"], &big);
    assert_has(&min, "double T; /* polyfold: T[i][j] -> T */");
}
