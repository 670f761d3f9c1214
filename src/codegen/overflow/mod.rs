//! No new undefined behaviour: proofs that the arithmetic polyfold prints
//! cannot overflow where the original program did not (issue 45).
//!
//! Signed overflow is undefined in C. The input program has none (that is
//! what it promises), so every value it computes is representable in the
//! type it is computed in: its parameters, its loop iterators and their
//! exit values, its bounds, its subscripts, the extents of its arrays. A
//! value polyfold prints is safe when some of those *known* values bound
//! it from below and from above at every point where it is evaluated:
//! a type's values form an interval, so whatever lies between two of them
//! is one too. This needs no number for the width of a type, only the
//! order of their ranges ([`IntType::within`]), and one exact integer
//! emptiness test per side:
//!
//! ```text
//!   { x in D : v(x) < a(x) for every known a }  is empty   (v >= some a)
//!   { x in D : v(x) > b(x) for every known b }  is empty   (v <= some b)
//! ```
//!
//! The constants `±(2^31 - 1)` (`±32767` for `short`, `±127` for `char`)
//! are known values of every type at least as wide as `int`: `int` is
//! assumed to have 32 bits, as on every target polyfold's users compile
//! for (CPUs, GPUs, HLS tools). `long` is not assumed wider than `int`.
//!
//! A printed sum `a + b - c` computes `a`, `a + b`, then `a + b - c`: each
//! partial result is a value to prove ([`Frame::sum_fits`]), in the type
//! its operands so far convert to. A value stored in a variable (a loop
//! iterator) must fit the variable's own type ([`Frame::stores`]).
//!
//! Where the values are evaluated is a [`Frame`]: a union of polyhedra
//! over the parameters and some variables, with the values known there.
//! A statement's frame ([`statement_frame`]) knows its iterators, their
//! exit values, its subscripts, and keeps its subscripts of arrays with
//! declared extents in bounds (an access out of bounds is undefined too).
//! Facts of the whole SCoP ([`scop_facts`]) hold wherever the SCoP runs:
//! the parameters, the extents of its local arrays, the bounds of its
//! top-level loops (their exit value only where the loop runs: a
//! conditional fact, used by splitting the frame when the plain facts do
//! not suffice).
//!
//! What this module does not do: it does not change a printed form. Each
//! printer tries its forms in order of preference and keeps the first whose
//! values this module proves; where none is proven, the transformation is
//! refused ([`OverflowRisk`] says which value could not be proven).

pub mod text;

use crate::ir::{AffExpr, ArrayId, Scop, Stmt, Storage};
use crate::poly::{BasicSet, Budget};

/// A signed integer type, as far as the range of its values goes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntType {
    /// `char`, `signed char`, `int8_t`: at least `-127..=127`.
    Char,
    /// `short`, `int16_t`: at least `-32767..=32767`.
    Short,
    /// `int`, `signed`, `int32_t`: assumed to have 32 bits.
    Int,
    /// `long`: at least as wide as `int` (not assumed wider).
    Long,
    /// `long long`: at least as wide as `long`.
    LongLong,
    /// Another integer type name (`int64_t`, `ptrdiff_t`, `intptr_t`):
    /// at least as wide as `int`, and no wider than itself.
    Named(String),
}

impl IntType {
    /// The type of a declaration's type text (`long int`, `const int`,
    /// `int64_t`); anything else than the types it knows is
    /// [`IntType::Named`] after its last word.
    pub(crate) fn of_text(text: &str) -> IntType {
        let words: Vec<&str> = text
            .split_whitespace()
            .filter(|w| !matches!(*w, "const" | "volatile" | "register" | "static" | "signed"))
            .collect();
        let longs = words.iter().filter(|w| **w == "long").count();
        match words.as_slice() {
            [] | ["int"] | ["int32_t"] => IntType::Int,
            ["char"] | ["int8_t"] => IntType::Char,
            ["short"] | ["short", "int"] | ["int16_t"] => IntType::Short,
            _ if longs == 1 && words.iter().all(|w| matches!(*w, "long" | "int")) => IntType::Long,
            _ if longs == 2 && words.iter().all(|w| matches!(*w, "long" | "int")) => {
                IntType::LongLong
            }
            _ => IntType::Named(words.last().copied().unwrap_or("int").to_string()),
        }
    }

    /// The type of an integer constant with value `v` (`int` when it fits
    /// 32 bits, else `long long`, which has 64).
    pub(crate) fn of_constant(v: i64) -> IntType {
        if i32::try_from(v).is_ok() {
            IntType::Int
        } else {
            IntType::LongLong
        }
    }

    /// The type arithmetic on a value of this type computes in (the
    /// integer promotions: `char` and `short` become `int`).
    pub(crate) fn promoted(&self) -> IntType {
        match self {
            IntType::Char | IntType::Short => IntType::Int,
            other => other.clone(),
        }
    }

    fn rank(&self) -> Option<u8> {
        match self {
            IntType::Char => Some(0),
            IntType::Short => Some(1),
            IntType::Int => Some(2),
            IntType::Long => Some(3),
            IntType::LongLong => Some(4),
            IntType::Named(_) => None,
        }
    }

    /// Whether every value of `self` is a value of `wider` on every
    /// target.
    pub fn within(&self, wider: &IntType) -> bool {
        match (self.rank(), wider.rank()) {
            _ if self == wider => true,
            (Some(a), Some(b)) => a <= b,
            (Some(a), None) => a <= 2,
            _ => false,
        }
    }

    /// The largest value every target's type holds (used as a known
    /// value: `±max` are values of the type).
    pub(crate) fn guaranteed_max(&self) -> i64 {
        match self {
            IntType::Char => 127,
            IntType::Short => 32_767,
            IntType::LongLong => i64::MAX,
            IntType::Named(n) if n == "int64_t" || n == "intmax_t" => i64::MAX,
            _ => i64::from(i32::MAX),
        }
    }

    /// The C spelling of the type, for messages.
    pub fn name(&self) -> String {
        match self {
            IntType::Char => "char".into(),
            IntType::Short => "short".into(),
            IntType::Int => "int".into(),
            IntType::Long => "long".into(),
            IntType::LongLong => "long long".into(),
            IntType::Named(n) => n.clone(),
        }
    }
}

/// A value that could not be proven representable: what the printer
/// wanted to print, as words for the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverflowRisk {
    /// What the value is (`the epilogue's last value of \`i\``).
    pub what: String,
    /// The type it must fit.
    pub ty: IntType,
}

