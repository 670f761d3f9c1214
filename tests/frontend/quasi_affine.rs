//! `/` and `%` by a constant in loop bounds and conditions (issue 19, item
//! 3): the iteration domain polyfold builds must hold exactly the
//! iterations C runs, with C's truncation toward zero on negative values.
//!
//! Each case is a small loop nest over a function parameter `n`. The
//! expected iterations are computed here by running the same loops and
//! conditions in Rust, whose `/` and `%` on `i64` truncate like C's; the
//! domain's integer points are enumerated for every `n` from -6 to 9 and
//! must be the same set.

use polyfold::frontend;
use polyfold::poly::Budget;
use polyfold::poly::enumerate::integer_points;

/// The iterations of the one statement of `source` for `n`, from the
/// model (domain pieces enumerated, union taken).
fn model_points(source: &str, n: i64) -> Vec<Vec<i64>> {
    let program = frontend::extract("quasi.c", source, &frontend::Options::default());
    assert_eq!(
        program.scops.len(),
        1,
        "one SCoP expected; diagnostics: {:?}",
        program.diagnostics
    );
    let scop = &program.scops[0];
    assert_eq!(scop.stmts.len(), 1, "one statement expected");
    assert_eq!(scop.param_names(), vec!["n".to_string()]);
    let mut budget = Budget::steps(50_000_000);
    let mut out: Vec<Vec<i64>> = Vec::new();
    for piece in &scop.stmts[0].domain.pieces {
        out.extend(integer_points(piece, &[n], &mut budget).expect("enumerable"));
    }
    out.sort();
    out.dedup();
    out
}

fn check(source: &str, expected: impl Fn(i64) -> Vec<Vec<i64>>) {
    for n in -6..=9 {
        let mut want = expected(n);
        want.sort();
        want.dedup();
        assert_eq!(model_points(source, n), want, "n = {n}, for\n{source}");
    }
}

/// Every `i` in `lo..hi` (a C loop `for (i = lo; i < hi; i++)`).
fn range(lo: i64, hi: i64) -> impl Iterator<Item = i64> {
    lo..hi.max(lo)
}

#[test]
fn remainder_condition_on_negative_iterations() {
    // -7 % 3 == -1 in C: the negative half has its own residues.
    let source = "void f(int n, double A[100]) {\n\
                  for (int i = -n; i < n; i++)\n\
                    if (i % 3 == -1)\n\
                      A[i + 50] = 0;\n\
                  }\n";
    check(source, |n| {
        range(-n, n)
            .filter(|i| i % 3 == -1)
            .map(|i| vec![i])
            .collect()
    });
}

#[test]
fn quotient_bound_and_nested_remainder() {
    let source = "void f(int n, double A[100]) {\n\
                  for (int i = -n; i < n / 2; i++)\n\
                    if ((i / 2) % 2 != 0)\n\
                      A[i + 50] = 0;\n\
                  }\n";
    check(source, |n| {
        range(-n, n / 2)
            .filter(|i| (i / 2) % 2 != 0)
            .map(|i| vec![i])
            .collect()
    });
}

#[test]
fn quotient_lower_bound_and_negative_divisor() {
    let source = "void f(int n, double A[100][100]) {\n\
                  for (int i = 0; i <= n; i++)\n\
                    for (int j = i / 3 - 2; j < (n - 2 * i) / -2 + n; j++)\n\
                      A[i][j + 50] = 0;\n\
                  }\n";
    check(source, |n| {
        let mut out = Vec::new();
        for i in 0..=n {
            for j in range(i / 3 - 2, (n - 2 * i) / -2 + n) {
                out.push(vec![i, j]);
            }
        }
        out
    });
}

#[test]
fn remainder_of_parameter_in_condition() {
    let source = "void f(int n, double A[100]) {\n\
                  for (int i = -8; i <= 8; i++)\n\
                    if (-i / 4 >= n % 5 - 3 && (i + n) % -4 == 1)\n\
                      A[i + 50] = 0;\n\
                  }\n";
    check(source, |n| {
        (-8..=8)
            .filter(|i| -i / 4 >= n % 5 - 3 && (i + n) % -4 == 1)
            .map(|i| vec![i])
            .collect()
    });
}

