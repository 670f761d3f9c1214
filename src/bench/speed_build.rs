//! The builds and runs of `polyfold bench --speed` ([`super::speed`]): the
//! compiler and its flag sets, the runner that times one process
//! (`speed_runner.c`) and the harness that repeats a program's `main`
//! (`speed_harness.c`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The flag set a program is built with (`--opt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    /// `-O2`.
    O2,
    /// `-O3 -march=native` (the default).
    O3,
}

impl OptLevel {
    /// The name `--opt` takes and the tables print.
    pub fn name(self) -> &'static str {
        match self {
            OptLevel::O2 => "O2",
            OptLevel::O3 => "O3",
        }
    }

    /// The optimisation flags.
    fn flags(self) -> &'static [&'static str] {
        match self {
            OptLevel::O2 => &["-O2"],
            OptLevel::O3 => &["-O3", "-march=native"],
        }
    }
}

/// Parses `--opt`: comma-separated `O2` and `O3`, each once.
pub(crate) fn parse_opt_levels(s: &str) -> Result<Vec<OptLevel>, String> {
    let mut out = Vec::new();
    for word in s.split(',').map(str::trim) {
        let level = match word {
            "O2" | "o2" | "-O2" => OptLevel::O2,
            "O3" | "o3" | "-O3" => OptLevel::O3,
            _ => {
                return Err(format!(
                    "`{word}` is not a flag set (O2: -O2, O3: -O3 -march=native)"
                ));
            }
        };
        if out.contains(&level) {
            return Err(format!("`{word}` is given twice"));
        }
        out.push(level);
    }
    Ok(out)
}

/// The C compiler: `$CC`, or `cc`.
pub(crate) fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// The flags of every build at `level`: the level's, no floating-point
/// contraction (the corpus asks for none with a pragma GCC ignores), no
/// warnings, then `$CFLAGS`.
pub(crate) fn cflags(level: OptLevel) -> Vec<String> {
    let mut flags: Vec<String> = level
        .flags()
        .iter()
        .chain(&["-ffp-contract=off", "-w"])
        .map(|s| s.to_string())
        .collect();
    if let Ok(extra) = std::env::var("CFLAGS") {
        flags.extend(extra.split_whitespace().map(str::to_string));
    }
    flags
}

/// Runs `cc` with `args`; the first error line on failure.
fn run_compiler(args: &[&std::ffi::OsStr]) -> Result<(), String> {
    let cc = compiler();
    let output = Command::new(&cc)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {cc}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let text = String::from_utf8_lossy(&output.stderr);
        let first = text
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| text.lines().next())
            .unwrap_or("");
        Err(format!("{cc} failed: {first}"))
    }
}

/// The runner and the harness object, built once per speed run.
pub(crate) struct Tools {
    runner: PathBuf,
    harness: PathBuf,
}

/// The sources of the runner and the harness (see their headers).
const RUNNER_SOURCE: &str = include_str!("speed_runner.c");
const HARNESS_SOURCE: &str = include_str!("speed_harness.c");

/// Builds the runner and the harness into `scratch`.
pub(crate) fn build_tools(scratch: &Path) -> Result<Tools, String> {
    let runner_c = scratch.join("speed_runner.c");
    let runner = scratch.join("speed_runner");
    let harness_c = scratch.join("speed_harness.c");
    let harness = scratch.join("speed_harness.o");
    std::fs::write(&runner_c, RUNNER_SOURCE).map_err(|e| e.to_string())?;
    std::fs::write(&harness_c, HARNESS_SOURCE).map_err(|e| e.to_string())?;
    let os = |p: &Path| p.as_os_str().to_owned();
    run_compiler(&["-O1".as_ref(), "-o".as_ref(), &os(&runner), &os(&runner_c)])
        .map_err(|e| format!("cannot build the runner: {e}"))?;
    run_compiler(&[
        "-O1".as_ref(),
        "-c".as_ref(),
        "-o".as_ref(),
        &os(&harness),
        &os(&harness_c),
    ])
    .map_err(|e| format!("cannot build the harness: {e}"))?;
    Ok(Tools { runner, harness })
}

/// Writes `text` to `source` and builds it at `level` into `exe`, its
/// `main` renamed and called by the harness.
pub(crate) fn write_and_build(
    tools: &Tools,
    (source, text): (&Path, &str),
    level: OptLevel,
    exe: &Path,
) -> Result<(), String> {
    std::fs::write(source, text).map_err(|e| e.to_string())?;
    let object = exe.with_extension("o");
    let flags = cflags(level);
    let mut args: Vec<&std::ffi::OsStr> = flags.iter().map(|f| f.as_ref()).collect();
    args.extend([
        "-Dmain=polyfold_speed_main".as_ref(),
        "-c".as_ref(),
        "-o".as_ref(),
        object.as_os_str(),
        source.as_os_str(),
    ]);
    run_compiler(&args)?;
    run_compiler(&[
        "-o".as_ref(),
        exe.as_os_str(),
        object.as_os_str(),
        tools.harness.as_os_str(),
        "-lm".as_ref(),
    ])
}

/// What one run of a program gave.
#[derive(Clone, Debug)]
pub(crate) struct RunResult {
    pub time: Duration,
    pub peak_kb: Option<u64>,
    pub stdout: Vec<u8>,
}

/// Runs `exe` once through the runner, its `main` `runs` times, its
/// standard output to `out`.
pub(crate) fn run_once(
    tools: &Tools,
    exe: &Path,
    runs: u64,
    out: &Path,
) -> Result<RunResult, String> {
    let output = Command::new(&tools.runner)
        .arg(exe)
        .arg(out)
        .env("POLYFOLD_SPEED_RUNS", runs.to_string())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", tools.runner.display()))?;
    let line = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<i64> = line
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    let [status, user, system, maxrss] = fields[..] else {
        return Err(format!(
            "the runner failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    };
    if status != 0 {
        return Err(format!("{} exited with status {status}", exe.display()));
    }
    let stdout = std::fs::read(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let micros = u64::try_from(user.max(0) + system.max(0)).unwrap_or(0);
    Ok(RunResult {
        time: Duration::from_micros(micros),
        peak_kb: u64::try_from(maxrss).ok(),
        stdout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_sets_parse_in_order_and_once() {
        assert_eq!(
            parse_opt_levels("O2,O3"),
            Ok(vec![OptLevel::O2, OptLevel::O3])
        );
        assert_eq!(parse_opt_levels("O3"), Ok(vec![OptLevel::O3]));
        assert!(parse_opt_levels("O2,O2").is_err());
        assert!(parse_opt_levels("Os").is_err());
        assert_eq!(cflags(OptLevel::O2)[0], "-O2");
        assert_eq!(cflags(OptLevel::O3)[..2], ["-O3", "-march=native"]);
    }
}
