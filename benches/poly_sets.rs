//! Timing of the set-level polyhedral operations (plain `Instant`, median of
//! 101 runs): projection of 4 of 12 variables, one parametric least upper
//! bound by Farkas' lemma, one parametric lexicographic maximum.
//!
//! Run with `cargo bench --bench poly_sets`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use polyfold::poly::basic::BasicSet;
use polyfold::poly::farkas::least_upper_bound;
use polyfold::poly::lexopt::lexmax;
use polyfold::poly::project::{DimType, project_out};
use polyfold::poly::space::{Space, Tuple};
use polyfold::util::rng::Rng;

const RUNS: usize = 101;

fn median<T>(mut f: impl FnMut() -> T) -> Duration {
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = Instant::now();
        black_box(f());
        times.push(start.elapsed());
    }
    times.sort();
    times[RUNS / 2]
}

/// A bounded 12-variable system: a box `0 <= x <= 20`, a chain
/// `x(k+1) <= x(k) + 3`, `x(k) <= 2 x(k+1) + 1`, and 8 seeded sparse rows,
/// each with a coefficient in {±2, ±3} on one of the eliminated variables
/// x4..x7 and two more random entries in [-3, 3].
fn twelve_variable_system() -> BasicSet {
    let n = 12;
    let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let mut b = BasicSet::universe(Space::set(vec![], Tuple::anonymous(names)));
    let w = n + 1;
    for k in 0..n {
        let mut lo = vec![0i64; w];
        lo[k] = 1;
        b.add_ineq(lo);
        let mut hi = vec![0i64; w];
        hi[k] = -1;
        hi[w - 1] = 20;
        b.add_ineq(hi);
    }
    for k in 0..n - 1 {
        let mut r = vec![0i64; w];
        r[k] = 1;
        r[k + 1] = -1;
        r[w - 1] = 3;
        b.add_ineq(r);
        let mut r = vec![0i64; w];
        r[k] = -1;
        r[k + 1] = 2;
        r[w - 1] = 1;
        b.add_ineq(r);
    }
    let mut rng = Rng::new(12);
    for _ in 0..8 {
        let mut r = vec![0i64; n];
        // One eliminated variable (x4..x7) and two others.
        r[4 + rng.below(4)] = *rng.pick(&[-3, -2, 2, 3]);
        for _ in 0..2 {
            r[rng.below(n)] = rng.range(-3, 3);
        }
        // The constant makes the row hold at x = (10, ..., 10).
        let at: i64 = r.iter().map(|a| a * 10).sum();
        r.push(rng.range(0, 10) - at);
        b.add_ineq(r);
    }
    b
}

/// Seed 000's inter-statement conflict polyhedron CS_{1,0} of the 1-d
/// stencil, over `[N | t, i, t', i']`.
fn stencil_conflicts() -> BasicSet {
    let space = Space::set(vec!["N".into()], Tuple::new(None, &["t", "i", "t2", "i2"]));
    let mut b = BasicSet::universe(space);
    for c in 1..=4 {
        let mut lo = vec![0i64; 6];
        lo[c] = 1;
        lo[5] = -1;
        b.add_ineq(lo);
        let mut hi = vec![0i64; 6];
        hi[0] = 1;
        hi[c] = -1;
        b.add_ineq(hi);
    }
    b.add_eq(vec![0, 1, 0, -1, 0, 1]);
    b.add_ineq(vec![0, 0, 1, 0, -1, 0]);
    b
}

/// Last writer of `A[i + j - 1]` read at `(i, j)` among writes `A[i' + j']`
/// at `(i', j')` with `i' < i`, all in `[0, N]^2`.
fn last_writer() -> BasicSet {
    let space = Space::relation(
        vec!["N".into()],
        Tuple::new(Some("R"), &["i", "j"]),
        Tuple::new(Some("W"), &["i2", "j2"]),
    );
    let mut b = BasicSet::universe(space);
    // Columns [N, i, j, i2, j2, 1].
    for c in 1..=4 {
        let mut lo = vec![0i64; 6];
        lo[c] = 1;
        b.add_ineq(lo);
        let mut hi = vec![0i64; 6];
        hi[0] = 1;
        hi[c] = -1;
        b.add_ineq(hi);
    }
    b.add_eq(vec![0, 1, 1, -1, -1, -1]);
    b.add_ineq(vec![0, 1, 0, -1, 0, -1]);
    b
}

fn main() {
    let system = twelve_variable_system();
    let p = project_out(&system, DimType::In, 4, 4).expect("projection");
    let t_project = median(|| project_out(&system, DimType::In, 4, 4).expect("projection"));
    println!(
        "project 4 of 12 variables: median {:?} ({} -> {} inequalities, exact = {})",
        t_project,
        system.ineqs.len(),
        p.set.ineqs.len(),
        p.exact
    );

    let cs = stencil_conflicts();
    let form = [0, -1, 1, 1, -1, 0];
    let bound = least_upper_bound(&cs, &form).expect("bound");
    let t_bound = median(|| least_upper_bound(&cs, &form).expect("bound"));
    println!("Farkas least upper bound: median {t_bound:?} ({bound:?})");

    let rel = last_writer();
    let opt = lexmax(&rel).expect("lexmax");
    let t_lexmax = median(|| lexmax(&rel).expect("lexmax"));
    println!(
        "lexmax (last writer): median {:?} ({} pieces, exact = {})",
        t_lexmax,
        opt.pieces.len(),
        opt.exact
    );
}