#[test]
fn strided_loop_from_a_quotient() {
    let source = "void f(int n, double A[100]) {\n\
                  for (int i = n / 2; i >= -n; i -= 3)\n\
                    A[i + 50] = 0;\n\
                  }\n";
    check(source, |n| {
        let mut out = Vec::new();
        let mut i = n / 2;
        while i >= -n {
            out.push(vec![i]);
            i -= 3;
        }
        out
    });
}

/// The value of access function `sub` (over `[params | iterators]`) at
/// parameter `n` and iteration `point`.
fn eval(sub: &polyfold::ir::AffExpr, n: i64, point: &[i64]) -> i64 {
    let vars: Vec<i64> = std::iter::once(n).chain(point.iter().copied()).collect();
    assert_eq!(sub.coeffs.len(), vars.len());
    sub.coeffs
        .iter()
        .zip(&vars)
        .map(|(c, v)| c * v)
        .sum::<i64>()
        + sub.constant
}

#[test]
fn subscript_quotients_are_c_division_on_negative_values() {
    // The quotients are dimensions of the statement: each iteration `i`
    // must have exactly one point, and the access functions must give
    // what C computes (Rust's `/` and `%` on i64 truncate like C's).
    let source = "void f(int n, double A[100][100], double B[100]) {\n\
                  for (int i = -n; i < n; i++)\n\
                    A[(i - 3) % 4 + 10][(i + n) / -3 + 50] = B[((i / 2) % 3 + 2 * n) % 5 + 60];\n\
                  }\n";
    let program = frontend::extract("quasi.c", source, &frontend::Options::default());
    assert_eq!(program.scops.len(), 1, "{:?}", program.diagnostics);
    let scop = &program.scops[0];
    let stmt = &scop.stmts[0];
    assert_eq!(stmt.loop_depth(), 1);
    assert!(!stmt.quotients.is_empty());
    for n in -6..=9 {
        let points = model_points(source, n);
        let iterations: Vec<i64> = points.iter().map(|p| p[0]).collect();
        let want: Vec<i64> = range(-n, n).collect();
        assert_eq!(iterations, want, "n = {n}: one point per iteration");
        for p in &points {
            let i = p[0];
            let w: Vec<i64> = stmt
                .write
                .subscripts
                .iter()
                .map(|s| eval(s, n, p))
                .collect();
            assert_eq!(
                w,
                vec![(i - 3) % 4 + 10, (i + n) / -3 + 50],
                "n = {n}, i = {i}"
            );
            let r = eval(&stmt.reads[0].subscripts[0], n, p);
            assert_eq!(r, ((i / 2) % 3 + 2 * n) % 5 + 60, "n = {n}, i = {i}");
        }
    }
}

#[test]
fn masks_are_residues_modulo_a_power_of_two_on_negative_values_too() {
    // `e & (2^k - 1)` (what `--pow2-moduli` prints) is `e mod 2^k`, the
    // floor residue, also for a negative `e`: Rust's `&` on i64 is the
    // two's complement C computes. In a condition (the mask on either
    // side) and in subscripts, each iteration one point.
    let source = "void f(int n, double A[100]) {\n\
                  for (int i = -n; i < n; i++)\n\
                    if ((i & 3) == 1 || (7 & (i - n)) == 6)\n\
                      A[i + 50] = 0;\n\
                  }\n";
    check(source, |n| {
        range(-n, n)
            .filter(|i| (i & 3) == 1 || (7 & (i - n)) == 6)
            .map(|i| vec![i])
            .collect()
    });
    let source = "void f(int n, double A[100][100], double B[100]) {\n\
                  for (int i = -n; i < n; i++)\n\
                    A[((i - 3) & 3) + 10][(i + n) & 7] = B[(((i & 1) - 2 * n) & 15) + 60] + B[i & 0];\n\
                  }\n";
    let program = frontend::extract("quasi.c", source, &frontend::Options::default());
    assert_eq!(program.scops.len(), 1, "{:?}", program.diagnostics);
    let stmt = &program.scops[0].stmts[0];
    assert_eq!(stmt.loop_depth(), 1);
    assert!(!stmt.quotients.is_empty());
    for n in -6..=9 {
        let points = model_points(source, n);
        let iterations: Vec<i64> = points.iter().map(|p| p[0]).collect();
        let want: Vec<i64> = range(-n, n).collect();
        assert_eq!(iterations, want, "n = {n}: one point per iteration");
        for p in &points {
            let i = p[0];
            let w: Vec<i64> = stmt
                .write
                .subscripts
                .iter()
                .map(|s| eval(s, n, p))
                .collect();
            assert_eq!(w, vec![((i - 3) & 3) + 10, (i + n) & 7], "n = {n}, i = {i}");
            let r = eval(&stmt.reads[0].subscripts[0], n, p);
            assert_eq!(r, (((i & 1) - 2 * n) & 15) + 60, "n = {n}, i = {i}");
            assert_eq!(eval(&stmt.reads[1].subscripts[0], n, p), 0);
        }
    }
}

