//! The driver: runs the pipeline on one file and decides what is printed,
//! what is written and the exit code:
//! `read → extract_scops → (emit) → contract (classify_liveness →
//! compute_conflicts → choose_mappings → certify → plan_edits) → output`.
//!
//! The driver never prints by itself: it returns the text for stdout and
//! stderr (and the new file contents for `-i`), so that tests can compare
//! exactly what the CLI would print. Nothing is written when anything
//! fails.

use std::path::Path;
use std::sync::Arc;

pub mod messages;
mod relevance;

pub use messages::{Level, Message, Messages, SourceFile};

use crate::analysis::liveness::LivenessOverrides;
use crate::cli::{AnalysisArgs, CommandMacro, Emit, MessageFormat, ReportFormat, RunArgs};
use crate::ir::{Liveness, Program};
use crate::pipeline::{ArrayOutcome, ContractOptions, FileContraction, KeptReason};
use crate::poly::{Budget, Set};
use crate::{diag, frontend, ir, report};

/// What processing one file produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    /// The messages for stderr, as data: the binary prints them with
    /// [`Messages::lines`] (`-q`, `--message-format`).
    pub stderr: Messages,
    /// 0 ok, 1 error diagnostics / would change / wrong read, 2 usage, I/O
    /// or internal error.
    pub code: u8,
    /// The new contents of the file, for `-i` (only when it changed).
    pub rewrite: Option<String>,
    /// With `--report json`: this file's record of the report document
    /// (the caller collects the records of all files, see
    /// [`report_document`]); `None` otherwise, or when the file failed
    /// before it was analysed ([`failed_record`] makes its record).
    pub record: Option<serde_json::Value>,
}

impl Outcome {
    /// Exit 0 with `stdout`, nothing to write.
    fn ok(stdout: String, stderr: Messages) -> Outcome {
        Outcome {
            stdout,
            stderr,
            code: 0,
            rewrite: None,
            record: None,
        }
    }

    fn fail(stderr: Messages, code: u8) -> Outcome {
        Outcome {
            stdout: String::new(),
            stderr,
            code,
            rewrite: None,
            record: None,
        }
    }
}

/// What the default action does with the transformed program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputMode {
    /// Print it on stdout.
    #[default]
    Print,
    /// Rewrite the file in place.
    InPlace,
    /// Print a unified diff.
    Diff,
    /// Print nothing; exit 1 when the file would change.
    Check,
}

/// Options of a run, independent of clap.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub emit: Option<Emit>,
    /// `-D NAME=VALUE` with integer values (applied before `macros`).
    pub defines: Vec<(String, i64)>,
    /// `-D`/`-U` of the command line, in order.
    pub macros: Vec<CommandMacro>,
    /// `-I` directories, in order.
    pub include_dirs: Vec<std::path::PathBuf>,
    pub mode: OutputMode,
    pub report: Option<ReportFormat>,
    /// Whether `--report` prints times (`--no-timings`: omitted).
    pub timings: report::Timings,
    pub temp: Vec<String>,
    pub live_out: Vec<String>,
    /// Successive modulo only.
    pub no_lattice: bool,
    /// No packed triangles (`--no-packing`).
    pub no_packing: bool,
    /// Search steps of the optimal lattice search (`None`: the default).
    pub optimal_budget: Option<u64>,
    /// Wall-clock safety net per array in seconds (`None`: the default).
    pub time_limit: Option<f64>,
    /// Merge the temporaries of each SCoP (SMO) when that is smaller (the
    /// default).
    pub inter_array: bool,
    /// Seconds for `--inter-array` per SCoP (`None`: the default).
    pub inter_array_budget: Option<f64>,
    /// The smallest storage at any price (`--min-memory`): no cost rule.
    pub min_memory: bool,
    /// `--pin-sizes`: storage pinned to the known sizes is allowed.
    pub pin_sizes: bool,
    /// `--fast-modulo`: conditional subtractions for run-time moduli.
    pub fast_modulo: bool,
    /// `--no-rotate`: no rotating indices.
    pub no_rotate: bool,
    /// `--no-fusion`: the loops keep their schedule.
    pub no_fusion: bool,
    /// `--no-split`: every array stays whole.
    pub no_split: bool,
    /// `--pow2-moduli`: power-of-two moduli, printed as masks.
    pub pow2_moduli: bool,
    /// `--function`: only the SCoPs of these functions (empty: all).
    pub functions: Vec<String>,
    /// How diagnostics are printed.
    pub message_format: MessageFormat,
    /// `-q`: no warnings or notes.
    pub quiet: bool,
    /// `-v`: also the warnings and notes about code with no candidate
    /// loop nest (see `relevance`).
    pub verbose: bool,
    /// `--allow`: diagnostic codes not printed.
    pub allow: Vec<diag::Code>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            emit: None,
            defines: Vec::new(),
            macros: Vec::new(),
            include_dirs: Vec::new(),
            mode: OutputMode::default(),
            report: None,
            temp: Vec::new(),
            live_out: Vec::new(),
            no_lattice: false,
            no_packing: false,
            optimal_budget: None,
            time_limit: None,
            inter_array: true,
            inter_array_budget: None,
            min_memory: false,
            pin_sizes: false,
            fast_modulo: false,
            no_rotate: false,
            no_fusion: false,
            no_split: false,
            pow2_moduli: false,
            timings: report::Timings::default(),
            functions: Vec::new(),
            message_format: MessageFormat::default(),
            quiet: false,
            verbose: false,
            allow: Vec::new(),
        }
    }
}

impl RunOptions {
    pub fn from_analysis(a: &AnalysisArgs) -> RunOptions {
        RunOptions {
            defines: Vec::new(),
            // `-U` cancels the `-D`s given before it; clap keeps the two
            // lists apart, so here `-U` applies after every `-D` (the
            // binary restores the command-line order from clap's indices).
            macros: a.define.iter().chain(&a.undef).cloned().collect(),
            include_dirs: a.include.clone(),
            temp: a.temp.clone(),
            live_out: a.live_out.clone(),
            no_lattice: a.no_lattice,
            no_packing: a.no_packing,
            optimal_budget: Some(a.optimal_budget),
            time_limit: Some(a.time_limit),
            inter_array: !a.no_inter_array,
            inter_array_budget: Some(a.inter_array_budget),
            min_memory: a.min_memory,
            pin_sizes: a.pin_sizes,
            fast_modulo: a.fast_modulo,
            no_rotate: a.no_rotate,
            no_fusion: a.no_fusion,
            no_split: a.no_split,
            pow2_moduli: a.pow2_moduli,
            functions: a.function.clone(),
            message_format: a.message_format,
            // A well-formed code that is not polyfold's (`PF999`) allows
            // nothing.
            allow: a
                .allow
                .iter()
                .filter_map(|c| diag::Code::parse(c))
                .collect(),
            ..RunOptions::default()
        }
    }
}

impl From<&RunArgs> for RunOptions {
    fn from(a: &RunArgs) -> RunOptions {
        let mode = if a.in_place {
            OutputMode::InPlace
        } else if a.diff {
            OutputMode::Diff
        } else if a.check {
            OutputMode::Check
        } else {
            OutputMode::Print
        };
        RunOptions {
            emit: a.emit,
            mode,
            report: a.report,
            timings: if a.no_timings {
                report::Timings::Omitted
            } else {
                report::Timings::Shown
            },
            ..RunOptions::from_analysis(&a.analysis)
        }
    }
}

