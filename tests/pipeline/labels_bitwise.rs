//! Issue 51, items 1 and 2: `&` and `|` of truth values in bounds and
//! conditions read as `&&` and `||` (the text stays as written), and
//! labelled loops (HLS code names its loops `produce:`, `consume:`)
//! analysed and transformed like unlabelled ones, each label kept once
//! with its loop. A label a `goto` names keeps its statement out of every
//! SCoP; `i & 1` in a bound is still refused.
//!
//! Expected folds and lines are derived by hand; every output is compiled
//! and run against the original at several sizes.

use crate::common;

/// polyfold's output and stderr for `source`, written as `name` in `dir`.
fn polyfold_on(source: &str, dir: &std::path::Path, name: &str) -> (String, String) {
    let path = dir.join(name);
    std::fs::write(&path, source).expect("write");
    let out = common::polyfold(&[&path]);
    assert_eq!(out.status.code(), Some(0), "{}", common::text(&out.stderr));
    (common::text(&out.stdout), common::text(&out.stderr))
}

/// The original and `output` print the same for every value of macro
/// `name` in `values`.
fn same_runs(source: &str, output: &str, dir: &std::path::Path, name: &str, values: &[i64]) {
    for &v in values {
        let o = common::with_define(source, name, v);
        let t = common::with_define(output, name, v);
        assert_eq!(
            common::run_c(&o, dir, "original"),
            common::run_c(&t, dir, "output"),
            "{name} = {v}\n{t}"
        );
    }
}

/// A FIR filter from a public filter bank's idiom: the inner bound is a
/// `&` of two comparisons. `acc[n]` is written, accumulated and read in
/// iteration `n` only (under an `if` with `|` once more), so one cell
/// holds it.
const CONVOLUTION: &str = r#"#include <stdio.h>
#define N 64
#define K 32
static void fir(const int x[N], const int h[K], int y[N])
{
    int n, k;
    int acc[N];
    for (n = 0; n < N; n++) {
        acc[n] = 0;
        for (k = 0; ((k < K) & ((n - k) >= 0)); k++)
            acc[n] = acc[n] + h[k] * x[n - k];
        y[n] = acc[n];
        if ((n < 2) | (n > N - 3))
            y[n] = y[n] + acc[n] / 2;
    }
}

int main(void)
{
    int x[N], h[K], y[N];
    int i;
    long s = 0;
    for (i = 0; i < N; i++)
        x[i] = (i * 7) % 11 - 5;
    for (i = 0; i < K; i++)
        h[i] = (i * 3) % 5 - 2;
    fir(x, h, y);
    for (i = 0; i < N; i++)
        s += (long)y[i] * (i + 1);
    printf("%ld\n", s);
    return 0;
}
"#;

#[test]
fn a_bitwise_and_of_comparisons_bounds_a_loop_and_the_accumulator_is_one_cell() {
    let dir = common::scratch("pipeline", "bitwise_convolution");
    let (output, _) = polyfold_on(CONVOLUTION, &dir, "fir.c");
    // By hand: acc[n] lives inside iteration n of the outer loop.
    common::assert_lines(
        &output,
        &[
            "    int acc; /* polyfold: acc[n] -> acc */",
            "        acc = 0;",
            // The bound and the condition as written.
            "        for (k = 0; ((k < K) & ((n - k) >= 0)); k++)",
            "            acc = acc + h[k] * x[n - k];",
            "        y[n] = acc;",
            "        if ((n < 2) | (n > N - 3))",
            "            y[n] = y[n] + acc / 2;",
        ],
    );
    // K above, equal to and below N.
    same_runs(CONVOLUTION, &output, &dir, "N", &[1, 5, 32, 40]);
    let k3 = common::with_define(CONVOLUTION, "K", 3);
    let (output3, _) = polyfold_on(&k3, &dir, "fir3.c");
    assert!(output3.contains("    int acc; /* polyfold:"), "{output3}");
    same_runs(&k3, &output3, &dir, "N", &[1, 2, 9]);
}

