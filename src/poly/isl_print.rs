//! Printing sets and relations in isl notation.
//!
//! The output is deterministic and parseable by isl, e.g.
//! `[N] -> { S1[k, i] : 1 <= k < N and 0 <= i < k }`; here constraints are
//! printed one by one (`k >= 1 and N - k >= 1 ...` rather than chained), in
//! the order in which they are stored.

use std::fmt::{self, Write};

use super::basic::BasicSet;
use super::set::Set;
use super::space::Space;

fn write_params(f: &mut impl Write, space: &Space) -> fmt::Result {
    if !space.params.is_empty() {
        write!(f, "[{}] -> ", space.params.join(", "))?;
    }
    Ok(())
}

fn write_tuples(f: &mut impl Write, space: &Space) -> fmt::Result {
    write!(f, "{}", space.domain)?;
    if let Some(r) = &space.range {
        write!(f, " -> {r}")?;
    }
    Ok(())
}

/// Formats `Σ coeff·name + constant` the way isl prints affine expressions.
pub(crate) fn format_affine(coeffs: &[i64], constant: i64, names: &[String]) -> String {
    let mut out = String::new();
    for (c, name) in coeffs.iter().zip(names) {
        if *c == 0 {
            continue;
        }
        let mag = c.unsigned_abs();
        if out.is_empty() {
            if *c < 0 {
                out.push('-');
            }
        } else {
            out.push_str(if *c < 0 { " - " } else { " + " });
        }
        if mag != 1 {
            let _ = write!(out, "{mag}");
        }
        out.push_str(name);
    }
    if out.is_empty() {
        let _ = write!(out, "{constant}");
    } else if constant != 0 {
        let _ = write!(
            out,
            "{} {}",
            if constant < 0 { " -" } else { " +" },
            constant.unsigned_abs()
        );
        // `write!` above adds a leading space; normalise "x  - 1" to "x - 1".
        out = out.replace("  ", " ");
    }
    out
}

/// Formats one constraint row as `lhs >= rhs` / `lhs = rhs`, moving negative
/// terms to the right-hand side so that it reads naturally.
fn format_constraint(row: &[i64], names: &[String], is_eq: bool) -> String {
    let n = names.len();
    let constant = row[n];
    let mut pos = vec![0i64; n];
    let mut negs = vec![0i64; n];
    for i in 0..n {
        if row[i] > 0 {
            pos[i] = row[i];
        } else if row[i] < 0 {
            negs[i] = row[i].checked_neg().unwrap_or(i64::MAX);
        }
    }
    let (lc, rc) = if constant >= 0 {
        (constant, 0)
    } else {
        (0, constant.checked_neg().unwrap_or(i64::MAX))
    };
    let op = if is_eq { "=" } else { ">=" };
    let lhs_has_vars = pos.iter().any(|c| *c != 0);
    let rhs_has_vars = negs.iter().any(|c| *c != 0);
    if !lhs_has_vars && rhs_has_vars {
        // Print `rhs <= lhs` so that variables come first.
        let op = if is_eq { "=" } else { "<=" };
        return format!(
            "{} {op} {}",
            format_affine(&negs, rc, names),
            format_affine(&pos, lc, names)
        );
    }
    format!(
        "{} {op} {}",
        format_affine(&pos, lc, names),
        format_affine(&negs, rc, names)
    )
}

impl BasicSet {
    /// The constraints of this polyhedron as isl text (without braces), or
    /// an empty string for the universe.
    pub(crate) fn constraints_to_isl(&self) -> String {
        let mut names = self.space.var_names();
        let exist_names: Vec<String> = (0..self.n_exist).map(|e| format!("e{e}")).collect();
        names.extend(exist_names.iter().cloned());
        let mut parts: Vec<String> = Vec::new();
        for row in &self.eqs {
            parts.push(format_constraint(row, &names, true));
        }
        for row in &self.ineqs {
            parts.push(format_constraint(row, &names, false));
        }
        let body = parts.join(" and ");
        if self.n_exist > 0 {
            format!(
                "exists ({} : {})",
                exist_names.join(", "),
                if body.is_empty() { "true".into() } else { body }
            )
        } else {
            body
        }
    }
}

impl fmt::Display for BasicSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_params(f, &self.space)?;
        write!(f, "{{ ")?;
        write_tuples(f, &self.space)?;
        let c = self.constraints_to_isl();
        if !c.is_empty() {
            write!(f, " : {c}")?;
        }
        write!(f, " }}")
    }
}

impl fmt::Display for Set {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_params(f, &self.space)?;
        if self.pieces.is_empty() {
            return write!(f, "{{  }}");
        }
        write!(f, "{{ ")?;
        for (i, piece) in self.pieces.iter().enumerate() {
            if i > 0 {
                write!(f, "; ")?;
            }
            write_tuples(f, &self.space)?;
            let c = piece.constraints_to_isl();
            if !c.is_empty() {
                write!(f, " : {c}")?;
            }
        }
        write!(f, " }}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::space::Tuple;
    use super::*;

    #[test]
    fn prints_parametric_triangle() {
        let space = Space::set(vec!["N".into()], Tuple::new(Some("S1"), &["k", "i"]));
        let mut b = BasicSet::universe(space.clone());
        // k >= 1, N - k - 1 >= 0, i >= 0, k - i - 1 >= 0
        b.add_ineq(vec![0, 1, 0, -1]);
        b.add_ineq(vec![1, -1, 0, -1]);
        b.add_ineq(vec![0, 0, 1, 0]);
        b.add_ineq(vec![0, 1, -1, -1]);
        assert_eq!(
            b.to_string(),
            "[N] -> { S1[k, i] : k >= 1 and N >= k + 1 and i >= 0 and k >= i + 1 }"
        );
        assert_eq!(Set::empty(space).to_string(), "[N] -> {  }");
    }

    #[test]
    fn prints_relation_with_equalities() {
        let space = Space::relation(
            vec![],
            Tuple::new(Some("S"), &["i"]),
            Tuple::new(Some("A"), &["a"]),
        );
        let mut b = BasicSet::universe(space);
        b.add_eq(vec![-1, 1, 1]); // a = i - 1  ->  -i + a + 1 = 0
        assert_eq!(b.to_string(), "{ S[i] -> A[a] : a + 1 = i }");
    }
}
