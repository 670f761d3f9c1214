//! The command line, declared with clap.
//!
//! `polyfold [OPTIONS] FILE...` runs the pipeline on each file and prints
//! the transformed program (or writes it with `-i`, shows a diff with
//! `--diff`, checks with `--check`, reports with `--report`, or prints an
//! intermediate form with `--emit`). Subcommands: `verify`, `plot`,
//! `bench`, `lattice`, `smo`, `explain`. `args_conflicts_with_subcommands`
//! keeps `polyfold FILE` and `polyfold verify FILE` both working; the
//! binary moves a subcommand written after options first (`polyfold -q
//! verify x.c`) and refuses a misspelt one before reading any file. The
//! global options (`-q`, `-v`, `--log`) are accepted before and after any
//! subcommand. This module only declares; the driver acts.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

pub use crate::frontend::preproc::CommandMacro;

/// Exit codes, shown at the end of `--help` (and in `docs/exit-codes.md`,
/// whose table `tests/cli/exit_codes.rs` runs).
pub const EXIT_CODES: &str = "\
Exit codes:
  0  success, nothing to change (rejected code and kept arrays are reported and
     still exit 0)
  1  a file that would change (--check, --diff), a wrong read (verify), a
     difference (equiv), a regression (bench)
  2  an error: a file that does not parse (nothing is written), a usage error
     (an unknown option or subcommand, -i with a subcommand), a file that
     cannot be read or written (or mixes bytes that are not UTF-8 with the
     characters U+10FF80..U+10FFFF), an unknown --temp/--live-out name, a
     function equiv cannot check, or an internal error";

#[derive(Debug, Parser)]
#[command(
    name = "polyfold",
    version,
    about = "Shrinks the temporary arrays of the affine loop nests (SCoPs) of C files with certified modulo mappings.",
    after_help = EXIT_CODES,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Developer diagnostics on stderr, for comma-separated stages: smo,
    /// ilp, conflicts, or all (e.g. `--log smo,ilp`).
    #[arg(long = "log", value_name = "TARGETS", global = true)]
    pub log: Option<String>,
    /// Print no warnings and no notes (errors still print); with `bench`,
    /// no notes and no progress line. Before or after any subcommand.
    #[arg(short = 'q', long = "quiet", global = true)]
    pub quiet: bool,
    /// Also print the warnings and notes about code with no candidate
    /// loop nest (loops that write no array polyfold could fold: test
    /// harnesses, printing, polyfold's own output); by default they are
    /// not shown. Before or after any subcommand.
    #[arg(short = 'v', long = "verbose", global = true, conflicts_with = "quiet")]
    pub verbose: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check the mappings by trace interpretation for concrete parameter
    /// values: every read must see the value it sees in the original program.
    /// Also prints the max-live lower bound per array and in total.
    Verify(VerifyArgs),
    /// Draw, as self-contained SVG files in DIR, per SCoP the live values
    /// over the run against the storage before and after, and per 2-D
    /// temporary with a modular mapping its difference set and lattice;
    /// `index.html` lists them with the report's numbers. Needs parameter
    /// values (`#define` or `-D`).
    Plot(PlotArgs),
    /// Run the corpus regression table: sizes, lower bounds, published
    /// figures, methods and median times; exit 1 on a regression.
    Bench(BenchArgs),
    /// The stand-alone Cl@k role: successive minima, every heuristic's
    /// lattice and mapping, and the optimal lattice of a 0-symmetric polytope
    /// or difference set given in isl notation (e.g. printed by `--emit ds`).
    Lattice(LatticeArgs),
    /// Run the SMO storage optimiser (seed 000) on a conflict specification
    /// in the `.smo.input` format of SMO's authors; print the storage
    /// mappings, sizes, the baseline and the certification verdicts.
    Smo(SmoArgs),
    /// Explain a diagnostic code: what triggers it, why, and what to do
    /// (e.g. `polyfold explain PF016`); `--markdown` prints the reference
    /// of every code, `docs/diagnostics.md`.
    Explain(ExplainArgs),
    /// Check that CHANGED computes the same live-out values as ORIGINAL
    /// (translation validation, hand edits included): each function with
    /// SCoPs whose text differs runs in both files with symbolic values for
    /// the known sizes (`#define` or `-D`); exit 0 equal, 1 different (the
    /// first differing cell and where the traces diverge), 2 not checkable.
    /// See docs/equiv.md.
    Equiv(EquivArgs),
    /// One measurement of `bench --scale` (run by it in a child process):
    /// FILE with its size `#define`s multiplied by the factor; prints one
    /// JSON line with its own peak memory.
    #[command(name = "bench-scale-one", hide = true)]
    BenchScaleOne(BenchScaleOneArgs),
    /// Prints a generated input of the large-input benchmark: `many-kernels
    /// COUNT` (a file of COUNT small kernels) or `blur WIDTHxHEIGHT` (a
    /// blur of a large image through a temporary).
    #[command(name = "bench-input", hide = true)]
    BenchInput(BenchInputArgs),
    /// One measurement of `bench --scale --large` (run by it in a child
    /// process): prints one JSON line with its time and peak memory.
    #[command(name = "bench-large-one", hide = true)]
    BenchLargeOne(BenchLargeOneArgs),
}

