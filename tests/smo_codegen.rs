//! The opt-in SMO path (`polyfold::pipeline_smo::contract_scop_smo`) on
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
fn contract(stem: &str) -> polyfold::pipeline_smo::SmoContraction {
    let text = std::fs::read_to_string(corpus(&format!("{stem}.c"))).expect("corpus file");
    let program = polyfold::frontend::extract(
        &format!("{stem}.c"),
        &text,
        &polyfold::frontend::Options::default(),
    );
    assert!(!program.has_errors(), "{stem} parses");
    let values = polyfold::pipeline::param_values(&program.scops[0]).expect("macro parameters");
    match polyfold::pipeline_smo::contract_scop_smo(&program, 0, &values) {
        Ok(c) => c,
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

fn check_runs(stem: &str, c: &polyfold::pipeline_smo::SmoContraction) {
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
    assert!(c.new_cells <= c.original_cells, "{}", c.report);
}
