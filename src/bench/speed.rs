//! `polyfold bench DIR --speed`: how fast polyfold's output runs compared
//! with the original program.
//!
//! For every kernel `DIR/*.c` (or the one file given):
//!
//! 1. **Scale.** Its size `#define`s are multiplied by a factor, with the
//!    helpers of `--scale` ([`super::scale::scale_source`]: the defines
//!    that size its SCoPs, time loops included, except `--fixed` ones).
//!    With `--factor K` the factor is `K` for every kernel; otherwise it is
//!    the first of 1, 2, 4, … (at most [`MAX_FACTOR`]) at which the
//!    original program runs at least `--min-time` seconds (default 0.1) of
//!    CPU time, or the last one whose program declares at most
//!    `--max-cells` cells (default [`DEFAULT_MAX_CELLS`]) in the arrays its
//!    SCoPs access.
//! 2. **Transform.** The scaled text goes through the whole pipeline
//!    (front end, then `contract_program` with the bench's options:
//!    `--no-inter-array`, `--no-lattice`, `--min-memory` apply).
//! 3. **Build.** Both with `$CC` (or `cc`) `-O3 -march=native
//!    -ffp-contract=off` (the corpus asks for no floating-point contraction
//!    with `#pragma STDC FP_CONTRACT OFF`, which GCC ignores; without the
//!    flag the two programs may legitimately print different roundings),
//!    and `$CFLAGS` when set.
//! 4. **Run.** `--repeats` pairs (default 7), alternately: pair `k` runs
//!    the original first when `k` is even and the output first when `k` is
//!    odd. Every run is a child of a small C runner (`speed_runner.c`,
//!    built with the same compiler), which raises the stack limit to the
//!    hard limit (the kernels declare their arrays on the stack), forks,
//!    execs the program and reports from `wait4` its user + system CPU
//!    time (the time column) and its maximum resident set size (kB on
//!    Linux; the peak memory column; other systems may count it in other
//!    units). The runner's own few hundred kB are the floor of that
//!    figure. Each run's standard output must equal the first run of the
//!    original (`same`; `DIFFERS` otherwise).
//!
//! The table has one row per kernel: the factor, the median CPU time of
//! each program (ms), `ratio` the median over the pairs of transformed /
//! original (below 1: the output is faster), `q1-q3` the quartiles of the
//! pair ratios (the spread of the measurement: a ratio within it of 1 is
//! noise), the peak memory of each (kB, the largest over the runs) and
//! their ratio, whether the outputs agree, and the scaled parameters. A
//! kernel that polyfold leaves unchanged is not run (`unchanged`). The
//! times are measurements: they depend on the machine and its load; the
//! layout does not.

use std::fmt::Write;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::frontend;
use crate::pipeline::ContractOptions;

use super::scale::{
    declared_cells, is_fixed, kernel_name, scale_files, scale_source, size_defines,
};

/// The largest factor the automatic scaling tries.
pub(crate) const MAX_FACTOR: u64 = 4096;
/// The most cells a scaled original may declare in its SCoPs' arrays
/// unless `--max-cells` says otherwise (512 MB of `double`).
pub(crate) const DEFAULT_MAX_CELLS: i64 = 64 << 20;

/// The options of a speed run.
#[derive(Clone, Debug)]
pub struct SpeedOptions {
    /// Pairs of runs per kernel.
    pub pairs: usize,
    /// CPU time the original must reach (automatic scaling).
    pub min_time: Duration,
    /// One factor for every kernel instead of the automatic scaling.
    pub factor: Option<u64>,
    /// `NAME` or `KERNEL:NAME`: defines left at their value.
    pub fixed: Vec<String>,
    pub max_cells: i64,
    pub contract: ContractOptions,
    /// One line on stderr per kernel.
    pub progress: bool,
}

impl Default for SpeedOptions {
    fn default() -> SpeedOptions {
        SpeedOptions {
            pairs: 7,
            min_time: Duration::from_millis(100),
            factor: None,
            fixed: Vec::new(),
            max_cells: DEFAULT_MAX_CELLS,
            contract: ContractOptions::default(),
            progress: false,
        }
    }
}

/// What one run of a program gave.
#[derive(Clone, Debug)]
struct RunResult {
    time: Duration,
    peak_kb: Option<u64>,
    stdout: Vec<u8>,
}