/// Whether `path` names standard input (`-`, as cc and rustfmt take it).
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The name diagnostics and reports give `path` (`<stdin>` for `-`).
fn shown_name(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// Reads a file (or standard input for `-`), or a one-line error. Bytes
/// that are not UTF-8 are kept as stand-ins (see [`crate::util::bytes`]).
pub fn read_source(path: &Path) -> Result<String, Message> {
    let shown = shown_name(path);
    let bytes = if is_stdin(path) {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    }
    .map_err(|e| Message::error(format!("cannot read {shown}: {e}")))?;
    crate::util::bytes::decode(bytes).map_err(|e| Message::error(format!("{shown}: {e}")))
}

/// Reads and processes one file; with `-i`, writes it atomically.
pub fn run_file(path: &Path, options: &RunOptions) -> Outcome {
    if is_stdin(path) && options.mode == OutputMode::InPlace {
        return Outcome::fail(
            Message::error("-i rewrites files; standard input (-) has none").into(),
            2,
        );
    }
    let source = match read_source(path) {
        Ok(s) => s,
        Err(e) => return Outcome::fail(e.into(), 2),
    };
    let mut out = run_source(&shown_name(path), &source, options);
    if let Some(new) = out.rewrite.take()
        && let Err(e) =
            crate::util::atomic::write_atomically(path, &crate::util::bytes::restore(&new))
    {
        out.stderr.push(Message::error(format!(
            "cannot write {}: {e}",
            path.display()
        )));
        out.code = 2;
    }
    out
}

/// Extracts the SCoPs; the diagnostics' messages; an error outcome for
/// unparseable input or unknown names.
fn extract(path: &str, source: &str, options: &RunOptions) -> Result<(Program, Messages), Outcome> {
    let program = frontend::extract(
        path,
        source,
        &frontend::Options {
            defines: options.defines.clone(),
            macros: options.macros.clone(),
            include_dirs: options.include_dirs.clone(),
        },
    );
    let stderr = diagnostic_messages(path, source, &program, options);
    if program.has_errors() {
        let mut out = Outcome::fail(stderr, 2);
        if options.report == Some(ReportFormat::Json) {
            out.record = Some(serde_json::json!({
                "file": path,
                "status": "error",
                "exit_code": 2,
                "diagnostics": shown_diagnostics(&program, options)
                    .iter()
                    .map(|d| diag::to_json(path, source, d))
                    .collect::<Vec<_>>(),
            }));
        }
        return Err(out);
    }
    let mut program = program;
    if !options.functions.is_empty() {
        for name in &options.functions {
            if !program.functions.contains(name) {
                return Err(Outcome::fail(
                    stderr.with(Message::error(format!(
                        "--function {name}: {path} has no function named `{name}`"
                    ))),
                    2,
                ));
            }
        }
        program
            .scops
            .retain(|scop| options.functions.contains(&scop.function));
    }
    // A user's temporary in the SCoPs of several functions is ambiguous
    // (PolyBench's `init_array` and kernel share their parameters' names);
    // `--live-out` is always safe.
    for (flag, entries, one_function) in [
        ("--temp", &options.temp, true),
        ("--live-out", &options.live_out, false),
    ] {
        for entry in entries.iter() {
            let (function, name) = crate::analysis::liveness::scoped_name(entry);
            // The functions whose SCoPs have an array `name`.
            let mut functions: Vec<&str> = Vec::new();
            for s in &program.scops {
                if function.is_none_or(|f| f == s.function)
                    && s.arrays.iter().any(|a| a.name == name)
                    && !functions.contains(&s.function.as_str())
                {
                    functions.push(&s.function);
                }
            }
            let fail = |why: String| {
                Err(Outcome::fail(
                    stderr
                        .clone()
                        .with(Message::error(format!("{flag} {entry}: {why}"))),
                    2,
                ))
            };
            match (function, functions.len()) {
                (Some(f), 0) => {
                    return fail(format!(
                        "no array or scalar named `{name}` in a SCoP of function `{f}` in {path}"
                    ));
                }
                (None, 0) => {
                    return fail(format!(
                        "no array or scalar named `{name}` in any SCoP of {path}"
                    ));
                }
                (None, n) if n > 1 && one_function => {
                    return fail(format!(
                        "`{name}` is an array of the SCoPs of {}: say which with FUNCTION:NAME (e.g. `{flag} {}:{name}`)",
                        functions
                            .iter()
                            .map(|f| format!("`{f}`"))
                            .collect::<Vec<_>>()
                            .join(" and "),
                        functions[functions.len() - 1]
                    ));
                }
                _ => {}
            }
        }
    }
    Ok((program, stderr))
}

/// The front end on a fused source (see [`crate::schedule`]), with the
/// options and the `--function` choice `path` was read with.
fn read_back(path: &str, text: &str, options: &RunOptions) -> Program {
    let mut program = frontend::extract(
        path,
        text,
        &frontend::Options {
            defines: options.defines.clone(),
            macros: options.macros.clone(),
            include_dirs: options.include_dirs.clone(),
        },
    );
    if !options.functions.is_empty() {
        program
            .scops
            .retain(|scop| options.functions.contains(&scop.function));
    }
    program
}

/// The contraction of `program` (read from `path` with `options`), loops
/// fused where that pays (see [`crate::pipeline::contract_file`]).
fn contract(
    path: &str,
    program: &Program,
    options: &RunOptions,
) -> Result<(FileContraction, Option<crate::schedule::Fusion>), crate::pipeline::Error> {
    let read_back = |text: &str| read_back(path, text, options);
    crate::pipeline::contract_file(program, &contract_options(options), &read_back)
}

fn contract_options(options: &RunOptions) -> ContractOptions {
    let defaults = ContractOptions::default();
    let optimal_steps = options.optimal_budget.unwrap_or(defaults.optimal_steps);
    ContractOptions {
        overrides: LivenessOverrides {
            temp: options.temp.clone(),
            live_out: options.live_out.clone(),
        },
        lattices: !options.no_lattice,
        packing: !options.no_packing,
        optimal_steps,
        time_per_array: match options.time_limit {
            Some(s) if s.is_finite() && s > 0.0 => {
                std::time::Duration::from_secs_f64(s.min(86400.0))
            }
            _ => defaults.time_per_array,
        },
        inter_array: options.inter_array,
        min_memory: options.min_memory,
        pin_sizes: options.pin_sizes,
        fast_modulo: options.fast_modulo,
        rotate: !options.no_rotate,
        fusion: !options.no_fusion,
        split: !options.no_split,
        pow2_moduli: options.pow2_moduli,
        // Reports show every temporary's lower bound.
        record_max_live: options.report.is_some(),
        inter_array_time: match options.inter_array_budget {
            Some(s) if s.is_finite() && s > 0.0 => {
                std::time::Duration::from_secs_f64(s.min(3600.0))
            }
            _ => defaults.inter_array_time,
        },
        ..defaults
    }
}

/// Warnings for arrays kept because a parameter has no value, and for
/// arrays whose analysis a wall-clock safety net cut short.
fn kept_warnings(path: &str, program: &Program, c: &FileContraction) -> Vec<Message> {
    let mut out = Vec::new();
    for d in &c.decisions {
        // An array polyfold's own output declares (a re-run) says nothing.
        let declared = program.scops[d.scop].array(d.array).decl_span.as_ref();
        if declared.is_some_and(|span| relevance::folded_by_polyfold(&program.source, span)) {
            continue;
        }
        if d.safety_net_fired {
            let f = &program.scops[d.scop].function;
            out.push(Message::warning(format!(
                "{path}: `{}` in {f}: the wall-clock safety net stopped part of its analysis, so this result may differ between runs (raise --time-limit)",
                d.name
            )));
        }
        if let ArrayOutcome::Kept {
            why: why @ KeptReason::MissingValue { .. },
        } = &d.outcome
        {
            let f = &program.scops[d.scop].function;
            out.push(Message::warning(format!(
                "{path}: `{}` in {f} keeps its layout: {why}",
                d.name
            )));
        }
    }
    out
}

/// The conflict relation or DS of every temporary array, in isl notation.
fn emit_sets(program: &Program, options: &RunOptions, which: Emit) -> Result<String, String> {
    let overrides = LivenessOverrides {
        temp: options.temp.clone(),
        live_out: options.live_out.clone(),
    };
    let mut out = String::new();
    for (si, scop) in program.scops.iter().enumerate() {
        let overrides = overrides.in_function(&scop.function);
        for array in &scop.arrays {
            let class = crate::analysis::liveness::classify(array, &overrides);
            if class.liveness != Liveness::Temporary {
                continue;
            }
            let model = crate::analysis::build::array_model(scop, array.id);
            let mut budget = Budget::default();
            let (conflicts, _) =
                crate::analysis::values::array_conflicts(scop, array.id, &model, &mut budget)
                    .map_err(|e| format!("conflicts of `{}`: {e}", array.name))?;
            let set = match which {
                Emit::Conflicts => Set {
                    space: crate::analysis::cells::conflict_space(&model),
                    pieces: conflicts.pieces.iter().map(|p| p.set.clone()).collect(),
                },
                _ => {
                    let pieces = conflicts.difference_set();
                    let space = pieces.first().map(|p| p.space.clone()).unwrap_or_else(|| {
                        crate::poly::Space::set(
                            model.params.clone(),
                            crate::poly::Tuple::anonymous(
                                (0..model.rank).map(|p| format!("d{p}")).collect(),
                            ),
                        )
                    });
                    Set { space, pieces }
                }
            };
            let what = if which == Emit::Conflicts {
                "conflicts"
            } else {
                "ds"
            };
            out.push_str(&format!(
                "# scop {si} ({}), array {}: {what}\n{set}\n",
                scop.function, array.name
            ));
        }
    }
    Ok(out)
}

/// `--emit smo`: per SCoP, the global conflict set of the values written
/// to its temporaries (every statement that writes one; symbolic in the
/// parameters), in the `.smo.input` format, so that `polyfold smo` and the
/// SMO tests can read what our own analysis derives from a kernel. A SCoP
/// without temporaries, or whose dataflow is not exact, gets a comment line
/// saying so.
fn emit_smo(program: &Program, options: &RunOptions) -> Result<String, String> {
    let overrides = LivenessOverrides {
        temp: options.temp.clone(),
        live_out: options.live_out.clone(),
    };
    let mut out = String::new();
    for (si, scop) in program.scops.iter().enumerate() {
        let overrides = overrides.in_function(&scop.function);
        let temps: Vec<&str> = scop
            .arrays
            .iter()
            .filter(|a| {
                crate::analysis::liveness::classify(a, &overrides).liveness == Liveness::Temporary
            })
            .map(|a| a.name.as_str())
            .collect();
        let writers: Vec<usize> = (0..scop.stmts.len())
            .filter(|s| temps.contains(&scop.array(scop.stmts[*s].write.array).name.as_str()))
            .collect();
        let title = format!("scop {si} ({})", scop.function);
        if writers.is_empty() {
            out.push_str(&format!("# {title}: no statement writes a temporary\n"));
            continue;
        }
        let flow = crate::analysis::dataflow::compute_dataflow(scop)
            .map_err(|e| format!("{title}: dataflow: {e}"))?;
        let spec = crate::mapping::smo::conflicts::global_conflicts(scop, &flow, &writers)
            .map_err(|e| format!("{title}: conflict set: {e}"))?;
        let Some(spec) = spec else {
            out.push_str(&format!("# {title}: the dataflow is not exact\n"));
            continue;
        };
        let mut header = vec![
            format!(
                "{title}: global conflict set of the temporaries {}",
                temps.join(", ")
            ),
            "printed by `polyfold --emit smo`; statements (total expansion, x0 = statement):"
                .to_string(),
        ];
        for (j, s) in writers.iter().enumerate() {
            let stmt = &scop.stmts[*s];
            let text: Vec<&str> = stmt.body_text.split_whitespace().collect();
            header.push(format!("  {j}: {} {}", stmt.name, text.join(" ")));
        }
        out.push_str(&crate::mapping::smo::print_smo_input(&spec, &header));
    }
    Ok(out)
}

/// Processes source text that has already been read.
pub fn run_source(path: &str, source: &str, options: &RunOptions) -> Outcome {
    let (mut program, mut stderr) = match extract(path, source, options) {
        Ok(x) => x,
        Err(o) => return o,
    };
    // A note printed (PF002, PF003) already says that there is nothing
    // to do.
    let note_shown = shown_diagnostics(&program, options)
        .iter()
        .any(|d| d.severity() == diag::Severity::Note);
    match options.emit {
        Some(Emit::Scop) => {
            return Outcome::ok(ir::emit_program(&program), stderr);
        }
        Some(Emit::Dataflow) => {
            let mut stdout = String::new();
            for (si, scop) in program.scops.iter().enumerate() {
                let flow = crate::analysis::dataflow::compute_dataflow(scop)
                    .and_then(|flow| crate::analysis::dataflow::print_dataflow(scop, &flow));
                match flow {
                    Ok(text) => {
                        stdout.push_str(&format!("# scop {si} ({})\n{text}", scop.function))
                    }
                    Err(e) => stdout.push_str(&format!(
                        "# scop {si} ({}): dataflow not computed: {e}\n",
                        scop.function
                    )),
                }
            }
            return Outcome::ok(stdout, stderr);
        }
        Some(which) => {
            let printed = if which == Emit::Smo {
                emit_smo(&program, options)
            } else {
                emit_sets(&program, options, which)
            };
            return match printed {
                Ok(stdout) => Outcome::ok(stdout, stderr),
                Err(e) => Outcome::fail(stderr.with(Message::error(e)), 2),
            };
        }
        None => {}
    }
    // Loops the orders of real C keep apart, named in the report.
    let kept_apart: Vec<crate::schedule::fusion::KeptApart> = if options.report.is_some()
        && !options.no_fusion
    {
        (0..program.scops.len())
            .flat_map(|si| crate::schedule::fusion::kept_apart(&program, si, options.min_memory))
            .collect()
    } else {
        Vec::new()
    };
    let mut fused_runs: Vec<crate::schedule::FusedRun> = Vec::new();
    let mut rescheduled: Vec<(usize, String)> = Vec::new();
    let mut split: Vec<(usize, String)> = Vec::new();
    let contraction = match contract(path, &program, options) {
        Ok((c, fusion)) => {
            if let Some(f) = fusion {
                program = f.program;
                fused_runs = f.runs;
                rescheduled = f.rescheduled;
                split = f.split;
            }
            c
        }
        Err(e) => {
            return Outcome::fail(
                stderr.with(Message::internal_error(format!("{path}: {e}"))),
                2,
            );
        }
    };
    stderr.extend(kept_warnings(path, &program, &contraction));
    if program.scops.is_empty() && !note_shown {
        stderr.push(Message::note(format!(
            "{path}: no SCoP found; nothing to do"
        )));
    }
    // The lines polyfold added end as the file's lines do.
    let output = crate::util::bytes::with_line_endings(source, &contraction.output);
    let output = output.as_ref();
    let changed = output != source;
    let mut stdout = String::new();
    let mut code = 0;
    let mut rewrite = None;
    match options.mode {
        OutputMode::Print if options.report.is_none() => stdout.push_str(output),
        OutputMode::Print => {}
        OutputMode::InPlace => rewrite = changed.then(|| output.to_string()),
        OutputMode::Diff => {
            stdout.push_str(&unified_diff(path, source, output));
            code = u8::from(changed);
        }
        OutputMode::Check => {
            if changed {
                stderr.push(Message::info(format!("{path} would change")));
                code = 1;
            }
        }
    }
    if let Some(format) = options.report {
        // The reports read the max-live counts the pipeline recorded
        // (nothing is traced again).
        match format {
            ReportFormat::Text => {
                stdout.push_str(&report::text_report(
                    path,
                    &program,
                    &contraction,
                    options.timings,
                ));
                for run in &fused_runs {
                    stdout.push_str(&format!("  SCoP {}: {}\n", run.scop, run.describe()));
                }
                for (si, what) in rescheduled.iter().chain(&split) {
                    stdout.push_str(&format!("  SCoP {si}: {what}\n"));
                }
                for k in &kept_apart {
                    stdout.push_str(&format!("  SCoP {}: {}\n", k.scop, k.describe()));
                }
            }
            ReportFormat::Json => {
                let mut record = report::json_report(path, &program, &contraction, options.timings);
                record["fusion"] = fused_runs
                    .iter()
                    .map(|run| {
                        serde_json::json!({
                            "scop": run.scop,
                            "loops": run.loops.iter().map(|l| serde_json::json!({
                                "iterator": l.iterator,
                                "line": l.line,
                                "shift": l.shift,
                            })).collect::<Vec<_>>(),
                        })
                    })
                    .collect::<Vec<_>>()
                    .into();
                record["rescheduled"] = rescheduled
                    .iter()
                    .map(|(si, what)| serde_json::json!({ "scop": si, "schedule": what }))
                    .collect::<Vec<_>>()
                    .into();
                record["not_fused"] = kept_apart
                    .iter()
                    .map(|k| {
                        serde_json::json!({
                            "scop": k.scop,
                            "lines": k.lines,
                            "reason": k.cause.describe(),
                        })
                    })
                    .collect::<Vec<_>>()
                    .into();
                record["split"] = split
                    .iter()
                    .map(|(si, what)| serde_json::json!({ "scop": si, "split": what }))
                    .collect::<Vec<_>>()
                    .into();
                record["status"] = "ok".into();
                record["exit_code"] = code.into();
                record["diagnostics"] = shown_diagnostics(&program, options)
                    .iter()
                    .map(|d| diag::to_json(path, source, d))
                    .collect::<Vec<_>>()
                    .into();
                return Outcome {
                    stdout,
                    stderr,
                    code,
                    rewrite,
                    record: Some(record),
                };
            }
        }
    }
    Outcome {
        stdout,
        stderr,
        code,
        rewrite,
        record: None,
    }
}

/// The version of the `--report json` document's schema (README,
/// "Reports"): raised when a field changes meaning or goes away.
pub(crate) const REPORT_SCHEMA_VERSION: u32 = 1;

/// The record of a file that failed before it was analysed (it cannot be
/// read, does not parse, a usage error): its exit code and the lines
/// printed for it on stderr (`printed`, what [`stderr_lines`] gives), but
/// the blank lines that separate the diagnostics.
pub fn failed_record(path: &Path, outcome: &Outcome, printed: &[String]) -> serde_json::Value {
    let messages: Vec<&str> = printed
        .iter()
        .map(String::as_str)
        .filter(|l| !l.trim().is_empty())
        .collect();
    serde_json::json!({
        "file": shown_name(path),
        "status": "error",
        "exit_code": outcome.code,
        "messages": messages,
    })
}

/// The `--report json` document of a run over `records` (one per file,
/// in command-line order): the schema and tool versions, the records, and
/// the totals (files, failed files, cells of the temporaries before and
/// after, over the files analysed).
pub fn report_document(records: Vec<serde_json::Value>) -> serde_json::Value {
    let mut original: i64 = 0;
    let mut new: i64 = 0;
    let mut failed = 0;
    for r in &records {
        if r["status"] != "ok" {
            failed += 1;
            continue;
        }
        original = original.saturating_add(r["totals"]["original_cells"].as_i64().unwrap_or(0));
        new = new.saturating_add(r["totals"]["new_cells"].as_i64().unwrap_or(0));
    }
    serde_json::json!({
        "schema": "polyfold-report",
        "schema_version": REPORT_SCHEMA_VERSION,
        "polyfold_version": env!("CARGO_PKG_VERSION"),
        "files": records,
        "totals": {
            "files": records.len(),
            "failed": failed,
            "original_cells": original,
            "new_cells": new,
        },
    })
}

/// Whether `d` is printed at all: errors always; no other whose code is
/// `--allow`ed.
fn allowed(d: &diag::Diagnostic, options: &RunOptions) -> bool {
    d.severity() == diag::Severity::Error || !options.allow.contains(&d.code)
}

/// Which of the front end's diagnostics of `program` (read from `source`)
/// print: those `--allow` leaves, and without `-v` only those about code
/// with a candidate loop nest (see [`relevance`]).
fn printed_filter<'a>(
    source: &str,
    program: &Program,
    options: &'a RunOptions,
) -> impl Fn(&diag::Diagnostic) -> bool + 'a {
    let relevance = (!options.verbose).then(|| {
        relevance::Relevance::of(
            source,
            program,
            &LivenessOverrides {
                temp: options.temp.clone(),
                live_out: options.live_out.clone(),
            },
        )
    });
    move |d: &diag::Diagnostic| allowed(d, options) && relevance.as_ref().is_none_or(|r| r.shown(d))
}

