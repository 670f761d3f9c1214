//! Affine conversion: C expressions to affine forms, `min`/`max` forms and
//! conditions in disjunctive normal form.
//!
//! Arithmetic is checked: an overflowing coefficient is a rejection, never a
//! wrapped value. This module does not know where names come from; a
//! [`Resolver`] decides whether a name is an iterator, a parameter, or not
//! affine at all. `/` and `%` by a constant are quasi-affine: in bounds and
//! conditions they become a [`Div`] symbol, C's truncating quotient, which
//! lowering models exactly with an existential variable per quotient (one
//! piece per sign of the dividend). A mask by a number `2^k - 1`, `e &
//! (2^k - 1)`, is the residue `e mod 2^k` (two's complement: the floor
//! quotient, not C's truncation), what `--pow2-moduli` prints.

use std::collections::BTreeMap;
use std::ops::Range;

use super::syntax::{BinOp, Expr, ExprKind, UnOp};
use crate::diag::{Code, Diagnostic};
use crate::util::c_text::Prec;

/// A variable of an affine form.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sym {
    /// A parameter, by name.
    Param(String),
    /// The iterator of the enclosing loop at this depth (0 = outermost).
    Iter(usize),
    /// The stride existential of the loop at this depth.
    Exist(usize),
    /// C's truncating quotient `num / den` of an affine form by a
    /// constant `den >= 2` (or the floor quotient: see [`Div::floor`]).
    Div(Box<Div>),
}

/// `num / den` in C: rounded toward zero (`-7 / 2 == -3`); with `floor`,
/// rounded down (`⌊-7 / 2⌋ == -4`: the quotient that a mask `num & (den -
/// 1)` leaves out, `den` a power of two).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Div {
    pub num: Lin,
    pub den: i64,
    pub floor: bool,
}

/// `Σ terms[s]·s + constant`, with no zero coefficient stored.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Lin {
    pub terms: BTreeMap<Sym, i64>,
    pub constant: i64,
}

impl Lin {
    pub fn constant(c: i64) -> Lin {
        Lin {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    pub(crate) fn sym(s: Sym) -> Lin {
        let mut terms = BTreeMap::new();
        terms.insert(s, 1);
        Lin { terms, constant: 0 }
    }

    pub fn coeff(&self, s: &Sym) -> i64 {
        self.terms.get(s).copied().unwrap_or(0)
    }

    pub(crate) fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `self + k·other`, or `None` on overflow.
    pub(crate) fn add_scaled(&self, other: &Lin, k: i64) -> Option<Lin> {
        let mut out = self.clone();
        for (s, c) in &other.terms {
            let add = c.checked_mul(k)?;
            let e = out.terms.entry(s.clone()).or_insert(0);
            *e = e.checked_add(add)?;
            if *e == 0 {
                out.terms.remove(s);
            }
        }
        out.constant = out.constant.checked_add(other.constant.checked_mul(k)?)?;
        Some(out)
    }

    pub fn scale(&self, k: i64) -> Option<Lin> {
        Lin::constant(0).add_scaled(self, k)
    }

    pub fn sub(&self, other: &Lin) -> Option<Lin> {
        self.add_scaled(other, -1)
    }

    pub(crate) fn add_constant(&self, c: i64) -> Option<Lin> {
        let mut out = self.clone();
        out.constant = out.constant.checked_add(c)?;
        Some(out)
    }

    /// Every parameter name, those inside quotients included.
    pub fn params(&self) -> Vec<&str> {
        let mut out = Vec::new();
        for s in self.terms.keys() {
            match s {
                Sym::Param(p) => out.push(p.as_str()),
                Sym::Div(d) => out.extend(d.num.params()),
                _ => {}
            }
        }
        out
    }

    /// Whether a quotient occurs in the form.
    pub(crate) fn has_div(&self) -> bool {
        self.terms.keys().any(|s| matches!(s, Sym::Div(_)))
    }

    /// Every quotient of the form, those inside quotients first (each
    /// once, appended to `out` when not there yet).
    pub(crate) fn collect_divs(&self, out: &mut Vec<Div>) {
        for s in self.terms.keys() {
            if let Sym::Div(d) = s {
                d.num.collect_divs(out);
                if !out.contains(d) {
                    out.push((**d).clone());
                }
            }
        }
    }

    /// `self / den` (C's truncation) for a constant `den != 0`: a number
    /// when `self` is one, else `±Div` (`x / -c == -(x / c)` in C).
    pub fn quotient(&self, den: i64) -> Option<Lin> {
        if den == 0 {
            return None;
        }
        if let Some(c) = self.as_constant() {
            return c.checked_div(den).map(Lin::constant);
        }
        let m = den.checked_abs()?;
        let q = if m == 1 {
            self.clone()
        } else {
            Lin::sym(Sym::Div(Box::new(Div {
                num: self.clone(),
                den: m,
                floor: false,
            })))
        };
        q.scale(den.signum())
    }

    /// `self % den` (C's remainder, the sign of `self`):
    /// `self - |den|·(self / |den|)`.
    pub(crate) fn remainder(&self, den: i64) -> Option<Lin> {
        // `den == 0` is `None` from `checked_rem` or from `quotient`.
        if let Some(c) = self.as_constant() {
            return c.checked_rem(den).map(Lin::constant);
        }
        let m = den.checked_abs()?;
        self.add_scaled(&self.quotient(m)?, -m)
    }

    /// `self & (m - 1)` for a power of two `m >= 1` (two's complement):
    /// the residue `self - m·⌊self / m⌋`, in `0..m` whatever the sign of
    /// `self`.
    pub fn masked(&self, m: i64) -> Option<Lin> {
        if m < 1 || m & (m - 1) != 0 {
            return None;
        }
        if let Some(c) = self.as_constant() {
            return Some(Lin::constant(c & (m - 1)));
        }
        if m == 1 {
            return Some(Lin::constant(0));
        }
        let floor = Lin::sym(Sym::Div(Box::new(Div {
            num: self.clone(),
            den: m,
            floor: true,
        })));
        self.add_scaled(&floor, -m)
    }
}

/// One constraint `lin >= 0` or `lin = 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Constraint {
    pub lin: Lin,
    pub is_eq: bool,
}

impl Constraint {
    pub(crate) fn ge0(lin: Lin) -> Constraint {
        Constraint { lin, is_eq: false }
    }

