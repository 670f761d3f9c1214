//! Property tests of the lattice strategies against brute force on random
//! 0-symmetric polytopes (fixed seed; `POLYFOLD_PROPTEST_CASES=k` runs k
//! times more cases).

use crate::poly::brute::{for_each_point, proptest_cases};
use crate::poly::matrix::{IntMatrix, hnf_col};
use crate::poly::rational::Rat;
use crate::poly::{BasicSet, Budget};
use crate::util::rng::Rng;

use super::basis::NumericMapping;
use super::minima::{gauge, successive_minima};
use super::optimal::{box_bound, optimal_lattice};
use super::polytope::{DifferencePoints, FixedDifferenceSet, Polytope, difference_space};
use super::{LatticeMethod, LatticeOptions, analyse, lattice_candidates};

/// A random bounded 0-symmetric polytope: a box `|x_i| <= B_i` cut by a few
/// symmetric pairs of random half-spaces `|a·x| <= c`.
fn random_polytope(rng: &mut Rng, n: usize, max_box: i64) -> Polytope {
    let mut b = BasicSet::universe(difference_space(n));
    for i in 0..n {
        let bound = rng.range(0, max_box);
        let mut row = vec![0i64; n + 1];
        row[i] = -1;
        row[n] = bound;
        b.add_ineq(row.clone());
        row[i] = 1;
        b.add_ineq(row);
    }
    for _ in 0..rng.below(3) {
        let a: Vec<i64> = (0..n).map(|_| rng.range(-3, 3)).collect();
        let c = rng.range(0, 3 * max_box);
        let mut row: Vec<i64> = a.iter().map(|v| -v).collect();
        row.push(c);
        b.add_ineq(row);
        let mut row = a.clone();
        row.push(c);
        b.add_ineq(row);
    }
    Polytope { set: b }
}

/// Every integer point of the polytope except 0, by scanning a box.
fn brute_points(k: &Polytope, half: i64) -> Vec<Vec<i64>> {
    let n = k.dim();
    let mut out = Vec::new();
    let mut x = vec![-half; n];
    loop {
        if x.iter().any(|v| *v != 0) && k.contains(&x).unwrap() {
            out.push(x.clone());
        }
        let mut p = n;
        loop {
            if p == 0 {
                return out;
            }
            p -= 1;
            if x[p] < half {
                x[p] += 1;
                break;
            }
            x[p] = -half;
        }
    }
}

/// Rank of integer vectors (exact, via the matrix rank of `poly::matrix`).
fn rank_of(vectors: &[Vec<i64>], n: usize) -> usize {
    if vectors.is_empty() {
        return 0;
    }
    IntMatrix::from_rows(vectors, n).unwrap().rank().unwrap()
}

/// Brute-force successive minima up to 1: sort the points of K by gauge
/// and keep the ones that raise the rank.
fn brute_minima(k: &Polytope, points: &[Vec<i64>]) -> Vec<Rat> {
    let rows = k.upper_rows().unwrap();
    let mut by_gauge: Vec<(Rat, Vec<i64>)> = points
        .iter()
        .map(|x| (gauge(&rows, x).unwrap().unwrap(), x.clone()))
        .collect();
    by_gauge.sort();
    let mut chosen: Vec<Vec<i64>> = Vec::new();
    let mut lambdas = Vec::new();
    for (g, x) in by_gauge {
        let mut trial = chosen.clone();
        trial.push(x);
        if rank_of(&trial, k.dim()) > chosen.len() {
            chosen = trial;
            lambdas.push(g);
        }
    }
    lambdas
}

fn admissible(m: &NumericMapping, points: &[Vec<i64>]) -> bool {
    points.iter().all(|x| !m.kills(x).unwrap())
}

#[test]
fn successive_minima_match_brute_force() {
    let mut rng = Rng::new(0x1A77_1CE5);
    for _ in 0..proptest_cases(150) {
        let n = 2 + rng.below(2);
        let k = random_polytope(&mut rng, n, 5);
        let points = brute_points(&k, 5);
        let brute = brute_minima(&k, &points);
        let ours = successive_minima(&k, &mut Budget::default()).unwrap();
        // Minima up to 1 are exactly those of the points of K.
        let within: Vec<Rat> = ours
            .lambdas
            .iter()
            .copied()
            .filter(|l| *l <= Rat::one())
            .collect();
        assert_eq!(within, brute, "{}", k.set);
        assert_eq!(ours.span_dimension, brute.len(), "{}", k.set);
        // Vectors: independent and of the stated gauge.
        assert_eq!(rank_of(&ours.vectors, n), ours.vectors.len());
        let rows = k.upper_rows().unwrap();
        for (l, v) in ours.lambdas.iter().zip(&ours.vectors) {
            assert_eq!(gauge(&rows, v).unwrap(), Some(*l));
        }
    }
}