impl OverflowRisk {
    pub fn describe(&self) -> String {
        format!(
            "{} is not proven within the range of `{}` (the original never computes it)",
            self.what,
            self.ty.name()
        )
    }
}

/// A value the program computes wherever a frame holds, so representable
/// in `ty`: a row over the frame's columns and the constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Known {
    pub row: Vec<i64>,
    pub ty: IntType,
}

/// Values known only where `condition >= 0` holds (a loop's exit value
/// where the loop runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Conditional {
    pub condition: Vec<i64>,
    pub known: Vec<Known>,
}

/// A union of polyhedra over `[params | variables]` where printed
/// arithmetic is evaluated, with the values known there and the type of
/// each column.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    /// The points (each piece over the same space, possibly with
    /// existentials of its own).
    pub pieces: Vec<BasicSet>,
    /// The type of each column (parameters, then variables).
    pub types: Vec<IntType>,
    pub known: Vec<Known>,
    pub conditional: Vec<Conditional>,
}

/// Largest amount of solver work one emptiness test of a proof may take.
const PROOF_BUDGET: u64 = 200_000;

impl Frame {
    /// Number of columns without the constant.
    pub(crate) fn n_cols(&self) -> usize {
        self.types.len()
    }

    /// A zero row (columns and constant).
    pub fn zero_row(&self) -> Vec<i64> {
        vec![0; self.n_cols() + 1]
    }

    /// Adds `row >= 0` to every piece.
    pub fn restrict(&mut self, row: &[i64]) {
        for p in &mut self.pieces {
            let r = widened(row, p);
            p.add_ineq(r);
        }
    }

    /// Knows the first `depth` iterators of `stmt` (columns after `np`
    /// parameters, `n` iterators in all) and the value after each step
    /// (its loop's exit value): the original computed both, in the types
    /// `types`.
    pub(crate) fn know_iterators(
        &mut self,
        stmt: &crate::ir::Stmt,
        (np, n, depth): (usize, usize, usize),
        types: &[IntType],
    ) {
        for (k, ty) in types.iter().enumerate().take(depth) {
            let mut row = vec![0i64; np + n + 1];
            row[np + k] = 1;
            self.know(row.clone(), ty.clone());
            let step = match stmt.schedule.get(2 * k + 1) {
                Some(crate::ir::SchedEntry::Iter { sign, .. }) => *sign,
                _ => 1,
            };
            row[np + n] = step;
            self.know(row, ty.clone());
        }
    }

    /// Adds the known value `row` of type `ty`.
    pub(crate) fn know(&mut self, row: Vec<i64>, ty: IntType) {
        let k = Known { row, ty };
        if !self.known.contains(&k) {
            self.known.push(k);
        }
    }

    /// The type of a column.
    fn col_type(&self, col: usize) -> IntType {
        self.types.get(col).cloned().unwrap_or(IntType::Int)
    }

