//! Rotating scalars (seed 003, Fig. 1(d)): a folded array of at most four
//! cells, accessed as `A[i + c]` in a run of loops of `i` whose iterator
//! values continue one another, becomes named scalars that each loop
//! shifts at the end of its body (`codegen::scalars`, placed by
//! `codegen::placement`; in the header when the body may jump out).
//!
//! song_example1's `A` becomes two scalars, filter_chain's `t1` and `t2`
//! three each: no `%`, no subscript of theirs and no rotating index is
//! left. Each output is compiled with ASan/UBSan and prints what the
//! original prints, with the sizes in the file and, for the VLA twins
//! (`tests/scalars/*_vla.c`), at N = 0, 1, 2, 3, 4, 5, 7 and 500: at N =
//! 0 the fused steady loop of song_example1 runs "minus one" iterations
//! (`2..0`), which the guards of its neighbours make harmless, and the
//! proof must see that. Refused: a middle loop two above its bound with
//! an access before and after it (`tests/scalars/broken_middle.c`: the
//! fold stays), and a subscript `2 * i` (`tests/scalars/strided.c`).
//!
//! Inside nested loops (issue 18): gecos_gaussian's `tmp[i][j]`, folded
//! to `tmp[j % 3]`, is a window of three cells of row `i` that the loops
//! of `j` in the body of the loop of `i` restart on every row: three
//! scalars shifted at the end of the inner loops' bodies, checked with the sizes of the
//! file and, for its VLA twin (`tests/scalars/gaussian_vla.c`), at every
//! `N x M` with N, M in 0..=5 and a few larger ones. Refused: a read of
//! the row before (`tests/scalars/previous_row.c`: `tmp[i - 1][j]`,
//! folded to `tmp[j % 3]` all the same, reaches back one iteration of
//! the loop of `i`, which the scalars do not cross), and the broken
//! middle loop on every row of a loop around
//! (`tests/scalars/broken_middle_rows.c`).

use crate::common;

use std::path::Path;
use std::process::Command;

use polyfold_fuzz::check::{compile, scratch_dir};

const SANITIZE: [&str; 5] = [
    "-std=c11",
    "-O1",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-Wno-unknown-pragmas",
];

fn output_of(path: &str, args: &[&str]) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.push(path);
    common::polyfold_stdout(&all)
}

/// Compiles `text` (as `dir/name.c`) with the sanitizers.
fn build(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, text).expect("write");
    let exe = dir.join(format!("{name}.exe"));
    compile(&src, &exe, &SANITIZE).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
    exe
}

