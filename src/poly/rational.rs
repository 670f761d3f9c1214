//! Exact rational numbers with checked arithmetic.
//!
//! A [`Rat`] holds an `i128` numerator and a positive `i128` denominator,
//! always reduced to lowest terms. Every arithmetic operation is checked and
//! returns [`PolyError::Overflow`] instead of wrapping or panicking.
//! Comparison never overflows (it uses a continued-fraction comparison).
//!
//! This module does NOT provide arbitrary precision: values that do not fit
//! `i128` are reported as overflow, and callers fall back to a safe choice.

use std::cmp::Ordering;
use std::fmt;

use super::error::{PolyError, PolyResult};

/// A reduced fraction `num / den` with `den > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rat {
    num: i128,
    den: i128,
}

/// Greatest common divisor of the absolute values, as an unsigned number
/// (so that `i128::MIN` is handled without overflow). `gcd(0, 0) = 0`.
pub(crate) fn gcd_u128(a: u128, b: u128) -> u128 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        let r = a % b;
        a = b;
        b = r;
    }
    a
}

/// Greatest common divisor of two `i128` values as a non-negative `i128`;
/// overflow only when the result would be `2^127`.
pub(crate) fn gcd_i128(a: i128, b: i128) -> PolyResult<i128> {
    let g = gcd_u128(a.unsigned_abs(), b.unsigned_abs());
    i128::try_from(g).map_err(|_| PolyError::Overflow)
}

impl Rat {
    /// The fraction `num / den`, reduced. A zero denominator is an error
    /// (`PolyError::Solver`), an unrepresentable result is `Overflow`.
    pub fn new(num: i128, den: i128) -> PolyResult<Rat> {
        if den == 0 {
            return Err(PolyError::Solver("rational with zero denominator".into()));
        }
        let g = gcd_i128(num, den)?;
        // g >= 1 because den != 0.
        let mut n = num / g;
        let mut d = den / g;
        if d < 0 {
            n = n.checked_neg().ok_or(PolyError::Overflow)?;
            d = d.checked_neg().ok_or(PolyError::Overflow)?;
        }
        Ok(Rat { num: n, den: d })
    }

    /// The integer `v` as a rational.
    pub fn from_int(v: i64) -> Rat {
        Rat {
            num: v as i128,
            den: 1,
        }
    }

    /// The integer `v` (an `i128`) as a rational.
    pub fn from_i128(v: i128) -> Rat {
        Rat { num: v, den: 1 }
    }

    pub fn zero() -> Rat {
        Rat { num: 0, den: 1 }
    }

    pub fn one() -> Rat {
        Rat { num: 1, den: 1 }
    }

    /// The numerator (carrying the sign).
    pub fn num(&self) -> i128 {
        self.num
    }

    /// The denominator (always positive).
    pub fn den(&self) -> i128 {
        self.den
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.num == 0
    }

    pub(crate) fn is_integer(&self) -> bool {
        self.den == 1
    }

    /// -1, 0 or 1.
    pub(crate) fn signum(&self) -> i32 {
        self.num.signum() as i32
    }

    pub fn checked_add(self, other: Rat) -> PolyResult<Rat> {
        let g = gcd_i128(self.den, other.den)?;
        let lhs = self
            .num
            .checked_mul(other.den / g)
            .ok_or(PolyError::Overflow)?;
        let rhs = other
            .num
            .checked_mul(self.den / g)
            .ok_or(PolyError::Overflow)?;
        let num = lhs.checked_add(rhs).ok_or(PolyError::Overflow)?;
        let den = (self.den / g)
            .checked_mul(other.den)
            .ok_or(PolyError::Overflow)?;
        Rat::new(num, den)
    }

    pub(crate) fn checked_neg(self) -> PolyResult<Rat> {
        Ok(Rat {
            num: self.num.checked_neg().ok_or(PolyError::Overflow)?,
            den: self.den,
        })
    }

    pub(crate) fn checked_sub(self, other: Rat) -> PolyResult<Rat> {
        self.checked_add(other.checked_neg()?)
    }

    pub fn checked_mul(self, other: Rat) -> PolyResult<Rat> {
        let g1 = gcd_i128(self.num, other.den)?.max(1);
        let g2 = gcd_i128(other.num, self.den)?.max(1);
        let num = (self.num / g1)
            .checked_mul(other.num / g2)
            .ok_or(PolyError::Overflow)?;
        let den = (self.den / g2)
            .checked_mul(other.den / g1)
            .ok_or(PolyError::Overflow)?;
        Rat::new(num, den)
    }

    /// `self / other`; dividing by zero is a `PolyError::Solver` error.
    pub fn checked_div(self, other: Rat) -> PolyResult<Rat> {
        if other.num == 0 {
            return Err(PolyError::Solver("rational division by zero".into()));
        }
        let inv = Rat::new(other.den, other.num)?;
        self.checked_mul(inv)
    }

    /// Largest integer `<= self`, as `i64` (overflow when it does not fit).
    pub fn floor(&self) -> PolyResult<i64> {
        let q = self.num.div_euclid(self.den);
        i64::try_from(q).map_err(|_| PolyError::Overflow)
    }

    /// Smallest integer `>= self`, as `i64` (overflow when it does not fit).
    pub(crate) fn ceil(&self) -> PolyResult<i64> {
        let mut q = self.num.div_euclid(self.den);
        if self.num.rem_euclid(self.den) != 0 {
            q += 1; // q <= i128::MAX / 1 - 1 here because the remainder is positive.
        }
        i64::try_from(q).map_err(|_| PolyError::Overflow)
    }

