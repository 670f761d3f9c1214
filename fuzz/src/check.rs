//! The differential check of one C program: polyfold (library), the trace
//! verifier, `cc` on the original and on polyfold's output, the two
//! outputs compared, and lang-c on polyfold's output.
//!
//! Library calls run under `catch_unwind` in a worker thread with a
//! CPU-time limit (and a far larger wall-clock one), so a panic or a hang
//! is a reported failure and never stops the caller, and a loaded machine
//! does not make a hang. This module does NOT generate or minimise programs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use polyfold::pipeline::{ArrayOutcome, ContractOptions, FileContraction};
use polyfold::poly::Budget;

/// The scratch directories of the checks (the library's, shared with
/// `polyfold bench --speed`).
pub use polyfold::util::scratch::scratch_dir;

/// Knobs of one check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Also build both programs with `-fsanitize=address,undefined`.
    pub sanitize: bool,
    /// Build both programs with `-fsanitize=address,undefined` when
    /// polyfold changed the program (the campaign sets it for programs of
    /// symbolic sizes, whose folded VLAs an output comparison alone might
    /// not show out of bounds).
    pub sanitize_if_changed: bool,
    /// CPU-time limit of the polyfold library calls (and [`WALL_FACTOR`]
    /// times it of wall clock; see [`run_guarded`]).
    pub library_time_limit: Duration,
    /// CPU-time limit of each compiled program's run (see [`wait_child`]).
    pub run_time_limit: Duration,
    /// Run the pipeline with `--inter-array` (SMO merging).
    pub inter_array: bool,
    /// Other builds of the original and the output, each compared too
    /// (see [`builds_for`]).
    pub builds: Vec<Build>,
    /// Values of parameters without value (a kernel's `int n`) at which
    /// the trace verifier also runs, one assignment per kernel call (see
    /// `GenProgram::call_assignments`): without values it skips a SCoP.
    pub trace_sizes: Vec<Vec<(String, i64)>>,
    /// Take every SCoP the scanner can re-schedule whole (see
    /// [`polyfold::pipeline::ContractOptions::reschedule_always`]).
    pub reschedule: bool,
    /// Run the pipeline with `--pin-sizes`: storage and schedules
    /// certified for the known sizes only, pinned by `_Static_assert`s.
    pub pin_sizes: bool,
}

/// Another build of both programs: extra compiler flags and environment
/// variables of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Build {
    pub flags: Vec<String>,
    pub env: Vec<(String, String)>,
    /// The build changes sizes (`-DN0=..`, `-DSMALL_DATASET`): skipped
    /// when polyfold pinned its output to the sizes it saw
    /// (`_Static_assert`), since such an output is right to refuse them.
    pub changes_sizes: bool,
    /// How many times the output's build runs (each run compared): more
    /// than once where a wrong output shows only in some runs (a race of
    /// OpenMP threads on a scratch polyfold made shared).
    pub runs: usize,
}

impl Build {
    fn label(&self) -> String {
        let env: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{} {}", env.join(" "), self.flags.join(" "))
            .trim()
            .to_string()
    }
}

/// The other builds of a generated program: one per size configuration
/// (`-DN0=..`, `-DSMALL_DATASET`), and for OpenMP kernels `-fopenmp` with
/// 4 threads, plus ThreadSanitizer when [`thread_sanitizer_works`].
pub fn builds_for(program: &crate::program::GenProgram) -> Vec<Build> {
    let mut builds: Vec<Build> = program
        .shape
        .configs
        .iter()
        .map(|c| Build {
            flags: c.flags.clone(),
            env: Vec::new(),
            changes_sizes: true,
            runs: 1,
        })
        .collect();
    if program.has_parallel() {
        let env = vec![("OMP_NUM_THREADS".to_string(), "4".to_string())];
        builds.push(Build {
            flags: vec!["-fopenmp".into()],
            env: env.clone(),
            changes_sizes: false,
            runs: 1,
        });
        if thread_sanitizer_works() {
            builds.push(Build {
                flags: vec!["-fopenmp".into(), "-fsanitize=thread".into()],
                env,
                changes_sizes: false,
                runs: 1,
            });
        }
    }
    // The builds the units of issue 45 need (OpenMP with and without
    // `-fopenmp`, at `-O0`, `-DUSE_OMP=0/1`), each once.
    let tsan = program
        .shape
        .units
        .iter()
        .any(|u| u.form() == crate::real_c::RealCForm::OpenmpIfdef)
        && thread_sanitizer_works();
    for unit in &program.shape.units {
        for extra in unit.builds(tsan) {
            let build = Build {
                flags: extra.flags,
                env: extra.env,
                changes_sizes: false,
                runs: extra.runs,
            };
            match builds
                .iter_mut()
                .find(|b| b.flags == build.flags && b.env == build.env)
            {
                Some(same) => same.runs = same.runs.max(build.runs),
                None => builds.push(build),
            }
        }
    }
    builds
}

