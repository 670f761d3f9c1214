//! Micro-benchmarks of the exact polyhedral core: integer emptiness of a
//! 10-variable system, a rational LP, a Hermite normal form.
//!
//! Run with `cargo bench --bench poly_core`. Each case runs 101 times and
//! the median wall-clock time is printed (plain `std::time::Instant`, no
//! harness).

use std::hint::black_box;
use std::time::{Duration, Instant};

use polyfold::poly::matrix::{IntMatrix, hnf_col};
use polyfold::poly::simplex::{is_integer_empty, lp_max, rational_is_empty};
use polyfold::poly::{BasicSet, Space, Tuple};

const RUNS: usize = 101;

fn median(mut f: impl FnMut()) -> Duration {
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[RUNS / 2]
}

fn space(n: usize) -> Space {
    Space::set(
        Vec::new(),
        Tuple::anonymous((0..n).map(|i| format!("x{i}")).collect()),
    )
}

/// A bounded 10-variable system: a chain `x_{i+1} >= x_i + 1` between
/// `0 <= x_0` and `x_9 <= 30`, plus coupling rows whose constants give the
/// point `(0, 2, 4, 6, 8, 11, 13, 16, 18, 20)` a slack of 4 (20 inequalities
/// in all). With `thin` it also gets the two strips
/// `10 <= 5a - 3b <= 11` and `20 <= 2a + 7b <= 21` for `a = x5 - x4`,
/// `b = x7 - x6`: they have rational points but no integer point, because
/// `a = (7u + 3v)/41` is never an integer for `u` in {10, 11} and `v` in
/// {20, 21}; branch and bound has to prove it.
fn ten_var_system(thin: bool) -> BasicSet {
    let n = 10;
    let p = [0i64, 2, 4, 6, 8, 11, 13, 16, 18, 20];
    let mut b = BasicSet::universe(space(n));
    let row = |coeffs: &[(usize, i64)], c: i64| {
        let mut r = vec![0i64; n + 1];
        for (j, a) in coeffs {
            r[*j] += *a;
        }
        r[n] = c;
        r
    };
    let with_slack = |coeffs: &[(usize, i64)], slack: i64| {
        let at_p: i64 = coeffs.iter().map(|(j, a)| a * p[*j]).sum();
        row(coeffs, slack - at_p)
    };
    b.add_ineq(row(&[(0, 1)], 0));
    for i in 0..n - 1 {
        b.add_ineq(row(&[(i + 1, 1), (i, -1)], -1));
    }
    b.add_ineq(row(&[(9, -1)], 30));
    for coeffs in [
        &[(0, -1), (1, -1), (2, -1), (3, -1), (4, -1)][..],
        &[(5, 2), (6, -1), (9, -1)],
        &[(2, 3), (7, -2), (8, 1)],
        &[(4, -1), (5, 1), (6, 1), (7, -3)],
        &[(1, 2), (3, -1), (8, -1)],
        &[(0, 1), (9, 1), (5, -2)],
        &[(6, -1), (3, 1), (2, 1)],
        &[(8, 1), (9, -1), (4, 1)],
    ] {
        b.add_ineq(with_slack(coeffs, 4));
    }
    if thin {
        let u = [(5, 5), (4, -5), (7, -3), (6, 3)];
        let v = [(5, 2), (4, -2), (7, 7), (6, -7)];
        let neg = |c: &[(usize, i64)]| c.iter().map(|(j, a)| (*j, -a)).collect::<Vec<_>>();
        b.add_ineq(row(&u, -10));
        b.add_ineq(row(&neg(&u), 11));
        b.add_ineq(row(&v, -20));
        b.add_ineq(row(&neg(&v), 21));
    }
    b
}

fn main() {
    let feasible = ten_var_system(false);
    let empty = ten_var_system(true);
    assert_eq!(is_integer_empty(&feasible), Ok(false));
    assert_eq!(rational_is_empty(&empty), Ok(false));
    assert_eq!(is_integer_empty(&empty), Ok(true));
    let t = median(|| {
        black_box(is_integer_empty(black_box(&feasible))).ok();
    });
    println!(
        "integer emptiness, 10 vars / {} ineqs, non-empty: median {:?}",
        feasible.ineqs.len(),
        t
    );
    let t = median(|| {
        black_box(is_integer_empty(black_box(&empty))).ok();
    });
    println!(
        "integer emptiness, 10 vars / {} ineqs, empty:     median {:?}",
        empty.ineqs.len(),
        t
    );
    let mut obj = vec![3, -1, 4, 1, -5, 9, 2, -6, 5, 3];
    obj.push(0);
    let t = median(|| {
        black_box(lp_max(black_box(&feasible), &obj)).ok();
    });
    println!(
        "LP max, 10 vars / {} ineqs:                    median {t:?}",
        feasible.ineqs.len()
    );
    let rows: Vec<Vec<i64>> = (0..6)
        .map(|i| {
            (0..8)
                .map(|j| ((i * 7 + j * 13 + i * j * 5) % 17) as i64 - 8)
                .collect()
        })
        .collect();
    let m = IntMatrix::from_rows(&rows, 8).expect("rectangular");
    let t = median(|| {
        black_box(hnf_col(black_box(&m))).ok();
    });
    println!("column HNF of a 6x8 matrix (entries in [-8, 8]): median {t:?}");
}
