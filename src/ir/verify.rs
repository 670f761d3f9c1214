//! Invariant checks of the IR, run after lowering in debug builds and by
//! the tests.
//!
//! It checks shapes (row widths, tuple sizes, ids in range, schedule
//! length and form) and spans (inside the source, nested properly). It does
//! not check semantics such as whether a domain is non-empty.

use super::scop::{AccessKind, ArrayId, SchedEntry, Scop, StmtId};
use crate::poly::{BasicSet, Set};

/// Checks the invariants of a SCoP against the source it came from.
pub fn verify(scop: &Scop, source: &str) -> Result<(), String> {
    let params = scop.param_names();
    let np = params.len();
    for (i, p) in params.iter().enumerate() {
        if params[..i].contains(p) {
            return Err(format!("parameter `{p}` appears twice"));
        }
    }
    let in_source = |r: &std::ops::Range<usize>, what: &str| -> Result<(), String> {
        if r.start > r.end || r.end > source.len() {
            return Err(format!("{what} span {r:?} is outside the source"));
        }
        Ok(())
    };
    in_source(&scop.span, "SCoP")?;
    if scop.context.space.params != params || !scop.context.space.domain.is_empty() {
        return Err("context space is not the parameter space".into());
    }
    check_rows(&scop.context, "context")?;
    for (k, a) in scop.arrays.iter().enumerate() {
        if a.id != ArrayId(k as u32) {
            return Err(format!("array `{}` has id {:?} at index {k}", a.name, a.id));
        }
        if a.facts.is_scalar != a.extents.is_empty() {
            return Err(format!(
                "array `{}`: is_scalar disagrees with its extents",
                a.name
            ));
        }
        for e in &a.extents {
            if let Some(aff) = &e.aff
                && aff.coeffs.len() != np
            {
                return Err(format!(
                    "array `{}`: extent width {}",
                    a.name,
                    aff.coeffs.len()
                ));
            }
        }
        if let Some(s) = &a.decl_span {
            in_source(s, "declaration")?;
        }
    }
    for (k, s) in scop.stmts.iter().enumerate() {
        if s.id != StmtId(k as u32) || s.name != format!("S{k}") {
            return Err(format!(
                "statement {k} is named {} with id {:?}",
                s.name, s.id
            ));
        }
        let d = s.iterators.len();
        let sp = &s.domain.space;
        if sp.params != params
            || sp.domain.name.as_deref() != Some(s.name.as_str())
            || sp.domain.dims != s.iterators
            || sp.range.is_some()
        {
            return Err(format!("{}: domain space {sp:?} does not match", s.name));
        }
        check_set(&s.domain, &s.name)?;
        if s.schedule.len() != 2 * d + 1 {
            return Err(format!(
                "{}: schedule has {} entries for depth {d}",
                s.name,
                s.schedule.len()
            ));
        }
        for (p, e) in s.schedule.iter().enumerate() {
            let ok = match e {
                SchedEntry::Const(_) => p % 2 == 0,
                SchedEntry::Iter { index, sign } => {
                    p % 2 == 1 && *index == p / 2 && sign.abs() == 1
                }
            };
            if !ok {
                return Err(format!("{}: schedule entry {p} is {e:?}", s.name));
            }
        }
        if s.parallel.len() != d {
            return Err(format!(
                "{}: {} parallel marks for depth {d}",
                s.name,
                s.parallel.len()
            ));
        }
        in_source(&s.span, &s.name)?;
        if source.get(s.span.clone()) != Some(s.body_text.as_str()) {
            return Err(format!("{}: body text differs from its span", s.name));
        }
        if s.span.start < scop.span.start || s.span.end > scop.span.end {
            return Err(format!("{}: span outside the SCoP", s.name));
        }
        if s.write.kind != AccessKind::Write || s.reads.iter().any(|r| r.kind != AccessKind::Read) {
            return Err(format!("{}: access kinds are wrong", s.name));
        }
        for a in s.accesses() {
            let Some(arr) = scop.arrays.get(a.array.0 as usize) else {
                return Err(format!("{}: array id {:?} out of range", s.name, a.array));
            };
            if a.subscripts.len() != arr.extents.len()
                || a.subscript_spans.len() != a.subscripts.len()
            {
                return Err(format!(
                    "{}: access to `{}` has {} subscripts",
                    s.name,
                    arr.name,
                    a.subscripts.len()
                ));
            }
            for sub in &a.subscripts {
                if sub.coeffs.len() != np + d {
                    return Err(format!("{}: subscript width {}", s.name, sub.coeffs.len()));
                }
            }
            let rs = &a.relation.space;
            if rs.params != params
                || rs.domain.dims != s.iterators
                || rs.range.as_ref().map(|r| r.dims.len()) != Some(arr.extents.len())
            {
                return Err(format!(
                    "{}: relation space of `{}` does not match",
                    s.name, arr.name
                ));
            }
            check_set(&a.relation, &s.name)?;
            in_source(&a.span, "access")?;
            // In the statement, or in a condition of data around it (the
            // reads of that condition: see `Stmt::data_conds`).
            let inside =
                |r: &std::ops::Range<usize>| r.start <= a.span.start && a.span.end <= r.end;
            if !inside(&s.span) && !s.data_conds.iter().any(inside) {
                return Err(format!("{}: access span outside the statement", s.name));
            }
            if a.name_span.start < a.span.start || a.name_span.end > a.span.end {
                return Err(format!("{}: name span outside the access", s.name));
            }
            for ss in &a.subscript_spans {
                if ss.start < a.span.start || ss.end > a.span.end {
                    return Err(format!("{}: subscript span outside the access", s.name));
                }
            }
        }
    }
    // Statements in one loop (same textual positions down to it) agree on
    // whether it is parallel.
    for a in &scop.stmts {
        for b in &scop.stmts {
            for k in 0..a.parallel.len().min(b.parallel.len()) {
                let same_loop = (0..=k).all(|j| a.schedule.get(2 * j) == b.schedule.get(2 * j));
                if !same_loop {
                    break;
                }
                if a.parallel[k] != b.parallel[k] {
                    return Err(format!(
                        "{} and {}: loop {k} is parallel for one only",
                        a.name, b.name
                    ));
                }
            }
        }
    }
    Ok(())
}