/// Whether `cc -fopenmp -fsanitize=thread` builds a race-free OpenMP
/// program that runs without a report (probed once). gcc's libgomp is not
/// instrumented, so ThreadSanitizer reports false races there and the
/// probe says no; a compiler whose runtime cooperates (clang with
/// libomp/archer) passes it.
pub fn thread_sanitizer_works() -> bool {
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORKS.get_or_init(|| {
        let Ok(dir) = scratch_dir("tsan-probe") else {
            return false;
        };
        let source = dir.join("probe.c");
        let program = "#include <stdio.h>\nstatic double a[64];\nint main(void) {\n    int i;\n    double s = 0;\n#pragma omp parallel for\n    for (i = 0; i < 64; i++)\n        a[i] = 2.0 * i;\n    for (i = 0; i < 64; i++)\n        s += a[i];\n    printf(\"%g\\n\", s);\n    return 0;\n}\n";
        let works = std::fs::write(&source, program).is_ok()
            && compile(
                &source,
                &dir.join("probe.exe"),
                &["-fopenmp", "-fsanitize=thread", "-O1"],
            )
            .is_ok()
            && run_with_env(
                &dir.join("probe.exe"),
                Duration::from_secs(20),
                &[("OMP_NUM_THREADS".into(), "4".into())],
            )
            .is_ok_and(|out| out == b"4032\n");
        let _ = std::fs::remove_dir_all(&dir);
        works
    })
}

impl Default for CheckOptions {
    fn default() -> CheckOptions {
        CheckOptions {
            sanitize: false,
            sanitize_if_changed: false,
            library_time_limit: Duration::from_secs(60),
            run_time_limit: Duration::from_secs(10),
            inter_array: false,
            builds: Vec::new(),
            trace_sizes: Vec::new(),
            reschedule: false,
            pin_sizes: false,
        }
    }
}

/// The kind of a failure (the minimiser keeps a candidate only when it
/// fails with the same kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The original program does not compile or run (a generator bug).
    BadOriginal,
    /// The front end reports an error on the program.
    FrontendError,
    /// A polyfold library call panicked.
    Panic,
    /// A polyfold library call did not return within the time limit.
    Hang,
    /// `contract_program` returned an error.
    ContractError,
    /// `verify_contraction` returned an error.
    VerifierError,
    /// The trace verifier found a read that sees a wrong value.
    VerifierMismatch,
    /// polyfold's output does not compile.
    OutputDoesNotCompile,
    /// polyfold's output prints something else (or fails at run time).
    OutputDiffers,
    /// lang-c rejects polyfold's output.
    LangCRejects,
}

/// A failure with its details.
#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: FailureKind,
    pub detail: String,
}