#[derive(Debug, Clone, Args)]
pub struct BenchLargeOneArgs {
    #[arg(value_name = "CASE", value_parser = crate::bench::large::Case::parse)]
    pub case: crate::bench::large::Case,
}

/// Which generated input `bench-input` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchInputKind {
    ManyKernels,
    Blur,
}

#[derive(Debug, Clone, Args)]
pub struct BenchInputArgs {
    #[arg(value_name = "KIND", value_enum)]
    pub kind: BenchInputKind,
    /// The number of kernels (`many-kernels`) or `WIDTHxHEIGHT` (`blur`).
    #[arg(value_name = "SIZE")]
    pub size: String,
}

#[derive(Debug, Clone, Args)]
pub struct BenchScaleOneArgs {
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[arg(long, default_value_t = 1)]
    pub factor: u64,
    #[arg(long, default_value_t = 3)]
    pub repeats: u32,
    /// Seconds: no further repeat starts beyond this.
    #[arg(long = "time-budget", default_value_t = 150.0)]
    pub time_budget: f64,
    #[arg(long = "fixed", value_name = "[KERNEL:]NAME")]
    pub fixed: Vec<String>,
    #[arg(long = "no-lattice")]
    pub no_lattice: bool,
    #[arg(long = "no-inter-array")]
    pub no_inter_array: bool,
    #[arg(long = "pin-sizes")]
    pub pin_sizes: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// The code, e.g. `PF016` (case does not matter).
    #[arg(value_name = "CODE", required_unless_present = "markdown")]
    pub code: Option<String>,

    /// Print the reference page of every code (Markdown) instead.
    #[arg(long, conflicts_with = "code")]
    pub markdown: bool,
}

#[derive(Debug, Clone, Args)]
pub struct SmoArgs {
    /// The `.smo.input` file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Parameter values for the sizes and the exact check (repeatable), e.g. `-D N0=64`.
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, i64)>,
}

#[derive(Debug, Clone, Args)]
pub struct LatticeArgs {
    /// The set in isl notation, e.g. `[N] -> { [i, j] : -N < i < N and -1 <= j <= 1 }`;
    /// `@FILE` reads it from a file and `-` from standard input (a DS printed
    /// by `--emit ds` can be longer than a command line allows).
    #[arg(value_name = "ISL_SET")]
    pub set: String,

    /// Parameter values (repeatable), e.g. `-D N=100`.
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, i64)>,

    /// Work allowed to the optimal search, in search steps (`k`, `M`, `G`
    /// suffixes; 0: no search). A count, not a time: the result is the
    /// same on any machine, under any load.
    #[arg(long = "optimal-budget", value_name = "STEPS", default_value = "100M", value_parser = parse_work)]
    pub optimal_budget: u64,
}

/// Options shared by the default action and `verify`.
#[derive(Debug, Clone, Args)]
pub struct AnalysisArgs {
    /// Define a macro as `cc` does (repeatable): `-D NAME` (to 1) or
    /// `-D NAME=TOKENS`, e.g. `-D N=100`, `-D SMALL_DATASET`,
    /// `-D DATA_TYPE=float`. It overrides a `#define` of the file.
    #[arg(short = 'D', value_name = "NAME[=TOKENS]", value_parser = parse_macro_define)]
    pub define: Vec<CommandMacro>,

    /// Cancel the `-D NAME`s given before it (repeatable).
    #[arg(short = 'U', value_name = "NAME", value_parser = parse_macro_undef)]
    pub undef: Vec<CommandMacro>,