/// How the measurement of one kernel ended.
#[derive(Clone, Debug)]
pub enum SpeedEnd {
    /// Both programs ran every pair.
    Measured {
        original: Vec<Duration>,
        transformed: Vec<Duration>,
        original_kb: Option<u64>,
        transformed_kb: Option<u64>,
        /// Whether every run printed what the original's first run printed.
        same: bool,
    },
    /// polyfold's output is the input.
    Unchanged,
    /// Something failed (the words say what).
    Failed(String),
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct SpeedRow {
    pub kernel: String,
    pub factor: u64,
    pub defines: Defines,
    pub end: SpeedEnd,
}

/// The rows and the printed table.
#[derive(Clone, Debug, Default)]
pub struct SpeedResult {
    pub rows: Vec<SpeedRow>,
    pub table: String,
    /// Some kernel failed or printed differently.
    pub failed: bool,
}

/// The C compiler: `$CC`, or `cc`.
fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// The flags of every build.
pub(crate) fn cflags() -> Vec<String> {
    let mut flags: Vec<String> = ["-O3", "-march=native", "-ffp-contract=off", "-w"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if let Ok(extra) = std::env::var("CFLAGS") {
        flags.extend(extra.split_whitespace().map(str::to_string));
    }
    flags
}

/// Builds `source` into `exe`; the compiler's diagnostics on failure.
fn build(source: &Path, exe: &Path) -> Result<(), String> {
    let cc = compiler();
    let output = Command::new(&cc)
        .args(cflags())
        .arg("-o")
        .arg(exe)
        .arg(source)
        .arg("-lm")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {cc}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let text = String::from_utf8_lossy(&output.stderr);
        let first = text.lines().find(|l| l.contains("error")).unwrap_or("");
        Err(format!("{cc} failed: {first}"))
    }
}

/// The source of the runner (see its header).
const RUNNER_SOURCE: &str = include_str!("speed_runner.c");

/// Builds the runner into `scratch`.
/// Writes `text` to `source` and builds it into `exe`.
fn write_and_build(source: &Path, text: &str, exe: &Path) -> Result<(), String> {
    std::fs::write(source, text).map_err(|e| e.to_string())?;
    build(source, exe)
}

fn build_runner(scratch: &Path) -> Result<PathBuf, String> {
    let source = scratch.join("speed_runner.c");
    let exe = scratch.join("speed_runner");
    std::fs::write(&source, RUNNER_SOURCE).map_err(|e| e.to_string())?;
    let cc = compiler();
    let output = Command::new(&cc)
        .args(["-O1", "-o"])
        .arg(&exe)
        .arg(&source)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {cc}: {e}"))?;
    if output.status.success() {
        Ok(exe)
    } else {
        Err(format!(
            "{cc} cannot build the runner: {}",
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ))
    }
}

/// Runs `exe` once through `runner`, its standard output to `out`.
fn run_once(runner: &Path, exe: &Path, out: &Path) -> Result<RunResult, String> {
    let output = Command::new(runner)
        .arg(exe)
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", runner.display()))?;
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

/// The median of `v` (zero when empty).
fn median_f64(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// The `q`-quantile of `v` (nearest rank, `v` non-empty).
fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v.get(i).copied().unwrap_or(0.0)
}

/// The scaled defines of a kernel and their values.
type Defines = Vec<(String, i64)>;

/// Measures one kernel file in `scratch`.
fn measure(file: &Path, scratch: &Path, runner: &Path, options: &SpeedOptions) -> SpeedRow {
    let kernel = kernel_name(file);
    let mut row = SpeedRow {
        kernel: kernel.clone(),
        factor: options.factor.unwrap_or(1),
        defines: Vec::new(),
        end: SpeedEnd::Unchanged,
    };
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            row.end = SpeedEnd::Failed(format!("cannot read {}: {e}", file.display()));
            return row;
        }
    };
    let program = frontend::extract(&kernel, &source, &frontend::Options::default());
    let scalable = !size_defines(&program)
        .iter()
        .all(|n| is_fixed(&options.fixed, &kernel, n));
    let orig_c = scratch.join(format!("{kernel}.c"));
    let orig_exe = scratch.join(format!("{kernel}.orig"));
    let out_file = scratch.join(format!("{kernel}.stdout"));
    // The scaled original, built (and, when scaling, run once to time it).
    let mut chosen: Option<(u64, String, Defines)> = None;
    let mut factor = options.factor.unwrap_or(1);
    loop {
        let (text, defines) = match scale_source(&program, &kernel, factor, &options.fixed) {
            Ok(t) => t,
            Err(e) => {
                row.end = SpeedEnd::Failed(e);
                return row;
            }
        };
        if options.factor.is_none() && factor > 1 {
            let p = frontend::extract(&kernel, &text, &frontend::Options::default());
            if declared_cells(&p).is_none_or(|c| c > options.max_cells) {
                break; // keep the previous factor
            }
        }
        let ok = write_and_build(&orig_c, &text, &orig_exe);
        if let Err(e) = ok {
            row.end = SpeedEnd::Failed(format!("original x{factor}: {e}"));
            return row;
        }
        chosen = Some((factor, text, defines));
        if options.factor.is_some() || !scalable || factor >= MAX_FACTOR {
            break;
        }
        match run_once(runner, &orig_exe, &out_file) {
            Ok(r) if r.time >= options.min_time => break,
            Ok(_) => factor *= 2,
            Err(e) => {
                row.end = SpeedEnd::Failed(format!("original x{factor}: {e}"));
                return row;
            }
        }
    }
    let Some((factor, text, defines)) = chosen else {
        row.end = SpeedEnd::Failed("no factor fits --max-cells".into());
        return row;
    };
    row.factor = factor;
    row.defines = defines;
    // The binary on disk is the last one built: rebuild the chosen one
    // when the search stopped on a larger factor.
    if std::fs::read_to_string(&orig_c).ok().as_deref() != Some(text.as_str()) {
        let ok = write_and_build(&orig_c, &text, &orig_exe);
        if let Err(e) = ok {
            row.end = SpeedEnd::Failed(format!("original x{factor}: {e}"));
            return row;
        }
    }
    let scaled_program = frontend::extract(&kernel, &text, &frontend::Options::default());
    let output = match crate::pipeline::contract_read(
        &scaled_program,
        &options.contract,
        &frontend::Options::default(),
    ) {
        Ok((c, _)) => c.output,
        Err(e) => {
            row.end = SpeedEnd::Failed(format!("polyfold failed: {e}"));
            return row;
        }
    };
    if output == text {
        row.end = SpeedEnd::Unchanged;
        return row;
    }
    let new_c = scratch.join(format!("{kernel}.polyfold.c"));
    let new_exe = scratch.join(format!("{kernel}.new"));
    let ok = write_and_build(&new_c, &output, &new_exe);
    if let Err(e) = ok {
        row.end = SpeedEnd::Failed(format!("output x{factor}: {e}"));
        return row;
    }
    let mut original = Vec::new();
    let mut transformed = Vec::new();
    let (mut original_kb, mut transformed_kb) = (None::<u64>, None::<u64>);
    let mut reference: Option<Vec<u8>> = None;
    let mut same = true;
    for pair in 0..options.pairs.max(1) {
        let order = if pair % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for is_new in order {
            let exe = if is_new { &new_exe } else { &orig_exe };
            let r = match run_once(runner, exe, &out_file) {
                Ok(r) => r,
                Err(e) => {
                    let which = if is_new { "output" } else { "original" };
                    row.end = SpeedEnd::Failed(format!("{which} x{factor}: {e}"));
                    return row;
                }
            };
            match &reference {
                None => reference = Some(r.stdout.clone()),
                Some(want) => same &= *want == r.stdout,
            }
            let (times, kb) = if is_new {
                (&mut transformed, &mut transformed_kb)
            } else {
                (&mut original, &mut original_kb)
            };
            times.push(r.time);
            *kb = match (*kb, r.peak_kb) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
        }
    }
    // Pair 0 runs the original first: the reference is set before any
    // output run is compared.
    row.end = SpeedEnd::Measured {
        original,
        transformed,
        original_kb,
        transformed_kb,
        same,
    };
    row
}