    /// The types `row`'s evaluation converts to: the promoted types of
    /// its columns (`int` for a constant).
    pub(crate) fn types_of(&self, row: &[i64]) -> Vec<IntType> {
        let mut out: Vec<IntType> = Vec::new();
        for (c, v) in row[..row.len() - 1].iter().enumerate() {
            if *v != 0 {
                let t = self.col_type(c).promoted();
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        let constant = row[row.len() - 1];
        if out.is_empty() || IntType::of_constant(constant) != IntType::Int {
            let t = IntType::of_constant(constant);
            if !out.contains(&t) {
                out.push(t);
            }
        }
        out
    }

    /// Whether `row` (over the columns and the constant) is within the
    /// range of the type that arithmetic on operands of types `operands`
    /// converts to, at every point of the frame.
    pub fn fits(&self, row: &[i64], operands: &[IntType]) -> bool {
        self.fits_scaled(row, 1, operands)
    }

    /// [`Frame::fits`] for the value `row / den` (`den >= 1`).
    pub(crate) fn fits_scaled(&self, row: &[i64], den: i64, operands: &[IntType]) -> bool {
        let usable = |t: &IntType| {
            let t = t.promoted();
            t.within(&IntType::Int) || operands.iter().any(|o| t.within(&o.promoted()))
        };
        let bound = operands
            .iter()
            .map(|t| t.promoted().guaranteed_max())
            .max()
            .unwrap_or(i64::from(i32::MAX));
        // In a type of 64 bits, a sum of values of `int` columns with
        // small coefficients fits by its magnitude alone.
        if bound == i64::MAX && den >= 1 {
            let mut magnitude: i128 = i128::from(row[row.len() - 1]).abs();
            let mut all_int = true;
            for (c, v) in row[..row.len() - 1].iter().enumerate() {
                if *v == 0 {
                    continue;
                }
                if !self.col_type(c).promoted().within(&IntType::Int) {
                    all_int = false;
                    break;
                }
                magnitude += i128::from(*v).abs() * (1i128 << 31);
            }
            if all_int && magnitude <= i128::from(i64::MAX) * i128::from(den) {
                return true;
            }
        }
        self.between(row, den, &usable, bound)
    }

    /// Whether `row` fits the type `ty` of a variable it is stored in.
    pub(crate) fn stores(&self, row: &[i64], ty: &IntType) -> bool {
        self.between(row, 1, &|t: &IntType| t.within(ty), ty.guaranteed_max())
    }

    /// Whether some usable known value bounds `row` from below, and some
    /// from above, at every point (splitting on the conditional facts
    /// where the plain ones do not suffice).
    fn between(
        &self,
        row: &[i64],
        den: i64,
        usable: &dyn Fn(&IntType) -> bool,
        bound: i64,
    ) -> bool {
        if row.len() != self.n_cols() + 1 || den < 1 {
            return false;
        }
        // A number is its own proof.
        if row[..row.len() - 1].iter().all(|c| *c == 0) {
            return row[row.len() - 1].abs() <= bound.saturating_mul(den);
        }
        let scaled = |k: &Known| -> Option<Known> {
            Some(Known {
                row: k
                    .row
                    .iter()
                    .map(|v| v.checked_mul(den))
                    .collect::<Option<_>>()?,
                ty: k.ty.clone(),
            })
        };
        let known: Option<Vec<Known>> = self.known.iter().map(scaled).collect();
        let conditional: Option<Vec<Conditional>> = self
            .conditional
            .iter()
            .map(|c| {
                Some(Conditional {
                    condition: c.condition.clone(),
                    known: c.known.iter().map(scaled).collect::<Option<_>>()?,
                })
            })
            .collect();
        // The poly core works in 64 bits: constant facts no larger than
        // those of `int` (a smaller range known is weaker, hence sound).
        let bound = bound.min(i64::from(i32::MAX));
        let (Some(known), Some(conditional), Some(bound)) =
            (known, conditional, bound.checked_mul(den))
        else {
            return false;
        };
        self.pieces.iter().all(|piece| {
            side_proven(piece, row, &known, &conditional, usable, bound, true)
                && side_proven(piece, row, &known, &conditional, usable, bound, false)
        })
    }

    /// Whether every partial result of the printed sum `terms` (in print
    /// order: coefficient and column) then `constant` fits (see the
    /// module doc): each product `|c| * x`, the first term's value
    /// (`-x` for a leading minus), and each partial sum.
    pub(crate) fn sum_fits(&self, terms: &[(i64, usize)], constant: i64) -> bool {
        self.first_unproven_partial(terms, constant).is_none()
    }

    /// The first partial result of the printed sum that is not proven
    /// (as a row), if any.
    pub(crate) fn first_unproven_partial(
        &self,
        terms: &[(i64, usize)],
        constant: i64,
    ) -> Option<Vec<i64>> {
        let n = self.n_cols();
        let mut acc = self.zero_row();
        let mut types: Vec<IntType> = Vec::new();
        let mut first = true;
        for &(c, col) in terms {
            if c == 0 {
                continue;
            }
            if col >= n {
                return Some(acc);
            }
            let t = self.col_type(col).promoted();
            if !types.contains(&t) {
                types.push(t.clone());
            }
            // The product (or the negation of a leading term).
            if c.unsigned_abs() != 1 || (first && c < 0) {
                let mut product = self.zero_row();
                product[col] = if first { c } else { c.abs() };
                if !self.fits(&product, std::slice::from_ref(&t)) {
                    return Some(product);
                }
            }
            acc[col] = match acc[col].checked_add(c) {
                Some(v) => v,
                None => return Some(acc),
            };
            if !first && !self.fits(&acc, &types) {
                return Some(acc);
            }
            first = false;
        }
        if constant != 0 && !first {
            acc[n] = constant;
            let ct = IntType::of_constant(constant);
            if !types.contains(&ct) {
                types.push(ct);
            }
            if !self.fits(&acc, &types) {
                return Some(acc);
            }
        }
        None
    }

    /// The frame over new variables `y` where the old variables are
    /// affine functions of them: `map[k]` is old variable `k` over
    /// `[params | y]` (with `n_params` parameters); `new_types` are the
    /// types of the `y`. Known values and constraints are composed.
    pub(crate) fn pulled_back(
        &self,
        n_params: usize,
        map: &[AffExpr],
        new_types: &[IntType],
    ) -> Frame {
        let n_new = new_types.len();
        let old_n = self.n_cols();
        let compose = |row: &[i64], extra: usize| -> Option<Vec<i64>> {
            // row over [params | old vars | extra | const].
            let mut out = vec![0i64; n_params + n_new + extra + 1];
            out[..n_params].copy_from_slice(&row[..n_params]);
            for (k, m) in map.iter().enumerate() {
                let c = row[n_params + k];
                if c == 0 {
                    continue;
                }
                for (j, v) in m.coeffs.iter().enumerate() {
                    out[j] = out[j].checked_add(c.checked_mul(*v)?)?;
                }
                let last = out.len() - 1;
                out[last] = out[last].checked_add(c.checked_mul(m.constant)?)?;
            }
            out[n_params + n_new..n_params + n_new + extra]
                .copy_from_slice(&row[old_n..old_n + extra]);
            let last = out.len() - 1;
            out[last] = out[last].checked_add(row[row.len() - 1])?;
            Some(out)
        };
        let valid =
            map.len() == old_n - n_params && map.iter().all(|m| m.coeffs.len() == n_params + n_new);
        let mut types: Vec<IntType> = self.types[..n_params.min(self.types.len())].to_vec();
        types.extend(new_types.iter().cloned());
        let space = |p: &BasicSet| {
            let mut space = p.space.clone();
            space.domain =
                crate::poly::Tuple::anonymous((0..n_new).map(|k| format!("y{k}")).collect());
            space.range = None;
            space
        };
        let mut pieces = Vec::new();
        for p in &self.pieces {
            let mut q = BasicSet::universe(space(p));
            q.n_exist = p.n_exist;
            let mut ok = valid;
            for (rows, is_eq) in [(&p.eqs, true), (&p.ineqs, false)] {
                for r in rows {
                    match compose(r, p.n_exist).filter(|_| ok) {
                        Some(c) if is_eq => q.eqs.push(c),
                        Some(c) => q.ineqs.push(c),
                        None => ok = false,
                    }
                }
            }
            if !ok {
                // Nothing is known: a frame that proves nothing.
                q = BasicSet::universe(space(p));
            }
            pieces.push(q);
        }
        let known_of = |ks: &[Known]| -> Vec<Known> {
            ks.iter()
                .filter(|_| valid)
                .filter_map(|k| {
                    Some(Known {
                        row: compose(&k.row, 0)?,
                        ty: k.ty.clone(),
                    })
                })
                .collect()
        };
        let conditional = self
            .conditional
            .iter()
            .filter(|_| valid)
            .filter_map(|c| {
                Some(Conditional {
                    condition: compose(&c.condition, 0)?,
                    known: known_of(&c.known),
                })
            })
            .collect();
        Frame {
            pieces,
            types,
            known: known_of(&self.known),
            conditional,
        }
    }
}

/// `row` (over the columns and the constant) with zero columns for the
/// existentials of `piece`.
pub(crate) fn widened(row: &[i64], piece: &BasicSet) -> Vec<i64> {
    let mut r = row[..row.len() - 1].to_vec();
    r.extend(std::iter::repeat_n(0, piece.n_exist));
    r.push(row[row.len() - 1]);
    r
}

/// Whether `piece` has no integer point (within a budget; undecided is
/// "not proven empty").
pub(crate) fn proven_empty(piece: &BasicSet) -> bool {
    if piece.is_obviously_empty() {
        return true;
    }
    let mut budget = Budget::new(PROOF_BUDGET, None);
    if crate::poly::simplex::rational_is_empty_with_budget(piece, &mut budget).unwrap_or(false) {
        return true;
    }
    let mut budget = Budget::new(PROOF_BUDGET, None);
    crate::poly::simplex::is_integer_empty_with_budget(piece, &mut budget).unwrap_or(false)
}

/// One side of [`Frame::between`] on one piece: no point where `row` is
/// below every usable known value (`lower`), or above every one.
fn side_proven(
    piece: &BasicSet,
    row: &[i64],
    known: &[Known],
    conditional: &[Conditional],
    usable: &dyn Fn(&IntType) -> bool,
    bound: i64,
    lower: bool,
) -> bool {
    let mut test = piece.clone();
    let w = row.len();
    // The constant known values `±bound`.
    let mut outside = |k: &[i64]| -> Option<()> {
        // lower: k - row - 1 >= 0; upper: row - k - 1 >= 0.
        let mut r = vec![0i64; w];
        for c in 0..w {
            r[c] = if lower {
                k[c].checked_sub(row[c])?
            } else {
                row[c].checked_sub(k[c])?
            };
        }
        r[w - 1] = r[w - 1].checked_sub(1)?;
        test.add_ineq(widened(&r, &test));
        Some(())
    };
    let mut constant = vec![0i64; w];
    constant[w - 1] = if lower { -bound } else { bound };
    if outside(&constant).is_none() {
        return false;
    }
    for k in known.iter().filter(|k| usable(&k.ty)) {
        if k.row.len() != w || outside(&k.row).is_none() {
            return false;
        }
    }
    // A known value of `int` lies in its range (32 bits assumed), the
    // range scaled as `row` is (see `Frame::between`).
    let scale = bound / i64::from(i32::MAX);
    for k in known.iter().filter(|k| k.ty.promoted() == IntType::Int) {
        if k.row.len() != w || scale < 1 {
            continue;
        }
        let (Some(hi), Some(lo)) = (
            i64::from(i32::MAX).checked_mul(scale),
            i64::from(i32::MIN).checked_mul(scale),
        ) else {
            continue;
        };
        let mut below = k.row.iter().map(|v| -v).collect::<Vec<i64>>();
        below[w - 1] = below[w - 1].saturating_add(hi);
        let mut above = k.row.clone();
        above[w - 1] = above[w - 1].saturating_sub(lo);
        test.add_ineq(widened(&below, &test));
        test.add_ineq(widened(&above, &test));
    }
    if proven_empty(&test) {
        return true;
    }
    // Split on the first conditional fact: where it holds, its values are
    // known too; where it does not, they are not.
    let Some((first, rest)) = conditional.split_first() else {
        return false;
    };
    if first.condition.len() != w {
        return false;
    }
    let mut holds = piece.clone();
    holds.add_ineq(widened(&first.condition, piece));
    let mut fails = piece.clone();
    let negated: Option<Vec<i64>> = {
        let mut r: Option<Vec<i64>> = first.condition.iter().map(|c| c.checked_neg()).collect();
        if let Some(r) = r.as_mut() {
            let last = r.len() - 1;
            r[last] = r[last].saturating_sub(1);
        }
        r
    };
    let Some(negated) = negated else {
        return false;
    };
    fails.add_ineq(widened(&negated, piece));
    let mut with: Vec<Known> = known.to_vec();
    with.extend(first.known.iter().cloned());
    (proven_empty(&holds) || side_proven(&holds, row, &with, rest, usable, bound, lower))
        && (proven_empty(&fails) || side_proven(&fails, row, known, rest, usable, bound, lower))
}

/// The type of each column of `scop`'s parameters.
pub(crate) fn param_types(scop: &Scop) -> Vec<IntType> {
    scop.params
        .iter()
        .map(|p| match (&p.type_text, p.value) {
            (Some(t), _) => IntType::of_text(t),
            (None, Some(v)) => IntType::of_constant(v),
            (None, None) => IntType::Int,
        })
        .collect()
}

/// The type of each iterator of `stmt` (quotient dimensions are `int`:
/// the quotient of an iterator is no wider than it, and its column is
/// never printed as a variable).
pub(crate) fn iterator_types(stmt: &Stmt) -> Vec<IntType> {
    (0..stmt.iterators.len())
        .map(|k| {
            stmt.iterator_types
                .get(k)
                .map_or(IntType::Int, |t| IntType::of_text(t))
        })
        .collect()
}

/// The facts of `scop` that hold wherever it runs, as rows over its
/// parameters and the constant: what [`scop_frame`] and
/// [`statement_frame`] start from.
#[derive(Clone, Debug)]
pub(crate) struct ScopFacts {
    /// `p = value` for every parameter with a known value.
    pub values: Vec<Vec<i64>>,
    /// Rows over `[params | const]`, each `>= 0`, that the sizes of the
    /// local arrays imply (see [`object_size_bounds`]).
    pub bounds: Vec<Vec<i64>>,
    pub known: Vec<Known>,
    pub conditional: Vec<Conditional>,
}

/// The facts of `scop` (see [`ScopFacts`]): each parameter is a value of
/// its type; an extent of a local array is computed by its declaration;
/// a top-level loop computes its first value and the bound its condition
/// compares with (see [`written_bound`]), and, where it runs, its last
/// value and the value after it.
pub(crate) fn scop_facts(source: &str, scop: &Scop) -> ScopFacts {
    let np = scop.params.len();
    let types = param_types(scop);
    let mut values = Vec::new();
    let mut known = Vec::new();
    for (k, p) in scop.params.iter().enumerate() {
        let mut row = vec![0i64; np + 1];
        row[k] = 1;
        known.push(Known {
            row: row.clone(),
            ty: types[k].clone(),
        });
        if let Some(v) = p.value {
            row[np] = -v;
            values.push(row);
        }
    }
    for a in &scop.arrays {
        if !local_array(scop, a.id) {
            continue;
        }
        for e in &a.extents {
            let Some(aff) = &e.aff else { continue };
            if aff.coeffs.len() != np || a.value_used {
                continue;
            }
            let mut row = aff.coeffs.clone();
            row.push(aff.constant);
            let ty = widest(&types, &row);
            known.push(Known { row, ty });
        }
    }
    let mut conditional: Vec<Conditional> = Vec::new();
    // The loops that are items of the SCoP: their headers run whenever
    // the SCoP does (a loop under an `if` does not count).
    let top_loops: Vec<(std::ops::Range<usize>, Option<i64>)> = scop
        .items
        .iter()
        .filter_map(|i| match i.node.unlabelled() {
            crate::ir::SyntaxNode::For { span, header, .. } => Some((
                span.clone(),
                header.as_ref().and_then(|h| written_bound(source, h)),
            )),
            _ => None,
        })
        .collect();
    for stmt in &scop.stmts {
        let Some((_, written)) = top_loops
            .iter()
            .find(|(r, _)| r.start <= stmt.span.start && stmt.span.end <= r.end)
        else {
            continue;
        };
        let Some(outer) = stmt.loop_domains.first() else {
            continue;
        };
        let Some((lower, upper)) = single_bounds(outer, np, 0) else {
            continue;
        };
        let ty = iterator_types(stmt)
            .first()
            .cloned()
            .unwrap_or(IntType::Int);
        let step = match stmt.schedule.get(1) {
            Some(crate::ir::SchedEntry::Iter { sign, .. }) => *sign,
            _ => 1,
        };
        // The initial value; where the loop runs, the last value and the
        // value after it.
        let (first, last) = if step > 0 {
            (lower.clone(), upper.clone())
        } else {
            (upper.clone(), lower.clone())
        };
        let k = Known {
            row: first.clone(),
            ty: ty.clone(),
        };
        if !known.contains(&k) {
            known.push(k);
        }
        let mut exit = last.clone();
        exit[np] = exit[np].saturating_add(step);
        // The bound the header's condition computes, always.
        if let Some(offset) = written {
            let mut w = last.clone();
            w[np] = w[np].saturating_add(*offset);
            let k = Known {
                row: w,
                ty: ty.clone(),
            };
            if !known.contains(&k) {
                known.push(k);
            }
        }
        // Runs: upper - lower >= 0.
        let condition: Option<Vec<i64>> = upper
            .iter()
            .zip(&lower)
            .map(|(u, l)| u.checked_sub(*l))
            .collect();
        let Some(condition) = condition else { continue };
        let c = Conditional {
            condition,
            known: vec![
                Known {
                    row: last,
                    ty: ty.clone(),
                },
                Known { row: exit, ty },
            ],
        };
        if !conditional.contains(&c) {
            conditional.push(c);
        }
    }
    ScopFacts {
        values,
        bounds: object_size_bounds(scop),
        known,
        conditional,
    }
}

/// The largest size in bytes of an object on any target: the address
/// space of the largest 64-bit targets (57 bits: x86-64 with five-level
/// paging; AArch64 has at most 52, 32-bit targets 32). An assumption, the
/// one polyfold makes about machines: C itself bounds an object by
/// `SIZE_MAX` only.
const MAX_OBJECT_BYTES: u128 = 1u128 << 57;

/// The least size in bytes of an element of type `elem` on any target
/// polyfold's users compile for (1 for a type it does not know).
fn element_bytes(elem: &str) -> u128 {
    let words: Vec<&str> = elem
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "static" | "register" | "signed" | "unsigned"
            )
        })
        .collect();
    match words.as_slice() {
        ["double"] | ["long", "double"] | ["int64_t"] | ["uint64_t"] | ["long", "long"] => 8,
        ["float"] | ["int"] | ["int32_t"] | ["uint32_t"] | ["long"] => 4,
        ["short"] | ["int16_t"] | ["uint16_t"] => 2,
        _ => 1,
    }
}

