//! Errors of the polyhedral core.

use std::fmt;

/// What can go wrong in exact polyhedral arithmetic.
///
/// None of these is a wrong answer: callers that need an answer fall back to a
/// safe choice (for instance, leave an array alone) when they see one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolyError {
    /// An intermediate value did not fit the integer type.
    Overflow,
    /// A computation ran out of its budget (steps or time).
    Budget,
    /// Two operands live in incompatible spaces.
    SpaceMismatch(String),
    /// Text in isl notation could not be parsed.
    Parse { offset: usize, message: String },
    /// A solver failed for a reason other than infeasibility or budget.
    Solver(String),
}

pub type PolyResult<T> = Result<T, PolyError>;

impl fmt::Display for PolyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolyError::Overflow => write!(f, "integer overflow in exact arithmetic"),
            PolyError::Budget => write!(f, "computation budget exhausted"),
            PolyError::SpaceMismatch(what) => write!(f, "space mismatch: {what}"),
            PolyError::Parse { offset, message } => {
                write!(f, "isl parse error at offset {offset}: {message}")
            }
            PolyError::Solver(what) => write!(f, "solver error: {what}"),
        }
    }
}

impl std::error::Error for PolyError {}

/// Checked `a + b`.
#[inline]
pub fn add(a: i64, b: i64) -> PolyResult<i64> {
    a.checked_add(b).ok_or(PolyError::Overflow)
}

/// Checked `a - b`.
#[inline]
pub fn sub(a: i64, b: i64) -> PolyResult<i64> {
    a.checked_sub(b).ok_or(PolyError::Overflow)
}

/// Checked `a * b`.
#[inline]
pub(crate) fn mul(a: i64, b: i64) -> PolyResult<i64> {
    a.checked_mul(b).ok_or(PolyError::Overflow)
}

/// Checked negation.
#[inline]
pub fn neg(a: i64) -> PolyResult<i64> {
    a.checked_neg().ok_or(PolyError::Overflow)
}
