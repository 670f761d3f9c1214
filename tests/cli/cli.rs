//! Runs the built `polyfold` binary and checks exit codes and output for
//! the situations the README documents: I/O errors, unparseable input,
//! empty input, bad flags, `-D` overrides, `--version` and `--help`.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

fn polyfold(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polyfold-cli-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const KERNEL: &str = "#define N 100\nvoid f(double A[N]) {\n  for (int i = 1; i < N; i++)\n    A[i] = A[i - 1];\n}\n";

#[test]
fn missing_file_is_an_io_error() {
    let dir = scratch("missing");
    let path = dir.join("nope.c");
    let out = polyfold(&["--emit", "scop", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.starts_with("polyfold: error: cannot read"), "{err}");
    assert_eq!(err.lines().count(), 1, "one-line message: {err}");
    assert!(out.stdout.is_empty());
}

/// Bytes that are not UTF-8 are accepted and kept (issue 51, see
/// `tests/cli/bytes.rs`); only a file that also holds one of the
/// characters polyfold uses to keep them is refused, on one line.
#[test]
fn non_utf8_bytes_are_read_and_an_ambiguous_file_is_an_io_error() {
    let dir = scratch("utf8");
    let path = dir.join("latin1.c");
    fs::write(&path, b"int x; /* caf\xe9 */\n").expect("write");
    let out = polyfold(&["--emit", "scop", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut bytes = "int x; /* \u{10FFE9} */\n".as_bytes().to_vec();
    bytes.extend_from_slice(b"/* caf\xe9 */\n");
    fs::write(&path, &bytes).expect("write");
    let out = polyfold(&[path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("not UTF-8 and characters U+10FF80..U+10FFFF"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one-line message: {err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn unparseable_file_exits_2_and_is_untouched() {
    let dir = scratch("syntax");
    let path = dir.join("bad.c");
    let source = "void f(double A[10]) {\n  for (int i = 0; i < 10; i++)\n    A[i] = ) 1;\n}\n";
    fs::write(&path, source).expect("write");
    let out = polyfold(&["--emit", "scop", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing is written on stdout");
    let err = text(&out.stderr);
    assert!(err.contains("error[PF001]: syntax error"), "{err}");
    assert!(err.contains(":3:12"), "points at the first error: {err}");
    assert_eq!(fs::read_to_string(&path).expect("read back"), source);
}

#[test]
fn empty_file_gives_a_note_and_exit_0() {
    let dir = scratch("empty");
    let path = dir.join("empty.c");
    fs::write(&path, "").expect("write");
    let out = polyfold(&["--emit", "scop", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("note[PF002]: no loops in this file"));
    assert!(text(&out.stdout).contains("(0 SCoPs)"));
}

#[test]
fn rejected_code_is_a_warning_not_a_failure() {
    let dir = scratch("reject");
    let path = dir.join("w.c");
    fs::write(&path, "void f(int n, double A[10]) {\n  while (n > 0) {\n    for (int i = 0; i < 10; i++) A[i] = 0;\n    n--;\n  }\n}\n").expect("write");
    let out = polyfold(&["--emit", "scop", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("warning[PF022]: unsupported statement: while"));
    assert!(text(&out.stdout).contains("(1 SCoP)"));
}

#[test]
fn bad_flags_are_usage_errors() {
    let out = polyfold(&["--no-such-flag", "x.c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage"), "{}", text(&out.stderr));
    let out = polyfold(&["--emit", "nonsense", "x.c"]);
    assert_eq!(out.status.code(), Some(2));
    let out = polyfold(&["-D", "1N=3", "x.c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("NAME[=TOKENS]"));
    // `-D N=ten` is a macro with a body, as in cc (the missing file is
    // the error here, not the flag).
    let out = polyfold(&["-D", "N=ten", "x.c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read x.c"));
    let out = polyfold(&[]);
    assert_eq!(out.status.code(), Some(2), "a file is required");
}

#[test]
fn define_overrides_a_parameter_value() {
    let dir = scratch("define");
    let path = dir.join("k.c");
    fs::write(&path, KERNEL).expect("write");
    let p = path.to_str().expect("utf-8 path");
    let plain = text(&polyfold(&["--emit", "scop", p]).stdout);
    assert!(plain.contains("# N = 100 (#define)"), "{plain}");
    let out = polyfold(&["--emit", "scop", "-D", "N=10", p]);
    assert_eq!(out.status.code(), Some(0));
    let over = text(&out.stdout);
    assert!(over.contains("# N = 10 (-D)"), "{over}");
    // The value never enters the sets: parameters stay symbolic.
    assert!(
        over.contains("[N] -> { S0[i] : i >= 1 and N >= i + 1 }"),
        "{over}"
    );
    // The last -D wins.
    let out = polyfold(&["--emit", "scop", "-D", "N=10", "-D", "N=7", p]);
    assert!(text(&out.stdout).contains("# N = 7 (-D)"));
}

#[test]
fn several_files_exit_with_the_worst_code() {
    let dir = scratch("several");
    let good = dir.join("good.c");
    let bad = dir.join("bad.c");
    fs::write(&good, KERNEL).expect("write");
    fs::write(&bad, "int f( {\n").expect("write");
    let out = polyfold(&[
        "--emit",
        "scop",
        good.to_str().expect("utf-8"),
        bad.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("good.c (1 SCoP)"));
    let missing = dir.join("missing.c");
    let out = polyfold(&[
        good.to_str().expect("utf-8"),
        missing.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// A kernel with a temporary that folds: `t[i]` is dead one iteration after
/// it is written, so `t` becomes a scalar.
const FOLDS: &str = "#define N 16\nvoid f(double A[N], double B[N]) {\n  double t[N];\n#pragma scop\n  for (int i = 0; i < N; i++) {\n    t[i] = A[i] * 2.0;\n    B[i] = t[i] + 1.0;\n  }\n#pragma endscop\n}\n";

#[test]
fn default_action_prints_the_transformed_program() {
    let dir = scratch("default");
    let path = dir.join("k.c");
    fs::write(&path, FOLDS).expect("write");
    let out = polyfold(&[path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert_eq!(
        printed,
        FOLDS
            .replace("t[i]", "t")
            .replace("double t[N];", "double t; /* polyfold: t[i] -> t */")
    );
    assert_eq!(
        fs::read_to_string(&path).expect("read"),
        FOLDS,
        "the input is untouched"
    );
}

#[test]
fn in_place_diff_and_check() {
    let dir = scratch("modes");
    let path = dir.join("k.c");
    let p = path.to_str().expect("utf-8");
    fs::write(&path, FOLDS).expect("write");
    let diff = polyfold(&["--diff", p]);
    assert_eq!(
        diff.status.code(),
        Some(1),
        "a diff that is not empty exits 1"
    );
    let d = text(&diff.stdout);
    assert!(
        d.contains("-  double t[N];\n+  double t; /* polyfold: t[i] -> t */\n"),
        "{d}"
    );
    assert!(d.starts_with(&format!("--- a/{p}\n+++ b/{p}\n")), "{d}");
    let check = polyfold(&["--check", p]);
    assert_eq!(
        check.status.code(),
        Some(1),
        "a file that would change fails --check"
    );
    assert!(check.stdout.is_empty());
    let inplace = polyfold(&["-i", p]);
    assert_eq!(inplace.status.code(), Some(0), "{}", text(&inplace.stderr));
    assert!(inplace.stdout.is_empty());
    let rewritten = fs::read_to_string(&path).expect("read");
    assert!(rewritten.contains("double t;"), "{rewritten}");
    let again = polyfold(&["--check", p]);
    assert_eq!(again.status.code(), Some(0), "a contracted file is stable");
    let leftovers = fs::read_dir(&dir).expect("dir").count();
    assert_eq!(leftovers, 1, "no temporary file is left behind");
}

#[test]
fn in_place_on_a_read_only_file_fails_and_leaves_it_alone() {
    let dir = scratch("readonly");
    let path = dir.join("k.c");
    fs::write(&path, FOLDS).expect("write");
    let mut perms = fs::metadata(&path).expect("meta").permissions();
    perms.set_readonly(true);
    fs::set_permissions(&path, perms).expect("chmod");
    let out = polyfold(&["-i", path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("polyfold: error: cannot write"), "{err}");
    assert_eq!(fs::read_to_string(&path).expect("read"), FOLDS);
    let mut perms = fs::metadata(&path).expect("meta").permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    fs::set_permissions(&path, perms).expect("chmod back");
}

/// `-i` on a symbolic link rewrites the file it points to; the link stays a
/// link and the file keeps its permission bits.
#[cfg(unix)]
#[test]
fn in_place_writes_through_a_symlink_and_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("symlink");
    let real = dir.join("real.c");
    fs::write(&real, FOLDS).expect("write");
    fs::set_permissions(&real, fs::Permissions::from_mode(0o751)).expect("chmod");
    let link = dir.join("link.c");
    std::os::unix::fs::symlink("real.c", &link).expect("symlink");
    let out = polyfold(&["-i", link.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let meta = fs::symlink_metadata(&link).expect("meta");
    assert!(meta.file_type().is_symlink(), "the link is still a link");
    let rewritten = fs::read_to_string(&real).expect("read");
    assert!(rewritten.contains("double t;"), "{rewritten}");
    let mode = fs::metadata(&real).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o751, "the mode is kept");
    assert_eq!(
        fs::read_dir(&dir).expect("dir").count(),
        2,
        "no temporary left"
    );
}

#[test]
fn unknown_temp_name_is_a_usage_error() {
    let dir = scratch("unknown-temp");
    let path = dir.join("k.c");
    fs::write(&path, FOLDS).expect("write");
    let out = polyfold(&["--temp", "nosuch", "-i", path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("--temp nosuch: no array or scalar named `nosuch`"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(&path).expect("read"),
        FOLDS,
        "nothing written"
    );
}

#[test]
fn parameter_without_a_value_folds_for_every_value() {
    let dir = scratch("no-value");
    let path = dir.join("k.c");
    // `t` has one value live at a time for every n: a scalar, proven for
    // every n, with no pin. `u` is read one step after it is written for
    // every n (two cells, `u[i % 2]`, kept in two rotating scalars); `w`
    // is read in reverse, so every value is live at once and nothing
    // smaller than `w[n]` is proven.
    let src = "void f(int n, double A[n], double B[n]) {\n  double t[n], u[n], w[n];\n#pragma scop\n  for (int i = 0; i < n; i++) {\n    t[i] = A[i];\n    u[i] = t[i];\n    w[i] = u[i];\n    if (i >= 1)\n      B[i] = u[i - 1];\n  }\n  for (int i = 0; i < n; i++)\n    B[i] = B[i] + w[n - 1 - i];\n#pragma endscop\n}\n";
    fs::write(&path, src).expect("write");
    let p = path.to_str().expect("utf-8");
    let out = polyfold(&[p]);
    assert_eq!(out.status.code(), Some(0));
    let output = text(&out.stdout);
    assert!(
        output.contains("double t, u_s0 = 0, u_s1 = 0, w[n];"),
        "{output}"
    );
    assert!(output.contains("u_s1 = t;"), "{output}");
    assert!(output.contains("B[i] = u_s0;"), "{output}");
    let folded = text(&polyfold(&["--no-rotate", p]).stdout);
    assert!(folded.contains("double t, u[2], w[n];"), "{folded}");
    assert!(folded.contains("u[i % 2] = t;"), "{folded}");
    assert!(folded.contains("B[i] = u[(i - 1) % 2];"), "{folded}");
    assert!(!output.contains("_Static_assert"), "{output}");
    let report = text(&polyfold(&["--report", "text", "--no-timings", p]).stdout);
    assert!(report.contains("f.u: n -> 2 cells"), "{report}");
    assert!(
        report.contains(
            "f.w: n -> n cells, lower bound ?, -\n    mapping: -\n    kept: no smaller mapping proven for every parameter value"
        ),
        "{report}"
    );
    // `verify` traces it at a few sizes of n, the smallest ones included.
    let verify = polyfold(&["verify", p]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    let shown = text(&verify.stdout);
    for n in [1, 2, 3, 4, 7, 16] {
        assert!(shown.contains(&format!("at n = {n}:\n")), "{shown}");
        assert!(
            shown.contains(&format!(
                "SCoP 0 in f (n = {n}): {} operations",
                3 * n + (n - 1) + n
            )),
            "{shown}"
        );
    }
    assert!(!shown.contains("wrong"), "{shown}");
}

#[test]
fn report_json_and_verify() {
    let dir = scratch("report");
    let path = dir.join("k.c");
    fs::write(&path, FOLDS).expect("write");
    let p = path.to_str().expect("utf-8");
    let out = polyfold(&["--report", "json", p]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let t = v["files"][0]["arrays"]
        .as_array()
        .expect("arrays")
        .iter()
        .find(|a| a["array"] == "t")
        .expect("t");
    assert_eq!(t["original_cells"], 16);
    assert_eq!(t["new_cells"], 1);
    assert_eq!(t["lower_bound"], 1);
    assert_eq!(t["class"], "temporary");
    let verify = polyfold(&["verify", p]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    assert!(
        text(&verify.stdout).contains("every read sees the value it sees in the original program")
    );
}

/// `--no-timings` leaves every time out of both report formats (and the
/// rest of the report is the same as with times).
#[test]
fn no_timings_reports_have_no_time() {
    let dir = scratch("no_timings");
    let path = dir.join("k.c");
    fs::write(&path, FOLDS).expect("write");
    let p = path.to_str().expect("utf-8");
    let timed = polyfold(&["--report", "json", p]);
    let plain = polyfold(&["--report", "json", "--no-timings", p]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    let mut with: serde_json::Value = serde_json::from_slice(&timed.stdout).expect("JSON");
    let without: serde_json::Value = serde_json::from_slice(&plain.stdout).expect("JSON");
    let arrays = with["files"][0]["arrays"].as_array_mut().expect("arrays");
    assert!(!arrays.is_empty());
    for a in arrays {
        assert!(a["analysis_ms"].is_number(), "{a}");
        a.as_object_mut().expect("object").remove("analysis_ms");
        for s in a["strategies"].as_array_mut().expect("strategies") {
            assert!(s["ms"].is_number(), "{s}");
            s.as_object_mut().expect("object").remove("ms");
        }
    }
    assert_eq!(with, without);
    let report = text(&polyfold(&["--report", "text", "--no-timings", p]).stdout);
    assert!(
        report.contains("-> 1 cells") && !report.contains(" ms"),
        "{report}"
    );
    assert!(text(&polyfold(&["--help"]).stdout).contains("--no-timings"));
}

#[test]
fn version_and_help() {
    let out = polyfold(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout).trim(),
        format!("polyfold {}", env!("CARGO_PKG_VERSION"))
    );
    let out = polyfold(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    assert!(help.contains("Exit codes:"), "{help}");
    assert!(help.contains("--emit"));
    assert!(help.contains("-D <NAME[=TOKENS]>"), "{help}");
    assert!(help.contains("-U <NAME>"), "{help}");
    assert!(help.contains("-I <DIR>"), "{help}");
}

#[test]
fn report_lists_every_strategy_and_whether_the_size_is_proven_optimal() {
    let kernel = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/reg_detect.c");
    // The lattice strategies alone (packed triangles, smaller, are the
    // default: checked at the end), on the schedule of seed 001 (fused,
    // reg_detect needs far fewer cells: tests/pipeline/fusion.rs).
    let out = polyfold(&["--report", "json", "--no-packing", "--no-fusion", kernel]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let array = |name: &str| {
        v["files"][0]["arrays"]
            .as_array()
            .expect("arrays")
            .iter()
            .find(|a| a["array"] == name && a["function"] == "reg_detect_kernel")
            .cloned()
            .expect("array in the report")
    };
    let strategy = |a: &serde_json::Value, method: &str| {
        a["strategies"]
            .as_array()
            .expect("strategies")
            .iter()
            .find(|s| s["method"] == method)
            .cloned()
            .unwrap_or_else(|| panic!("no {method} in {a}"))
    };
    // Seed 001 Figure 3: diff 2304 with the heuristics, 1728 optimal;
    // sum_t 36 -> 27.
    let diff = array("diff");
    assert_eq!(diff["new_cells"], 1728);
    assert_eq!(strategy(&diff, "heuristic 2")["cells"], 2304);
    assert_eq!(strategy(&diff, "block optimal")["cells"], 1728);
    let search = strategy(&diff, "optimal search");
    assert_eq!(search["cells"], 1728);
    assert_eq!(search["proven_optimal"], true);
    assert_eq!(diff["optimal"], "lattice search");
    let sum_t = array("sum_t");
    assert_eq!(strategy(&sum_t, "successive modulo")["cells"], 36);
    assert_eq!(strategy(&sum_t, "optimal search")["cells"], 27);
    assert_eq!(sum_t["optimal"], "lattice search");
    // sum_d folds to one cell, which its max-live count (1) proves optimal.
    let sum_d = array("sum_d");
    assert_eq!(strategy(&sum_d, "successive modulo")["cells"], 1);
    assert_eq!(sum_d["optimal"], "max-live bound");
    let out = polyfold(&["--report", "text", "--no-packing", "--no-fusion", kernel]);
    let report = text(&out.stdout);
    assert!(report.contains("    strategies: "), "{report}");
    assert!(
        report.contains("optimal search 1728 (proven optimal, "),
        "{report}"
    );
    assert!(
        report.contains("optimal in this schedule: meets its max-live lower bound"),
        "{report}"
    );
    // Unfused, by default diff's triangle is packed: 21·64 = 1344 cells,
    // its max-live count; packing runs before the lattice searches, which
    // then have nothing to find and do not run.
    let out = polyfold(&["--report", "json", "--no-fusion", kernel]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let diff = v["files"][0]["arrays"]
        .as_array()
        .expect("arrays")
        .iter()
        .find(|a| a["array"] == "diff")
        .cloned()
        .expect("diff");
    assert_eq!(diff["new_cells"], 1344, "{diff}");
    assert_eq!(diff["method"], "triangle packed", "{diff}");
    assert_eq!(diff["optimal"], "max-live bound", "{diff}");
    let methods: Vec<&str> = diff["strategies"]
        .as_array()
        .expect("strategies")
        .iter()
        .filter_map(|s| s["method"].as_str())
        .collect();
    assert_eq!(methods, ["successive modulo", "triangle packed"], "{diff}");
}

#[test]
fn lattice_reads_the_set_from_a_file_or_standard_input() {
    let set = "[N] -> { [i, j] : -N < i < N and -1 <= j <= 1 }";
    let direct = polyfold(&["lattice", set, "-D", "N=10", "--optimal-budget", "0"]);
    assert_eq!(direct.status.code(), Some(0), "{}", text(&direct.stderr));
    // Differences |d0| <= 9, |d1| <= 1: moduli 10 and 2 (Heuristic 1.a).
    assert!(
        text(&direct.stdout).contains("size       20"),
        "{}",
        text(&direct.stdout)
    );
    let dir = scratch("lattice");
    let path = dir.join("k.isl");
    fs::write(&path, set).expect("write");
    let arg = format!("@{}", path.display());
    let from_file = polyfold(&["lattice", &arg, "-D", "N=10", "--optimal-budget", "0"]);
    assert_eq!(
        from_file.status.code(),
        Some(0),
        "{}",
        text(&from_file.stderr)
    );
    assert_eq!(from_file.stdout, direct.stdout);
    let mut child = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(["lattice", "-", "-D", "N=10", "--optimal-budget", "0"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), set.as_bytes())
        .expect("write stdin");
    let from_stdin = child.wait_with_output().expect("output");
    assert_eq!(from_stdin.status.code(), Some(0));
    assert_eq!(from_stdin.stdout, direct.stdout);
    let missing = format!("@{}", dir.join("missing.isl").display());
    let out = polyfold(&["lattice", &missing, "-D", "N=10"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.starts_with("polyfold: error: cannot read "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Runs the binary with `args` and `input` on standard input.
fn polyfold_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A run that refuses its arguments exits without reading: the pipe
    // may then be closed before the input is written, which is no failure
    // (the output and the exit code are checked by the caller).
    let written =
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), input.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    child.wait_with_output().expect("output")
}

/// `-` is standard input, as for cc and rustfmt: the same output as the
/// file itself, diagnostics named `<stdin>`, and `-i` refused (exit 2:
/// there is no file to rewrite).
#[test]
fn dash_reads_standard_input() {
    let path = format!("{}/corpus/durbin.c", env!("CARGO_MANIFEST_DIR"));
    let source = fs::read_to_string(&path).expect("corpus file");
    let from_file = polyfold(&[&path]);
    assert_eq!(from_file.status.code(), Some(0));
    let from_stdin = polyfold_stdin(&["-"], &source);
    assert_eq!(
        from_stdin.status.code(),
        Some(0),
        "{}",
        text(&from_stdin.stderr)
    );
    assert_eq!(from_stdin.stdout, from_file.stdout);
    assert_ne!(
        text(&from_stdin.stdout),
        source,
        "the kernel was transformed"
    );
    // A report names the input `<stdin>`.
    let report = polyfold_stdin(&["-", "--report", "text", "--no-timings"], &source);
    assert!(
        text(&report.stdout).contains("<stdin>"),
        "{}",
        text(&report.stdout)
    );
    // `verify -` traces what it reads.
    let verify = polyfold_stdin(&["verify", "-"], &source);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    let in_place = polyfold_stdin(&["-i", "-"], &source);
    assert_eq!(in_place.status.code(), Some(2));
    let err = text(&in_place.stderr);
    assert!(err.starts_with("polyfold: error: -i"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A reader that goes away before polyfold prints (`polyfold … | head -0`)
/// is not a crash: `print!` used to panic on the broken pipe. Each output
/// path is run with the pipe's reading end closed at once; every write then
/// fails with EPIPE (Rust ignores SIGPIPE), so the old code panicked on
/// every run.
#[test]
fn a_closed_stdout_is_not_a_panic() {
    for args in [
        vec!["corpus/durbin.c", "--report", "json"],
        vec!["corpus/durbin.c"],
        vec!["corpus/durbin.c", "--emit", "scop"],
        vec!["verify", "corpus/durbin.c"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_polyfold"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("polyfold runs");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("polyfold ends");
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
}