/// What one successful check measured.
#[derive(Clone, Debug, Default)]
pub struct CheckStats {
    /// Arrays remapped (contracted) by polyfold.
    pub contracted_arrays: usize,
    /// Temporaries considered.
    pub temporaries: usize,
    /// Whether the output text differs from the input.
    pub changed: bool,
    /// SCoPs whose temporaries were merged (`inter_array`).
    pub merged_scops: usize,
    /// Runs of loops fused (loop shifting and fusion) in the contracted
    /// program: 0 when polyfold kept every schedule.
    pub fused_runs: usize,
    /// SCoPs printed again whole by the scanner with a new schedule
    /// ([`polyfold::schedule::nest`]).
    pub rescheduled: usize,
    /// Arrays split by reference groups ([`polyfold::schedule::split`]).
    pub split: usize,
    /// Wall-clock time of the polyfold library calls (front end,
    /// contraction, trace verifier).
    pub polyfold_time: Duration,
    /// polyfold's output (the campaign finds in it which parts of the
    /// program were changed).
    pub output: String,
}

/// A wall-clock limit is this many times a CPU-time limit: the safety
/// net of [`run_guarded`] and [`wait_child`] for a call that waits
/// without working (or where the CPU time cannot be read).
pub const WALL_FACTOR: u32 = 10;

/// Runs `f` in a new thread under `catch_unwind`; a hang when it has not
/// answered after `limit` of CPU time, or after [`WALL_FACTOR`] times
/// `limit` of wall-clock time. The CPU time is that of the worker thread
/// and of the threads it spawns (they inherit its name, unique per call;
/// see [`ThreadGroupClock`]), so the verdict counts work done, not the
/// load of the machine: a call slowed down by other processes is not a
/// hang. Where `/proc` cannot be read, `limit` is a wall-clock limit. A
/// thread that does not finish in time is left running (detached).
pub fn run_guarded<T: Send + 'static>(
    limit: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, FailureKindDetail> {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    // At most 15 bytes: the kernel's limit on a thread's name.
    let name = format!(
        "pfguard{}",
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 100_000_000
    );
    let (sender, receiver) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name(name.clone())
        .stack_size(16 << 20)
        .spawn(move || {
            IN_GUARDED_CALL.with(|flag| flag.set(true));
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let _ = sender.send(result);
        });
    if let Err(error) = spawned {
        return Err((FailureKind::Hang, format!("cannot spawn a thread: {error}")));
    }
    let mut clock = ThreadGroupClock::new(name);
    let start = Instant::now();
    let answer = loop {
        match receiver.recv_timeout(POLL.min(limit / 4).max(Duration::from_millis(1))) {
            Ok(answer) => break answer,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err((
                    FailureKind::Panic,
                    "the worker ended without an answer".into(),
                ));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(verdict) = hang_verdict(clock.cpu_time(), start.elapsed(), limit) {
                    return Err((FailureKind::Hang, verdict));
                }
            }
        }
    };
    match answer {
        Ok(value) => Ok(value),
        Err(payload) => {
            let location = LAST_PANIC
                .lock()
                .map(|mut last| last.take())
                .unwrap_or(None)
                .unwrap_or_default();
            Err((
                FailureKind::Panic,
                format!("{} {location}", panic_message(&payload)),
            ))
        }
    }
}

/// The wall-clock safety net of the trace verifier's budgets (their
/// steps decide): far beyond what the CPU-time limit of [`run_guarded`]
/// lets a call run on an idle machine, so that a loaded machine does not
/// stop a trace (a `VerifierError`).
const VERIFY_SAFETY_NET: Duration = Duration::from_secs(600);

/// How often [`run_guarded`] and [`wait_child`] look at the clocks.
const POLL: Duration = Duration::from_millis(50);

/// The hang verdict of a call that has used `cpu` (`None`: unknown) and
/// `wall` so far, under a CPU-time `limit`: `None` while it may go on.
pub fn hang_verdict(cpu: Option<Duration>, wall: Duration, limit: Duration) -> Option<String> {
    let wall_limit = limit.saturating_mul(WALL_FACTOR);
    match cpu {
        Some(cpu) if cpu > limit => Some(format!(
            "no answer within {} s of CPU time ({:.1} s of wall clock)",
            limit.as_secs_f64(),
            wall.as_secs_f64()
        )),
        Some(cpu) if wall > wall_limit => Some(format!(
            "no answer within {} s of wall clock ({:.1} s of CPU time)",
            wall_limit.as_secs_f64(),
            cpu.as_secs_f64()
        )),
        None if wall > limit => Some(format!(
            "no answer within {} s (wall clock: the CPU time cannot be read)",
            limit.as_secs_f64()
        )),
        _ => None,
    }
}