    /// Look for `#include` files in this directory (repeatable, searched in
    /// order, after the including file's own directory for `#include "..."`;
    /// an `#include <...>` found in no -I directory is a system header and
    /// is not read).
    #[arg(short = 'I', value_name = "DIR", value_parser = parse_include_dir)]
    pub include: Vec<PathBuf>,

    /// Treat this array as a temporary even if it looks external
    /// (repeatable): `NAME`, or `FUNCTION:NAME` for the array of that
    /// function's SCoPs only (needed when SCoPs of several functions have
    /// an array `NAME`).
    #[arg(long = "temp", value_name = "[FUNCTION:]NAME")]
    pub temp: Vec<String>,

    /// Work only on the SCoPs of this function (repeatable); the rest of
    /// the file stays as it is. A name that is no function of the file is
    /// a usage error (exit 2).
    #[arg(long = "function", value_name = "NAME", value_parser = parse_function_name)]
    pub function: Vec<String>,

    /// How diagnostics are printed on stderr: `human` (with the source
    /// lines, the default), `short` (one line each:
    /// `file:line:col: severity: message [CODE]`, for editors and CI
    /// problem matchers), `json` (one JSON object per line) or `sarif`
    /// (one SARIF 2.1.0 log for the whole run on stderr, for code
    /// scanning: `2> polyfold.sarif`).
    #[arg(
        long = "message-format",
        value_enum,
        value_name = "FORMAT",
        default_value = "human"
    )]
    pub message_format: MessageFormat,

    /// Print no diagnostic with this code (repeatable), e.g.
    /// `--allow PF016` (`polyfold explain CODE` says what a code means).
    #[arg(long = "allow", value_name = "CODE", value_parser = parse_diagnostic_code)]
    pub allow: Vec<String>,

    /// Treat this array as live-out: it keeps its layout (repeatable;
    /// `FUNCTION:NAME` as for --temp).
    #[arg(long = "live-out", value_name = "[FUNCTION:]NAME")]
    pub live_out: Vec<String>,

    /// Use successive modulo only (no lattice heuristics or optimal search).
    #[arg(long = "no-lattice")]
    pub no_lattice: bool,

    /// Keep triangles unpacked: a temporary whose accesses stay in a
    /// triangle of two square dimensions is otherwise stored row by row in
    /// `E * (E + 1) / 2` cells (`T[i * (i + 1) / 2 + j]`).
    #[arg(long = "no-packing")]
    pub no_packing: bool,

    /// Work allowed to the optimal lattice search per array, in search
    /// steps (`k`, `M`, `G` suffixes; 0: no search; 100M is about 1 s on an
    /// idle machine). A count, not a time: the result is the same on any
    /// machine, under any load.
    #[arg(long = "optimal-budget", value_name = "STEPS", default_value = "100M", value_parser = parse_work)]
    pub optimal_budget: u64,
    /// Wall-clock safety net per array, in seconds. Results are decided by
    /// work counts, never by time; this limit only stops a pathological
    /// case, and when it fires polyfold warns that the result may differ
    /// between runs.
    #[arg(long = "time-limit", value_name = "SECONDS", default_value_t = 60.0)]
    pub time_limit: f64,
    /// Do not fold the temporaries of a SCoP together into merged buffers.
    /// By default they are (SMO), and the copies that become `A[x] = A[x]`
    /// are deleted, wherever that needs fewer cells than folding each array
    /// alone and pays for itself (see --min-memory): proven for every
    /// parameter value, or certified for the known values and pinned by a
    /// `_Static_assert`.
    #[arg(long = "no-inter-array", overrides_with = "inter_array")]
    pub no_inter_array: bool,
    /// Merge the temporaries of each SCoP where that is smaller: the
    /// default (accepted so that existing scripts keep working).
    #[arg(long = "inter-array", overrides_with = "no_inter_array")]
    pub inter_array: bool,
    /// Wall-clock safety net of the merging per SCoP (conflict set and
    /// solves), in seconds. Results are decided by work counts; when it
    /// fires polyfold says the result may differ between runs.
    #[arg(
        long = "inter-array-budget",
        value_name = "SECONDS",
        default_value_t = 120.0
    )]
    pub inter_array_budget: f64,
    /// The smallest storage at any price: take a fold even when it puts a
    /// `%` on the accesses and saves less than a quarter of the array's
    /// cells (by default such an array keeps its layout, and the report
    /// says so), and merged buffers even when they save less than a
    /// quarter of the cells of the arrays folded alone or select their
    /// buffer by a conditional on the loop iterators.
    #[arg(long = "min-memory")]
    pub min_memory: bool,
    /// Allow storage certified only for the known values of the `#define`d
    /// sizes (or only from some size on), pinned by a `_Static_assert`
    /// after its declaration, and whole-SCoP schedules that assume
    /// conditions on the sizes, pinned before the SCoP: a rebuild with
    /// other sizes fails to compile.
    /// By default every storage is valid for every size the input accepts,
    /// and the report says what the pin would have saved.
    #[arg(long = "pin-sizes")]
    pub pin_sizes: bool,
    /// Print a `%` by a modulus known only at run time (a function
    /// parameter or a variable) as one conditional subtraction,
    /// `a < b ? a : a - b`, where the argument is proven below twice the
    /// modulus: no division in the loop. polyfold cannot read such a
    /// subscript back (`polyfold verify` of the output skips its SCoP).
    #[arg(long = "fast-modulo")]
    pub fast_modulo: bool,
    /// Keep every `%` as the mapping prints it: no rotating indices (by
    /// default a residue that an innermost loop advances by a constant
    /// step is a variable started before the loop and advanced at the end
    /// of its body).
    #[arg(long = "no-rotate")]
    pub no_rotate: bool,
    /// Keep the loops' schedule: no loop shifting and fusion (by default
    /// consecutive loops are fused, shifted by their dependence distances,
    /// when the fused program's temporaries need fewer cells).
    #[arg(long = "no-fusion")]
    pub no_fusion: bool,
    /// Keep every array whole: no split by reference groups (by default a
    /// temporary whose accesses form groups that never touch one cell is
    /// split into one array per group, when that needs fewer cells).
    #[arg(long = "no-split")]
    pub no_split: bool,
    /// Trade a little memory for speed: round a number modulus that a `%`
    /// computes in an innermost loop up to the next power of two, where
    /// the enlarged mapping is certified again and adds at most an eighth
    /// of the array's declared cells, and print every power-of-two number
    /// modulus as a mask, `(e) & (m - 1)`.
    #[arg(long = "pow2-moduli")]
    pub pow2_moduli: bool,
}