#[test]
fn a_mask_that_is_not_a_power_of_two_minus_one_stays_rejected() {
    let source = "void f(int n, double A[100]) {\n\
                  for (int i = 0; i < n; i++)\n\
                    A[i & 5] = 0;\n\
                  }\n";
    let program = frontend::extract("quasi.c", source, &frontend::Options::default());
    assert!(program.scops.is_empty(), "{:?}", program.scops);
}

#[test]
fn remainder_by_a_variable_in_a_subscript_stays_rejected() {
    let source = "void f(int n, int m, double A[100]) {\n\
                  for (int i = 0; i < n; i++)\n\
                    A[i % m] = 0;\n\
                  }\n";
    let program = frontend::extract("quasi.c", source, &frontend::Options::default());
    assert!(program.scops.is_empty());
    assert!(
        program
            .diagnostics
            .iter()
            .any(|d| d.code == polyfold::diag::Code::QuasiAffine && d.message.contains("i % m")),
        "{:?}",
        program.diagnostics
    );
}

/// The SCoP headers of `polyfold verify`'s report on `path`, up to the
/// operation count (`SCoP 0 in f (N = 100): 10399 operations`); the
/// verification must pass and trace something.
fn verified_operations(path: &std::path::Path, defines: &[(String, i64)]) -> Vec<String> {
    use polyfold::driver::{RunOptions, verify_file};
    let options = RunOptions {
        defines: defines.to_vec(),
        ..RunOptions::default()
    };
    let out = verify_file(path, &options);
    assert_eq!(
        out.code,
        0,
        "{}: {}{}",
        path.display(),
        out.stdout,
        out.stderr
    );
    assert!(
        !out.stdout.contains("nothing to verify"),
        "{}: {}",
        path.display(),
        out.stdout
    );
    out.stdout
        .lines()
        .filter(|l| l.contains(" operations, "))
        .map(|l| l.split(", ").next().unwrap_or("").trim().to_string())
        .collect()
}