    pub(crate) fn eq0(lin: Lin) -> Constraint {
        Constraint { lin, is_eq: true }
    }

    /// `Some(true)` / `Some(false)` for a constraint without variables.
    fn constant_truth(&self) -> Option<bool> {
        let c = self.lin.as_constant()?;
        Some(if self.is_eq { c == 0 } else { c >= 0 })
    }
}

/// The most disjuncts a condition (or a domain) may have.
pub(crate) const MAX_DISJUNCTS: usize = 64;

/// A condition in disjunctive normal form: a union of conjunctions. No
/// disjunct is `false`; `[[]]` is `true` and `[]` is `false`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Dnf(pub Vec<Vec<Constraint>>);

impl Dnf {
    pub fn truth() -> Dnf {
        Dnf(vec![Vec::new()])
    }

    pub(crate) fn falsity() -> Dnf {
        Dnf(Vec::new())
    }

    pub fn atom(c: Constraint) -> Dnf {
        match c.constant_truth() {
            Some(true) => Dnf::truth(),
            Some(false) => Dnf::falsity(),
            None => Dnf(vec![vec![c]]),
        }
    }

    pub fn or(mut self, other: Dnf) -> Option<Dnf> {
        self.0.extend(other.0);
        self.0.dedup();
        (self.0.len() <= MAX_DISJUNCTS).then_some(self)
    }

    /// `self || other` as disjoint pieces, `self ∨ (¬self ∧ other)`, when
    /// `¬self` is one conjunction (`self` is a disjunction of inequalities,
    /// as `k > i - m`); otherwise the plain union. Disjoint pieces keep a
    /// statement's instances apart, and a piece whose iterators are fixed
    /// by the other side's negation (`k == i - m` in
    /// `k > i - m || l > j - n`) projects exactly where the overlapping
    /// piece would not (a linearised subscript whose row spans one value
    /// less than its stride).
    pub(crate) fn or_disjoint(self, other: Dnf) -> Option<Dnf> {
        match self.not() {
            Some(negated) if negated.0.len() <= 1 => {
                let rest = negated.and(&other)?;
                self.or(rest)
            }
            _ => self.or(other),
        }
    }

    pub fn and(&self, other: &Dnf) -> Option<Dnf> {
        if self.0.len().saturating_mul(other.0.len()) > MAX_DISJUNCTS {
            return None;
        }
        let mut out = Vec::new();
        for a in &self.0 {
            for b in &other.0 {
                let mut conj = a.clone();
                for c in b {
                    if !conj.contains(c) {
                        conj.push(c.clone());
                    }
                }
                if !contradicts(&conj) {
                    out.push(conj);
                }
            }
        }
        out.dedup();
        Some(Dnf(out))
    }

    pub fn not(&self) -> Option<Dnf> {
        let mut acc = Dnf::truth();
        for conj in &self.0 {
            let mut neg = Dnf::falsity();
            for c in conj {
                neg = neg.or(negate(c)?)?;
            }
            acc = acc.and(&neg)?;
        }
        Some(acc)
    }

    /// The single conjunction, when there is exactly one.
    pub(crate) fn as_conjunction(&self) -> Option<&[Constraint]> {
        match self.0.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }
}

/// Whether a conjunction holds two inequalities with opposite terms that
/// no point satisfies together (`L + a >= 0` and `-L + b >= 0` with
/// `a + b < 0`, as `k - 1 >= 0` and `-k >= 0`): such a disjunct is
/// dropped, so that the negation of `k >= 1 || (k <= 0 && j >= 1)` stays
/// one conjunction.
fn contradicts(conj: &[Constraint]) -> bool {
    conj.iter().enumerate().any(|(x, c)| {
        !c.is_eq
            && !c.lin.terms.is_empty()
            && conj[x + 1..].iter().any(|d| {
                !d.is_eq
                    && d.lin.terms.len() == c.lin.terms.len()
                    && d.lin.terms.iter().all(|(s, v)| {
                        c.lin
                            .terms
                            .get(s)
                            .is_some_and(|w| w.checked_neg() == Some(*v))
                    })
                    && c.lin
                        .constant
                        .checked_add(d.lin.constant)
                        .is_some_and(|t| t < 0)
            })
    })
}

fn negate(c: &Constraint) -> Option<Dnf> {
    if c.is_eq {
        // lin != 0  <=>  lin - 1 >= 0  or  -lin - 1 >= 0
        let a = Dnf::atom(Constraint::ge0(c.lin.add_constant(-1)?));
        let b = Dnf::atom(Constraint::ge0(c.lin.scale(-1)?.add_constant(-1)?));
        a.or(b)
    } else {
        // not (lin >= 0)  <=>  -lin - 1 >= 0
        Some(Dnf::atom(Constraint::ge0(
            c.lin.scale(-1)?.add_constant(-1)?,
        )))
    }
}

/// An affine value: one affine form, or the minimum or maximum of several.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Aff(Lin),
    Min(Vec<Lin>),
    Max(Vec<Lin>),
}