/// The CPU time (user and system) of the threads of this process named
/// `name`: a thread started by [`run_guarded`] and every thread it
/// spawns, which inherit its name on Linux (std names only the threads it
/// is asked to). Read from `/proc/self/task/*/{comm,stat}`; a thread that
/// ended keeps the last time seen (sampled every [`POLL`], so what it did
/// after the last sample is not counted: an under-count, which delays a
/// hang verdict and never makes one).
pub struct ThreadGroupClock {
    name: String,
    /// Clock ticks last seen per thread id.
    seen: std::collections::HashMap<u64, u64>,
    /// Ticks of threads whose id was reused by a later thread.
    retired: u64,
}

impl ThreadGroupClock {
    pub fn new(name: String) -> ThreadGroupClock {
        ThreadGroupClock {
            name,
            seen: Default::default(),
            retired: 0,
        }
    }

    /// The CPU time used so far; `None` when `/proc` cannot be read.
    pub fn cpu_time(&mut self) -> Option<Duration> {
        let tasks = std::fs::read_dir("/proc/self/task").ok()?;
        for task in tasks.flatten() {
            let Some(tid) = task
                .file_name()
                .to_str()
                .and_then(|t| t.parse::<u64>().ok())
            else {
                continue;
            };
            let path = task.path();
            let same = std::fs::read_to_string(path.join("comm"))
                .is_ok_and(|comm| comm.trim_end_matches('\n') == self.name);
            if !same {
                continue;
            }
            let Some(ticks) = std::fs::read_to_string(path.join("stat"))
                .ok()
                .and_then(|stat| stat_cpu_ticks(&stat))
            else {
                continue;
            };
            let old = self.seen.insert(tid, ticks).unwrap_or(0);
            if ticks < old {
                // Another thread of the group with a reused id.
                self.retired += old;
            }
        }
        Some(ticks_to_duration(
            self.retired + self.seen.values().sum::<u64>(),
        ))
    }
}

/// `utime + stime` (fields 14 and 15, in clock ticks) of a
/// `/proc/.../stat` line. The command name (field 2) is in parentheses
/// and may hold spaces and parentheses: the fields are counted after the
/// last `)`.
pub fn stat_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `fields[0]` is field 3 (the state).
    let utime = fields.get(11)?.parse::<u64>().ok()?;
    let stime = fields.get(12)?.parse::<u64>().ok()?;
    Some(utime + stime)
}

/// Clock ticks of `/proc` as a duration: the kernel reports them in
/// USER_HZ, 100 per second on every architecture this runs on (x86,
/// ARM, RISC-V; `getconf CLK_TCK`).
fn ticks_to_duration(ticks: u64) -> Duration {
    Duration::from_millis(ticks * 10)
}

/// The CPU time (user and system, all its threads, ended ones included)
/// of the process `pid`, while it has not been waited for.
pub fn process_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat_cpu_ticks(&stat).map(ticks_to_duration)
}

/// Waits for `child`, killing it when it has used more than `limit` of
/// CPU time or [`WALL_FACTOR`] times `limit` of wall-clock time (`limit`
/// of wall clock where its CPU time cannot be read): a program slowed down
/// by the load of the machine is not killed. `Err` says why it was killed.
pub fn wait_child(
    child: &mut std::process::Child,
    limit: Duration,
) -> Result<std::process::ExitStatus, String> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) => {
                if let Some(verdict) =
                    hang_verdict(process_cpu_time(child.id()), start.elapsed(), limit)
                {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("killed: {verdict}"));
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(POLL);
            }
            Err(e) => return Err(format!("wait failed: {e}")),
        }
    }
}

/// The location of the last panic seen by the hook of
/// [`install_quiet_panic_hook`].
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