/// Facts from the sizes of the SCoP's local arrays: an array exists, so
/// its size in bytes is at most [`MAX_OBJECT_BYTES`]. Where the symbolic
/// extents of an array differ by constants only (`double y[n][n]`, `t[n +
/// 1][n]`), the least of them, `E`, satisfies `c * E^k <= MAX / size`
/// (`k` the number of symbolic extents, `c` the product of the number
/// extents): `E <= floor((MAX / (size * c))^(1/k))`, a row `bound - E >= 0`.
pub(crate) fn object_size_bounds(scop: &Scop) -> Vec<Vec<i64>> {
    let np = scop.params.len();
    let mut out: Vec<Vec<i64>> = Vec::new();
    for a in &scop.arrays {
        if !local_array(scop, a.id) || a.value_used {
            continue;
        }
        let mut constant: u128 = 1;
        let mut symbolic: Vec<&AffExpr> = Vec::new();
        let mut ok = true;
        for e in &a.extents {
            match &e.aff {
                Some(aff) if aff.coeffs.len() == np && aff.coeffs.iter().all(|c| *c == 0) => {
                    match u128::try_from(aff.constant) {
                        Ok(v) if v >= 1 => constant = constant.saturating_mul(v),
                        _ => ok = false,
                    }
                }
                Some(aff) if aff.coeffs.len() == np => symbolic.push(aff),
                _ => ok = false,
            }
        }
        let Some(least) = symbolic.iter().min_by_key(|e| e.constant) else {
            continue;
        };
        if !ok || symbolic.iter().any(|e| e.coeffs != least.coeffs) {
            continue;
        }
        let k = symbolic.len() as u32;
        let most = MAX_OBJECT_BYTES / (element_bytes(&a.elem_type) * constant);
        // The greatest r with r^k <= most.
        let (mut lo, mut hi) = (0u128, 1u128 << 63);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            match mid.checked_pow(k) {
                Some(p) if p <= most => lo = mid,
                _ => hi = mid,
            }
        }
        let Ok(root) = i64::try_from(lo) else {
            continue;
        };
        // root - E >= 0, with E's extent at least 1 (it is an extent).
        let mut row: Vec<i64> = least.coeffs.iter().map(|c| -c).collect();
        row.push(root.saturating_sub(least.constant));
        if !out.contains(&row) {
            out.push(row);
        }
    }
    out
}

