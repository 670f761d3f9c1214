//! Issue 14, class 7: loops marked parallel (OpenMP, `simd`, `ivdep`).
//!
//! Each program of `tests/parallel/` has a temporary that sequential
//! lifetimes would fold across the iterations of a parallel loop (into one
//! row or one scalar shared by every thread or SIMD lane). For each one the
//! test checks, independently of polyfold's own reasoning:
//! - the declaration of the temporary in the output, against the one
//!   written by hand in the test (the parallel dimension is kept);
//! - the report's reason: the parallel loop and the line of its pragma
//!   (the line found by the test in the source text);
//! - the original and the output built with `-fopenmp
//!   -fsanitize=address,undefined` and run with 4 threads print the same;
//! - when the compiler supports it, both built with `-fopenmp
//!   -fsanitize=thread`: ThreadSanitizer finds no race between two threads
//!   inside the parallel region of the output (libgomp is not instrumented,
//!   so reports involving the code after the region are not counted; the
//!   original program is checked the same way, which guards the filter),
//!   and they print the same.
//!
//! Before the fix (checked with the build of commit 30c6a09), every program
//! here lost the parallel dimension (`row[M + 2]`, `t` and `u` as scalars,
//! `t` as one scalar for `collapse(2)` and for `nowait`, `acc` as one
//! scalar, `row[M + 2]` with `-D i=5` for the SCoP inside the parallel
//! loop), and ThreadSanitizer reported races between the threads of the
//! region on every threaded program, none on the originals.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common;
use polyfold::pipeline::{ArrayOutcome, FileContraction, KeptReason};
use polyfold_fuzz::check::{run_polyfold, scratch_dir};

fn case_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/parallel")
        .join(name)
}

fn read_case(name: &str) -> String {
    std::fs::read_to_string(case_path(name)).expect("readable test program")
}

fn contract(name: &str, source: &str, inter_array: bool) -> FileContraction {
    match run_polyfold(name, source, Duration::from_secs(120), (inter_array, false)) {
        Ok((c, _)) => c,
        Err(f) => panic!("{name}: polyfold failed: {:?}: {}", f.kind, f.detail),
    }
}

/// The declaration line of `name` in `text` (a line declaring `name` as an
/// array or a scalar, without an initialiser), without the comment that
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

/// The 1-based line of the first line of `source` containing `needle`.
fn line_containing(source: &str, needle: &str) -> usize {
    source
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in the program"))
        + 1
}

