//! `polyfold bench DIR --speed`: how fast polyfold's output runs compared
//! with the original program.
//!
//! For every kernel `DIR/*.c` (or the one file given):
//!
//! 1. **Scale.** Its size `#define`s are multiplied by a factor, with the
//!    helpers of `--scale` ([`super::scale::scale_source`]: the defines
//!    that size its SCoPs, time loops included, except `--fixed` ones),
//!    for each `--size` ([`SizeKind`]): `auto` (the default) is the first
//!    of 1, 2, 4, … (at most [`MAX_FACTOR`]) at which the original
//!    program runs at least `--min-time` seconds (default 0.1) of CPU
//!    time, or the last one whose program declares at most `--max-cells`
//!    cells (default [`DEFAULT_MAX_CELLS`]) in the arrays its SCoPs
//!    access; `cache` the largest whose original declares at most
//!    `--cache-cells` ([`DEFAULT_CACHE_CELLS`]); `memory` the smallest
//!    that declares at least `--memory-cells` ([`DEFAULT_MEMORY_CELLS`]).
//!    With `--factor K` the factor is `K` for every kernel and size.
//! 2. **Transform.** The scaled text goes through the whole pipeline
//!    (front end, then `contract_program` with the bench's options:
//!    `--no-inter-array`, `--no-lattice`, `--min-memory` apply), once per
//!    factor.
//! 3. **Build.** Both at each `--opt` flag set ([`OptLevel`]: `-O2`, or
//!    `-O3 -march=native`, the default) with `$CC` (or `cc`),
//!    `-ffp-contract=off` (the corpus asks for no floating-point
//!    contraction with `#pragma STDC FP_CONTRACT OFF`, which GCC ignores;
//!    without the flag the two programs may legitimately print different
//!    roundings) and `$CFLAGS` when set; `main` is renamed and called by
//!    a harness (`speed_harness.c`) `POLYFOLD_SPEED_RUNS` times. At the
//!    `cache` and `memory` sizes those runs grow until the original takes
//!    `--min-time` (the `runs` column); at `auto` it runs once.
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
//! Each flag set and size has its table (flag sets outer), one row per
//! kernel: the factor, the median CPU time of
//! each program (ms), `ratio` the median over the pairs of transformed /
//! original (below 1: the output is faster), `q1-q3` the quartiles of the
//! pair ratios (the spread of the measurement: a ratio within it of 1 is
//! noise), the peak memory of each (kB, the largest over the runs) and
//! their ratio, whether the outputs agree, and the scaled parameters. A
//! kernel that polyfold leaves unchanged is not run (`unchanged`). The
//! times are measurements: they depend on the machine and its load; the
//! layout does not. With several flag sets or sizes a last table gives
//! each kernel's ratio and quartiles side by side.

use std::fmt::Write;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::frontend;
use crate::ir::Program;
use crate::pipeline::ContractOptions;

use super::scale::{
    declared_cells, is_fixed, kernel_name, scale_files, scale_source, size_defines,
};
pub use super::speed_build::OptLevel;
use super::speed_build::{
    Tools, build_tools, cflags, compiler, parse_opt_levels, run_once, write_and_build,
};

/// The largest factor the automatic scaling tries.
pub(crate) const MAX_FACTOR: u64 = 4096;
/// The most cells a scaled original may declare in its SCoPs' arrays
/// unless `--max-cells` says otherwise (512 MB of `double`).
pub(crate) const DEFAULT_MAX_CELLS: i64 = 64 << 20;
/// The most cells of the cache-resident size unless `--cache-cells` says
/// otherwise: 256 KiB of `double`, half of a 512 KiB L2.
pub(crate) const DEFAULT_CACHE_CELLS: i64 = 32 << 10;
/// The least cells of the memory-bound size unless `--memory-cells` says
/// otherwise: 64 MiB of `double`, twice a 32 MiB L3.
pub(crate) const DEFAULT_MEMORY_CELLS: i64 = 8 << 20;
/// The most runs of `main` in one process.
const MAX_RUNS: u64 = 1 << 20;