impl Val {
    fn scale(self, k: i64) -> Option<Val> {
        let scale_all = |v: Vec<Lin>| v.iter().map(|l| l.scale(k)).collect::<Option<Vec<_>>>();
        Some(match self {
            Val::Aff(l) => Val::Aff(l.scale(k)?),
            Val::Min(v) if k >= 0 => Val::Min(scale_all(v)?),
            Val::Max(v) if k >= 0 => Val::Max(scale_all(v)?),
            Val::Min(v) => Val::Max(scale_all(v)?),
            Val::Max(v) => Val::Min(scale_all(v)?),
        })
    }

    fn pieces(&self) -> &[Lin] {
        match self {
            Val::Aff(l) => std::slice::from_ref(l),
            Val::Min(v) | Val::Max(v) => v,
        }
    }
}

/// Where an affine expression occurs; it picks the diagnostic code, and
/// the rejection carries it.
pub use crate::diag::Place;

/// Decides what names mean for the converter.
pub(crate) trait Resolver {
    /// The affine meaning of `name` at `span`, or the rejection.
    fn resolve(&mut self, name: &str, expr: &Expr, place: Place) -> Result<Val, Diagnostic>;
    /// The expansion of a call of a function-like macro, if `name` is one.
    fn expand_call(&mut self, name: &str, call: &Expr, args: &[Expr]) -> Option<Expr>;
    /// The source text of a span (for messages).
    fn text(&self, span: &Range<usize>) -> String;
    /// The known value of a parameter (from `#define`, `-D` or a `const`
    /// global), if any.
    fn param_value(&self, name: &str) -> Option<i64>;
    /// Records that the affine form being built uses the known value of
    /// parameter `name` (a product, `/` or `%` folded to a number): the
    /// result is then exact for that value only, and whatever is proven
    /// from it holds for that value only.
    fn note_value_use(&mut self, name: &str);
    /// The level of `name`'s expansion when it is an object-like macro
    /// whose body is not one operand (see
    /// [`crate::util::c_text::macro_level`]).
    fn macro_level(&self, name: &str) -> Option<Prec> {
        let _ = name;
        None
    }
    /// Whether the source text right around `span` is `(` … `)`.
    fn parenthesised(&self, span: &Range<usize>) -> bool {
        let _ = span;
        false
    }
}

/// The C text of a macro's expansion replaces its name: `8 * N` with
/// `#define N M+2` is `8 * M+2`, not `8 * (M+2)`. A name whose expansion is
/// looser than the operator slot it fills (and that is not written in
/// parentheses) is rejected, so that the model never reads it as one
/// operand where the compiler does not.
fn check_macro_operands<R: Resolver>(e: &Expr, place: Place, res: &R) -> Result<(), Diagnostic> {
    let slots = e.operand_slots();
    for (child, min) in slots {
        let ExprKind::Ident(name) = &child.kind else {
            continue;
        };
        let Some(level) = res.macro_level(name) else {
            continue;
        };
        // An expansion's spans are those of its use: parentheses cannot
        // be seen there.
        if level >= min || (!child.from_macro && res.parenthesised(&child.span)) {
            continue;
        }
        return Err(not_affine(
            res,
            place,
            &child.span,
            &format!(
                "macro `{name}` expands to several tokens that the operator next to it regroups; parenthesise its body"
            ),
        ));
    }
    Ok(())
}

/// The value of an affine form whose only variables are parameters with
/// known values. Every parameter whose value it uses is recorded with
/// [`Resolver::note_value_use`] (only when the whole value is known).
pub(super) fn known_value<R: Resolver + ?Sized>(v: &Val, res: &mut R) -> Option<i64> {
    let Val::Aff(l) = v else { return None };
    let mut acc = l.constant;
    for (s, c) in &l.terms {
        let Sym::Param(p) = s else { return None };
        acc = acc.checked_add(c.checked_mul(res.param_value(p)?)?)?;
    }
    for p in l.params() {
        res.note_value_use(p);
    }
    Some(acc)
}

/// The divisor `v` as a number: a constant, or parameters with known
/// values (their values are then used, see [`known_value`]).
pub(super) fn constant_divisor<R: Resolver + ?Sized>(v: &Val, res: &mut R) -> Option<i64> {
    match v {
        Val::Aff(l) => l.as_constant().or_else(|| known_value(v, res)),
        _ => None,
    }
}

