//! Issue 52: fusion across comments and hint pragmas, of decreasing loops
//! and of loops of a constant stride.
//!
//! The expected sizes and lags are worked out by hand in each test's
//! comment (which values are live at once in the fused loop, which
//! iteration of a loop reads what another writes); every output is
//! compiled and run against the original (ASan/UBSan) at several sizes.

use crate::common;

use std::path::{Path, PathBuf};

use polyfold::frontend::{Options, extract};
use polyfold::schedule::check::Origin;

/// Writes `source` as `NAME.c` in `dir`.
fn write(dir: &Path, name: &str, source: &str) -> PathBuf {
    let path = dir.join(format!("{name}.c"));
    std::fs::write(&path, source).expect("write");
    path
}

fn path_text(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// A two-stage smoother: `t` doubles `in`, then `out[i]` sums `t[i - 1]`,
/// `t[i]` and `t[i + 1]`. Each loop has a comment before it, one of them
/// in its header, and `#pragma GCC unroll 4`.
const HINTED: &str = "#include <stdio.h>
#define N 100

static double in[N], out[N];

int main(void) {
    double t[N];
    for (int i = 0; i < N; i++)
        in[i] = (i * 7) % 11;
#pragma scop
    /* t := 2 in */
#pragma GCC unroll 4
    for (int i = 0; i < N; i++)
        t[i] = 2 * in[i];
    // out := t smoothed
#pragma GCC unroll 4
    for (int i = 1; i < N - 1; i++) /* three taps */
        out[i] = t[i - 1] + t[i] + t[i + 1];
#pragma endscop
    for (int i = 0; i < N; i++)
        printf(\"%g\\n\", out[i]);
    return 0;
}
";

/// `HINTED` without its comments and pragmas.
fn plain() -> String {
    HINTED
        .lines()
        .filter(|l| {
            !l.starts_with("#pragma GCC")
                && !l.trim_start().starts_with("/* t :=")
                && !l.trim_start().starts_with("//")
        })
        .map(|l| l.replace(" /* three taps */", ""))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The second loop reads `t[i + 1]`, which the first writes one iteration
/// later: shifted by 1, the fused loop writes `t[v]` and reads `t[v - 2]`,
/// `t[v - 1]` and `t[v]`, so 3 values of `t` are live at once: 3 cells,
/// with or without the comments and the pragmas. The comments are kept,
/// each once, before the fused loop; every loop of the fused text carries
/// the pragma that both loops carried; the text after the SCoP is as it
/// was, and before it only `t`'s declaration changes (and its note).
#[test]
fn comments_and_hint_pragmas_do_not_stop_fusion() {
    let dir = common::scratch("pipeline", "fusion-forms-hints");
    for (name, source) in [("hinted", HINTED.to_string()), ("plain", plain())] {
        let path = write(&dir, name, &source);
        let r = common::json_report(&[path_text(&path)]);
        assert_eq!(common::new_cells(&r, "t"), Some(3), "{name}: {r:#}");
        assert_eq!(r["files"][0]["fusion"][0]["loops"][1]["shift"], 1, "{r:#}");
        let out = common::polyfold_stdout(&[path_text(&path)]);
        common::assert_runs_like_original(&path, name, "fusion-forms", &out);
        // Outside the SCoP: the same text but `t`'s declaration.
        let tail = |s: &str| s.split("#pragma endscop").nth(1).map(str::to_string);
        assert_eq!(tail(&out), tail(&source), "{out}");
        let head = |s: &str| -> Vec<String> {
            s.split("#pragma scop")
                .next()
                .unwrap_or("")
                .lines()
                .filter(|l| !l.contains("double t") && !l.contains("/* polyfold: t"))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(head(&out), head(&source), "{out}");
        if name == "hinted" {
            for comment in [
                "/* t := 2 in */",
                "// out := t smoothed",
                "/* three taps */",
            ] {
                assert_eq!(out.matches(comment).count(), 1, "{comment} in\n{out}");
            }
            let scop = common::scop_text(&out);
            let loops = scop
                .lines()
                .filter(|l| l.trim_start().starts_with("for ("))
                .count();
            let pragmas: Vec<&str> = scop.lines().collect();
            // Each `for` of the fused text right after the pragma.
            for (k, line) in pragmas.iter().enumerate() {
                if line.trim_start().starts_with("for (") {
                    assert_eq!(pragmas[k - 1], "#pragma GCC unroll 4", "{scop}");
                }
            }
            assert!(loops >= 2, "{scop}");
            assert_eq!(
                scop.matches("#pragma GCC unroll 4").count(),
                loops,
                "{scop}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A pragma that is not a pure hint may promise something about the
/// iterations (`omp simd`, `GCC ivdep`, `simd`) or mean something to
/// another tool: the loops stay apart, as they do when only one of them
/// carries the hint (the fused loop would drop it or give it to the other
/// loop). `t` then keeps its 100 cells (all its values are live between
/// the loops).
#[test]
fn other_pragmas_and_a_hint_on_one_loop_keep_loops_apart() {
    let dir = common::scratch("pipeline", "fusion-forms-apart");
    let mut cases: Vec<(String, String)> = [
        "#pragma omp simd",
        "#pragma GCC ivdep",
        "#pragma simd",
        "#pragma HLS pipeline",
    ]
    .iter()
    .enumerate()
    .map(|(k, p)| {
        (
            format!("other{k}"),
            HINTED.replace("#pragma GCC unroll 4", p),
        )
    })
    .collect();
    let once = HINTED.replacen("#pragma GCC unroll 4\n", "", 1);
    cases.push(("once".to_string(), once));
    for (name, source) in cases {
        let path = write(&dir, &name, &source);
        let r = common::json_report(&[path_text(&path)]);
        assert_eq!(common::new_cells(&r, "t"), Some(100), "{name}: {r:#}");
        assert!(
            r["files"][0]["fusion"]
                .as_array()
                .is_some_and(Vec::is_empty),
            "{name}: {r:#}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An anti-causal chain: `y1` filters `x` backwards from `y1[N] = 0`,
/// `y2` filters `y1` backwards, and `z` combines them.
const ANTI_CAUSAL: &str = "#include <stdio.h>
#define N 200

static double x[N], z[N];

int main(void) {
    double y1[N + 1], y2[N + 1];
    double a = 0.5, b = 0.25;
    for (int i = 0; i < N; i++)
        x[i] = (i * 7) % 11;
#pragma scop
    y1[N] = 0;
    for (int i = N - 1; i >= 0; i--)
        y1[i] = a * x[i] + b * y1[i + 1];
    y2[N] = 0;
    for (int i = N - 1; i >= 0; i--)
        y2[i] = y1[i] - b * y2[i + 1];
    for (int i = N - 1; i >= 0; i--)
        z[i] = y2[i] + y2[i + 1] + y1[i + 1];
#pragma endscop
    for (int i = 0; i < N; i++)
        printf(\"%g\\n\", z[i]);
    return 0;
}
";

/// Unfused, all `N + 1` values of `y1` and of `y2` are live between the
/// loops: 402 cells. The three decreasing loops fuse with no shift (each
/// reads at `i` and `i + 1`, written at the same or an earlier iteration of
/// the decreasing order), into one decreasing loop: at iteration `i`,
/// `y1[i + 1]` and `y1[i]` are live together, and `y2[i + 1]` and `y2[i]`:
/// 2 cells each. Run against the original at several sizes; with the last
/// loop made increasing (mixed directions), it stays apart (the two
/// decreasing loops still fuse).
#[test]
fn decreasing_chains_fuse_in_their_own_order() {
    let dir = common::scratch("pipeline", "fusion-forms-down");
    let path = write(&dir, "anti_causal", ANTI_CAUSAL);
    let r = common::json_report(&["--no-fusion", path_text(&path)]);
    assert_eq!(common::new_cells(&r, "y1"), Some(201), "{r:#}");
    assert_eq!(common::new_cells(&r, "y2"), Some(201), "{r:#}");
    let r = common::json_report(&[path_text(&path)]);
    assert_eq!(common::new_cells(&r, "y1"), Some(2), "{r:#}");
    assert_eq!(common::new_cells(&r, "y2"), Some(2), "{r:#}");
    let text = common::polyfold_stdout(&["--report", "text", "--no-timings", path_text(&path)]);
    assert!(text.contains("fused (decreasing, none shifted)"), "{text}");
    for n in [1, 2, 3, 7, 200] {
        let sized = common::with_define(ANTI_CAUSAL, "N", n);
        let path = write(&dir, &format!("anti_causal_{n}"), &sized);
        let out = common::polyfold_stdout(&[path_text(&path)]);
        common::assert_runs_like_original(&path, &format!("anti_causal_{n}"), "fusion-forms", &out);
    }
    // One loop increasing: not fused.
    let mixed = ANTI_CAUSAL.replacen(
        "for (int i = N - 1; i >= 0; i--)\n        z[i]",
        "for (int i = 0; i < N; i++)\n        z[i]",
        1,
    );
    assert_ne!(mixed, ANTI_CAUSAL);
    let path = write(&dir, "mixed", &mixed);
    let r = common::json_report(&[path_text(&path)]);
    let fused = r["files"][0]["fusion"].as_array().expect("fusion list");
    assert!(
        fused
            .iter()
            .all(|run| run["loops"].as_array().is_some_and(|l| l.len() == 2)),
        "{r:#}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Decreasing inner loops with a shift, each with a hint pragma and a
/// comment: `out[i][j]` reads `t[i][j + 1]`, which the first loop writes
/// one iteration earlier in the decreasing order, and `t[i][j - 1]`, one
/// iteration later: the second loop runs one iteration late (lag 1, its
/// body at `j + 1`). At fused `v`, `t[i][v]` is written and `t[i][v]`,
/// `t[i][v + 2]` are read: `t[i][v + 1]` is live too, 3 cells (the rows
/// reuse them). Run against the original at several widths.
#[test]
fn decreasing_inner_loops_fuse_with_a_lag() {
    let source = "#include <stdio.h>
#define N 20
#define M 30

static double in[N][M], out[N][M];

int main(void) {
    double t[N][M];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            in[i][j] = (i * 7 + j * 3) % 11;
#pragma scop
    for (int i = 0; i < N; i++) {
        /* row pass */
        #pragma GCC unroll 2
        for (int j = M - 1; j >= 0; j--)
            t[i][j] = 2 * in[i][j];
        /* smooth backwards */
        #pragma GCC unroll 2
        for (int j = M - 2; j >= 1; j--)
            out[i][j] = t[i][j - 1] + t[i][j + 1];
    }
#pragma endscop
    for (int i = 0; i < N; i++)
        for (int j = 1; j < M - 1; j++)
            printf(\"%g\\n\", out[i][j]);
    return 0;
}
";
    let dir = common::scratch("pipeline", "fusion-forms-inner");
    let path = write(&dir, "inner", source);
    // (Rotating scalars driven by an inner loop are refused by default,
    // see the cost rules: --min-memory.)
    let r = common::json_report(&["--min-memory", path_text(&path)]);
    assert_eq!(common::new_cells(&r, "t"), Some(3), "{r:#}");
    let text = common::polyfold_stdout(&[
        "--min-memory",
        "--report",
        "text",
        "--no-timings",
        path_text(&path),
    ]);
    assert!(
        text.contains("fused (decreasing, shifted: line 20 by 1)"),
        "{text}"
    );
    for m in [1, 2, 3, 4, 30] {
        let sized = common::with_define(source, "M", m);
        let name = format!("inner_{m}");
        let path = write(&dir, &name, &sized);
        let out = common::polyfold_stdout(&["--min-memory", path_text(&path)]);
        assert_eq!(out.matches("/* smooth backwards */").count(), 1, "{out}");
        common::assert_runs_like_original(&path, &name, "fusion-forms", &out);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A lifting step: the predict loop writes `d` at odd `i`, the update
/// loop reads `d[i - 1]` and `d[i + 1]` at even `i`.
const LIFTING: &str = "#include <stdio.h>
#define N 512

static double x[N], s[N];

int main(void) {
    double d[N];
    for (int i = 0; i < N; i++)
        x[i] = (i * 7) % 11;
#pragma scop
    for (int i = 1; i < N - 1; i += 2)
        d[i] = x[i] - (x[i - 1] + x[i + 1]) / 2;
    for (int i = 2; i < N - 2; i += 2)
        s[i] = x[i] + (d[i - 1] + d[i + 1]) / 4;
#pragma endscop
    for (int i = 2; i < N - 2; i += 2)
        printf(\"%g\\n\", s[i]);
    return 0;
}
";

/// The update's iteration `t` (`i = 2 + 2t`) reads `d[3 + 2t]`, which the
/// predict loop writes at its iteration `t + 1` (`i = 1 + 2(t + 1)`): a
/// lag of one iteration, the update's body at `i - 1` of the fused loop
/// over the predict loop's values. The fused text passes the exact checks
/// (instances on the lattices, and every dependence kept); the one
/// without the lag keeps the instances but not the order. A prologue
/// without its guard `i <= N - 2` runs `d[1]` at every `N`, and a loop
/// over every `i`, not every other one, runs instances off the lattice:
/// the instance check refuses both.
#[test]
fn stride_two_loops_fuse_by_iterations() {
    let program = extract("lifting.c", LIFTING, &Options::default());
    let runs = polyfold::schedule::plan_fusion(&program, 0, false);
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0].stride, 2);
    let lags: Vec<i64> = runs[0].loops.iter().map(|l| l.lag).collect();
    assert_eq!(lags, [0, 1]);
    // Fused by hand, with and without the lag.
    let fused = |lag: bool| {
        let (last, update) = if lag {
            (
                "N - 2",
                "if (i <= N - 2)\n            s[i - 1] = x[i - 1] + (d[i - 2] + d[i]) / 4;",
            )
        } else {
            (
                "N - 2",
                "if (i + 1 <= N - 3)\n            s[i + 1] = x[i + 1] + (d[i] + d[i + 2]) / 4;",
            )
        };
        let first = if lag { 3 } else { 1 };
        let prologue = if lag {
            "    for (int i = 1; i <= 1; i += 2)\n        if (i <= N - 2)\n            d[i] = x[i] - (x[i - 1] + x[i + 1]) / 2;\n"
        } else {
            ""
        };
        LIFTING.replace(
            "    for (int i = 1; i < N - 1; i += 2)\n        d[i] = x[i] - (x[i - 1] + x[i + 1]) / 2;\n    for (int i = 2; i < N - 2; i += 2)\n        s[i] = x[i] + (d[i - 1] + d[i + 1]) / 4;\n",
            &format!("{prologue}    for (int i = {first}; i <= {last}; i += 2) {{\n        d[i] = x[i] - (x[i - 1] + x[i + 1]) / 2;\n        {update}\n    }}\n"),
        )
    };
    let with_lag = extract("lag.c", &fused(true), &Options::default());
    let without = extract("nolag.c", &fused(false), &Options::default());
    let o = &program.scops[0];
    let at = |k: usize, s: i64| Origin::shifted(k, &[s], 1).expect("small shift");
    let lagged = vec![at(0, 0), at(0, 0), at(1, 1)];
    polyfold::schedule::check::check_fused(o, &with_lag.scops[0], &lagged)
        .expect("the instances of the lagged fusion");
    polyfold::schedule::nest::order_kept(o, &with_lag.scops[0], &lagged)
        .expect("the lagged fusion keeps every dependence");
    let unlagged = vec![at(0, 0), at(1, -1)];
    polyfold::schedule::check::check_fused(o, &without.scops[0], &unlagged)
        .expect("the instances of the unlagged fusion");
    assert!(polyfold::schedule::nest::order_kept(o, &without.scops[0], &unlagged).is_err());
    // Without the prologue's guard, `d[1]` runs at every `N`, also where
    // the original runs no `d` (`N < 3`): refused.
    let unguarded =
        fused(true).replace("        if (i <= N - 2)\n            d[i]", "        d[i]");
    assert_ne!(unguarded, fused(true));
    let unguarded = extract("unguarded.c", &unguarded, &Options::default());
    assert!(polyfold::schedule::check::check_fused(o, &unguarded.scops[0], &lagged).is_err());
    // A copy off the lattice (every `i`, not every other one) fails.
    let every = fused(true).replace("i += 2) {", "i++) {");
    let every = extract("every.c", &every, &Options::default());
    assert!(polyfold::schedule::check::check_fused(o, &every.scops[0], &lagged).is_err());
}

/// The lifting step run backwards: the predict loop from `N - 2` down by
/// 2, the update from `N - 3` down by 2.
const LIFTING_DOWN: &str = "#include <stdio.h>
#define N 41

static double x[N], s[N];

int main(void) {
    double d[N];
    for (int i = 0; i < N; i++)
        x[i] = (i * 7) % 11 + 0.5 * i;
#pragma scop
    for (int i = N - 2; i >= 1; i -= 2)
        d[i] = x[i] - (x[i - 1] + x[i + 1]) / 2;
    for (int i = N - 3; i >= 2; i -= 2)
        s[i] = x[i] + (d[i - 1] + d[i + 1]) / 4;
#pragma endscop
    for (int i = 0; i < N; i++)
        printf(\"%g\\n\", s[i]);
    return 0;
}
";

/// With `--pin-sizes` the pipeline takes the fused lifting step: at fused
/// `v` (odd), `d[v]` is written and the update reads `d[v - 2]` and
/// `d[v]`, so at most 2 values are live (`d[v - 2]` dies as `d[v]` is
/// born): at most 3 cells with a successive modulo over `i`. By default
/// the fused program's mapping is not proven for every `N` (the lifetimes
/// of `d` across the stride are a superset) and `d` keeps its cells.
/// FIXME: fold the fused strided program by default (the analysis of
/// strided reads, not the schedule).
#[test]
fn the_fused_lifting_step_runs_like_the_original() {
    let dir = common::scratch("pipeline", "fusion-forms-lifting");
    let path = write(&dir, "lifting", LIFTING);
    let r = common::json_report(&["--pin-sizes", path_text(&path)]);
    let cells = common::new_cells(&r, "d").expect("d");
    assert!((2..=3).contains(&cells), "{r:#}");
    let text = common::polyfold_stdout(&[
        "--report",
        "text",
        "--no-timings",
        "--pin-sizes",
        path_text(&path),
    ]);
    assert!(
        text.contains("fused (stride 2, shifted: line 13 by 1)"),
        "{text}"
    );
    let r = common::json_report(&[path_text(&path)]);
    assert_eq!(common::new_cells(&r, "d"), Some(512), "{r:#}");
    for n in [4, 5, 6, 9, 512] {
        let sized = common::with_define(LIFTING, "N", n);
        let name = format!("lifting_{n}");
        let path = write(&dir, &name, &sized);
        let out = common::polyfold_stdout(&["--pin-sizes", path_text(&path)]);
        common::assert_runs_like_original(&path, &name, "fusion-forms", &out);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Backwards, the update's iteration `t` (`i = N - 3 - 2t`) reads `d[N -
/// 2 - 2t]`, written by the predict loop's iteration `t`, and `d[N - 4 -
/// 2t]`, written at its iteration `t + 1`: a lag of one iteration again,
/// the fused loop decreasing by 2. At fused `v`, `d[v]` is written and
/// `d[v]`, `d[v + 2]` are read: 2 live values, at most 3 cells. Run
/// against the original at several sizes (`--pin-sizes`, as above).
#[test]
fn decreasing_stride_two_loops_fuse() {
    let program = extract("down.c", LIFTING_DOWN, &Options::default());
    let runs = polyfold::schedule::plan_fusion(&program, 0, false);
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!((runs[0].direction, runs[0].stride), (-1, 2));
    let lags: Vec<i64> = runs[0].loops.iter().map(|l| l.lag).collect();
    assert_eq!(lags, [0, 1]);
    let dir = common::scratch("pipeline", "fusion-forms-lifting-down");
    let path = write(&dir, "lifting_down", LIFTING_DOWN);
    let r = common::json_report(&["--pin-sizes", path_text(&path)]);
    let cells = common::new_cells(&r, "d").expect("d");
    assert!((2..=3).contains(&cells), "{r:#}");
    for n in [3, 4, 5, 6, 9, 41] {
        let sized = common::with_define(LIFTING_DOWN, "N", n);
        let name = format!("lifting_down_{n}");
        let path = write(&dir, &name, &sized);
        let out = common::polyfold_stdout(&["--pin-sizes", path_text(&path)]);
        common::assert_runs_like_original(&path, &name, "fusion-forms", &out);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