/// How a kernel's size is chosen (`--size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeKind {
    /// The first factor at which the original runs `--min-time` (one run
    /// of `main` per process): the default.
    Auto,
    /// The largest factor whose original declares at most `--cache-cells`
    /// cells (at least 1, the kernel's own size), `main` run again and
    /// again until the original takes `--min-time`.
    Cache,
    /// The smallest factor whose original declares at least
    /// `--memory-cells` cells (at most `--max-cells`), `main` repeated as
    /// for `Cache`.
    Memory,
}

impl SizeKind {
    /// The name `--size` takes and the tables print.
    pub fn name(self) -> &'static str {
        match self {
            SizeKind::Auto => "auto",
            SizeKind::Cache => "cache",
            SizeKind::Memory => "memory",
        }
    }
}

/// Parses `--size`: comma-separated `auto`, `cache` and `memory`, each
/// once.
pub(crate) fn parse_sizes(s: &str) -> Result<Vec<SizeKind>, String> {
    let mut out = Vec::new();
    for word in s.split(',').map(str::trim) {
        let kind = match word {
            "auto" => SizeKind::Auto,
            "cache" => SizeKind::Cache,
            "memory" => SizeKind::Memory,
            _ => {
                return Err(format!("`{word}` is not a size (auto, cache or memory)"));
            }
        };
        if out.contains(&kind) {
            return Err(format!("`{word}` is given twice"));
        }
        out.push(kind);
    }
    Ok(out)
}

/// The flag sets of `--opt`, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptLevels(pub Vec<OptLevel>);

/// [`parse_opt_levels`] for the command line.
pub(crate) fn parse_opt_list(s: &str) -> Result<OptLevels, String> {
    parse_opt_levels(s).map(OptLevels)
}

/// The sizes of `--size`, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sizes(pub Vec<SizeKind>);

/// [`parse_sizes`] for the command line.
pub(crate) fn parse_size_list(s: &str) -> Result<Sizes, String> {
    parse_sizes(s).map(Sizes)
}

/// The options of a speed run.
#[derive(Clone, Debug)]
pub struct SpeedOptions {
    /// Pairs of runs per kernel.
    pub pairs: usize,
    /// CPU time the original must reach (automatic scaling, and the runs
    /// of `main` per process at the cache and memory sizes).
    pub min_time: Duration,
    /// One factor for every kernel instead of the automatic scaling.
    pub factor: Option<u64>,
    /// `NAME` or `KERNEL:NAME`: defines left at their value.
    pub fixed: Vec<String>,
    pub max_cells: i64,
    /// The most cells of the cache-resident size.
    pub cache_cells: i64,
    /// The least cells of the memory-bound size.
    pub memory_cells: i64,
    /// The flag sets, each measured.
    pub opts: Vec<OptLevel>,
    /// The sizes, each measured.
    pub sizes: Vec<SizeKind>,
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
            cache_cells: DEFAULT_CACHE_CELLS,
            memory_cells: DEFAULT_MEMORY_CELLS,
            opts: vec![OptLevel::O3],
            sizes: vec![SizeKind::Auto],
            contract: ContractOptions::default(),
            progress: false,
        }
    }
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

/// One row of the table: one kernel at one flag set and one size.
#[derive(Clone, Debug)]
pub struct SpeedRow {
    pub kernel: String,
    pub opt: OptLevel,
    pub size: SizeKind,
    pub factor: u64,
    /// Runs of `main` per process.
    pub runs: u64,
    pub defines: Defines,
    pub end: SpeedEnd,
}