/// `a / b` or `a % b` in C when both sides are known numbers and `b` is
/// not zero: `Some(None)` when the result overflows.
fn known_quotient<R: Resolver>(
    op: BinOp,
    a: &Expr,
    b: &Expr,
    res: &mut R,
    recur: &impl Fn(&Expr, &mut R) -> Result<Val, Diagnostic>,
) -> Option<Option<i64>> {
    let (Ok(va), Ok(vb)) = (recur(a, res), recur(b, res)) else {
        return None;
    };
    let (x, y) = (known_value(&va, res)?, known_value(&vb, res)?);
    if y == 0 {
        return None;
    }
    Some(if op == BinOp::Div {
        x.checked_div(y)
    } else {
        x.checked_rem(y)
    })
}

/// Builds the usual rejection of a non-affine piece `bad` inside `whole`.
pub(crate) fn not_affine(
    res: &dyn Resolver,
    place: Place,
    bad: &Range<usize>,
    reason: &str,
) -> Diagnostic {
    Diagnostic::new(
        place.non_affine_code(),
        format!("non-affine {} `{}`", place.noun(), res.text(bad)),
        bad.clone(),
        reason.to_string(),
    )
    .at_place(place)
}

fn overflow(res: &dyn Resolver, span: &Range<usize>) -> Diagnostic {
    Diagnostic::new(
        Code::Overflow,
        format!("coefficient overflow in `{}`", res.text(span)),
        span.clone(),
        "this value does not fit a 64-bit integer",
    )
}

const MAX_MACRO_DEPTH: usize = 16;

/// Converts an expression to an affine value.
pub(crate) fn to_val<R: Resolver>(e: &Expr, place: Place, res: &mut R) -> Result<Val, Diagnostic> {
    to_val_depth(e, place, res, 0)
}

/// Converts an expression to one affine form (no `min`/`max`).
pub(crate) fn to_lin<R: Resolver>(e: &Expr, place: Place, res: &mut R) -> Result<Lin, Diagnostic> {
    match to_val(e, place, res)? {
        Val::Aff(l) => Ok(l),
        _ => Err(not_affine(
            res,
            place,
            &e.span,
            "a minimum or maximum is not allowed here",
        )),
    }
}

fn to_val_depth<R: Resolver>(
    e: &Expr,
    place: Place,
    res: &mut R,
    depth: usize,
) -> Result<Val, Diagnostic> {
    if depth > MAX_MACRO_DEPTH {
        return Err(not_affine(res, place, &e.span, "macro expansion too deep"));
    }
    check_macro_operands(e, place, res)?;
    let recur = |x: &Expr, res: &mut R| to_val_depth(x, place, res, depth);
    match &e.kind {
        ExprKind::Int(v) => Ok(Val::Aff(Lin::constant(*v))),
        ExprKind::Ident(name) => res.resolve(name, e, place),
        ExprKind::Cast(ty, inner) => {
            if is_integer_type_text(ty) && !ty.contains("unsigned") {
                recur(inner, res)
            } else {
                Err(not_affine(
                    res,
                    place,
                    &e.span,
                    "only casts to signed integer types are affine",
                ))
            }
        }
        ExprKind::Unary(UnOp::Plus, a) => recur(a, res),
        ExprKind::Unary(UnOp::Neg, a) => {
            let v = recur(a, res)?;
            v.scale(-1).ok_or_else(|| overflow(res, &e.span))
        }
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            let va = recur(a, res)?;
            let vb = recur(b, res)?;
            let vb = if *op == BinOp::Sub {
                vb.scale(-1).ok_or_else(|| overflow(res, &e.span))?
            } else {
                vb
            };
            add_vals(va, vb, e, place, res)
        }
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let va = recur(a, res)?;
            let vb = recur(b, res)?;
            mul_vals(va, vb, e, place, res)
        }
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Mod), a, b)
            if place == Place::Subscript
                && let Some(v) = known_quotient(*op, a, b, res, &recur) =>
        {
            // In a subscript, a quotient of known numbers is folded (the
            // SCoP then depends on the values: `s[i - N / 2]`).
            v.map(|v| Val::Aff(Lin::constant(v)))
                .ok_or_else(|| overflow(res, &e.span))
        }
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Mod), a, b)
            if let Ok(Val::Aff(num)) = recur(a, res)
                && let Ok(vb) = recur(b, res)
                && let Some(den) = constant_divisor(&vb, res)
                && den != 0 =>
        {
            // A quotient or remainder by a constant: quasi-affine, modelled
            // exactly by lowering (an existential in a domain, a quotient
            // dimension of the statement in a subscript; see `Div`), and
            // kept symbolic even when the dividend's value is known. A
            // divisor made of parameters with known values is that number
            // (`% (2 * N - 3)`, what polyfold prints for a modulus that
            // depends on the sizes): the SCoP then holds for these values.
            let r = if *op == BinOp::Div {
                num.quotient(den)
            } else {
                num.remainder(den)
            };
            r.map(Val::Aff).ok_or_else(|| overflow(res, &e.span))
        }
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Mod), a, b)
            if let Some(v) = known_quotient(*op, a, b, res, &recur) =>
        {
            // Both sides are known numbers (a divisor that is a parameter
            // with a known value): C's truncating `/` and `%`.
            v.map(|v| Val::Aff(Lin::constant(v)))
                .ok_or_else(|| overflow(res, &e.span))
        }
        ExprKind::Binary(BinOp::BitAnd, a, b)
            if let Some((num, mask)) = [(a, b), (b, a)].into_iter().find_map(|(e, m)| {
                let ExprKind::Int(mask) = m.kind else {
                    return None;
                };
                let Ok(Val::Aff(num)) = recur(e, res) else {
                    return None;
                };
                Some((num, mask))
            }) && mask >= 0
                && mask.checked_add(1).is_some_and(|m| m & mask == 0) =>
        {
            // A mask by the number `2^k - 1` (`--pow2-moduli`'s `(e) &
            // 3`): the residue modulo 2^k, quasi-affine like `%` (see
            // `Lin::masked`).
            num.masked(mask + 1)
                .map(Val::Aff)
                .ok_or_else(|| overflow(res, &e.span))
        }
        ExprKind::Binary(op @ (BinOp::Div | BinOp::Mod), _, _) => {
            Err(quasi_affine_unsupported(*op, e, place, res))
        }
        ExprKind::Cond(c, x, y) => {
            if let Some(is_min) = min_max_form(c, x, y) {
                let vx = recur(x, res)?;
                let vy = recur(y, res)?;
                return combine_minmax(is_min, vx, vy)
                    .ok_or_else(|| not_affine(res, place, &e.span, "mixed minimum and maximum"));
            }
            Err(not_affine(
                res,
                place,
                &e.span,
                "only `a < b ? a : b` (min) and `a > b ? a : b` (max) forms are affine",
            ))
        }
        ExprKind::Call(callee, args) => {
            if let ExprKind::Ident(name) = &callee.kind
                && let Some(expanded) = res.expand_call(name, e, args)
            {
                return to_val_depth(&expanded, place, res, depth + 1);
            }
            Err(not_affine(res, place, &e.span, "function call"))
        }
        ExprKind::Subscript(..) => Err(not_affine(
            res,
            place,
            &e.span,
            "array element (a value read from memory)",
        )),
        _ => Err(not_affine(
            res,
            place,
            &e.span,
            "not an affine expression of iterators and parameters",
        )),
    }
}

