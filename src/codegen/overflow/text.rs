//! The values of a printed C expression, read back from its text: each
//! operation's result must be proven representable in its frame (see the
//! parent module). This is the check of the code generators' texts
//! (new subscripts, extents, rotating indices' starts and updates,
//! merged buffers' offsets), whatever form they chose.
//!
//! An operand is a range `[min lows, max highs]` of affine rows over the
//! frame's columns: an affine expression is its own low and high; `e % b`
//! (`b > 0`) lies in `[1 - b, b - 1]` (`[0, b - 1]` for `e >= 0`), `e / k`
//! between `0` and `e`, `e & m` in `[0, m]`, a comparison in `[0, 1]`, a
//! conditional in the union of its branches' ranges (each branch checked
//! wherever the frame holds, which asks more than C evaluates). A product
//! of two variable operands is bounded by the products of their constant
//! bounds in the frame (found by exact emptiness tests), or not proven.
//!
//! What it reads: integer literals, names ([`Name`]), `( )`, unary `-`
//! and `!`, `&` and `*` of an element, casts `(long long)`, `* / %`, `+ -`, `< <= > >= == !=`, `&`, `&& ||`, `? :`, and
//! subscripts `a[e]` (each subscript checked; the element is opaque).
//! Anything else is not proven.

use super::{Frame, IntType, proven_empty, widened};
use crate::util::c_text::{TokenKind, tokens};

/// What a name of a printed expression is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Name {
    /// A column of the frame (a parameter, an iterator).
    Column(usize),
    /// A variable whose value lies in `[low, high]` (rows over the
    /// frame's columns and the constant), of type `ty`: a rotating index.
    Bounded {
        low: Vec<i64>,
        high: Vec<i64>,
        ty: IntType,
    },
    /// An array (only subscripted) or a value no arithmetic may use.
    Opaque,
}

/// A value of the expression (see the module doc).
#[derive(Clone, Debug)]
struct Value {
    /// The bounds are `row / den`.
    den: i64,
    lows: Vec<Vec<i64>>,
    highs: Vec<Vec<i64>>,
    types: Vec<IntType>,
    /// An opaque name: only a subscripted array or a lone operand.
    opaque: bool,
    /// For a condition: rows (each `>= 0`) that hold exactly where it is
    /// true (a comparison of affine values, or a conjunction of them).
    holds: Option<Vec<Vec<i64>>>,
}

/// Why a printed expression is not proven.
pub(crate) type Unproven = String;

/// Checks every value the C expression `text` computes in `frame`, with
/// `names` telling what each identifier is.
pub(crate) fn expression_fits(
    frame: &Frame,
    text: &str,
    names: &dyn Fn(&str) -> Option<Name>,
) -> Result<(), Unproven> {
    check(frame, text, names).map_err(|(why, _)| why)
}

/// [`expression_fits`], and on failure where the chain of arithmetic
/// that failed starts (its first operand, a name or a number: where a
/// cast to `long long` goes), if it starts with one.
fn check(
    frame: &Frame,
    text: &str,
    names: &dyn Fn(&str) -> Option<Name>,
) -> Result<(), (Unproven, Option<usize>)> {
    let ranges = tokens(text);
    let toks: Vec<(String, TokenKind)> = ranges
        .iter()
        .map(|(r, k)| (text[r.clone()].to_string(), k.clone()))
        .collect();
    let starts: Vec<usize> = ranges.iter().map(|(r, _)| r.start).collect();
    let mut p = Parser {
        frames: Vec::new(),
        base: frame,
        names,
        toks: &toks,
        starts: &starts,
        at: 0,
        chains: Vec::new(),
        failed_at: std::cell::Cell::new(None),
    };
    let result = p.conditional();
    let failed_at = p.failed_at.get();
    result.map_err(|why| (why, failed_at))?;
    if p.at != toks.len() {
        return Err((
            format!("`{text}` is not an expression polyfold reads"),
            None,
        ));
    }
    Ok(())
}

