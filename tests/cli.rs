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

#[test]
fn non_utf8_file_is_an_io_error() {
    let dir = scratch("utf8");
    let path = dir.join("latin1.c");
    fs::write(&path, b"int x; /* caf\xe9 */\n").expect("write");
    let out = polyfold(&["--emit", "scop", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("is not valid UTF-8"), "{err}");
    assert!(err.contains("offset 13"), "{err}");
}

#[test]
fn unparseable_file_exits_1_and_is_untouched() {
    let dir = scratch("syntax");
    let path = dir.join("bad.c");
    let source = "void f(double A[10]) {\n  for (int i = 0; i < 10; i++)\n    A[i] = ) 1;\n}\n";
    fs::write(&path, source).expect("write");
    let out = polyfold(&["--emit", "scop", path.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1));
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
    let out = polyfold(&["-D", "N", "x.c"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("NAME=VALUE"));
    let out = polyfold(&["-D", "N=ten", "x.c"]);
    assert_eq!(out.status.code(), Some(2));
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
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("good.c (1 SCoP)"));
    let missing = dir.join("missing.c");
    let out = polyfold(&[
        good.to_str().expect("utf-8"),
        missing.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn default_action_prints_a_summary() {
    let dir = scratch("summary");
    let path = dir.join("k.c");
    fs::write(&path, KERNEL).expect("write");
    let out = polyfold(&[path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).ends_with("k.c: 1 SCoP, 1 statement\n"));
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
    assert!(help.contains("-D <NAME=VALUE>"), "{help}");
}