/// The front end's diagnostics of `program` that are printed with
/// `options`: errors always; warnings and notes unless `-q`, about code
/// with a candidate loop nest unless `-v`; none whose code is `--allow`ed
/// (errors excepted). The reports list these.
fn shown_diagnostics<'p>(program: &'p Program, options: &RunOptions) -> Vec<&'p diag::Diagnostic> {
    let printed = printed_filter(&program.source, program, options);
    program
        .diagnostics
        .iter()
        .filter(|d| d.severity() == diag::Severity::Error || (!options.quiet && printed(d)))
        .collect()
}

/// The messages of the diagnostics of `program` (read from `source` as
/// `path`) that `options` prints (`--allow`, `-v`: [`printed_filter`]);
/// `-q` applies when they are printed ([`Messages::lines`]).
fn diagnostic_messages(
    path: &str,
    source: &str,
    program: &Program,
    options: &RunOptions,
) -> Messages {
    let file = Arc::new(SourceFile {
        name: path.to_string(),
        text: source.into(),
    });
    let printed = printed_filter(source, program, options);
    let mut out = Messages::new();
    out.extend(
        program
            .diagnostics
            .iter()
            .filter(|d| printed(d))
            .map(|d| Message::Diagnostic {
                file: file.clone(),
                diagnostic: Box::new(d.clone()),
            }),
    );
    out
}

