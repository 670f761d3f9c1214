//! Issue 19, item 5: the command line follows the conventions of compiler
//! tools. One JSON document for `--report json` over several files (failed
//! ones included), one-line and JSON diagnostics, `-q` and `--allow`,
//! `--function`, warnings for `-D` names the file never uses or
//! contradicts, flags that cannot go together refused by clap, and
//! `polyfold lattice -` reading what `--emit ds` prints.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn polyfold(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "polyfold-conventions-{}-{test}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Two functions with a SCoP each; `t` (16 cells) folds to one cell in
/// both. Line 16 has a `%` by a variable, which polyfold does not model
/// (PF016, at column 7 of `u[i % m]`).
const TWO_FUNCTIONS: &str = "#define N 16
void f(double A[N], double B[N]) {
  double t[N];
  for (int i = 0; i < N; i++) {
    t[i] = A[i] * 2.0;
    B[i] = t[i] + 1.0;
  }
}
void g(int m, double A[N], double B[N]) {
  double t[N], u[2];
  for (int i = 0; i < N; i++) {
    t[i] = A[i] * 3.0;
    B[i] = t[i] + 1.0;
  }
  for (int i = 0; i < N; i++)
    u[i % m] = A[i];
}
";

fn two_functions(test: &str) -> (PathBuf, String) {
    let path = scratch(test).join("k.c");
    fs::write(&path, TWO_FUNCTIONS).expect("write");
    let p = path.to_str().expect("utf-8").to_string();
    (path, p)
}

#[test]
fn report_json_is_one_document_for_all_files() {
    let dir = scratch("document");
    let good = dir.join("good.c");
    let bad = dir.join("bad.c");
    let missing = dir.join("missing.c");
    fs::write(&good, TWO_FUNCTIONS).expect("write");
    fs::write(&bad, "int f( {\n").expect("write");
    let out = polyfold(&[
        "--report",
        "json",
        "--no-timings",
        good.to_str().expect("utf-8"),
        bad.to_str().expect("utf-8"),
        missing.to_str().expect("utf-8"),
    ]);
    // The worst exit code: the missing file (2).
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(v["schema"], "polyfold-report");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["polyfold_version"], env!("CARGO_PKG_VERSION"));
    let files = v["files"].as_array().expect("files");
    assert_eq!(files.len(), 3, "a record for every file: {v}");
    assert_eq!(files[0]["status"], "ok");
    assert_eq!(files[1]["status"], "error");
    assert_eq!(files[1]["exit_code"], 2);
    assert_eq!(files[1]["diagnostics"][0]["code"], "PF001", "{}", files[1]);
    assert_eq!(files[2]["status"], "error");
    assert_eq!(files[2]["exit_code"], 2);
    assert!(
        files[2]["messages"][0]
            .as_str()
            .is_some_and(|m| m.contains("cannot read")),
        "{}",
        files[2]
    );
    // Both `t`s (16 cells each) fold to one cell; `u` (2 cells) keeps its
    // layout (its accesses are not modelled, so it is in no SCoP).
    let arrays = files[0]["arrays"].as_array().expect("arrays");
    let ts: Vec<_> = arrays.iter().filter(|a| a["array"] == "t").collect();
    assert_eq!(ts.len(), 2, "{arrays:?}");
    for t in &ts {
        assert_eq!(t["original_cells"], 16);
        assert_eq!(t["new_cells"], 1);
        assert_eq!(t["declaration"]["column"], 10, "{t}");
    }
    assert_eq!(ts[0]["declaration"]["line"], 3);
    assert_eq!(ts[1]["declaration"]["line"], 10);
    assert_eq!(files[0]["totals"]["original_cells"], 32, "{}", files[0]);
    assert_eq!(files[0]["totals"]["new_cells"], 2);
    assert_eq!(v["totals"]["files"], 3);
    assert_eq!(v["totals"]["failed"], 2);
    assert_eq!(v["totals"]["original_cells"], 32);
    assert_eq!(v["totals"]["new_cells"], 2);
    // The good file's PF016 warning is in its record, with its position.
    let d = &files[0]["diagnostics"][0];
    assert_eq!(d["code"], "PF016", "{d}");
    assert_eq!(d["span"]["line"], 16, "{d}");
}