/// The product of two values, one of which must be a constant, or
/// parameters with a known value: a product of a parameter expression
/// with known value and an iterator (`(N + 1) * j`) uses the value, so
/// that the access stays affine; the value is exact.
fn mul_vals<R: Resolver>(
    va: Val,
    vb: Val,
    e: &Expr,
    place: Place,
    res: &mut R,
) -> Result<Val, Diagnostic> {
    let k_a = match &va {
        Val::Aff(l) => l.as_constant(),
        _ => None,
    };
    let k_b = match &vb {
        Val::Aff(l) => l.as_constant(),
        _ => None,
    };
    let k_a = k_a.or_else(|| {
        if k_b.is_none() {
            known_value(&va, res)
        } else {
            None
        }
    });
    let k_b = k_b.or_else(|| {
        if k_a.is_none() {
            known_value(&vb, res)
        } else {
            None
        }
    });
    let (k, v) = match (k_a, k_b) {
        (Some(k), _) => (k, vb),
        (_, Some(k)) => (k, va),
        _ => {
            return Err(not_affine(
                res,
                place,
                &e.span,
                "product of two non-constant expressions",
            ));
        }
    };
    v.scale(k).ok_or_else(|| overflow(res, &e.span))
}

/// The rejection (PF016) of a `/` or `%` that is neither by a constant nor
/// by known numbers; it records the place of the expression.
fn quasi_affine_unsupported(op: BinOp, e: &Expr, place: Place, res: &dyn Resolver) -> Diagnostic {
    Diagnostic::new(
        Code::QuasiAffine,
        format!(
            "quasi-affine {} `{}` is not supported",
            place.noun(),
            res.text(&e.span)
        ),
        e.span.clone(),
        format!(
            "integer {} is not modelled",
            if op == BinOp::Div {
                "division"
            } else {
                "remainder"
            }
        ),
    )
    .with_note("polyfold models `/` and `%` only by a constant (not by a variable)")
    .at_place(place)
}

/// Whether `c ? x : y` is a minimum (`a < b ? a : b`, `Some(true)`) or a
/// maximum (`a > b ? a : b`, `Some(false)`) of its two branches.
fn min_max_form(c: &Expr, x: &Expr, y: &Expr) -> Option<bool> {
    let ExprKind::Binary(op, l, r) = &c.kind else {
        return None;
    };
    let same = |p: &Expr, q: &Expr| strip_eq(p, q);
    let (branches, swapped) = if same(l, x) && same(r, y) {
        (true, false)
    } else if same(l, y) && same(r, x) {
        (true, true)
    } else {
        (false, false)
    };
    match op {
        BinOp::Lt | BinOp::Le if branches => Some(!swapped),
        BinOp::Gt | BinOp::Ge if branches => Some(swapped),
        _ => None,
    }
}

fn combine_minmax(is_min: bool, a: Val, b: Val) -> Option<Val> {
    let mut all = Vec::new();
    for v in [a, b] {
        match (is_min, v) {
            (_, Val::Aff(l)) => all.push(l),
            (true, Val::Min(ls)) | (false, Val::Max(ls)) => all.extend(ls),
            _ => return None,
        }
    }
    all.dedup();
    if all.len() > MAX_DISJUNCTS {
        return None;
    }
    Some(if is_min { Val::Min(all) } else { Val::Max(all) })
}