/// HLS-style producer and consumer loops, `tmp` a local: fused, `tmp`
/// is one cell. `LABEL_P` and `LABEL_C` are the labels as written.
const PRODUCER_CONSUMER: &str = r#"#include <stdio.h>
#define N 16
static void pc(const int in[N], int out[N])
{
    int i;
    int tmp[N];
LABEL_P    for (i = 0; i < N; i++)
        tmp[i] = in[i] * 3 + 1;
LABEL_C    for (i = 0; i < N; i++)
        out[i] = tmp[i] * 2;
}

int main(void)
{
    int in[N], out[N];
    int i;
    long s = 0;
    for (i = 0; i < N; i++)
        in[i] = (i * 5) % 7 - 3;
    pc(in, out);
    for (i = 0; i < N; i++)
        s += (long)out[i] * (i + 1);
    printf("%ld\n", s);
    return 0;
}
"#;

fn producer_consumer(p: &str, c: &str) -> String {
    PRODUCER_CONSUMER
        .replace("LABEL_P", p)
        .replace("LABEL_C", c)
}

/// How many times `label:` occurs in `text` as a label.
fn label_count(text: &str, label: &str) -> usize {
    text.match_indices(&format!("{label}:"))
        .filter(|(at, _)| {
            text[..*at]
                .chars()
                .next_back()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
        })
        .count()
}

#[test]
fn labelled_producer_and_consumer_loops_fuse_with_both_labels() {
    let dir = common::scratch("pipeline", "labelled_fusion");
    // Unlabelled, the scheduler fuses the loops (the reference).
    let plain = producer_consumer("", "");
    let (plain_out, _) = polyfold_on(&plain, &dir, "plain.c");
    let fused = [
        "    int tmp; /* polyfold: tmp[i] -> tmp */",
        "    for (i = 0; i < N; i++) {",
        "        tmp = in[i] * 3 + 1;",
        "        out[i] = tmp * 2;",
        "    }",
    ];
    common::assert_lines(&plain_out, &fused);
    // Labels on lines of their own stay so, before the fused loop.
    let own_lines = producer_consumer("produce:\n", "consume:\n");
    let (out, _) = polyfold_on(&own_lines, &dir, "own_lines.c");
    common::assert_lines(&out, &fused);
    assert!(
        out.contains("produce:\nconsume:\n    for (i = 0; i < N; i++) {\n"),
        "{out}"
    );
    // Labels on the loop's line (HLS style) stay on its line.
    let inline = producer_consumer("    produce: ", "    consume: ")
        .replace("    produce:     for", "    produce: for")
        .replace("    consume:     for", "    consume: for");
    let (inline_out, _) = polyfold_on(&inline, &dir, "inline.c");
    common::assert_lines(
        &inline_out,
        &[
            "    int tmp; /* polyfold: tmp[i] -> tmp */",
            "    produce: consume: for (i = 0; i < N; i++) {",
            "        tmp = in[i] * 3 + 1;",
            "        out[i] = tmp * 2;",
        ],
    );
    for (k, (source, output)) in [(&own_lines, &out), (&inline, &inline_out)]
        .into_iter()
        .enumerate()
    {
        assert_eq!(label_count(output, "produce"), 1, "{output}");
        assert_eq!(label_count(output, "consume"), 1, "{output}");
        same_runs(source, output, &dir, "N", &[1, 2, 7, 16]);
        // `polyfold equiv` runs labelled statements as their statements.
        let (a, b) = (dir.join(format!("a{k}.c")), dir.join(format!("b{k}.c")));
        std::fs::write(&a, source).expect("write");
        std::fs::write(&b, output).expect("write");
        let equiv =
            common::polyfold(&[std::ffi::OsStr::new("equiv"), a.as_os_str(), b.as_os_str()]);
        let said = common::text(&equiv.stdout);
        assert_eq!(equiv.status.code(), Some(0), "{said}");
        assert!(
            said.contains("equal: `pc` computes the same live-out values"),
            "{said}"
        );
    }
}