/// Compiles `source` with `cc -std=c11 -O1 -g -fopenmp` and `flags`.
fn compile(source: &Path, exe: &Path, flags: &[&str]) -> Result<(), String> {
    let mut all = vec!["-std=c11", "-O1", "-g", "-w", "-fopenmp"];
    all.extend_from_slice(flags);
    polyfold_fuzz::check::compile(source, exe, &all)
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

/// Builds and runs the original and the output; they must print the same,
/// and the output must be race-free under ThreadSanitizer when available.
fn check_runs(name: &str, original: &str, output: &str) {
    let dir = scratch_dir(&format!("parallel-{name}")).expect("scratch directory");
    let orig_path = dir.join(format!("{name}.c"));
    let out_path = dir.join(format!("{name}.polyfold.c"));
    std::fs::write(&orig_path, original).unwrap();
    std::fs::write(&out_path, output).unwrap();
    let asan = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"];
    let mut builds: Vec<(&str, Vec<&str>)> = vec![("asan", asan.to_vec())];
    if common::tsan::available() {
        builds.push(("tsan", vec!["-fsanitize=thread"]));
    }
    for (tag, flags) in builds {
        let exe_o = dir.join(format!("{name}.{tag}.orig.exe"));
        let exe_p = dir.join(format!("{name}.{tag}.polyfold.exe"));
        compile(&orig_path, &exe_o, &flags)
            .unwrap_or_else(|e| panic!("{name}: the original does not compile ({tag}): {e}"));
        compile(&out_path, &exe_p, &flags)
            .unwrap_or_else(|e| panic!("{name}: the output does not compile ({tag}): {e}"));
        let (expected, err_o) = run(&exe_o);
        let (actual, err_p) = run(&exe_p);
        if tag == "tsan" {
            assert_eq!(
                common::tsan::races_inside_regions(&err_o),
                0,
                "{name}: the original itself races (or the filter is wrong):\n{err_o}"
            );
            assert_eq!(
                common::tsan::races_inside_regions(&err_p),
                0,
                "{name}: ThreadSanitizer finds a race in polyfold's output:\n{output}\n{err_p}"
            );
        }
        assert_eq!(
            expected, actual,
            "{name} ({tag}): the output prints something else:\n{output}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The decision of `array` mentions the parallel loop `iterator` and the
/// line of its pragma.
fn check_reason(c: &FileContraction, source: &str, array: &str, iterator: &str, line: usize) {
    let d = c
        .decisions
        .iter()
        .find(|d| d.name == array)
        .unwrap_or_else(|| panic!("no decision for `{array}`"));
    assert!(
        !matches!(d.outcome, ArrayOutcome::External),
        "`{array}` must be a temporary"
    );
    assert!(
        d.parallel_loops
            .iter()
            .any(|(it, m)| it == iterator && m.line(source) == line),
        "`{array}`: the decision does not name loop `{iterator}` at line {line}: {:?}",
        d.parallel_loops
    );
}

/// Runs one case: expected declarations (array name, exact line), the
/// parallel loop's iterator and a text of its pragma line.
fn run_case(file: &str, expected: &[(&str, &str)], iterator: &str, pragma: &str) {
    let source = read_case(file);
    let name = file.trim_end_matches(".c");
    let line = line_containing(&source, pragma);
    for inter_array in [false, true] {
        let c = contract(name, &source, inter_array);
        for (array, decl) in expected {
            assert_eq!(
                declaration(&c.output, array),
                *decl,
                "{name} (inter-array: {inter_array}): the declaration of `{array}` lost the parallel dimension:\n{}",
                c.output
            );
            check_reason(&c, &source, array, iterator, line);
        }
        if inter_array {
            assert!(
                c.merged.is_empty(),
                "{name}: a SCoP with a parallel loop was merged"
            );
        } else {
            check_runs(name, &source, &c.output);
        }
    }
}

#[test]
fn scratch_row_of_a_parallel_loop_keeps_its_dimension() {
    run_case(
        "omp_row_scratch.c",
        &[("row", "unsigned row[N][M + 2];")],
        "i",
        "#pragma omp parallel for",
    );
}

#[test]
fn temporary_of_a_parallel_loop_does_not_become_a_shared_scalar() {
    run_case(
        "omp_scalar_temp.c",
        &[("t", "unsigned t[N];")],
        "i",
        "#pragma omp parallel for",
    );
}

#[test]
fn simd_and_ivdep_loops_keep_their_dimension() {
    run_case(
        "omp_simd_temp.c",
        &[("t", "float t[N];")],
        "i",
        "#pragma omp simd",
    );
    run_case(
        "omp_simd_temp.c",
        &[("u", "float u[N];")],
        "i",
        "#pragma GCC ivdep",
    );
}

#[test]
fn collapse_two_keeps_both_dimensions() {
    run_case(
        "omp_collapse.c",
        &[("t", "int t[N][M];")],
        "j",
        "#pragma omp parallel for collapse(2)",
    );
}

#[test]
fn the_other_dimension_still_folds() {
    // One cell per row: the recurrence reads acc[i][k - 1] before writing
    // acc[i][k] (same statement), so each row needs one location, and the
    // rows (parallel iterations) need distinct ones: N cells in all.
    run_case(
        "omp_inner_fold.c",
        &[("acc", "double acc[N];")],
        "i",
        "#pragma omp parallel for",
    );
}

#[test]
fn the_ir_records_parallel_loops() {
    let source = read_case("omp_collapse.c");
    let program = polyfold::frontend::extract(
        "omp_collapse.c",
        &source,
        &polyfold::frontend::Options::default(),
    );
    let line = line_containing(&source, "#pragma omp parallel for collapse(2)");
    let scop = program
        .scops
        .iter()
        .find(|s| s.stmts.iter().any(|st| st.body_text.starts_with("t[i][j]")))
        .expect("the parallel nest is a SCoP");
    let st = scop
        .stmts
        .iter()
        .find(|st| st.body_text.starts_with("t[i][j]"))
        .unwrap();
    assert_eq!(st.iterators, ["i", "j"]);
    assert!(
        st.parallel.iter().all(Option::is_some),
        "collapse(2) marks both loops: {:?}",
        st.parallel
    );
    let dump = polyfold::ir::emit_scop(scop, &source);
    let expected = format!(
        "# parallel: i (#pragma omp parallel for collapse(2) num_threads(4), line {line}), j (#pragma omp parallel for collapse(2) num_threads(4), line {line})"
    );
    assert!(dump.contains(&expected), "{dump}");
    // The initialisation loops before the pragma are not parallel.
    let init = scop
        .stmts
        .iter()
        .find(|st| st.body_text.starts_with("in[i][j]"));
    if let Some(init) = init {
        assert!(init.parallel.iter().all(Option::is_none));
    }
}

#[test]
fn scop_inside_a_parallel_loop_keeps_the_shared_array() {
    let file = "omp_enclosing_loop.c";
    let source = read_case(file);
    let options = polyfold::frontend::Options {
        defines: vec![("i".into(), 5)],
        ..Default::default()
    };
    let program = polyfold::frontend::extract(file, &source, &options);
    assert!(!program.has_errors());
    for inter_array in [false, true] {
        let contract_options = polyfold::pipeline::ContractOptions {
            inter_array,
            ..Default::default()
        };
        let c = polyfold::pipeline::contract_program(&program, &contract_options)
            .expect("contraction runs");
        assert_eq!(
            declaration(&c.output, "row"),
            "unsigned row[N][M + 2];",
            "inter-array: {inter_array}:\n{}",
            c.output
        );
        assert!(c.merged.is_empty());
        let d = c.decisions.iter().find(|d| d.name == "row").unwrap();
        let line = line_containing(&source, "#pragma omp parallel for");
        match &d.outcome {
            ArrayOutcome::Kept {
                why: why @ KeptReason::SharedByParallelLoop(pragma),
            } => assert!(
                pragma.contains(&format!("at line {line}")) && pragma.contains("loop `i`"),
                "{why}"
            ),
            other => panic!("`row` must be kept: {other:?}"),
        }
        check_runs("omp_enclosing_loop", &source, &c.output);
    }
}

#[test]
fn nowait_keeps_the_temporaries_of_the_scop() {
    let file = "omp_nowait.c";
    let source = read_case(file);
    let line = line_containing(&source, "#pragma omp for schedule(dynamic, 1) nowait");
    for inter_array in [false, true] {
        let c = contract("omp_nowait", &source, inter_array);
        assert_eq!(
            declaration(&c.output, "t"),
            "double t[2 * N];",
            "inter-array: {inter_array}:\n{}",
            c.output
        );
        assert!(c.merged.is_empty());
        let d = c.decisions.iter().find(|d| d.name == "t").unwrap();
        match &d.outcome {
            ArrayOutcome::Kept {
                why: why @ KeptReason::UnmodelledConcurrency(text),
            } => assert!(
                text.contains("nowait") && text.contains(&format!("line {line}")),
                "{why}"
            ),
            other => panic!("`t` must be kept: {other:?}"),
        }
        if !inter_array {
            check_runs("omp_nowait", &source, &c.output);
        }
    }
}
