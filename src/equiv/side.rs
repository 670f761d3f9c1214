//! One file of `polyfold equiv`: its text, its SCoPs and macros (the
//! front end's), and its syntax tree.

use std::path::Path;
use std::sync::Arc;

use crate::driver::{Message, Messages, RunOptions, SourceFile};
use crate::frontend::syntax::{Function, SyntaxFile};
use crate::ir::Program;

/// One file, read and parsed.
pub(crate) struct Side {
    pub shown: String,
    pub source: String,
    pub program: Program,
    pub syntax: SyntaxFile,
}

/// Reads and parses the file at `path`; the messages of what failed.
pub(crate) fn read_side(path: &Path, options: &RunOptions) -> Result<Side, Messages> {
    let shown = path.display().to_string();
    let source = crate::driver::read_source(path).map_err(|m| Messages::new().with(m))?;
    side_of(shown, source, options)
}

/// Parses `source` (shown as `shown`).
pub(crate) fn side_of(
    shown: String,
    source: String,
    options: &RunOptions,
) -> Result<Side, Messages> {
    let program = crate::frontend::extract(
        &shown,
        &source,
        &crate::frontend::Options {
            defines: options.defines.clone(),
            macros: options.macros.clone(),
            include_dirs: options.include_dirs.clone(),
        },
    );
    if program.has_errors() {
        let file = Arc::new(SourceFile {
            name: shown.clone(),
            text: source.as_str().into(),
        });
        let mut messages = Messages::new();
        for d in &program.diagnostics {
            if d.severity() == crate::diag::Severity::Error {
                messages.push(Message::Diagnostic {
                    file: file.clone(),
                    diagnostic: Box::new(d.clone()),
                });
            }
        }
        return Err(messages.with(Message::error(format!(
            "{shown} does not parse: equiv cannot compare it"
        ))));
    }
    let syntax = crate::frontend::syntax::parse_file(&source).ok_or_else(|| {
        Messages::new().with(Message::error(format!("{shown}: the C parser failed")))
    })?;
    Ok(Side {
        shown,
        source,
        program,
        syntax,
    })
}

/// The definition of `name` in a file (the one that holds a SCoP of that
/// function when there are several).
pub(crate) fn function<'s>(side: &'s Side, name: &str) -> Option<&'s Function> {
    let all: Vec<&Function> = side
        .syntax
        .functions
        .iter()
        .filter(|f| f.name == name)
        .collect();
    let scop_at = side
        .program
        .scops
        .iter()
        .find(|s| s.function == name)
        .map(|s| s.span.start);
    all.iter()
        .find(|f| scop_at.is_some_and(|at| f.span.contains(&at)))
        .or(all.last())
        .copied()
}
