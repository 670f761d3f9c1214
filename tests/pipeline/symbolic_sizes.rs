//! Symbolic sizes: kernels whose sizes are `int` parameters (VLAs), with
//! no `#define` and no `-D`, are folded with mappings proven for every
//! parameter value (issue: "polyhedral at any size").
//!
//! `tests/symbolic/NAME_vla.c` are the symbolic-size twins of the corpus
//! kernels. The expected sizes are formulas in the parameters; each is
//! checked against an independent number: the corpus's successive-modulo
//! size at the paper's sizes (in `corpus/README.md`, brute-forced by
//! `corpus/check/brute_force_lifetimes.py`: durbin's `y` 200 = 2·100 at
//! N = 100, `alpha`, `beta`, `sum` 1; gauss's `g_tmp` 2 400 = (50 − 2)·50;
//! the ping-pongs' `P` N and N² at N = 64), evaluated by the test itself
//! from the formula. The original and the output are then compiled with
//! `cc -O1 -fsanitize=address,undefined`, and run for several sizes,
//! including 1, 2 and 3 (loops that do not run, extents that shrink to
//! nothing): they must print the same. Every run uses `--min-memory`: some
//! of these folds (`P[n + 2]` -> `P[i % n]`) save too little to pass the
//! cost rule, and what is tested here is the folding for every value.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use polyfold_fuzz::check::{compile, scratch_dir};
use serde_json::Value;

fn crate_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The JSON report's entries of `file` (no `-D`), by array name.
fn report(file: &str) -> Vec<Value> {
    report_with(&[], file)
}

/// [`report`] with more options.
fn report_with(options: &[&str], file: &str) -> Vec<Value> {
    let mut args = vec!["--report", "json", "--no-timings", "--min-memory"];
    args.extend_from_slice(options);
    args.push(file);
    let out = common::polyfold_stdout(&args);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    v["files"][0]["arrays"].as_array().expect("arrays").clone()
}

fn entry<'a>(arrays: &'a [Value], name: &str) -> &'a Value {
    arrays
        .iter()
        .find(|a| a["array"] == name)
        .unwrap_or_else(|| panic!("no array {name}"))
}