#[test]
fn polyfold_reads_and_verifies_its_own_output() {
    // durbin's `y` becomes `y[(2 * i + k) % (2 * N - 3)]`: the output must
    // be one SCoP per kernel again, every statement in it (the same
    // operations as the original's trace), its trace must pass, and a
    // second run must change nothing. The VLA twin prints `% (2 * n - 1)`
    // with a symbolic n: verify extracts it at each size.
    use polyfold::driver::{RunOptions, run_source};
    use polyfold_fuzz::check::scratch_dir;
    use std::path::Path;

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = scratch_dir("quasi_own_output").expect("scratch directory");
    for (case, fold) in [
        ("corpus/durbin.c", "% (2 * N - 3)]"),
        ("tests/symbolic/durbin_vla.c", "% (2 * n - 1)]"),
        ("corpus/blur_tiled.c", "% 72]"),
    ] {
        let original = root.join(case);
        let source = std::fs::read_to_string(&original).expect("readable case");
        // The pinned forms (`% (2 * N - 3)` holds from N = 4 on, `% 72` at
        // the file's sizes) are the ones to read back: --pin-sizes.
        let pinned = RunOptions {
            pin_sizes: true,
            ..RunOptions::default()
        };
        let first = run_source(case, &source, &pinned);
        assert_eq!(first.code, 0, "{case}: {}", first.stderr);
        assert!(first.stdout.contains(fold), "{case}: {}", first.stdout);
        let output = scratch.join(Path::new(case).file_name().expect("a file name"));
        std::fs::write(&output, &first.stdout).expect("write the output");
        assert_eq!(
            verified_operations(&output, &[]),
            verified_operations(&original, &[]),
            "{case}: the output's trace covers other operations"
        );
        let second = run_source(case, &first.stdout, &RunOptions::default());
        assert_eq!(second.code, 0, "{case}: {}", second.stderr);
        assert_eq!(
            second.stdout, first.stdout,
            "{case}: a second run changed it"
        );
    }
    // blur_tiled's `blurx[72]` holds 72 live values at once (the trace of
    // the output says so): no strategy is tried on it.
    let report = run_source(
        "blur_tiled.c",
        &std::fs::read_to_string(scratch.join("blur_tiled.c")).expect("written above"),
        &RunOptions {
            report: Some(polyfold::cli::ReportFormat::Text),
            ..RunOptions::default()
        },
    );
    assert!(
        report.stdout.contains(
            "kept: no smaller mapping in this schedule: all 72 cells hold live values at once"
        ),
        "{}",
        report.stdout
    );
    // With a value, the symbolic modulus is a number: no statement lost.
    let vla = scratch.join("durbin_vla.c");
    let text = std::fs::read_to_string(&vla).expect("written above");
    let program = frontend::extract(
        "durbin_vla.c",
        &text,
        &frontend::Options {
            defines: vec![("n".to_string(), 7)],
            ..frontend::Options::default()
        },
    );
    assert!(
        !program
            .diagnostics
            .iter()
            .any(|d| d.code == polyfold::diag::Code::QuasiAffine),
        "{:?}",
        program.diagnostics
    );
}

/// Contracts `tests/quasi/NAME`, checks that `expect` is in the output,
/// and builds and runs the original and the output with the sanitizers
/// (with `-D N=...` for each of `sizes`, none when empty): both must print
/// the same. A build with a size polyfold did not see may fail only on
/// polyfold's own `_Static_assert`.
fn contracted_runs_the_same(name: &str, expect: &[&str], sizes: &[i64]) {
    use polyfold::driver::{RunOptions, run_source};
    use polyfold_fuzz::check::{compile, run_with_limit, scratch_dir};
    use std::path::Path;
    use std::time::Duration;

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/quasi");
    let source = std::fs::read_to_string(dir.join(name)).expect("readable case");
    // Storage certified for the file's sizes only is what these cases
    // check: --pin-sizes.
    let pinned = RunOptions {
        pin_sizes: true,
        ..RunOptions::default()
    };
    let out = run_source(name, &source, &pinned);
    assert_eq!(out.code, 0, "{name}: {}", out.stderr);
    for e in expect {
        assert!(
            out.stdout.contains(e),
            "{name}: `{e}` not in\n{}",
            out.stdout
        );
    }
    let scratch = scratch_dir("quasi_affine").expect("scratch directory");
    let tag = name.trim_end_matches(".c");
    let output = scratch.join(format!("{tag}.out.c"));
    std::fs::write(&output, &out.stdout).expect("write the output");
    let defines: Vec<String> = sizes.iter().map(|n| format!("-DN={n}")).collect();
    let builds: Vec<Vec<&str>> = if defines.is_empty() {
        vec![Vec::new()]
    } else {
        defines.iter().map(|d| vec![d.as_str()]).collect()
    };
    for (k, extra) in builds.iter().enumerate() {
        let mut flags = vec![
            "-std=c11",
            "-O1",
            "-w",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
        ];
        flags.extend_from_slice(extra);
        let exe_a = scratch.join(format!("{tag}.{k}.orig"));
        let exe_b = scratch.join(format!("{tag}.{k}.new"));
        compile(&dir.join(name), &exe_a, &flags).expect("the original builds");
        let want = run_with_limit(&exe_a, Duration::from_secs(20)).expect("the original runs");
        match compile(&output, &exe_b, &flags) {
            Ok(()) => {
                let got = run_with_limit(&exe_b, Duration::from_secs(20)).expect("the output runs");
                assert_eq!(got, want, "{name} with {extra:?}");
            }
            Err(e) => assert!(
                k > 0 && e.contains("polyfold: the storage of"),
                "{name} with {extra:?} does not build: {e}"
            ),
        }
    }
}

