//! Class 8: macros by position. A use of a macro takes the definition in
//! force at its point of the file, for the analysis (parameter values,
//! bodies, whether a body is one operand) and for every pin printed. The
//! kernels of `cases/macros/` redefine a size between two functions, a
//! compound macro between two functions, a size between a global array
//! and the function that uses it, and a size inside a function body. The
//! expected pins, cell counts and diagnostics are written by hand from
//! the definitions in force; each output, built with ASan and UBSan, must
//! print what the original prints.
//!
//! Before the fix (the build of commit 591d9a9) every function was
//! analysed with the file's last definitions: `first` of
//! `redefined_size.c` got `_Static_assert(N == 4, ...)`, which does not
//! compile where N is 10; `first` of `compound_by_position.c` printed
//! `d[i % N]` with `#define N 40+10` in force there (`i % 40 + 10`: two
//! parallel iterations share a cell, the output printed another sum).

use std::path::{Path, PathBuf};

use crate::common;

fn case_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_c/cases/macros")
        .join(name)
}

fn read_case(name: &str) -> String {
    std::fs::read_to_string(case_path(name)).expect("readable kernel")
}

/// polyfold's output for a kernel, checked to run like the original.
fn transform(kernel: &str) -> String {
    let path = format!("tests/real_c/cases/macros/{kernel}");
    let output = common::polyfold_stdout(&["--pin-sizes", path.as_str()]);
    common::assert_runs_like_original(
        &case_path(kernel),
        kernel.trim_end_matches(".c"),
        "real-c-macros",
        &output,
    );
    output
}

/// The text of function `name` in `text` (from its definition line to the
/// next line that is a lone `}`).
fn function_text<'t>(text: &'t str, name: &str) -> &'t str {
    let start = text
        .find(&format!(" {name}("))
        .unwrap_or_else(|| panic!("no function `{name}`"));
    let end = text[start..]
        .find("\n}\n")
        .map_or(text.len(), |k| start + k + 3);
    &text[start..end]
}

#[test]
fn each_function_takes_the_size_in_force_where_it_is() {
    let kernel = "redefined_size.c";
    let output = transform(kernel);
    // N is 10 in `first`, 4 in `second`: each scratch keeps one row of
    // its N cells. `first` reads `t[N * i + N - 1 - j]`, whose column
    // `-1 - j` leaves the row: read as written, with N's value, its
    // storage is certified for that N and pinned to it. `second`'s
    // subscripts are a row of N plus a column in 0 .. N - 1: read as the
    // table `u[N][N]` (see `frontend::linear_local`), its row `i` is
    // written and read in step `i`, so one row `u[N]` holds for every N.
    let first = function_text(&output, "first");
    let second = function_text(&output, "second");
    assert!(first.contains("double t[10];"), "{first}");
    assert!(first.contains("_Static_assert(N == 10,"), "{first}");
    assert!(second.contains("double u[N];"), "{second}");
    assert!(!second.contains("_Static_assert"), "{second}");
    // The front end gives each SCoP the value in force.
    let source = read_case(kernel);
    let program = polyfold::frontend::extract(kernel, &source, &Default::default());
    let value = |function: &str| {
        program
            .scops
            .iter()
            .find(|s| s.function == function)
            .and_then(|s| s.params.iter().find(|p| p.name == "N"))
            .and_then(|p| p.value)
    };
    assert_eq!(value("first"), Some(10));
    assert_eq!(value("second"), Some(4));
}

#[test]
fn a_compound_macro_is_parenthesised_where_it_is_compound() {
    let kernel = "compound_by_position.c";
    let output = transform(kernel);
    // `#define N 40+10` is in force in `first`: every N printed there is
    // an operand in parentheses.
    let first = function_text(&output, "first");
    assert!(first.contains("d[i % (N)]"), "{first}");
    assert!(!first.contains("% N]"), "{first}");
}

#[test]
fn an_array_declared_under_another_definition_is_left_alone() {
    let kernel = "global_redefined.c";
    let source = read_case(kernel);
    let program = polyfold::frontend::extract(kernel, &source, &Default::default());
    let d = program
        .diagnostics
        .iter()
        .find(|d| d.code == polyfold::diag::Code::MacroMeaningChanged)
        .expect("PF041 says why the SCoP is left out");
    assert!(
        d.message.contains("`N`") && d.message.contains("`g`"),
        "{}",
        d.message
    );
    assert!(program.scops.iter().all(|s| s.function != "rows"));
    assert_eq!(transform(kernel), source);
}

#[test]
fn a_define_inside_a_function_makes_the_name_unknown_there() {
    let kernel = "define_in_body.c";
    let source = read_case(kernel);
    let program = polyfold::frontend::extract(kernel, &source, &Default::default());
    // M is 8 before the `#define` and 3 after it: no loop of `diag` that
    // uses M is analysed with either.
    assert!(program.scops.iter().all(|s| s.function != "diag"));
    assert!(
        program
            .diagnostics
            .iter()
            .any(|d| d.code == polyfold::diag::Code::NonAffineBound && d.message.contains("`M`")),
        "{:?}",
        program.diagnostics
    );
    assert_eq!(transform(kernel), source);
}
