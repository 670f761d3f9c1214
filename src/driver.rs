//! The driver: runs the pipeline on one file and decides what is printed
//! and the exit code. Today the pipeline is `read → extract_scops → emit`;
//! later stages (`classify_liveness → compute_conflicts → choose_mappings →
//! certify → plan_edits`) slot in after extraction.
//!
//! The driver never prints by itself: it returns the text for stdout and
//! stderr, so that tests can compare exactly what the CLI would print.

use std::path::Path;

use crate::cli::{Emit, RunArgs};
use crate::{diag, frontend, ir};

/// What processing one file produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    /// 0 ok, 1 error diagnostics, 2 I/O error.
    pub code: u8,
}

/// Options of a run, independent of clap.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub emit: Option<Emit>,
    pub defines: Vec<(String, i64)>,
}

impl From<&RunArgs> for RunOptions {
    fn from(a: &RunArgs) -> RunOptions {
        RunOptions {
            emit: a.emit,
            defines: a.define.clone(),
        }
    }
}

/// Reads and processes one file.
pub fn run_file(path: &Path, options: &RunOptions) -> Outcome {
    let shown = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return Outcome {
                stdout: String::new(),
                stderr: format!("polyfold: error: cannot read {shown}: {e}\n"),
                code: 2,
            };
        }
    };
    let source = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            return Outcome {
                stdout: String::new(),
                stderr: format!(
                    "polyfold: error: {shown} is not valid UTF-8 (invalid byte at offset {})\n",
                    e.utf8_error().valid_up_to()
                ),
                code: 2,
            };
        }
    };
    run_source(&shown, &source, options)
}

/// Processes source text that has already been read.
pub fn run_source(path: &str, source: &str, options: &RunOptions) -> Outcome {
    let program = frontend::extract(
        path,
        source,
        &frontend::Options {
            defines: options.defines.clone(),
        },
    );
    let stderr = diag::render(path, source, &program.diagnostics);
    if program.has_errors() {
        return Outcome {
            stdout: String::new(),
            stderr,
            code: 1,
        };
    }
    let stdout = match options.emit {
        Some(Emit::Scop) => ir::emit_program(&program),
        None => {
            let n_stmts: usize = program.scops.iter().map(|s| s.stmts.len()).sum();
            format!(
                "{path}: {} SCoP{}, {n_stmts} statement{}\n",
                program.scops.len(),
                if program.scops.len() == 1 { "" } else { "s" },
                if n_stmts == 1 { "" } else { "s" }
            )
        }
    };
    Outcome {
        stdout,
        stderr,
        code: 0,
    }
}