std::thread_local! {
    /// Set in the worker threads of [`run_guarded`]: their panics are
    /// recorded quietly; every other thread's panics print as usual.
    static IN_GUARDED_CALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Replaces the panic hook by one that records the panic's location
/// (reported with the failure) instead of printing it, so that a fuzzing
/// run's output stays readable. Panics remain failures.
pub fn install_quiet_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !IN_GUARDED_CALL.with(|flag| flag.get()) {
            previous(info);
            return;
        }
        let location = info
            .location()
            .map(|l| format!("at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(location);
        }
    }));
}

/// A failure kind and its detail text.
pub type FailureKindDetail = (FailureKind, String);

/// The text of a panic payload.
pub fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// Runs polyfold and the trace verifier on `source` (no compiler), with
/// `--inter-array` and `--pin-sizes` as given.
pub fn run_polyfold(
    name: &str,
    source: &str,
    limit: Duration,
    (inter_array, pin_sizes): (bool, bool),
) -> Result<(FileContraction, CheckStats), Failure> {
    run_polyfold_traced(name, source, limit, (inter_array, false, pin_sizes), &[])
}

/// [`run_polyfold`], and the trace verifier again for each assignment of
/// `trace_sizes` (values given to the parameters that have none, in a
/// copy of the front end's program; the contraction is the one made
/// without them): a parametric mapping is checked at each size the
/// compiled program runs with.
pub fn run_polyfold_traced(
    name: &str,
    source: &str,
    limit: Duration,
    (inter_array, reschedule, pin_sizes): (bool, bool, bool),
    trace_sizes: &[Vec<(String, i64)>],
) -> Result<(FileContraction, CheckStats), Failure> {
    let name = name.to_string();
    let source = source.to_string();
    let trace_sizes = trace_sizes.to_vec();
    let start = Instant::now();
    let outcome = run_guarded(limit, move || -> Result<_, Failure> {
        let program =
            polyfold::frontend::extract(&name, &source, &polyfold::frontend::Options::default());
        if program.has_errors() {
            return Err(Failure {
                kind: FailureKind::FrontendError,
                detail: format!("{:?}", program.diagnostics),
            });
        }
        let options = ContractOptions {
            inter_array,
            // Enough to exercise the code generation; the campaign is about
            // correctness, not sizes.
            inter_array_time: Duration::from_secs(5),
            // Every fold, however little it saves: the campaign checks the
            // folds' correctness, the cost rule would hide some of them.
            min_memory: true,
            // The conditional subtractions for run-time moduli: the
            // compiled runs check their text (symbolic sizes; with values
            // every modulus is a compile-time constant and keeps its `%`).
            fast_modulo: true,
            reschedule_always: reschedule,
            pin_sizes,
            ..ContractOptions::default()
        };
        let (contraction, fusion) = polyfold::pipeline::contract_read(
            &program,
            &options,
            &polyfold::frontend::Options::default(),
        )
        .map_err(|e| Failure {
            kind: FailureKind::ContractError,
            detail: e.to_string(),
        })?;
        // A fused schedule: traced against the original at the known
        // values and at the trace sizes; the storage is the fused
        // program's.
        let fused_runs = fusion.as_ref().map_or(0, |f| f.runs.len());
        let rescheduled = fusion.as_ref().map_or(0, |f| f.rescheduled.len());
        let split = fusion.as_ref().map_or(0, |f| f.split.len());
        let program = match fusion {
            Some(f) => {
                check_fusion(&program, &f, &trace_sizes)?;
                f.program
            }
            None => program,
        };
        let mut budget = Budget::new(200_000_000, Some(VERIFY_SAFETY_NET));
        let reports = polyfold::pipeline::verify_contraction(&program, &contraction, &mut budget)
            .map_err(|e| Failure {
            kind: FailureKind::VerifierError,
            detail: e,
        })?;
        for (scop, report) in &reports {
            if let Some(m) = &report.first_mismatch {
                return Err(Failure {
                    kind: FailureKind::VerifierMismatch,
                    detail: format!("SCoP {scop}: {m:?}"),
                });
            }
        }
        verify_at_sizes(&program, &contraction, &trace_sizes)?;
        let mut stats = CheckStats::default();
        for d in &contraction.decisions {
            match d.outcome {
                ArrayOutcome::External => {}
                ArrayOutcome::Kept { .. } => stats.temporaries += 1,
                ArrayOutcome::Remapped { .. } | ArrayOutcome::Merged { .. } => {
                    stats.temporaries += 1;
                    stats.contracted_arrays += 1;
                }
            }
        }
        stats.changed = contraction.output != source;
        stats.merged_scops = contraction.merged.len();
        stats.fused_runs = fused_runs;
        stats.rescheduled = rescheduled;
        stats.split = split;
        Ok((contraction, stats))
    });
    match outcome {
        Ok(Ok((contraction, mut stats))) => {
            stats.polyfold_time = start.elapsed();
            Ok((contraction, stats))
        }
        Ok(Err(failure)) => Err(failure),
        Err((kind, detail)) => Err(Failure { kind, detail }),
    }
}

