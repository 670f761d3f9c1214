//! Issue 14, classes 4 and 5: a value that the mapping depends on must be
//! proven for every value or pinned, and values must come from the active
//! preprocessor branch.
//!
//! Each program of `tests/miscompile_values/` is contracted with the `-D`
//! values polyfold is given, then the original and the output are built with
//! `cc -O1 -fsanitize=address,undefined` with the sizes polyfold saw AND with
//! other sizes, run, and their outputs compared. A build of the output with
//! other sizes may only fail on polyfold's own `_Static_assert` (the pin);
//! with the sizes polyfold saw it must build and print the same.
//! Every case failed before the fix (a different result, or a failing pin in
//! the build polyfold was told about).

use std::path::Path;
use std::time::Duration;

use polyfold::driver::{RunOptions, run_source};
use polyfold_fuzz::check::{run_with_limit, scratch_dir};

/// Builds `source_path` with the sanitizers and `flags`; the error text when
/// it does not compile.
fn build(source_path: &Path, exe: &Path, flags: &[&str]) -> Result<(), String> {
    let mut all = vec![
        "-std=c11",
        "-O1",
        "-w",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
    ];
    all.extend_from_slice(flags);
    polyfold_fuzz::check::compile(source_path, exe, &all)
}

/// One case: the file, the `-D` values given to polyfold, and the builds
/// (`cc` flags) to compare; `true` marks a build with the sizes polyfold saw.
fn check(name: &str, defines: &[(&str, i64)], builds: &[(&[&str], bool)]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/miscompile_values");
    let source = std::fs::read_to_string(dir.join(name)).expect("readable case");
    let options = RunOptions {
        defines: defines.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        // The pins are what these cases check.
        pin_sizes: true,
        ..RunOptions::default()
    };
    let out = run_source(name, &source, &options);
    assert_eq!(out.code, 0, "{name}: polyfold failed: {}", out.stderr);
    // The VLA case must keep its array (its parameter cannot be pinned);
    // the others are contracted and pinned.
    if name != "vla_half.c" {
        assert_ne!(out.stdout, source, "{name}: polyfold changed nothing");
    }
    let scratch = scratch_dir("miscompile_values").expect("scratch directory");
    let tag = name.trim_end_matches(".c");
    let original = dir.join(name);
    let output = scratch.join(format!("{tag}.out.c"));
    std::fs::write(&output, &out.stdout).expect("write the output");
    for (k, (flags, seen)) in builds.iter().enumerate() {
        let exe_a = scratch.join(format!("{tag}.{k}.orig"));
        let exe_b = scratch.join(format!("{tag}.{k}.new"));
        build(&original, &exe_a, flags).expect("the original builds");
        let want = run_with_limit(&exe_a, Duration::from_secs(20)).expect("the original runs");
        match build(&output, &exe_b, flags) {
            Ok(()) => {
                let got = run_with_limit(&exe_b, Duration::from_secs(20))
                    .unwrap_or_else(|e| panic!("{name} {flags:?}: the output fails: {e}"));
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{name} {flags:?}: the output prints something else\n{}",
                    out.stdout
                );
            }
            Err(e) => {
                assert!(
                    !seen,
                    "{name} {flags:?}: the output does not build with the sizes polyfold saw:\n{e}"
                );
                assert!(
                    e.contains("polyfold: the storage"),
                    "{name} {flags:?}: the output fails to build, not on polyfold's pin:\n{e}"
                );
            }
        }
    }
}

#[test]
fn half_of_a_define_is_pinned() {
    check(
        "half_of_define.c",
        &[],
        &[(&[], true), (&["-DN=100"], false), (&["-DN=7"], false)],
    );
}

#[test]
fn remainder_of_a_define_is_pinned() {
    check(
        "remainder_of_define.c",
        &[],
        &[(&[], true), (&["-DN=100"], false), (&["-DN=47"], false)],
    );
}

#[test]
fn vla_size_from_the_command_line_is_not_trusted_for_other_calls() {
    // `-D n=64` is a fact for the fixed-size search only: `kernel` is also
    // called with n = 200, and a function parameter cannot be pinned.
    check("vla_half.c", &[("n", 64)], &[(&[], true)]);
}

#[test]
fn sizes_come_from_the_active_preprocessor_branch() {
    check(
        "ifdef_dataset.c",
        &[],
        &[(&[], true), (&["-DSMALL_DATASET"], false)],
    );
    check(
        "ifdef_dataset.c",
        &[("SMALL_DATASET", 1)],
        &[(&["-DSMALL_DATASET"], true), (&[], false)],
    );
}