/// The lines `out`'s messages print on stderr with `options`: no warning
/// or note with `-q`, each in the `--message-format`.
pub fn stderr_lines(out: &Outcome, options: &RunOptions) -> Vec<String> {
    out.stderr.lines(options.message_format, options.quiet)
}

/// A unified diff of `old` and `new` with `a/` and `b/` headers.
pub(crate) fn unified_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// The file's text, its shown name, its SCoPs and the rendered
/// diagnostics; the outcome to return when it cannot be read or parsed.
fn read_and_extract(
    path: &Path,
    options: &RunOptions,
) -> Result<(String, String, Program, Messages), Outcome> {
    let source = read_source(path).map_err(|e| Outcome::fail(e.into(), 2))?;
    let shown = shown_name(path);
    let (program, stderr) = extract(&shown, &source, options)?;
    Ok((source, shown, program, stderr))
}

/// `polyfold verify`: contraction plus trace verification of one file.
pub fn verify_file(path: &Path, options: &RunOptions) -> Outcome {
    let (source, shown, program, mut stderr) = match read_and_extract(path, options) {
        Ok(x) => x,
        Err(o) => return o,
    };
    // Parameters without a value: the trace runs at a few sizes of every
    // such parameter (those the SCoPs' contexts allow).
    let unknown: Vec<String> = program
        .scops
        .iter()
        .flat_map(|s| s.params.iter())
        .filter(|p| p.value.is_none())
        .map(|p| p.name.clone())
        .fold(Vec::new(), |mut names, n| {
            if !names.contains(&n) {
                names.push(n);
            }
            names
        });
    let assignments: Vec<Vec<(String, i64)>> = if unknown.is_empty() {
        vec![Vec::new()]
    } else {
        let mut all: Vec<Vec<(String, i64)>> = VERIFY_SIZES
            .iter()
            .flat_map(|&s| {
                // Every parameter at `s`, and each at `s + its index`.
                let same = unknown.iter().map(|n| (n.clone(), s)).collect();
                let spread = unknown
                    .iter()
                    .enumerate()
                    .map(|(q, n)| (n.clone(), s + q as i64))
                    .collect();
                [same, spread]
            })
            .collect();
        all.dedup();
        let valid: Vec<Vec<(String, i64)>> = all
            .into_iter()
            .filter(|a| with_values(&program, a).scops.iter().all(in_context))
            .collect();
        if valid.is_empty() {
            let p = &unknown[0];
            return Outcome::fail(
                stderr.with(Message::error(format!(
                    "{shown}: verification needs a value for parameter `{p}` (pass -D {p}=VALUE): none of the sizes {VERIFY_SIZES:?} is valid for the SCoPs"
                ))),
                2,
            );
        }
        valid
    };
    // A divisor made of parameters (`% (2 * n - 1)`, what polyfold prints
    // for a modulus that depends on the sizes) is modelled only for known
    // values: with such a subscript in the file, each size is extracted
    // and contracted again with its values, as `-D` would give them.
    let per_size = !assignments[0].is_empty()
        && program
            .diagnostics
            .iter()
            .any(|d| d.code == diag::Code::QuasiAffine && d.place == Some(diag::Place::Subscript));
    let shared = if per_size {
        None
    } else {
        match contract(&shown, &program, options) {
            Ok(c) => {
                let fused = c.1.as_ref().map_or(&program, |f| &f.program);
                stderr.extend(kept_warnings(&shown, fused, &c.0));
                Some(c)
            }
            Err(e) => {
                return Outcome::fail(
                    stderr.with(Message::internal_error(format!("{shown}: {e}"))),
                    2,
                );
            }
        }
    };
    let mut stdout = String::new();
    let mut wrong = false;
    for assignment in &assignments {
        let sized_contraction;
        let (original, (contraction, fusion)) = match &shared {
            Some(c) => (with_values(&program, assignment), c),
            None => {
                let mut sized = options.clone();
                sized.defines.extend(assignment.iter().cloned());
                let (at, _) = match extract(&shown, &source, &sized) {
                    Ok(x) => x,
                    Err(o) => return o,
                };
                match contract(&shown, &at, &sized) {
                    Ok(c) => {
                        sized_contraction = c;
                        (at, &sized_contraction)
                    }
                    Err(e) => {
                        return Outcome::fail(
                            stderr.with(Message::internal_error(format!("{shown}: {e}"))),
                            2,
                        );
                    }
                }
            }
        };
        let storage = contraction.emitted();
        let mut budget = Budget::new(u64::MAX, Some(std::time::Duration::from_secs(600)));
        // The fused schedule against the original one, then the storage
        // on the fused program.
        let mut fusion_lines = String::new();
        let at = match fusion {
            Some(f) => {
                let values = |si: usize| original.scops[si].param_values().ok();
                for (si, checked) in f.trace_check(&original, &values, &mut budget) {
                    let runs = f.describe(si);
                    match checked {
                        Ok(n) => fusion_lines.push_str(&format!(
                            "  SCoP {si}: {}: all {n} reads see the values of the original schedule\n",
                            runs.join("; ")
                        )),
                        Err(e) => {
                            wrong = true;
                            fusion_lines.push_str(&format!(
                                "  SCoP {si}: {}: WRONG: {e}\n",
                                runs.join("; ")
                            ));
                        }
                    }
                }
                with_values(&f.program, assignment)
            }
            None => original,
        };
        let reports = match crate::verify::build::verify_program(&at, &storage, &mut budget) {
            Ok(r) => r,
            Err(e) => {
                return Outcome::fail(stderr.with(Message::error(format!("{shown}: {e}"))), 2);
            }
        };
        wrong |= reports.iter().any(|(_, r)| r.first_mismatch.is_some());
        if !assignment.is_empty() {
            let sizes: Vec<String> = assignment
                .iter()
                .map(|(n, v)| format!("{n} = {v}"))
                .collect();
            stdout.push_str(&format!(
                "at {}{}:\n",
                sizes.join(", "),
                if per_size {
                    " (extracted with these values: a subscript divides by parameters)"
                } else {
                    ""
                }
            ));
        }
        stdout.push_str(&report::verification_report(
            &shown,
            &at,
            contraction,
            &storage,
            &reports,
        ));
        stdout.push_str(&fusion_lines);
    }
    Outcome {
        stdout,
        stderr,
        code: u8::from(wrong),
        rewrite: None,
        record: None,
    }
}

