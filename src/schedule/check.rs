//! The check of a re-emitted SCoP as the front end reads it back: each of
//! its statements is a copy of an original statement whose iterators are
//! affine functions of the copy's ([`Origin`]: a shift of a fused loop, or
//! a dimension the generator fixed to a value), with the same accesses;
//! the copies of a statement run its original instances, each once.
//! Exact set operations, symbolic in the parameters; what they cannot
//! decide fails the check.

use crate::ir::{AffExpr, Scop, Stmt};
use crate::poly::{BasicSet, Set};

use super::failure::Failure;

/// Where a statement of a re-emitted SCoP comes from: the original
/// statement, and each of its iterators (quotients included) as an affine
/// expression over `[the original SCoP's parameters | the copy's
/// iterators]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub stmt: usize,
    pub iters: Vec<AffExpr>,
}

impl Origin {
    /// A copy whose iterator `k` runs the original's `k` at `k + shift[k]`
    /// (`np` parameters).
    pub fn shifted(stmt: usize, shift: &[i64], np: usize) -> Option<Origin> {
        let n = shift.len();
        let iters = shift
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let mut coeffs = vec![0i64; np + n];
                coeffs[np + k] = 1;
                Some(AffExpr {
                    coeffs,
                    constant: s.checked_neg()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Origin { stmt, iters })
    }

    /// The identity of statement `stmt` with `n` iterators.
    pub fn identity(stmt: usize, n: usize, np: usize) -> Origin {
        let iters = (0..n)
            .map(|k| {
                let mut coeffs = vec![0i64; np + n];
                coeffs[np + k] = 1;
                AffExpr {
                    coeffs,
                    constant: 0,
                }
            })
            .collect();
        Origin { stmt, iters }
    }

    /// The original iteration of the copy's iteration `point` at
    /// parameter values `values` (the original SCoP's order).
    pub fn iteration(&self, values: &[i64], point: &[i64]) -> Option<Vec<i64>> {
        self.iters
            .iter()
            .map(|a| {
                let mut acc = a.constant;
                for (c, v) in a.coeffs.iter().zip(values.iter().chain(point)) {
                    acc = acc.checked_add(c.checked_mul(*v)?)?;
                }
                Some(acc)
            })
            .collect()
    }

    /// `self` (a copy of a statement of an intermediate program) followed
    /// by `earlier` (that statement's origin): the copy's origin in the
    /// first program. Both over the same parameters.
    pub fn then(&self, earlier: &Origin, np: usize) -> Option<Origin> {
        let iters = earlier
            .iters
            .iter()
            .map(|e| composed(e, self, np))
            .collect::<Option<Vec<_>>>()?;
        Some(Origin {
            stmt: earlier.stmt,
            iters,
        })
    }

    /// Per iterator of the copy, the original iterator that is it plus
    /// a function of the parameters (coefficient 1, no other iterator of
    /// the copy): what makes the copy's iterations determined by the
    /// original's. `None` when some iterator has none.
    fn defining(&self, np: usize, n_new: usize) -> Option<Vec<usize>> {
        (0..n_new)
            .map(|j| {
                self.iters.iter().position(|a| {
                    a.coeffs.len() == np + n_new
                        && a.coeffs[np..]
                            .iter()
                            .enumerate()
                            .all(|(i, c)| *c == if i == j { 1 } else { 0 })
                })
            })
            .collect()
    }
}

/// Checks `fused` against `original`: `order[k]` is the origin of
/// `fused.stmts[k]`.
pub fn check_fused(original: &Scop, fused: &Scop, order: &[Origin]) -> Result<(), Failure> {
    if fused.stmts.len() != order.len() {
        return Err(Failure::StatementCount {
            fused: fused.stmts.len(),
            printed: order.len(),
        });
    }
    let params = original.param_names();
    let fparams = fused.param_names();
    if params.len() != fparams.len() || params.iter().any(|p| !fparams.contains(p)) {
        return Err(Failure::OtherParameters);
    }
    let mut copies: Vec<Vec<Set>> = vec![Vec::new(); original.stmts.len()];
    for (k, origin) in order.iter().enumerate() {
        let f = &fused.stmts[k];
        let s = original
            .stmts
            .get(origin.stmt)
            .ok_or(Failure::NoSuchStatement)?;
        if origin.iters.len() != s.iterators.len() {
            return Err(Failure::OriginLength(s.name.clone()));
        }
        same_accesses(original, fused, s, f, origin).map_err(|why| Failure::ReadBackAs {
            stmt: s.name.clone(),
            copy: f.name.clone(),
            why: Box::new(why),
        })?;
        let back = image(&f.domain.with_params(&params)?, origin, s)
            .ok_or_else(|| Failure::NotDetermined(s.name.clone()))?;
        copies[origin.stmt].push(back);
    }
    let np = original.params.len();
    for (o, pieces) in copies.iter().enumerate() {
        let s = &original.stmts[o];
        if pieces.is_empty() {
            // A statement outside the fused runs is printed as it was.
            return Err(Failure::NotInFused(s.name.clone()));
        }
        // Strided loops: compared in their iteration counters, once every
        // copy is shown to run on the loops' lattices.
        let lattices: Vec<Lattice> = (0..s.iterators.len())
            .rev()
            .filter_map(|d| lattice(s, d, np))
            .collect();
        let counted = |set: Set| -> Result<Set, Failure> {
            let mut set = set;
            for l in &lattices {
                set = on_lattice(&set, l, 0).ok_or(Failure::Overflow)?;
            }
            Ok(set)
        };
        let domain = counted(with_context(&s.domain, &original.context)?)?;
        let mut counted_pieces = Vec::with_capacity(pieces.len());
        for p in pieces {
            let p = renamed(with_context(p, &original.context)?, &domain);
            for l in &lattices {
                for residue in 1..l.stride {
                    let off = on_lattice(&p, l, residue).ok_or(Failure::Overflow)?;
                    if !off.is_empty()? {
                        return Err(Failure::NotItsInstances(s.name.clone()));
                    }
                }
            }
            counted_pieces.push(counted(p)?);
        }
        let pieces = &counted_pieces;
        let mut union = Set::empty(domain.space.clone());
        for (a, p) in pieces.iter().enumerate() {
            let p = renamed(p.clone(), &domain);
            for q in &pieces[a + 1..] {
                let q = renamed(q.clone(), &domain);
                if !p.intersect(&q)?.is_empty()? {
                    return Err(Failure::TwoCopies(s.name.clone()));
                }
            }
            union = union.union(&p)?;
        }
        let same =
            union.is_subset(&domain)? == Some(true) && domain.is_subset(&union)? == Some(true);
        if !same {
            return Err(Failure::NotItsInstances(s.name.clone()));
        }
    }
    Ok(())
}

/// Dimension `dim` of a statement's iterations runs on the lattice
/// `anchor + stride * t` (a loop of step `±stride`); `anchor` is over
/// `[params | the iterators before dim]`.
#[derive(Clone, Debug)]
pub(crate) struct Lattice {
    pub dim: usize,
    pub anchor: AffExpr,
    pub stride: i64,
}

/// The lattice of dimension `dim` of `stmt` when its loop strides: its
/// loop domain is one piece with one existential `e`, named by one
/// equality only, `±(x_dim − anchor ∓ stride · e) = 0` (`stride >= 2`). `None` otherwise (a loop of step ±1 included).
pub(crate) fn lattice(stmt: &Stmt, dim: usize, np: usize) -> Option<Lattice> {
    let domain = stmt.loop_domains.get(dim)?;
    let [piece] = domain.pieces.as_slice() else {
        return None;
    };
    let [eq] = piece.eqs.as_slice() else {
        return None;
    };
    if piece.n_exist != 1 || piece.space.n_param() != np {
        return None;
    }
    let width = piece.width();
    let col = np + dim;
    let exist = width - 2;
    if exist != col + 1 {
        return None;
    }
    // `e` is free but for the equality (`x = anchor - stride · e` is the
    // same lattice).
    let sign = eq[col];
    let stride = eq[exist].checked_abs()?;
    if sign.abs() != 1 || stride < 2 || piece.ineqs.iter().any(|r| r[exist] != 0) {
        return None;
    }
    let anchor = AffExpr {
        coeffs: eq[..col]
            .iter()
            .map(|c| c.checked_mul(-sign))
            .collect::<Option<_>>()?,
        constant: eq[width - 1].checked_mul(-sign)?,
    };
    Some(Lattice {
        dim,
        anchor,
        stride,
    })
}

/// `set` (over a statement's iterations) with dimension `l.dim` written
/// `x = anchor + residue + stride · t`, `t` in its place: with residue 0,
/// the points on the lattice, one for one; with another residue, empty
/// exactly when no point is off the lattice with that residue.
fn on_lattice(set: &Set, l: &Lattice, residue: i64) -> Option<Set> {
    let np = set.space.n_param();
    let col = np + l.dim;
    let mut out = set.clone();
    for p in &mut out.pieces {
        let w = p.width();
        let rewrite = |row: &mut Vec<i64>| -> Option<()> {
            let c = row[col];
            if c == 0 {
                return Some(());
            }
            row[col] = c.checked_mul(l.stride)?;
            // The anchor's columns are the parameters and the iterators
            // before `dim`: the set's first columns.
            for (k, a) in l.anchor.coeffs.iter().enumerate() {
                row[k] = row[k].checked_add(c.checked_mul(*a)?)?;
            }
            let shift = l.anchor.constant.checked_add(residue)?;
            row[w - 1] = row[w - 1].checked_add(c.checked_mul(shift)?)?;
            Some(())
        };
        for row in p.eqs.iter_mut().chain(p.ineqs.iter_mut()) {
            rewrite(row)?;
        }
    }
    Some(out)
}

/// The set with the original domain's space (tuple name and dimension
/// names), which the copies share in shape.
fn renamed(mut set: Set, like: &Set) -> Set {
    set.space = like.space.clone();
    for p in &mut set.pieces {
        p.space = like.space.clone();
    }
    set
}

fn with_context(set: &Set, context: &BasicSet) -> Result<Set, Failure> {
    let mut out = set.clone();
    for p in &mut out.pieces {
        if p.space.n_param() != context.space.n_param() {
            return Err(Failure::ContextParameters);
        }
        p.add_param_constraints(context);
    }
    Ok(out)
}

/// `{ x : x = origin(u), u ∈ set }` in the space of `s`'s domain, where
/// `set` is a copy's domain over the original parameters: each iterator
/// `u_j` of the copy is `x_k − r(params)` for its defining `k` (see
/// [`Origin::defining`]), substituted in every row; the other original
/// iterators are tied to the copy's by their equalities.
fn image(set: &Set, origin: &Origin, s: &Stmt) -> Option<Set> {
    let np = set.space.n_param();
    let n_new = set.space.n_in();
    let n_old = s.iterators.len();
    let defining = origin.defining(np, n_new)?;
    let space = s.domain.space.clone();
    let mut out = Set::empty(space.clone());
    // u_j as a row over [params | x | const]: x_k - (iters[k] - u_j).
    let mut subst: Vec<Vec<i64>> = Vec::with_capacity(n_new);
    for (j, &k) in defining.iter().enumerate() {
        let a = &origin.iters[k];
        let mut row = vec![0i64; np + n_old + 1];
        for (r, c) in row[..np].iter_mut().zip(&a.coeffs[..np]) {
            *r = c.checked_neg()?;
        }
        row[np + k] = 1;
        row[np + n_old] = a.constant.checked_neg()?;
        debug_assert_eq!(a.coeffs[np + j], 1);
        subst.push(row);
    }
    for piece in &set.pieces {
        let ne = piece.n_exist;
        let mut b = BasicSet::universe(space.clone());
        for _ in 0..ne {
            b.add_exist();
        }
        let w = b.width();
        // A row of the copy over [params | u | exist | const], rewritten.
        let rewrite = |row: &[i64]| -> Option<Vec<i64>> {
            let mut out = vec![0i64; w];
            out[..np].copy_from_slice(&row[..np]);
            for e in 0..ne {
                out[np + n_old + e] = row[np + n_new + e];
            }
            out[w - 1] = row[np + n_new + ne];
            for (j, sub) in subst.iter().enumerate() {
                let c = row[np + j];
                if c == 0 {
                    continue;
                }
                for (i, v) in sub[..np + n_old].iter().enumerate() {
                    out[i] = out[i].checked_add(c.checked_mul(*v)?)?;
                }
                out[w - 1] = out[w - 1].checked_add(c.checked_mul(sub[np + n_old])?)?;
            }
            Some(out)
        };
        for row in &piece.eqs {
            b.add_eq(rewrite(row)?);
        }
        for row in &piece.ineqs {
            b.add_ineq(rewrite(row)?);
        }
        // x_k = iters[k](params, u(x)) for every k.
        for (k, a) in origin.iters.iter().enumerate() {
            let mut row = vec![0i64; np + n_new + ne + 1];
            for (r, c) in row[..np + n_new].iter_mut().zip(&a.coeffs) {
                *r = *c;
            }
            row[np + n_new + ne] = a.constant;
            // iters[k] - x_k = 0
            let mut r = rewrite(&row)?;
            r[np + k] = r[np + k].checked_sub(1)?;
            if r.iter().any(|v| *v != 0) {
                b.add_eq(r);
            }
        }
        out.push(b);
    }
    Some(out)
}

/// Whether `f` (a copy of `s` with `origin`) makes the accesses of `s`,
/// in the same order.
fn same_accesses(
    original: &Scop,
    fused: &Scop,
    s: &Stmt,
    f: &Stmt,
    origin: &Origin,
) -> Result<(), Failure> {
    if s.quotients.len() != f.quotients.len() {
        return Err(Failure::OtherQuotients);
    }
    let a: Vec<_> = s.accesses().collect();
    let b: Vec<_> = f.accesses().collect();
    if a.len() != b.len() {
        return Err(Failure::OtherAccesses);
    }
    let np = original.params.len();
    for (x, y) in a.iter().zip(&b) {
        if x.kind != y.kind
            || original.array(x.array).name != fused.array(y.array).name
            || x.subscripts.len() != y.subscripts.len()
        {
            return Err(Failure::OtherAccesses);
        }
        for (p, q) in x.subscripts.iter().zip(&y.subscripts) {
            let q =
                in_original_params(original, fused, q, np).ok_or(Failure::SubscriptParameters)?;
            let p = composed(p, origin, np).ok_or(Failure::Overflow)?;
            if p != q {
                return Err(Failure::OtherSubscript(
                    original.array(x.array).name.clone(),
                ));
            }
        }
    }
    Ok(())
}

/// `p(origin(u))` over `[params | u]`.
pub(super) fn composed(p: &AffExpr, origin: &Origin, np: usize) -> Option<AffExpr> {
    let n_new = origin.iters.first().map_or(0, |a| a.coeffs.len() - np);
    let mut coeffs = vec![0i64; np + n_new];
    coeffs[..np].copy_from_slice(p.coeffs.get(..np)?);
    let mut constant = p.constant;
    for (k, c) in p.coeffs.get(np..)?.iter().enumerate() {
        if *c == 0 {
            continue;
        }
        let a = origin.iters.get(k)?;
        for (o, x) in coeffs.iter_mut().zip(&a.coeffs) {
            *o = o.checked_add(c.checked_mul(*x)?)?;
        }
        constant = constant.checked_add(c.checked_mul(a.constant)?)?;
    }
    Some(AffExpr { coeffs, constant })
}

/// `q` (over the fused SCoP's parameters and a statement's iterators)
/// with the parameters in the original SCoP's order.
fn in_original_params(original: &Scop, fused: &Scop, q: &AffExpr, np: usize) -> Option<AffExpr> {
    let mut coeffs = vec![0i64; q.coeffs.len()];
    for (k, p) in fused.params.iter().enumerate() {
        let at = original.params.iter().position(|o| o.name == p.name)?;
        coeffs[at] = q.coeffs[k];
    }
    coeffs[np..].copy_from_slice(&q.coeffs[np..]);
    Some(AffExpr {
        coeffs,
        constant: q.constant,
    })
}
