//! `polyfold-fuzz`: long random-program and no-panic campaigns.
//!
//! ```text
//! cargo run --release -p polyfold-fuzz -- --programs 10000 --seed 1 --jobs 2
//! cargo run --release -p polyfold-fuzz -- --mutations 100000 --seed 1 --jobs 2
//! ```
//!
//! `--programs N` generates programs from seeds `S .. S+N-1` and runs the
//! differential check on each (polyfold, trace verifier, `cc -O1` on the
//! original and the output, lang-c; one program in `--sanitize-every K`
//! also under `-fsanitize=address,undefined`). Each failure is minimised
//! and written to `--out DIR` (default `fuzz-failures/`) as a regression
//! file `gen_SEED.c` with a header describing the failure: copy it to
//! `tests/regressions/` once it is understood. `--inter-array 1` runs the
//! pipeline with `--inter-array` (SMO merging of each SCoP's temporaries;
//! the generator's ping-pong and multi-array groups are where it applies);
//! `--inter-array mixed` (the default) uses it on odd seeds.
//!
//! `--forms LIST` chooses the forms of C the generator may use: `all` (the
//! default: derived size macros such as `#define LAST0 N0-1`, `N0 / 2` and
//! `N0 % 4`, `#ifdef SMALL_DATASET` sizes, `#ifndef N0` sizes rebuilt with
//! `-DN0=<other>`, comments at line ends, brace-less bodies, `else`,
//! copy-back loops, block-scoped temporaries, VLA kernels called with tiny
//! sizes, `#pragma omp parallel for`, reads `in[N0 * i + j]` of a size
//! folded into an array the SCoP only reads, a temporary passed to the
//! kernel as a parameter under `#pragma polyfold temp`, dynamic-programming
//! triangles `T[i][j] += T[i][k]` whose corner `T[0][N0 - 1]` is read
//! after the nest, a live-in cell when N0 = 1, and row sums of an upper
//! triangle read whole by a later nest, whose lattices have quasi-affine
//! moduli such as `(N0 + 1) / 2`, and linearised chains `T[W * j + k]`
//! from the cell before under `if (j - 1 >= 0 || k - 1 >= 0)`, as
//! mot_detect's `Delta`, and skewed temporaries `T[i + j][j]`,
//! `T[i][i + j]`, `T[i - j + N1 - 1][j]` read whole by a later nest,
//! strided temporaries `T[2 * i + 1][c]`, buffers of two or three
//! regions `T[i]`, `T[N0 + 2 + i]` (disjoint for every size, or one
//! pair overlapping), `= {0}` initialisers, headers
//! `for (int i = ...)`, and stencil chains: 2 to 4 sibling loops (or 2-d
//! nests), each stage reading the one before at offsets in [-2, 2]
//! within bounds shrunk to fit, which loop shifting and fusion fuses;
//! half of the programs of `all` have one, every program of
//! `--forms stencil-chains` alone), and the forms of issue 45, each a
//! kernel of its own after the main one (a "unit", see
//! `polyfold_fuzz::real_c`; two programs in three of `all` have one or
//! two, every program of a list of these forms only): `stateful-calls`
//! (an LCG `noise()` or a byte reader called in two loops,
//! `bias = noise();` between loops, a `static` global summed by one loop
//! and read by a later one through `get_total()`, pure helpers: a
//! `static` function of its parameter, `sqrt`, `__attribute__((const))`),
//! `in-place-calls` (`k(n, x, x)`, `k(n, x, x + 2)` without `restrict`,
//! `restrict` kernels with disjoint arguments), `extreme-bases` (loops
//! `for (i = base; i < base + n; i++)`, subscripts `i - base`, called with
//! `base = INT_MAX - n`, `INT_MIN` and ordinary values), `long-iterators`
//! (a `long j` loop computing `j * 1000000` next to an `int i` loop),
//! `openmp-ifdef` (per-row scratch in a loop whose pragma is under
//! `#ifdef _OPENMP`, `#if USE_OMP`, `_Pragma("omp parallel for")` or a
//! macro of it), `declaration-effects` (`double t[n + 8]; n = n + 4;`
//! then the loops; `unsigned t[64] = { next_byte(), next_byte() };`),
//! `undef-macros` (`#undef N` / `#define N 4` between two kernels) and
//! `c-macros` (`#define RESTRICT __restrict`, an attribute macro on a
//! parameter, `FOR(i, a, b)` loops, `_Pragma` before a loop and a
//! function), and the forms of issue 47, buffers where real code keeps
//! its temporaries: `caller-buffers` (a `static` kernel whose SCoP uses
//! an array parameter as scratch, `main` owning the buffer: a local
//! array or VLA, `malloc(sizeof(double[N][M]))`, `malloc(N * sizeof *t)`,
//! `calloc`, or a PolyBench-style macro family `ARRAY_2D`/`ALLOC_2D`/
//! `ARR`/`FREE_ARRAY` defined in the program; extents `BN0`, `BM0` or
//! VLA parameters `[n][m]`; one call, two or three, or a loop over a
//! table of sizes; and variants polyfold must leave alone: the buffer
//! printed or summed after the call, stored in a global pointer, passed to
//! a function of external linkage, the kernel called through a function
//! pointer, `realloc`, one buffer for two parameters, cells read before
//! written (values carried between calls), a caller's initialising loop)
//! and `heap-buffers` (the kernel allocates its scratch, `double (*t)[m] =
//! malloc(sizeof(double[n][m]))`, `double *t = malloc(n * sizeof *t)` or
//! `calloc`, linearised `malloc(sizeof(double) * n * m)` indexed
//! `t[i * m + (j - 1)]`, `t[(j - 1) + m * i]` or `t[i * m + j - 1]` (a
//! sum that does not split, left alone), and frees it; variants: the pointer stored in a global,
//! passed to an unknown function, `realloc`ed, moved (`t + 1`, `t++`), or
//! the size from a function call), and the form of issue 48,
//! `time-loops` (one program in three of `all`, every program of
//! `--forms time-loops` alone, drawn from streams of their own so that the
//! other programs are the ones their seeds made before): 1 to 3 enclosing
//! time loops `for (t0 = 0; t0 <= TT0 - 1; t0++)` (`TT0` a size or a
//! kernel parameter, 0 to 3 steps, symbolic programs called with no step
//! too) around a run of the kernel's nests or of the body of one of its
//! loops, time iterators in values (`+ w * (t0 + 1)`) and in `in[]`
//! subscripts, and kernels inside the innermost time loop: a scratch
//! rewritten every step read by a sibling consumer loop (a fusion
//! candidate at depth 1, the value lifetimes' case), a value carried
//! across steps (written at step t, read at step t + 1: `S[u] = w *
//! C[u] + (t0)` then `C[u] = w * S[u] + ..`, or `C[u] += w * C[u + 1]`), a
//! copy-back stencil; every carried array and scratch reaches `out`;
//! and the form of issue 51, `labels-bitwise` (half the programs of `all`,
//! every program of `--forms labels-bitwise` alone, from a stream of its
//! own; printing only): loops labelled `L<k>:` on a line of their own or
//! before the loop on its line (never right after an `omp` pragma), and
//! loop conditions `(i <= ub) & (i - 1 < ub)`.
//! `main` calls each unit's kernel with the values that expose
//! its form (the aliasing arguments, the extreme bases) and prints every
//! cell and the state it leaves. A program with a unit of
//! `extreme-bases`, `long-iterators`, `declaration-effects`,
//! `caller-buffers` or `heap-buffers` is always built with the sanitizers
//! (an overflow, a VLA overrun or an allocation shrunk too far may print
//! the right values); one of `openmp-ifdef` is also built with `-fopenmp` at
//! `-O0` (the shared scratch of a race stays in memory) and with the
//! `-DUSE_OMP=0/1` choices. The summary counts, per form, the programs
//! that use it, those polyfold changed there and passed, and those that
//! failed.
//! `classic` (the
//! original generator:
//! seeds keep the meaning they had before these forms existed), a list of
//! names (`comments,braceless`) or a list of names to remove from `all`
//! (`-openmp,-vla`; the ten forms of issues 45 and 47 removed so leave
//! the units out). Each program uses a random subset of the forms given.
//! Every other build of a program (`-D` choices, `-fopenmp` with 4
//! threads, ThreadSanitizer when `cc -fopenmp -fsanitize=thread` works)
//! is compiled and compared too, for the original and for the output.
//!
//! Every other pair of seeds runs polyfold with `--pin-sizes` (storage
//! and schedules certified for the known sizes only, pinned by
//! `_Static_assert`s; the builds that change sizes are then skipped).
//!
//! `--sizes symbolic|values|mixed` says whether polyfold sees the sizes'
//! values. `values` is the generator as above (sizes `#define`d or given
//! by `-D` builds; the `vla` form may make some of them kernel
//! parameters). `symbolic` makes every size, the time steps too, an `int`
//! parameter of the kernel with no value anywhere: no `#define` of a size,
//! no `-D` to polyfold or to `cc`, no derived size (`LAST0`, `N0 / 2`:
//! polyfold leaves those statements out of its SCoPs without values),
//! every temporary a VLA whose extents
//! are affine in the parameters (`N0 + 2`, `2 * N0 + 1`, `N0 + N1`), with
//! every shape of the generator (producer groups, chained multi-array
//! groups, initialised groups, ping-pong stencils with and without
//! copy-back loops, row groups, triangular loops, bounds `N0 - 1`,
//! `2 * N0 - 1`, `N0 + N1 - 2`, one to three parameters). `main` calls
//! the kernel, in the one compiled program, with the sizes it was built
//! for, every size 1, 2 and 3, two mixes of small sizes, no time step,
//! and two larger random sets; a call is kept only when the ORIGINAL is
//! well defined with it (every declared extent >= 1 — a kernel declaring
//! `T[N0 - 2]` is not valid C for `N0 <= 2` —, every access in bounds, no
//! read before write), and every call's output is printed and compared.
//! The trace verifier, which skips a SCoP whose parameters have no value,
//! runs again at each call's sizes (every read must see the value it
//! sees in the original; `--trace-calls 0` turns this off).
//! `--reschedule 1` takes every SCoP that `schedule::nest` can
//! re-schedule whole and the scanner print again, whatever it saves, so
//! that the generated loops themselves are compiled, run and traced. With `--sanitize-symbolic 1` (the default) a
//! symbolic program that
//! polyfold changed is always built with `-fsanitize=address,undefined`,
//! the original and the output. `mixed` (the default) makes the programs
//! of the seeds with `seed / 2` odd symbolic (so both size modes meet both
//! `--inter-array` choices). As everywhere, an output polyfold leaves
//! unchanged passes; a compile error, a sanitizer report or a different
//! output of the transformed program is a failure.
//!
//! `--mutations N` runs the no-panic check of the library entry points on
//! N inputs made by the seeded mutator from the corpus and grammar-test
//! files; `--binary-every K` also runs the built `polyfold --emit scop` on
//! one input in K (exit code must be 0, 1 or 2 within 10 s). Every input
//! goes through the front end and the IR printer; `--full-every K` runs the
//! contraction and the trace verifier on one input in K (default: all). Failing
//! inputs are written to `--out DIR` as `panic_SEED.bin`.
//!
//! Hangs count work, not seconds: a polyfold library call is a `Hang`
//! when it has used more than 60 s of CPU time (its worker thread and the
//! threads it spawns, read from `/proc/self/task`), a compiled program's
//! run a failure after 10 s of CPU time (the process, from
//! `/proc/PID/stat`), so a loaded machine (other builds on the cores)
//! slows a check down without failing it. A far larger wall-clock limit,
//! ten times the CPU one, catches a call that waits without working;
//! where `/proc` cannot be read the limits are wall-clock ones (see
//! `check::run_guarded` and `check::wait_child`). The trace verifier's
//! budgets count steps; their wall-clock safety net (600 s) is beyond
//! what the CPU-time limit lets a call run.
//!
//! Exit status: 0 when nothing failed, 1 otherwise.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use polyfold_fuzz::check::{
    CheckOptions, Failure, FailureKind, builds_for, check_program, install_quiet_panic_hook,
    scratch_dir,
};
use polyfold_fuzz::generate::generate_sized;
use polyfold_fuzz::minimise::minimise;
use polyfold_fuzz::mutate::{check_no_panic, fuzz_input, seed_files};
use polyfold_fuzz::program::{Forms, GenProgram, SizeMode};
use polyfold_fuzz::real_c::RealCForm;

