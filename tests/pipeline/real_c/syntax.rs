//! Class 9: valid C that the front end rejected. The kernels of
//! `cases/syntax/` use qualifier macros (`double *RESTRICT p`, `in[RESTRICT
//! N]` with `RESTRICT` defined as `__restrict` or as nothing), attribute
//! macros on parameters and locals (`int UNUSED n`, `ALIGNED(16)`),
//! `STATIC_INLINE`, an empty macro before a parameter name, loops written
//! through statement macros (`FOR(i, 0, N) body`, `FOR_DOWN`), and
//! `_Pragma` at file scope before a function, in statement position and
//! before a loop (also through a macro on the loop's line). Each must
//! parse; the temporaries fold where they soundly can (checked against
//! counts written by hand); the macro calls stay in the text; and the
//! output, built with ASan and UBSan, prints what the original prints.
//!
//! Before the fix (the build of commit 591d9a9) every kernel here was
//! `error[PF001]: syntax error` and nothing was written.

use std::path::{Path, PathBuf};

use crate::common;

fn case_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_c/cases/syntax")
        .join(name)
}

fn read_case(name: &str) -> String {
    std::fs::read_to_string(case_path(name)).expect("readable kernel")
}

/// The file parses: no error diagnostic.
fn assert_parses(kernel: &str) -> polyfold::ir::Program {
    let source = read_case(kernel);
    let program = polyfold::frontend::extract(kernel, &source, &Default::default());
    assert!(
        !program.has_errors(),
        "{kernel}: {:?}",
        program
            .diagnostics
            .iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect::<Vec<_>>()
    );
    program
}

/// polyfold's output and JSON report for a kernel; the output must run
/// like the original under ASan and UBSan.
fn transform(kernel: &str) -> (String, serde_json::Value) {
    let path = format!("tests/real_c/cases/syntax/{kernel}");
    let output = common::polyfold_stdout(&[path.as_str()]);
    let report = common::json_report(&[path.as_str()]);
    common::assert_runs_like_original(
        &case_path(kernel),
        kernel.trim_end_matches(".c"),
        "real-c-syntax",
        &output,
    );
    (output, report)
}

/// The lines of `text` that contain `needle`, trimmed.
fn lines_with<'t>(text: &'t str, needle: &str) -> Vec<&'t str> {
    text.lines()
        .filter(|l| l.contains(needle))
        .map(str::trim)
        .collect()
}

#[test]
fn loops_written_through_a_macro_are_analysed_and_keep_their_calls() {
    let kernel = "for_macro_rows.c";
    let program = assert_parses(kernel);
    // The nest of `blur_rows` is one SCoP, with the FOR loops' iterators.
    let scop = program
        .scops
        .iter()
        .find(|s| s.function == "blur_rows")
        .expect("blur_rows has a SCoP");
    let st = scop
        .stmts
        .iter()
        .find(|s| s.body_text.starts_with("result[r][c]"))
        .expect("the FOR_DOWN loop's statement");
    assert_eq!(st.iterators, ["r", "c"]);
    let (output, report) = transform(kernel);
    // `tmp` is rewritten for every `r`: one row of COLS cells.
    assert_eq!(common::new_cells(&report, "tmp"), Some(40), "{report}");
    // The macro calls are still the loops' headers.
    let source = read_case(kernel);
    for call in [
        "FOR(r, 0, ROWS)",
        "FOR(c, 0, COLS)",
        "FOR_DOWN(c, COLS - 1, 1)",
    ] {
        assert_eq!(
            lines_with(&output, call),
            lines_with(&source, call),
            "`{call}`:\n{output}"
        );
    }
}

#[test]
fn restrict_macro_parses_and_the_scratch_folds() {
    let kernel = "restrict_macro.c";
    assert_parses(kernel);
    let (output, report) = transform(kernel);
    // `t[i]` is read in the iteration that writes it once the two loops
    // are fused: one cell.
    assert_eq!(common::new_cells(&report, "t"), Some(1), "{report}");
    assert!(output.contains("double *RESTRICT last)"), "{output}");
}

#[test]
fn attribute_and_qualifier_macros_parse() {
    let kernel = "attribute_macros.c";
    assert_parses(kernel);
    let (output, report) = transform(kernel);
    // Each row is read at `c` and `c - 1` right after it is written, once
    // the loops of `c` fuse; rotating scalars driven by that inner loop
    // are refused by default (the cost rules), so the rows stay apart and
    // one row of W = 33 cells is live (`--min-memory`: two cells).
    assert_eq!(common::new_cells(&report, "row"), Some(33), "{report}");
    assert!(output.contains("int ALIGNED(16) row["), "{output}");
    assert!(output.contains("static void rows(int UNUSED flags, int CONSTVAR gain)"));
}

#[test]
fn pragma_operator_at_file_scope_between_statements_and_before_loops() {
    let kernel = "pragma_positions.c";
    let program = assert_parses(kernel);
    // Both hinted loops are parallel, the others are not.
    let source = read_case(kernel);
    let scop = &program.scops[0];
    for (stmt, parallel) in [("t[i] =", true), ("c[i] =", true), ("u[i] =", false)] {
        let st = scop
            .stmts
            .iter()
            .find(|s| s.body_text.starts_with(stmt))
            .unwrap_or_else(|| panic!("no `{stmt}`"));
        assert_eq!(st.parallel[0].is_some(), parallel, "{stmt}");
        if let Some(mark) = &st.parallel[0] {
            assert_eq!(mark.directive, "GCC ivdep");
            let line = source.lines().nth(mark.line(&source) - 1).unwrap().trim();
            assert!(
                line == "_Pragma(\"GCC ivdep\")" || line.starts_with("SIMD for"),
                "{stmt}: {line}"
            );
        }
    }
    let (_, report) = transform(kernel);
    // The hinted loop's temporary keeps one cell per iteration; the plain
    // loops' one is read at `i` and `i - 1` only: two cells.
    assert_eq!(common::new_cells(&report, "t"), Some(100), "{report}");
    assert_eq!(common::new_cells(&report, "u"), Some(2), "{report}");
}