/// Options of the default action (running the pipeline on files).
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// C files to process.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Process up to N files at a time; the output (and `--report json`'s
    /// document) is the same as one at a time, in the order of the files.
    /// A run of more than ten seconds logs a line per file on stderr.
    #[arg(short = 'j', long = "jobs", value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,

    /// Print an intermediate form instead of the transformed program.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub emit: Option<Emit>,

    /// Rewrite each file in place (atomically: temporary file + rename).
    #[arg(short = 'i', long = "in-place", conflicts_with_all = ["diff", "check", "emit"])]
    pub in_place: bool,

    /// Print a unified diff instead of the transformed program.
    #[arg(long, conflicts_with_all = ["check", "emit"])]
    pub diff: bool,

    /// Print nothing; exit 1 when a file would change (for CI).
    #[arg(long, conflicts_with = "emit")]
    pub check: bool,

    /// Print a per-array report (sizes, mapping, method, lower bound, time)
    /// instead of the transformed program. `json` prints one document for
    /// all the files (schema in docs/report-json.md).
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["diff", "check", "emit"])]
    pub report: Option<ReportFormat>,

    /// Leave every time out of `--report` (text and JSON), so that the
    /// report depends only on the input and the flags (for snapshot tests
    /// and diffs between runs).
    #[arg(long = "no-timings")]
    pub no_timings: bool,

    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// C files to verify.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Verify up to N files at a time; the output is the same as one at
    /// a time, in the order of the files.
    #[arg(short = 'j', long = "jobs", value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,

    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

#[derive(Debug, Clone, Args)]
pub struct EquivArgs {
    /// The original C file.
    #[arg(value_name = "ORIGINAL")]
    pub original: PathBuf,

    /// The changed C file (polyfold's output, or a hand edit).
    #[arg(value_name = "CHANGED")]
    pub changed: PathBuf,

