//! Class 1 of issue 45: calls are not pure unless proven. A call that may
//! write memory keeps its order with every other call and with every
//! access to memory a call can reach; a call that may read memory keeps
//! its order with the writes of such memory; calls proven to touch no
//! memory (`<math.h>`, a body that only computes, `const`) move freely.
//! Each kernel's output is run against the original under ASan/UBSan;
//! the fused forms of the kernels that must not fuse print other values
//! (checked by hand with the build before this class was fixed).

use std::path::{Path, PathBuf};

use polyfold::frontend::{Options, extract};
use polyfold::poly::Budget;
use polyfold::schedule::check::Origin;

use crate::common;

/// The kernel `name` of `tests/real_c/cases/<class>/`.
pub(crate) fn case(class: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_c/cases")
        .join(class)
        .join(format!("{name}.c"))
}

/// polyfold's output for a case and its text report's lines about SCoPs.
pub(crate) fn transform(path: &Path) -> (String, Vec<String>) {
    let p = path.to_str().expect("utf-8 path");
    let output = common::polyfold_stdout(&[p]);
    let report = common::polyfold_stdout(&["--report", "text", "--no-timings", p]);
    let lines = report
        .lines()
        .filter(|l| l.trim_start().starts_with("SCoP "))
        .map(|l| l.trim().to_string())
        .collect();
    (output, lines)
}

/// Checks a case: whether its loops are fused (`fused`), the reason the
/// report gives when they are not (`reason`, a part of the line), and that
/// the output runs like the original.
pub(crate) fn check(class: &str, name: &str, fused: bool, reason: Option<&str>) {
    let path = case(class, name);
    let (output, lines) = transform(&path);
    let was_fused = lines
        .iter()
        .any(|l| l.contains(" fused (") && !l.contains("not fused"));
    assert_eq!(was_fused, fused, "{name}: report {lines:#?}\n{output}");
    if let Some(r) = reason {
        assert!(
            lines
                .iter()
                .any(|l| l.contains("not fused") && l.contains(r)),
            "{name}: no `not fused` line naming {r:?}: {lines:#?}"
        );
    }
    runs_like_original(&path, name, &output);
}

/// Builds the original and `output` with ASan/UBSan (and libm), runs
/// both and asserts that they print the same.
pub(crate) fn runs_like_original(path: &Path, name: &str, output: &str) {
    use polyfold_fuzz::check::{Build, build_and_run, scratch_dir};
    let scratch = scratch_dir(&format!("real-c-{name}")).expect("scratch directory");
    let output_path = scratch.join(format!("{name}.polyfold.c"));
    std::fs::write(&output_path, output).expect("write");
    let build = Build {
        flags: vec!["-Wl,--no-as-needed".into(), "-lm".into()],
        env: Vec::new(),
        changes_sizes: false,
        runs: 1,
    };
    let limit = std::time::Duration::from_secs(20);
    let expected = build_and_run(path, name, &scratch, true, limit, Some(&build))
        .unwrap_or_else(|(_, e)| panic!("{name}: the original fails: {e}"));
    let actual = build_and_run(&output_path, "out", &scratch, true, limit, Some(&build))
        .unwrap_or_else(|(_, e)| panic!("{name}: the output fails: {e}\n{output}"));
    let _ = std::fs::remove_dir_all(&scratch);
    assert_eq!(
        String::from_utf8_lossy(&actual),
        String::from_utf8_lossy(&expected),
        "{name}: output:\n{output}"
    );
}

#[test]
fn a_generator_drawn_in_two_loops_keeps_the_loops_apart() {
    check(
        "calls",
        "noise_two_loops",
        false,
        Some("`noise()` may write memory"),
    );
}

#[test]
fn a_sum_read_through_a_call_waits_for_the_loop_that_adds() {
    check(
        "calls",
        "total_through_call",
        false,
        Some("`get_total()` may read memory"),
    );
}

#[test]
fn a_draw_between_loops_is_not_moved_before_the_loop_that_draws() {
    check(
        "calls",
        "draw_between_loops",
        false,
        Some("`noise()` may write memory"),
    );
}

#[test]
fn a_call_inside_an_object_macro_counts() {
    check(
        "calls",
        "draw_in_macro",
        false,
        Some("`next_value()` may write memory"),
    );
}

#[test]
fn a_pure_function_reading_a_global_keeps_its_order_with_the_writes() {
    check(
        "calls",
        "pure_reader",
        false,
        Some("`peek()` may read memory"),
    );
}

#[test]
fn math_functions_pure_bodies_and_const_attributes_still_fuse() {
    check("calls", "pure_calls_move", true, None);
    let (output, _) = transform(&case("calls", "pure_calls_move"));
    assert!(
        output.contains("double t; /* polyfold: t[i] -> t */"),
        "the temporary folds to one cell once fused:\n{output}"
    );
}

/// The trace check sees a fusion that interleaves two loops' calls, though
/// every read sees the value it saw (the cells alone do not tell).
#[test]
fn the_trace_check_catches_calls_that_change_their_order() {
    let head = "#define N 5\nstatic unsigned s = 1u;\n\
static double noise(void) { s = s * 5u + 1u; return s; }\n\
static void k(double out[N])\n{\n    int i;\n    double t[N];\n#pragma scop\n";
    let original = format!(
        "{head}    for (i = 0; i < N; i++)\n        t[i] = noise();\n    \
for (i = 0; i < N; i++)\n        out[i] = t[i] * noise();\n#pragma endscop\n}}\n"
    );
    let fused = format!(
        "{head}    for (i = 0; i < N; i++) {{\n        t[i] = noise();\n        \
out[i] = t[i] * noise();\n    }}\n#pragma endscop\n}}\n"
    );
    let o = extract("o.c", &original, &Options::default());
    let f = extract("f.c", &fused, &Options::default());
    let order = vec![
        Origin::shifted(0, &[0], 1).expect("shift"),
        Origin::shifted(1, &[0], 1).expect("shift"),
    ];
    polyfold::schedule::check::check_fused(&o.scops[0], &f.scops[0], &order)
        .expect("the same instances and accesses");
    let values = o.scops[0].param_values().expect("N = 5");
    let mut budget = Budget::new(10_000_000, None);
    let checked = polyfold::schedule::trace::same_values(
        &o.scops[0],
        (&f.scops[0], &[]),
        &order,
        &values,
        &mut budget,
    );
    assert!(
        checked.is_err(),
        "the interleaved calls passed: {checked:?}"
    );
    // The exact order check says so for every N.
    assert!(polyfold::schedule::nest::order_kept(&o.scops[0], &f.scops[0], &order).is_err());
    // And the original against itself passes both.
    let same = polyfold::schedule::trace::same_values(
        &o.scops[0],
        (&o.scops[0], &[]),
        &order,
        &values,
        &mut budget,
    );
    assert_eq!(same, Ok(5));
}
