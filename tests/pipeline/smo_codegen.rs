//! The SMO path (`polyfold::pipeline::merged::contract_scop_smo`) on
//! corpus programs: the transformed program must compile with
//! `cc -std=c11 -O2 -Wall -Werror`, run, and print exactly the committed
//! `corpus/NAME.stdout` of the original; the trace check inside the pipeline
//! must have compared reads; the sizes are compared with hand-computed
//! values (seed 000 Table 1 and the corpus README).

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(file)
}

/// Runs the SMO path on the first SCoP of `stem.c` with the parameter
/// values of its macros.
fn contract(stem: &str) -> polyfold::pipeline::merged::SmoContraction {
    let text = std::fs::read_to_string(corpus(&format!("{stem}.c"))).expect("corpus file");
    let program = polyfold::frontend::extract(
        &format!("{stem}.c"),
        &text,
        &polyfold::frontend::Options::default(),
    );
    assert!(!program.has_errors(), "{stem} parses");
    let values = polyfold::pipeline::param_values(&program.scops[0]).expect("macro parameters");
    match polyfold::pipeline::merged::contract_scop_smo(&program, 0, &values) {
        Ok(c) => c.merged().expect("merged storage").clone(),
        Err(why) => panic!("{stem}: SMO path failed: {why}"),
    }
}

