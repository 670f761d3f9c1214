//! Why the pipeline produced no output for a file. Each is a bug of
//! polyfold, not of the input: the driver reports it as an internal
//! error and leaves the file as it was.

use crate::codegen::EditError;

/// Why the pipeline produced no output for a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Code generation found no declarator for an array whose storage it
    /// changes.
    NoDeclarator(String),
    /// The edits of the output overlap or leave the text.
    Edits(EditError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NoDeclarator(array) => {
                write!(f, "internal error: no declarator for `{array}`")
            }
            Error::Edits(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<EditError> for Error {
    fn from(e: EditError) -> Self {
        Error::Edits(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_reads_as_the_report_printed_it() {
        // The text the driver printed before errors were typed.
        assert_eq!(
            Error::NoDeclarator("tmp".into()).to_string(),
            "internal error: no declarator for `tmp`"
        );
    }
}
