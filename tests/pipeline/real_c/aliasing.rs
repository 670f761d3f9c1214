//! Class 2 of issue 45: two pointer or array parameters are distinct only
//! under `restrict`, or when every call of a `static` function in the
//! file passes distinct objects; a parameter may also point into a global.
//! Each kernel's output is run against the original under ASan/UBSan;
//! the fused forms of the in-place kernels print other values (checked by
//! hand with the build before this class was fixed).

use super::calls::check;

#[test]
fn a_kernel_called_in_place_keeps_its_loops() {
    check(
        "aliasing",
        "in_place",
        false,
        Some("`in` and `out` may overlap"),
    );
}

#[test]
fn a_parameter_that_may_be_the_global_keeps_its_loops() {
    check(
        "aliasing",
        "param_and_global",
        false,
        Some("`table` and `out` may overlap"),
    );
}

#[test]
fn distinct_arrays_at_every_call_of_a_static_kernel_fuse() {
    check("aliasing", "distinct_calls", true, None);
}

#[test]
fn a_restrict_output_fuses_in_an_exported_kernel() {
    check("aliasing", "restrict_params", true, None);
}

#[test]
fn the_report_says_restrict_would_allow_it() {
    let (_, lines) = super::calls::transform(&super::calls::case("aliasing", "in_place"));
    assert!(
        lines
            .iter()
            .any(|l| l.contains("`restrict` would allow it")),
        "{lines:#?}"
    );
}

/// The trace check sees a fusion that reorders accesses of two parameters
/// that may overlap, though every read sees the value it saw in its own
/// array (the cells alone do not tell).
#[test]
fn the_trace_check_catches_accesses_of_overlapping_arrays_that_change_their_order() {
    use polyfold::frontend::{Options, extract};
    use polyfold::schedule::check::Origin;
    let head = "#define N 6\nvoid k(const double in[N], double out[N])\n{\n    int i;\n    \
double t[N];\n#pragma scop\n";
    let original = format!(
        "{head}    for (i = 1; i < N; i++)\n        t[i] = in[i] + in[i - 1];\n    \
for (i = 1; i < N; i++)\n        out[i] = t[i];\n#pragma endscop\n}}\n"
    );
    let fused = format!(
        "{head}    for (i = 1; i < N; i++) {{\n        t[i] = in[i] + in[i - 1];\n        \
out[i] = t[i];\n    }}\n#pragma endscop\n}}\n"
    );
    let o = extract("o.c", &original, &Options::default());
    let f = extract("f.c", &fused, &Options::default());
    let order = vec![
        Origin::shifted(0, &[0], 1).expect("shift"),
        Origin::shifted(1, &[0], 1).expect("shift"),
    ];
    let values = o.scops[0].param_values().expect("N = 6");
    let mut budget = polyfold::poly::Budget::new(10_000_000, None);
    let checked = polyfold::schedule::trace::same_values(
        &o.scops[0],
        (&f.scops[0], &[]),
        &order,
        &values,
        &mut budget,
    );
    assert!(
        checked.is_err(),
        "the reordered accesses passed: {checked:?}"
    );
    assert!(polyfold::schedule::nest::order_kept(&o.scops[0], &f.scops[0], &order).is_err());
    // With `restrict` on the output, the same fusion is right.
    let r = |s: &str| s.replace("double out[N]", "double out[restrict N]");
    let (o, f) = (
        extract("o.c", &r(&original), &Options::default()),
        extract("f.c", &r(&fused), &Options::default()),
    );
    let checked = polyfold::schedule::trace::same_values(
        &o.scops[0],
        (&f.scops[0], &[]),
        &order,
        &values,
        &mut budget,
    );
    assert_eq!(checked, Ok(5 * 3));
    polyfold::schedule::nest::order_kept(&o.scops[0], &f.scops[0], &order)
        .expect("restrict: no order but the cells'");
}
