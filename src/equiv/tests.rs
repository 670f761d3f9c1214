//! The semantics of a run, on small kernels whose verdicts are computed
//! by hand (each test says why).

use crate::driver::RunOptions;

use super::compare_sides;
use super::side::side_of;

/// The exit code and stdout of `equiv` on two sources.
fn verdict(original: &str, changed: &str) -> (u8, String) {
    let options = RunOptions::default();
    let o = side_of("o.c".into(), original.into(), &options).expect("o.c parses");
    let c = side_of("c.c".into(), changed.into(), &options).expect("c.c parses");
    let out = compare_sides(&o, &c, &options, crate::driver::Messages::new());
    let errors: String = out.stderr.iter().map(|m| m.to_string()).collect();
    (out.code, format!("{}{errors}", out.stdout))
}

/// A kernel `k(x, out)` over N = 6 whose loop body is `body`.
fn kernel(decls: &str, body: &str) -> String {
    format!(
        "#define N 6\n#define SQ(a) ((a) * (a))\nvoid k(const double x[N], double out[N])\n{{\n    int i;\n    {decls}\n    for (i = 0; i < N; i++) {{\n        {body}\n    }}\n}}\n"
    )
}

#[test]
fn integer_arithmetic_is_c_s() {
    // C truncates: -7 / 2 == -3 and -7 % 2 == -1; the integer 2 meets a
    // double as 2.0.
    let o = kernel("", "out[i] = x[i] * (double)(-7 / 2) + (double)(-7 % 2);");
    let same = kernel("", "out[i] = x[i] * -3.0 + -1.0;");
    let floor = kernel("", "out[i] = x[i] * -4.0 + -1.0;");
    assert_eq!(verdict(&o, &same).0, 0, "{}", verdict(&o, &same).1);
    assert_eq!(verdict(&o, &floor).0, 1);
    let two = kernel("", "out[i] = x[i] * 2;");
    let two_point = kernel("", "out[i] = x[i] * 2.0;");
    assert_eq!(verdict(&two, &two_point).0, 0);
}

#[test]
fn macros_expand_and_types_matter() {
    // SQ(x[i]) is ((x[i]) * (x[i])).
    let o = kernel("", "out[i] = SQ(x[i]);");
    let c = kernel("", "out[i] = x[i] * x[i];");
    assert_eq!(verdict(&o, &c).0, 0);
    // A float temporary rounds x[i] * 0.1 to single precision.
    let o = kernel("double t;", "t = x[i] * 0.1;\n        out[i] = t;");
    let c = kernel("float t;", "t = x[i] * 0.1;\n        out[i] = t;");
    let (code, text) = verdict(&o, &c);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("(double)((float)("), "{text}");
}

#[test]
fn every_live_out_cell_and_the_return_value_count() {
    // The changed kernel leaves out[5] alone: its value from before the
    // call, the symbol out[5], is not x[5] + 1.0.
    let o = kernel("", "out[i] = x[i] + 1.0;");
    let c = kernel("", "if (i < N - 1)\n            out[i] = x[i] + 1.0;");
    let (code, text) = verdict(&o, &c);
    assert_eq!(code, 1);
    assert!(
        text.contains("live-out `out[5]` differs") && text.contains("CHANGED:  out[5]"),
        "{text}"
    );
    assert!(text.contains("never written"), "{text}");
    // A return value: the sum in another order is another term.
    let sum = |body: &str| {
        format!(
            "#define N 4\ndouble s(const double x[N])\n{{\n    double acc = 0.0;\n    int i;\n    for (i = 0; i < N; i++)\n        {body}\n    return acc;\n}}\n"
        )
    };
    let forward = sum("acc += x[i];");
    let backward = sum("acc += x[N - 1 - i];");
    assert_eq!(
        verdict(
            &forward,
            &forward.replace("acc += x[i];", "acc = acc + x[i];")
        )
        .0,
        0
    );
    let (code, text) = verdict(&forward, &backward);
    assert_eq!(code, 1);
    assert!(text.contains("the return value differs"), "{text}");
}

#[test]
fn local_bounds_and_uninitialised_cells() {
    // y[i % 3] in a y[2]: i = 2 writes y[2], outside.
    let o = kernel("double y[N];", "y[i] = x[i];\n        out[i] = y[i];");
    let c = kernel(
        "double y[2];",
        "y[i % 3] = x[i];\n        out[i] = y[i % 3];",
    );
    let (code, text) = verdict(&o, &c);
    assert_eq!(code, 1);
    assert!(
        text.contains("y[2] is outside its extents [2]") && text.contains("i = 2"),
        "{text}"
    );
    // Reading a cell no one wrote: out[i] = y[i + 1] reads y[1] before
    // it is written at i = 0.
    let c = kernel(
        "double y[N + 1];",
        "y[i] = x[i];\n        out[i] = y[i + 1];",
    );
    let (code, text) = verdict(&o, &c);
    assert_eq!(code, 1);
    assert!(
        text.contains("CHANGED:  uninitialised CHANGED y[1]"),
        "{text}"
    );
}

#[test]
fn calls_of_the_file_run_and_what_is_printed_is_compared() {
    // main calls k, which doubles a[0..3] in place, then prints a[3]:
    // 2 * 3.0 = 6.0 either way when main does the doubling itself.
    let with_call = |main_body: &str| {
        format!(
            "#include <stdio.h>\n#define N 4\nstatic void k(double a[N])\n{{\n    int i;\n    for (i = 0; i < N; i++)\n        a[i] = a[i] * 2.0;\n}}\nint main(void)\n{{\n    double a[N];\n    int i;\n    for (i = 0; i < N; i++)\n        a[i] = i;\n    {main_body}\n    return 0;\n}}\n"
        )
    };
    let o = with_call("k(a);\n    printf(\"%f\\n\", a[3]);");
    let inlined = with_call(
        "for (i = 0; i < N; i++)\n        a[i] = a[i] * 2.0;\n    printf(\"%f\\n\", a[3]);",
    );
    let (code, text) = verdict(&o, &inlined);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("equal: `main` computes"), "{text}");
    // Printing a[2] (4.0) in place of a[3] (6.0).
    let other = with_call("k(a);\n    printf(\"%f\\n\", a[2]);");
    let (code, text) = verdict(&o, &other);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("what it prints differs") && text.contains("(3.0 * 2.0)"),
        "{text}"
    );
}