    /// The value as an `i64` when it is an integer that fits.
    pub(crate) fn to_i64(self) -> Option<i64> {
        if self.den == 1 {
            i64::try_from(self.num).ok()
        } else {
            None
        }
    }
}

/// Compares `a/b` with `c/d` (`b, d > 0`) without overflow, by comparing the
/// continued-fraction expansions.
pub(crate) fn cmp_fractions(a: i128, b: i128, c: i128, d: i128) -> Ordering {
    debug_assert!(b > 0 && d > 0);
    let (mut a, mut b, mut c, mut d) = (a, b, c, d);
    // `flip` records that the comparison is currently reversed.
    let mut flip = false;
    loop {
        let qa = a.div_euclid(b);
        let qc = c.div_euclid(d);
        if qa != qc {
            let o = qa.cmp(&qc);
            return if flip { o.reverse() } else { o };
        }
        let ra = a.rem_euclid(b);
        let rc = c.rem_euclid(d);
        let o = match (ra == 0, rc == 0) {
            (true, true) => Some(Ordering::Equal),
            (true, false) => Some(Ordering::Less),
            (false, true) => Some(Ordering::Greater),
            (false, false) => None,
        };
        if let Some(o) = o {
            return if flip { o.reverse() } else { o };
        }
        // ra/b vs rc/d  <=>  reversed(b/ra vs d/rc).
        let (na, nb, nc, nd) = (b, ra, d, rc);
        a = na;
        b = nb;
        c = nc;
        d = nd;
        flip = !flip;
    }
}

impl Ord for Rat {
    fn cmp(&self, other: &Rat) -> Ordering {
        cmp_fractions(self.num, self.den, other.num, other.den)
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, other: &Rat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Rat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::rng::Rng;

    fn r(n: i128, d: i128) -> Rat {
        Rat::new(n, d).expect("valid test fraction")
    }

    #[test]
    fn construction_reduces_and_normalises_sign() {
        assert_eq!(r(6, -4), r(-3, 2));
        assert_eq!(r(-6, -4).num(), 3);
        assert_eq!(r(-6, -4).den(), 2);
        assert_eq!(r(0, -5), Rat::zero());
        assert!(Rat::new(1, 0).is_err());
        assert_eq!(format!("{}", r(3, 7)), "3/7");
        assert_eq!(format!("{}", r(-4, 2)), "-2");
        assert_eq!(format!("{}", r(-1, 3)), "-1/3");
    }

    #[test]
    fn floor_and_ceil_match_hand_values() {
        assert_eq!(r(7, 2).floor(), Ok(3));
        assert_eq!(r(7, 2).ceil(), Ok(4));
        assert_eq!(r(-7, 2).floor(), Ok(-4));
        assert_eq!(r(-7, 2).ceil(), Ok(-3));
        assert_eq!(r(6, 3).floor(), Ok(2));
        assert_eq!(r(6, 3).ceil(), Ok(2));
        assert_eq!(
            Rat::from_i128(1i128 << 70).floor(),
            Err(PolyError::Overflow)
        );
    }

    #[test]
    fn huge_values_overflow_instead_of_wrapping() {
        let big = Rat::from_i128(i128::MAX);
        assert_eq!(big.checked_add(Rat::one()), Err(PolyError::Overflow));
        assert_eq!(big.checked_mul(r(2, 1)), Err(PolyError::Overflow));
        assert_eq!(
            Rat::from_i128(i128::MIN).checked_neg(),
            Err(PolyError::Overflow)
        );
        // Cross-cancellation keeps this exact product representable.
        let a = r(i128::MAX, 3);
        assert_eq!(a.checked_mul(r(3, i128::MAX)), Ok(Rat::one()));
        // Comparison of huge fractions does not overflow.
        assert!(r(i128::MAX, i128::MAX - 1) < r(i128::MAX - 1, i128::MAX - 2));
        assert!(r(i128::MAX - 2, i128::MAX - 1) < r(i128::MAX - 1, i128::MAX));
    }

    /// Random small fractions: the field operations agree with integer
    /// arithmetic on cross-multiplied values, and the order agrees with the
    /// order of `a*d` and `c*b`. `POLYFOLD_PROPTEST_CASES` scales the count.
    #[test]
    fn random_field_identities_and_order() {
        let cases = crate::poly::simplex::proptest_cases(3000);
        let mut rng = Rng::new(0x5a7);
        for _ in 0..cases {
            let a = rng.range(-50, 50) as i128;
            let b = rng.range(1, 50) as i128;
            let c = rng.range(-50, 50) as i128;
            let d = rng.range(1, 50) as i128;
            let x = r(a, b);
            let y = r(c, d);
            assert_eq!(x.checked_add(y), Ok(r(a * d + c * b, b * d)));
            assert_eq!(x.checked_sub(y), Ok(r(a * d - c * b, b * d)));
            assert_eq!(x.checked_mul(y), Ok(r(a * c, b * d)));
            if c != 0 {
                assert_eq!(x.checked_div(y), Ok(r(a * d, b * c)));
            }
            assert_eq!(x.cmp(&y), (a * d).cmp(&(c * b)));
            let fl = x.floor().expect("small");
            assert!(Rat::from_int(fl) <= x && x < Rat::from_int(fl + 1));
            let ce = x.ceil().expect("small");
            assert!(Rat::from_int(ce - 1) < x && x <= Rat::from_int(ce));
        }
    }
}