#[test]
fn every_heuristic_is_admissible_and_heuristic_3_beats_successive_modulo() {
    let mut rng = Rng::new(0x4E70_0003);
    for _ in 0..proptest_cases(60) {
        let n = 2 + rng.below(2);
        let k = random_polytope(&mut rng, n, 4);
        let points = brute_points(&k, 4);
        let fixed = FixedDifferenceSet::from_polytope(&k);
        let opts = LatticeOptions {
            optimal_steps: 50_000_000,
            ..LatticeOptions::default()
        };
        let a = analyse(&fixed, &opts, &mut Budget::default()).unwrap();
        for h in &a.heuristics {
            assert!(
                admissible(&h.mapping, &points),
                "{} ({}) {:?} on {}",
                h.method,
                h.detail,
                h.mapping,
                k.set
            );
        }
        // Successive modulo by brute force: b_p = 1 + max{|x_p| : x_<p = 0}.
        let mut succ = 1i64;
        for p in 0..n {
            let max = points
                .iter()
                .filter(|x| x[..p].iter().all(|v| *v == 0))
                .map(|x| x[p].abs())
                .max()
                .unwrap_or(0);
            succ *= max + 1;
        }
        let h3 = a
            .heuristics
            .iter()
            .filter(|h| h.method == LatticeMethod::Heuristic3)
            .map(|h| h.mapping.size().unwrap())
            .min()
            .unwrap();
        assert!(h3 <= succ, "{h3} > {succ} on {}", k.set);
        // The certified candidates: none dropped, all admissible.
        let c = lattice_candidates(
            std::slice::from_ref(&k.set),
            n,
            &[],
            &opts,
            &mut Budget::default(),
        )
        .unwrap();
        let mut methods: Vec<LatticeMethod> = a.heuristics.iter().map(|h| h.method).collect();
        methods.sort();
        methods.dedup();
        for m in methods {
            assert!(c.iter().any(|c| c.method == m), "{m} dropped on {}", k.set);
        }
    }
}

/// All 2-D lattices of determinant `d`, by brute force: the lattices
/// generated by `d·Z^2` and two vectors of `[0, d)^2`, in Hermite form,
/// deduplicated.
fn brute_lattices(d: i64) -> Vec<Vec<Vec<i64>>> {
    let mut seen = std::collections::BTreeSet::new();
    for u0 in 0..d {
        for u1 in 0..d {
            for v0 in 0..d {
                for v1 in 0..d {
                    let m = IntMatrix::from_cols(
                        &[vec![u0, u1], vec![v0, v1], vec![d, 0], vec![0, d]],
                        2,
                    )
                    .unwrap();
                    let (h, _) = hnf_col(&m).unwrap();
                    let basis = vec![h.col(0), h.col(1)];
                    if (h.get(0, 0) * h.get(1, 1)).abs() == d {
                        seen.insert(basis);
                    }
                }
            }
        }
    }
    seen.into_iter().collect()
}

fn in_lattice(basis: &[Vec<i64>], x: &[i64]) -> bool {
    // Lower-triangular Hermite basis: solve top-down.
    let a = basis[0][0];
    if x[0] % a != 0 {
        return false;
    }
    let z0 = x[0] / a;
    let rest = x[1] - z0 * basis[0][1];
    rest % basis[1][1] == 0
}

#[test]
fn optimal_search_matches_brute_force_in_2d() {
    let mut rng = Rng::new(0x0B7_0002);
    let mut by_size: Vec<Vec<Vec<Vec<i64>>>> = vec![Vec::new()];
    for d in 1..=12 {
        by_size.push(brute_lattices(d));
    }
    let mut checked = 0;
    for _ in 0..proptest_cases(80) {
        let k = random_polytope(&mut rng, 2, 3);
        let points = brute_points(&k, 3);
        let brute = (1..=12i64).find(|&d| {
            by_size[d as usize]
                .iter()
                .any(|b| points.iter().all(|x| !in_lattice(b, x)))
        });
        let Some(brute) = brute else { continue };
        checked += 1;
        let dp = DifferencePoints::of_polytope(&k, &mut Budget::default()).unwrap();
        let bound = box_bound(&dp, &mut Budget::default()).unwrap();
        assert!(
            bound <= brute,
            "clique bound {bound} > optimum {brute} on {}",
            k.set
        );
        let r = optimal_lattice(&dp, 1, 1000, &mut Budget::default()).unwrap();
        assert!(r.proven);
        assert_eq!(r.size, Some(brute), "{}", k.set);
        let m = r.mapping.unwrap();
        assert_eq!(m.size().unwrap(), brute);
        assert!(admissible(&m, &points));
    }
    assert!(checked >= 20, "only {checked} cases had an optimum <= 12");
}