/// A consumer that reads `tmp[i - 1]` from `i = 1`: fusing needs a
/// prologue (the producer alone at `i = 0`), which would print a
/// labelled loop twice. The run is not fused, the report says why, and
/// the labels stay once each where they were.
#[test]
fn a_labelled_run_that_needs_a_prologue_is_not_fused() {
    let dir = common::scratch("pipeline", "labelled_prologue");
    let source = producer_consumer("produce:\n", "consume:\n")
        .replace(
            "    for (i = 0; i < N; i++)\n        out[i] = tmp[i] * 2;",
            "    for (i = 1; i < N; i++)\n        out[i] = tmp[i - 1] + tmp[i];",
        )
        .replace("    int in[N], out[N];", "    int in[N], out[N] = {0};");
    let (output, _) = polyfold_on(&source, &dir, "prologue.c");
    assert!(
        output.contains("produce:\n    for (i = 0; i < N; i++)\n"),
        "{output}"
    );
    assert!(
        output.contains("consume:\n    for (i = 1; i < N; i++)\n"),
        "{output}"
    );
    assert_eq!(label_count(&output, "produce"), 1);
    assert_eq!(label_count(&output, "consume"), 1);
    let path = dir.join("prologue.c");
    let report = common::polyfold_stdout(&[
        std::ffi::OsStr::new("--report"),
        "text".as_ref(),
        path.as_os_str(),
    ]);
    assert!(
        report.contains(
            "loops at lines 8, 11 not fused: the label `produce` would not stay with one loop"
        ),
        "{report}"
    );
    // Without the labels the same loops fuse (so the labels are the cause).
    let plain = source.replace("produce:\n", "").replace("consume:\n", "");
    let (plain_out, _) = polyfold_on(&plain, &dir, "prologue_plain.c");
    assert!(
        !plain_out.contains("for (i = 1; i < N; i++)"),
        "{plain_out}"
    );
    same_runs(&source, &output, &dir, "N", &[1, 2, 9]);
}

/// The producer's label is the target of a `goto`: the loop stays out of
/// every SCoP (nothing is fused or folded), with a diagnostic.
#[test]
fn a_goto_target_keeps_its_loop_out() {
    let dir = common::scratch("pipeline", "goto_target");
    let source = producer_consumer("again:\n", "")
        .replace(
            "static void pc(const int in[N], int out[N])",
            "static void pc(const int in[N], int out[N], int t)",
        )
        .replace(
            "        out[i] = tmp[i] * 2;\n}",
            "        out[i] = tmp[i] * 2;\n    if (t-- > 0)\n        goto again;\n}",
        )
        .replace("    pc(in, out);", "    pc(in, out, 2);");
    let (output, stderr) = polyfold_on(&source, &dir, "goto.c");
    assert_eq!(output, source);
    assert!(
        stderr.contains("warning[PF022]: label `again` is the target of a `goto`"),
        "{stderr}"
    );
    // The same function without the `goto` folds `tmp` (the label alone
    // is read through).
    let without = producer_consumer("again:\n", "");
    let (folded, _) = polyfold_on(&without, &dir, "no_goto.c");
    assert!(
        folded.contains("    int tmp; /* polyfold: tmp[i] -> tmp */"),
        "{folded}"
    );
    same_runs(&source, &output, &dir, "N", &[1, 4]);
}

/// `&` and `|` on numbers (`j & 1`, `j | 4`) are bit operations: the
/// loops keep today's diagnostic and stay as they were.
#[test]
fn a_bit_operation_on_a_number_in_a_bound_is_still_refused() {
    let dir = common::scratch("pipeline", "bit_operation_bound");
    let source = r#"#define N 16
static void f(int j, int out[N])
{
    int k;
    int tmp[N];
    for (k = 0; (k < N) & (j & 1); k++)
        tmp[k] = k;
    for (k = 0; (k < N) & (j | 4); k++)
        out[k] = tmp[k];
}
"#;
    let (output, stderr) = polyfold_on(source, &dir, "bits.c");
    assert_eq!(output, source);
    for bound in ["(k < N) & (j & 1)", "(k < N) & (j | 4)"] {
        assert!(
            stderr.contains(&format!("warning[PF011]: non-affine loop bound `{bound}`")),
            "{stderr}"
        );
    }
}