/// The trace check of a fusion ([`polyfold::schedule::Fusion::trace_check`])
/// at the parameters' known values and at each assignment of `sizes`
/// (for those without).
fn check_fusion(
    program: &polyfold::ir::Program,
    fusion: &polyfold::schedule::Fusion,
    sizes: &[Vec<(String, i64)>],
) -> Result<(), Failure> {
    let mut assignments: Vec<&[(String, i64)]> = vec![&[]];
    assignments.extend(sizes.iter().map(Vec::as_slice));
    for sizes in assignments {
        let values = |si: usize| -> Option<Vec<i64>> {
            program.scops[si]
                .params
                .iter()
                .map(|p| {
                    p.value
                        .or_else(|| sizes.iter().find(|(n, _)| *n == p.name).map(|(_, v)| *v))
                })
                .collect()
        };
        let mut budget = Budget::new(200_000_000, Some(VERIFY_SAFETY_NET));
        for (si, checked) in fusion.trace_check(program, &values, &mut budget) {
            if let Err(e) = checked {
                return Err(Failure {
                    kind: FailureKind::VerifierMismatch,
                    detail: format!("fused SCoP {si} at sizes {sizes:?}: {e}"),
                });
            }
        }
    }
    Ok(())
}

/// Runs the trace verifier on `contraction` (of `program`) once per
/// assignment of `sizes`, with those values given to the SCoPs'
/// parameters that have none (the trace skips a SCoP without values).
/// Returns how many SCoP traces ran; a mismatch or a verifier error is a
/// failure naming the sizes.
pub fn verify_at_sizes(
    program: &polyfold::ir::Program,
    contraction: &FileContraction,
    sizes: &[Vec<(String, i64)>],
) -> Result<usize, Failure> {
    let mut traces = 0;
    for sizes in sizes {
        let mut at = program.clone();
        let mut given = false;
        for param in at.scops.iter_mut().flat_map(|s| s.params.iter_mut()) {
            if param.value.is_none()
                && let Some((_, v)) = sizes.iter().find(|(n, _)| *n == param.name)
            {
                param.value = Some(*v);
                given = true;
            }
        }
        if !given {
            continue;
        }
        let mut budget = Budget::new(200_000_000, Some(VERIFY_SAFETY_NET));
        let reports = polyfold::pipeline::verify_contraction(&at, contraction, &mut budget)
            .map_err(|e| Failure {
                kind: FailureKind::VerifierError,
                detail: format!("at sizes {sizes:?}: {e}"),
            })?;
        for (scop, report) in &reports {
            if let Some(m) = &report.first_mismatch {
                return Err(Failure {
                    kind: FailureKind::VerifierMismatch,
                    detail: format!("SCoP {scop} at sizes {sizes:?}: {m:?}"),
                });
            }
        }
        traces += reports.len();
    }
    Ok(traces)
}

