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

use polyfold::mapping::smo::solve::with_array_spaces;
use polyfold::mapping::smo::{
    ConflictSpec, SmoOptions, SmoSolution, SmoVerdict, StmtId, baseline, certify_fixed,
    parse_smo_input, smo_report, smo_solve,
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

struct Outcome {
    smo: SmoSolution,
    time: Duration,
}

fn run(rel: &str, values: &[i64]) -> Outcome {
    let (_, spec) = load(rel);
    let start = Instant::now();
    let smo = smo_solve(&spec, &SmoOptions::default())
        .expect("no solver error")
        .expect("SMO finds a mapping");
    let time = start.elapsed();
    assert_eq!(certify_fixed(&spec, &smo, values), SmoVerdict::Valid);
    Outcome { smo, time }
}

#[test]
fn print_reports() {
    for rel in [
        "inter-array/heat1d-double-buffer.smo.input",
        "inter-array/heat2d-double-buffer.smo.input",
        "inter-array/jacobi2d-smoothing.smo.input",
        "inter-array/blur-tiled.smo.input",
        "inter-array/unsharp-tiled.smo.input",
        "inter-array/heat3d-double-buffer.smo.input",
    ] {
        let (text, _) = load(rel);
        let r =
            smo_report(&text, &[("N0".to_string(), 8)], &SmoOptions::default()).expect("report");
        println!("== {rel}\n{r}");
    }
}