/// Evaluates a size formula (`2 * n`, `(n - 2) * m`, `(2 * n - 1)`, `1`,
/// `((n + 1) / 2)`) for `values` of the named parameters: integers,
/// names, `+`, `-`, `*`, `/` and parentheses, by recursive descent.
fn eval(formula: &str, values: &[(&str, i64)]) -> i64 {
    let spaced = formula.replace('(', " ( ").replace(')', " ) ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut pos = 0;
    let v = sum(&tokens, &mut pos, values);
    assert_eq!(pos, tokens.len(), "trailing tokens in {formula}");
    v
}

fn sum(t: &[&str], pos: &mut usize, values: &[(&str, i64)]) -> i64 {
    let mut acc = product(t, pos, values);
    while *pos < t.len() && (t[*pos] == "+" || t[*pos] == "-") {
        let sign = if t[*pos] == "+" { 1 } else { -1 };
        *pos += 1;
        acc += sign * product(t, pos, values);
    }
    acc
}

fn product(t: &[&str], pos: &mut usize, values: &[(&str, i64)]) -> i64 {
    let mut acc = atom(t, pos, values);
    while *pos < t.len() && (t[*pos] == "*" || t[*pos] == "/") {
        let times = t[*pos] == "*";
        *pos += 1;
        let v = atom(t, pos, values);
        if times {
            acc *= v;
        } else {
            // C's division, on the non-negative values of an extent.
            assert!(acc >= 0 && v > 0, "{acc} / {v}");
            acc /= v;
        }
    }
    acc
}

fn atom(t: &[&str], pos: &mut usize, values: &[(&str, i64)]) -> i64 {
    let token = t[*pos];
    *pos += 1;
    if token == "(" {
        let v = sum(t, pos, values);
        assert_eq!(t[*pos], ")");
        *pos += 1;
        return v;
    }
    token.parse::<i64>().unwrap_or_else(|_| {
        values
            .iter()
            .find(|(n, _)| *n == token)
            .unwrap_or_else(|| panic!("unknown name {token}"))
            .1
    })
}

/// Folded to `formula` (as the report prints it), which is `cells` at
/// `values`, and certified for every parameter value.
fn assert_folded(arrays: &[Value], name: &str, formula: &str, values: &[(&str, i64)], cells: i64) {
    let e = entry(arrays, name);
    assert_eq!(e["new_formula"], formula, "{name}: {e}");
    assert_eq!(eval(formula, values), cells, "{name} at {values:?}");
    assert!(
        e["note"]
            .as_str()
            .is_some_and(|n| n.contains("every parameter value")),
        "{name}: {e}"
    );
}

/// Compiles the original and polyfold's output of `file` with the
/// sanitizers and runs both with each argument list.
fn runs_the_same(file: &str, runs: &[&[&str]]) {
    let output = common::polyfold_stdout(&["--min-memory", file]);
    runs_the_same_as(file, "min-memory", &output, runs);
}

/// [`runs_the_same`] for polyfold's `output` of `file` (made with the
/// options `tag` names).
fn runs_the_same_as(file: &str, tag: &str, output: &str, runs: &[&[&str]]) {
    let original = std::fs::read_to_string(crate_path(file)).expect("read");
    assert_ne!(output, original, "{file}: nothing changed");
    assert!(
        !output.contains("_Static_assert"),
        "{file}: a mapping proven for every value needs no pin"
    );
    let stem = Path::new(file).file_stem().unwrap().to_string_lossy();
    let dir = scratch_dir(&format!("symbolic-{stem}-{tag}")).expect("scratch dir");
    let new_path = dir.join(format!("{stem}_out.c"));
    std::fs::write(&new_path, output).expect("write");
    let flags = [
        "-std=c11",
        "-O1",
        "-Wall",
        "-Werror",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
    ];
    let mut exes = Vec::new();
    for (tag, src) in [("orig", crate_path(file)), ("new", new_path)] {
        let exe = dir.join(format!("{tag}.exe"));
        compile(&src, &exe, &flags).unwrap_or_else(|e| panic!("{file} {tag}: {e}"));
        exes.push(exe);
    }
    for args in runs {
        let printed: Vec<String> = exes
            .iter()
            .map(|exe| {
                let o = Command::new(exe).args(*args).output().expect("runs");
                assert!(
                    o.status.success(),
                    "{file} {args:?}: {}",
                    String::from_utf8_lossy(&o.stderr)
                );
                String::from_utf8(o.stdout).expect("utf-8")
            })
            .collect();
        assert!(!printed[0].is_empty());
        assert_eq!(printed[0], printed[1], "{file} with {args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

const ONE_SIZE: [&[&str]; 7] = [&["1"], &["2"], &["3"], &["4"], &["5"], &["17"], &["100"]];

#[test]
fn durbin_with_a_symbolic_size() {
    let a = report("tests/symbolic/durbin_vla.c");
    let n = [("n", 100)];
    // The optimal lattice at N = 100 is (2i + k) mod 197 (seed 001 Fig. 3),
    // 2N - 3 from N = 4 on; 2N - 1 holds for every n (the runs below).
    assert_folded(&a, "y", "(2 * n - 1)", &n, 199);
    for name in ["alpha", "beta", "sum"] {
        assert_folded(&a, name, "1", &n, 1);
    }
    runs_the_same("tests/symbolic/durbin_vla.c", &ONE_SIZE);
}

#[test]
fn with_fast_modulo_a_runtime_modulus_wrapped_at_most_once_is_one_conditional_subtraction() {
    let file = "tests/symbolic/durbin_vla.c";
    // By default the inner loops' residues are rotating indices, and with
    // `--no-rotate` every `%` is printed (polyfold reads both back:
    // tests/frontend/quasi_affine.rs).
    let default = common::polyfold_stdout(&[file]);
    assert!(default.contains("* y[y_r0];"), "{default}");
    let plain = common::polyfold_stdout(&["--no-rotate", file]);
    assert!(
        plain.contains("y[(2 * i + k - 1) % (2 * n - 1)]"),
        "{plain}"
    );
    let output = common::polyfold_stdout(&["--fast-modulo", "--no-rotate", file]);
    // In the inner loop, 0 <= i <= k - 1 and 1 <= k <= n - 1, so
    // 0 <= 2i + k - 1 <= 3n - 6 < 2(2n - 1): below twice the modulus, so
    // `arg < b ? arg : arg - b` is the residue, with no division by the
    // run-time 2n - 1 (arg - b collected: 2i + k - 1 - (2n - 1) is
    // 2i + k - 2n).
    let line = "            sum = sum + r[k - i - 1] * y[2 * i + k - 1 < 2 * n - 1 ? 2 * i + k - 1 : 2 * i + k - 2 * n];";
    assert!(output.lines().any(|l| l == line), "{output}");
    // No `%` is left in a subscript of y (the comment states the mapping).
    assert!(
        output
            .lines()
            .filter(|l| !l.contains("/* polyfold:"))
            .all(|l| !l.contains("% (2 * n - 1)")),
        "{output}"
    );
    runs_the_same_as(file, "fast-modulo", &output, &ONE_SIZE);
    // Quasi-affine moduli (reg_detect's triangle): with one modulus added
    // to make it non-negative, `i - 2j + b < b` is `i - 2j < 0`
    // (j <= i <= n - 1 gives -j <= i - 2j, so i - 2j + b >= b - j >= 0).
    let file = "tests/symbolic/reg_detect_vla.c";
    let output = common::polyfold_stdout(&[
        "--fast-modulo",
        "--no-rotate",
        "--no-packing",
        "--no-fusion",
        file,
    ]);
    // The statement is over 120 columns: it is wrapped (issue 49), so
    // it is compared with the blanks of the output collapsed.
    let line = "mean[j < (n + 1) / 2 ? j : j - (n + 1) / 2][i - 2 * j < 0 ? i - 2 * j + (3 * n + 1) / 2 : i - 2 * j] = sum_d;";
    let flat = output.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(line), "{output}");
    runs_the_same_as(
        file,
        "fast-modulo",
        &output,
        &[
            &["1", "1"],
            &["2", "1"],
            &["3", "2"],
            &["6", "64"],
            &["7", "3"],
            &["9", "4"],
        ],
    );
}

#[test]
fn gauss_with_symbolic_sizes() {
    // Unfused, the brute-forced figure of the corpus kernel.
    let a = report_with(&["--no-fusion"], "tests/symbolic/gauss_vla.c");
    let nm = [("n", 50), ("m", 50)];
    assert_folded(&a, "g_tmp", "(n - 2) * m", &nm, 2400);
    // Fused (the column loops of each row, the consumer shifted by one):
    // a value of `g_tmp` is read last two columns after its write, 3
    // cells for every n and m.
    let a = report("tests/symbolic/gauss_vla.c");
    assert_folded(&a, "g_tmp", "3", &nm, 3);
    for name in ["tot", "g_acc1", "g_acc2"] {
        assert_folded(&a, name, "1", &nm, 1);
    }
    runs_the_same(
        "tests/symbolic/gauss_vla.c",
        &[
            &["1", "1"],
            &["2", "3"],
            &["3", "2"],
            &["3", "3"],
            &["4", "1"],
            &["7", "5"],
            &["50", "50"],
        ],
    );
}

/// The merged storage of the SCoP of `file` (no `-D`): made for every
/// value, its size formula, and that formula at `values` equals `cells`
/// (with `--min-memory`, like every run here: the merged stencils select
/// their buffers on the iterators, which the cost rule refuses by default).
fn assert_merged(file: &str, formula: &str, values: &[(&str, i64)], cells: i64) {
    let out = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["--report", "json", "--no-timings", "--min-memory", file])
        .output()
        .expect("the binary runs");
    let document: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let v = &document["files"][0];
    let merged = &v["merged"][0];
    assert_eq!(merged["every_value"], true, "{file}: {merged}");
    assert_eq!(merged["new_formula"], formula, "{file}: {merged}");
    assert_eq!(eval(formula, values), cells, "{file} at {values:?}");
    for a in v["arrays"].as_array().expect("arrays") {
        if a["array"] == "P" || a["array"] == "Q" {
            assert_eq!(a["method"], "inter-array", "{file}: {a}");
        }
    }
}

#[test]
fn pingpong_stencils_with_symbolic_sizes() {
    // Folded one by one, P takes n cells (`P[i % n]`) or n² and Q keeps
    // its (n + 2) or (n + 2)² cells; merged (seed 000 Table 1), the
    // time-iterated values share one window of n + 1 cells (a row of n + 1
    // rows in 2-d), and the boundary values that nobody rewrites get
    // buffers of their own: n + 3 in 1-d (67 at N = 64, the corpus's
    // #define size) and n(n + 1) + 4n in 2-d (4416 at N = 64). Both are
    // the max-live counts at those sizes (`polyfold verify`'s bound on the
    // corpus kernels), so no storage is smaller there.
    let a = report("tests/symbolic/pingpong1d_vla.c");
    assert_eq!(entry(&a, "P")["new_formula"], "n");
    assert_merged(
        "tests/symbolic/pingpong1d_vla.c",
        "(n + 1) + 1 + 1",
        &[("n", 64)],
        67,
    );
    let a = report("tests/symbolic/pingpong2d_vla.c");
    assert_eq!(entry(&a, "P")["new_formula"], "n * n");
    assert_merged(
        "tests/symbolic/pingpong2d_vla.c",
        "n * (n + 1) + n + n + n + n",
        &[("n", 64)],
        4416,
    );
    let runs: [&[&str]; 7] = [
        &["1", "0"],
        &["1", "3"],
        &["2", "1"],
        &["3", "2"],
        &["4", "5"],
        &["9", "4"],
        &["64", "6"],
    ];
    runs_the_same("tests/symbolic/pingpong1d_vla.c", &runs);
    runs_the_same("tests/symbolic/pingpong2d_vla.c", &runs);
}

#[test]
fn reg_detect_with_symbolic_sizes() {
    // Fused (the loops over j, then those over i: tests/pipeline/fusion.rs), each
    // (j, i) iteration writes sum_t, diff's p values, sum_d and mean and
    // reads them in the same iteration (sum_t also in the next): 1 cell
    // each, p for diff, as with the #defines (corpus/expected).
    let a = report("tests/symbolic/reg_detect_vla.c");
    for name in ["sum_t", "mean", "sum_d"] {
        assert_folded(&a, name, "1", &[("n", 6), ("p", 64)], 1);
    }
    assert_folded(&a, "diff", "p", &[("n", 6), ("p", 64)], 64);
    // On the loops as written:
    let a = report_with(&["--no-fusion"], "tests/symbolic/reg_detect_vla.c");
    assert_folded(&a, "sum_d", "1", &[("n", 6), ("p", 64)], 1);
    // The upper triangles packed row by row: n(n + 1)/2 cells, 21 at
    // n = 6 (the max-live bound: every value of the triangle is live at
    // once), and 21·64 = 1 344 for diff.
    let packed = "n * (n + 1) / 2";
    for name in ["sum_t", "mean"] {
        assert_folded(&a, name, packed, &[("n", 6)], 21);
        assert_eq!(entry(&a, name)["method"], "triangle packed", "{a:?}");
    }
    assert_folded(
        &a,
        "diff",
        &format!("{packed} * p"),
        &[("n", 6), ("p", 64)],
        1344,
    );
    // Without packing: the corpus's lattices with the moduli as formulas
    // (the quasi-affine ones are fitted through even sizes and certified
    // for every n): at n = 6, p = 64 the sizes of seed 001's Figure 3, 27
    // and 1 728.
    let a = report_with(
        &["--no-packing", "--no-fusion"],
        "tests/symbolic/reg_detect_vla.c",
    );
    let triangle = "((n + 1) / 2) * ((3 * n + 1) / 2)";
    for name in ["sum_t", "mean"] {
        assert_folded(&a, name, triangle, &[("n", 6)], 27);
    }
    assert_folded(
        &a,
        "diff",
        &format!("{triangle} * p"),
        &[("n", 6), ("p", 64)],
        1728,
    );
    // At odd n: ⌈n/2⌉·⌈3n/2⌉ (7: 4·11).
    assert_eq!(eval(triangle, &[("n", 7)]), 44);
    let runs: &[&[&str]] = &[
        &["1", "1"],
        &["2", "1"],
        &["3", "2"],
        &["2", "3"],
        &["6", "64"],
        &["11", "5"],
        &["7", "3"],
        &["9", "4"],
    ];
    runs_the_same("tests/symbolic/reg_detect_vla.c", runs);
    let file = "tests/symbolic/reg_detect_vla.c";
    let output = common::polyfold_stdout(&["--min-memory", "--no-packing", file]);
    runs_the_same_as(file, "no-packing", &output, runs);
}

/// Temporaries written at `B[i + j][j]` and `C[i][i + j]` and read after
/// the whole nest (issue 21's unimodular reindexing): every value is live
/// at once, and each write maps the n·m iterations one-to-one onto their
/// cells, so n·m is the least any storage can have (at n = 40, m = 30:
/// 1 200 of the 2 100 declared). The basis of the write, (c0 − c1, c1) or
/// (c0, c1 − c0), ranges over [0, n) × [0, m): no access wraps, so the
/// output has plain subscripts `B[i][j]`, `C[i][j]` and no `%`, where
/// successive modulo keeps (n + m − 1)·m cells of `B` and the lifted
/// lattice `B[(i + j) % n][j]` has a `%` per access; for `C`, successive
/// modulo also reaches n·m, with `C[i][(i + j) % m]`: on a tie the layout
/// without `%` is taken.
#[test]
fn a_skewed_temporary_is_reindexed_without_a_modulo() {
    let file = "tests/symbolic/skewed_vla.c";
    let a = report(file);
    for name in ["B", "C"] {
        assert_folded(&a, name, "n * m", &[("n", 40), ("m", 30)], 1200);
        assert_eq!(entry(&a, name)["method"], "unimodular reindexing", "{a:?}");
    }
    let output = common::polyfold_stdout(&[file]);
    assert!(
        output.contains("    double B[n][m]; /* the skewed temporary */"),
        "{output}"
    );
    common::assert_lines(
        &output,
        &[
            "            B[i][j] = in[i][j] * 2.0;",
            // C[i][i + j]: the cell (i, i + j) goes to (i, (i + j) - i).
            "    double C[n][m]; /* polyfold: C[i][i + j] -> C[i][j] */",
            "            C[i][j] = in[i][j] - 1.0;",
            "            out[i][j] = B[i][j] + (double)(i - j) * C[i][j];",
        ],
    );
    let scop = common::scop_text(&output);
    assert!(
        !scop.is_empty(),
        "no SCoP in
{output}"
    );
    assert!(!scop.contains('%'), "{output}");
    runs_the_same_as(
        file,
        "default",
        &output,
        &[
            &["1", "1"],
            &["1", "3"],
            &["2", "1"],
            &["3", "2"],
            &["2", "3"],
            &["40", "30"],
            &["7", "50"],
        ],
    );
}

/// Issue 21's stride case, for every size: `t[2 * i][1]` (one column of
/// three, every other row, all live at once) needs n cells, `s[3 * i +
/// 1][j]` n·m, and the recurrence `v[2 * i]` from `v[2 * i - 2]` and
/// `v[2 * i - 4]` two: each is one value per iteration of its writer
/// (counted by hand from the loops; the recurrence reads the values of
/// the two iterations before). Dividing the stride out gives those sizes
/// with the iterators as subscripts (`t[i]`, `s[i][j]`), where successive
/// modulo on the axes keeps `2n - 1`, `(3n - 2)·m` and 4 cells with `%`
/// on `2 * i`.
#[test]
fn a_strided_temporary_loses_its_stride_without_a_modulo() {
    let file = "tests/symbolic/strided_vla.c";
    let a = report(file);
    let values = [("n", 500), ("m", 30)];
    assert_folded(&a, "t", "n", &values, 500);
    assert_folded(&a, "s", "n * m", &values, 15000);
    assert_folded(&a, "v", "2", &values, 2);
    for name in ["t", "s", "v"] {
        assert_eq!(entry(&a, name)["method"], "stride removed", "{a:?}");
    }
    let output = common::polyfold_stdout(&[file]);
    common::assert_lines(
        &output,
        &[
            // s[3 * i + 1][j]: ((3i + 1) - 1) / 3 = i < n and j < m.
            "    double s[n][m]; /* polyfold: s[3 * i + 1][j] -> s[i][j] */",
            // v[2 * i]: (2i) / 2 = i, from 2 on in the loop: a `%`.
            "    double v[2]; /* polyfold: v[2 * i] -> v[i % 2] */",
            "        t[i] = in[i][0] * 0.5;",
            "            s[i][j] = in[i][j] - t[i];",
            "            out[i][j] = s[i][j] + t[i] * (double)j;",
            "    v[1] = in[0][0] + 1.0;",
            "        v[i % 2] = v[(i - 1) % 2] + v[i % 2] * 0.5 + in[i][0];",
            "    out[0][0] = v[(n - 1) % 2];",
        ],
    );
    assert!(
        output.contains("    double t[n]; /* one column of three, every other row */"),
        "{output}"
    );
    runs_the_same_as(
        file,
        "default",
        &output,
        &[
            &["2", "1"],
            &["2", "3"],
            &["3", "1"],
            &["3", "2"],
            &["4", "5"],
            &["500", "30"],
        ],
    );
}

/// A skewed temporary whose new extent `n` is declared nowhere alone (the
/// program is valid for n = 0, where no iteration runs): its change of
/// basis gets the guarded extent `n > 1 ? n : 1` and plain subscripts, for
/// every size. It needs n·m cells (one per iteration of the writer, all
/// live at once, counted from the loops); before the guarded extents of
/// general layouts it took the lattice `B[(i + j) % n][j]`.
#[test]
fn a_skewed_temporary_of_an_unproven_extent_gets_a_guarded_one() {
    let file = "tests/symbolic/skewed_guarded.c";
    let a = report(file);
    assert_folded(&a, "B", "n * m", &[("n", 40), ("m", 30)], 1200);
    assert_eq!(entry(&a, "B")["method"], "unimodular reindexing", "{a:?}");
    let output = common::polyfold_stdout(&[file]);
    common::assert_lines(
        &output,
        &[
            "            B[i][j] = in[i + j] * 2.0 - (double)j;",
            "            out[j] = out[j] * 0.5 + B[i][j] * (double)(i + 1);",
        ],
    );
    assert!(
        output.contains("    double B[n > 1 ? n : 1][m];"),
        "{output}"
    );
    runs_the_same_as(
        file,
        "default",
        &output,
        &[
            &["0", "1"],
            &["1", "1"],
            &["1", "3"],
            &["2", "1"],
            &["3", "2"],
            &["40", "30"],
        ],
    );
}

/// Issue 21's shifted rows: `D[i - j + m - 1][j]` in its write's basis
/// `(c0 + c1, c1)` is `(i + m - 1, j)`, and `E[2 * i + 2 * m][j]` has
/// stride 2 and offset `2m`; each needs n·m cells (one per iteration of
/// the writer, all live at once between the nests). Shifted by the
/// write's parameter part, no access wraps: `D[i][j]`, `E[i][j]`, for
/// every size. Before, D took `D[(i + m - 1) % n][j]` and E kept
/// `(2n - 1)·m` cells with `2 * i + 2 * m` subscripts.
#[test]
fn shifted_rows_read_as_the_writes_iterators() {
    let file = "tests/symbolic/skewed_shifted.c";
    let a = report(file);
    let values = [("n", 40), ("m", 30)];
    assert_folded(&a, "D", "n * m", &values, 1200);
    assert_folded(&a, "E", "n * m", &values, 1200);
    assert_eq!(entry(&a, "D")["method"], "unimodular reindexing", "{a:?}");
    assert_eq!(entry(&a, "E")["method"], "stride removed", "{a:?}");
    let output = common::polyfold_stdout(&[file]);
    common::assert_lines(
        &output,
        &[
            "            D[i][j] = in[i][j] * 2.0 - (double)j;",
            "            E[i][j] = in[i][j] + (double)i;",
            "            out[i][j] = D[i][j] * (double)(i + 1) - E[i][j];",
        ],
    );
    runs_the_same_as(
        file,
        "default",
        &output,
        &[
            &["1", "1"],
            &["1", "3"],
            &["2", "1"],
            &["3", "2"],
            &["2", "3"],
            &["40", "30"],
        ],
    );
}