#[test]
fn short_and_json_diagnostics() {
    let (_, p) = two_functions("short");
    let out = polyfold(&["--message-format", "short", &p]);
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    // `u[i % m]` is on line 16; the `%` expression starts at column 7.
    let expected =
        format!("{p}:16:7: warning: quasi-affine subscript `i % m` is not supported [PF016]\n");
    assert_eq!(err, expected);
    let out = polyfold(&["--message-format", "json", &p]);
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    let d: serde_json::Value = serde_json::from_str(lines[0]).expect("a JSON object");
    assert_eq!(d["code"], "PF016");
    assert_eq!(d["severity"], "warning");
    assert_eq!(d["span"]["line"], 16);
    assert_eq!(d["span"]["column"], 7);
    // polyfold's own lines become JSON objects too.
    let out = polyfold(&["--message-format", "json", "-D", "NOPE=1", &p]);
    for line in text(&out.stderr).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        assert!(v["severity"].is_string(), "{v}");
    }
}

#[test]
fn quiet_and_allow_filter_warnings_not_errors() {
    let (_, p) = two_functions("quiet");
    let plain = polyfold(&[&p]);
    assert!(text(&plain.stderr).contains("PF016"));
    for flags in [&["-q"][..], &["--allow", "PF016"], &["--allow", "pf016"]] {
        let mut args = flags.to_vec();
        args.push(&p);
        let out = polyfold(&args);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(text(&out.stderr), "", "{flags:?}");
        assert_eq!(out.stdout, plain.stdout, "{flags:?}: same output");
    }
    // Errors always print.
    let dir = scratch("quiet_error");
    let bad = dir.join("bad.c");
    fs::write(&bad, "int f( {\n").expect("write");
    let out = polyfold(&["-q", "--allow", "PF001", bad.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("PF001"));
    // A code must look like one.
    let out = polyfold(&["--allow", "16", &p]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn function_picks_the_scops_to_transform() {
    let (_, p) = two_functions("function");
    let out = polyfold(&["--function", "g", &p]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let output = text(&out.stdout);
    // f keeps `double t[N];`, g's `t` becomes a scalar.
    assert!(output.contains("  double t[N];\n"), "{output}");
    assert!(
        output.contains("  double t, u[2]; /* polyfold: t[i] -> t */\n"),
        "{output}"
    );
    let all = text(&polyfold(&[&p]).stdout);
    assert!(!all.contains("double t[N]"), "{all}");
    let out = polyfold(&["--function", "nothere", &p]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no function named `nothere`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn defines_the_file_never_uses_or_contradicts_are_warned_about() {
    let (_, p) = two_functions("defines");
    let out = polyfold(&["-D", "NOTHERE=4", &p]);
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning[PF037]") && err.contains("NOTHERE"),
        "{err}"
    );
    // A name the file uses: no PF037.
    let out = polyfold(&["-D", "N=16", &p]);
    assert!(
        !text(&out.stderr).contains("PF037"),
        "{}",
        text(&out.stderr)
    );
    // The same value as the file's #define: no contradiction.
    assert!(!text(&out.stderr).contains("PF038"));
    // Another value: cc would compile with the file's #define.
    let out = polyfold(&["-D", "N=8", "--message-format", "short", &p]);
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "{p}:1:1: warning: `-D N=8` contradicts the file's `#define N 16` [PF038]"
        )),
        "{err}"
    );
}

#[test]
fn incompatible_flags_are_refused() {
    let (_, p) = two_functions("flags");
    for flags in [
        &["--report", "json", "--diff"][..],
        &["--report", "text", "--check"],
        &["--report", "text", "--emit", "scop"],
    ] {
        let mut args = flags.to_vec();
        args.push(&p);
        let out = polyfold(&args);
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        assert!(
            text(&out.stderr).contains("cannot be used with"),
            "{flags:?}"
        );
    }
}

/// `polyfold --emit ds F | polyfold lattice -`: every set the emitter
/// printed, named by its comment line. durbin's `y` at N = 10: the DS is
/// within |d0| <= 9, |d1| <= 1, and the optimal lattice has 17 = 2N - 3
/// cells (seed 001, §5: 2N - 3 for N >= 4).
#[test]
fn lattice_reads_what_emit_ds_prints() {
    let kernel = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/durbin.c");
    let ds = polyfold(&["--emit", "ds", kernel]);
    assert_eq!(ds.status.code(), Some(0));
    let mut child = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(["lattice", "-", "-D", "N=10", "--optimal-budget", "1M"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), &ds.stdout)
        .expect("write stdin");
    let out = child.wait_with_output().expect("output");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let y = report
        .split("# scop 0 (durbin_kernel), array ")
        .find(|part| part.starts_with("y: ds"))
        .expect("a section for y");
    assert!(
        y.contains("optimal search             size       17"),
        "{y}"
    );
    for name in ["beta", "alpha", "sum"] {
        assert!(
            report.contains(&format!("array {name}: ds")),
            "{name}: {report}"
        );
    }
}

/// `--temp NAME` names one array: when the SCoPs of several functions
/// have an array `NAME` (PolyBench's `init_array` and its kernel share
/// their parameters' names), it is refused (exit 2) until
/// `FUNCTION:NAME` says which; then only that function's array changes.
#[test]
fn temp_is_scoped_to_a_function() {
    let path = scratch("temp").join("p.c");
    let source = "#define N 16
void init(double B[N]) {
  for (int i = 0; i < N; i++)
    B[i] = i;
}
void kernel(double A[N]) {
  double B[N];
  for (int i = 0; i < N; i++) {
    B[i] = A[i] * 2.0;
    A[i] = B[i] + 1.0;
  }
}
";
    fs::write(&path, source).expect("write");
    let p = path.to_str().expect("utf-8");
    let out = polyfold(&["--temp", "B", p]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("`init` and `kernel`") && err.contains("--temp kernel:B"),
        "{err}"
    );
    let out = polyfold(&["--temp", "kernel:B", p]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let output = text(&out.stdout);
    assert!(output.contains("void init(double B[N]) {\n"), "{output}");
    assert!(output.contains("    B[i] = i;\n"), "{output}");
    assert!(
        output.contains("  double B; /* polyfold: B[i] -> B */\n"),
        "{output}"
    );
    let out = polyfold(&["--temp", "main:B", p]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("in a SCoP of function `main`"),
        "{}",
        text(&out.stderr)
    );
    // --live-out may name every `B` at once.
    let out = polyfold(&["--live-out", "B", p]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), source, "B kept everywhere");
}

/// Issue 50, item 2: options written before a subcommand apply to it
/// (`polyfold -q verify x.c` is `polyfold verify -q x.c`); an option the
/// subcommand does not take (`-i`) is a usage error, and a word spelt
/// almost like a subcommand is one too, before any file is touched.
#[test]
fn options_before_a_subcommand_and_a_misspelt_subcommand() {
    let (path, _) = two_functions("subcommand-first");
    let dir = path.parent().expect("scratch dir").to_path_buf();
    let source = fs::read_to_string(&path).expect("read");
    let file = path.to_str().expect("utf-8 path");
    let out = polyfold(&["-q", "verify", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("every read sees the value"),
        "{}",
        text(&out.stdout)
    );
    let out = polyfold(&["-i", "verify", file]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("'-i'"), "{}", text(&out.stderr));
    assert_eq!(fs::read_to_string(&path).expect("read"), source);
    let out = polyfold(&["-i", "verfy", file]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown subcommand `verfy` (did you mean `verify`?)"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert_eq!(fs::read_to_string(&path).expect("read"), source);
    // A file of that name is a file.
    let named = dir.join("verfy");
    fs::write(&named, &source).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg("verfy")
        .current_dir(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("void f("),
        "{}",
        text(&out.stdout)
    );
    let _ = fs::remove_dir_all(&dir);
}