impl SpeedRow {
    /// The pair ratios output/original (none unless measured).
    fn ratios(&self) -> Vec<f64> {
        match &self.end {
            SpeedEnd::Measured {
                original,
                transformed,
                ..
            } => original
                .iter()
                .zip(transformed)
                .map(|(o, n)| n.as_secs_f64() / o.as_secs_f64().max(1e-9))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The rows and the printed table.
#[derive(Clone, Debug, Default)]
pub struct SpeedResult {
    pub rows: Vec<SpeedRow>,
    pub table: String,
    /// Some kernel failed or printed differently.
    pub failed: bool,
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

/// One kernel file, read: its name, program and whether it scales.
struct Kernel {
    name: String,
    program: Program,
    scalable: bool,
}

/// A kernel at one factor: the scaled text and defines.
struct Scaled {
    factor: u64,
    text: String,
    defines: Defines,
}

/// Where one kernel's files go, and the tools.
struct Bench<'a> {
    scratch: &'a Path,
    tools: &'a Tools,
    options: &'a SpeedOptions,
}

impl Bench<'_> {
    /// A file of `kernel` in the scratch folder.
    fn file(&self, kernel: &str, suffix: &str) -> std::path::PathBuf {
        self.scratch.join(format!("{kernel}.{suffix}"))
    }

    /// `kernel` at `factor`, and the cells its SCoPs' arrays declare.
    fn scale(&self, kernel: &Kernel, factor: u64) -> Result<(Scaled, Option<i64>), String> {
        let (text, defines) =
            scale_source(&kernel.program, &kernel.name, factor, &self.options.fixed)?;
        let p = frontend::extract(&kernel.name, &text, &frontend::Options::default());
        let cells = declared_cells(&p);
        Ok((
            Scaled {
                factor,
                text,
                defines,
            },
            cells,
        ))
    }

    /// The factor of `kernel` at `size` (see [`SizeKind`]; `--factor`
    /// fixes it; a kernel without size defines stays at 1).
    fn choose(&self, kernel: &Kernel, size: SizeKind) -> Result<Scaled, String> {
        let options = self.options;
        if let Some(k) = options.factor {
            return Ok(self.scale(kernel, k)?.0);
        }
        let (mut best, cells) = self.scale(kernel, 1)?;
        if !kernel.scalable {
            return Ok(best);
        }
        let fits = |cells: Option<i64>, most: i64| cells.is_some_and(|c| c <= most);
        let mut cells = cells;
        while best.factor < MAX_FACTOR {
            if size == SizeKind::Memory && cells.is_some_and(|c| c >= options.memory_cells) {
                break;
            }
            if size == SizeKind::Auto {
                let exe = self.file(&kernel.name, "probe");
                let c = self.file(&kernel.name, "probe.c");
                write_and_build(self.tools, (&c, &best.text), options.opts[0], &exe)
                    .map_err(|e| format!("original x{}: {e}", best.factor))?;
                let out = self.file(&kernel.name, "stdout");
                let r = run_once(self.tools, &exe, 1, &out)
                    .map_err(|e| format!("original x{}: {e}", best.factor))?;
                if r.time >= options.min_time {
                    break;
                }
            }
            let (next, next_cells) = self.scale(kernel, best.factor * 2)?;
            let most = if size == SizeKind::Cache {
                options.cache_cells.min(options.max_cells)
            } else {
                options.max_cells
            };
            if !fits(next_cells, most) {
                break;
            }
            (best, cells) = (next, next_cells);
        }
        Ok(best)
    }

    /// The runs of `main` per process at which `orig_exe` takes
    /// `--min-time` (1 at the automatic size).
    fn runs(&self, size: SizeKind, orig_exe: &Path, out: &Path) -> Result<u64, String> {
        if size == SizeKind::Auto {
            return Ok(1);
        }
        let min = self.options.min_time.as_secs_f64();
        let mut runs: u64 = 1;
        loop {
            let t = run_once(self.tools, orig_exe, runs, out)?
                .time
                .as_secs_f64();
            if t >= min || runs >= MAX_RUNS {
                return Ok(runs);
            }
            // Aim a fifth past the target from what this took (at least
            // twice, at most 64 times as many runs).
            let grow = (min * 1.2 / t.max(1e-6)).ceil().clamp(2.0, 64.0) as u64;
            runs = (runs * grow).min(MAX_RUNS);
        }
    }

    /// Builds and times `scaled` and its `output` at `opt` and `size`.
    fn measure(
        &self,
        kernel: &str,
        (scaled, output): (&Scaled, &str),
        (opt, size): (OptLevel, SizeKind),
    ) -> Result<(u64, SpeedEnd), String> {
        let tag = format!("{}.{}", opt.name(), size.name());
        let orig_exe = self.file(kernel, &format!("{tag}.orig"));
        let new_exe = self.file(kernel, &format!("{tag}.new"));
        let out = self.file(kernel, "stdout");
        let x = scaled.factor;
        let orig_c = self.file(kernel, "c");
        write_and_build(self.tools, (&orig_c, &scaled.text), opt, &orig_exe)
            .map_err(|e| format!("original x{x}: {e}"))?;
        let new_c = self.file(kernel, "polyfold.c");
        write_and_build(self.tools, (&new_c, output), opt, &new_exe)
            .map_err(|e| format!("output x{x}: {e}"))?;
        let runs = self
            .runs(size, &orig_exe, &out)
            .map_err(|e| format!("original x{x}: {e}"))?;
        let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
        let mut kb: [Option<u64>; 2] = [None, None];
        let mut reference: Option<Vec<u8>> = None;
        let mut same = true;
        for pair in 0..self.options.pairs.max(1) {
            // Pair 0 runs the original first: the reference is set before
            // any output run is compared.
            let order = if pair % 2 == 0 { [0, 1] } else { [1, 0] };
            for which in order {
                let exe = if which == 1 { &new_exe } else { &orig_exe };
                let r = run_once(self.tools, exe, runs, &out).map_err(|e| {
                    let name = if which == 1 { "output" } else { "original" };
                    format!("{name} x{x}: {e}")
                })?;
                match &reference {
                    None => reference = Some(r.stdout.clone()),
                    Some(want) => same &= *want == r.stdout,
                }
                times[which].push(r.time);
                kb[which] = match (kb[which], r.peak_kb) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
            }
        }
        let [original, transformed] = times;
        Ok((
            runs,
            SpeedEnd::Measured {
                original,
                transformed,
                original_kb: kb[0],
                transformed_kb: kb[1],
                same,
            },
        ))
    }
}

/// polyfold's output for `text` (`None` when it is the input).
fn transform(kernel: &str, text: &str, options: &SpeedOptions) -> Result<Option<String>, String> {
    let program = frontend::extract(kernel, text, &frontend::Options::default());
    let output =
        crate::pipeline::contract_read(&program, &options.contract, &frontend::Options::default())
            .map_err(|e| format!("polyfold failed: {e}"))?
            .0
            .output;
    Ok((output != text).then_some(output))
}

/// Measures one kernel file at every size and flag set, one row each
/// (sizes outer, flag sets inner).
fn measure_kernel(file: &Path, bench: &Bench) -> Vec<SpeedRow> {
    let options = bench.options;
    let name = kernel_name(file);
    let mut rows = Vec::new();
    let source = std::fs::read_to_string(file);
    let program = source
        .as_ref()
        .map(|s| frontend::extract(&name, s, &frontend::Options::default()));
    // The output at each factor, computed once.
    let mut outputs: Vec<(u64, Result<Option<String>, String>)> = Vec::new();
    for &size in &options.sizes {
        let chosen = match &program {
            Ok(program) => {
                let kernel = Kernel {
                    name: name.clone(),
                    scalable: !size_defines(program)
                        .iter()
                        .all(|n| is_fixed(&options.fixed, &name, n)),
                    program: program.clone(),
                };
                bench.choose(&kernel, size)
            }
            Err(e) => Err(format!("cannot read {}: {e}", file.display())),
        };
        for &opt in &options.opts {
            let mut row = SpeedRow {
                kernel: name.clone(),
                opt,
                size,
                factor: options.factor.unwrap_or(1),
                runs: 1,
                defines: Vec::new(),
                end: SpeedEnd::Unchanged,
            };
            let scaled = match &chosen {
                Ok(s) => s,
                Err(e) => {
                    row.end = SpeedEnd::Failed(e.clone());
                    rows.push(row);
                    continue;
                }
            };
            row.factor = scaled.factor;
            row.defines = scaled.defines.clone();
            if !outputs.iter().any(|(f, _)| *f == scaled.factor) {
                let output = transform(&name, &scaled.text, options);
                outputs.push((scaled.factor, output));
            }
            let output = outputs.iter().find(|(f, _)| *f == scaled.factor);
            row.end = match output.map(|(_, o)| o) {
                Some(Ok(Some(output))) => match bench.measure(&name, (scaled, output), (opt, size))
                {
                    Ok((runs, end)) => {
                        row.runs = runs;
                        end
                    }
                    Err(e) => SpeedEnd::Failed(e),
                },
                Some(Ok(None)) | None => SpeedEnd::Unchanged,
                Some(Err(e)) => SpeedEnd::Failed(e.clone()),
            };
            if options.progress {
                let _ = writeln!(
                    std::io::stderr(),
                    "bench --speed: {} {} {}",
                    opt.name(),
                    size.name(),
                    row_line(&row, size != SizeKind::Auto).trim_end()
                );
            }
            rows.push(row);
        }
    }
    rows
}

/// Runs the speed benchmark over `path` (a folder of kernels or one file).
pub fn run_speed(path: &Path, options: &SpeedOptions) -> std::io::Result<SpeedResult> {
    let scratch = crate::util::scratch::scratch_dir("speed")?;
    let mut rows = Vec::new();
    let tools = build_tools(&scratch);
    for file in scale_files(path)? {
        match &tools {
            Ok(tools) => {
                let bench = Bench {
                    scratch: &scratch,
                    tools,
                    options,
                };
                rows.extend(measure_kernel(&file, &bench));
            }
            Err(e) => {
                for &size in &options.sizes {
                    for &opt in &options.opts {
                        rows.push(SpeedRow {
                            kernel: kernel_name(&file),
                            opt,
                            size,
                            factor: options.factor.unwrap_or(1),
                            runs: 1,
                            defines: Vec::new(),
                            end: SpeedEnd::Failed(e.clone()),
                        });
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let failed = rows.iter().any(|r| match &r.end {
        SpeedEnd::Failed(_) => true,
        SpeedEnd::Measured { same, .. } => !same,
        SpeedEnd::Unchanged => false,
    });
    let table = table(&rows, options);
    Ok(SpeedResult {
        rows,
        table,
        failed,
    })
}

/// The printed tables: one per flag set and size (flag sets outer), then,
/// when there are several, the ratios side by side.
fn table(rows: &[SpeedRow], options: &SpeedOptions) -> String {
    let mut table = String::new();
    for &opt in &options.opts {
        for &size in &options.sizes {
            if !table.is_empty() {
                table.push('\n');
            }
            let repeated = size != SizeKind::Auto;
            let how = match size {
                SizeKind::Auto => String::new(),
                SizeKind::Cache => format!(
                    "; size: cache (at most {} cells declared; runs: calls of main per process)",
                    options.cache_cells.min(options.max_cells)
                ),
                SizeKind::Memory => format!(
                    "; size: memory (at least {} cells declared; runs: calls of main per process)",
                    options.memory_cells
                ),
            };
            let _ = writeln!(
                table,
                "# cc: {} {}{how}; time: user+system CPU of each run (wait4); memory: peak resident set (kB, Linux)",
                compiler(),
                cflags(opt).join(" ")
            );
            let runs = if repeated { " runs" } else { "" };
            let _ = writeln!(
                table,
                "{:<20} {:>6} {:>5}{runs:>9} {:>10} {:>10} {:>6} {:>13} {:>10} {:>10} {:>5} {:<9} params",
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
            for row in rows.iter().filter(|r| r.opt == opt && r.size == size) {
                table.push_str(&row_line(row, repeated));
            }
        }
    }
    if options.opts.len() * options.sizes.len() > 1 {
        table.push('\n');
        table.push_str(&summary(rows, options));
    }
    table
}

/// The ratios of every kernel side by side, one column per flag set and
/// size: the median and the quartiles of the pair ratios.
fn summary(rows: &[SpeedRow], options: &SpeedOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# ratio output/original: median (q1-q3) of the pairs; per flag set and size"
    );
    let mut columns = Vec::new();
    for &opt in &options.opts {
        for &size in &options.sizes {
            columns.push((opt, size));
        }
    }
    let _ = write!(out, "{:<20}", "kernel");
    for (opt, size) in &columns {
        let _ = write!(out, " {:<20}", format!("{}/{}", opt.name(), size.name()));
    }
    out.push('\n');
    let mut kernels: Vec<&str> = Vec::new();
    for row in rows {
        if !kernels.contains(&row.kernel.as_str()) {
            kernels.push(&row.kernel);
        }
    }
    for kernel in kernels {
        let _ = write!(out, "{kernel:<20}");
        for (opt, size) in &columns {
            let row = rows
                .iter()
                .find(|r| r.kernel == kernel && r.opt == *opt && r.size == *size);
            let cell = match row.map(|r| (&r.end, r.ratios())) {
                Some((SpeedEnd::Measured { same: true, .. }, ratios)) => format!(
                    "{:.3} ({:.3}-{:.3})",
                    median_f64(ratios.clone()),
                    quantile(ratios.clone(), 0.25),
                    quantile(ratios, 0.75)
                ),
                Some((SpeedEnd::Measured { .. }, _)) => "DIFFERS".into(),
                Some((SpeedEnd::Unchanged, _)) => "unchanged".into(),
                Some((SpeedEnd::Failed(_), _)) | None => "FAILED".into(),
            };
            let _ = write!(out, " {cell:<20}");
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push('\n');
    }
    out
}

/// The table line of one kernel (with the runs of `main` per process
/// when `repeated`).
fn row_line(row: &SpeedRow, repeated: bool) -> String {
    let params: Vec<String> = row
        .defines
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    let params = params.join(" ");
    let runs = |n: &str| {
        if repeated {
            format!(" {n:>8}")
        } else {
            String::new()
        }
    };
    match &row.end {
        SpeedEnd::Measured {
            original,
            transformed,
            original_kb,
            transformed_kb,
            same,
        } => {
            let ms = |v: &[Duration]| median_f64(v.iter().map(|t| t.as_secs_f64() * 1e3).collect());
            let ratios = row.ratios();
            let kb = |k: &Option<u64>| k.map_or("?".to_string(), |k| k.to_string());
            let mem = match (original_kb, transformed_kb) {
                (Some(o), Some(n)) if *o > 0 => format!("{:.2}", *n as f64 / *o as f64),
                _ => "?".into(),
            };
            format!(
                "{:<20} {:>6} {:>5}{} {:>10.1} {:>10.1} {:>6.3} {:>13} {:>10} {:>10} {:>5} {:<9} {params}\n",
                row.kernel,
                row.factor,
                ratios.len(),
                runs(&row.runs.to_string()),
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
        SpeedEnd::Unchanged => empty_row(row, &runs("-"), &params, "unchanged", ""),
        SpeedEnd::Failed(why) => {
            empty_row(row, &runs("-"), &params, "FAILED", &format!(" ({why})"))
        }
    }
}

/// The line of a kernel that was not measured: dashes, `what` in the
/// output column, then the parameters and `tail`.
fn empty_row(row: &SpeedRow, runs: &str, params: &str, what: &str, tail: &str) -> String {
    format!(
        "{:<20} {:>6} {:>5}{runs} {:>10} {:>10} {:>6} {:>13} {:>10} {:>10} {:>5} {what:<9} {params}{tail}\n",
        row.kernel, row.factor, 0, "-", "-", "-", "-", "-", "-", "-",
    )
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
            opt: OptLevel::O3,
            size: SizeKind::Auto,
            factor: 2,
            runs: 1,
            defines: vec![("N".into(), 8)],
            end: SpeedEnd::Unchanged,
        };
        let line = row_line(&row, false);
        assert_eq!(line.split_whitespace().count(), 12, "{line}");
        assert!(line.ends_with("unchanged N=8\n"), "{line}");
        // With the runs column: one more.
        let line = row_line(&row, true);
        assert_eq!(line.split_whitespace().count(), 13, "{line}");
    }

    #[test]
    fn sizes_parse_in_order_and_once() {
        assert_eq!(
            parse_sizes("cache,memory"),
            Ok(vec![SizeKind::Cache, SizeKind::Memory])
        );
        assert_eq!(parse_sizes("auto"), Ok(vec![SizeKind::Auto]));
        assert!(parse_sizes("cache,cache").is_err());
        assert!(parse_sizes("small").is_err());
    }
}