#[test]
fn quotient_bound_folds_for_every_size_and_runs_the_same() {
    // `u[i]` is last read at iteration i + 1: two cells for every n,
    // whatever n / 2 is (worked out by hand). `t` of `odd_pairs` is also
    // two cells, but its proof needs the value of n, which a function
    // parameter cannot pin: it keeps its layout.
    contracted_runs_the_same(
        "halves.c",
        &["double u[2];", "u[i % 2] - u[(i - 1) % 2]", "double t[n];"],
        &[],
    );
}

#[test]
fn remainder_condition_folds_for_the_known_size_and_runs_the_same() {
    contracted_runs_the_same(
        "odd_define.c",
        // The fold `t[i % 2]`, kept in two rotating scalars.
        &["double t_s0 = 0, t_s1 = 0;", "t_s1 + t_s0", "N == 100"],
        &[100, 37, 1],
    );
}

#[test]
fn array_models_leave_out_quotient_dimensions_they_do_not_use() {
    // S0 has the quotient dimensions of `in[..]`; `t`'s model of S0 is
    // over the loops alone, `u`'s (subscripted by `i / 2`) keeps them.
    let source = "void f(int n, double in[100], double out[100]) {\n\
                  double t[100][100], u[100];\n\
                  for (int i = 0; i < n; i++)\n\
                    for (int j = 0; j < n; j++) {\n\
                      t[i][j] = in[((i + j) / 2) % 4];\n\
                      u[i / 2] = t[i][j];\n\
                      out[i] = u[i / 2];\n\
                    }\n\
                  }\n";
    let program = frontend::extract("quasi.c", source, &frontend::Options::default());
    assert_eq!(program.scops.len(), 1, "{:?}", program.diagnostics);
    let scop = &program.scops[0];
    let array = |name: &str| {
        scop.arrays
            .iter()
            .find(|a| a.name == name)
            .expect("array")
            .id
    };
    assert_eq!(scop.stmts[0].iterators.len(), 4, "i, j and two quotients");
    let t = polyfold::analysis::build::array_model(scop, array("t"));
    for e in &t.events {
        let dims = &e.domain.space.domain.dims;
        let loops = scop.stmts[e.statement].loop_depth();
        assert_eq!(dims.len(), loops, "t in S{}: {dims:?}", e.statement);
        assert_eq!(e.schedule.len(), 2 * loops + 1);
    }
    let u = polyfold::analysis::build::array_model(scop, array("u"));
    assert!(
        u.events
            .iter()
            .all(|e| e.domain.space.domain.dims.len() == scop.stmts[e.statement].iterators.len())
    );
    // The loops' domain is the same: n * n points of S0 for t at n = 5.
    let mut budget = Budget::steps(50_000_000);
    let points: usize = t
        .events
        .iter()
        .filter(|e| e.statement == 0 && e.position == 0)
        .map(|e| {
            integer_points(&e.domain, &[5], &mut budget)
                .expect("enumerable")
                .len()
        })
        .sum();
    assert_eq!(points, 25);
}