struct Args {
    programs: u64,
    mutations: u64,
    seed: u64,
    jobs: usize,
    sanitize_every: u64,
    binary_every: u64,
    full_every: u64,
    save_inputs: bool,
    out: PathBuf,
    polyfold_binary: Option<PathBuf>,
    minimise_tries: usize,
    inter_array: InterArray,
    forms: Forms,
    sizes: SizeMode,
    sanitize_symbolic: bool,
    trace_calls: bool,
    /// `--reschedule 1`: every SCoP the scanner can re-schedule whole is
    /// taken (see `ContractOptions::reschedule_always`).
    reschedule: bool,
}

/// When the pipeline runs with `--inter-array`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InterArray {
    Never,
    Always,
    /// On odd seeds.
    Mixed,
}

impl Args {
    fn inter_array_for(&self, seed: u64) -> bool {
        match self.inter_array {
            InterArray::Never => false,
            InterArray::Always => true,
            InterArray::Mixed => seed % 2 == 1,
        }
    }

    /// The sizes at which the trace verifier runs again (`--trace-calls`).
    fn trace_sizes(&self, program: &GenProgram) -> Vec<Vec<(String, i64)>> {
        if self.trace_calls {
            program.call_assignments()
        } else {
            Vec::new()
        }
    }

    /// The program of `seed`, with the size mode of the campaign.
    fn program(&self, seed: u64) -> GenProgram {
        generate_sized(seed, &self.forms, self.sizes.symbolic_for(seed))
    }
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        programs: 0,
        mutations: 0,
        seed: 1,
        jobs: 2,
        sanitize_every: 50,
        binary_every: 100,
        full_every: 1,
        save_inputs: false,
        out: PathBuf::from("fuzz-failures"),
        polyfold_binary: None,
        minimise_tries: 300,
        inter_array: InterArray::Mixed,
        forms: Forms::all(),
        sizes: SizeMode::Mixed,
        sanitize_symbolic: true,
        trace_calls: true,
        reschedule: false,
    };
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let mut print_seed = None;
    let mut i = 0;
    while i < raw.len() {
        let flag = raw[i].as_str();
        if flag == "--help" || flag == "-h" {
            println!("{USAGE}\n(see the documentation of fuzz/src/main.rs for each option)");
            std::process::exit(0);
        }
        let value = raw
            .get(i + 1)
            .ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || -> Result<u64, String> {
            value
                .parse::<u64>()
                .map_err(|_| format!("{flag}: `{value}` is not a number"))
        };
        match flag {
            "--programs" => args.programs = number()?,
            "--mutations" => args.mutations = number()?,
            "--seed" => args.seed = number()?,
            "--jobs" => args.jobs = number()?.max(1) as usize,
            "--sanitize-every" => args.sanitize_every = number()?,
            "--binary-every" => args.binary_every = number()?,
            "--full-every" => args.full_every = number()?.max(1),
            "--minimise-tries" => args.minimise_tries = number()? as usize,
            "--out" => args.out = PathBuf::from(value),
            "--save-inputs" => args.save_inputs = number()? != 0,
            "--inter-array" => {
                args.inter_array = match value.as_str() {
                    "mixed" => InterArray::Mixed,
                    _ if number()? != 0 => InterArray::Always,
                    _ => InterArray::Never,
                }
            }
            "--forms" => args.forms = Forms::parse(value)?,
            "--sizes" => args.sizes = SizeMode::parse(value)?,
            "--sanitize-symbolic" => args.sanitize_symbolic = number()? != 0,
            "--trace-calls" => args.trace_calls = number()? != 0,
            "--reschedule" => args.reschedule = number()? != 0,
            "--replay" => {
                replay(Path::new(value));
                std::process::exit(0);
            }
            "--print" => {
                print_seed = Some(number()?);
            }
            "--polyfold" => args.polyfold_binary = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown option {flag}")),
        }
        i += 2;
    }
    if let Some(seed) = print_seed {
        let program = args.program(seed);
        print!("{}", program.to_c());
        for build in builds_for(&program) {
            eprintln!("other build: {build:?}");
        }
        std::process::exit(0);
    }
    if args.programs == 0 && args.mutations == 0 {
        return Err("nothing to do: give --programs N and/or --mutations N".into());
    }
    Ok(args)
}