/// The sizes `polyfold verify` gives parameters without a value: the
/// smallest ones (loops that do not run, extents of 1) and a few more.
const VERIFY_SIZES: [i64; 6] = [1, 2, 3, 4, 7, 16];

/// `program` with the values of `assignment` given to the parameters of
/// those names that have none.
fn with_values(program: &Program, assignment: &[(String, i64)]) -> Program {
    let mut at = program.clone();
    for param in at.scops.iter_mut().flat_map(|s| s.params.iter_mut()) {
        if param.value.is_none()
            && let Some((_, v)) = assignment.iter().find(|(n, _)| *n == param.name)
        {
            param.value = Some(*v);
        }
    }
    at
}

/// Whether the values of `scop`'s parameters satisfy its context (the
/// original program is valid for them).
fn in_context(scop: &crate::ir::Scop) -> bool {
    let Ok(values) = scop.param_values() else {
        return false;
    };
    let mut q = scop.context.clone();
    crate::poly::enumerate::fix_params(&mut q, &values);
    let mut budget = Budget::new(1_000_000, None);
    matches!(
        crate::poly::simplex::integer_point(&q, &mut budget),
        Ok(Some(_))
    )
}

/// How many spans of the run `polyfold plot` draws (the memory plot's
/// resolution; each span shows the most values live in it).
const PLOT_SPANS: usize = 400;