fn add_vals<R: Resolver>(
    a: Val,
    b: Val,
    e: &Expr,
    place: Place,
    res: &mut R,
) -> Result<Val, Diagnostic> {
    if a.pieces().len().saturating_mul(b.pieces().len()) > MAX_DISJUNCTS {
        return Err(not_affine(
            res,
            place,
            &e.span,
            "too many minimum/maximum pieces",
        ));
    }
    let sum_all = |xs: &[Lin], ys: &[Lin]| -> Option<Vec<Lin>> {
        let mut out = Vec::new();
        for x in xs {
            for y in ys {
                out.push(x.add_scaled(y, 1)?);
            }
        }
        Some(out)
    };
    let r = match (&a, &b) {
        (Val::Aff(x), Val::Aff(y)) => x.add_scaled(y, 1).map(Val::Aff),
        (Val::Min(_), Val::Max(_)) | (Val::Max(_), Val::Min(_)) => {
            return Err(not_affine(
                res,
                place,
                &e.span,
                "sum of a minimum and a maximum",
            ));
        }
        (Val::Min(_), _) | (_, Val::Min(_)) => sum_all(a.pieces(), b.pieces()).map(Val::Min),
        _ => sum_all(a.pieces(), b.pieces()).map(Val::Max),
    };
    r.ok_or_else(|| overflow(res, &e.span))
}

/// Syntactic equality of two expressions, ignoring spans.
pub(super) fn strip_eq(a: &Expr, b: &Expr) -> bool {
    fn canon(e: &Expr) -> Expr {
        let mut c = e.clone();
        zero_spans(&mut c);
        c
    }
    canon(a) == canon(b)
}

fn zero_spans(e: &mut Expr) {
    e.span = 0..0;
    e.from_macro = false;
    match &mut e.kind {
        ExprKind::Unary(_, a)
        | ExprKind::Cast(_, a)
        | ExprKind::Update(_, a)
        | ExprKind::AddrOf(a)
        | ExprKind::Deref(a)
        | ExprKind::Field(a) => zero_spans(a),
        ExprKind::Binary(_, a, b)
        | ExprKind::Subscript(a, b)
        | ExprKind::Assign(_, a, b)
        | ExprKind::Comma(a, b) => {
            zero_spans(a);
            zero_spans(b);
        }
        ExprKind::Cond(a, b, c) => {
            zero_spans(a);
            zero_spans(b);
            zero_spans(c);
        }
        ExprKind::Call(a, args) => {
            zero_spans(a);
            args.iter_mut().for_each(zero_spans);
        }
        ExprKind::Other(_, subs) => subs.iter_mut().for_each(zero_spans),
        _ => {}
    }
}

/// `lhs <= rhs` (or `<` when `strict`) as a DNF.
fn le(lhs: &Val, rhs: &Val, strict: bool) -> Option<Dnf> {
    // lhs <= rhs: a Max on the left or a Min on the right gives a
    // conjunction; a Min on the left or a Max on the right a disjunction.
    let left_all = !matches!(lhs, Val::Min(_));
    let right_all = !matches!(rhs, Val::Max(_));
    let slack = if strict { -1 } else { 0 };
    let mut outer = if left_all {
        Dnf::truth()
    } else {
        Dnf::falsity()
    };
    for x in lhs.pieces() {
        let mut inner = if right_all {
            Dnf::truth()
        } else {
            Dnf::falsity()
        };
        for y in rhs.pieces() {
            let c = Dnf::atom(Constraint::ge0(y.sub(x)?.add_constant(slack)?));
            inner = if right_all {
                inner.and(&c)?
            } else {
                inner.or(c)?
            };
        }
        outer = if left_all {
            outer.and(&inner)?
        } else {
            outer.or(inner)?
        };
    }
    Some(outer)
}

/// Converts a condition (`&&`, `||`, `!`, comparisons, or an affine value
/// meaning `!= 0`) to DNF.
pub(crate) fn to_dnf<R: Resolver>(e: &Expr, place: Place, res: &mut R) -> Result<Dnf, Diagnostic> {
    to_dnf_depth(e, place, res, 0)
}