/// Adds the facts on the parameters alone (known values, object sizes)
/// to `piece`, whose first columns are the parameters.
pub(crate) fn add_param_facts(piece: &mut BasicSet, facts: &ScopFacts, np: usize) {
    let w = piece.width();
    let lift = |row: &[i64]| -> Vec<i64> {
        let mut r = vec![0i64; w];
        r[..np].copy_from_slice(&row[..np]);
        r[w - 1] = row[np];
        r
    };
    for v in &facts.values {
        let r = lift(v);
        piece.add_eq(r);
    }
    for b in &facts.bounds {
        let r = lift(b);
        piece.add_ineq(r);
    }
}

/// The widest of the types of the columns `row` uses (`int` without any).
fn widest(types: &[IntType], row: &[i64]) -> IntType {
    let mut out = IntType::Int;
    for (t, c) in types.iter().zip(row) {
        if *c != 0 && !t.promoted().within(&out) {
            out = t.promoted();
        }
    }
    out
}

/// Whether `array` is an object of its function with its declared
/// extents (an access beyond one is undefined): not a parameter, whose
/// first extent the caller's object decides.
fn local_array(scop: &Scop, array: ArrayId) -> bool {
    let a = scop.array(array);
    a.facts.storage != Storage::FunctionParam && a.decl_span.is_some()
}