#[test]
fn flat_polytope_folds_the_missing_direction() {
    // K = { |x0| <= 3, x1 = 0 }: span dimension 1, mapping x0 mod 4.
    let set = crate::poly::isl_parse::parse_set("{ [a, b] : -3 <= a <= 3 and b = 0 }").unwrap();
    let c = lattice_candidates(
        &set.pieces,
        2,
        &[],
        &LatticeOptions::default(),
        &mut Budget::default(),
    )
    .unwrap();
    let fixed = FixedDifferenceSet::new(&set.pieces, 2, &[], &mut Budget::default()).unwrap();
    let a = analyse(&fixed, &LatticeOptions::default(), &mut Budget::default()).unwrap();
    assert_eq!(a.minima.unwrap().span_dimension, 1);
    for cand in &c {
        assert_eq!(cand.size, 4, "{cand:?}");
    }
    let h1a = c
        .iter()
        .find(|c| c.method == LatticeMethod::Heuristic1a)
        .unwrap();
    assert_eq!(h1a.mapping.dims.len(), 1);
}

#[test]
fn unbounded_or_huge_difference_sets_skip_strategies_without_failing() {
    // Unbounded along `a`: no polytope, no heuristic can work; no candidate.
    let set = crate::poly::isl_parse::parse_set("{ [a, b] : -1 <= b <= 1 }").unwrap();
    let c = lattice_candidates(
        &set.pieces,
        2,
        &[],
        &LatticeOptions::default(),
        &mut Budget::default(),
    )
    .unwrap();
    assert!(c.is_empty(), "{c:?}");
    // A box too large to enumerate: the heuristics still answer (301^3: b = 1 + 300 per axis),
    // the optimal search is skipped.
    let set = crate::poly::isl_parse::parse_set(
        "{ [a, b, c] : -300 <= a <= 300 and -300 <= b <= 300 and -300 <= c <= 300 }",
    )
    .unwrap();
    let c = lattice_candidates(
        &set.pieces,
        3,
        &[],
        &LatticeOptions::default(),
        &mut Budget::default(),
    )
    .unwrap();
    let h3 = c
        .iter()
        .find(|c| c.method == LatticeMethod::Heuristic3)
        .unwrap();
    assert_eq!(h3.size, 301 * 301 * 301);
    assert!(c.iter().all(|c| c.method != LatticeMethod::OptimalSearch));
}

#[test]
fn rank_zero_and_trivial_difference_sets_need_one_location() {
    let set = crate::poly::isl_parse::parse_set("{ [] }").unwrap();
    let c = lattice_candidates(
        &set.pieces,
        0,
        &[],
        &LatticeOptions::default(),
        &mut Budget::default(),
    )
    .unwrap();
    assert!(c.iter().all(|c| c.size == 1) && !c.is_empty(), "{c:?}");
    let set = crate::poly::isl_parse::parse_set("{ [a, b] : a = 0 and b = 0 }").unwrap();
    let c = lattice_candidates(
        &set.pieces,
        2,
        &[],
        &LatticeOptions::default(),
        &mut Budget::default(),
    )
    .unwrap();
    assert!(c.iter().all(|c| c.size == 1) && !c.is_empty(), "{c:?}");
}

/// `random_polytope` in 2-D times the segment `|x_at| <= m − 1`: the shape
/// of a temporary whose cells are all live together along a long loop
/// (reg_detect's `diff`, with `at = 2`), symmetric in that coordinate.
fn random_product(rng: &mut Rng, max_box: i64, m: i64, at: usize) -> Polytope {
    let base = random_polytope(rng, 2, max_box);
    let mut b = BasicSet::universe(difference_space(3));
    let others: Vec<usize> = (0..3).filter(|r| *r != at).collect();
    for row in &base.set.ineqs {
        let mut lifted = vec![0i64; 4];
        lifted[others[0]] = row[0];
        lifted[others[1]] = row[1];
        lifted[3] = row[2];
        b.add_ineq(lifted);
    }
    for sign in [1, -1] {
        let mut row = vec![0i64; 4];
        row[at] = sign;
        row[3] = m - 1;
        b.add_ineq(row);
    }
    Polytope { set: b }
}