/// Compiles `source_path` into `exe` with `flags` (and the maths library,
/// for the units' `sqrt`); the compiler's diagnostics on failure.
pub fn compile(source_path: &Path, exe: &Path, flags: &[&str]) -> Result<(), String> {
    let output = Command::new("cc")
        .args(flags)
        .arg("-o")
        .arg(exe)
        .arg(source_path)
        .arg("-lm")
        .output()
        .map_err(|e| format!("cannot run cc: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// Runs `exe` with a time limit; its standard output, or why it failed.
pub fn run_with_limit(exe: &Path, limit: Duration) -> Result<Vec<u8>, String> {
    run_with_env(exe, limit, &[])
}

/// [`run_with_limit`] with extra environment variables.
pub fn run_with_env(
    exe: &Path,
    limit: Duration,
    env: &[(String, String)],
) -> Result<Vec<u8>, String> {
    let mut child = Command::new(exe)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    // Read the pipes while the child runs: a program printing more than
    // a pipe holds would block, and a blocked program uses no CPU time.
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let readers = std::thread::scope(|scope| {
        let out = scope.spawn(|| read_all(stdout.as_mut()));
        let err = scope.spawn(|| read_all(stderr.as_mut()));
        let status = wait_child(&mut child, limit);
        (
            status,
            out.join().unwrap_or_default(),
            err.join().unwrap_or_default(),
        )
    });
    let (status, stdout, stderr) = readers;
    let status = status?;
    if status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "exit {}: {}",
            status,
            String::from_utf8_lossy(&stderr)
        ))
    }
}

/// Everything a pipe of a child gives until it closes.
fn read_all(pipe: Option<&mut impl std::io::Read>) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.read_to_end(&mut bytes);
    }
    bytes
}

/// Compiles and runs one C file; its output or a description.
pub fn build_and_run(
    source_path: &Path,
    tag: &str,
    dir: &Path,
    sanitize: bool,
    limit: Duration,
    build: Option<&Build>,
) -> Result<Vec<u8>, (bool, String)> {
    let mut outputs = build_and_run_times(source_path, tag, dir, sanitize, limit, build, 1)?;
    Ok(outputs.pop().unwrap_or_default())
}

/// [`build_and_run`], the program run `times` times (at least once): the
/// output of each run.
pub fn build_and_run_times(
    source_path: &Path,
    tag: &str,
    dir: &Path,
    sanitize: bool,
    limit: Duration,
    build: Option<&Build>,
    times: usize,
) -> Result<Vec<Vec<u8>>, (bool, String)> {
    let exe = dir.join(format!("{tag}.exe"));
    let mut flags = vec!["-std=c11", "-O1", "-w"];
    let tsan = build.is_some_and(|b| b.flags.iter().any(|f| f == "-fsanitize=thread"));
    if sanitize && !tsan {
        flags.push("-fsanitize=address,undefined");
        flags.push("-fno-sanitize-recover=all");
    }
    if let Some(build) = build {
        flags.extend(build.flags.iter().map(String::as_str));
    }
    compile(source_path, &exe, &flags).map_err(|e| (true, e))?;
    let env = build.map(|b| b.env.clone()).unwrap_or_default();
    let result = (0..times.max(1))
        .map(|_| run_with_env(&exe, limit, &env).map_err(|e| (false, e)))
        .collect();
    let _ = std::fs::remove_file(&exe);
    result
}

/// The full differential check of `source` (named `name`), using `dir` as
/// scratch space. Returns statistics, or the first failure.
pub fn check_program(
    name: &str,
    source: &str,
    dir: &Path,
    options: &CheckOptions,
) -> Result<CheckStats, Failure> {
    let (contraction, stats) = run_polyfold_traced(
        name,
        source,
        options.library_time_limit,
        (options.inter_array, options.reschedule, options.pin_sizes),
        &options.trace_sizes,
    )?;
    compare_output(name, source, &contraction.output, dir, options)?;
    Ok(CheckStats {
        output: contraction.output,
        ..stats
    })
}

