//! One convex polyhedron (isl's "basic set" / "basic map"): a conjunction of
//! integer equalities and inequalities over a [`Space`], with optional
//! existentially quantified columns.

use super::error::PolyResult;
use super::space::Space;

/// A conjunction of affine constraints.
///
/// Each row has `space.n_var() + n_exist + 1` entries laid out as
/// `[params | domain | range | existentials | constant]`.
/// An equality row `a` means `a·x + c = 0`; an inequality row means
/// `a·x + c >= 0`. The integer points of the polyhedron are the values of the
/// variable columns for which *some* integer values of the existentials
/// satisfy every row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BasicSet {
    pub space: Space,
    pub n_exist: usize,
    pub eqs: Vec<Vec<i64>>,
    pub ineqs: Vec<Vec<i64>>,
}

impl BasicSet {
    /// The whole space (no constraint).
    pub fn universe(space: Space) -> BasicSet {
        BasicSet {
            space,
            n_exist: 0,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        }
    }

    /// A polyhedron with no integer point (`0 >= 1`... written `-1 >= 0`).
    pub fn empty(space: Space) -> BasicSet {
        let width = space.n_var() + 1;
        let mut row = vec![0; width];
        row[width - 1] = -1;
        BasicSet {
            space,
            n_exist: 0,
            eqs: Vec::new(),
            ineqs: vec![row],
        }
    }

    /// Number of columns of a row, constant included.
    pub fn width(&self) -> usize {
        self.space.n_var() + self.n_exist + 1
    }

    /// Column of existential `e`.
    pub(crate) fn exist_col(&self, e: usize) -> usize {
        self.space.n_var() + e
    }

    /// A zero row of the right width.
    pub fn zero_row(&self) -> Vec<i64> {
        vec![0; self.width()]
    }

    /// Adds `row >= 0`.
    pub fn add_ineq(&mut self, row: Vec<i64>) {
        debug_assert_eq!(row.len(), self.width());
        self.ineqs.push(row);
    }

    /// Adds `row = 0`.
    pub fn add_eq(&mut self, row: Vec<i64>) {
        debug_assert_eq!(row.len(), self.width());
        self.eqs.push(row);
    }

    /// Adds one existential column (with zero coefficients in every row) and
    /// returns its column index.
    pub(crate) fn add_exist(&mut self) -> usize {
        let col = self.width() - 1;
        for row in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            row.insert(col, 0);
        }
        self.n_exist += 1;
        col
    }

    /// Adds the constraints of `context`, a set over the same parameters and
    /// no set dimensions (its existentials become new existentials here).
    pub(crate) fn add_param_constraints(&mut self, context: &BasicSet) {
        let n_param = self.space.n_param();
        debug_assert_eq!(context.space.n_param(), n_param);
        let first_exist = self.width() - 1;
        for _ in 0..context.n_exist {
            self.add_exist();
        }
        let width = self.width();
        for (rows, is_eq) in [(&context.eqs, true), (&context.ineqs, false)] {
            for row in rows {
                let mut r = vec![0; width];
                r[..n_param].copy_from_slice(&row[..n_param]);
                for e in 0..context.n_exist {
                    r[first_exist + e] = row[context.space.n_var() + e];
                }
                r[width - 1] = row[row.len() - 1];
                if is_eq {
                    self.eqs.push(r);
                } else {
                    self.ineqs.push(r);
                }
            }
        }
    }

    /// Whether `point` (values of params, domain and range, in column order)
    /// satisfies every constraint, for a polyhedron without existentials.
    ///
    /// Returns `None` when there are existentials (then membership needs a
    /// search, see the solver) and an error on overflow.
    pub(crate) fn contains_point(&self, point: &[i64]) -> PolyResult<Option<bool>> {
        debug_assert_eq!(point.len(), self.space.n_var());
        if self.n_exist > 0 {
            return Ok(None);
        }
        for row in &self.eqs {
            if eval_row(row, point)? != 0 {
                return Ok(Some(false));
            }
        }
        for row in &self.ineqs {
            if eval_row(row, point)? < 0 {
                return Ok(Some(false));
            }
        }
        Ok(Some(true))
    }
}

/// Evaluates `row·point + constant` where `point` gives the leading columns
/// and the constant is the last entry of `row`; columns between are taken
/// as zero.
pub(crate) fn eval_row(row: &[i64], point: &[i64]) -> PolyResult<i64> {
    use super::error::{add, mul};
    let mut acc = *row.last().expect("a row has a constant column");
    for (a, x) in row.iter().zip(point) {
        if *a != 0 {
            acc = add(acc, mul(*a, *x)?)?;
        }
    }
    Ok(acc)
}