/// Runs the speed benchmark over `path` (a folder of kernels or one file).
pub fn run_speed(path: &Path, options: &SpeedOptions) -> std::io::Result<SpeedResult> {
    let scratch = crate::util::scratch::scratch_dir("speed")?;
    let mut rows = Vec::new();
    let runner = build_runner(&scratch);
    for file in scale_files(path)? {
        let row = match &runner {
            Ok(runner) => measure(&file, &scratch, runner, options),
            Err(e) => SpeedRow {
                kernel: kernel_name(&file),
                factor: options.factor.unwrap_or(1),
                defines: Vec::new(),
                end: SpeedEnd::Failed(e.clone()),
            },
        };
        if options.progress {
            let _ = writeln!(
                std::io::stderr(),
                "bench --speed: {}",
                row_line(&row).trim_end()
            );
        }
        rows.push(row);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let failed = rows.iter().any(|r| match &r.end {
        SpeedEnd::Failed(_) => true,
        SpeedEnd::Measured { same, .. } => !same,
        SpeedEnd::Unchanged => false,
    });
    let mut table = String::new();
    let _ = writeln!(
        table,
        "# cc: {} {}; time: user+system CPU of each run (wait4); memory: peak resident set (kB, Linux)",
        compiler(),
        cflags().join(" ")
    );
    let _ = writeln!(
        table,
        "{:<20} {:>6} {:>5} {:>10} {:>10} {:>6} {:>13} {:>10} {:>10} {:>5} {:<9} params",
        "kernel",
        "factor",
        "pairs",
        "orig ms",
        "new ms",
        "ratio",
        "q1-q3",
        "orig kB",
        "new kB",
        "mem",
        "output"
    );
    for row in &rows {
        table.push_str(&row_line(row));
    }
    Ok(SpeedResult {
        rows,
        table,
        failed,
    })
}

/// The table line of one kernel.
fn row_line(row: &SpeedRow) -> String {
    let params: Vec<String> = row
        .defines
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    let params = params.join(" ");
    match &row.end {
        SpeedEnd::Measured {
            original,
            transformed,
            original_kb,
            transformed_kb,
            same,
        } => {
            let ms = |v: &[Duration]| median_f64(v.iter().map(|t| t.as_secs_f64() * 1e3).collect());
            let ratios: Vec<f64> = original
                .iter()
                .zip(transformed)
                .map(|(o, n)| n.as_secs_f64() / o.as_secs_f64().max(1e-9))
                .collect();
            let kb = |k: &Option<u64>| k.map_or("?".to_string(), |k| k.to_string());
            let mem = match (original_kb, transformed_kb) {
                (Some(o), Some(n)) if *o > 0 => format!("{:.2}", *n as f64 / *o as f64),
                _ => "?".into(),
            };
            format!(
                "{:<20} {:>6} {:>5} {:>10.1} {:>10.1} {:>6.3} {:>13} {:>10} {:>10} {:>5} {:<9} {params}\n",
                row.kernel,
                row.factor,
                ratios.len(),
                ms(original),
                ms(transformed),
                median_f64(ratios.clone()),
                format!(
                    "{:.3}-{:.3}",
                    quantile(ratios.clone(), 0.25),
                    quantile(ratios, 0.75)
                ),
                kb(original_kb),
                kb(transformed_kb),
                mem,
                if *same { "same" } else { "DIFFERS" },
            )
        }
        SpeedEnd::Unchanged => format!(
            "{:<20} {:>6} {:>5} {:>10} {:>10} {:>6} {:>13} {:>10} {:>10} {:>5} {:<9} {params}\n",
            row.kernel, row.factor, 0, "-", "-", "-", "-", "-", "-", "-", "unchanged"
        ),
        SpeedEnd::Failed(why) => format!(
            "{:<20} {:>6} {:>5} {:>10} {:>10} {:>6} {:>13} {:>10} {:>10} {:>5} {:<9} {params} ({why})\n",
            row.kernel, row.factor, 0, "-", "-", "-", "-", "-", "-", "-", "FAILED"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_and_median_by_nearest_rank() {
        let v = vec![5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(median_f64(v.clone()), 3.0);
        assert_eq!(quantile(v.clone(), 0.25), 2.0);
        assert_eq!(quantile(v, 0.75), 4.0);
    }

    #[test]
    fn an_unchanged_row_has_the_same_columns_as_the_header() {
        let row = SpeedRow {
            kernel: "k".into(),
            factor: 2,
            defines: vec![("N".into(), 8)],
            end: SpeedEnd::Unchanged,
        };
        let line = row_line(&row);
        assert_eq!(line.split_whitespace().count(), 12, "{line}");
        assert!(line.ends_with("unchanged N=8\n"), "{line}");
    }
}