/// `text` itself when [`expression_fits`] proves it; otherwise with the
/// chains of arithmetic that fail computed in `long long` (their first
/// operand cast: `(long long)n + t - i + 1`), one at a time, when that is
/// proven: a chain of values of `int` with small coefficients cannot
/// overflow 64 bits. The first reason otherwise.
pub(crate) fn proven_text(
    frame: &Frame,
    text: &str,
    names: &dyn Fn(&str) -> Option<Name>,
) -> Result<String, Unproven> {
    let mut current = text.to_string();
    let mut first: Option<Unproven> = None;
    for _ in 0..16 {
        match check(frame, &current, names) {
            Ok(()) => return Ok(current),
            Err((why, at)) => {
                let why = first.get_or_insert(why).clone();
                let Some(at) = at else {
                    return Err(why);
                };
                if current[..at].ends_with("(long long)") {
                    return Err(why);
                }
                current.insert_str(at, "(long long)");
            }
        }
    }
    Err(first.unwrap_or_default())
}

struct Parser<'a> {
    /// The frame, and the frames of the branches of conditionals
    /// entered (restricted by their conditions), innermost last.
    frames: Vec<Frame>,
    base: &'a Frame,
    names: &'a dyn Fn(&str) -> Option<Name>,
    toks: &'a [(String, TokenKind)],
    /// The byte offset of each token.
    starts: &'a [usize],
    at: usize,
    /// Per chain of arithmetic entered, where its first operand starts
    /// (when it is a name or a number), innermost last.
    chains: Vec<Option<usize>>,
    /// Where the chain that failed starts.
    failed_at: std::cell::Cell<Option<usize>>,
}

type Res = Result<Value, Unproven>;