/// The one lower and one upper bound of iterator `level` in `piece`'s
/// union (over the parameters only: rows over `[params | const]`), when
/// the domain has one piece with one of each, coefficient one, using no
/// other iterator.
fn single_bounds(
    domain: &crate::poly::Set,
    np: usize,
    level: usize,
) -> Option<(Vec<i64>, Vec<i64>)> {
    let [piece] = domain.pieces.as_slice() else {
        return None;
    };
    if piece.n_exist > 0 {
        return None;
    }
    let w = piece.width();
    let col = np + level;
    let mut lower: Option<Vec<i64>> = None;
    let mut upper: Option<Vec<i64>> = None;
    for row in &piece.ineqs {
        let c = row[col];
        if c == 0 {
            continue;
        }
        if c.abs() != 1
            || row[np..w - 1]
                .iter()
                .enumerate()
                .any(|(k, v)| k != level && *v != 0)
        {
            return None;
        }
        // c * x + rest >= 0: x >= -rest (c = 1) or x <= rest (c = -1).
        let mut bound: Vec<i64> = row[..np].to_vec();
        bound.push(row[w - 1]);
        if c == 1 {
            let b = bound
                .iter()
                .map(|v| v.checked_neg())
                .collect::<Option<Vec<_>>>()?;
            if lower.replace(b).is_some() {
                return None;
            }
        } else if upper.replace(bound).is_some() {
            return None;
        }
    }
    for row in &piece.eqs {
        if row[col] != 0 {
            return None;
        }
    }
    Some((lower?, upper?))
}