    /// Check at each of these values of a size (repeatable: every
    /// combination is checked), as `-D NAME=V` would give it, e.g.
    /// `--sizes N=1,2,17 --sizes M=3,4`.
    #[arg(long = "sizes", value_name = "NAME=V1,V2,...")]
    pub sizes: Vec<String>,

    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

#[derive(Debug, Clone, Args)]
pub struct PlotArgs {
    /// C files to draw.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The folder for the SVG files and `index.html` (created if needed).
    #[arg(long = "out", short = 'o', value_name = "DIR", required = true)]
    pub out: PathBuf,

    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("sized").args(["scale", "speed"])))]
pub struct BenchArgs {
    /// The corpus folder (its `*.c` files, `expected/` and `published.txt`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// Rewrite the expected sizes and golden outputs (review the diff!).
    #[arg(long)]
    pub bless: bool,

    /// `json`: print the whole run as one JSON document instead of the
    /// table (schema in `docs/bench-json.md`).
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    pub report: ReportFormat,

    /// Leave every time out of the table and the JSON document, so that
    /// two runs print the same bytes (for CI diffs).
    #[arg(long = "no-timings")]
    pub no_timings: bool,

    /// Successive modulo only (no lattice strategies): the configuration of
    /// seed 001's heuristic column.
    #[arg(long = "no-lattice")]
    pub no_lattice: bool,

    /// Do not merge the SCoPs' temporaries: only the per-array sizes are
    /// checked (no golden outputs, no `expected/NAME.merged`).
    #[arg(long = "no-inter-array", overrides_with = "inter_array")]
    pub no_inter_array: bool,
    /// Merge each SCoP's temporaries where that is smaller: the default
    /// (accepted so that existing scripts keep working).
    #[arg(long = "inter-array", overrides_with = "no_inter_array")]
    pub inter_array: bool,
    /// Runs per kernel; the median time is reported (default 5, 3 with
    /// `--scale`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeats: Option<u32>,

