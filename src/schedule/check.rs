//! The check of a fused SCoP as the front end reads it back: each of its
//! statements is a copy of an original statement shifted in its outer
//! iterator, with the same accesses; the copies of a statement run its
//! original instances, each once. Exact set operations, symbolic in the
//! parameters; what they cannot decide fails the check.

use crate::ir::{AffExpr, Scop, Stmt};
use crate::poly::{BasicSet, Set};

/// Checks `fused` against `original`: `order[k]` is the original
/// statement and the shift of `fused.stmts[k]`.
pub fn check_fused(
    original: &Scop,
    fused: &Scop,
    order: &[(usize, Vec<i64>)],
) -> Result<(), String> {
    if fused.stmts.len() != order.len() {
        return Err(format!(
            "the fused SCoP has {} statements where {} were printed",
            fused.stmts.len(),
            order.len()
        ));
    }
    let params = original.param_names();
    let fparams = fused.param_names();
    if params.len() != fparams.len() || params.iter().any(|p| !fparams.contains(p)) {
        return Err("the fused SCoP has other parameters".to_string());
    }
    let err = |e: crate::poly::PolyError| e.to_string();
    let mut copies: Vec<Vec<Set>> = vec![Vec::new(); original.stmts.len()];
    for (k, (o, shift)) in order.iter().enumerate() {
        let (f, s) = (&fused.stmts[k], &original.stmts[*o]);
        if shift.len() != s.iterators.len() {
            return Err(format!("{}: a shift of another length", s.name));
        }
        same_accesses(original, fused, s, f, shift)
            .map_err(|why| format!("{} read back as {}: {why}", s.name, f.name))?;
        let back = unshift(&f.domain.with_params(&params).map_err(err)?, shift)
            .ok_or("a shift overflows")?;
        copies[*o].push(back);
    }
    for (o, pieces) in copies.iter().enumerate() {
        let s = &original.stmts[o];
        let domain = with_context(&s.domain, &original.context)?;
        if pieces.is_empty() {
            // A statement outside the fused runs is printed as it was.
            return Err(format!("{} is not in the fused SCoP", s.name));
        }
        let mut union = Set::empty(domain.space.clone());
        for (a, p) in pieces.iter().enumerate() {
            let p = renamed(with_context(p, &original.context)?, &domain);
            for q in &pieces[a + 1..] {
                let q = renamed(with_context(q, &original.context)?, &domain);
                if !p.intersect(&q).map_err(err)?.is_empty().map_err(err)? {
                    return Err(format!("two copies of {} run one instance", s.name));
                }
            }
            union = union.union(&p).map_err(err)?;
        }
        let same = union.is_subset(&domain).map_err(err)? == Some(true)
            && domain.is_subset(&union).map_err(err)? == Some(true);
        if !same {
            return Err(format!("the copies of {} do not run its instances", s.name));
        }
    }
    Ok(())
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

fn with_context(set: &Set, context: &BasicSet) -> Result<Set, String> {
    let mut out = set.clone();
    for p in &mut out.pieces {
        if p.space.n_param() != context.space.n_param() {
            return Err("parameters differ from the context's".to_string());
        }
        p.add_param_constraints(context);
    }
    Ok(out)
}

/// `{ x : x + shift ∈ set }` (the iterators follow the parameters).
fn unshift(set: &Set, shift: &[i64]) -> Option<Set> {
    let np = set.space.n_param();
    let mut out = set.clone();
    for p in &mut out.pieces {
        let w = p.width();
        for row in p.eqs.iter_mut().chain(p.ineqs.iter_mut()) {
            for (k, s) in shift.iter().enumerate() {
                let add = row[np + k].checked_mul(*s)?;
                row[w - 1] = row[w - 1].checked_add(add)?;
            }
        }
    }
    Some(out)
}

/// Whether `f` (a fused statement, its iterators shifted by `shift`)
/// makes the accesses of `s`, in the same order.
fn same_accesses(
    original: &Scop,
    fused: &Scop,
    s: &Stmt,
    f: &Stmt,
    shift: &[i64],
) -> Result<(), String> {
    if s.iterators.len() != f.iterators.len()
        || s.loop_depth() != f.loop_depth()
        || s.loop_depth() == 0
    {
        return Err("other loops".to_string());
    }
    let a: Vec<_> = s.accesses().collect();
    let b: Vec<_> = f.accesses().collect();
    if a.len() != b.len() {
        return Err("other accesses".to_string());
    }
    let np = original.params.len();
    for (x, y) in a.iter().zip(&b) {
        if x.kind != y.kind
            || original.array(x.array).name != fused.array(y.array).name
            || x.subscripts.len() != y.subscripts.len()
        {
            return Err("other accesses".to_string());
        }
        for (p, q) in x.subscripts.iter().zip(&y.subscripts) {
            let back = back_aff(original, fused, q, np, shift).ok_or("other parameters")?;
            if *p != back {
                return Err(format!(
                    "an access of `{}` has another subscript",
                    original.array(x.array).name
                ));
            }
        }
    }
    Ok(())
}

/// `q(x + shift)` over the original SCoP's parameter order.
fn back_aff(
    original: &Scop,
    fused: &Scop,
    q: &AffExpr,
    np: usize,
    shift: &[i64],
) -> Option<AffExpr> {
    let mut coeffs = vec![0i64; q.coeffs.len()];
    for (k, p) in fused.params.iter().enumerate() {
        let at = original.params.iter().position(|o| o.name == p.name)?;
        coeffs[at] = q.coeffs[k];
    }
    coeffs[np..].copy_from_slice(&q.coeffs[np..]);
    let mut constant = q.constant;
    for (k, s) in shift.iter().enumerate() {
        constant = constant.checked_add(q.coeffs.get(np + k)?.checked_mul(*s)?)?;
    }
    Some(AffExpr { coeffs, constant })
}