fn check_set(set: &Set, what: &str) -> Result<(), String> {
    for b in &set.pieces {
        if b.space != set.space {
            return Err(format!("{what}: a piece has another space"));
        }
        check_rows(b, what)?;
    }
    Ok(())
}

fn check_rows(b: &BasicSet, what: &str) -> Result<(), String> {
    let w = b.width();
    if b.eqs.iter().chain(b.ineqs.iter()).any(|r| r.len() != w) {
        return Err(format!("{what}: a row does not have width {w}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{Options, extract};
    use crate::ir::{ArrayId, SchedEntry};

    const SRC: &str = "#define N 8\nvoid f(double A[N][N], double s) {\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < i; j++)\n      A[i][j] = s * A[j][i];\n}\n";

    fn scop() -> Scop {
        let p = extract("t.c", SRC, &Options::default());
        p.scops.into_iter().next().expect("one SCoP")
    }

    #[test]
    fn accepts_what_the_front_end_builds() {
        assert_eq!(verify(&scop(), SRC), Ok(()));
    }

    #[test]
    fn rejects_broken_invariants() {
        let mut s = scop();
        s.stmts[0].schedule.pop();
        assert!(verify(&s, SRC).unwrap_err().contains("schedule"));

        let mut s = scop();
        s.stmts[0].schedule[1] = SchedEntry::Iter { index: 1, sign: 1 };
        assert!(verify(&s, SRC).unwrap_err().contains("schedule entry"));

        let mut s = scop();
        s.stmts[0].write.array = ArrayId(7);
        assert!(verify(&s, SRC).unwrap_err().contains("out of range"));

        let mut s = scop();
        s.stmts[0].reads[1].subscripts.pop();
        assert!(verify(&s, SRC).unwrap_err().contains("subscripts"));

        let mut s = scop();
        s.stmts[0].span = 0..SRC.len() + 1;
        assert!(verify(&s, SRC).is_err());

        let mut s = scop();
        s.stmts[0].domain.pieces[0].ineqs[0].push(0);
        assert!(verify(&s, SRC).unwrap_err().contains("width"));

        let mut s = scop();
        s.stmts[0].reads[0].span = 0..3;
        assert!(
            verify(&s, SRC)
                .unwrap_err()
                .contains("outside the statement")
        );

        let mut s = scop();
        s.arrays.swap(0, 1);
        assert!(verify(&s, SRC).unwrap_err().contains("has id"));

        let mut s = scop();
        s.params.push(s.params[0].clone());
        assert!(verify(&s, SRC).unwrap_err().contains("twice"));
    }
}
