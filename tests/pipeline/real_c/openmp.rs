//! Class 5: OpenMP and `simd` pragmas wherever the preprocessor can put
//! them: in any branch of a conditional before a loop (`#ifdef _OPENMP`,
//! `#if USE_OMP` ... `#else` ..., `#if defined(_OPENMP)` ... `#elif`), in a
//! conditional that also holds code, and as `_Pragma("omp parallel for")`
//! in statement position (written out or through a macro). Each marks its
//! loop parallel whatever `-D` says, so the temporaries keep one cell per
//! iteration (and a `_Pragma("omp task")` keeps the SCoP's temporaries as
//! `#pragma omp task` does); the kernels of `cases/openmp/` check, independently of
//! polyfold's reasoning:
//! - the IR marks the loop parallel (its pragma's line, found by the test
//!   in the text), and the conditional does not make the loop "under
//!   `#if`" (no PF033 or PF022);
//! - the temporary's declaration, or its cell count against the number of
//!   iterations that are live at once (written by hand);
//! - the original and the output print the same when built with
//!   ASan+UBSan without OpenMP, with `-fopenmp` (4 threads), and, when the
//!   compiler supports it, with `-fopenmp -fsanitize=thread`: then
//!   ThreadSanitizer finds no race between two threads inside a parallel
//!   region of the output (nor of the original, which guards the filter),
//!   for every value of the build's macros (`-DUSE_OMP=0`, `=1`).
//!
//! Before the fix (the build of commit 591d9a9): `row` became three
//! rotating scalars and `acc` one scalar, shared by the threads
//! (ThreadSanitizer reported races in both outputs); the conditional inside
//! the time loop of `nested_conditional.c` and `deleted_copy.c` was an
//! unsupported statement (PF022, nothing folded); `_Pragma` was a syntax
//! error (PF001, nothing written).

use std::path::{Path, PathBuf};
use std::process::Command;

use polyfold_fuzz::check::{compile, scratch_dir};

use crate::common;

fn case_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_c/cases/openmp")
        .join(name)
}

fn read_case(name: &str) -> String {
    std::fs::read_to_string(case_path(name)).expect("readable kernel")
}

/// polyfold's output for a kernel, with extra arguments (`-D ...`).
fn polyfold(name: &str, args: &[&str]) -> String {
    let path = format!("tests/real_c/cases/openmp/{name}");
    let mut all = vec![path.as_str()];
    all.extend_from_slice(args);
    common::polyfold_stdout(&all)
}

/// The 1-based line of the first line of `source` containing `needle`.
fn line_containing(source: &str, needle: &str) -> usize {
    source
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in the kernel"))
        + 1
}

/// The declaration line of `name` in `text`, without the comment that
/// states a remapped array's mapping.
fn declaration(text: &str, name: &str) -> String {
    text.lines()
        .map(|l| l.split(" /* polyfold: ").next().unwrap_or(l).trim())
        .find(|l| {
            l.ends_with(';')
                && !l.contains('=')
                && !l.starts_with("for")
                && (l.contains(&format!(" {name}[")) || l.contains(&format!(" {name};")))
        })
        .unwrap_or_else(|| panic!("no declaration of `{name}` in:\n{text}"))
        .to_string()
}

/// Asserts that the statements of `kernel` that start with `stmt` are in a loop
/// of iterator `iterator` marked parallel by the pragma at `line`, and
/// that no diagnostic says a loop is under a conditional or that the
/// conditional is an unsupported statement.
fn assert_marked(kernel: &str, defines: &[(String, i64)], stmt: &str, iterator: &str, line: usize) {
    let source = read_case(kernel);
    let options = polyfold::frontend::Options {
        defines: defines.to_vec(),
        ..Default::default()
    };
    let program = polyfold::frontend::extract(kernel, &source, &options);
    for d in &program.diagnostics {
        assert!(
            !matches!(
                d.code,
                polyfold::diag::Code::SyntaxError
                    | polyfold::diag::Code::UnsupportedStatement
                    | polyfold::diag::Code::LoopsUnderConditional
            ),
            "{kernel}: {} {}",
            d.code,
            d.message
        );
    }
    let mut seen = 0;
    for scop in &program.scops {
        for st in &scop.stmts {
            if !st.body_text.starts_with(stmt) {
                continue;
            }
            seen += 1;
            let k = st
                .iterators
                .iter()
                .position(|it| it == iterator)
                .unwrap_or_else(|| {
                    panic!("{kernel}: `{}` is not in loop `{iterator}`", st.body_text)
                });
            let mark = st.parallel[k].as_ref().unwrap_or_else(|| {
                panic!(
                    "{kernel}: loop `{iterator}` of `{}` is not parallel",
                    st.body_text
                )
            });
            assert_eq!(mark.line(&source), line, "{kernel}: {mark:?}");
        }
    }
    assert!(seen > 0, "{kernel}: no statement `{stmt}...` in a SCoP");
}