    /// The scaling benchmark instead of the regression table: every
    /// kernel of DIR (or the one file DIR names) at its own sizes and
    /// with its size `#define`s multiplied by each factor (default
    /// 1,16,256), each run in a child process; prints time, peak memory,
    /// cells and mappings per size, then per kernel the time ratio and
    /// whether the mapping stays the same.
    #[arg(long, value_name = "FACTORS", num_args = 0..=1, default_missing_value = "1,16,256",
          value_parser = crate::bench::scale::parse_factor_list)]
    pub scale: Option<crate::bench::scale::Factors>,
    /// With --scale: also the large inputs (issue 53), generated at run
    /// time, after the scaling table: `many-kernels:COUNT` (a file of
    /// COUNT small kernels, the default action), `verify-blur:WxH`
    /// (`verify` on a WxH blur through a temporary), `plot-blur:WxH`;
    /// comma-separated (default many-kernels:100, 800 and 10000,
    /// verify-blur:1920x1080, plot-blur:256x192). Each run is a child
    /// process; the row gives the median time and peak memory of
    /// --repeats runs.
    #[arg(long, value_name = "CASES", num_args = 0..=1, requires = "scale",
          default_missing_value = crate::bench::large::DEFAULT_CASES,
          value_parser = crate::bench::large::parse_cases)]
    pub large: Option<crate::bench::large::Cases>,
    /// The speed benchmark instead of the regression table: every kernel
    /// of DIR (or the one file DIR names) at each --size, built at each
    /// --opt with polyfold's output, run alternately (--repeats pairs,
    /// default 7); prints the median time ratio output/original with its
    /// quartiles, the peak memory of each and whether they print the
    /// same, one table per flag set and size, then (several) the ratios
    /// side by side.
    #[arg(long)]
    pub speed: bool,
    /// With --speed: the flag sets, comma-separated: `O2` (`$CC -O2`),
    /// `O3` (`$CC -O3 -march=native`, the default); each with
    /// `-ffp-contract=off` and `$CFLAGS`.
    #[arg(long = "opt", value_name = "LEVELS", requires = "speed",
          value_parser = crate::bench::speed::parse_opt_list)]
    pub opt: Option<crate::bench::speed::OptLevels>,
    /// With --speed: the sizes, comma-separated: `auto` (the default:
    /// the factor 1, 2, 4, ... at which the original runs --min-time),
    /// `cache` (the largest factor whose original declares at most
    /// --cache-cells cells, at least the kernel's own size), `memory`
    /// (the smallest factor whose original declares at least
    /// --memory-cells cells, at most --max-cells). At `cache` and
    /// `memory` each process calls the program's `main` again until the
    /// original takes --min-time (the `runs` column).
    #[arg(long = "size", value_name = "SIZES", requires = "speed",
          value_parser = crate::bench::speed::parse_size_list)]
    pub size: Option<crate::bench::speed::Sizes>,
    /// With --speed --size cache: the most cells the original may declare
    /// (`k`, `M`, `G` suffixes; default 32768, 256 KiB of `double`).
    #[arg(long = "cache-cells", value_name = "CELLS", value_parser = parse_work, requires = "speed")]
    pub cache_cells: Option<u64>,
    /// With --speed --size memory: the least cells the original must
    /// declare (`k`, `M`, `G` suffixes; default 8388608, 64 MiB of
    /// `double`).
    #[arg(long = "memory-cells", value_name = "CELLS", value_parser = parse_work, requires = "speed")]
    pub memory_cells: Option<u64>,
    /// With --speed: this factor for every kernel and size instead of
    /// the automatic scaling.
    #[arg(long, value_name = "K", requires = "speed",
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub factor: Option<u64>,
    /// With --speed: the CPU time (seconds) the original must reach when
    /// scaling automatically, and, at the cache and memory sizes, by
    /// calling `main` again.
    #[arg(
        long = "min-time",
        value_name = "SECONDS",
        default_value_t = 0.1,
        requires = "speed"
    )]
    pub min_time: f64,
    /// The smallest storage at any price (as the default action's
    /// --min-memory): no cost rule.
    #[arg(long = "min-memory")]
    pub min_memory: bool,
    /// Storage certified for the kernels' known sizes only may be chosen,
    /// pinned by a `_Static_assert` (as the default action's
    /// --pin-sizes).
    #[arg(long = "pin-sizes")]
    pub pin_sizes: bool,
    /// With --scale or --speed: keep this `#define` at its value
    /// (repeatable; `NAME` in every kernel, or `KERNEL:NAME`).
    #[arg(long = "fixed", value_name = "[KERNEL:]NAME", requires = "sized")]
    pub fixed: Vec<String>,
    /// With --scale or --speed: lower a kernel's factor until its original
    /// program declares at most this many cells (`k`, `M`, `G` suffixes;
    /// --speed: 64M by default).
    #[arg(long = "max-cells", value_name = "CELLS", value_parser = parse_work, requires = "sized")]
    pub max_cells: Option<u64>,
    /// With --scale: seconds one kernel at one factor may run before it
    /// is killed and shown as `timeout`.
    #[arg(
        long = "time-limit",
        value_name = "SECONDS",
        default_value_t = 600.0,
        requires = "scale"
    )]
    pub time_limit: f64,
    /// With --scale: resident memory (MB) one kernel at one factor may
    /// reach before it is killed and shown as `memory`.
    #[arg(
        long = "mem-limit",
        value_name = "MB",
        default_value_t = 4096,
        requires = "scale"
    )]
    pub mem_limit: u64,
}

/// What `--emit` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// Every SCoP in isl notation: parameters, context, domains, accesses, schedules.
    Scop,
    /// The cell conflict relation of every temporary array, in isl notation.
    Conflicts,
    /// The difference set DS of every temporary array, in isl notation.
    Ds,
    /// The exact last-writer dataflow of every read, in isl notation.
    Dataflow,
    /// The global conflict set of the temporaries of every SCoP (value
    /// lifetimes, total expansion), in the `.smo.input` format that
    /// `polyfold smo` reads; symbolic in the parameters.
    Smo,
}

/// The format of `--report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
}

/// How diagnostics are printed (`--message-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum MessageFormat {
    /// codespan-reporting: the message with the source lines under it.
    #[default]
    Human,
    /// One line: `file:line:col: severity: message [CODE]`.
    Short,
    /// One JSON object per line.
    Json,
    /// One SARIF 2.1.0 log for the whole run, printed on stderr at the
    /// end (stdout keeps the program, the diff or the report), for
    /// code-scanning services: `polyfold --check --message-format sarif
    /// *.c 2> polyfold.sarif`.
    Sarif,
}