/// Compiles `text` and returns its standard output.
fn compile_and_run(stem: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("polyfold-smo-{}-{stem}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let src = dir.join(format!("{stem}.c"));
    let exe = dir.join(stem);
    std::fs::write(&src, text).expect("write source");
    let out = Command::new("cc")
        .args(["-std=c11", "-O2", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg("-lm")
        .output()
        .expect("cc must be installed");
    assert!(
        out.status.success(),
        "{stem}: transformed program does not compile:\n{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("run");
    assert!(run.status.success(), "{stem}: transformed program failed");
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(run.stdout).expect("utf-8 output")
}

fn check_runs(stem: &str, c: &polyfold::pipeline::merged::SmoContraction) {
    let expected = std::fs::read_to_string(corpus(&format!("{stem}.stdout"))).expect("stdout file");
    assert_eq!(
        compile_and_run(stem, &c.output),
        expected,
        "{stem}:\n{}",
        c.output
    );
    assert!(
        c.reads_checked > 0,
        "{stem}: the trace check compared reads"
    );
}

#[test]
fn pingpong1d_folds_both_grids_and_deletes_the_copy_loop() {
    let c = contract("pingpong1d");
    println!("{}\n{}", c.report, c.output);
    check_runs("pingpong1d", &c);
    // P[N+2] + Q[N+2] with N = 64.
    assert_eq!(c.original_cells, 2 * 66);
    // The grids P and Q are no longer declared.
    assert!(!c.output.contains("double P["));
    assert!(!c.output.contains("double Q["));
    // Seed 000 Table 1: N + 1 cells for the time-iterated values (N = 64;
    // at the copy S2(t, i), P(t, i), Q(t−1, i+1..N) and Q(t, 1..i−1) are
    // live: N + 1 values), plus one cell each for the boundary values Q[0]
    // and Q[N+1], read at every step and never rewritten.
    assert_eq!(c.new_cells, 65 + 2, "{}", c.report);
    // The same count is the most values live at once: the result is optimal.
    assert_eq!(c.lower_bound, Some(65 + 2), "{}", c.report);
    // The copy loop `Q[i] = P[i]` is deleted (seed 000 Fig. 1c).
    assert_eq!(c.removed.len(), 1, "{:?}", c.removed);
    assert!(
        c.removed[0].starts_with("for") && c.removed[0].contains("Q[i] = P[i];"),
        "{:?}",
        c.removed
    );
}

#[test]
fn jacobi2d_smoothing_runs_identically() {
    let c = contract("jacobi2d_smoothing");
    println!("{}", c.report);
    check_runs("jacobi2d_smoothing", &c);
    assert!(c.new_cells <= c.original_cells, "{}", c.report);
}

/// A copy between two temporaries that SMO folds onto one buffer: the
/// copy becomes `buf[i] = buf[i]` and is deleted with its loop. The
/// expected output is the original program's own (compiled here too).
#[test]
fn a_folded_copy_is_deleted_with_its_loop() {
    let text = "#include <stdio.h>\n\
#pragma GCC diagnostic ignored \"-Wunknown-pragmas\"\n\
#define N 20\n\
static void kernel(const double in[N], double out[N])\n\
{\n\
    int i;\n\
    double A[N];\n\
    double B[N];\n\
#pragma scop\n\
    for (i = 0; i < N; i++)\n\
        A[i] = 2.0 * in[i] + 1.0;\n\
    for (i = 0; i < N; i++) {\n\
        B[i] = A[i];\n\
    }\n\
    for (i = 0; i < N; i++)\n\
        out[i] = B[i] * B[i];\n\
#pragma endscop\n\
}\n\
int main(void)\n\
{\n\
    double in[N], out[N];\n\
    int i;\n\
    for (i = 0; i < N; i++)\n\
        in[i] = (double)(i * 7 % 5);\n\
    kernel(in, out);\n\
    for (i = 0; i < N; i++)\n\
        printf(\"%g\\n\", out[i]);\n\
    return 0;\n\
}\n";
    let program =
        polyfold::frontend::extract("copy.c", text, &polyfold::frontend::Options::default());
    assert!(!program.has_errors());
    let values = polyfold::pipeline::param_values(&program.scops[0]).expect("macro parameters");
    let certified = polyfold::pipeline::merged::contract_scop_smo(&program, 0, &values)
        .unwrap_or_else(|why| panic!("SMO path failed: {why}"));
    let c = certified.merged().expect("merged storage");
    println!("{}\n{}", c.report, c.output);
    assert_eq!(
        compile_and_run("copy", &c.output),
        compile_and_run("copy_original", text)
    );
    // A[20] and B[20] become one buffer of 20 cells (the copy's value is
    // the same value: it needs no cell of its own).
    assert_eq!(c.original_cells, 40);
    assert_eq!(c.new_cells, 20, "{}", c.report);
    assert_eq!(c.removed.len(), 1, "{:?}", c.removed);
    assert!(c.removed[0].starts_with("for") && c.removed[0].ends_with('}'));
    assert!(!c.output.contains("B[i]") && !c.output.contains("A[i]"));
    assert!(c.reads_checked > 0);
}

/// Why pingpong1d needs its initialisation split: the initialisation
/// statement S0 writes the boundary values Q[0] and Q[N+1], which stay live
/// through the whole time loop, in the same statement as the interior
/// values. One affine hyperplane per statement cannot give those two values
/// a home outside the sliding window `(i - t) mod (N + 1)` of S1 and S2.
/// Without S0's values (the published heat-1d specification has no
/// initialisation), the same engine on the same SCoP-derived conflicts of
/// S1 and S2 reaches Table 1's N + 1.
#[test]
fn pingpong1d_without_the_initialisation_reaches_n_plus_1() {
    use polyfold::analysis::dataflow::compute_dataflow;
    use polyfold::mapping::smo::conflicts::global_conflicts;
    use polyfold::mapping::smo::{SmoOptions, SmoVerdict, certify_fixed, smo_solve};
    let text = std::fs::read_to_string(corpus("pingpong1d.c")).expect("corpus file");
    let program = polyfold::frontend::extract(
        "pingpong1d.c",
        &text,
        &polyfold::frontend::Options::default(),
    );
    let scop = &program.scops[0];
    let values = polyfold::pipeline::param_values(scop).expect("macro parameters");
    let flow = compute_dataflow(scop).expect("dataflow");
    // S1 computes P, S2 copies it back into Q.
    assert_eq!(scop.array(scop.stmts[1].write.array).name, "P");
    assert_eq!(scop.array(scop.stmts[2].write.array).name, "Q");
    let spec = global_conflicts(scop, &flow, &[1, 2])
        .expect("no error")
        .expect("exact");
    let sol = smo_solve(&spec, &SmoOptions::default())
        .expect("no error")
        .expect("a mapping");
    assert_eq!(certify_fixed(&spec, &sol, &values), SmoVerdict::Valid);
    // N = 64: N + 1 cells (seed 000 Table 1).
    assert_eq!(sol.size(&values).expect("size"), 65, "{:?}", sol.arrays);
}

/// The standard output of `polyfold --inter-array --min-memory EXTRA...
/// PATH`, which must exit with status 0. `--min-memory`: the stencils'
/// merged accesses select their buffer by conditionals on the iterators,
/// which the cost rule refuses by default (`tests/analysis/cost_rule.rs`).
fn polyfold_inter_array(path: &Path, extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        // Merged buffers on the loops as written (fused, the stencils'
        // arrays fold alone: tests/pipeline/fusion.rs).
        .args([
            "--inter-array",
            "--min-memory",
            "--pin-sizes",
            "--no-fusion",
        ])
        .args(extra)
        .arg(path)
        .output()
        .expect("the binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The command line: `polyfold --inter-array` merges pingpong1d's grids
/// (67 cells instead of the 130 of folding P and Q alone), deletes the
/// copy loop, needs no pin (the buffers are proven for every N and T:
/// `(N + 1) + 1 + 1` cells), and the output runs identically;
/// `--report json` tells both sizes.
#[test]
fn inter_array_on_the_command_line() {
    let path = corpus("pingpong1d.c");
    let run = |extra: &[&str]| polyfold_inter_array(&path, extra);
    let output = run(&[]);
    assert!(!output.contains("Q[i] = P[i]"), "{output}");
    assert!(!output.contains("double P[") && !output.contains("double Q["));
    assert!(!output.contains("_Static_assert"), "{output}");
    assert!(output.contains("% (N + 1)"), "{output}");
    let expected = std::fs::read_to_string(corpus("pingpong1d.stdout")).expect("stdout file");
    assert_eq!(compile_and_run("pingpong1d_cli", &output), expected);
    let report: serde_json::Value =
        serde_json::from_str(&run(&["--report", "json"])).expect("json");
    let merged = &report["files"][0]["merged"][0];
    assert_eq!(merged["merged_cells"], 67, "{report}");
    assert_eq!(merged["every_value"], true, "{report}");
    assert_eq!(merged["new_formula"], "(N + 1) + 1 + 1", "{report}");
    // P: 64 cells (successive modulo keeps P[1..N]; --min-memory takes
    // it), Q: 66 (all of it is live at the start): the per-array result
    // that merging must beat.
    assert_eq!(merged["per_array_cells"], 64 + 66, "{report}");
}

/// `--inter-array` on the other stencils of seed 000 Table 1: the merged
/// buffers need exactly as many cells as values of the temporaries are
/// live at once (the joint max-live, an independent sweep over the
/// original program's operations: no storage can do with fewer) for the
/// 2-d and 3-d ping-pong stencils, and no more than Table 1's (N + 2)·N
/// for jacobi-2d smoothing (N = 64; its max-live is 4159); every output
/// runs identically.
#[test]
fn inter_array_reaches_the_live_bound_on_the_stencils() {
    // (kernel, per-array cells, bound on the merged cells or None for
    // "equal to the live bound").
    let cases: [(&str, Option<i64>); 3] = [
        ("pingpong2d", None),
        ("pingpong3d", None),
        ("jacobi2d_smoothing", Some(66 * 64)),
    ];
    for (kernel, table_1) in cases {
        let path = corpus(&format!("{kernel}.c"));
        let run = |extra: &[&str]| polyfold_inter_array(&path, extra);
        let report: serde_json::Value =
            serde_json::from_str(&run(&["--report", "json"])).expect("json");
        let merged = &report["files"][0]["merged"][0];
        let cells = merged["merged_cells"].as_i64().expect("merged cells");
        let bound = merged["lower_bound"].as_i64().expect("lower bound");
        assert!(cells >= bound, "{kernel}: {merged}");
        match table_1 {
            None => assert_eq!(cells, bound, "{kernel}: {merged}"),
            Some(t) => assert!(cells <= t, "{kernel}: {merged}"),
        }
        assert!(
            cells < merged["per_array_cells"].as_i64().expect("per-array"),
            "{kernel}"
        );
        let output = run(&[]);
        let expected =
            std::fs::read_to_string(corpus(&format!("{kernel}.stdout"))).expect("stdout file");
        assert_eq!(
            compile_and_run(&format!("{kernel}_inter_array"), &output),
            expected,
            "{kernel}"
        );
    }
}