/// The frame of the points of `scop` where the parameters satisfy the
/// context, over `[params | vars]` with the given variable types and no
/// constraint on the variables, with the SCoP's facts.
pub(crate) fn scop_frame(scop: &Scop, facts: &ScopFacts, var_types: &[IntType]) -> Frame {
    let np = scop.params.len();
    let space = crate::poly::Space::set(
        scop.param_names(),
        crate::poly::Tuple::anonymous((0..var_types.len()).map(|k| format!("v{k}")).collect()),
    );
    let mut piece = BasicSet::universe(space);
    piece.add_param_constraints(&scop.context);
    let lift = |row: &[i64]| -> Vec<i64> {
        let mut r = vec![0i64; np + var_types.len() + 1];
        r[..np].copy_from_slice(&row[..np]);
        r[np + var_types.len()] = row[np];
        r
    };
    add_param_facts(&mut piece, facts, np);
    let mut types = param_types(scop);
    types.extend(var_types.iter().cloned());
    Frame {
        pieces: vec![piece],
        types,
        known: facts
            .known
            .iter()
            .map(|k| Known {
                row: lift(&k.row),
                ty: k.ty.clone(),
            })
            .collect(),
        conditional: facts
            .conditional
            .iter()
            .map(|c| Conditional {
                condition: lift(&c.condition),
                known: c
                    .known
                    .iter()
                    .map(|k| Known {
                        row: lift(&k.row),
                        ty: k.ty.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// The frame of statement `si` of `scop`: its domain (over `[params |
/// iterators]`) with the context, the known parameter values and its
/// subscripts of local arrays in bounds; it knows the SCoP's facts, its
/// iterators and their exit values, and its subscripts (the write's only
/// when a read may not be evaluated: under `?:`, `&&`, `||`, `sizeof`).
pub(crate) fn statement_frame(scop: &Scop, facts: &ScopFacts, si: usize) -> Frame {
    let stmt = &scop.stmts[si];
    let np = scop.params.len();
    let n = stmt.iterators.len();
    let types = iterator_types(stmt);
    let base = scop_frame(scop, facts, &types);
    let mut frame = Frame {
        pieces: Vec::new(),
        ..base.clone()
    };
    for p in &stmt.domain.pieces {
        let mut q = p.clone();
        q.add_param_constraints(&scop.context);
        add_param_facts(&mut q, facts, np);
        frame.pieces.push(q);
    }
    frame.know_iterators(stmt, (np, n, stmt.loop_depth()), &types);
    let all_types = frame.types.clone();
    // A read under `?:`, `&&`, `||` or `sizeof` may not be evaluated (the
    // model keeps it for every instance): then only the write, which
    // always is, gives facts.
    let conditional = crate::util::c_text::tokens(&stmt.body_text)
        .iter()
        .any(|(r, _)| matches!(&stmt.body_text[r.clone()], "?" | "&&" | "||" | "sizeof"));
    let evaluated: Vec<&crate::ir::Access> = if conditional {
        vec![&stmt.write]
    } else {
        stmt.accesses().collect()
    };
    for access in evaluated {
        let local = local_array(scop, access.array);
        let array = scop.array(access.array);
        for (d, sub) in access.subscripts.iter().enumerate() {
            if sub.coeffs.len() != np + n {
                continue;
            }
            let mut row = sub.coeffs.clone();
            row.push(sub.constant);
            let ty = widest(&all_types, &row);
            frame.know(row.clone(), ty);
            // In bounds: 0 <= sub <= extent - 1.
            let extent = array.extents.get(d).and_then(|e| e.aff.as_ref());
            if let (true, Some(e), false) = (local, extent, array.value_used) {
                frame.restrict(&row);
                let mut upper: Vec<i64> = row.iter().map(|v| -v).collect();
                for (c, v) in e.coeffs.iter().enumerate().take(np) {
                    upper[c] += v;
                }
                upper[np + n] += e.constant - 1;
                frame.restrict(&upper);
            }
        }
    }
    frame
}

/// The frame where the header of the loop at `depth` around statement
/// The points of the `depth` loops around statement `stmt`'s loop at that
/// depth (over the statement's columns), with the SCoP's facts and those
/// loops' iterators known (and their values after a step).
pub(crate) fn loops_frame(
    scop: &Scop,
    facts: &ScopFacts,
    stmt: &Stmt,
    depth: usize,
) -> Option<Frame> {
    let np = scop.params.len();
    let n = stmt.iterators.len();
    let types = iterator_types(stmt);
    let mut frame = scop_frame(scop, facts, &types);
    if depth > 0 {
        let outer = stmt.loop_domains.get(depth - 1)?;
        frame.pieces = outer
            .pieces
            .iter()
            .map(|p| {
                let mut q = p.clone();
                q.add_param_constraints(&scop.context);
                add_param_facts(&mut q, facts, np);
                q
            })
            .collect();
    }
    frame.know_iterators(stmt, (np, n, depth), &types);
    Some(frame)
}

/// `si` starts the loop: the points of the loops around it (over the
/// statement's columns), its iterator at its first value (the loop may
/// run no iteration), with the SCoP's facts and the enclosing iterators
/// known. `None` when the loop's first value is not one affine bound.
pub(crate) fn header_frame(
    scop: &Scop,
    facts: &ScopFacts,
    si: usize,
    depth: usize,
) -> Option<Frame> {
    let stmt = &scop.stmts[si];
    let np = scop.params.len();
    let n = stmt.iterators.len();
    let mut frame = loops_frame(scop, facts, stmt, depth)?;
    // The first value: the lower bound of an increasing loop, the upper
    // of a decreasing one (one row with coefficient one).
    let own = stmt.loop_domains.get(depth)?;
    let [piece] = own.pieces.as_slice() else {
        return None;
    };
    if piece.n_exist > 0 {
        return None;
    }
    let step = match stmt.schedule.get(2 * depth + 1) {
        Some(crate::ir::SchedEntry::Iter { sign, .. }) => *sign,
        _ => 1,
    };
    let col = np + depth;
    let w = piece.width();
    let mut first: Option<Vec<i64>> = None;
    for row in &piece.ineqs {
        // step * x + rest >= 0 bounds the first value.
        if row[col] != step || row[col + 1..w - 1].iter().any(|c| *c != 0) {
            continue;
        }
        if first.replace(row.clone()).is_some() {
            return None;
        }
    }
    let first = first?;
    // x = -step * rest: the row itself as an equality.
    let mut eq = vec![0i64; np + n + 1];
    eq[..col + 1].copy_from_slice(&first[..col + 1]);
    eq[np + n] = first[w - 1];
    frame.restrict(&eq);
    let minus: Vec<i64> = eq.iter().map(|v| v.saturating_neg()).collect();
    frame.restrict(&minus);
    Some(frame)
}

/// The value a loop's header compares its iterator with, relative to the
/// loop's last value (`u` for an increasing loop, `l` for a decreasing
/// one): `1` for `i < E` (`E = u + 1`), `0` for `i <= E`, `-1` for a
/// decreasing `i > E`; `None` when the condition is not one comparison of
/// the iterator alone on one side (`i < n && i < m`). The header
/// evaluates that value whenever it starts the loop, whether the loop
/// runs or not.
pub(crate) fn written_bound(source: &str, header: &crate::ir::ForHeader) -> Option<i64> {
    use crate::util::c_text::{TokenKind, tokens};
    let text = source.get(header.init_end..header.update_end)?;
    let toks = tokens(text);
    let word = |k: usize| -> &str { &text[toks[k].0.clone()] };
    let semis: Vec<usize> = (0..toks.len())
        .filter(|&k| toks[k].1 == TokenKind::Punct && word(k) == ";")
        .collect();
    let [a, b] = semis.as_slice() else {
        return None;
    };
    let cond: Vec<usize> = (a + 1..*b).collect();
    if cond.len() < 3 {
        return None;
    }
    let it = header.iterator.as_str();
    let relations = ["<", "<=", ">", ">="];
    let mut depth = 0i64;
    let mut ops = Vec::new();
    for &k in &cond {
        match word(k) {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            w if depth == 0 && relations.contains(&w) => ops.push(k),
            "&&" | "||" | "?" | "," | "==" | "!=" if depth == 0 => return None,
            _ => {}
        }
    }
    let [op] = ops.as_slice() else {
        return None;
    };
    let first = cond[0];
    let last = *cond.last()?;
    // `i OP E` or `E OP i`, the operator as if `i` were on the left.
    let op = if *op == first + 1 && word(first) == it && toks[first].1 == TokenKind::Ident {
        word(*op)
    } else if *op + 1 == last && word(last) == it && toks[last].1 == TokenKind::Ident {
        match word(*op) {
            "<" => ">",
            "<=" => ">=",
            ">" => "<",
            _ => "<=",
        }
    } else {
        return None;
    };
    match (header.step, op) {
        (1, "<") => Some(1),
        (1, "<=") => Some(0),
        (-1, ">") => Some(-1),
        (-1, ">=") => Some(0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::text::{Name, expression_fits, proven_text};
    use super::*;
    use crate::poly::{Space, Tuple};

    /// A frame over `[n | i]` (both `int`) where `0 <= i <= n - 1` and
    /// `1 <= n`, knowing `n`, `i` and `i + 1`.
    fn loop_frame() -> Frame {
        let space = Space::set(vec!["n".into()], Tuple::anonymous(vec!["i".into()]));
        let mut piece = BasicSet::universe(space);
        piece.add_ineq(vec![0, 1, 0]); // i >= 0
        piece.add_ineq(vec![1, -1, -1]); // n - 1 - i >= 0
        piece.add_ineq(vec![1, 0, -1]); // n >= 1
        let mut f = Frame {
            pieces: vec![piece],
            types: vec![IntType::Int, IntType::Int],
            known: Vec::new(),
            conditional: Vec::new(),
        };
        f.know(vec![1, 0, 0], IntType::Int);
        f.know(vec![0, 1, 0], IntType::Int);
        f.know(vec![0, 1, 1], IntType::Int);
        f
    }

    fn names(n: &str) -> Option<Name> {
        match n {
            "n" => Some(Name::Column(0)),
            "i" => Some(Name::Column(1)),
            "a" => Some(Name::Opaque),
            _ => None,
        }
    }

    /// Checked by hand: `i + 1 <= n`, `n - i >= 1`, both known to fit;
    /// `n + 1` (n may be INT_MAX) and `-n` are not; `2 * n` neither.
    #[test]
    fn values_between_known_ones_fit_and_others_do_not() {
        let f = loop_frame();
        assert!(f.sum_fits(&[(1, 1)], 1)); // i + 1
        assert!(f.sum_fits(&[(1, 0), (-1, 1)], 0)); // n - i
        assert!(f.sum_fits(&[(1, 1), (-1, 0)], 0)); // i - n: in [-n, -1]
        assert!(!f.sum_fits(&[(1, 0)], 1)); // n + 1
        // `-n`: n >= 1 here, so it is no INT_MIN.
        assert!(f.sum_fits(&[(-1, 0), (1, 1)], 0));
        assert!(!f.sum_fits(&[(2, 0)], 0)); // 2 * n
        // Stored in a `short`: `i` is not known to fit one.
        assert!(!f.stores(&[0, 1, 0], &IntType::Short));
        assert!(f.stores(&[0, 0, 300], &IntType::Short));
    }

    #[test]
    fn printed_expressions_are_read_back_and_checked() {
        let f = loop_frame();
        assert!(expression_fits(&f, "a[(i + 1) % n]", &names).is_ok());
        assert!(expression_fits(&f, "(n - i - 1) % 3", &names).is_ok());
        assert!(expression_fits(&f, "n + 1", &names).is_err());
        // The branch of a conditional where its condition holds: `i - 1`
        // is evaluated for `i >= 1` only.
        assert!(expression_fits(&f, "i >= 1 ? (i - 1) % n : 0", &names).is_ok());
        // An unknown name is not proven.
        assert!(expression_fits(&f, "i + m", &names).is_err());
    }

    /// `n + 1` and `2 * n` in `long long`: a sum of `int` values with small
    /// coefficients fits 64 bits; a proven text is left as it is.
    #[test]
    fn chains_not_proven_in_int_are_computed_in_long_long() {
        let f = loop_frame();
        assert_eq!(
            proven_text(&f, "(n + 1) % 7", &names).as_deref(),
            Ok("((long long)n + 1) % 7")
        );
        assert_eq!(
            proven_text(&f, "2 * n - i", &names).as_deref(),
            Ok("(long long)2 * n - i")
        );
        assert_eq!(proven_text(&f, "i + 1", &names).as_deref(), Ok("i + 1"));
    }

    /// A window `base <= i <= base + n - 1` (`base` any `int`, `n >= 1`),
    /// knowing `base`, `n`, `base + n` (the header's bound), `i`, `i + 1`
    /// and the subscript `i - base`: `i - base` and `i - base + 1` fit,
    /// `-base + i` does not (`-base` of INT_MIN), nor `base + n + 1`; in
    /// `long long`, `-base` does.
    #[test]
    fn a_window_from_any_base() {
        let space = Space::set(
            vec!["base".into(), "n".into()],
            Tuple::anonymous(vec!["i".into()]),
        );
        let mut piece = BasicSet::universe(space);
        piece.add_ineq(vec![-1, 0, 1, 0]); // i - base >= 0
        piece.add_ineq(vec![1, 1, -1, -1]); // base + n - 1 - i >= 0
        piece.add_ineq(vec![0, 1, 0, -1]); // n >= 1
        let mut f = Frame {
            pieces: vec![piece],
            types: vec![IntType::Int; 3],
            known: Vec::new(),
            conditional: Vec::new(),
        };
        for row in [
            [1, 0, 0, 0],
            [0, 1, 0, 0],
            [1, 1, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 1, 1],
            [-1, 0, 1, 0],
        ] {
            f.know(row.to_vec(), IntType::Int);
        }
        assert!(f.sum_fits(&[(1, 2), (-1, 0)], 0));
        assert!(f.sum_fits(&[(1, 2), (-1, 0)], 1));
        assert!(!f.sum_fits(&[(-1, 0), (1, 2)], 0));
        assert!(!f.sum_fits(&[(1, 0), (1, 1)], 1));
        let names = |n: &str| match n {
            "base" => Some(Name::Column(0)),
            "n" => Some(Name::Column(1)),
            "i" => Some(Name::Column(2)),
            _ => None,
        };
        assert_eq!(
            proven_text(&f, "-base + i", &names).as_deref(),
            Ok("-(long long)base + i")
        );
    }

    #[test]
    fn type_texts_and_their_ranges() {
        assert_eq!(IntType::of_text("long int"), IntType::Long);
        assert_eq!(IntType::of_text("const long long"), IntType::LongLong);
        assert_eq!(IntType::of_text("int32_t"), IntType::Int);
        assert_eq!(
            IntType::of_text("ptrdiff_t"),
            IntType::Named("ptrdiff_t".into())
        );
        assert!(IntType::Int.within(&IntType::Long));
        assert!(!IntType::Long.within(&IntType::Int));
        assert!(IntType::Int.within(&IntType::Named("ptrdiff_t".into())));
        assert!(!IntType::Long.within(&IntType::Named("int64_t".into())));
    }

    /// A read under `?:` is not evaluated everywhere: its subscript
    /// `i - 1` (of a local array) gives no fact, and in particular does
    /// not keep `i = 0` out of the statement's frame; the write's does.
    #[test]
    fn reads_that_may_not_run_give_no_facts() {
        let source = "#define N 10\nvoid f(double y[N], const double x[N])\n{\n    int i;\n    double t[N];\n    for (i = 0; i < N; i++)\n        t[i] = x[i];\n    for (i = 0; i < N; i++)\n        y[i] = (i > 0) ? t[i - 1] : 0.0;\n}\n";
        let program = crate::frontend::extract("c.c", source, &crate::frontend::Options::default());
        let scop = &program.scops[0];
        let facts = scop_facts(source, scop);
        let frame = statement_frame(scop, &facts, 1);
        let at_zero = frame.pieces.iter().any(|p| {
            let mut q = p.clone();
            let mut eq = q.zero_row();
            eq[1] = 1; // i = 0 (column after N)
            q.add_eq(eq);
            !proven_empty(&q)
        });
        assert!(at_zero, "{frame:?}");
        // The write `t[i]` of the first statement keeps `i` in `0..N`.
        let first = statement_frame(scop, &facts, 0);
        assert!(first.stores(&[0, 1, 0], &IntType::Char));
    }

    /// The bound a header compares its iterator with, read from its text.
    #[test]
    fn written_bounds_of_headers() {
        let header = |text: &str, step: i64| crate::ir::ForHeader {
            iterator: "i".into(),
            step,
            init_end: text.find(';').unwrap_or(0),
            declares: None,
            update_end: text.len(),
        };
        let b = |t: &str, s: i64| written_bound(t, &header(t, s));
        assert_eq!(b("i = 0; i < n + 1; i++", 1), Some(1));
        assert_eq!(b("i = 0; i <= n; i++", 1), Some(0));
        assert_eq!(b("i = 0; n > i; i++", 1), Some(1));
        assert_eq!(b("i = n; i >= 0; i--", -1), Some(0));
        assert_eq!(b("i = n; i > 0; i--", -1), Some(-1));
        assert_eq!(b("i = 0; i < n && i < m; i++", 1), None);
        assert_eq!(b("i = 0; i + 1 < n; i++", 1), None);
    }
}