/// The compiled half of [`check_program`]: builds and runs `source`
/// (which must work: `BadOriginal` otherwise) and, when `output` differs
/// from it or the check sanitizes, builds and runs `output` under the
/// same flags and every build of `options` and compares what they print;
/// then parses `output` with lang-c. An unchanged output passes; a
/// compile error, a run-time error (a sanitizer report among them) or a
/// different output of `output` is a failure.
pub fn compare_output(
    name: &str,
    source: &str,
    output: &str,
    dir: &Path,
    options: &CheckOptions,
) -> Result<(), Failure> {
    let changed = output != source;
    let sanitize = options.sanitize || (options.sanitize_if_changed && changed);
    let original_path: PathBuf = dir.join(format!("{name}.c"));
    std::fs::write(&original_path, source).map_err(|e| Failure {
        kind: FailureKind::BadOriginal,
        detail: format!("cannot write {}: {e}", original_path.display()),
    })?;
    let limit = options.run_time_limit;
    let expected =
        build_and_run(&original_path, name, dir, sanitize, limit, None).map_err(|(_, e)| {
            Failure {
                kind: FailureKind::BadOriginal,
                detail: e,
            }
        })?;
    if changed || sanitize {
        let output_path = dir.join(format!("{name}.polyfold.c"));
        std::fs::write(&output_path, output).map_err(|e| Failure {
            kind: FailureKind::BadOriginal,
            detail: format!("cannot write {}: {e}", output_path.display()),
        })?;
        let tag = format!("{name}.polyfold");
        let actual = build_and_run(&output_path, &tag, dir, sanitize, limit, None).map_err(
            |(at_compile, e)| Failure {
                kind: if at_compile {
                    FailureKind::OutputDoesNotCompile
                } else {
                    FailureKind::OutputDiffers
                },
                detail: e,
            },
        )?;
        if actual != expected {
            return Err(Failure {
                kind: FailureKind::OutputDiffers,
                detail: first_difference(&expected, &actual),
            });
        }
        let pinned = output.contains("_Static_assert") && !source.contains("_Static_assert");
        for build in &options.builds {
            if build.changes_sizes && pinned {
                continue;
            }
            let label = build.label();
            let expected = build_and_run(&original_path, name, dir, sanitize, limit, Some(build))
                .map_err(|(_, e)| Failure {
                kind: FailureKind::BadOriginal,
                detail: format!("[build {label}] {e}"),
            })?;
            let runs = build_and_run_times(
                &output_path,
                &tag,
                dir,
                sanitize,
                limit,
                Some(build),
                build.runs,
            )
            .map_err(|(at_compile, e)| Failure {
                kind: if at_compile {
                    FailureKind::OutputDoesNotCompile
                } else {
                    FailureKind::OutputDiffers
                },
                detail: format!("[build {label}] {e}"),
            })?;
            for (run, actual) in runs.iter().enumerate() {
                if *actual != expected {
                    let which = if runs.len() > 1 {
                        format!(", run {} of {}", run + 1, runs.len())
                    } else {
                        String::new()
                    };
                    return Err(Failure {
                        kind: FailureKind::OutputDiffers,
                        detail: format!(
                            "[build {label}{which}] {}",
                            first_difference(&expected, actual)
                        ),
                    });
                }
            }
        }
        let parsed = run_guarded(Duration::from_secs(30), {
            let output_path = output_path.clone();
            move || {
                lang_c::driver::parse(&lang_c::driver::Config::default(), &output_path)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
        });
        match parsed {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                return Err(Failure {
                    kind: FailureKind::LangCRejects,
                    detail: e,
                });
            }
            Err((kind, detail)) => {
                return Err(Failure {
                    kind: FailureKind::LangCRejects,
                    detail: format!("lang-c {kind:?}: {detail}"),
                });
            }
        }
        let _ = std::fs::remove_file(&output_path);
    }
    let _ = std::fs::remove_file(&original_path);
    Ok(())
}

/// The first differing line of two outputs.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let e = String::from_utf8_lossy(expected);
    let a = String::from_utf8_lossy(actual);
    for (line_e, line_a) in e.lines().zip(a.lines()) {
        if line_e != line_a {
            return format!("expected `{line_e}`, got `{line_a}`");
        }
    }
    format!(
        "outputs differ in length ({} vs {} lines)",
        e.lines().count(),
        a.lines().count()
    )
}
