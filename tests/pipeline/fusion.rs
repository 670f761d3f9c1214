//! Issue 20: loop shifting and fusion before contraction.
//!
//! The expected sizes and shifts come from the papers and from the
//! dependence distances worked out by hand in each test's comment, not
//! from polyfold's output; every fused output is compiled and run against
//! the original (ASan/UBSan) at several sizes, and the trace check of the
//! fused schedule is shown to fail on a fusion without its shift.

use crate::common;

use std::path::Path;

use polyfold::frontend::{Options, extract};
use polyfold::poly::Budget;
use polyfold::schedule::check::Origin;

fn corpus(name: &str) -> (std::path::PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(format!("{name}.c"));
    let source = std::fs::read_to_string(&path).expect("corpus kernel");
    (path, source)
}

/// Seed 003, Example 1: `A[i] = E[i] + E[i-1]` then `E[i] = A[i]`. The
/// first loop reads `E[i - 1]`, which the second writes at `i - 1`: an
/// anti dependence of distance 1, so the second loop is shifted by 1, and
/// then `A[i]` is read one fused iteration after its write: 2 cells (Fig.
/// 1(d): two scalars).
#[test]
fn song_example1_needs_two_cells_after_a_shift_by_one() {
    let r = common::json_report(&["corpus/song_example1.c"]);
    assert_eq!(common::new_cells(&r, "A"), Some(2), "{r:#}");
    let fusion = &r["files"][0]["fusion"];
    assert_eq!(fusion[0]["loops"][0]["shift"], 0, "{r:#}");
    assert_eq!(fusion[0]["loops"][1]["shift"], 1, "{r:#}");
    // Without fusion the N + 1 cells stay (all N values are live between
    // the loops).
    let r = common::json_report(&["--no-fusion", "corpus/song_example1.c"]);
    assert_eq!(common::new_cells(&r, "A"), Some(101), "{r:#}");
    assert!(
        r["files"][0]["fusion"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
}

/// The corpus filter chain: each stage reads its predecessor at i - 1, i
/// and i + 1, so the stages are shifted by 1 and 2; each intermediate is
/// read last two fused iterations after its write: 3 cells each. The
/// Gaussian filter of seed 002 (GeCoS): its rows fused, then its columns
/// shifted by 1 (`out[i][j]` reads `tmp[i][j + 1]`): 3 cells, where seed
/// 002 reports 4 under its fused schedule.
#[test]
fn the_filter_chain_and_the_gaussian_filter_fold_to_three_cells() {
    let r = common::json_report(&["corpus/filter_chain.c"]);
    assert_eq!(common::new_cells(&r, "t1"), Some(3), "{r:#}");
    assert_eq!(common::new_cells(&r, "t2"), Some(3), "{r:#}");
    let shifts: Vec<i64> = r["files"][0]["fusion"][0]["loops"]
        .as_array()
        .expect("a fused run")
        .iter()
        .map(|l| l["shift"].as_i64().expect("shift"))
        .collect();
    assert_eq!(shifts, [0, 1, 2]);
    // gecos_gaussian: with --min-memory its inner `j` loops are fused
    // too and `tmp` keeps a window of 3 cells; by default the cost rule
    // keeps them apart (the window stops their vectorisation,
    // docs/benchmarks.md) and `tmp` is one row of M = 40 cells, written
    // and read in the same iteration of the fused `i` loops.
    let r = common::json_report(&["--min-memory", "corpus/gecos_gaussian.c"]);
    assert!(
        common::new_cells(&r, "tmp").is_some_and(|c| c <= 4),
        "{r:#}"
    );
    let r = common::json_report(&["corpus/gecos_gaussian.c"]);
    assert_eq!(common::new_cells(&r, "tmp"), Some(40), "{r:#}");
}

/// Fused outputs run like the originals at small sizes, where the
/// prologue and the epilogue run with and without their guards (a loop
/// of no iteration, of one, of fewer than the shifts).
#[test]
fn fused_outputs_run_like_the_originals_at_small_sizes() {
    // At N = 0, song_example1's A has 1 cell: nothing to save, nothing
    // is fused. At N = 1 (2 cells) the run of two loops re-scheduled
    // whole needs 1 (its two one-iteration loops become a prologue and an
    // epilogue without loops); at the largest size of each list, fusion
    // pays.
    // song_example2 is fused by a whole-SCoP re-schedule: with
    // --pin-sizes it assumes `JN >= 2 && KN >= 2`; without, the text keeps
    // its guards on the sizes and holds at every size (KN = 1 included).
    for (name, param, sizes, pin_sizes) in [
        ("song_example1", "N", &[0i64, 1, 2, 3, 7][..], false),
        ("filter_chain", "N", &[1, 2, 3, 4, 5, 6, 9], false),
        ("gecos_gaussian", "M", &[1, 2, 3, 5], false),
        ("song_example2", "KN", &[1, 2, 3, 5], true),
        ("song_example2", "KN", &[1, 2, 3, 5], false),
    ] {
        let (_, source) = corpus(name);
        let options = polyfold::pipeline::ContractOptions {
            pin_sizes,
            ..Default::default()
        };
        for &n in sizes {
            let sized = common::with_define(&source, param, n);
            let dir =
                polyfold_fuzz::check::scratch_dir(&format!("fusion-{name}-{n}")).expect("scratch");
            let path = dir.join(format!("{name}.c"));
            std::fs::write(&path, &sized).expect("write");
            let program = extract(name, &sized, &Options::default());
            let (contraction, fusion) =
                polyfold::pipeline::contract_read(&program, &options, &Options::default())
                    .expect("contracts");
            if name == "song_example1" && n == 0 {
                assert!(fusion.is_none(), "{name} at {param} = {n}");
            }
            if n == sizes[sizes.len() - 1] {
                assert!(fusion.is_some(), "{name} at {param} = {n}");
            }
            common::assert_runs_like_original(&path, name, "fusion", &contraction.output);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// Seed 003 §5 (Example 2, Livermore-like): after shifting L1, L3 and
/// L4 by (1, 0) against L2 and fusing the four nests at both levels, ZA's
/// values die one inner iteration after their birth (2 cells) and ZB's a
/// row later (JN cells). The edge loops that write `ZA[1][k]` and
/// `ZB[j][KN + 1]` are placed with the nests that write the same arrays.
/// The scanner prints the SCoP again. With `--pin-sizes` the text
/// assumes `JN >= 2 && KN >= 2` (true at the file's values) and pins it;
/// by default it keeps the guards on the sizes, so the same fusion holds
/// at every size. `verify` traces both.
#[test]
fn song_example2_reaches_the_paper_s_sizes_by_rescheduling() {
    let r = common::json_report(&["--pin-sizes", "corpus/song_example2.c"]);
    assert_eq!(common::new_cells(&r, "ZA"), Some(2), "{r:#}");
    assert_eq!(common::new_cells(&r, "ZB"), Some(24), "{r:#}");
    let what = r["files"][0]["rescheduled"][0]["schedule"]
        .as_str()
        .expect("a re-scheduled SCoP");
    assert!(
        what.contains("S0, S2, S4, S5 by (0, 0); S1, S3 by (-1, 0)"),
        "{what}"
    );
    let out = common::polyfold_stdout(&["--pin-sizes", "corpus/song_example2.c"]);
    assert!(
        out.contains(
            "_Static_assert(JN >= 2 && KN >= 2,\n                   \"polyfold: the schedule"
        ),
        "{out}"
    );
    // Without --pin-sizes the output holds at every size: the same
    // re-schedule and sizes (certified for every value), the guards on
    // the sizes kept (the fused nest runs `if (JN >= 2)`, its epilogue
    // `if (KN >= 2 && JN >= 2)`).
    let plain = common::polyfold_stdout(&["corpus/song_example2.c"]);
    assert!(!plain.contains("_Static_assert"), "{plain}");
    let r = common::json_report(&["corpus/song_example2.c"]);
    assert_eq!(common::new_cells(&r, "ZA"), Some(2), "{r:#}");
    assert_eq!(common::new_cells(&r, "ZB"), Some(24), "{r:#}");
    assert!(!r.to_string().contains("holds only where"), "{r:#}");
    common::assert_lines(
        &plain,
        &[
            "    if (JN >= 2)",
            "        for (k = 2; k <= KN - 1; k++) {",
            "    if (KN >= 2 && JN >= 2) {",
            "        ZA[1] = za_edge[KN];",
        ],
    );
    let verify = common::polyfold_stdout(&["verify", "corpus/song_example2.c"]);
    assert!(
        verify.contains("re-scheduled")
            && verify.contains("reads see the values of the original schedule"),
        "{verify}"
    );
    // No guard is left in the fused loops.
    let scop =
        &out[out.find("#pragma scop").expect("scop")..out.find("#pragma endscop").expect("end")];
    assert!(!scop.contains("if ("), "{scop}");
    let verify = common::polyfold_stdout(&["verify", "--pin-sizes", "corpus/song_example2.c"]);
    assert!(
        verify.contains("re-scheduled")
            && verify.contains("reads see the values of the original schedule"),
        "{verify}"
    );
    // --no-fusion keeps the schedule and the arrays.
    let r = common::json_report(&["--no-fusion", "corpus/song_example2.c"]);
    assert_eq!(common::new_cells(&r, "ZA"), Some(572), "{r:#}");
}

/// A run of nests after a statement outside any loop, the first nest
/// writing its temporary under `if ... else` (the else branch a union of
/// two pieces): the run is re-scheduled whole (the statement before it
/// stays), the nests fuse at both levels, and `T`, read one row back and
/// one column back, keeps one row and two cells (M + 2 = 16 values live
/// at once; the outer fusion alone keeps two rows). The output runs like
/// the original, at the file's sizes and at others.
#[test]
fn a_run_after_a_statement_with_a_union_domain_is_rescheduled() {
    let path = "tests/fusion_cases/nest_union_domain.c";
    // --min-memory: by default the cost rule refuses the inner loops'
    // fusion, whose rotating storage hands values on along the innermost
    // loop and stops its vectorisation (docs/benchmarks.md).
    let r = common::json_report(&["--min-memory", "--pin-sizes", path]);
    assert_eq!(common::new_cells(&r, "T"), Some(16), "{r:#}");
    assert!(
        r["files"][0]["rescheduled"][0]["schedule"].is_string(),
        "{r:#}"
    );
    let source = std::fs::read_to_string(path).expect("case");
    for (n, m) in [(30, 14), (1, 1), (2, 5), (7, 2)] {
        let sized = common::with_define(&common::with_define(&source, "N", n), "M", m);
        let dir =
            polyfold_fuzz::check::scratch_dir(&format!("nest-union-{n}-{m}")).expect("scratch");
        let file = dir.join("nest_union_domain.c");
        std::fs::write(&file, &sized).expect("write");
        let out = common::polyfold_stdout(&["--min-memory", file.to_str().expect("utf-8")]);
        common::assert_runs_like_original(&file, "nest_union_domain", "nest", &out);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The trace check compares value ids between the original and the
/// fused schedule: fusing seed 003's Example 1 without the shift keeps
/// every instance and access (the exact check passes) but makes the first
/// statement read `E[i - 1]` after the second overwrote it: the trace
/// check must say so. With the shift by 1 it passes.
#[test]
fn the_trace_check_catches_a_fusion_without_its_shift() {
    let original = "#define N 6\n\
void f(double E[N + 1])\n{\n    int i;\n    double A[N + 1];\n#pragma scop\n    \
for (i = 1; i <= N; i++)\n        A[i] = E[i] + E[i - 1];\n    \
for (i = 1; i <= N; i++)\n        E[i] = A[i];\n#pragma endscop\n}\n";
    let unshifted = "#define N 6\n\
void f(double E[N + 1])\n{\n    int i;\n    double A[N + 1];\n#pragma scop\n    \
for (i = 1; i <= N; i++) {\n        A[i] = E[i] + E[i - 1];\n        E[i] = A[i];\n    }\n\
#pragma endscop\n}\n";
    let shifted = "#define N 6\n\
void f(double E[N + 1])\n{\n    int i;\n    double A[N + 1];\n#pragma scop\n    \
for (i = 1; i <= N + 1; i++) {\n        if (i <= N)\n            A[i] = E[i] + E[i - 1];\n        \
if (i >= 2)\n            E[i - 1] = A[i - 1];\n    }\n#pragma endscop\n}\n";
    let o = extract("o.c", original, &Options::default());
    let shifted_by = |k: usize, s: i64| Origin::shifted(k, &[s], 1).expect("small shift");
    let order_plain = vec![shifted_by(0, 0), shifted_by(1, 0)];
    let order_shifted = vec![shifted_by(0, 0), shifted_by(1, 1)];
    let mut budget = Budget::new(10_000_000, None);
    let values = o.scops[0].param_values().expect("N = 6");

    let u = extract("u.c", unshifted, &Options::default());
    polyfold::schedule::check::check_fused(&o.scops[0], &u.scops[0], &order_plain)
        .expect("same instances and accesses");
    let wrong = polyfold::schedule::trace::same_values(
        &o.scops[0],
        (&u.scops[0], &[]),
        &order_plain,
        &values,
        &mut budget,
    );
    assert!(wrong.is_err(), "the unshifted fusion passed: {wrong:?}");
    // The exact order check says so too, for every N.
    assert!(polyfold::schedule::nest::order_kept(&o.scops[0], &u.scops[0], &order_plain).is_err());

    let s = extract("s.c", shifted, &Options::default());
    polyfold::schedule::check::check_fused(&o.scops[0], &s.scops[0], &order_shifted)
        .expect("same instances and accesses");
    let right = polyfold::schedule::trace::same_values(
        &o.scops[0],
        (&s.scops[0], &[]),
        &order_shifted,
        &values,
        &mut budget,
    );
    // 2 reads per instance of the first statement, 1 of the second.
    assert_eq!(right, Ok(3 * 6));
    polyfold::schedule::nest::order_kept(&o.scops[0], &s.scops[0], &order_shifted)
        .expect("the shifted fusion keeps every dependence");
    // The exact check sees a copy that runs the wrong instances: with the
    // order claiming no shift, the second statement's domain is off by one.
    assert!(
        polyfold::schedule::check::check_fused(&o.scops[0], &s.scops[0], &order_plain).is_err()
    );
}

/// What is not fused: loops around a scalar that one writes and the
/// next reads (every iteration of the second depends on the last of the
/// first: no bounded shift), and a loop marked parallel.
#[test]
fn a_scalar_between_loops_and_a_parallel_loop_keep_the_schedule() {
    let dir = polyfold_fuzz::check::scratch_dir("fusion-kept").expect("scratch");
    let scalar = dir.join("scalar.c");
    std::fs::write(
        &scalar,
        "#define N 100\n\
double f(const double in[N], double out[N])\n{\n    int i;\n    double t[N];\n    double s = 0.0;\n\
#pragma scop\n    for (i = 0; i < N; i++)\n        t[i] = in[i] * 2.0;\n    \
for (i = 0; i < N; i++)\n        s = s + t[i];\n    \
for (i = 0; i < N; i++)\n        out[i] = t[i] / s;\n#pragma endscop\n    return s;\n}\n",
    )
    .expect("write");
    let parallel = dir.join("parallel.c");
    std::fs::write(
        &parallel,
        "#define N 100\n\
void f(const double in[N], double out[N])\n{\n    int i;\n    double t[N];\n\
#pragma scop\n#pragma omp parallel for\n    for (i = 0; i < N; i++)\n        t[i] = in[i] * 2.0;\n    \
for (i = 0; i < N; i++)\n        out[i] = t[i] + 1.0;\n#pragma endscop\n}\n",
    )
    .expect("write");
    for path in [&scalar, &parallel] {
        let p = path.to_str().expect("utf-8 path");
        let r = common::json_report(&[p]);
        let fused = r["files"][0]["fusion"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        // The scalar file: the first two loops (t, then the sum) may not
        // fuse with the third, which reads the final sum; the first two
        // alone would not shrink t (the third still reads all of it).
        assert!(fused.is_empty(), "{p}: {r:#}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shifts bring producers and consumers together (seed 003 §3–4):
/// song_example2's four loops ZA, ZB, ZP, ZQ with the constraints
/// `σ_ZP ≥ σ_ZA`, `σ_ZP ≥ σ_ZB + 1` (`ZB[j][k + 1]`), the same for ZQ, and
/// flows ZA→ZP, ZA→ZQ, ZB→ZP, ZB→ZQ. The smallest shifts (0, 0, 1, 1)
/// leave a spread of 4; shifting ZB by -1 instead gives (0, -1, 0, 0) and
/// a spread of 2 (by hand: 0 + 0 + 1 + 1).
#[test]
fn the_shifts_minimise_the_producer_consumer_distances() {
    let deltas = vec![
        vec![],
        vec![None],
        vec![Some(0), Some(1)],
        vec![Some(0), Some(1), None],
    ];
    let flows = [(0, 2), (0, 3), (1, 2), (1, 3)];
    assert_eq!(
        polyfold::schedule::fusion::choose_shifts(&deltas, &flows),
        vec![0, -1, 0, 0]
    );
    // A chain: each loop at least 1 after the previous; the least shifts.
    let chain = vec![vec![], vec![Some(1)], vec![None, Some(1)]];
    assert_eq!(
        polyfold::schedule::fusion::choose_shifts(&chain, &[(0, 1), (1, 2)]),
        vec![0, 1, 2]
    );
}

/// jacobi2d_smoothing fused: every stage reads rows `i - 1`, `i` and
/// `i + 1` of the one before, so each of `a` and `A0`..`A3` needs three
/// rows of N = 64 cells, `[i % 3][j]`, certified for every N: 192 cells.
/// The optimal lattice at N = 64 saves one cell of the 192 (the values of
/// the row read last are dead one column early), pinned to N = 64 with a
/// `_Static_assert` and a `% 191`: not worth it by default (a pinned
/// layout must save an eighth); `--min-memory` still takes it.
#[test]
fn a_pinned_lattice_must_save_an_eighth_over_rows_for_every_n() {
    let r = common::json_report(&["corpus/jacobi2d_smoothing.c"]);
    for array in ["a", "A0", "A1", "A2", "A3"] {
        assert_eq!(common::new_cells(&r, array), Some(3 * 64), "{array}: {r:#}");
    }
    let out = common::polyfold_stdout(&["corpus/jacobi2d_smoothing.c"]);
    assert!(!out.contains("_Static_assert"), "{out}");
    assert!(out.contains("double A0[3][N];"), "{out}");
    // One loop, rows i, i - 1 and i + 1 of every array: three rotating
    // indices, shared by the arrays, named after the loop's iterator.
    assert!(
        out.contains("    int i_r0, i_r1, i_r2; /* polyfold: rotating indices"),
        "{out}"
    );
    let r = common::json_report(&["--min-memory", "--pin-sizes", "corpus/jacobi2d_smoothing.c"]);
    for array in ["a", "A0", "A1", "A2", "A3"] {
        let cells = common::new_cells(&r, array).expect("a size");
        assert!(cells < 3 * 64, "{array}: {cells}");
    }
}

/// A two-stage chain after a loop of another shape that touches nothing
/// of it: the chain is fused, the second stage shifted by 1 (it reads
/// `t[i + 1]`, written one iteration later), so each `t[x]` is written at
/// fused iteration x and read last at x + 2: 3 cells. The M loop stays as
/// it is. The output runs like the original.
#[test]
fn a_chain_after_a_loop_of_another_shape_is_fused() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fusion_cases/chain_after_other_loop.c");
    let file = path.to_str().expect("utf-8 path");
    let r = common::json_report(&[file]);
    assert_eq!(common::new_cells(&r, "t"), Some(3), "{r:#}");
    let fusion = &r["files"][0]["fusion"][0];
    assert_eq!(fusion["loops"].as_array().map(Vec::len), Some(2), "{r:#}");
    assert_eq!(fusion["loops"][0]["line"], 24, "{r:#}");
    assert_eq!(fusion["loops"][1]["shift"], 1, "{r:#}");
    let output = common::polyfold_stdout(&[file]);
    assert!(
        output.contains("    for (i = 0; i <= M - 1; i++)\n        copy[i] = 2.0 * in[i];\n"),
        "{output}"
    );
    common::assert_runs_like_original(&path, "chain_after_other_loop", "fusion", &output);
}

/// Symbolic sizes, and an unfused SCoP whose temporaries are merged into
/// one buffer of N2 - 2 cells: the stages read `T0[k - 2]` and `T1[k - 2]`,
/// so shifting them by -2 and -4 makes each value read in the iteration
/// that writes it: one cell each, for every N2, which beats the merged
/// buffer at the sample sizes. The output runs like the original for
/// every size the program calls its kernel with (1, 2, 3 among them).
#[test]
fn symbolic_sizes_compare_fusion_with_merged_buffers() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fusion_cases/symbolic_merged_base.c");
    let file = path.to_str().expect("utf-8 path");
    let r = common::json_report(&[file]);
    let fusion = &r["files"][0]["fusion"][0];
    let shifts: Vec<i64> = fusion["loops"]
        .as_array()
        .expect("fused loops")
        .iter()
        .map(|l| l["shift"].as_i64().expect("a shift"))
        .collect();
    assert_eq!(shifts, [0, -2, -4], "{r:#}");
    let output = common::polyfold_stdout(&[file]);
    assert!(output.contains("    double T0; /* polyfold"), "{output}");
    assert!(output.contains("    double T1; /* polyfold"), "{output}");
    common::assert_runs_like_original(&path, "symbolic_merged_base", "fusion", &output);
}

/// The mapping comments of fused arrays name their dimensions after the
/// iterators the reader sees, as those of unfused arrays do, even when
/// no access of the fused text uses a plain iterator (`t2[i - 1]`,
/// `t2[i + 1]`): the iterators of each original loop, read from the
/// original text here, never `c0`.
#[test]
fn mapping_comments_of_fused_arrays_name_the_loop_iterators() {
    for (kernel, arrays) in [
        ("filter_chain", &["t1", "t2"][..]),
        ("jacobi2d_smoothing", &["A0", "A1", "A2", "A3", "A4"][..]),
    ] {
        let (path, source) = corpus(kernel);
        let output = common::polyfold_stdout(&[path.as_os_str()]);
        // The iterators of the original's `for` headers.
        let iterators: Vec<&str> = source
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("for ("))
            .filter_map(|h| h.split(['=', ' ']).next())
            .collect();
        for array in arrays {
            let comment = output
                .lines()
                .find_map(|l| l.split_once(&format!("/* polyfold: {array}[")))
                .map(|(_, c)| c)
                .unwrap_or_else(|| panic!("{kernel}: no comment for {array}\n{output}"));
            let left = comment.split_once(" -> ").expect("a mapping").0;
            for name in left.split("][") {
                let name = name.trim_end_matches(']');
                assert!(
                    iterators.contains(&name),
                    "{kernel}: {array}: `{name}` in `{comment}`, iterators {iterators:?}"
                );
            }
        }
    }
}

/// Fusion is judged on the arrays whose cells change: a chain beside a
/// temporary of N·N cells, all live at once (kept), is fused, its
/// intermediate in 3 cells (the stage reads `t[i - 1]` and `t[i + 1]`:
/// shifted by one, the values `i - 1`, `i`, `i + 1` are live together).
/// Judged on the whole SCoP (4096 + 64 -> 4096 + 3 at N = 64) it was not.
/// The output runs like the original.
#[test]
fn a_chain_beside_a_big_kept_temporary_is_fused() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fusion_cases/chain_beside_big_temporary.c");
    let file = path.to_str().expect("utf-8 path");
    let r = common::json_report(&[file]);
    assert_eq!(common::new_cells(&r, "t"), Some(3), "{r:#}");
    assert_eq!(common::new_cells(&r, "big"), Some(64 * 64), "{r:#}");
    // The chain's stages (lines 29 and 31), the second shifted by one.
    // (The column loop of `sums` before them, independent of them, joins
    // the run since one of its steps touches 64 lines of `big`, 4 KiB:
    // see `schedule::footprint`.)
    let fusion = &r["files"][0]["fusion"][0];
    let shift_at = |line: i64| {
        fusion["loops"]
            .as_array()
            .and_then(|l| l.iter().find(|x| x["line"] == line))
            .map(|x| x["shift"].as_i64())
    };
    assert_eq!(
        shift_at(31)
            .flatten()
            .zip(shift_at(29).flatten())
            .map(|(b, a)| b - a),
        Some(1),
        "{r:#}"
    );
    let output = common::polyfold_stdout(&[file]);
    common::assert_runs_like_original(&path, "chain_beside_big_temporary", "fusion", &output);
}

/// Issue 48 item 2: sibling loops inside a time loop are fused at depth 1.
/// Step `t` writes its own row `tmp[t][.]` and the second loop reads
/// `tmp[t][i]` at the same `i`: distance 0, no shift. Fused, every cell is
/// read in the iteration that writes it, so even cell lifetimes give 1 cell
/// of the 4 x 30 (unfused, a whole row of 30 is live at once).
#[test]
fn sibling_loops_inside_a_time_loop_are_fused() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fusion_cases/inner_run_per_step_rows.c");
    let file = path.to_str().expect("utf-8 path");
    let r = common::json_report(&[file]);
    assert_eq!(common::new_cells(&r, "tmp"), Some(1), "{r:#}");
    let fusion = &r["files"][0]["fusion"][0];
    assert_eq!(fusion["loops"].as_array().map(Vec::len), Some(2), "{r:#}");
    assert_eq!(fusion["loops"][0]["line"], 23, "{r:#}");
    assert_eq!(fusion["loops"][1]["line"], 25, "{r:#}");
    assert_eq!(fusion["loops"][1]["shift"], 0, "{r:#}");
    let output = common::polyfold_stdout(&[file]);
    assert!(
        output.contains(
            "    for (t = 0; t <= T - 1; t++) {\n        for (i = 0; i <= N - 1; i++) {\n            tmp = a[i] + t;\n            acc[i] += 2.0 * tmp;\n        }\n    }\n"
        ),
        "{output}"
    );
    common::assert_runs_like_original(&path, "inner_run_per_step_rows", "fusion", &output);
}

/// Issue 48 item 2, with a shift: a 3-point chain inside a time loop on
/// rows `tmp[t][.]`. The second loop reads `tmp[t][i + 1]`, written one
/// iteration later: shifted by 1, `tmp[t][j]` lives from fused iteration
/// `j` (its write) to `j + 2` (its read by `acc[j + 1]`): 3 cells, where
/// unfused a row of `N - 2 = 28` is live at once.
#[test]
fn a_stencil_chain_inside_a_time_loop_is_shifted_and_fused() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fusion_cases/inner_run_shifted_stencil.c");
    let file = path.to_str().expect("utf-8 path");
    // --min-memory: by default the cost rule refuses this fusion, whose
    // rotating scalars hand values on along the innermost loop and stop
    // its vectorisation (docs/benchmarks.md).
    let r = common::json_report(&["--min-memory", file]);
    assert_eq!(common::new_cells(&r, "tmp"), Some(3), "{r:#}");
    let fusion = &r["files"][0]["fusion"][0];
    assert_eq!(fusion["loops"][0]["line"], 22, "{r:#}");
    assert_eq!(fusion["loops"][1]["line"], 24, "{r:#}");
    assert_eq!(fusion["loops"][1]["shift"], 1, "{r:#}");
    let output = common::polyfold_stdout(&["--min-memory", file]);
    assert!(
        output.contains(
            "            tmp_s2 = a[i - 1] + a[i + 1] + t;\n            acc[i - 1] += 0.5 * (tmp_s0 + tmp_s2);\n"
        ),
        "{output}"
    );
    common::assert_runs_like_original(&path, "inner_run_shifted_stencil", "fusion", &output);
}

/// Issue 48 item 2, the issue's example with T = 10: the two `i` loops
/// inside `for t` are planned as one run at depth 1 under `t`, unshifted
/// (`tmp[i]` is read at the `i` that writes it: distance 0). The pipeline
/// does not keep it yet: with cell lifetimes every cell of `tmp` is
/// rewritten each step, so the fused version needs 100 cells too.
#[test]
fn the_issue_s_time_loop_example_is_planned_at_depth_one() {
    let source = "#define N 100\n#define T 10\ndouble a[N], b[N], acc[N];\n\
void k(void) {\n  double tmp[N];\n  for (int t = 0; t < T; t++) {\n    \
for (int i = 0; i < N; i++)\n      tmp[i] = a[i] + t;\n    \
for (int i = 0; i < N; i++)\n      acc[i] += tmp[i];\n  }\n}\n";
    let p = extract("k.c", source, &Options::default());
    assert_eq!(p.scops.len(), 1);
    let runs = polyfold::schedule::plan_fusion(&p, 0, false);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].depth, 1);
    assert_eq!(runs[0].outer, vec!["t".to_string()]);
    let lines: Vec<usize> = runs[0].loops.iter().map(|l| l.line).collect();
    assert_eq!(lines, vec![7, 9]);
    let shifts: Vec<i64> = runs[0].loops.iter().map(|l| l.shift).collect();
    assert_eq!(shifts, vec![0, 0]);
}
