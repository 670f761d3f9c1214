//! Why merged storage of a SCoP was not made, as data. Its `Display` is
//! the text the reports print after `inter-array not used:` (through
//! `strategy::inter_array`, which joins the reasons of its attempts).

use std::fmt;

/// Why the merged storage of a SCoP was not made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeError {
    /// A temporary declared outside the blocks of the function.
    OutsideFunction {
        array: String,
    },
    /// The temporaries are declared in different functions.
    DifferentFunctions,
    /// A parameter is defined after the place of the buffers.
    DefinedAfterPlace {
        param: String,
    },
    /// No temporary array in the SCoP.
    NoTemporaryArray,
    /// Parallel iterations (`place` says which loop).
    Parallel {
        place: String,
    },
    /// The known values do not give one value per parameter.
    ValuesPerParameter,
    /// A dataflow source outside the statements that write temporaries.
    SourceOutside,
    /// A temporary whose declaration or declarator is not found.
    DeclarationNotFound {
        array: String,
    },
    DeclaratorNotFound {
        array: String,
    },
    /// A variable of a temporary's extent is written after its declaration.
    ExtentWritten {
        array: String,
        variable: String,
    },
    /// A declaration that declares more, or other types.
    NotPlainDeclaration {
        array: String,
        declaration: String,
    },
    /// An extent of a buffer may be below 1 for the values it is for.
    ExtentBelowOne {
        buffer: String,
    },
    /// An extent of a buffer not proven representable.
    ExtentUnproven {
        buffer: String,
        extent: String,
        why: String,
    },
    /// A compound assignment (`t[i] += ...`) to a temporary.
    CompoundAssignment {
        stmt: String,
    },
    /// A read of a temporary whose value no statement writes.
    NoWriter {
        stmt: String,
        read: usize,
    },
    /// No source piece of a read at an iteration (an internal error: the
    /// dataflow covers every read).
    NoSource {
        stmt: String,
        read: usize,
        at: Vec<i64>,
    },
    /// A new text that could overflow where the original does not.
    Overflow {
        stmt: String,
        text: String,
        why: String,
    },
    /// A failure of a step below (the solver, the dataflow, a budget, an
    /// internal check), in its words.
    Step(String),
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::OutsideFunction { array } => write!(
                f,
                "{array}: declared outside a block of the function, no place encloses every use"
            ),
            MergeError::DifferentFunctions => {
                write!(f, "the merged arrays are declared in different functions")
            }
            MergeError::DefinedAfterPlace { param } => {
                write!(
                    f,
                    "`{param}` is defined after the place of the merged buffers"
                )
            }
            MergeError::NoTemporaryArray => write!(f, "no temporary array"),
            MergeError::Parallel { place } => {
                write!(
                    f,
                    "{place}: merged buffers do not model parallel iterations"
                )
            }
            MergeError::ValuesPerParameter => write!(f, "one value per parameter is needed"),
            MergeError::SourceOutside => {
                write!(f, "a source outside the statements writing temporaries")
            }
            MergeError::DeclarationNotFound { array } => {
                write!(f, "{array}: declaration not found")
            }
            MergeError::DeclaratorNotFound { array } => write!(f, "{array}: declarator not found"),
            MergeError::ExtentWritten { array, variable } => write!(
                f,
                "{array}: `{variable}`, in its extent, is written after the declaration"
            ),
            MergeError::NotPlainDeclaration { array, declaration } => write!(
                f,
                "{array}: not a plain declaration of its own ({declaration})"
            ),
            MergeError::ExtentBelowOne { buffer } => write!(f, "{buffer}: an extent is below 1"),
            MergeError::ExtentUnproven {
                buffer,
                extent,
                why,
            } => write!(f, "{buffer}: the extent `{extent}`: {why}"),
            MergeError::CompoundAssignment { stmt } => {
                write!(f, "{stmt}: compound assignment to a temporary")
            }
            MergeError::NoWriter { stmt, read } => write!(
                f,
                "{stmt} read {read}: no statement writes the value it reads"
            ),
            MergeError::NoSource { stmt, read, at } => {
                write!(f, "no source piece for {stmt} read {read} at {at:?}")
            }
            MergeError::Overflow { stmt, text, why } => write!(
                f,
                "{stmt}: `{text}` could overflow where the original does not: {why}"
            ),
            MergeError::Step(why) => write!(f, "{why}"),
        }
    }
}

impl From<String> for MergeError {
    fn from(why: String) -> MergeError {
        MergeError::Step(why)
    }
}

impl From<&str> for MergeError {
    fn from(why: &str) -> MergeError {
        MergeError::Step(why.to_string())
    }
}

impl From<MergeError> for String {
    fn from(e: MergeError) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::MergeError;

    /// The reasons read as the reports printed them.
    #[test]
    fn reasons_read_as_the_reports_print_them() {
        assert_eq!(
            MergeError::NoWriter {
                stmt: "S1".into(),
                read: 0
            }
            .to_string(),
            "S1 read 0: no statement writes the value it reads"
        );
        assert_eq!(
            MergeError::ExtentUnproven {
                buffer: "polyfold_buf0".into(),
                extent: "N * N".into(),
                why: "may overflow".into()
            }
            .to_string(),
            "polyfold_buf0: the extent `N * N`: may overflow"
        );
        assert_eq!(
            MergeError::Step("no such SCoP".into()).to_string(),
            "no such SCoP"
        );
    }
}