/// The DS plot tests at most this many points of the set's box: a larger
/// box is clipped to a window around the origin (81 x 81 points).
const PLOT_DS_CELLS: i128 = 81 * 81;

/// `polyfold plot`: writes the pictures of `path` into `out_dir` (created
/// if needed): per SCoP whose parameters have values, the memory over the
/// run, and per 2-D temporary with a modular mapping, its difference set
/// and lattice; adds their rows to `entries` and what could not be drawn
/// to `notes`. The stdout lists the files written.
pub fn plot_file(
    path: &Path,
    options: &RunOptions,
    out_dir: &Path,
    entries: &mut Vec<crate::plot::IndexEntry>,
    notes: &mut Vec<String>,
) -> Outcome {
    let (_, shown, original, mut stderr) = match read_and_extract(path, options) {
        Ok(x) => x,
        Err(o) => return o,
    };
    // The plots are of the program the output was made from (the fused
    // one, when loops were fused), with the original schedule's run
    // beside it.
    let (contraction, fusion) = match contract(&shown, &original, options) {
        Ok(x) => x,
        Err(e) => {
            return Outcome::fail(
                stderr.with(Message::internal_error(format!("{shown}: {e}"))),
                2,
            );
        }
    };
    let program = fusion.as_ref().map_or(&original, |f| &f.program);
    stderr.extend(kept_warnings(&shown, program, &contraction));
    if let Err(e) = std::fs::create_dir_all(out_dir) {
        return Outcome::fail(
            stderr.with(Message::error(format!(
                "cannot create {}: {e}",
                out_dir.display()
            ))),
            2,
        );
    }
    let mut files = PlotFiles::new(path, &shown, out_dir);
    for (si, scop) in program.scops.iter().enumerate() {
        let before = fusion.as_ref().and_then(|f| {
            let changes = f.describe(si);
            let scop = original
                .scops
                .get(si)
                .filter(|o| !changes.is_empty() && o.function == scop.function)?;
            let renames = f
                .renames
                .iter()
                .filter(|(s, _)| *s == si)
                .flat_map(|(_, r)| r.iter().cloned())
                .collect();
            Some(Before {
                scop,
                renames,
                changes,
            })
        });
        let scop = (si, scop, before.as_ref());
        if let Err(e) = plot_scop(&mut files, scop, &contraction, entries, notes) {
            return Outcome::fail(stderr.with(Message::error(e)), 2);
        }
    }
    Outcome::ok(files.stdout, stderr)
}

/// Where and under which names `polyfold plot` writes the pictures of one
/// file, and the list of the files written (its stdout).
struct PlotFiles<'a> {
    out_dir: &'a Path,
    /// The file's stem made safe for a file name (`durbin`).
    stem: String,
    /// The file's name, for titles.
    file_name: String,
    /// The file as messages show it.
    shown: String,
    stdout: String,
}

impl<'a> PlotFiles<'a> {
    fn new(path: &Path, shown: &str, out_dir: &'a Path) -> PlotFiles<'a> {
        let stem: String = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "stdin".into())
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let file_name = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| shown.to_string());
        PlotFiles {
            out_dir,
            stem,
            file_name,
            shown: shown.to_string(),
            stdout: String::new(),
        }
    }

    /// Writes `text` to the file `name` of the folder and lists it.
    fn write(&mut self, name: &str, text: &str) -> Result<(), String> {
        let file = self.out_dir.join(name);
        std::fs::write(&file, text).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        self.stdout.push_str(&format!("{}\n", file.display()));
        Ok(())
    }
}

/// A SCoP as written, when the output changed its schedule.
struct Before<'a> {
    scop: &'a crate::ir::Scop,
    /// Each array the output split: (new name, original name).
    renames: Vec<(String, String)>,
    /// What was done to its schedule ([`crate::schedule::Fusion::describe`]).
    changes: Vec<String>,
}

/// The pictures of SCoP `si`: the memory over the run (traced for the
/// parameters' values; with the run of the original schedule `before`
/// when the output changed it), then the lattice of each 2-D temporary.
/// A SCoP without values or temporaries, or whose trace fails, is a note.
/// `Err` when a file cannot be written.
fn plot_scop(
    files: &mut PlotFiles,
    (si, scop, before): (usize, &crate::ir::Scop, Option<&Before>),
    contraction: &FileContraction,
    entries: &mut Vec<crate::plot::IndexEntry>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    use crate::plot::{IndexEntry, MemoryPlot, MemoryRun, memory_svg};
    let shown = files.shown.clone();
    let values = match scop.param_values() {
        Ok(values) => values,
        Err(missing) => {
            notes.push(format!(
                "{shown}: SCoP {si} ({}) not drawn: parameter `{missing}` has no value (pass -D {missing}=VALUE)",
                scop.function
            ));
            return Ok(());
        }
    };
    let decisions: Vec<&crate::pipeline::ArrayDecision> = contraction
        .decisions
        .iter()
        .filter(|d| d.scop == si && d.classification.liveness == Liveness::Temporary)
        .collect();
    if decisions.is_empty() {
        return Ok(());
    }
    let mut counted = vec![false; scop.arrays.len()];
    for d in &decisions {
        counted[d.array.0 as usize] = true;
    }
    let trace = crate::verify::build::trace_program(scop);
    let mut budget = Budget::new(u64::MAX, Some(std::time::Duration::from_secs(600)));
    let (report, profile) =
        match crate::verify::run_trace_profiled(&trace, &values, &mut budget, PLOT_SPANS, &counted)
        {
            Ok(x) => x,
            Err(e) => {
                notes.push(format!(
                    "{shown}: SCoP {si} not drawn: the trace failed: {e}"
                ));
                return Ok(());
            }
        };
    let original: i64 = decisions.iter().filter_map(|d| d.original_cells).sum();
    let merged = contraction.merged.iter().find(|m| m.scop == si);
    let new: i64 = merged.map_or(0, |m| m.merged_cells)
        + decisions.iter().filter_map(|d| d.new_cells()).sum::<i64>();
    let sizes: Vec<String> = scop
        .params
        .iter()
        .zip(&values)
        .map(|(p, v)| format!("{} = {v}", p.name))
        .collect();
    let transformed = MemoryRun {
        schedule: if before.is_some() {
            "transformed schedule".into()
        } else {
            "original schedule".into()
        },
        operations: report.operations,
        series: decisions
            .iter()
            .map(|d| {
                let a = d.array.0 as usize;
                (
                    d.name.clone(),
                    profile.arrays.iter().map(|s| s[a]).collect(),
                )
            })
            .collect(),
        total: profile.total.clone(),
    };
    let mut runs = Vec::new();
    let mut declared = original;
    let caption = match before {
        None => vec![
            "Schedule: the original (the output keeps the loops as written). Original storage: the cells the temporaries declare; new storage: the cells of the output.".to_string(),
        ],
        Some(b) => match original_run(b, &decisions) {
            Ok((run, cells)) => {
                declared = cells;
                let peak = run.total.iter().copied().max().unwrap_or(0);
                runs.push(run);
                vec![
                    format!(
                        "Dotted: the original schedule (the loops as written): max live {peak}, original storage {declared} cells (declared)."
                    ),
                    format!(
                        "Solid: the transformed schedule of the output ({}): max live {}, new storage {new} cells.",
                        b.changes.join("; "),
                        profile.max_total
                    ),
                ]
            }
            Err(e) => {
                notes.push(format!(
                    "{shown}: SCoP {si}: the run of the original schedule not drawn: {e}"
                ));
                vec![format!(
                    "Schedule: the transformed one of the output ({}); the original schedule's run is not drawn.",
                    b.changes.join("; ")
                )]
            }
        },
    };
    runs.push(transformed);
    let original_peak = (runs.len() > 1).then(|| runs[0].total.iter().copied().max().unwrap_or(0));
    let memory = MemoryPlot {
        title: format!(
            "{}: SCoP {si} ({}), {}",
            files.file_name,
            scop.function,
            sizes.join(", ")
        ),
        runs,
        levels: vec![
            ("original storage".into(), declared),
            ("new storage".into(), new),
            ("max-live bound".into(), profile.max_total as i64),
        ],
        caption,
    };
    let memory_name = format!("{}.scop{si}.memory.svg", files.stem);
    files.write(&memory_name, &memory_svg(&memory))?;
    entries.push(IndexEntry {
        what: format!("{shown}: SCoP {si} ({})", scop.function),
        numbers: match original_peak {
            None => format!(
                "{}; temporaries {declared} -> {new} cells, max live {} at once",
                sizes.join(", "),
                profile.max_total
            ),
            Some(peak) => format!(
                "{}; temporaries {declared} -> {new} cells, max live {peak} at once in the original schedule, {} in the transformed one",
                sizes.join(", "),
                profile.max_total
            ),
        },
        files: vec![memory_name],
    });
    for d in &decisions {
        plot_lattice(files, (si, scop), d, (&values, &sizes), entries, notes)?;
    }
    Ok(())
}