fn to_dnf_depth<R: Resolver>(
    e: &Expr,
    place: Place,
    res: &mut R,
    depth: usize,
) -> Result<Dnf, Diagnostic> {
    if depth > MAX_MACRO_DEPTH {
        return Err(not_affine(res, place, &e.span, "macro expansion too deep"));
    }
    check_macro_operands(e, place, res)?;
    let to_dnf = |x: &Expr, place: Place, res: &mut R| to_dnf_depth(x, place, res, depth);
    let too_complex = |res: &R| {
        Diagnostic::new(
            Code::TooManyDisjuncts,
            format!("condition `{}` is too complex", res.text(&e.span)),
            e.span.clone(),
            format!("more than {MAX_DISJUNCTS} disjuncts"),
        )
    };
    match &e.kind {
        ExprKind::Call(callee, args) => {
            let expanded = match &callee.kind {
                ExprKind::Ident(name) => res.expand_call(name, e, args),
                _ => None,
            };
            match expanded {
                Some(x) => to_dnf_depth(&x, place, res, depth + 1),
                None => Err(not_affine(res, place, &e.span, "function call")),
            }
        }
        ExprKind::Binary(BinOp::And, a, b) => {
            let da = to_dnf(a, place, res)?;
            let db = to_dnf(b, place, res)?;
            da.and(&db).ok_or_else(|| too_complex(res))
        }
        ExprKind::Binary(BinOp::Or, a, b) => {
            let da = to_dnf(a, place, res)?;
            let db = to_dnf(b, place, res)?;
            da.or_disjoint(db).ok_or_else(|| too_complex(res))
        }
        // `&` and `|` of two truth values (0 or 1 each) are `&&` and
        // `||`: the same value, and conditions have no side effects, so
        // evaluating both operands changes nothing. Any other operand
        // (`i & 1`, `x | 4`) is a bit operation on a number.
        ExprKind::Binary(op @ (BinOp::BitAnd | BinOp::BitOr), a, b)
            if is_truth_value(a) && is_truth_value(b) =>
        {
            let da = to_dnf(a, place, res)?;
            let db = to_dnf(b, place, res)?;
            if *op == BinOp::BitAnd {
                da.and(&db).ok_or_else(|| too_complex(res))
            } else {
                da.or_disjoint(db).ok_or_else(|| too_complex(res))
            }
        }
        ExprKind::Unary(UnOp::Not, a) => {
            let da = to_dnf(a, place, res)?;
            da.not().ok_or_else(|| too_complex(res))
        }
        ExprKind::Binary(
            op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne),
            a,
            b,
        ) => {
            let va = to_val(a, place, res)?;
            let vb = to_val(b, place, res)?;
            let d = match op {
                BinOp::Lt => le(&va, &vb, true),
                BinOp::Le => le(&va, &vb, false),
                BinOp::Gt => le(&vb, &va, true),
                BinOp::Ge => le(&vb, &va, false),
                BinOp::Eq | BinOp::Ne => {
                    let (Val::Aff(x), Val::Aff(y)) = (&va, &vb) else {
                        return Err(not_affine(
                            res,
                            place,
                            &e.span,
                            "equality with a minimum or maximum",
                        ));
                    };
                    let eq = x.sub(y).map(|l| Dnf::atom(Constraint::eq0(l)));
                    if *op == BinOp::Eq {
                        eq
                    } else {
                        eq.and_then(|d| d.not())
                    }
                }
                _ => None,
            };
            d.ok_or_else(|| too_complex(res))
        }
        _ => {
            // A bare value `c` means `c != 0`.
            let v = to_lin(e, place, res)?;
            Dnf::atom(Constraint::eq0(v))
                .not()
                .ok_or_else(|| too_complex(res))
        }
    }
}

/// Whether `e` is 0 or 1 by its form: a comparison, `!`, `&&`, `||`, or
/// `&` / `|` of such (parentheses are not nodes of [`Expr`]).
fn is_truth_value(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Binary(
            BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::Eq
            | BinOp::Ne
            | BinOp::And
            | BinOp::Or,
            _,
            _,
        )
        | ExprKind::Unary(UnOp::Not, _) => true,
        ExprKind::Binary(BinOp::BitAnd | BinOp::BitOr, a, b) => {
            is_truth_value(a) && is_truth_value(b)
        }
        _ => false,
    }
}

/// Whether a type text names an integer type (`int`, `long`, `unsigned`,
/// `int64_t`, `size_t`, ...).
pub(crate) fn is_integer_type_text(ty: &str) -> bool {
    let words: Vec<&str> = ty
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty() && !matches!(*w, "const" | "volatile" | "register"))
        .collect();
    if words.is_empty() {
        return false;
    }
    words.iter().all(|w| {
        matches!(
            *w,
            "int" | "long" | "short" | "signed" | "unsigned" | "char"
        ) || is_integer_typedef(w)
    })
}

fn is_integer_typedef(w: &str) -> bool {
    matches!(
        w,
        "int8_t"
            | "int16_t"
            | "int32_t"
            | "int64_t"
            | "uint8_t"
            | "uint16_t"
            | "uint32_t"
            | "uint64_t"
            | "size_t"
            | "ssize_t"
            | "ptrdiff_t"
            | "intptr_t"
            | "uintptr_t"
            | "intmax_t"
            | "uintmax_t"
    )
}