fn run(exe: &Path, args: &[&str]) -> String {
    let o = Command::new(exe).args(args).output().expect("runs");
    assert!(
        o.status.success(),
        "{}: {}",
        exe.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

/// Asserts that the original at `path` and `output` print the same, run
/// with each of `sizes` as their argument (none: once without).
fn assert_same_runs(path: &str, output: &str, sizes: &[&str]) {
    let name = Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("name");
    let dir = scratch_dir(&format!("scalars-{name}")).expect("scratch dir");
    let original =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("source");
    let before = build(&dir, &format!("{name}.orig"), &original);
    let after = build(&dir, &format!("{name}.out"), output);
    let runs: Vec<Vec<&str>> = if sizes.is_empty() {
        vec![vec![]]
    } else {
        sizes.iter().map(|s| vec![*s]).collect()
    };
    for args in runs {
        assert_eq!(
            run(&after, &args),
            run(&before, &args),
            "{path} with {args:?}:\n{output}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// No rotating index (`_r0`) anywhere in `output`.
fn assert_no_rotating_index(output: &str) {
    assert!(
        !output.contains("_r0"),
        "no rotating index is left:\n{output}"
    );
}

/// No access to `array` (`array[`) and no `%` between the SCoP markers.
fn assert_no_array_left(output: &str, array: &str) {
    let scop = common::scop_text(output);
    assert!(
        !scop.contains(&format!("{array}[")),
        "{array}[ left:\n{scop}"
    );
    assert!(!scop.contains('%'), "a `%` left:\n{scop}");
}

const SIZES: [&str; 8] = ["0", "1", "2", "3", "4", "5", "7", "500"];

#[test]
fn song_example1_keeps_a_in_two_scalars() {
    let output = output_of("corpus/song_example1.c", &[]);
    common::assert_lines(
        &output,
        &[
            "    double A_s0 = 0, A_s1 = 0; /* polyfold: A[i] -> scalars A_s0 = A[i - 1], A_s1 = A[i] in the loops of i */",
            "    for (i = 2; i <= N; i++) {",
            "        A_s1 = E[i] + E[i - 1];",
            "        E[i - 1] = A_s0;",
            "        A_s0 = A_s1;",
            "    }",
            // The epilogue at i = N + 1: `N + 1 >= 2` and `E[N + 1 - 1]`.
            "    if (N >= 1)",
            "        E[N] = A_s0;",
        ],
    );
    assert_no_array_left(&output, "A");
    assert_same_runs("corpus/song_example1.c", &output, &[]);
}

#[test]
fn filter_chain_keeps_t1_and_t2_in_three_scalars_each() {
    let output = output_of("corpus/filter_chain.c", &[]);
    common::assert_lines(
        &output,
        &[
            "    /* polyfold: t1[i] -> scalars t1_s0 = t1[i - 2], t1_s1 = t1[i - 1], t1_s2 = t1[i] in the loops of i */",
            "    double t1_s0 = 0, t1_s1 = 0, t1_s2 = 0;",
            "    /* polyfold: t2[i] -> scalars t2_s0 = t2[i - 3], t2_s1 = t2[i - 2], t2_s2 = t2[i - 1] in the loops of i */",
            "    double t2_s0 = 0, t2_s1 = 0, t2_s2 = 0;",
            "        out[i - 2] = t2_s2 - t2_s0;",
        ],
    );
    assert_no_array_left(&output, "t1");
    assert_no_array_left(&output, "t2");
    assert_no_rotating_index(&output);
    assert_same_runs("corpus/filter_chain.c", &output, &[]);
}

#[test]
fn symbolic_sizes_run_like_the_original_from_n_0_on() {
    let song = output_of("tests/scalars/song_vla.c", &[]);
    assert!(song.contains("double A_s0 = 0, A_s1 = 0;"), "{song}");
    assert_no_array_left(&song, "A");
    assert_same_runs("tests/scalars/song_vla.c", &song, &SIZES);
    let filter = output_of("tests/scalars/filter_vla.c", &[]);
    assert!(
        filter.contains("double t1_s0 = 0, t1_s1 = 0, t1_s2 = 0;"),
        "{filter}"
    );
    assert_no_array_left(&filter, "t1");
    assert_no_array_left(&filter, "t2");
    assert_same_runs("tests/scalars/filter_vla.c", &filter, &SIZES);
}

/// `--no-rotate` keeps every `%`: no scalars either.
#[test]
fn no_rotate_keeps_the_fold() {
    let output = output_of("corpus/song_example1.c", &["--no-rotate"]);
    assert!(
        output.contains("double A[2]; /* polyfold: A[i] -> A[i % 2] */"),
        "{output}"
    );
    assert!(!output.contains("A_s0"), "{output}");
}

/// The middle loop runs from N + 1 to M = N - 1: the last loop starts one
/// iteration back, where a shift register would have lost `A[N - 1]`.
/// The fold stays, and the output runs like the original.
#[test]
fn a_middle_loop_two_above_its_bound_between_accesses_is_refused() {
    let output = output_of("tests/scalars/broken_middle.c", &["--pin-sizes"]);
    assert!(
        output.contains("double A[2]; /* polyfold: A[i] -> A[i % 2] */"),
        "{output}"
    );
    assert!(!output.contains("A_s0"), "{output}");
    assert!(
        common::scop_text(&output).contains("A[(i - 1) % 2]"),
        "{output}"
    );
    assert_same_runs("tests/scalars/broken_middle.c", &output, &[]);
}

/// `A[2 * i]` moves two cells per iteration: never scalars, with or
/// without `--min-memory` (the fold `A[(c0 / 2) % 2]` stays).
#[test]
fn a_subscript_with_coefficient_two_is_refused() {
    for args in [&[][..], &["--min-memory"][..]] {
        let output = output_of("tests/scalars/strided.c", args);
        assert!(!output.contains("A_s0"), "{output}");
        assert!(common::scop_text(&output).contains("A[i % 2]"), "{output}");
        assert_same_runs("tests/scalars/strided.c", &output, &[]);
    }
}

/// The lines of gecos_gaussian's output with `tmp` in scalars, worked out
/// from the fused schedule S0 -> [i, j], S1 -> [i, j + 2]: at iteration
/// `j` of the steady loop S1 computes `out[i][j - 1]` from `tmp[i][j - 2]`,
/// `tmp[i][j - 1]` and `tmp[i][j]` (`tmp_s0`, `tmp_s1`, `tmp_s2`), right
/// after S0 wrote `tmp[i][j]`. With --min-memory: by default the cost
/// rule keeps the two `j` loops apart (fused, the window stops their
/// vectorisation; docs/benchmarks.md), and `tmp` is one row.
#[test]
fn gecos_gaussian_keeps_a_row_window_of_tmp_in_three_scalars() {
    let output = output_of("corpus/gecos_gaussian.c", &["--min-memory"]);
    common::assert_lines(
        &output,
        &[
            "    /* polyfold: tmp[i][j] -> scalars tmp_s0 = tmp[i][j - 2], tmp_s1 = tmp[i][j - 1],",
            "       tmp_s2 = tmp[i][j] in the loops of j */",
            "    int tmp_s0 = 0, tmp_s1 = 0, tmp_s2 = 0;",
            "    for (i = 1; i < N - 1; i++) {",
            "        for (j = 0; j <= 1; j++) {",
            "            if (j <= M - 1)",
            "                tmp_s2 = 3 * in[i][j] - in[i - 1][j] - in[i + 1][j];",
            "            tmp_s0 = tmp_s1;",
            "            tmp_s1 = tmp_s2;",
            "        }",
            "        for (j = 2; j <= M - 1; j++) {",
            "            tmp_s2 = 3 * in[i][j] - in[i - 1][j] - in[i + 1][j];",
            "            out[i][j - 1] = 3 * tmp_s1 - tmp_s0 - tmp_s2;",
            "            tmp_s0 = tmp_s1;",
            "            tmp_s1 = tmp_s2;",
            "        }",
        ],
    );
    assert_no_array_left(&output, "tmp");
    assert_no_rotating_index(&output);
    assert_same_runs("corpus/gecos_gaussian.c", &output, &[]);
}

/// The VLA twin of gecos_gaussian, `N x M` given on the command line:
/// every size with N, M in 0..=5 (the loops of `i` and `j` empty, one
/// row, a steady loop of `j` that does not run, ...) and a few larger.
#[test]
fn a_row_window_with_symbolic_sizes_runs_like_the_original() {
    // --min-memory: see the test above.
    let output = output_of("tests/scalars/gaussian_vla.c", &["--min-memory"]);
    assert!(
        output.contains("int tmp_s0 = 0, tmp_s1 = 0, tmp_s2 = 0;"),
        "{output}"
    );
    assert!(
        output.contains("for (j = 2; j <= M - 1; j++) {"),
        "{output}"
    );
    // The window shifts at the end of the body (issue 49).
    assert!(
        output.contains("            tmp_s0 = tmp_s1;\n            tmp_s1 = tmp_s2;\n        }"),
        "{output}"
    );
    assert_no_array_left(&output, "tmp");
    let mut sizes: Vec<String> = Vec::new();
    for n in 0..=5 {
        for m in 0..=5 {
            sizes.push(format!("{n}x{m}"));
        }
    }
    sizes.extend(["7x2", "2x9", "9x9", "40x61"].map(String::from));
    let sizes: Vec<&str> = sizes.iter().map(String::as_str).collect();
    assert_same_runs("tests/scalars/gaussian_vla.c", &output, &sizes);
}

/// `tmp[i - 1][j]` is read in row `i`: the first dimension is dropped
/// (`tmp[j % 3]`), but a value crosses an iteration of the loop of `i`,
/// where the window of the scalars restarts. The fold and its rotating
/// index stay, and the output runs like the original.
#[test]
fn a_read_of_the_row_before_is_refused() {
    let output = output_of("tests/scalars/previous_row.c", &[]);
    assert!(
        output.contains("double tmp[3]; /* polyfold: tmp[i][j] -> tmp[j % 3] */"),
        "{output}"
    );
    assert!(!output.contains("tmp_s0"), "{output}");
    assert_same_runs(
        "tests/scalars/previous_row.c",
        &output,
        &["0", "1", "2", "3", "10"],
    );
}

/// `tests/scalars/broken_middle.c` in the body of a loop of `r`, on rows
/// `A[r][i]`: the middle loop of `i` runs "minus one" iterations on every
/// row, between accesses of the same row. The fold `A[i % 2]` stays, and
/// the output runs like the original.
#[test]
fn a_middle_loop_two_above_its_bound_inside_a_loop_is_refused() {
    let output = output_of("tests/scalars/broken_middle_rows.c", &["--pin-sizes"]);
    assert!(
        output.contains("double A[2]; /* polyfold: A[r][i] -> A[i % 2] */"),
        "{output}"
    );
    assert!(!output.contains("A_s0"), "{output}");
    assert_same_runs("tests/scalars/broken_middle_rows.c", &output, &[]);
}
