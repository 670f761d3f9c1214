//! The exit-code table (issue 50, item 2): every row of the table of
//! `docs/exit-codes.md` is run here and must exit as the page says, so
//! the page and the binary cannot drift apart; the page also holds the
//! summary `polyfold --help` prints (`cli::EXIT_CODES`) word for word.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A kernel whose temporary `t` folds to one cell.
const CHANGES: &str = "#define N 16\nvoid f(const double in[N], double out[N]) {\n  double t[N];\n  for (int i = 0; i < N; i++) {\n    t[i] = in[i] * 2.0;\n    out[i] = t[i] + 1.0;\n  }\n}\n";

/// A kernel without a temporary: nothing to fold, printed unchanged.
const CLEAN: &str = "#define N 16\nvoid f(double A[N]) {\n  for (int i = 1; i < N; i++)\n    A[i] = A[i - 1] + 1.0;\n}\n";

/// `CHANGES` with `t` folded to one cell by hand: the same values.
const FOLDED: &str = "#define N 16\nvoid f(const double in[N], double out[N]) {\n  double t[1];\n  for (int i = 0; i < N; i++) {\n    t[0] = in[i] * 2.0;\n    out[i] = t[0] + 1.0;\n  }\n}\n";

/// A wrong fold: `out[i]` reads `t[0]` before this iteration writes it
/// (at i = 0 a cell no write has reached, then the previous iteration's).
const WRONG_FOLD: &str = "#define N 16\nvoid f(const double in[N], double out[N]) {\n  double t[1];\n  for (int i = 0; i < N; i++) {\n    out[i] = t[0] + 1.0;\n    t[0] = in[i] * 2.0;\n  }\n}\n";

/// A syntax error on line 3.
const BAD: &str = "void f(double A[10]) {\n  for (int i = 0; i < 10; i++)\n    A[i] = ) 1;\n}\n";

/// The files the table names, in a fresh folder for `test`.
fn fixtures(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("polyfold-exitcodes-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    fs::write(dir.join("changes.c"), CHANGES).expect("write");
    fs::write(dir.join("inplace.c"), CHANGES).expect("write");
    fs::write(dir.join("clean.c"), CLEAN).expect("write");
    fs::write(dir.join("bad.c"), BAD).expect("write");
    fs::write(dir.join("folded.c"), FOLDED).expect("write");
    fs::write(dir.join("wrongfold.c"), WRONG_FOLD).expect("write");
    // One corpus kernel with its expectations, and the same with an
    // expected size one cell too small (sum_c needs 1 cell).
    for (folder, sizes) in [
        ("corpus", "dynprog_kernel.sum_c 1\n"),
        ("regressed", "dynprog_kernel.sum_c 0\n"),
    ] {
        let d = dir.join(folder);
        fs::create_dir_all(d.join("expected")).expect("mkdir");
        fs::copy(root().join("corpus/dynprog.c"), d.join("dynprog.c")).expect("copy");
        fs::copy(
            root().join("corpus/expected/dynprog.c"),
            d.join("expected/dynprog.c"),
        )
        .expect("copy");
        fs::write(d.join("expected/dynprog.sizes"), sizes).expect("write");
    }
    dir
}

/// The rows of the page's table: the command's words and the exit code.
fn table_rows(page: &str) -> Vec<(Vec<String>, i32)> {
    page.lines()
        .filter(|l| l.starts_with("| `polyfold"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let command = cells[1].trim_matches('`');
            let code: i32 = cells[2].parse().expect("an exit code");
            (
                command.split_whitespace().map(str::to_string).collect(),
                code,
            )
        })
        .collect()
}

fn run(dir: &Path, words: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .args(&words[1..])
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

#[test]
fn every_row_of_the_documented_table_exits_as_documented() {
    let page = fs::read_to_string(root().join("docs/exit-codes.md")).expect("docs/exit-codes.md");
    let rows = table_rows(&page);
    assert!(rows.len() >= 30, "{} rows", rows.len());
    for code in [0, 1, 2] {
        assert!(rows.iter().any(|(_, c)| *c == code), "no row exits {code}");
    }
    let dir = fixtures("table");
    let mut wrong = Vec::new();
    for (words, code) in &rows {
        let out = run(&dir, words);
        if out.status.code() != Some(*code) {
            wrong.push(format!(
                "`{}` exited {:?}, the page says {code}\n{}",
                words.join(" "),
                out.status.code(),
                text(&out.stderr)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // What the rows did: `-i` rewrote its file and nothing else changed;
    // `--check` wrote nothing.
    let rewritten = fs::read_to_string(dir.join("inplace.c")).expect("read");
    assert!(
        rewritten.contains("double t; /* polyfold: t[i] -> t */"),
        "{rewritten}"
    );
    assert_eq!(
        fs::read_to_string(dir.join("changes.c")).expect("read"),
        CHANGES
    );
    assert_eq!(fs::read_to_string(dir.join("bad.c")).expect("read"), BAD);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn the_page_holds_the_summary_of_help() {
    let page = fs::read_to_string(root().join("docs/exit-codes.md")).expect("docs/exit-codes.md");
    assert!(
        page.contains(polyfold::cli::EXIT_CODES),
        "docs/exit-codes.md is not current"
    );
    let help = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg("--help")
        .output()
        .expect("runs");
    assert_eq!(help.status.code(), Some(0));
    assert!(
        text(&help.stdout)
            .trim_end()
            .ends_with(polyfold::cli::EXIT_CODES)
    );
}

#[test]
fn usage_errors_say_what_is_wrong() {
    let dir = fixtures("usage");
    let words = |s: &str| -> Vec<String> { s.split_whitespace().map(str::to_string).collect() };
    // A misspelt subcommand lists the subcommands, and nothing is read.
    let out = run(&dir, &words("polyfold verfy changes.c"));
    assert_eq!(
        text(&out.stderr),
        "polyfold: error: unknown subcommand `verfy` (did you mean `verify`?); the subcommands are: verify, plot, bench, lattice, smo, explain, equiv, help\n"
    );
    assert!(out.stdout.is_empty());
    // `-i` before `verify` is refused by `verify`, and the file is intact.
    let out = run(&dir, &words("polyfold -i verify changes.c"));
    assert!(
        text(&out.stderr).contains("unexpected argument '-i'"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(dir.join("changes.c")).expect("read"),
        CHANGES
    );
    // `--check` on a syntax error: the error, not "would change".
    let out = run(&dir, &words("polyfold --check bad.c"));
    let err = text(&out.stderr);
    assert!(err.contains("error[PF001]"), "{err}");
    assert!(!err.contains("would change"), "{err}");
    // A global option after the subcommand takes effect: `-q` silences the
    // PF038 warning about `-D N=12` against the file's `#define N 16`.
    let loud = run(&dir, &words("polyfold verify -D N=12 changes.c"));
    assert!(
        text(&loud.stderr).contains("warning[PF038]"),
        "{}",
        text(&loud.stderr)
    );
    for quiet in [
        "polyfold verify -D N=12 changes.c -q",
        "polyfold -q verify -D N=12 changes.c",
    ] {
        let out = run(&dir, &words(quiet));
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(text(&out.stderr), "", "{quiet}");
        assert_eq!(out.stdout, loud.stdout, "{quiet}");
    }
    let _ = fs::remove_dir_all(&dir);
}