/// The smallest `d <= max_d` such that some homomorphism `φ` from `Z^3` to
/// an abelian group of order `d` has `φ(x) ≠ 0` on every point: the
/// optimum by a route independent of Hermite bases (the kernel of `φ` is an
/// admissible lattice of determinant at most `d`, and the quotient map of an
/// admissible lattice is such a `φ`). Groups by invariant factors
/// `a | b | c`, `abc = d`; `φ` by the images of the unit vectors.
fn brute_optimum_3d(points: &[Vec<i64>], max_d: i64) -> Option<i64> {
    for d in 1..=max_d {
        for a in 1..=d {
            for b in (a..=d).step_by(a as usize) {
                if d % (a * b) != 0 {
                    continue;
                }
                let c = d / (a * b);
                if c % b != 0 {
                    continue;
                }
                let order = [a, b, c];
                // Images of e_0, e_1, e_2: 3 elements of Z/a × Z/b × Z/c.
                let elems: Vec<[i64; 3]> = (0..a)
                    .flat_map(|u| (0..b).flat_map(move |v| (0..c).map(move |w| [u, v, w])))
                    .collect();
                for g0 in &elems {
                    for g1 in &elems {
                        for g2 in &elems {
                            let ok = points.iter().all(|x| {
                                (0..3).any(|r| {
                                    (x[0] * g0[r] + x[1] * g1[r] + x[2] * g2[r])
                                        .rem_euclid(order[r])
                                        != 0
                                })
                            });
                            if ok {
                                return Some(d);
                            }
                        }
                    }
                }
            }
        }
    }
    None
}

#[test]
fn optimal_search_matches_brute_force_in_3d() {
    let mut rng = Rng::new(0x0B7_0003);
    let mut checked = 0;
    let mut products = 0;
    for case in 0..proptest_cases(60) {
        let product = case % 2 == 0;
        let k = if product {
            let m = rng.range(1, 4);
            // The segment anywhere: the search reorders the coordinates.
            random_product(&mut rng, 2, m, case / 2 % 3)
        } else {
            random_polytope(&mut rng, 3, 2)
        };
        let points = brute_points(&k, 4);
        let Some(brute) = brute_optimum_3d(&points, 16) else {
            continue;
        };
        checked += 1;
        products += usize::from(product);
        let dp = DifferencePoints::of_polytope(&k, &mut Budget::default()).unwrap();
        let r = optimal_lattice(&dp, 1, 1000, &mut Budget::default()).unwrap();
        assert!(r.proven);
        assert_eq!(r.size, Some(brute), "{}", k.set);
        let m = r.mapping.unwrap();
        assert_eq!(m.size().unwrap(), brute);
        assert!(admissible(&m, &points), "{}", k.set);
    }
    assert!(
        checked >= 20 && products >= 8,
        "only {checked} cases ({products} products) had an optimum <= 16"
    );
}

/// The largest `Π l_r` over every box whose difference box lies in
/// `points ∪ {0}`, by trying every box up to the extents.
fn brute_box_bound(points: &[Vec<i64>], n: usize) -> i64 {
    let set: std::collections::HashSet<Vec<i64>> = points.iter().cloned().collect();
    let e = points.iter().flatten().map(|v| v.abs()).max().unwrap_or(0);
    let mut best = 1;
    for_each_point(n, 1, e + 1, |l| {
        let fits = for_each_point(n, -e, e, |d| {
            d.iter().zip(l).any(|(v, side)| v.abs() >= *side)
                || d.iter().all(|v| *v == 0)
                || set.contains(d)
        });
        if fits {
            best = best.max(l.iter().product());
        }
        true
    });
    best
}

#[test]
fn box_bound_matches_every_box() {
    let mut rng = Rng::new(0x0B0C_5E75);
    for case in 0..proptest_cases(80) {
        let n = 1 + case % 3;
        let k = if n == 3 && case % 2 == 0 {
            let m = rng.range(1, 4);
            random_product(&mut rng, 3, m, case / 3 % 3)
        } else {
            random_polytope(&mut rng, n, 4)
        };
        let points = brute_points(&k, 5);
        let dp = DifferencePoints::of_polytope(&k, &mut Budget::default()).unwrap();
        assert_eq!(
            box_bound(&dp, &mut Budget::default()).unwrap(),
            brute_box_bound(&points, n),
            "{}",
            k.set
        );
    }
}

/// The enumerated points of DS are exactly its non-zero integer points,
/// in lexicographic order (brute force over the box that holds them).
#[test]
fn difference_points_are_the_brute_force_points_in_order() {
    let mut rng = Rng::new(0x0B7_0003);
    for n in 1..=3 {
        for _ in 0..proptest_cases(30) {
            let k = random_polytope(&mut rng, n, 3);
            let dp = DifferencePoints::of_polytope(&k, &mut Budget::default()).unwrap();
            let brute = brute_points(&k, 3);
            assert_eq!(dp.points, brute, "{}", k.set);
            assert!(brute.iter().all(|x| dp.contains(x)));
            assert!(!dp.contains(&vec![0; n]));
        }
    }
}
