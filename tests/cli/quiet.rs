//! Quiet by default (issue 50, item 4): the reports list the arrays of
//! the SCoPs polyfold analysed, diagnostics about code with no candidate
//! loop nest wait for `-v`, a re-run on polyfold's own output prints
//! nothing on stderr, and long source lines are cut in diagnostics.

use crate::common::{polyfold, root, text};
use std::fs;
use std::path::PathBuf;

fn scratch(test: &str) -> std::path::PathBuf {
    crate::common::scratch("quiet", test)
}

#[test]
fn reports_leave_out_the_arrays_of_harness_code() {
    let dynprog = root().join("corpus/dynprog.c");
    let out = polyfold(&[
        "--report".as_ref(),
        "text".as_ref(),
        "--no-timings".as_ref(),
        dynprog.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let report = text(&out.stdout);
    // The kernel's SCoP: its temporary and the parameters it works on.
    for listed in [
        "dynprog_kernel.sum_c: 1000 -> 1 cells",
        "dynprog_kernel.c: 100 -> 100 cells",
        "dynprog_kernel.W: 100 -> 100 cells",
    ] {
        assert!(report.contains(listed), "missing {listed}:\n{report}");
    }
    // `main`'s loops (initialisation, checksums) have no temporary.
    assert!(!report.contains("main."), "{report}");
    let out = polyfold(&[
        "--report".as_ref(),
        "json".as_ref(),
        "--no-timings".as_ref(),
        dynprog.as_os_str(),
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let functions: Vec<&str> = doc["files"][0]["arrays"]
        .as_array()
        .expect("arrays")
        .iter()
        .map(|a| a["function"].as_str().expect("function"))
        .collect();
    assert_eq!(functions, ["dynprog_kernel"; 4]);
}

#[test]
fn a_callers_temporary_folded_where_it_is_allocated_is_still_reported() {
    // tests/parameters/temp_parameter.c: `main` declares B[N] and lends it
    // to `kernel`, which only uses B[i] right after writing it.
    let path = root().join("tests/parameters/temp_parameter.c");
    let out = polyfold(&[
        "--report".as_ref(),
        "text".as_ref(),
        "--no-timings".as_ref(),
        path.as_os_str(),
    ]);
    let report = text(&out.stdout);
    assert!(report.contains("kernel.B: 100 -> 1 cells"), "{report}");
    assert!(
        report.contains("resized: main line 27, the local array: `N` -> `1`"),
        "{report}"
    );
}

/// A kernel with a temporary, and a `main` whose checksum loop prints
/// (a call statement, PF023: not a candidate loop nest).
const HARNESS: &str = "#include <stdio.h>\n#define N 16\n\
static void kernel(const double in[N], double out[N]) {\n  double t[N];\n  int i;\n\
  for (i = 0; i < N; i++) t[i] = in[i] * 2.0;\n  for (i = 0; i < N; i++) out[i] = t[i] + 1.0;\n}\n\
int main(void) {\n  static double in[N], out[N];\n  int i;\n  double s = 0;\n\
  for (i = 0; i < N; i++) in[i] = i;\n  kernel(in, out);\n\
  for (i = 0; i < N; i++) {\n    s += out[i];\n    printf(\"%f\\n\", out[i]);\n  }\n  return s > 0 ? 0 : 1;\n}\n";

#[test]
fn warnings_about_harness_code_wait_for_verbose() {
    let dir = scratch("harness");
    let path = dir.join("h.c");
    fs::write(&path, HARNESS).expect("write");
    let out = polyfold(&[path.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), "", "quiet by default");
    assert!(text(&out.stdout).contains("double t;"), "t is folded");
    for verbose in ["-v", "--verbose"] {
        let out = polyfold(&[verbose.as_ref(), path.as_os_str()]);
        assert_eq!(out.status.code(), Some(0));
        let err = text(&out.stderr);
        assert!(err.contains("warning[PF023]"), "{err}");
        // The line of the `printf` in the file (line 17, hand-counted).
        assert!(err.contains("h.c:17:5"), "{err}");
    }
    // JSON reports list the diagnostics printed: none by default.
    let out = polyfold(&[
        "--report".as_ref(),
        "json".as_ref(),
        "--no-timings".as_ref(),
        path.as_os_str(),
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["files"][0]["diagnostics"], serde_json::json!([]));
    // A rejected statement inside the kernel's loops is still shown.
    let rejected = HARNESS.replace(
        "out[i] = t[i] + 1.0;",
        "{\n    out[i] = t[i] + 1.0;\n    puts(\"x\");\n  }",
    );
    fs::write(&path, rejected).expect("write");
    let out = polyfold(&[path.as_os_str()]);
    assert!(
        text(&out.stderr).contains("warning[PF023]"),
        "{}",
        text(&out.stderr)
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_rerun_on_polyfolds_own_output_is_silent() {
    // Every golden output of the corpus (what `polyfold KERNEL.c` prints).
    let mut goldens: Vec<PathBuf> = fs::read_dir(root().join("corpus/expected"))
        .expect("corpus/expected")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    goldens.sort();
    assert!(goldens.len() >= 20, "{goldens:?}");
    let mut noisy = Vec::new();
    for golden in &goldens {
        let out = polyfold(&[golden.as_os_str()]);
        if out.status.code() != Some(0) || !out.stderr.is_empty() {
            noisy.push(format!("{}:\n{}", golden.display(), text(&out.stderr)));
        }
    }
    assert!(noisy.is_empty(), "{}", noisy.join("\n"));
}

#[test]
fn long_source_lines_are_cut_in_diagnostics() {
    // A statement of a 160 KB line that polyfold rejects (a call), inside
    // the loop of a temporary.
    let args: Vec<String> = (0..48_000).map(|i| (i % 97).to_string()).collect();
    let call = format!("g(t[i], {});", args.join(", "));
    let line = format!("    t[i] = b[i]; out[i] = t[i]; {call}");
    let source = format!(
        "#define N 10\nvoid g(double, ...);\nvoid f(double b[N], double out[N]) {{\n  double t[N];\n  int i;\n  for (i = 0; i < N; i++) {{\n{line}\n  }}\n}}\n"
    );
    assert!(line.len() > 150_000, "{}", line.len());
    let dir = scratch("long");
    let path = dir.join("long.c");
    fs::write(&path, &source).expect("write");
    let out = polyfold(&[path.as_os_str()]);
    let err = text(&out.stderr);
    assert!(err.contains("warning[PF023]"), "{err}");
    // The header points at the call: line 7, its column in the line.
    let column = line.find("g(t[i]").expect("call") + 1;
    assert!(
        err.contains(&format!("long.c:7:{column}")),
        "{}",
        &err[..err.len().min(2000)]
    );
    assert!(err.contains('…'), "{}", &err[..err.len().min(2000)]);
    let longest = err.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest < 400, "a line of {longest} characters");
    assert!(err.len() < 4000, "{} bytes on stderr", err.len());
    // The short and JSON forms cut the message too, and keep the column.
    let out = polyfold(&[
        "--message-format".as_ref(),
        "short".as_ref(),
        path.as_os_str(),
    ]);
    let short = text(&out.stderr);
    assert!(short.len() < 1000, "{short}");
    assert!(
        short.contains(&format!("long.c:7:{column}: warning")),
        "{short}"
    );
    let _ = fs::remove_dir_all(&dir);
}