/// The run of the original schedule of `b`: the live values of the
/// arrays the output's temporaries (`decisions`) come from, and the cells
/// those arrays declare. `Err` when it cannot be traced.
fn original_run(
    b: &Before,
    decisions: &[&crate::pipeline::ArrayDecision],
) -> Result<(crate::plot::MemoryRun, i64), String> {
    use crate::mapping::modular::ParamAffine;
    let scop = b.scop;
    let values = scop
        .param_values()
        .map_err(|m| format!("parameter `{m}` has no value"))?;
    let mut arrays: Vec<usize> = Vec::new();
    for d in decisions {
        let name = b
            .renames
            .iter()
            .find(|(new, _)| *new == d.name)
            .map_or(d.name.as_str(), |(_, o)| o.as_str());
        let a = scop
            .arrays
            .iter()
            .position(|a| a.name == name)
            .ok_or_else(|| format!("no array `{name}` in the original"))?;
        if !arrays.contains(&a) {
            arrays.push(a);
        }
    }
    let mut counted = vec![false; scop.arrays.len()];
    let mut cells: i64 = 0;
    for &a in &arrays {
        counted[a] = true;
        let mut c: i64 = 1;
        for e in ParamAffine::extents_of(&scop.arrays[a]) {
            let e = e
                .ok_or_else(|| {
                    format!("`{}` has an extent of no known value", scop.arrays[a].name)
                })?
                .eval(&values)
                .map_err(|e| e.to_string())?;
            c = c.checked_mul(e).ok_or("a size overflows")?;
        }
        cells = cells.checked_add(c).ok_or("a size overflows")?;
    }
    let trace = crate::verify::build::trace_program(scop);
    let mut budget = Budget::new(u64::MAX, Some(std::time::Duration::from_secs(600)));
    let (report, profile) =
        crate::verify::run_trace_profiled(&trace, &values, &mut budget, PLOT_SPANS, &counted)
            .map_err(|e| e.to_string())?;
    let run = crate::plot::MemoryRun {
        schedule: "original schedule".into(),
        operations: report.operations,
        series: arrays
            .iter()
            .map(|&a| {
                (
                    scop.arrays[a].name.clone(),
                    profile.arrays.iter().map(|s| s[a]).collect(),
                )
            })
            .collect(),
        total: profile.total,
    };
    Ok((run, cells))
}

/// The difference set and lattice of `d`'s array, when it is a 2-D array
/// with a modular mapping (for the parameters' `values`, shown as
/// `sizes`); a set too large to draw is a note. `Err` when the file
/// cannot be written.
fn plot_lattice(
    files: &mut PlotFiles,
    (si, scop): (usize, &crate::ir::Scop),
    d: &crate::pipeline::ArrayDecision,
    (values, sizes): (&[i64], &[String]),
    entries: &mut Vec<crate::plot::IndexEntry>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    use crate::plot::{IndexEntry, LatticePlot, lattice_2d, lattice_svg};
    let shown = files.shown.clone();
    let array = scop.array(d.array);
    let ArrayOutcome::Remapped { certified, .. } = &d.outcome else {
        return Ok(());
    };
    let Some(mapping) = certified.mapping() else {
        return Ok(());
    };
    if array.extents.len() != 2 {
        return Ok(());
    }
    match ds_plot(scop, d, mapping, values, PLOT_DS_CELLS) {
        Ok(DsPicture {
            ds,
            lo,
            hi,
            mut rows,
            clip,
        }) => {
            rows.retain(|(_, m)| *m > 1);
            if rows.is_empty() {
                return Ok(());
            }
            let Some(crate::plot::Lattice2d {
                points: lattice,
                basis,
                cells,
            }) = lattice_2d(&rows, lo, hi)
            else {
                notes.push(format!(
                    "{shown}: `{}` has no drawable lattice (too large)",
                    d.name
                ));
                return Ok(());
            };
            let plot = LatticePlot {
                title: format!(
                    "{}: {}.{}, {}",
                    files.file_name,
                    scop.function,
                    d.name,
                    sizes.join(", ")
                ),
                mapping: report::mapping_text(d),
                ds,
                lattice,
                basis,
                cells,
                clip,
            };
            let name = format!("{}.scop{si}.{}.ds.svg", files.stem, d.name);
            files.write(&name, &lattice_svg(&plot))?;
            entries.push(IndexEntry {
                what: format!("{shown}: {}.{}", scop.function, d.name),
                numbers: format!(
                    "{} -> {} cells, lower bound {}; {}",
                    d.original_cells.map_or("?".into(), |c| c.to_string()),
                    d.new_cells().map_or("?".into(), |c| c.to_string()),
                    d.max_live.map_or("?".into(), |c| c.to_string()),
                    report::mapping_text(d)
                ),
                files: vec![name],
            });
        }
        Err(e) => notes.push(format!(
            "{shown}: the difference set of `{}` not drawn: {e}",
            d.name
        )),
    }
    Ok(())
}

/// What [`ds_plot`] finds: the points of the difference set drawn (all,
/// or those of the window of `clip`), the box they are drawn in, the
/// mapping's rows with numeric moduli, and the clipping.
struct DsPicture {
    ds: Vec<[i64; 2]>,
    lo: [i64; 2],
    hi: [i64; 2],
    rows: Vec<([i64; 2], i64)>,
    clip: Option<crate::plot::DsClip>,
}

