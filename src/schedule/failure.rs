//! Why a changed schedule was not accepted: the exact checks of the
//! fused, re-scheduled or split text ([`super::check::check_fused`],
//! [`super::nest::order_kept`], [`super::split::check_split`]) and the
//! trace check of a fused program against the original
//! ([`super::trace::same_values`]). Its `Display` is the text `polyfold
//! verify` prints after `WRONG:`.

use crate::poly::PolyError;

/// Why a changed schedule is not the original's computation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The fused SCoP has another number of statements than were printed.
    StatementCount { fused: usize, printed: usize },
    /// The fused SCoP has other parameters.
    OtherParameters,
    /// An origin names no statement of the original.
    NoSuchStatement,
    /// An origin of statement `0` has another number of iterators.
    OriginLength(String),
    /// Statement `stmt` read back as `copy`, with other accesses.
    ReadBackAs {
        stmt: String,
        copy: String,
        why: Box<Failure>,
    },
    /// The copy's iterations of this statement are not determined.
    NotDetermined(String),
    /// This statement is not in the fused SCoP.
    NotInFused(String),
    /// Two copies of this statement run one instance.
    TwoCopies(String),
    /// The copies of this statement do not run its instances.
    NotItsInstances(String),
    /// A domain's parameters differ from the context's.
    ContextParameters,
    /// The copy has other quotients.
    OtherQuotients,
    /// The copy has other accesses.
    OtherAccesses,
    /// A subscript of the copy uses other parameters.
    SubscriptParameters,
    /// Composing a subscript with its origin overflows.
    Overflow,
    /// An access of this array has another subscript.
    OtherSubscript(String),
    /// An exact set operation failed.
    Poly(PolyError),
    /// The origins do not match the statements.
    OriginsMismatch,
    /// An origin of this statement has another shape.
    OriginShape(String),
    /// A pair of statements could not be compared.
    NotCompared,
    /// Statement `later` now runs before `earlier` where they touch one
    /// cell.
    RunsBefore { later: String, earlier: String },
    /// The split SCoP has other parameters or statements.
    SplitShape,
    /// This statement of the split SCoP is not the original statement.
    NotOriginalStatement(String),
    /// This statement of the split SCoP has other accesses.
    SplitAccesses(String),
    /// Access `access` of statement `stmt` is not the original one renamed.
    NotRenamed { stmt: String, access: usize },
    /// An iteration of this statement overflows.
    IterationOverflows(String),
    /// Statement `stmt` runs `iteration` twice.
    RunsTwice { stmt: String, iteration: Vec<i64> },
    /// A parameter of the fused SCoP is not the original's.
    ParameterNotOriginal(String),
    /// The fused program runs another number of instances.
    InstanceCount { fused: usize, original: usize },
    /// Statement `stmt` (original index) at `iteration` reads another value
    /// with its read `read`.
    ReadsAnother {
        stmt: usize,
        iteration: Vec<i64>,
        read: usize,
    },
    /// Two arrays of the fused program hold this cell.
    TwoArraysHold(Vec<i64>),
    /// The fused program leaves other values in memory.
    OtherValuesInMemory,
    /// Statement `stmt` at `iteration` runs in another order with a call
    /// and memory it may touch (`with: None`), or with the accesses of two
    /// parameters that may overlap.
    OtherOrder {
        stmt: usize,
        iteration: Vec<i64>,
        with: Option<(String, String)>,
    },
}

impl From<PolyError> for Failure {
    fn from(e: PolyError) -> Self {
        Failure::Poly(e)
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use Failure::*;
        match self {
            StatementCount { fused, printed } => write!(
                f,
                "the fused SCoP has {fused} statements where {printed} were printed"
            ),
            OtherParameters => f.write_str("the fused SCoP has other parameters"),
            NoSuchStatement => f.write_str("an origin names no statement"),
            OriginLength(s) => write!(f, "{s}: an origin of another length"),
            ReadBackAs { stmt, copy, why } => write!(f, "{stmt} read back as {copy}: {why}"),
            NotDetermined(s) => write!(f, "{s}: the copy's iterations are not determined"),
            NotInFused(s) => write!(f, "{s} is not in the fused SCoP"),
            TwoCopies(s) => write!(f, "two copies of {s} run one instance"),
            NotItsInstances(s) => write!(f, "the copies of {s} do not run its instances"),
            ContextParameters => f.write_str("parameters differ from the context's"),
            OtherQuotients => f.write_str("other quotients"),
            OtherAccesses => f.write_str("other accesses"),
            SubscriptParameters => f.write_str("other parameters"),
            Overflow => f.write_str("an overflow"),
            OtherSubscript(a) => write!(f, "an access of `{a}` has another subscript"),
            Poly(e) => write!(f, "{e}"),
            OriginsMismatch => f.write_str("the origins do not match the statements"),
            OriginShape(s) => write!(f, "{s}: an origin of another shape"),
            NotCompared => f.write_str("a pair of statements could not be compared"),
            RunsBefore { later, earlier } => write!(
                f,
                "{later} now runs before {earlier} where they touch one cell"
            ),
            SplitShape => f.write_str("the split SCoP has other parameters or statements"),
            NotOriginalStatement(s) => write!(f, "{s} is not the original statement"),
            SplitAccesses(s) => write!(f, "{s} has other accesses"),
            NotRenamed { stmt, access } => {
                write!(f, "{stmt}: access {access} is not the original one renamed")
            }
            IterationOverflows(s) => write!(f, "{s}: an iteration overflows"),
            RunsTwice { stmt, iteration } => write!(f, "{stmt} runs iteration {iteration:?} twice"),
            ParameterNotOriginal(p) => write!(f, "parameter `{p}` is not the original's"),
            InstanceCount { fused, original } => write!(
                f,
                "the fused program runs {fused} instances where the original runs {original}"
            ),
            ReadsAnother {
                stmt,
                iteration,
                read,
            } => write!(
                f,
                "S{stmt} at {iteration:?} reads another value with its read {read}"
            ),
            TwoArraysHold(at) => write!(f, "two arrays of the fused program hold cell {at:?}"),
            OtherValuesInMemory => f.write_str("the fused program leaves other values in memory"),
            OtherOrder {
                stmt,
                iteration,
                with,
            } => {
                write!(f, "S{stmt} at {iteration:?} runs in another order with ")?;
                match with {
                    None => f.write_str("a call and memory it may touch"),
                    Some((x, y)) => write!(f, "`{x}` and `{y}`, which may overlap"),
                }
            }
        }
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_read_as_verify_printed_them() {
        // The sentences `polyfold verify` printed before the failures
        // were typed.
        assert_eq!(
            Failure::ReadsAnother {
                stmt: 1,
                iteration: vec![3],
                read: 0
            }
            .to_string(),
            "S1 at [3] reads another value with its read 0"
        );
        assert_eq!(
            Failure::OtherOrder {
                stmt: 0,
                iteration: vec![2, 5],
                with: Some(("a".into(), "b".into()))
            }
            .to_string(),
            "S0 at [2, 5] runs in another order with `a` and `b`, which may overlap"
        );
        assert_eq!(
            Failure::ReadBackAs {
                stmt: "S0".into(),
                copy: "S3".into(),
                why: Box::new(Failure::OtherSubscript("A".into()))
            }
            .to_string(),
            "S0 read back as S3: an access of `A` has another subscript"
        );
    }
}