/// Parses a diagnostic code: `PF` and three digits.
pub(crate) fn parse_diagnostic_code(s: &str) -> Result<String, String> {
    let code = s.trim().to_ascii_uppercase();
    let ok =
        code.len() == 5 && code.starts_with("PF") && code[2..].chars().all(|c| c.is_ascii_digit());
    if ok {
        Ok(code)
    } else {
        Err(format!(
            "`{s}` is not a diagnostic code (PF and three digits, e.g. PF016)"
        ))
    }
}

/// Parses `--function NAME`: a C identifier.
pub(crate) fn parse_function_name(s: &str) -> Result<String, String> {
    if is_identifier(s) {
        Ok(s.to_string())
    } else {
        Err(format!("`{s}` is not a C identifier"))
    }
}

/// Parses a work count: a non-negative integer with an optional `k`
/// (thousand), `M` (million) or `G` (billion) suffix.
pub(crate) fn parse_work(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1_000),
        Some((i, 'M')) => (&t[..i], 1_000_000),
        Some((i, 'G')) => (&t[..i], 1_000_000_000),
        _ => (t, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("`{s}` is not a work count (an integer, optionally with k, M or G)"))
}

/// Parses `NAME=VALUE` with a C identifier and an integer value.
pub(crate) fn parse_define(s: &str) -> Result<(String, i64), String> {
    // `-D NAME` alone defines NAME to 1, as in `cc`.
    let (name, value) = s.split_once('=').unwrap_or((s, "1"));
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

/// Whether `name` is a C identifier.
fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses `-D NAME` (defined to 1, as in `cc`) or `-D NAME=TOKENS` (any
/// body, possibly empty).
pub fn parse_macro_define(s: &str) -> Result<CommandMacro, String> {
    let (name, body) = s.split_once('=').unwrap_or((s, "1"));
    if name.contains('(') {
        return Err(format!(
            "`{name}`: function-like macros on the command line are not supported"
        ));
    }
    if !is_identifier(name) {
        return Err(format!("`{name}` is not a C identifier"));
    }
    if body.contains(['\n', '\r']) {
        return Err(format!("the body of `{name}` spans several lines"));
    }
    Ok(CommandMacro::Define {
        name: name.to_string(),
        body: body.trim().to_string(),
    })
}

/// Parses `-U NAME`.
pub fn parse_macro_undef(s: &str) -> Result<CommandMacro, String> {
    if !is_identifier(s) {
        return Err(format!("`{s}` is not a C identifier"));
    }
    Ok(CommandMacro::Undef(s.to_string()))
}

/// Parses `-I DIR`: an existing directory.
pub(crate) fn parse_include_dir(s: &str) -> Result<PathBuf, String> {
    let p = PathBuf::from(s);
    if p.is_dir() {
        Ok(p)
    } else {
        Err(format!("`{s}` is not a directory"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macro_definitions_follow_cc() {
        let d = |n: &str, b: &str| CommandMacro::Define {
            name: n.into(),
            body: b.into(),
        };
        assert_eq!(
            parse_macro_define("SMALL_DATASET"),
            Ok(d("SMALL_DATASET", "1"))
        );
        assert_eq!(parse_macro_define("N=100"), Ok(d("N", "100")));
        assert_eq!(
            parse_macro_define("DATA_TYPE=double"),
            Ok(d("DATA_TYPE", "double"))
        );
        assert_eq!(parse_macro_define("E="), Ok(d("E", "")));
        assert_eq!(parse_macro_define("M=N + 1"), Ok(d("M", "N + 1")));
        for bad in ["", "=3", "3X=1", "A-B", "F(x)=x"] {
            assert!(parse_macro_define(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_macro_undef("N"), Ok(CommandMacro::Undef("N".into())));
        assert!(parse_macro_undef("N=3").is_err());
        assert!(parse_include_dir("/definitely/not/here").is_err());
        assert!(parse_include_dir(".").is_ok());
    }

    #[test]
    fn work_counts_take_suffixes_and_refuse_the_rest() {
        assert_eq!(parse_work("0"), Ok(0));
        assert_eq!(parse_work("1500"), Ok(1500));
        assert_eq!(parse_work("20k"), Ok(20_000));
        assert_eq!(parse_work("100M"), Ok(100_000_000));
        assert_eq!(parse_work("3G"), Ok(3_000_000_000));
        for bad in ["", "M", "-1", "1.5M", "2 s", "99999999999999999999G"] {
            assert!(parse_work(bad).is_err(), "{bad:?}");
        }
    }
}