/// The points of the difference set of `d`'s array for `values`: the
/// exact box of each piece (integer minima and maxima of `d0` and `d1`),
/// then each point of the box, or of the window `|d| <= K` around the
/// origin with the largest `K` whose window holds at most `max_cells`
/// points of the box ([`PLOT_DS_CELLS`]), tested for membership (an
/// integer point of the piece with that difference). Exact, and the same
/// for the same input.
fn ds_plot(
    scop: &ir::Scop,
    d: &crate::pipeline::ArrayDecision,
    mapping: &crate::mapping::ModularMapping,
    values: &[i64],
    max_cells: i128,
) -> Result<DsPicture, String> {
    use crate::poly::simplex::{IntResult, integer_max, integer_min, integer_point};
    let model = crate::analysis::build::array_model(scop, d.array);
    let mut budget = Budget::new(200_000_000, Some(std::time::Duration::from_secs(60)));
    let (conflicts, _) =
        crate::analysis::values::array_conflicts(scop, d.array, &model, &mut budget)
            .map_err(|e| e.to_string())?;
    let err = |e: crate::poly::PolyError| e.to_string();
    // Per non-empty piece: the piece for the values, and its box.
    let mut pieces = Vec::new();
    'pieces: for mut piece in conflicts.difference_set() {
        if piece.space.n_dim() < 2 {
            continue;
        }
        crate::poly::enumerate::fix_params(&mut piece, values);
        let n_param = piece.space.n_param();
        let (mut plo, mut phi) = ([0i64; 2], [0i64; 2]);
        for k in 0..2 {
            let mut objective = piece.zero_row();
            objective[n_param + k] = 1;
            for (min, bound) in [(true, &mut plo[k]), (false, &mut phi[k])] {
                let found = if min {
                    integer_min(&piece, &objective, &mut budget)
                } else {
                    integer_max(&piece, &objective, &mut budget)
                }
                .map_err(err)?;
                match found {
                    IntResult::Optimal { value, .. } => *bound = value,
                    IntResult::Infeasible => continue 'pieces,
                    IntResult::Unbounded => return Err("an unbounded difference set".into()),
                }
            }
        }
        pieces.push((piece, plo, phi));
    }
    // The box of the whole set, with the origin.
    let (mut lo, mut hi) = ([0i64; 2], [0i64; 2]);
    for (_, plo, phi) in &pieces {
        for k in 0..2 {
            lo[k] = lo[k].min(plo[k]);
            hi[k] = hi[k].max(phi[k]);
        }
    }
    let window = |reach: i64| -> ([i64; 2], [i64; 2]) {
        (
            [lo[0].max(-reach), lo[1].max(-reach)],
            [hi[0].min(reach), hi[1].min(reach)],
        )
    };
    let area = |(l, h): ([i64; 2], [i64; 2])| -> i128 {
        i128::from(h[0] - l[0] + 1) * i128::from(h[1] - l[1] + 1)
    };
    let clip = if area((lo, hi)) <= max_cells {
        None
    } else {
        // The largest reach whose window is small enough (the area grows
        // with the reach; reach 0 is the origin alone).
        let (mut fits, mut too_big) = (
            0i64,
            lo.iter().chain(&hi).map(|v| v.abs()).max().unwrap_or(0),
        );
        while too_big - fits > 1 {
            let mid = fits + (too_big - fits) / 2;
            if area(window(mid)) <= max_cells {
                fits = mid;
            } else {
                too_big = mid;
            }
        }
        Some(crate::plot::DsClip {
            reach: fits,
            lo,
            hi,
        })
    };
    let (wlo, whi) = clip.map_or((lo, hi), |c| window(c.reach));
    let mut points = std::collections::BTreeSet::new();
    for (piece, plo, phi) in &pieces {
        let n_param = piece.space.n_param();
        for x0 in plo[0].max(wlo[0])..=phi[0].min(whi[0]) {
            for x1 in plo[1].max(wlo[1])..=phi[1].min(whi[1]) {
                if points.contains(&[x0, x1]) {
                    continue;
                }
                let mut at = piece.clone();
                for (k, v) in [x0, x1].into_iter().enumerate() {
                    let mut row = at.zero_row();
                    row[n_param + k] = 1;
                    let last = row.len() - 1;
                    row[last] = -v;
                    at.add_eq(row);
                }
                if integer_point(&at, &mut budget).map_err(err)?.is_some() {
                    points.insert([x0, x1]);
                }
            }
        }
    }
    let mut rows = Vec::new();
    for dim in &mapping.dims {
        // A removed stride draws as its undivided row (the same collisions).
        let m = dim.modulus.eval(values).map_err(|e| e.to_string())?;
        let m = m.checked_mul(dim.divisor).ok_or("a modulus overflows")?;
        let a = [
            dim.coeffs.first().copied().unwrap_or(0),
            dim.coeffs.get(1).copied().unwrap_or(0),
        ];
        rows.push((a, m));
    }
    Ok(DsPicture {
        ds: points.into_iter().collect(),
        lo: wlo,
        hi: whi,
        rows,
        clip,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The difference set drawn is the one an enumeration of its pieces
    /// finds (`poly::enumerate`, which visits every integer point), whole
    /// or clipped to the window.
    #[test]
    fn ds_points_are_the_enumerated_set() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/plot/small.c"));
        let options = RunOptions {
            no_fusion: true,
            ..RunOptions::default()
        };
        let Ok((_, shown, program, _)) = read_and_extract(path, &options) else {
            panic!("small.c reads");
        };
        let (contraction, _) = contract(&shown, &program, &options).expect("contracts");
        let scop = &program.scops[0];
        let values = scop.param_values().expect("N = 6");
        let d = contraction
            .decisions
            .iter()
            .find(|d| d.name == "t")
            .expect("t decided");
        let ArrayOutcome::Remapped { certified, .. } = &d.outcome else {
            panic!("t remapped");
        };
        let mapping = certified.mapping().expect("a modular mapping");
        // The enumeration.
        let model = crate::analysis::build::array_model(scop, d.array);
        let mut budget = Budget::new(200_000_000, None);
        let (conflicts, _) =
            crate::analysis::values::array_conflicts(scop, d.array, &model, &mut budget)
                .expect("conflicts");
        let mut want = std::collections::BTreeSet::new();
        for piece in conflicts.difference_set() {
            for p in crate::poly::enumerate::integer_points(&piece, &values, &mut budget)
                .expect("enumerates")
            {
                want.insert([p[0], p[1]]);
            }
        }
        assert!(want.len() > 9, "{want:?}");
        let whole = ds_plot(scop, d, mapping, &values, 1 << 40).expect("drawn");
        assert_eq!(whole.clip, None);
        assert_eq!(whole.ds, want.iter().copied().collect::<Vec<_>>());
        // A window of at most 9 points: |d| <= 1.
        let clipped = ds_plot(scop, d, mapping, &values, 9).expect("drawn");
        let clip = clipped.clip.expect("clipped");
        assert_eq!(clip.reach, 1);
        let (lo, hi) = (
            [0, 1].map(|k| want.iter().map(|p| p[k]).min().unwrap_or(0).min(0)),
            [0, 1].map(|k| want.iter().map(|p| p[k]).max().unwrap_or(0).max(0)),
        );
        assert_eq!((clip.lo, clip.hi), (lo, hi));
        let in_window: Vec<[i64; 2]> = want
            .iter()
            .copied()
            .filter(|p| p[0].abs() <= 1 && p[1].abs() <= 1)
            .collect();
        assert_eq!(clipped.ds, in_window);
    }
}