/// Runs `exe` with 4 OpenMP threads; its standard output and error.
fn run(exe: &Path) -> (String, String) {
    let out = Command::new(exe)
        .env("OMP_NUM_THREADS", "4")
        .env("TSAN_OPTIONS", "exitcode=0")
        .output()
        .expect("the compiled program runs");
    assert!(
        out.status.success(),
        "{} failed ({}): {}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Builds the original kernel and `output` with each set of `-D` flags in
/// `configs`, each without OpenMP and with `-fopenmp` under ASan+UBSan,
/// and with ThreadSanitizer when available; both must run and print the
/// same, and the output must have no race inside a parallel region.
fn check_builds(kernel: &str, output: &str, configs: &[&[&str]]) {
    let name = kernel.trim_end_matches(".c");
    let dir = scratch_dir(&format!("real-c-openmp-{name}")).expect("scratch directory");
    let out_path = dir.join(format!("{name}.polyfold.c"));
    std::fs::write(&out_path, output).expect("write");
    let original = case_path(kernel);
    let asan = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"];
    for (c, defines) in configs.iter().enumerate() {
        let mut builds: Vec<(&str, Vec<&str>)> = vec![
            ("seq", asan.to_vec()),
            ("omp", [&asan[..], &["-fopenmp"]].concat()),
        ];
        if common::tsan::available() {
            builds.push(("tsan", vec!["-fopenmp", "-fsanitize=thread"]));
        }
        for (tag, flags) in builds {
            let mut all = vec!["-std=c11", "-O1", "-g", "-w"];
            all.extend_from_slice(&flags);
            all.extend_from_slice(defines);
            let exe_o = dir.join(format!("{name}.{c}.{tag}.orig.exe"));
            let exe_p = dir.join(format!("{name}.{c}.{tag}.polyfold.exe"));
            compile(&original, &exe_o, &all).unwrap_or_else(|e| {
                panic!("{kernel} {defines:?} ({tag}): the original does not compile: {e}")
            });
            compile(&out_path, &exe_p, &all).unwrap_or_else(|e| {
                panic!("{kernel} {defines:?} ({tag}): the output does not compile: {e}\n{output}")
            });
            let (expected, err_o) = run(&exe_o);
            let (actual, err_p) = run(&exe_p);
            if tag == "tsan" {
                assert_eq!(
                    common::tsan::races_inside_regions(&err_o),
                    0,
                    "{kernel}: the original itself races (or the filter is wrong):\n{err_o}"
                );
                assert_eq!(
                    common::tsan::races_inside_regions(&err_p),
                    0,
                    "{kernel} {defines:?}: ThreadSanitizer finds a race in the output:\n{output}\n{err_p}"
                );
            }
            assert_eq!(
                expected, actual,
                "{kernel} {defines:?} ({tag}): the output prints something else:\n{output}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ifdef_openmp_pragma_keeps_one_row_per_iteration() {
    let kernel = "ifdef_rows.c";
    let source = read_case(kernel);
    let line = line_containing(&source, "#pragma omp parallel for");
    assert_marked(kernel, &[], "row[i][j] =", "i", line);
    let output = polyfold(kernel, &[]);
    // Every iteration of `i` writes a whole row before reading it: all N
    // rows are live at once when the iterations run together.
    assert_eq!(declaration(&output, "row"), "unsigned row[N][M + 2];");
    check_builds(kernel, &output, &[&[]]);
}

#[test]
fn if_use_omp_counts_for_every_value_of_the_macro() {
    let kernel = "if_use_omp.c";
    let source = read_case(kernel);
    let omp = line_containing(&source, "#pragma omp parallel for");
    let ivdep = line_containing(&source, "#pragma GCC ivdep");
    // The pragma nearest the loop names it (the `#else` branch's); either
    // branch alone marks it.
    assert_marked(kernel, &[], "acc[i]", "i", ivdep);
    assert_marked(kernel, &[("USE_OMP".into(), 0)], "acc[i]", "i", ivdep);
    let without_else = source.replace("#else\n#pragma GCC ivdep\n", "");
    let program = polyfold::frontend::extract(kernel, &without_else, &Default::default());
    let marked = program
        .scops
        .iter()
        .flat_map(|s| s.stmts.iter())
        .filter(|st| st.body_text.starts_with("acc["))
        .all(|st| {
            st.parallel[0]
                .as_ref()
                .is_some_and(|m| m.line(&without_else) == omp)
        });
    assert!(marked, "the `#if USE_OMP` pragma alone marks the loop");
    // One running sum per row (the rows run at the same time), not one
    // scalar: `acc[N]`, for the file's USE_OMP and for -D USE_OMP=0.
    for args in [&[][..], &["-D", "USE_OMP=0"][..], &["-D", "USE_OMP=1"][..]] {
        let output = polyfold(kernel, args);
        assert_eq!(declaration(&output, "acc"), "double acc[N];", "{args:?}");
        check_builds(kernel, &output, &[&[], &["-DUSE_OMP=0"], &["-DUSE_OMP=1"]]);
    }
}

#[test]
fn pragma_operator_and_pragma_macro_mark_their_loops() {
    let kernel = "pragma_operator.c";
    let source = read_case(kernel);
    assert_marked(
        kernel,
        &[],
        "t[i] =",
        "i",
        line_containing(&source, "    _Pragma("),
    );
    assert_marked(
        kernel,
        &[],
        "u[i] =",
        "i",
        line_containing(&source, "    PARALLEL_FOR"),
    );
    let output = polyfold(kernel, &[]);
    // Sequentially each would be one scalar; in parallel every iteration
    // holds its own cell.
    assert_eq!(declaration(&output, "t"), "float t[N], u[N];");
    check_builds(kernel, &output, &[&[]]);
}

#[test]
fn conditional_pragma_inside_a_time_loop() {
    let kernel = "nested_conditional.c";
    let source = read_case(kernel);
    // The pragma nearest the loop names it: the `#elif` branch's.
    let line = line_containing(&source, "#pragma GCC ivdep");
    assert_marked(kernel, &[], "d[t][i] =", "i", line);
    let report = common::json_report(&["tests/real_c/cases/openmp/nested_conditional.c"]);
    // The time dimension folds; the parallel loop's 50 iterations write
    // 50 cells that are live together.
    assert_eq!(common::new_cells(&report, "d"), Some(50), "{report}");
    let output = polyfold(kernel, &[]);
    check_builds(kernel, &output, &[&[]]);
}

#[test]
fn pragma_in_a_conditional_with_code() {
    let kernel = "mixed_conditional.c";
    let source = read_case(kernel);
    let line = line_containing(&source, "#pragma omp parallel for");
    assert_marked(kernel, &[], "t[i] =", "i", line);
    let output = polyfold(kernel, &[]);
    assert_eq!(declaration(&output, "t"), "double t[N];");
    check_builds(kernel, &output, &[&[]]);
}

#[test]
fn a_deleted_loop_takes_its_conditional_pragma_along() {
    let kernel = "deleted_copy.c";
    let source = read_case(kernel);
    let line = line_containing(&source, "#pragma omp parallel for");
    assert_marked(kernel, &[], "a[t][j] =", "j", line);
    let output = polyfold(kernel, &[]);
    // The copy is gone (the only loop of `j` left is the first one), and
    // no pragma is left for the statement after it.
    assert_eq!(
        output.matches("for (j = 0; j < N; j++)").count(),
        1,
        "{output}"
    );
    for directive in ["#ifdef _OPENMP", "#pragma omp parallel for", "#endif"] {
        assert!(
            !output.lines().any(|l| l.trim() == directive),
            "`{directive}` is left:\n{output}"
        );
    }
    check_builds(kernel, &output, &[&[]]);
}

#[test]
fn task_pragma_operator_keeps_the_scratch() {
    let kernel = "pragma_operator_task.c";
    let output = polyfold(kernel, &[]);
    assert_eq!(declaration(&output, "t"), "double t[N], out[N];");
    let report = common::json_report(&["tests/real_c/cases/openmp/pragma_operator_task.c"]);
    assert_eq!(common::new_cells(&report, "t"), Some(40), "{report}");
    check_builds(kernel, &output, &[&[]]);
}