/// Rotating indices written in a loop's header (as polyfold prints them,
/// issue 18): the variable reads as the residue it holds. Its value is
/// simulated here the way C runs the header (start, then the update after
/// each iteration) and compared with the model's access function at
/// every iteration; the forms that would not hold the residue are not
/// modelled: a start `e % b` with `e < 0` where the loop starts (C's `%`
/// would start it negative), an update by another step than `e`'s, a
/// step of the modulus or more in a loop that runs, a variable the body
/// writes, a variable read after its loop.
#[test]
fn rotating_indices_read_as_the_residues_they_hold() {
    let kernel = |header: &str, body: &str| {
        format!(
            "void f(int n, double A[100], double B[100]) {{\n  int i, r;\n  for ({header})\n    {body}\n}}\n"
        )
    };
    // i in 0..n, r = (2i + 3) mod 5, advanced by 2; a decreasing loop
    // with the floor form, r = (1 - i) mod 5 from i = n - 1 down.
    type Start = fn(i64, i64) -> i64;
    let cases: [(&str, i64, Start); 2] = [
        (
            "i = 0, r = (2 * i + 3) % 5; i < n; i++, r = r + 2 < 5 ? r + 2 : r + 2 - 5",
            0,
            |_, _| 3,
        ),
        (
            "i = n - 1, r = ((1 - i) % 5 + 5) % 5; i >= 0; i--, r = r + 1 < 5 ? r + 1 : 0",
            1,
            |n, _| (1 - (n - 1)).rem_euclid(5),
        ),
    ];
    for (header, which, start) in cases {
        let source = kernel(header, "B[i] = A[r];");
        for n in 1..=12 {
            let points = model_points(&source, n);
            let program = frontend::extract("rot.c", &source, &frontend::Options::default());
            let stmt = &program.scops[0].stmts[0];
            // C's run: r starts at `start`, steps by 2 (up) or 1 (down).
            let mut r = start(n, 0);
            let order: Vec<i64> = if which == 0 {
                (0..n).collect()
            } else {
                (0..n).rev().collect()
            };
            for i in order {
                let p = points.iter().find(|p| p[0] == i).expect("the iteration");
                assert_eq!(
                    eval(&stmt.reads[0].subscripts[0], n, p),
                    r,
                    "n = {n}, i = {i}"
                );
                r = if which == 0 { (r + 2) % 5 } else { (r + 1) % 5 };
            }
        }
    }
    // Not modelled, each with its reason.
    for (header, body, why) in [
        (
            "i = 0, r = (i - 1) % 5; i < n; i++, r = r + 1 < 5 ? r + 1 : 0",
            "B[i] = A[r];",
            "not proven to hold its residue",
        ),
        (
            "i = 0, r = i % 5; i < n; i++, r = r + 2 < 5 ? r + 2 : r + 2 - 5",
            "B[i] = A[r];",
            "unsupported loop form",
        ),
        (
            // A step of the modulus or more, in a loop that runs.
            "i = 0, r = (3 * i) % 2; i < n; i++, r = r + 3 < 2 ? r + 3 : r + 3 - 2",
            "B[i] = A[r];",
            "not proven to hold its residue",
        ),
        (
            "i = 0, r = i % 5; i < n; i++, r = r + 1 < 5 ? r + 1 : 0",
            "{ B[i] = A[r]; r = 0; }",
            "unsupported loop form",
        ),
    ] {
        let source = kernel(header, body);
        let program = frontend::extract("rot.c", &source, &frontend::Options::default());
        assert!(program.scops.is_empty(), "{source}");
        assert!(
            program.diagnostics.iter().any(|d| d.message.contains(why)),
            "{why}: {:?}",
            program.diagnostics
        );
    }
    // Read after its loop: its final value is not a residue of the loop.
    let source = "void f(int n, double A[100], double B[100]) {\n  int i, r;\n  for (i = 0, r = i % 5; i < n; i++, r = r + 1 < 5 ? r + 1 : 0)\n    B[i] = A[r];\n  B[0] = A[r];\n}\n";
    let program = frontend::extract("rot.c", source, &frontend::Options::default());
    assert!(
        program.scops.iter().all(|s| s.stmts.len() == 1),
        "the read after the loop is not modelled with the loop: {:?}",
        program
            .scops
            .iter()
            .map(|s| s.stmts.len())
            .collect::<Vec<_>>()
    );
}

