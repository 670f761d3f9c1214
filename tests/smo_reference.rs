//! SMO on the published conflict specifications of seed 000's tool
//! (`shared/reference/smo/`, read from `../shared/reference/smo/` relative
//! to the crate root): sizes compared with seed 000 Table 1 and the
//! baseline, every mapping certified exactly and re-checked by brute force
//! (all conflicting pairs enumerated for a small parameter value; no two
//! may share a location).
//!
//! `POLYFOLD_SHARED_DIR` overrides the location of `shared/` (useful in a
//! git worktree that is not beside it).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use polyfold::mapping::smo::baseline::baseline;
use polyfold::mapping::smo::solve::with_array_spaces;
use polyfold::mapping::smo::{
    ConflictSpec, SmoOptions, SmoSolution, SmoVerdict, certify_fixed, certify_symbolic,
    parse_smo_input, shared_solve_isolating, smo_report, smo_solve,
};
use polyfold::poly::brute::satisfies;

fn reference_dir() -> PathBuf {
    let shared = std::env::var_os("POLYFOLD_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = shared.join("reference/smo");
    assert!(
        dir.is_dir(),
        "the SMO reference inputs are missing: expected the folder {} (shared/ beside the repository)",
        dir.display()
    );
    dir
}

fn load(rel: &str) -> (String, ConflictSpec) {
    let path = reference_dir().join(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let spec = parse_smo_input(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (text, spec)
}

/// Integer points of the array space for parameter values `values`, found
/// by scanning the box `[-2, bound]^n`.
fn array_points(spec: &ConflictSpec, values: &[i64], bound: i64) -> Vec<Vec<i64>> {
    let n = spec.n_dim;
    let mut out = Vec::new();
    polyfold::poly::brute::for_each_point(n, -2, bound, |x| {
        let mut full = values.to_vec();
        full.extend_from_slice(x);
        if satisfies(&spec.array_space, &full) {
            out.push(x.to_vec());
        }
        true
    });
    out
}

/// Brute force: for every pair of array-space points `(x, y)` in a conflict
/// polyhedron whose statements share an array, their locations differ.
/// Returns the number of conflicting pairs checked.
fn brute_check(spec: &ConflictSpec, sol: &SmoSolution, values: &[i64], bound: i64) -> usize {
    let points = array_points(spec, values, bound);
    assert!(!points.is_empty());
    let mut pairs = 0;
    for k in &spec.conflicts {
        let (aj, ak) = (
            sol.array_of(k.source).expect("mapped"),
            sol.array_of(k.target).expect("mapped"),
        );
        for piece in &k.relation.pieces {
            let poly = with_array_spaces(spec, piece);
            assert_eq!(poly.n_exist, 0);
            for x in &points {
                for y in &points {
                    let mut full = values.to_vec();
                    full.extend_from_slice(x);
                    full.extend_from_slice(y);
                    if !satisfies(&poly, &full) {
                        continue;
                    }
                    pairs += 1;
                    if aj != ak {
                        continue;
                    }
                    let lx = sol.arrays[aj]
                        .location(k.source, x, values)
                        .expect("no overflow")
                        .expect("location");
                    let ly = sol.arrays[ak]
                        .location(k.target, y, values)
                        .expect("no overflow")
                        .expect("location");
                    assert_ne!(
                        lx, ly,
                        "conflicting cells {x:?} (S{}) and {y:?} (S{}) share location {lx:?}",
                        k.source.0, k.target.0
                    );
                }
            }
        }
    }
    pairs
}

/// Solves `rel` once (symbolic parameters), then for each `n` checks:
/// exact certification, the size against `paper_size(n)` (seed 000
/// Table 1), the baseline size against `baseline_size(n)`, and (for the
/// first, small `n`) brute force. Returns the solve time.
fn check_reference(
    rel: &str,
    ns: &[i64],
    paper_size: impl Fn(i64) -> i64,
    baseline_size: impl Fn(i64) -> i64,
) -> Duration {
    let (_, spec) = load(rel);
    assert_eq!(spec.params, vec!["N0".to_string()]);
    let start = Instant::now();
    let smo = smo_solve(&spec, &SmoOptions::default())
        .expect("no solver error")
        .expect("SMO finds a mapping");
    let time = start.elapsed();
    assert_eq!(
        certify_symbolic(&spec, &smo),
        Ok(true),
        "{rel}: symbolic certificate"
    );
    for (i, &n) in ns.iter().enumerate() {
        let values = [n];
        assert_eq!(
            certify_fixed(&spec, &smo, &values),
            SmoVerdict::Valid,
            "{rel}, N0 = {n}"
        );
        let size = smo.size(&values).expect("size");
        assert_eq!(size, paper_size(n), "{rel}: SMO size for N0 = {n}");
        let base = baseline(&spec, &values)
            .expect("no solver error")
            .expect("baseline found");
        assert_eq!(
            certify_fixed(&spec, &base, &values),
            SmoVerdict::Valid,
            "{rel}: baseline, N0 = {n}"
        );
        let base_size = base.size(&values).expect("size");
        assert_eq!(
            base_size,
            baseline_size(n),
            "{rel}: baseline size for N0 = {n}"
        );
        assert!(size <= base_size);
        if i == 0 {
            let pairs = brute_check(&spec, &smo, &values, n + 1);
            assert!(pairs > 0, "{rel}: no conflicting pair enumerated");
            brute_check(&spec, &base, &values, n + 1);
        }
    }
    println!("{rel}: SMO solve time {:.3} s", time.as_secs_f64());
    time
}

#[test]
fn heat1d_double_buffer_reaches_n_plus_1() {
    check_reference(
        "inter-array/heat1d-double-buffer.smo.input",
        &[5, 8, 100],
        |n| n + 1,
        |n| 2 * n,
    );
}

#[test]
fn heat2d_double_buffer_reaches_n2_plus_2n() {
    check_reference(
        "inter-array/heat2d-double-buffer.smo.input",
        &[4, 8, 100],
        |n| n * n + 2 * n,
        |n| 2 * n * n,
    );
}

#[test]
fn heat3d_double_buffer_reaches_n3_plus_2n2() {
    check_reference(
        "inter-array/heat3d-double-buffer.smo.input",
        &[3, 8, 50],
        |n| (n + 2) * n * n,
        |n| 2 * n * n * n,
    );
}

#[test]
fn jacobi2d_smoothing_reaches_one_n_plus_2_by_n_buffer() {
    check_reference(
        "inter-array/jacobi2d-smoothing.smo.input",
        &[4, 8, 100],
        |n| (n + 2) * n,
        |n| 2 * n * n,
    );
}

#[test]
fn blur_tiled_folds_blurx_to_3b_minus_2() {
    check_reference(
        "inter-array/blur-tiled.smo.input",
        &[4, 8, 32],
        |b| (3 * b - 2) + b * b,
        |b| 2 * b * b,
    );
}

#[test]
fn unsharp_tiled_folds_to_5b_minus_4() {
    check_reference(
        "inter-array/unsharp-tiled.smo.input",
        &[5, 8, 32],
        |b| (5 * b - 4) + b * b,
        |b| 2 * b * b,
    );
}

/// The single-array reference inputs: every SMO result certified and
/// brute-force checked for a small parameter value, never larger than the
/// baseline.
#[test]
fn intra_array_inputs_are_certified() {
    let dir = reference_dir().join("intra-array");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("intra-array folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".smo.input"))
        .collect();
    names.sort();
    assert!(names.len() >= 5);
    for name in names {
        let rel = format!("intra-array/{name}");
        let (_, spec) = load(&rel);
        let values: Vec<i64> = spec.params.iter().map(|_| 6).collect();
        let start = Instant::now();
        let smo = smo_solve(&spec, &SmoOptions::default()).expect("no solver error");
        let time = start.elapsed();
        let base = baseline(&spec, &values).expect("no solver error");
        match (&smo, &base) {
            (Ok(sol), Ok(b)) => {
                assert_eq!(
                    certify_fixed(&spec, sol, &values),
                    SmoVerdict::Valid,
                    "{rel}"
                );
                assert_eq!(certify_fixed(&spec, b, &values), SmoVerdict::Valid, "{rel}");
                brute_check(&spec, sol, &values, 3 * 6);
                println!(
                    "{rel}: SMO {} vs baseline {} at 6, {:.3} s",
                    sol.size(&values).expect("size"),
                    b.size(&values).expect("size"),
                    time.as_secs_f64()
                );
            }
            other => println!("{rel}: no result: {other:?}"),
        }
    }
}

/// The printed report for every inter-array input (run with `--nocapture`
/// to read it; `SMO_ONLY=name` restricts the list).
#[test]
fn print_reports() {
    let only = std::env::var("SMO_ONLY").unwrap_or_default();
    for rel in [
        "inter-array/heat1d-double-buffer.smo.input",
        "inter-array/heat2d-double-buffer.smo.input",
        "inter-array/jacobi2d-smoothing.smo.input",
        "inter-array/blur-tiled.smo.input",
        "inter-array/unsharp-tiled.smo.input",
        "inter-array/heat3d-double-buffer.smo.input",
    ] {
        if !rel.contains(only.as_str()) {
            continue;
        }
        let (text, _) = load(rel);
        let r =
            smo_report(&text, &[("N0".to_string(), 8)], &SmoOptions::default()).expect("report");
        assert!(r.contains("certified for N0 = 8"), "{rel}:\n{r}");
        assert!(!r.contains("REJECTED"), "{rel}:\n{r}");
        println!("== {rel}\n{r}");
    }
}

/// The shared-hyperplane search (the fast path of `--inter-array`) on the
/// published specifications, for fixed parameter values and without value
/// lifetimes (the files have none): every mapping is certified exactly and
/// re-checked by brute force. On heat-1d it finds Table 1's N + 1 cells,
/// on jacobi-2d smoothing no more than Table 1's (N + 2)·N. (On heat-2d
/// it needs (N + 1)² against Table 1's N² + 2N: SMO's mapping skews by
/// `3t − i`, a coefficient the search does not try; checked for
/// correctness only.)
#[test]
fn shared_hyperplanes_on_the_reference_specifications() {
    type Expected = Option<fn(i64) -> i64>;
    let cases: [(&str, Expected); 3] = [
        (
            "inter-array/heat1d-double-buffer.smo.input",
            Some(|n| n + 1),
        ),
        (
            "inter-array/jacobi2d-smoothing.smo.input",
            Some(|n| (n + 2) * n),
        ),
        ("inter-array/heat2d-double-buffer.smo.input", None),
    ];
    for (rel, paper_size) in cases {
        let (_, spec) = load(rel);
        let identity: Vec<Vec<usize>> = (0..spec.n_statements)
            .map(|_| (0..spec.n_dim).collect())
            .collect();
        for n in [4i64, 6] {
            let values = [n];
            let start = Instant::now();
            let deadline = Some(start + Duration::from_secs(5));
            let sol = shared_solve_isolating(&spec, &[], &identity, &values, &[], deadline)
                .expect("no solver error")
                .unwrap_or_else(|why| panic!("{rel}, N0 = {n}: {why}"));
            assert_eq!(
                certify_fixed(&spec, &sol, &values),
                SmoVerdict::Valid,
                "{rel}, N0 = {n}"
            );
            let pairs = brute_check(&spec, &sol, &values, n + 1);
            assert!(pairs > 0, "{rel}: no conflicting pair enumerated");
            let size = sol.size(&values).expect("size");
            println!(
                "{rel}, N0 = {n}: shared hyperplanes {size} cells, {:.3} s",
                start.elapsed().as_secs_f64()
            );
            if let Some(paper) = paper_size {
                assert!(size <= paper(n), "{rel}, N0 = {n}: {size} cells");
            }
        }
    }
    // heat-1d exactly: N + 1 is also its max-live (Table 1).
    let (_, spec) = load("inter-array/heat1d-double-buffer.smo.input");
    let identity: Vec<Vec<usize>> = (0..spec.n_statements)
        .map(|_| (0..spec.n_dim).collect())
        .collect();
    let sol = shared_solve_isolating(&spec, &[], &identity, &[8], &[], None)
        .expect("no solver error")
        .expect("a mapping");
    assert_eq!(sol.size(&[8]).expect("size"), 9);
}

/// The baseline on a conflict set built for known parameter values (as
/// `--inter-array` builds them: every piece fixes the parameters): its
/// bounds become constants, and it needs what it needs on the parametric
/// set for those values (heat-1d: 2N, seed 000 Table 1's baseline column).
#[test]
fn baseline_on_a_specification_fixed_to_known_values() {
    let (_, mut spec) = load("inter-array/heat1d-double-buffer.smo.input");
    let n = 6i64;
    for k in spec.conflicts.iter_mut() {
        for piece in k.relation.pieces.iter_mut() {
            let mut row = piece.zero_row();
            row[0] = 1;
            let last = row.len() - 1;
            row[last] = -n;
            piece.add_eq(row);
        }
    }
    let base = baseline(&spec, &[n])
        .expect("no solver error")
        .expect("baseline found");
    assert_eq!(certify_fixed(&spec, &base, &[n]), SmoVerdict::Valid);
    brute_check(&spec, &base, &[n], n + 1);
    assert!(
        base.arrays
            .iter()
            .all(|a| a.moduli.iter().all(|m| m.is_constant()))
    );
    assert_eq!(base.size(&[n]).expect("size"), 2 * n);
}