/// Whether an integer type text is signed (so that its arithmetic does not
/// wrap in the ranges we model).
pub(crate) fn is_signed_integer_type_text(ty: &str) -> bool {
    is_integer_type_text(ty)
        && !ty
            .split_whitespace()
            .any(|w| w == "unsigned" || w.starts_with("uint") || w == "size_t" || w == "uintptr_t")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(terms: &[(Sym, i64)], k: i64) -> Constraint {
        let mut l = Lin::constant(k);
        for (s, v) in terms {
            l = l.add_scaled(&Lin::sym(s.clone()), *v).expect("small");
        }
        Constraint::ge0(l)
    }

    #[test]
    fn negation_of_conjunction_is_disjunction() {
        let i = Sym::Iter(0);
        let d = Dnf(vec![vec![
            c(&[(i.clone(), 1)], 0),
            c(&[(i.clone(), -1)], 5),
        ]]);
        let n = d.not().expect("small");
        // not(i >= 0 and 5 - i >= 0) = (-i - 1 >= 0) or (i - 6 >= 0)
        assert_eq!(
            n,
            Dnf(vec![
                vec![c(&[(i.clone(), -1)], -1)],
                vec![c(&[(i.clone(), 1)], -6)]
            ])
        );
        // Brute force: for i in -3..10, exactly one of d, n holds.
        let holds = |d: &Dnf, x: i64| {
            d.0.iter().any(|conj| {
                conj.iter()
                    .all(|k| k.lin.coeff(&i) * x + k.lin.constant >= 0)
            })
        };
        for x in -3..10 {
            assert_ne!(holds(&d, x), holds(&n, x), "x = {x}");
        }
    }

    /// `a || b` with `a` a disjunction of inequalities becomes the disjoint
    /// `a ∨ (¬a ∧ b)`, the same points (brute force over a grid); with an
    /// equality on the left (whose negation is two pieces) it stays the
    /// plain union. Checked for `k > i || l > j`, `k > i || (l > j && l < 3)`
    /// and `i == 0 || j == 2`.
    #[test]
    fn an_or_with_inequalities_on_its_left_becomes_disjoint_pieces() {
        let (i, j, k, l) = (Sym::Iter(0), Sym::Iter(1), Sym::Iter(2), Sym::Iter(3));
        let holds = |d: &Dnf, p: &[i64; 4]| -> usize {
            d.0.iter()
                .filter(|conj| {
                    conj.iter().all(|cn| {
                        let v = [&i, &j, &k, &l]
                            .iter()
                            .zip(p)
                            .map(|(s, x)| cn.lin.coeff(s) * x)
                            .sum::<i64>()
                            + cn.lin.constant;
                        if cn.is_eq { v == 0 } else { v >= 0 }
                    })
                })
                .count()
        };
        let eq = |terms: &[(Sym, i64)], k0: i64| Constraint::eq0(c(terms, k0).lin);
        let cases = [
            (
                // k - i - 1 >= 0 || l - j - 1 >= 0
                Dnf::atom(c(&[(k.clone(), 1), (i.clone(), -1)], -1)),
                Dnf::atom(c(&[(l.clone(), 1), (j.clone(), -1)], -1)),
                true,
            ),
            (
                Dnf::atom(c(&[(k.clone(), 1), (i.clone(), -1)], -1)),
                Dnf(vec![vec![
                    c(&[(l.clone(), 1), (j.clone(), -1)], -1),
                    c(&[(l.clone(), -1)], 2),
                ]]),
                true,
            ),
            (
                Dnf::atom(eq(&[(i.clone(), 1)], 0)),
                Dnf::atom(eq(&[(j.clone(), 1)], -2)),
                false,
            ),
        ];
        for (a, b, disjoint) in cases {
            let union = a.clone().or(b.clone()).expect("small");
            let split = a.clone().or_disjoint(b.clone()).expect("small");
            let mut overlaps = 0;
            for p0 in -2..=3 {
                for p1 in -2..=3 {
                    for p2 in -2..=3 {
                        for p3 in -2..=3 {
                            let p = [p0, p1, p2, p3];
                            assert_eq!(holds(&split, &p) > 0, holds(&union, &p) > 0, "{p:?}");
                            if disjoint {
                                assert!(holds(&split, &p) <= 1, "{p:?} in two pieces");
                            }
                            overlaps += usize::from(holds(&union, &p) > 1);
                        }
                    }
                }
            }
            assert!(overlaps > 0, "the plain union overlaps somewhere");
            assert_eq!(split == union, !disjoint);
        }
        // A third, redundant disjunct (`l - j - 2 >= 0` implies `l - j - 1
        // >= 0`): the negation of the first two is one conjunction once
        // its contradictory disjunct (`k <= i` and `k >= i + 1`) is
        // dropped, and the third piece, contradictory too, disappears.
        let first = Dnf::atom(c(&[(k.clone(), 1), (i.clone(), -1)], -1));
        let second = Dnf::atom(c(&[(l.clone(), 1), (j.clone(), -1)], -1));
        let two = first.or_disjoint(second).expect("small");
        let third = Dnf::atom(c(&[(l.clone(), 1), (j.clone(), -1)], -2));
        let three = two.clone().or_disjoint(third).expect("small");
        assert_eq!(three, two);
    }

    #[test]
    fn min_on_the_right_is_a_conjunction() {
        let i = Lin::sym(Sym::Iter(0));
        let n = Lin::sym(Sym::Param("N".into()));
        let m = Lin::sym(Sym::Param("M".into()));
        let d = le(
            &Val::Aff(i.clone()),
            &Val::Min(vec![n.clone(), m.clone()]),
            true,
        )
        .expect("small");
        assert_eq!(d.0.len(), 1);
        assert_eq!(d.0[0].len(), 2);
        let d = le(&Val::Aff(i), &Val::Max(vec![n, m]), true).expect("small");
        assert_eq!(d.0.len(), 2);
    }

    #[test]
    fn integer_types() {
        assert!(is_signed_integer_type_text("int"));
        assert!(is_signed_integer_type_text("long long"));
        assert!(is_signed_integer_type_text("const int"));
        assert!(!is_signed_integer_type_text("unsigned int"));
        assert!(!is_signed_integer_type_text("size_t"));
        assert!(!is_integer_type_text("double"));
        assert!(is_integer_type_text("int64_t"));
    }
}