/// Issue 49: the body form polyfold prints (the start right before the
/// loop, the update last in its body) reads as the header form: at every
/// iteration the subscript is the residue C's run holds. By hand: from
/// i = 0 up, r starts at 3 and steps by 2 modulo 5; from i = n - 1 down,
/// r starts at 2 (the floor form's start) and steps by -1 modulo 5.
#[test]
fn rotating_indices_in_the_body_form_read_as_the_header_form() {
    let kernel = |before: &str, header: &str, update: &str| {
        format!(
            "void f(int n, double A[100], double B[100]) {{\n  int i, r;\n  {before}\n  for ({header}) {{\n    B[i] = A[r];\n    {update}\n  }}\n}}\n"
        )
    };
    type Start = fn(i64) -> i64;
    let cases: [(&str, &str, &str, i64, Start); 5] = [
        (
            "r = 3 % 5;",
            "i = 0; i < n; i++",
            "r = r + 2 < 5 ? r + 2 : r + 2 - 5;",
            2,
            |_| 3,
        ),
        (
            "r = (2 % 5 + 5) % 5;",
            "i = n - 1; i >= 0; i--",
            "r = r >= 1 ? r - 1 : r - 1 + 5;",
            -1,
            |_| 2,
        ),
        // A start polyfold folded to a number: the residue of itself,
        // the modulus read from the update (`< 5`, `+ 5`, or `: 4` for a
        // step of -1).
        (
            "r = 3;",
            "i = 0; i < n; i++",
            "r = r + 2 < 5 ? r + 2 : r + 2 - 5;",
            2,
            |_| 3,
        ),
        (
            "r = 0;",
            "i = n - 1; i >= 0; i--",
            "r = r >= 1 ? r - 1 : 4;",
            -1,
            |_| 0,
        ),
        (
            "r = 4;",
            "i = n - 1; i >= 0; i--",
            "r = r >= 2 ? r - 2 : r - 2 + 5;",
            -2,
            |_| 4,
        ),
    ];
    for (before, header, update, d, start) in cases {
        let source = kernel(before, header, update);
        for n in 1..=12 {
            let points = model_points(&source, n);
            let program = frontend::extract("rot.c", &source, &frontend::Options::default());
            assert_eq!(program.scops[0].stmts.len(), 1, "{source}");
            let stmt = &program.scops[0].stmts[0];
            let order: Vec<i64> = if d > 0 {
                (0..n).collect()
            } else {
                (0..n).rev().collect()
            };
            let mut r = start(n);
            for i in order {
                let p = points.iter().find(|p| p[0] == i).expect("the iteration");
                assert_eq!(
                    eval(&stmt.reads[0].subscripts[0], n, p),
                    r,
                    "{source}: n = {n}, i = {i}"
                );
                r = (r + d).rem_euclid(5);
            }
        }
    }
    // Used anywhere else (read after the loop, or a statement between
    // the start and the loop): not a rotating index, and `A[r]` is not
    // modelled as a residue.
    for source in [
        "void f(int n, double A[100], double B[100]) {\n  int i, r;\n  r = 3 % 5;\n  for (i = 0; i < n; i++) {\n    B[i] = A[r];\n    r = r + 2 < 5 ? r + 2 : r + 2 - 5;\n  }\n  B[0] = A[r];\n}\n",
        "void f(int n, double A[100], double B[100]) {\n  int i, r;\n  r = 3 % 5;\n  B[1] = 0;\n  for (i = 0; i < n; i++) {\n    B[i] = A[r];\n    r = r + 2 < 5 ? r + 2 : r + 2 - 5;\n  }\n}\n",
        // A number start outside `0..5` is not a residue of the update's
        // modulus (r = 5 reads A[5], then A[2]: no `% 5` holds).
        "void f(int n, double A[100], double B[100]) {\n  int i, r;\n  r = 5;\n  for (i = 0; i < n; i++) {\n    B[i] = A[r];\n    r = r + 2 < 5 ? r + 2 : r + 2 - 5;\n  }\n}\n",
    ] {
        let program = frontend::extract("rot.c", source, &frontend::Options::default());
        assert!(
            program.scops.iter().all(|s| s
                .stmts
                .iter()
                .all(|st| st.reads.iter().all(|a| s.array(a.array).name != "A"))),
            "{source}: {:?}",
            program
                .scops
                .iter()
                .map(|s| s.stmts.len())
                .collect::<Vec<_>>()
        );
    }
}
