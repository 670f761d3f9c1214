//! The `polyfold` binary: parses the command line and hands each file to
//! the driver. Exit codes: 0 ok, 1 error diagnostics, 2 usage or I/O error.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use polyfold::cli::Cli;
use polyfold::driver::{RunOptions, run_file};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(command) = cli.command {
        match command {}
    }
    let options = RunOptions::from(&cli.run);
    let mut code = 0u8;
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    for file in &cli.run.files {
        let out = run_file(file, &options);
        let _ = stderr.lock().write_all(out.stderr.as_bytes());
        let _ = stdout.lock().write_all(out.stdout.as_bytes());
        code = code.max(out.code);
    }
    ExitCode::from(code)
}