const USAGE: &str = "usage: polyfold-fuzz [--programs N] [--mutations N] [--seed S] [--jobs J] \
     [--sanitize-every K] [--binary-every K] [--out DIR] [--polyfold PATH] \
     [--inter-array 0|1|mixed] [--forms all|classic|LIST] \
     [--sizes symbolic|values|mixed] [--sanitize-symbolic 0|1] [--trace-calls 0|1] \
     [--reschedule 0|1] [--print SEED]";

/// Whether the program of `seed` runs with `--pin-sizes`: every other
/// pair of seeds, so that pinned storage and schedules (made only on
/// request) are checked as often as the default.
fn pins_for(seed: u64) -> bool {
    (seed / 2) % 2 == 1
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("polyfold-fuzz: {message}");
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    install_quiet_panic_hook();
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("polyfold-fuzz: cannot create {}: {e}", args.out.display());
        return ExitCode::from(2);
    }
    let mut failed = false;
    if args.programs > 0 {
        failed |= program_campaign(&args);
    }
    if args.mutations > 0 {
        failed |= mutation_campaign(&args);
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The header comment of a regression file.
fn regression_text(program: &GenProgram, failure: &Failure, original_seed: u64) -> String {
    let detail: String = failure
        .detail
        .chars()
        .take(1500)
        .collect::<String>()
        .replace("*/", "* /");
    let builds: Vec<String> = builds_for(program)
        .iter()
        .map(|b| format!("{:?} {:?}", b.env, b.flags))
        .collect();
    let sizes = if program.shape.symbolic {
        "symbolic (kernel parameters, no value given to polyfold)"
    } else {
        "values"
    };
    format!(
        "/* Regression case found by polyfold-fuzz (generator seed {original_seed}), minimised.\n \
         * Failure: {:?}\n * Detail: {detail}\n * Sizes: {sizes}\n * Other builds: {}\n */\n{}",
        failure.kind,
        if builds.is_empty() {
            "none".to_string()
        } else {
            builds.join("; ")
        },
        program.to_c()
    )
}

/// The counts of a program campaign.
#[derive(Default)]
struct Tally {
    programs: u64,
    /// Programs where polyfold contracted at least one array.
    contracting: u64,
    arrays: u64,
    temporaries: u64,
    merged_scops: u64,
    /// Programs where polyfold fused loops (loop shifting and fusion), and
    /// the runs it fused.
    fused: u64,
    fused_runs: u64,
    /// Programs with a SCoP re-scheduled whole (printed by the scanner).
    rescheduled: u64,
    /// Programs with an array split by reference groups.
    split: u64,
    /// Programs of symbolic sizes, those polyfold changed, their
    /// contracted arrays, and their kernel calls (runtime sizes).
    symbolic: u64,
    symbolic_changed: u64,
    symbolic_arrays: u64,
    symbolic_calls: u64,
    /// Symbolic programs calling their kernel with every size <= 3 at
    /// least once, and with every size 1.
    symbolic_tiny: u64,
    symbolic_ones: u64,
    /// Per form (index into `Forms::NAMES`): the programs that drew it,
    /// those whose code of the form polyfold changed, and the failing
    /// ones.
    per_form: Vec<FormCount>,
    /// Programs with a unit of issue 45, those with a unit polyfold
    /// changed, and the failing ones.
    with_units: FormCount,
    /// Programs without a unit: all, changed (main kernel), failed.
    without_units: FormCount,
}

/// The counts of one form.
#[derive(Default, Clone, Copy)]
struct FormCount {
    programs: u64,
    changed: u64,
    failed: u64,
}

impl Tally {
    /// Counts the forms of `program`; `output` is polyfold's output when
    /// the program passed (`None`: it failed). A form of issue 45 counts
    /// as changed when the text of one of its units is not in the output
    /// verbatim; another form when the main kernel's text is not.
    fn count_forms(&mut self, program: &GenProgram, output: Option<&str>) {
        if self.per_form.is_empty() {
            self.per_form = vec![FormCount::default(); Forms::NAMES.len()];
        }
        let kernel_changed = output.map(|o| !o.contains(&program.kernel_c()));
        let unit_changed = |form: RealCForm| {
            output.map(|o| {
                program
                    .shape
                    .units
                    .iter()
                    .any(|u| u.form() == form && !o.contains(&u.file_text()))
            })
        };
        for (index, name) in Forms::NAMES.iter().enumerate() {
            if program.shape.drawn.get(name) != Some(true) {
                continue;
            }
            let changed = match RealCForm::ALL.iter().find(|f| f.name() == *name) {
                Some(form) => unit_changed(*form),
                None => kernel_changed,
            };
            let count = &mut self.per_form[index];
            count.programs += 1;
            count.changed += u64::from(changed == Some(true));
            count.failed += u64::from(changed.is_none());
        }
        if program.shape.units.is_empty() {
            self.without_units.programs += 1;
            self.without_units.changed += u64::from(kernel_changed == Some(true));
            self.without_units.failed += u64::from(kernel_changed.is_none());
        } else {
            let changed = output.map(|o| {
                program
                    .shape
                    .units
                    .iter()
                    .any(|u| !o.contains(&u.file_text()))
            });
            self.with_units.programs += 1;
            self.with_units.changed += u64::from(changed == Some(true));
            self.with_units.failed += u64::from(changed.is_none());
        }
    }

    /// Prints the counts per form.
    fn print_forms(&self) {
        let total = self.programs.max(1) as f64;
        println!(
            "programs with a unit of issue 45 or 47: {} ({:.1}%), {} with a unit changed by polyfold, {} failed",
            self.with_units.programs,
            100.0 * self.with_units.programs as f64 / total,
            self.with_units.changed,
            self.with_units.failed
        );
        println!(
            "programs without one: {}, {} with the main kernel changed by polyfold, {} failed",
            self.without_units.programs, self.without_units.changed, self.without_units.failed
        );
        println!(
            "per form: programs using it / changed by polyfold there and passed (issue 45 and 47 forms: their units; others: the main kernel) / failed (for any reason: a unit's failure counts for the main kernel's forms too)"
        );
        for (name, count) in Forms::NAMES.iter().zip(&self.per_form) {
            if count.programs == 0 {
                continue;
            }
            let issue45 = match RealCForm::ALL.iter().find(|f| f.name() == *name) {
                Some(RealCForm::CallerBuffers | RealCForm::HeapBuffers) => " (issue 47)",
                Some(_) => " (issue 45)",
                None => "",
            };
            println!(
                "  {name}{issue45}: {} programs, {} changed, {} failed",
                count.programs, count.changed, count.failed
            );
        }
    }
}

fn program_campaign(args: &Args) -> bool {
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let stats = Mutex::new(Tally::default());
    let polyfold_time = Mutex::new(Duration::ZERO);
    let failures: Mutex<Vec<FailureRecord>> = Mutex::new(Vec::new());
    let scratch = match scratch_dir("fuzz-programs") {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("polyfold-fuzz: cannot create a scratch directory: {e}");
            return true;
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..args.jobs {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst) as u64;
                    if index >= args.programs {
                        break;
                    }
                    let seed = args.seed + index;
                    let program = args.program(seed);
                    let symbolic = program.shape.symbolic;
                    let options = CheckOptions {
                        sanitize: args.sanitize_every > 0 && seed.is_multiple_of(args.sanitize_every)
                            || program.needs_sanitizers(),
                        sanitize_if_changed: symbolic && args.sanitize_symbolic,
                        trace_sizes: args.trace_sizes(&program),
                        inter_array: args.inter_array_for(seed),
                        builds: builds_for(&program),
                        reschedule: args.reschedule,
                        pin_sizes: pins_for(seed),
                        ..CheckOptions::default()
                    };
                    let name = format!("gen_{seed}");
                    match check_program(&name, &program.to_c(), &scratch, &options) {
                        Ok(s) => {
                            let mut st = stats.lock().expect("stats lock");
                            st.count_forms(&program, Some(&s.output));
                            st.programs += 1;
                            st.contracting += u64::from(s.contracted_arrays > 0);
                            st.arrays += s.contracted_arrays as u64;
                            st.temporaries += s.temporaries as u64;
                            st.merged_scops += s.merged_scops as u64;
                            st.fused += u64::from(s.fused_runs > 0 || s.rescheduled > 0);
                            st.rescheduled += u64::from(s.rescheduled > 0);
                            st.split += u64::from(s.split > 0);
                            st.fused_runs += s.fused_runs as u64;
                            if symbolic {
                                let calls = program.runtime_sizes();
                                st.symbolic += 1;
                                st.symbolic_changed += u64::from(s.changed);
                                st.symbolic_arrays += s.contracted_arrays as u64;
                                st.symbolic_calls += calls.len() as u64;
                                st.symbolic_tiny +=
                                    u64::from(calls.iter().any(|c| c.iter().all(|v| *v <= 3)));
                                st.symbolic_ones +=
                                    u64::from(calls.iter().any(|c| c.iter().all(|v| *v == 1)));
                            }
                            *polyfold_time.lock().expect("time lock") += s.polyfold_time;
                            if s.polyfold_time > Duration::from_secs(5) {
                                eprintln!(
                                    "seed {seed}: polyfold took {:.1} s",
                                    s.polyfold_time.as_secs_f64()
                                );
                            }
                        }
                        Err(failure) => {
                            eprintln!("seed {seed}: {:?}: {}", failure.kind, first_line(&failure.detail));
                            let path =
                                minimise_and_write(&program, &failure, seed, &scratch, args);
                            eprintln!("seed {seed}: minimised case written to {}", path.display());
                            let mut st = stats.lock().expect("stats lock");
                            st.count_forms(&program, None);
                            st.programs += 1;
                            st.symbolic += u64::from(symbolic);
                            failures.lock().expect("failures lock").push(FailureRecord {
                                seed,
                                kind: failure.kind,
                                detail: failure.detail,
                                symbolic,
                                forms: program.real_c_forms().iter().map(|f| f.name()).collect(),
                            });
                        }
                    }
                    let done = index + 1;
                    if done.is_multiple_of(500) {
                        let st = stats.lock().expect("stats lock");
                        eprintln!(
                            "... {done} programs, {} contracting, {} arrays contracted, {} fused, {} split, {} symbolic ({} changed), {} failures, {:.0} s",
                            st.contracting,
                            st.arrays,
                            st.fused,
                            st.split,
                            st.symbolic,
                            st.symbolic_changed,
                            failures.lock().expect("failures lock").len(),
                            start.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let st = stats.lock().expect("stats lock");
    let failures = failures.lock().expect("failures lock");
    println!(
        "programs: {} (seeds {}..={}), {:.1} s, {} jobs, sizes {:?}",
        st.programs,
        args.seed,
        args.seed + args.programs - 1,
        start.elapsed().as_secs_f64(),
        args.jobs,
        args.sizes
    );
    println!(
        "programs contracting at least one array: {} ({:.1}%)",
        st.contracting,
        100.0 * st.contracting as f64 / st.programs.max(1) as f64
    );
    println!(
        "arrays contracted: {} of {} temporaries",
        st.arrays, st.temporaries
    );
    println!(
        "programs with fused loops: {} ({:.1}%), {} runs fused",
        st.fused,
        100.0 * st.fused as f64 / st.programs.max(1) as f64,
        st.fused_runs
    );
    println!(
        "programs with a SCoP re-scheduled whole (scanner): {}",
        st.rescheduled
    );
    println!(
        "programs with an array split by reference groups: {}",
        st.split
    );
    if args.inter_array != InterArray::Never {
        println!(
            "SCoPs with merged temporaries (--inter-array): {}",
            st.merged_scops
        );
    }
    if args.sizes != SizeMode::Values {
        let passed = st.symbolic - failures.iter().filter(|f| f.symbolic).count() as u64;
        println!(
            "programs of symbolic sizes (no value given to polyfold): {}, changed by polyfold: {}, arrays contracted: {}",
            st.symbolic, st.symbolic_changed, st.symbolic_arrays
        );
        println!(
            "  kernel calls (runtime sizes) of the passing ones: {} ({:.1} per program); {} with a call of every size <= 3, {} with every size 1",
            st.symbolic_calls,
            st.symbolic_calls as f64 / passed.max(1) as f64,
            st.symbolic_tiny,
            st.symbolic_ones
        );
    }
    println!(
        "time in polyfold (library, summed over jobs): {:.1} s",
        polyfold_time.lock().expect("time lock").as_secs_f64()
    );
    st.print_forms();
    println!("failures: {}", failures.len());
    for f in failures.iter() {
        let sizes = if f.symbolic { " (symbolic sizes)" } else { "" };
        let forms = if f.forms.is_empty() {
            String::new()
        } else {
            format!(" [{}]", f.forms.join(", "))
        };
        println!(
            "  seed {}{sizes}{forms}: {:?}: {}",
            f.seed,
            f.kind,
            first_line(&f.detail)
        );
    }
    !failures.is_empty()
}

/// A failing program of a campaign.
struct FailureRecord {
    seed: u64,
    kind: FailureKind,
    detail: String,
    symbolic: bool,
    /// The forms of issue 45 of its units.
    forms: Vec<&'static str>,
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(300)
        .collect()
}

fn minimise_and_write(
    program: &GenProgram,
    failure: &Failure,
    seed: u64,
    scratch: &Path,
    args: &Args,
) -> PathBuf {
    // A failure seen only under the sanitizers must be minimised under
    // them (symbolic programs are built with them when polyfold changed
    // them).
    let options = CheckOptions {
        sanitize: failure.detail.contains("Sanitizer")
            || failure.detail.contains("runtime error")
            || program.needs_sanitizers(),
        sanitize_if_changed: program.shape.symbolic && args.sanitize_symbolic,
        library_time_limit: if failure.kind == FailureKind::Hang {
            Duration::from_secs(60)
        } else {
            Duration::from_secs(20)
        },
        inter_array: args.inter_array_for(seed),
        pin_sizes: pins_for(seed),
        ..CheckOptions::default()
    };
    let mut counter = 0u64;
    let (small, _) = if failure.kind == FailureKind::Hang {
        (program.clone(), 0)
    } else {
        minimise(program, args.minimise_tries, &mut |candidate| {
            counter += 1;
            let name = format!("min_{seed}_{counter}");
            let options = CheckOptions {
                builds: builds_for(candidate),
                trace_sizes: args.trace_sizes(candidate),
                ..options.clone()
            };
            match check_program(&name, &candidate.to_c(), scratch, &options) {
                Err(f) => f.kind == failure.kind,
                Ok(_) => false,
            }
        })
    };
    // Re-check the minimum for its own failure detail.
    let options = CheckOptions {
        builds: builds_for(&small),
        trace_sizes: args.trace_sizes(&small),
        ..options
    };
    let final_failure =
        match check_program(&format!("min_{seed}"), &small.to_c(), scratch, &options) {
            Err(f) => f,
            Ok(_) => failure.clone(),
        };
    let prefix = if args.inter_array_for(seed) {
        "inter_array_"
    } else {
        ""
    };
    let sizes = if program.shape.symbolic {
        "symbolic_"
    } else {
        ""
    };
    let path = args.out.join(format!("{prefix}{sizes}gen_{seed}.c"));
    let _ = std::fs::write(&path, regression_text(&small, &final_failure, seed));
    path
}

fn mutation_campaign(args: &Args) -> bool {
    let start = Instant::now();
    let seeds = seed_files(Path::new(env!("CARGO_MANIFEST_DIR")), 20);
    let binary = args.polyfold_binary.clone().or_else(|| {
        let me = std::env::current_exe().ok()?;
        let sibling = me.with_file_name("polyfold");
        sibling.exists().then_some(sibling)
    });
    let scratch = match scratch_dir("fuzz-mutations") {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("polyfold-fuzz: cannot create a scratch directory: {e}");
            return true;
        }
    };
    let next = AtomicUsize::new(0);
    let binary_runs = AtomicUsize::new(0);
    let failures: Mutex<Vec<(u64, String)>> = Mutex::new(Vec::new());
    let per_kind: Mutex<std::collections::BTreeMap<String, (u64, Duration)>> =
        Mutex::new(Default::default());
    std::thread::scope(|scope| {
        for _ in 0..args.jobs {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst) as u64;
                    if index >= args.mutations {
                        break;
                    }
                    let seed = args.seed + index;
                    let (kind, bytes) = fuzz_input(seed, &seeds);
                    if args.save_inputs {
                        let _ = std::fs::write(args.out.join(format!("input_{seed}.c")), &bytes);
                    }
                    let mut problem = None;
                    let started = Instant::now();
                    if let Err((k, detail)) = check_no_panic(
                        &bytes,
                        seed.is_multiple_of(args.full_every),
                        Duration::from_secs(20),
                    ) {
                        problem = Some(format!("{kind:?} input: library {k:?}: {detail}"));
                    }
                    {
                        let mut table = per_kind.lock().expect("lock");
                        let entry = table.entry(format!("{kind:?}")).or_default();
                        entry.0 += 1;
                        entry.1 += started.elapsed();
                    }
                    if problem.is_none()
                        && args.binary_every > 0
                        && seed.is_multiple_of(args.binary_every)
                        && let Some(binary) = &binary
                    {
                        binary_runs.fetch_add(1, Ordering::SeqCst);
                        if let Err(e) = run_binary(binary, &bytes, seed, &scratch) {
                            problem = Some(format!("{kind:?} input: binary: {e}"));
                        }
                    }
                    if let Some(message) = problem {
                        eprintln!("seed {seed}: {}", first_line(&message));
                        let _ = std::fs::write(args.out.join(format!("panic_{seed}.bin")), &bytes);
                        failures.lock().expect("lock").push((seed, message));
                    }
                    let done = index + 1;
                    if done.is_multiple_of(10_000) {
                        eprintln!(
                            "... {done} inputs, {} failures, {:.0} s",
                            failures.lock().expect("lock").len(),
                            start.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let failures = failures.lock().expect("lock");
    println!(
        "fuzzed inputs: {} (seeds {}..={}), {:.1} s, {} jobs; {} also through the binary ({})",
        args.mutations,
        args.seed,
        args.seed + args.mutations - 1,
        start.elapsed().as_secs_f64(),
        args.jobs,
        binary_runs.load(Ordering::SeqCst),
        binary
            .as_ref()
            .map(|b| b.display().to_string())
            .unwrap_or_else(|| "no polyfold binary found".into())
    );
    for (kind, (n, time)) in per_kind.lock().expect("lock").iter() {
        println!(
            "  {kind}: {n} inputs, {:.1} ms each on average",
            time.as_secs_f64() * 1000.0 / (*n).max(1) as f64
        );
    }
    println!(
        "failures (panics, hangs, bad exit codes): {}",
        failures.len()
    );
    for (seed, message) in failures.iter() {
        println!("  seed {seed}: {}", first_line(message));
    }
    !failures.is_empty()
}

/// Runs `polyfold --emit scop` on the input; an error unless it exits with
/// 0, 1 or 2 within 10 s of CPU time (see `check::wait_child`).
fn run_binary(binary: &Path, bytes: &[u8], seed: u64, scratch: &Path) -> Result<(), String> {
    let path = scratch.join(format!("input_{seed}.c"));
    std::fs::write(&path, bytes).map_err(|e| format!("cannot write the input: {e}"))?;
    let stderr_path = scratch.join(format!("input_{seed}.stderr"));
    let stderr_file =
        std::fs::File::create(&stderr_path).map_err(|e| format!("cannot create a file: {e}"))?;
    let mut child = std::process::Command::new(binary)
        .arg("--emit")
        .arg("scop")
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .stderr(stderr_file)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let status = match polyfold_fuzz::check::wait_child(&mut child, Duration::from_secs(10)) {
        Ok(status) => status,
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_file(&stderr_path);
            return Err(format!("hang: {e}"));
        }
    };
    let _ = std::fs::remove_file(&path);
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    let _ = std::fs::remove_file(&stderr_path);
    match status.code() {
        Some(0..=2) => Ok(()),
        Some(code) => Err(format!("exit code {code}: {}", first_line(&stderr))),
        None => Err(format!("killed by a signal ({status})")),
    }
}

/// Runs the library entry points on one file, printing the time of each
/// phase (to locate a hang or a slow phase).
fn replay(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let start = Instant::now();
    let program = polyfold::frontend::extract("replay.c", &text, &Default::default());
    eprintln!("extract: {:.3} s", start.elapsed().as_secs_f64());
    let start = Instant::now();
    // POLYFOLD_FUZZ_TIME_MS=T replays with a T ms wall-clock budget per
    // array instead of the deterministic step budget.
    let mut options = polyfold_fuzz::mutate::fuzz_contract_options();
    if let Some(ms) = std::env::var("POLYFOLD_FUZZ_TIME_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        options.time_per_array = Duration::from_millis(ms);
        options.steps_per_array = u64::MAX;
    }
    let contraction = polyfold::pipeline::contract_program(&program, &options);
    eprintln!("contract_program: {:.3} s", start.elapsed().as_secs_f64());
    if let Ok(contraction) = contraction {
        for d in &contraction.decisions {
            eprintln!(
                "  {}: {:?} ({:.3} s)",
                d.name,
                d.outcome,
                d.time.as_secs_f64()
            );
        }
        let start = Instant::now();
        let mut budget = polyfold::poly::Budget::new(1_000_000, Some(Duration::from_secs(60)));
        let r = polyfold::pipeline::verify_contraction(&program, &contraction, &mut budget);
        eprintln!(
            "verify_contraction: {:.3} s: {:?}",
            start.elapsed().as_secs_f64(),
            r.map(|v| v.len())
        );
    }
}
