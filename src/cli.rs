//! The command line, declared with clap.
//!
//! `polyfold [OPTIONS] FILE...` runs the pipeline on each file. Later
//! subcommands (`verify`, `bench`, `lattice`, `smo`) go into [`Command`];
//! `args_conflicts_with_subcommands` keeps `polyfold FILE` and
//! `polyfold verify FILE` both working. This module only declares; the
//! driver acts.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Exit codes, shown at the end of `--help`.
pub const EXIT_CODES: &str = "\
Exit codes:
  0  success (rejected code is reported as warnings and still exits 0)
  1  diagnostics with errors (e.g. a file that does not parse; nothing is written)
  2  usage error, or a file that cannot be read or is not UTF-8";

#[derive(Debug, Parser)]
#[command(
    name = "polyfold",
    version,
    about = "Finds the affine loop nests (SCoPs) of C files and shrinks their temporary arrays.",
    after_help = EXIT_CODES,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Subcommands (none yet; the pipeline runs without one).
#[derive(Debug, Subcommand)]
pub enum Command {}

/// Options of the default action (running the pipeline on files).
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// C files to process.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Print an intermediate form instead of the transformed program.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub emit: Option<Emit>,

    /// Set or override a parameter value (repeatable), e.g. `-D N=100`.
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, i64)>,
}

/// What `--emit` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// Every SCoP in isl notation: parameters, context, domains, accesses, schedules.
    Scop,
}

/// Parses `NAME=VALUE` with a C identifier and an integer value.
pub fn parse_define(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got `{s}`"))?;
    let ok_name = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok_name {
        return Err(format!("`{name}` is not a C identifier"));
    }
    let v: i64 = value
        .trim()
        .parse()
        .map_err(|_| format!("`{value}` is not an integer"))?;
    Ok((name.to_string(), v))
}