impl Parser<'_> {
    /// The frame where the current operand is evaluated.
    fn frame(&self) -> &Frame {
        self.frames.last().unwrap_or(self.base)
    }

    fn peek(&self) -> &str {
        self.toks.get(self.at).map_or("", |(t, _)| t.as_str())
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.peek() == t {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn width(&self) -> usize {
        self.frame().n_cols() + 1
    }

    fn constant(&self, v: i64, types: Vec<IntType>) -> Value {
        let mut row = vec![0i64; self.width()];
        row[self.width() - 1] = v;
        Value {
            den: 1,
            lows: vec![row.clone()],
            highs: vec![row],
            types,
            opaque: false,
            holds: None,
        }
    }

    fn flag(&self) -> Value {
        let mut v = self.constant(0, vec![IntType::Int]);
        v.highs[0][self.width() - 1] = 1;
        v
    }

    /// Every low and high fits the value's types.
    fn checked(&self, v: Value, what: &str) -> Res {
        for row in v.lows.iter().chain(&v.highs) {
            if !self.frame().fits_scaled(row, v.den, &v.types) {
                if self.failed_at.get().is_none() {
                    self.failed_at.set(self.chains.last().copied().flatten());
                }
                let ty = v.types.iter().max().cloned().unwrap_or(IntType::Int);
                return Err(format!(
                    "{what} is not proven within the range of `{}`",
                    ty.name()
                ));
            }
        }
        Ok(v)
    }

    fn conditional(&mut self) -> Res {
        let c = self.logical()?;
        if !self.eat("?") {
            return Ok(c);
        }
        // Each branch where it is evaluated: the first where the
        // condition holds, the second where one row of it fails (when it
        // has one row; everywhere otherwise).
        let restricted = |frame: &Frame, rows: &[Vec<i64>]| -> Frame {
            let mut f = frame.clone();
            for r in rows {
                f.restrict(r);
            }
            f
        };
        let then_frame = restricted(self.frame(), c.holds.as_deref().unwrap_or(&[]));
        self.frames.push(then_frame);
        let a = self.conditional();
        self.frames.pop();
        let a = a?;
        if !self.eat(":") {
            return Err("a conditional without `:`".into());
        }
        let negated: Vec<Vec<i64>> = match c.holds.as_deref() {
            Some([row]) => {
                let mut r: Vec<i64> = row.iter().map(|v| v.saturating_neg()).collect();
                let w = r.len();
                r[w - 1] = r[w - 1].saturating_sub(1);
                vec![r]
            }
            _ => Vec::new(),
        };
        let else_frame = restricted(self.frame(), &negated);
        self.frames.push(else_frame);
        let b = self.conditional();
        self.frames.pop();
        Ok(union(a, b?))
    }

    fn logical(&mut self) -> Res {
        let mut v = self.bit_and()?;
        while self.peek() == "&&" || self.peek() == "||" {
            let and = self.peek() == "&&";
            self.at += 1;
            // The right side of `&&` is evaluated where the left holds.
            let frame = match (and, v.holds.as_deref()) {
                (true, Some(rows)) => {
                    let mut f = self.frame().clone();
                    for r in rows {
                        f.restrict(r);
                    }
                    Some(f)
                }
                _ => None,
            };
            let pushed = frame.is_some();
            if let Some(f) = frame {
                self.frames.push(f);
            }
            let w = self.bit_and();
            if pushed {
                self.frames.pop();
            }
            let w = w?;
            let holds = match (and, v.holds.take(), w.holds) {
                (true, Some(mut a), Some(b)) => {
                    a.extend(b);
                    Some(a)
                }
                _ => None,
            };
            v = self.flag();
            v.holds = holds;
        }
        Ok(v)
    }

    fn bit_and(&mut self) -> Res {
        let mut v = self.comparison()?;
        while self.eat("&") {
            let m = self.comparison()?;
            let Some(mask) = constant_of(&m).filter(|m| *m >= 0) else {
                return Err("a mask that is not a number".into());
            };
            let _ = v;
            v = self.constant(0, vec![IntType::Int]);
            v.highs[0][self.width() - 1] = mask;
        }
        Ok(v)
    }

    fn comparison(&mut self) -> Res {
        let mut v = self.additive()?;
        let mut first = true;
        while matches!(self.peek(), "<" | "<=" | ">" | ">=" | "==" | "!=") {
            let op = self.peek().to_string();
            self.at += 1;
            let other = self.additive()?;
            if v.opaque || other.opaque {
                return Err("a comparison of an opaque value".into());
            }
            // `a OP b` of two affine values (one row each, no
            // denominator): the rows that hold exactly where it is true.
            let holds = match (first, exact_row(&v), exact_row(&other)) {
                (true, Some(a), Some(b)) => {
                    let d: Vec<i64> = a
                        .iter()
                        .zip(&b)
                        .map(|(x, y)| x.saturating_sub(*y))
                        .collect();
                    let neg: Vec<i64> = d.iter().map(|x| x.saturating_neg()).collect();
                    let minus_one = |mut r: Vec<i64>| {
                        let w = r.len();
                        r[w - 1] = r[w - 1].saturating_sub(1);
                        r
                    };
                    match op.as_str() {
                        ">=" => Some(vec![d]),
                        ">" => Some(vec![minus_one(d)]),
                        "<=" => Some(vec![neg]),
                        "<" => Some(vec![minus_one(neg)]),
                        "==" => Some(vec![d, neg]),
                        _ => None,
                    }
                }
                _ => None,
            };
            first = false;
            v = self.flag();
            v.holds = holds;
        }
        Ok(v)
    }

    fn additive(&mut self) -> Res {
        // Where this chain's first operand starts.
        let mut k = self.at;
        while matches!(self.toks.get(k).map(|(t, _)| t.as_str()), Some("-" | "+")) {
            k += 1;
        }
        let first = match self.toks.get(k) {
            Some((_, TokenKind::Ident | TokenKind::Int(_))) => self.starts.get(k).copied(),
            _ => None,
        };
        self.chains.push(first);
        let v = self.additive_chain();
        self.chains.pop();
        v
    }

    fn additive_chain(&mut self) -> Res {
        let mut v = self.multiplicative()?;
        loop {
            let minus = match self.peek() {
                "+" => false,
                "-" => true,
                _ => return Ok(v),
            };
            self.at += 1;
            let other = self.multiplicative()?;
            if v.opaque || other.opaque {
                return Err("arithmetic on an opaque value".into());
            }
            let other = if minus { negate(other) } else { other };
            v = self.checked(sum(&v, &other), "a sum")?;
        }
    }

    fn multiplicative(&mut self) -> Res {
        let mut v = self.unary()?;
        loop {
            let op = self.peek().to_string();
            if !matches!(op.as_str(), "*" | "/" | "%") {
                return Ok(v);
            }
            self.at += 1;
            let other = self.unary()?;
            if v.opaque || other.opaque {
                return Err("arithmetic on an opaque value".into());
            }
            v = match op.as_str() {
                "*" => self.product(&v, &other)?,
                "/" => {
                    let Some(k) = constant_of(&other).filter(|k| *k > 0) else {
                        return Err("a division by something else than a positive number".into());
                    };
                    // C truncates: |e / k - q| < 1, so q lies in
                    // [(e - k + 1) / k, (e + k - 1) / k] (`e / k` above
                    // for `e >= 0`).
                    let non_negative = v.lows.iter().all(|low| {
                        self.frame()
                            .pieces
                            .iter()
                            .all(|p| nonneg_everywhere(p, low))
                    });
                    let den = v.den.checked_mul(k).ok_or("overflow")?;
                    let slack = (k - 1).checked_mul(v.den).ok_or("overflow")?;
                    let w = self.width();
                    let shift = |rows: &[Vec<i64>], by: i64| -> Vec<Vec<i64>> {
                        rows.iter()
                            .map(|r| {
                                let mut r = r.clone();
                                r[w - 1] = r[w - 1].saturating_add(by);
                                r
                            })
                            .collect()
                    };
                    Value {
                        den,
                        lows: shift(&v.lows, -slack),
                        highs: if non_negative {
                            v.highs.clone()
                        } else {
                            shift(&v.highs, slack)
                        },
                        types: v.types.clone(),
                        opaque: false,
                        holds: None,
                    }
                }
                _ => self.remainder(&v, &other)?,
            };
        }
    }

    /// `a % b` for `b > 0` (proven): `[1 - b, b - 1]`, `[0, b - 1]` when
    /// `a >= 0`.
    fn remainder(&self, a: &Value, b: &Value) -> Res {
        let w = self.width();
        let den = b.den;
        for low in &b.lows {
            // b >= 1: b is an integer, so low / den > 0 (low - 1 >= 0)
            // is enough.
            let mut r = low.clone();
            r[w - 1] = r[w - 1].checked_sub(1).ok_or("overflow")?;
            if !self.frame().pieces.iter().all(|p| nonneg_everywhere(p, &r)) {
                return Err("a modulus not proven positive".into());
            }
        }
        let non_negative = a.lows.iter().all(|low| {
            self.frame()
                .pieces
                .iter()
                .all(|p| nonneg_everywhere(p, low))
        });
        let mut highs = Vec::new();
        let mut lows = Vec::new();
        for h in &b.highs {
            let mut r = h.clone();
            r[w - 1] = r[w - 1].checked_sub(den).ok_or("overflow")?;
            let neg: Vec<i64> = r.iter().map(|v| v.saturating_neg()).collect();
            highs.push(r);
            lows.push(neg);
        }
        if non_negative {
            lows = vec![vec![0i64; w]];
        }
        let mut types = a.types.clone();
        for t in &b.types {
            if !types.contains(t) {
                types.push(t.clone());
            }
        }
        self.checked(
            Value {
                den,
                lows,
                highs,
                types,
                opaque: false,
                holds: None,
            },
            "a remainder",
        )
    }

    /// `a * b`: by a number, exact; of two variables, by the products of
    /// their constant bounds.
    fn product(&self, a: &Value, b: &Value) -> Res {
        let mut types = a.types.clone();
        for t in &b.types {
            if !types.contains(t) {
                types.push(t.clone());
            }
        }
        let (value, k) = match (constant_of(a), constant_of(b)) {
            (_, Some(k)) => (a, k),
            (Some(k), None) => (b, k),
            (None, None) => {
                let (alo, ahi) = self
                    .constant_bounds(a)
                    .ok_or("a product of two variables")?;
                let (blo, bhi) = self
                    .constant_bounds(b)
                    .ok_or("a product of two variables")?;
                let corners = [alo * blo, alo * bhi, ahi * blo, ahi * bhi];
                // (The bounds are within 2^31: no overflow.)
                let lo = *corners.iter().min().unwrap_or(&0);
                let hi = *corners.iter().max().unwrap_or(&0);
                let mut v = self.constant(lo, types);
                v.highs[0][self.width() - 1] = hi;
                return self.checked(v, "a product");
            }
        };
        let scale = |rows: &[Vec<i64>]| -> Option<Vec<Vec<i64>>> {
            rows.iter()
                .map(|r| r.iter().map(|x| x.checked_mul(k)).collect())
                .collect()
        };
        let (lows, highs) = (scale(&value.lows), scale(&value.highs));
        let (Some(lows), Some(highs)) = (lows, highs) else {
            return Err("a product too large".into());
        };
        let (lows, highs) = if k < 0 { (highs, lows) } else { (lows, highs) };
        self.checked(
            Value {
                den: value.den,
                lows,
                highs,
                types,
                opaque: false,
                holds: None,
            },
            "a product",
        )
    }

    /// Constant bounds of a value in the frame, each within `±2^31`
    /// (binary search with exact emptiness tests).
    fn constant_bounds(&self, v: &Value) -> Option<(i64, i64)> {
        let limit = 1i64 << 31;
        let mut lo = i64::MAX;
        for row in &v.lows {
            // -(upper bound of -row) / den, rounded down.
            let b = bound_of(self.frame(), &negated(row)?, limit.checked_mul(v.den)?)?;
            lo = lo.min(crate::poly::constraints::floor_div(-b, v.den));
        }
        let mut hi = i64::MIN;
        for row in &v.highs {
            let b = bound_of(self.frame(), row, limit.checked_mul(v.den)?)?;
            hi = hi.max(crate::poly::constraints::ceil_div(b, v.den).ok()?);
        }
        Some((lo, hi))
    }

    fn unary(&mut self) -> Res {
        if self.eat("-") {
            let v = self.unary()?;
            if v.opaque {
                return Err("arithmetic on an opaque value".into());
            }
            return self.checked(negate(v), "a negation");
        }
        if self.eat("+") {
            return self.unary();
        }
        if self.eat("!") {
            self.unary()?;
            return Ok(self.flag());
        }
        // `(long long)x`: the value in 64 bits (see [`proven_text`]).
        let word = |k: usize| self.toks.get(self.at + k).map_or("", |(t, _)| t.as_str());
        if word(0) == "(" && word(1) == "long" && word(2) == "long" && word(3) == ")" {
            self.at += 4;
            let mut v = self.unary()?;
            if v.opaque {
                return Err("a cast of an opaque value".into());
            }
            v.types = vec![IntType::LongLong];
            v.holds = None;
            return Ok(v);
        }
        if self.peek() == "&" || self.peek() == "*" {
            // An address, or what it points to: of an element only.
            self.at += 1;
            let v = self.unary()?;
            if !v.opaque {
                return Err("an address of a value".into());
            }
            return Ok(v);
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Res {
        let mut v = self.primary()?;
        while self.eat("[") {
            self.conditional()?;
            if !self.eat("]") {
                return Err("an unclosed subscript".into());
            }
            v = Value {
                opaque: true,
                ..self.constant(0, Vec::new())
            };
        }
        Ok(v)
    }

    fn primary(&mut self) -> Res {
        let Some((text, kind)) = self.toks.get(self.at).cloned() else {
            return Err("an expression ends too early".into());
        };
        self.at += 1;
        match kind {
            TokenKind::Int(v) => Ok(self.constant(v, vec![IntType::of_constant(v)])),
            TokenKind::Punct if text == "(" => {
                let v = self.conditional()?;
                if !self.eat(")") {
                    return Err("an unclosed parenthesis".into());
                }
                Ok(v)
            }
            TokenKind::Ident => match (self.names)(&text) {
                Some(Name::Column(c)) if c < self.frame().n_cols() => {
                    let mut row = vec![0i64; self.width()];
                    row[c] = 1;
                    Ok(Value {
                        den: 1,
                        lows: vec![row.clone()],
                        highs: vec![row],
                        types: vec![self.frame().types[c].promoted()],
                        opaque: false,
                        holds: None,
                    })
                }
                Some(Name::Bounded { low, high, ty }) if low.len() == self.width() => Ok(Value {
                    den: 1,
                    lows: vec![low],
                    highs: vec![high],
                    types: vec![ty.promoted()],
                    opaque: false,
                    holds: None,
                }),
                Some(Name::Opaque) => Ok(Value {
                    opaque: true,
                    ..self.constant(0, Vec::new())
                }),
                _ => Err(format!("`{text}` is not a name polyfold knows here")),
            },
            _ => Err(format!("`{text}` is not read by the check")),
        }
    }
}

/// The one row of an affine value (no denominator, one low equal to its
/// one high).
fn exact_row(v: &Value) -> Option<Vec<i64>> {
    match (v.den, v.lows.as_slice(), v.highs.as_slice()) {
        (1, [low], [high]) if low == high => Some(low.clone()),
        _ => None,
    }
}

/// The number a value is, if it is one.
fn constant_of(v: &Value) -> Option<i64> {
    if v.den != 1 {
        return None;
    }
    let [low] = v.lows.as_slice() else {
        return None;
    };
    let [high] = v.highs.as_slice() else {
        return None;
    };
    let w = low.len();
    (low == high && low[..w - 1].iter().all(|c| *c == 0)).then_some(low[w - 1])
}

fn negated(row: &[i64]) -> Option<Vec<i64>> {
    row.iter().map(|v| v.checked_neg()).collect()
}

fn negate(v: Value) -> Value {
    let flip = |rows: Vec<Vec<i64>>| -> Vec<Vec<i64>> {
        rows.into_iter()
            .map(|r| r.iter().map(|x| x.saturating_neg()).collect())
            .collect()
    };
    Value {
        den: v.den,
        lows: flip(v.highs),
        highs: flip(v.lows),
        types: v.types,
        opaque: v.opaque,
        holds: None,
    }
}

/// `a` and `b` over a common denominator.
fn common(a: &Value, b: &Value) -> (Value, Value) {
    let g = gcd(a.den, b.den);
    let l = a.den / g * b.den;
    let scale = |v: &Value, by: i64| -> Value {
        let rows = |rs: &[Vec<i64>]| -> Vec<Vec<i64>> {
            rs.iter()
                .map(|r| r.iter().map(|x| x.saturating_mul(by)).collect())
                .collect()
        };
        Value {
            den: v.den.saturating_mul(by),
            lows: rows(&v.lows),
            highs: rows(&v.highs),
            types: v.types.clone(),
            opaque: v.opaque,
            holds: None,
        }
    };
    (scale(a, l / a.den), scale(b, l / b.den))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a.max(1) } else { gcd(b, a % b) }
}

fn sum(a: &Value, b: &Value) -> Value {
    let (a, b) = common(a, b);
    let add = |xs: &[Vec<i64>], ys: &[Vec<i64>]| -> Vec<Vec<i64>> {
        let mut out = Vec::new();
        for x in xs {
            for y in ys {
                let r: Vec<i64> = x.iter().zip(y).map(|(p, q)| p.saturating_add(*q)).collect();
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
        out
    };
    let mut types = a.types.clone();
    for t in &b.types {
        if !types.contains(t) {
            types.push(t.clone());
        }
    }
    Value {
        den: a.den,
        lows: add(&a.lows, &b.lows),
        highs: add(&a.highs, &b.highs),
        types,
        opaque: false,
        holds: None,
    }
}

fn union(a: Value, b: Value) -> Value {
    let (mut v, b) = common(&a, &b);
    for r in b.lows {
        if !v.lows.contains(&r) {
            v.lows.push(r);
        }
    }
    for r in b.highs {
        if !v.highs.contains(&r) {
            v.highs.push(r);
        }
    }
    for t in b.types {
        if !v.types.contains(&t) {
            v.types.push(t);
        }
    }
    v.opaque |= b.opaque;
    v.holds = None;
    v
}

/// Whether `row >= 0` at every point of `piece`.
fn nonneg_everywhere(piece: &crate::poly::BasicSet, row: &[i64]) -> bool {
    let mut p = piece.clone();
    let mut r: Vec<i64> = row.iter().map(|v| v.saturating_neg()).collect();
    let w = r.len();
    r[w - 1] = r[w - 1].saturating_sub(1);
    p.add_ineq(widened(&r, piece));
    proven_empty(&p)
}

/// The least `d` in `[-limit, limit]` with `row <= d` at every point of
/// the frame (`None` when there is none in the range).
fn bound_of(frame: &Frame, row: &[i64], limit: i64) -> Option<i64> {
    let below = |d: i64| -> bool {
        frame.pieces.iter().all(|p| {
            let mut r = row.to_vec();
            let w = r.len();
            // row - d - 1 >= 0 empty.
            r[w - 1] = r[w - 1].saturating_sub(d).saturating_sub(1);
            let mut q = p.clone();
            q.add_ineq(widened(&r, p));
            proven_empty(&q)
        })
    };
    if !below(limit) {
        return None;
    }
    let (mut lo, mut hi) = (-limit, limit);
    if below(lo) {
        return Some(lo);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if below(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}
