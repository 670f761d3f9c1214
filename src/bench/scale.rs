//! `polyfold bench DIR --scale [FACTORS]`: how the analysis cost and the
//! result change with the problem size.
//!
//! Every kernel `DIR/*.c` (or the one file given) runs at its own sizes
//! and with its size `#define`s multiplied by each factor (default 1, 16
//! and 256). The scaled program is the file's text with the integer bodies
//! of those `#define`s rewritten in memory ([`scale_source`]): the defines
//! that are parameters of a SCoP (`Scop::params` with a `#define` origin),
//! and the integer defines their bodies use (`#define M N` or `#define L
//! (N-1)` follow their `N` and keep their ratio). All such defines of a
//! kernel are scaled by the same factor, time loops included, except the
//! ones named by `--fixed NAME` or `--fixed KERNEL:NAME`. `--max-cells C`
//! caps a kernel's factor at the largest one whose original program
//! declares at most `C` cells (the arrays its SCoPs access, each
//! declaration counted once); the row shows the factor used.
//!
//! Each (kernel, factor) runs in a child process of the same binary (the
//! hidden `polyfold bench-scale-one FILE --factor K`), so that its peak
//! memory (`VmHWM` of `/proc/self/status`, `?` without `/proc`) is its own.
//! The child runs the whole contraction as `polyfold FILE` does (front
//! end, then `contract_program` with the default options: no report-only
//! max-live trace), `--repeats` times (fewer
//! when one run takes more than a quarter of the time limit: the row says
//! how many), and prints one JSON line. The parent kills a child that
//! runs longer than `--time-limit` seconds (`timeout`) or whose resident
//! memory exceeds `--mem-limit` MB (`memory`), and then skips the larger
//! factors of that kernel (`skipped`), which would only be slower.
//!
//! The table has one row per kernel and factor: parameter values, median
//! time, runs, peak memory, cells of the temporaries before and after, the
//! merged SCoPs (cells and buffer extents), the slowest step, and each
//! temporary's outcome: its certified mapping as printed by the reports,
//! `kept` or `merged`. The summary gives per kernel the time ratio of the
//! largest factor to the smallest, and whether the mappings are the same
//! at every size: `same` (identical text), `affine` (the same text up to
//! its numbers, each number an affine function of the factor, which is
//! what one formula in the parameters gives when all of them are scaled
//! together; needs three sizes), `numbers` (the same text up to its
//! numbers, not affine; `numbers?` with two sizes) or `differs`.
//! A kernel meets the criterion when every size finished, the
//! time ratio is at most 2 and the mappings are `same` or `affine`. Where
//! a storage pinned to the known values is kept because it is smaller
//! (issue 17's rule 4; the chooser records the storage for every value it
//! beat, `ArrayDecision::pinned_over`), the row shows both and the
//! comparison takes the one for every value: the formula must be the same
//! at every size, and the verdict names the sizes where a pin won.
//!
//! Time columns (ms): `time` the median of the runs (front end and
//! contraction), `front` the front end's median, `arrays` the median of
//! the analysis time the record attributes to the arrays and merged SCoPs,
//! `other` the rest (code generation, pins, and inter-array attempts that
//! were not used: the record keeps no time for those). `slowest step` is
//! the longest single time the record holds (a strategy on an array, an
//! array's whole decision, or a merged SCoP), of the last run.

use std::fmt::Write;
use std::io::Read;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::frontend;
use crate::ir::{ParamOrigin, Program};
use crate::mapping::modular::ParamAffine;
use crate::pipeline::{ArrayOutcome, FileContraction};

/// The default factors of `--scale`.
pub(crate) const DEFAULT_FACTORS: [u64; 3] = [1, 16, 256];

/// The options of a scaling run.
#[derive(Clone, Debug)]
pub struct ScaleOptions {
    /// The factors, ascending, without repeats.
    pub factors: Vec<u64>,
    pub repeats: usize,
    /// `NAME` (every kernel) or `KERNEL:NAME`: defines left at their value.
    pub fixed: Vec<String>,
    /// The most cells the original program of a kernel may declare.
    pub max_cells: Option<i64>,
    /// Per (kernel, factor) run.
    pub time_limit: Duration,
    /// Resident memory a child may reach, in MB.
    pub mem_limit_mb: u64,
    pub lattices: bool,
    pub inter_array: bool,
    /// `--pin-sizes` for every run.
    pub pin_sizes: bool,
    /// One line on stderr per finished measurement.
    pub progress: bool,
}

impl Default for ScaleOptions {
    fn default() -> ScaleOptions {
        ScaleOptions {
            factors: DEFAULT_FACTORS.to_vec(),
            repeats: 3,
            fixed: Vec::new(),
            max_cells: None,
            time_limit: Duration::from_secs(600),
            mem_limit_mb: 4096,
            lattices: true,
            inter_array: true,
            pin_sizes: false,
            progress: false,
        }
    }
}

/// The factors of `--scale`, ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Factors(pub Vec<u64>);

/// [`parse_factors`] for the command line.
pub(crate) fn parse_factor_list(s: &str) -> Result<Factors, String> {
    parse_factors(s).map(Factors)
}

/// Parses `1,16,256` into ascending distinct factors (each ≥ 1).
pub(crate) fn parse_factors(s: &str) -> Result<Vec<u64>, String> {
    let mut factors = Vec::new();
    for part in s.split(',') {
        let f: u64 = part
            .trim()
            .parse()
            .map_err(|_| format!("`{part}` is not a positive integer factor"))?;
        if f == 0 {
            return Err("a factor must be at least 1".into());
        }
        factors.push(f);
    }
    factors.sort_unstable();
    factors.dedup();
    Ok(factors)
}

/// Whether `body` is a decimal integer literal (optionally parenthesised,
/// with `u`/`l` suffixes): the range of its digits within `body`.
fn literal_digits(body: &str) -> Option<std::ops::Range<usize>> {
    let start = body.len() - body.trim_start_matches(['(', ' ', '\t']).len();
    let rest = &body[start..];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let tail = rest[digits..]
        .trim_start_matches(['u', 'U', 'l', 'L'])
        .trim_matches([')', ' ', '\t']);
    tail.is_empty().then_some(start..start + digits)
}

/// The identifiers of a macro body.
fn identifiers(body: &str) -> Vec<&str> {
    body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit()))
        .collect()
}

/// Whether `--fixed` keeps `name` of `kernel` at its value.
pub(crate) fn is_fixed(fixed: &[String], kernel: &str, name: &str) -> bool {
    fixed.iter().any(|f| match f.split_once(':') {
        Some((k, n)) => k == kernel && n == name,
        None => f == name,
    })
}

/// The integer `#define`s of `program` that size its SCoPs: every
/// parameter that comes from a `#define`, and the integer defines the body
/// of such a define uses (recursively), sorted by name.
pub(crate) fn size_defines(program: &Program) -> Vec<String> {
    let mut todo: Vec<String> = program
        .scops
        .iter()
        .flat_map(|s| s.params.iter())
        .filter(|p| p.origin == ParamOrigin::Define && p.value.is_some())
        .map(|p| p.name.clone())
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    let mut literal = std::collections::BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(m) = program.macros.object(&name) else {
            continue;
        };
        if m.origin != ParamOrigin::Define {
            continue;
        }
        if literal_digits(&m.body).is_some() {
            literal.insert(name);
        } else {
            todo.extend(identifiers(&m.body).into_iter().map(str::to_string));
        }
    }
    literal.into_iter().collect()
}

/// The text of `program` with the integer bodies of its size defines
/// (except `fixed`) multiplied by `factor`, and the scaled defines with
/// their new values. Every `#define` line of such a name with a literal
/// body is rewritten (conditional definitions included).
pub(crate) fn scale_source(
    program: &Program,
    kernel: &str,
    factor: u64,
    fixed: &[String],
) -> Result<(String, Vec<(String, i64)>), String> {
    let names: Vec<String> = size_defines(program)
        .into_iter()
        .filter(|n| !is_fixed(fixed, kernel, n))
        .collect();
    let source = &program.source;
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let mut scaled = Vec::new();
    for m in &program.macros.objects {
        if m.origin != ParamOrigin::Define || !names.contains(&m.name) {
            continue;
        }
        let (Some(span), Some(digits)) = (&m.span, literal_digits(&m.body)) else {
            continue;
        };
        let line = source
            .get(span.clone())
            .ok_or_else(|| format!("the span of `#define {}` is outside the file", m.name))?;
        // The body after `define` and the name (the name may also occur in
        // a comment before, so look after the directive's name).
        let after_define = line
            .find("define")
            .ok_or_else(|| format!("`{line}` is not a #define"))?
            + "define".len();
        let after_name = after_define
            + line[after_define..]
                .find(m.name.as_str())
                .ok_or_else(|| format!("`{line}` does not name {}", m.name))?
            + m.name.len();
        let body_at = after_name
            + line[after_name..]
                .find(m.body.as_str())
                .ok_or_else(|| format!("`{line}`: body `{}` not found", m.body))?;
        let value: i64 = m.body[digits.clone()]
            .parse()
            .map_err(|_| format!("`#define {} {}`: the value overflows", m.name, m.body))?;
        let new = i64::try_from(factor)
            .ok()
            .and_then(|f| value.checked_mul(f))
            .ok_or_else(|| format!("{} × {factor} overflows", m.name))?;
        let at = span.start + body_at + digits.start;
        edits.push((at..at + digits.len(), new.to_string()));
        if !scaled.iter().any(|(n, _): &(String, i64)| *n == m.name) {
            scaled.push((m.name.clone(), new));
        }
    }
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut text = source.clone();
    for (range, new) in edits {
        text.replace_range(range, &new);
    }
    scaled.sort();
    Ok((text, scaled))
}

/// Cells declared by the arrays the SCoPs of `program` access (each
/// declaration, `function.name`, once), for the known values; `None` when
/// an extent is unknown.
pub(crate) fn declared_cells(program: &Program) -> Option<i64> {
    let mut seen = std::collections::BTreeSet::new();
    let mut total: i64 = 0;
    for scop in &program.scops {
        let values: Vec<i64> = scop.params.iter().map(|p| p.value).collect::<Option<_>>()?;
        for a in &scop.arrays {
            if !seen.insert((scop.function.clone(), a.name.clone())) {
                continue;
            }
            let mut cells: i64 = 1;
            for e in ParamAffine::extents_of(a) {
                cells = cells.checked_mul(e?.eval(&values).ok()?)?;
            }
            total = total.checked_add(cells)?;
        }
    }
    Some(total)
}

/// The kernel name of a file: its stem.
pub(crate) fn kernel_name(file: &Path) -> String {
    file.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("?")
        .to_string()
}

/// The largest factor `≤ factor` whose scaled program declares at most
/// `max` cells (at least 1).
fn capped_factor(program: &Program, kernel: &str, factor: u64, options: &ScaleOptions) -> u64 {
    let Some(max) = options.max_cells else {
        return factor;
    };
    let fits = |k: u64| -> bool {
        scale_source(program, kernel, k, &options.fixed)
            .ok()
            .map(|(text, _)| {
                let p = frontend::extract(kernel, &text, &frontend::Options::default());
                declared_cells(&p).is_some_and(|c| c <= max)
            })
            .unwrap_or(false)
    };
    if factor <= 1 || fits(factor) {
        return factor;
    }
    // Binary search: declared cells grow with the factor.
    let (mut lo, mut hi) = (1u64, factor);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

// ---------------------------------------------------------------------
// The child: one kernel at one factor.

/// The measurement of one kernel at one factor, as one JSON object (the
/// line `polyfold bench-scale-one` prints). `time_budget`: no further
/// repeat starts once the runs so far and one more would exceed it.
pub fn measure_one(
    file: &Path,
    factor: u64,
    fixed: &[String],
    repeats: usize,
    time_budget: Duration,
    contract: &crate::pipeline::ContractOptions,
) -> Value {
    let kernel = kernel_name(file);
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => return json!({ "error": format!("cannot read {}: {e}", file.display()) }),
    };
    let original = frontend::extract(&kernel, &source, &frontend::Options::default());
    let (text, _) = match scale_source(&original, &kernel, factor, fixed) {
        Ok(t) => t,
        Err(e) => return json!({ "error": e }),
    };
    drop(original);
    let mut times = Vec::new();
    let mut front = Vec::new();
    let mut attributed = Vec::new();
    let mut last = None;
    let all = Instant::now();
    for run in 0..repeats.max(1) {
        if run > 0 {
            let per_run = all.elapsed() / run as u32;
            if all.elapsed() + per_run > time_budget {
                break;
            }
        }
        let start = Instant::now();
        let program = frontend::extract(&kernel, &text, &frontend::Options::default());
        front.push(start.elapsed());
        let (program, contraction) =
            crate::pipeline::contract_indexed(program, contract, &frontend::Options::default());
        times.push(start.elapsed());
        if let Ok(c) = &contraction {
            attributed.push(attributed_time(c));
        }
        last = Some((program, contraction));
    }
    let Some((program, contraction)) = last else {
        return json!({ "error": "no run" });
    };
    let median = super::corpus::median(times.clone());
    let front_median = super::corpus::median(front);
    let attributed_median = (!attributed.is_empty()).then(|| super::corpus::median(attributed));
    let mut params: Vec<(String, Option<i64>)> = Vec::new();
    for p in program.scops.iter().flat_map(|s| s.params.iter()) {
        if !params.iter().any(|(n, _)| *n == p.name) {
            params.push((p.name.clone(), p.value));
        }
    }
    let mut out = json!({
        "kernel": kernel,
        "factor": factor,
        "params": params.iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>(),
        "runs": times.len(),
        "median_ms": median.as_secs_f64() * 1e3,
        "frontend_ms": front_median.as_secs_f64() * 1e3,
        "attributed_ms": attributed_median.map(|t| t.as_secs_f64() * 1e3),
        "times_ms": times.iter().map(|t| t.as_secs_f64() * 1e3).collect::<Vec<_>>(),
    });
    match contraction {
        Ok(c) => {
            let fields = contraction_fields(&program, &c);
            if let (Value::Object(o), Value::Object(f)) = (&mut out, fields) {
                o.extend(f);
            }
        }
        Err(e) => out["error"] = json!(format!("polyfold failed: {e}")),
    }
    out["peak_kb"] = json!(peak_kb_self());
    out
}

/// The analysis time the record attributes to the arrays and the merged
/// SCoPs of a contraction.
fn attributed_time(c: &FileContraction) -> Duration {
    c.decisions
        .iter()
        .map(|d| d.time)
        .chain(c.merged.iter().map(|m| m.time))
        .sum()
}

/// Cells, outcomes, merged SCoPs and the slowest step of a contraction.
fn contraction_fields(program: &Program, c: &FileContraction) -> Value {
    let mut seen = std::collections::BTreeSet::new();
    let mut original: Option<i64> = Some(0);
    let mut after: Option<i64> = Some(0);
    let mut arrays = Vec::new();
    let mut slowest: Option<(Duration, String)> = None;
    let mut consider = |t: Duration, what: String| {
        if slowest.as_ref().is_none_or(|(s, _)| t > *s) {
            slowest = Some((t, what));
        }
    };
    for d in &c.decisions {
        if matches!(d.outcome, ArrayOutcome::External) {
            continue;
        }
        // The array's whole decision, with its slowest strategy.
        let strategy = d
            .strategies
            .iter()
            .max_by_key(|s| s.time)
            .map_or(String::new(), |s| {
                format!(" ({} {:.0})", s.method, s.time.as_secs_f64() * 1e3)
            });
        consider(d.time, format!("{}{strategy}", d.name));
        let key = format!("{}.{}", program.scops[d.scop].function, d.name);
        if !seen.insert(key.clone()) {
            continue;
        }
        original = original.zip(d.original_cells).map(|(a, b)| a + b);
        let outcome = match &d.outcome {
            ArrayOutcome::Remapped { certified, .. } => certified
                .mapping_text()
                .unwrap_or_else(|| "remapped".to_string()),
            ArrayOutcome::Merged { .. } => "merged".to_string(),
            ArrayOutcome::Kept { .. } => "kept".to_string(),
            ArrayOutcome::External => unreachable!("skipped above"),
        };
        if !matches!(d.outcome, ArrayOutcome::Merged { .. }) {
            after = after.zip(d.new_cells()).map(|(a, b)| a + b);
        }
        let why = match &d.outcome {
            ArrayOutcome::Kept { why } => Some(why.to_string()),
            _ => None,
        };
        arrays.push(json!({
            "array": key,
            "name": d.name,
            "outcome": outcome,
            "pinned_over": d.pinned_over.as_ref().map(|e| e.mapping.clone()),
            "original": d.original_cells,
            "new": d.new_cells(),
            "ms": d.time.as_secs_f64() * 1e3,
            "why": why,
        }));
    }
    let mut merged = Vec::new();
    for m in &c.merged {
        after = after.map(|a| a + m.merged_cells);
        consider(m.time, format!("scop{}(inter-array)", m.scop));
        let param_names = program.scops[m.scop].param_texts();
        let buffers: Vec<String> = m
            .storage()
            .buffers
            .iter()
            .map(|b| {
                let ext: Vec<String> = b
                    .extents
                    .iter()
                    .map(|e| crate::codegen::text::param_text(e, &param_names))
                    .collect();
                format!("{}[{}]", b.name, ext.join("]["))
            })
            .collect();
        // The location of every access (`S0.1: polyfold_buf0[...]`).
        let locations = m
            .certified
            .merged()
            .map_or_else(Vec::new, |c| c.report.locations.clone());
        merged.push(json!({
            "scop": m.scop,
            "cells": m.merged_cells,
            "per_array": m.per_array_cells,
            "buffers": buffers,
            "locations": locations,
            "ms": m.time.as_secs_f64() * 1e3,
        }));
    }
    json!({
        "original": original,
        "after": after,
        "arrays": arrays,
        "merged": merged,
        "slowest": slowest.map(|(t, what)| {
            let ms = t.as_secs_f64() * 1e3;
            match what.split_once(' ') {
                Some((name, rest)) => format!("{name} {ms:.0} {rest}"),
                None => format!("{what} {ms:.0}"),
            }
        }),
    })
}

/// `VmHWM` of this process in kB (`None` without `/proc`).
pub fn peak_kb_self() -> Option<u64> {
    status_kb(Path::new("/proc/self/status"), "VmHWM:")
}

/// A `kB` field of a `/proc/PID/status` file.
fn status_kb(path: &Path, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(field))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

// ---------------------------------------------------------------------
// The parent: one child per (kernel, factor).

/// How one (kernel, factor) run ended.
#[derive(Clone, Debug)]
pub enum RunEnd {
    /// The child's JSON line.
    Done(Value),
    /// Killed after the time limit.
    Timeout,
    /// Killed when its resident memory passed the limit (the MB seen).
    Memory(u64),
    /// Not run: a smaller factor timed out or ran out of memory.
    Skipped,
    /// The child failed (exit status, stderr tail) or printed no JSON.
    Failed(String),
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct ScaleRow {
    pub kernel: String,
    /// The factor asked for and the one used (they differ under `--max-cells`).
    pub factor: u64,
    pub used: u64,
    /// The scaled defines and their values (known before running).
    pub defines: Vec<(String, i64)>,
    pub end: RunEnd,
}

/// The result of a scaling run: the rows, the printed table and summary.
#[derive(Clone, Debug, Default)]
pub struct ScaleResult {
    pub rows: Vec<ScaleRow>,
    pub table: String,
    pub summary: String,
    /// Whether some child failed (crashed, printed no JSON, or reported an error).
    pub failed: bool,
}

/// Runs one child and waits for it within the limits.
pub(crate) fn run_child(exe: &Path, args: &[String], options: &ScaleOptions) -> RunEnd {
    let mut child = match Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return RunEnd::Failed(format!("cannot start {}: {e}", exe.display())),
    };
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut r) = r {
                let _ = r.read_to_string(&mut s);
            }
            s
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status_path = PathBuf::from(format!("/proc/{}/status", child.id()));
    let limit_kb = options.mem_limit_mb.saturating_mul(1024);
    let mut killed = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        if start.elapsed() > options.time_limit {
            killed = Some(RunEnd::Timeout);
        } else if let Some(rss) = status_kb(&status_path, "VmRSS:")
            && rss > limit_kb
        {
            killed = Some(RunEnd::Memory(rss / 1024));
        }
        if killed.is_some() {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        let wait = if start.elapsed() < Duration::from_secs(1) {
            Duration::from_millis(5)
        } else {
            Duration::from_millis(50)
        };
        std::thread::sleep(wait);
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if let Some(end) = killed {
        return end;
    }
    let line = stdout.lines().rev().find(|l| l.starts_with('{'));
    match (status, line.map(serde_json::from_str::<Value>)) {
        (Some(s), Some(Ok(v))) if s.success() => RunEnd::Done(v),
        (s, _) => {
            let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            RunEnd::Failed(format!(
                "{}; {}",
                s.map_or("no exit status".to_string(), |s| s.to_string()),
                tail.join(" | ")
            ))
        }
    }
}

/// The files of `path`: the `*.c` of a folder, sorted, or the file itself.
pub(crate) fn scale_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if path.is_dir() {
        super::corpus::corpus_files(path)
    } else {
        std::fs::metadata(path)?;
        Ok(vec![path.to_path_buf()])
    }
}

/// Runs the scaling benchmark over `path` (a folder of kernels or one
/// file), each measurement a child `exe bench-scale-one`.
pub fn run_scale(path: &Path, options: &ScaleOptions, exe: &Path) -> std::io::Result<ScaleResult> {
    let mut rows = Vec::new();
    for file in scale_files(path)? {
        let kernel = kernel_name(&file);
        let source = std::fs::read_to_string(&file)?;
        let program = frontend::extract(&kernel, &source, &frontend::Options::default());
        let scalable = !size_defines(&program)
            .iter()
            .all(|n| is_fixed(&options.fixed, &kernel, n));
        let mut stop = false;
        for &factor in &options.factors {
            if factor > 1 && !scalable {
                continue;
            }
            let used = capped_factor(&program, &kernel, factor, options);
            let defines = scale_source(&program, &kernel, used, &options.fixed)
                .map(|(_, d)| d)
                .unwrap_or_default();
            let end = if stop {
                RunEnd::Skipped
            } else {
                let mut args = vec![
                    "bench-scale-one".to_string(),
                    file.display().to_string(),
                    "--factor".into(),
                    used.to_string(),
                    "--repeats".into(),
                    options.repeats.to_string(),
                    "--time-budget".into(),
                    format!("{}", options.time_limit.as_secs_f64() / 4.0),
                ];
                for f in &options.fixed {
                    args.push("--fixed".into());
                    args.push(f.clone());
                }
                if !options.lattices {
                    args.push("--no-lattice".into());
                }
                if !options.inter_array {
                    args.push("--no-inter-array".into());
                }
                if options.pin_sizes {
                    args.push("--pin-sizes".into());
                }
                run_child(exe, &args, options)
            };
            if matches!(end, RunEnd::Timeout | RunEnd::Memory(_)) {
                stop = true;
            }
            if options.progress {
                let what = match &end {
                    RunEnd::Done(v) => format!("{:.1} ms", v["median_ms"].as_f64().unwrap_or(0.0)),
                    e => end_word(e, Some(options.time_limit)),
                };
                let _ = writeln!(std::io::stderr(), "bench --scale: {kernel} x{used}: {what}");
            }
            rows.push(ScaleRow {
                kernel: kernel.clone(),
                factor,
                used,
                defines,
                end,
            });
        }
    }
    let failed = rows.iter().any(|r| match &r.end {
        RunEnd::Failed(_) => true,
        RunEnd::Done(v) => v.get("error").is_some_and(|e| !e.is_null()),
        _ => false,
    });
    let table = table(&rows);
    let summary = summary(&rows);
    Ok(ScaleResult {
        rows,
        table,
        summary,
        failed,
    })
}

fn num(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        _ => "?".to_string(),
    }
}

/// The parameters of a row: the child's values, or the scaled defines.
fn params_text(row: &ScaleRow) -> String {
    if let RunEnd::Done(v) = &row.end
        && let Some(ps) = v["params"].as_array()
    {
        return ps
            .iter()
            .map(|p| format!("{}={}", p[0].as_str().unwrap_or("?"), num(&p[1])))
            .collect::<Vec<_>>()
            .join(",");
    }
    row.defines
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The outcomes of a run: each temporary's mapping (or `kept`/`merged`),
/// then each merged SCoP's buffers and access locations. A storage pinned
/// to the known values where it is smaller (issue 17's rule 4) carries the
/// mapping for every value it beat: with `formulas`, that one stands for
/// it (the formula compared across the sizes); else both are shown.
fn outcomes(v: &Value, formulas: bool) -> Vec<String> {
    let mut out: Vec<String> = v["arrays"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            let outcome = a["outcome"].as_str().unwrap_or("?");
            let name = a["name"].as_str().unwrap_or("?");
            match a["pinned_over"].as_str() {
                Some(every) if formulas => every.to_string(),
                Some(every) => format!("{outcome} (pinned; for every value: {every})"),
                None if outcome == "kept" || outcome == "merged" || outcome == "remapped" => {
                    format!("{name} {outcome}")
                }
                None => outcome.to_string(),
            }
        })
        .collect();
    for m in v["merged"].as_array().into_iter().flatten() {
        let buffers: Vec<&str> = m["buffers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let locations: Vec<&str> = m["locations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        out.push(format!(
            "scop{} {{{}}} {}",
            num(&m["scop"]),
            buffers.join(" "),
            locations.join(" ")
        ));
    }
    out
}

fn end_word(end: &RunEnd, options_limit: Option<Duration>) -> String {
    match end {
        RunEnd::Done(_) => String::new(),
        RunEnd::Timeout => options_limit.map_or("timeout".into(), |l| {
            format!("timeout (> {:.0} s)", l.as_secs_f64())
        }),
        RunEnd::Memory(mb) => format!("memory (killed at {mb} MB)"),
        RunEnd::Skipped => "skipped (a smaller factor did not finish)".into(),
        RunEnd::Failed(why) => format!("FAILED: {why}"),
    }
}

fn table(rows: &[ScaleRow]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<20} {:>6} {:<28} {:>10} {:>4} {:>8} {:>8} {:>8} {:>8} {:>12} {:>10} {:<24} {:<44} outcomes (mapping, kept, merged)",
        "kernel",
        "factor",
        "parameters",
        "time ms",
        "runs",
        "peak MB",
        "front",
        "arrays",
        "other",
        "orig cells",
        "after",
        "merged",
        "slowest step ms (its slowest strategy)"
    );
    for r in rows {
        let factor = if r.used == r.factor {
            r.factor.to_string()
        } else {
            format!("{}->{}", r.factor, r.used)
        };
        let params = params_text(r);
        match &r.end {
            RunEnd::Done(v) if v.get("error").is_none_or(Value::is_null) => {
                let peak = v["peak_kb"]
                    .as_u64()
                    .map_or("?".to_string(), |k| format!("{:.1}", k as f64 / 1024.0));
                let merged: Vec<String> = v["merged"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|m| format!("scop{}={}", num(&m["scop"]), num(&m["cells"])))
                    .collect();
                let merged = if merged.is_empty() {
                    "-".to_string()
                } else {
                    merged.join(",")
                };
                let ms = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
                let other = ms("median_ms") - ms("frontend_ms") - ms("attributed_ms");
                let _ = writeln!(
                    t,
                    "{:<20} {:>6} {:<28} {:>10.1} {:>4} {:>8} {:>8.1} {:>8.1} {:>8.1} {:>12} {:>10} {:<24} {:<44} {}",
                    r.kernel,
                    factor,
                    params,
                    ms("median_ms"),
                    num(&v["runs"]),
                    peak,
                    ms("frontend_ms"),
                    ms("attributed_ms"),
                    other.max(0.0),
                    num(&v["original"]),
                    num(&v["after"]),
                    merged,
                    v["slowest"].as_str().unwrap_or("-"),
                    outcomes(v, false).join("; ")
                );
            }
            RunEnd::Done(v) => {
                let _ = writeln!(
                    t,
                    "{:<20} {:>6} {:<28} FAILED: {}",
                    r.kernel,
                    factor,
                    params,
                    v["error"].as_str().unwrap_or("?")
                );
            }
            end => {
                let _ = writeln!(
                    t,
                    "{:<20} {:>6} {:<28} {}",
                    r.kernel,
                    factor,
                    params,
                    end_word(end, None)
                );
            }
        }
    }
    t
}

/// Replaces every run of digits by `#`, and the numbers in order.
fn split_numbers(s: &str) -> (String, Vec<i64>) {
    let mut shape = String::new();
    let mut numbers = Vec::new();
    let mut digits = String::new();
    for c in s.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            numbers.push(digits.parse().unwrap_or(i64::MAX));
            digits.clear();
            shape.push('#');
        }
        shape.push(c);
    }
    shape.pop();
    (shape, numbers)
}

/// How the outcomes of the sizes `(factor, outcomes)` compare.
pub(crate) fn compare_mappings(runs: &[(u64, String)]) -> &'static str {
    if runs.len() < 2 {
        return "n/a";
    }
    if runs.iter().all(|(_, o)| *o == runs[0].1) {
        return "same";
    }
    let split: Vec<(u64, (String, Vec<i64>))> =
        runs.iter().map(|(f, o)| (*f, split_numbers(o))).collect();
    let (shape, first) = &split[0].1;
    if split
        .iter()
        .any(|(_, (s, n))| s != shape || n.len() != first.len())
    {
        return "differs";
    }
    if runs.len() < 3 {
        return "numbers?";
    }
    // Each number affine in the factor: the slope between the first two
    // sizes predicts every other one (exact rational arithmetic).
    let (f0, f1) = (split[0].0 as i128, split[1].0 as i128);
    let affine = (0..first.len()).all(|k| {
        let (c0, c1) = (first[k] as i128, split[1].1.1[k] as i128);
        split[2..]
            .iter()
            .all(|(f, (_, n))| (n[k] as i128 - c0) * (f1 - f0) == (c1 - c0) * (*f as i128 - f0))
    });
    if affine { "affine" } else { "numbers" }
}

fn summary(rows: &[ScaleRow]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<20} {:>12} {:>12} {:>8} {:<9} {:<10} verdict (time within 2x and the same mapping)",
        "kernel", "time small", "time large", "ratio", "mapping", "finished"
    );
    let mut kernels: Vec<&str> = rows.iter().map(|r| r.kernel.as_str()).collect();
    kernels.dedup();
    let (mut meet, mut total) = (0, 0);
    let mut totals: Vec<(u64, f64, usize)> = Vec::new();
    for k in kernels {
        let mine: Vec<&ScaleRow> = rows.iter().filter(|r| r.kernel == k).collect();
        total += 1;
        let done: Vec<(&ScaleRow, &Value)> = mine
            .iter()
            .filter_map(|r| match &r.end {
                RunEnd::Done(v) if v.get("error").is_none_or(Value::is_null) => Some((*r, v)),
                _ => None,
            })
            .collect();
        for (r, v) in &done {
            let ms = v["median_ms"].as_f64().unwrap_or(0.0);
            match totals.iter_mut().find(|(f, _, _)| *f == r.factor) {
                Some(e) => {
                    e.1 += ms;
                    e.2 += 1;
                }
                None => totals.push((r.factor, ms, 1)),
            }
        }
        let unfinished: Vec<String> = mine
            .iter()
            .filter(|r| !matches!(r.end, RunEnd::Done(_)))
            .map(|r| format!("{}x {}", r.factor, end_word(&r.end, None)))
            .collect();
        let all_done = unfinished.is_empty() && done.len() == mine.len();
        let small = done
            .first()
            .map(|(_, v)| v["median_ms"].as_f64().unwrap_or(0.0));
        let large = done
            .last()
            .map(|(_, v)| v["median_ms"].as_f64().unwrap_or(0.0));
        let ratio = match (small, large) {
            (Some(s), Some(l)) if done.len() > 1 && s > 0.0 => Some(l / s),
            _ => None,
        };
        let outcomes: Vec<(u64, String)> = done
            .iter()
            .map(|(r, v)| (r.used, outcomes(v, true).join("; ")))
            .collect();
        let mapping = if all_done {
            compare_mappings(&outcomes)
        } else {
            "-"
        };
        let fits = all_done
            && mine.len() > 1
            && ratio.is_some_and(|r| r <= 2.0)
            && matches!(mapping, "same" | "affine");
        if fits {
            meet += 1;
        }
        let verdict = if mine.len() < 2 {
            "not scaled (no #define parameter to scale)".to_string()
        } else if !all_done {
            format!("NO: {}", unfinished.join(", "))
        } else if fits
            && done
                .iter()
                .all(|(_, v)| v["arrays"].as_array().is_some_and(Vec::is_empty))
        {
            "yes (no temporaries)".to_string()
        } else if fits {
            // Sizes where a storage pinned to the known values beat the
            // formula (rule 4): the formula is the same at every size.
            let pinned: Vec<String> = done
                .iter()
                .filter(|(_, v)| {
                    v["arrays"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|a| a["pinned_over"].is_string())
                })
                .map(|(r, _)| format!("{}x", r.used))
                .collect();
            if pinned.is_empty() {
                "yes".to_string()
            } else {
                format!(
                    "yes (the formula; a pinned mapping is smaller at {})",
                    pinned.join(", ")
                )
            }
        } else {
            let mut why = Vec::new();
            if !ratio.is_some_and(|r| r <= 2.0) {
                why.push("time grows");
            }
            match mapping {
                "same" | "affine" => {}
                "numbers?" => why.push(
                    "mapping: only its numbers change (two sizes cannot tell whether affinely)",
                ),
                _ => why.push("mapping changes"),
            }
            format!("NO: {}", why.join(", "))
        };
        let _ = writeln!(
            t,
            "{:<20} {:>12} {:>12} {:>8} {:<9} {:<10} {}",
            k,
            small.map_or("-".into(), |s| format!("{s:.1} ms")),
            large
                .filter(|_| done.len() > 1)
                .map_or("-".into(), |s| format!("{s:.1} ms")),
            ratio.map_or("-".into(), |r| format!("{r:.1}x")),
            mapping,
            format!("{}/{}", done.len(), mine.len()),
            verdict
        );
    }
    totals.sort_by_key(|(f, _, _)| *f);
    let _ = writeln!(t, "\ntotals:");
    for (f, ms, n) in &totals {
        let _ = writeln!(
            t,
            "  factor {f}: {n} kernel(s) finished, {:.1} s of analysis in all",
            ms / 1e3
        );
    }
    let count = |p: fn(&RunEnd) -> bool| rows.iter().filter(|r| p(&r.end)).count();
    let _ = writeln!(
        t,
        "  runs: {} finished, {} timed out, {} over the memory limit, {} skipped, {} failed",
        count(|e| matches!(e, RunEnd::Done(_))),
        count(|e| matches!(e, RunEnd::Timeout)),
        count(|e| matches!(e, RunEnd::Memory(_))),
        count(|e| matches!(e, RunEnd::Skipped)),
        count(|e| matches!(e, RunEnd::Failed(_))),
    );
    let _ = writeln!(
        t,
        "  {meet} of {total} kernel(s) meet the criterion (time within 2x, same mapping)"
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_bodies_are_found_and_expressions_are_not() {
        assert_eq!(literal_digits("64"), Some(0..2));
        assert_eq!(literal_digits("(100)"), Some(1..4));
        assert_eq!(literal_digits("64UL"), Some(0..2));
        for no in ["N", "N-1", "(N)", "0x40", "64 + 1", ""] {
            assert_eq!(literal_digits(no), None, "{no:?}");
        }
    }

    #[test]
    fn mappings_compare_by_text_shape_and_affinity() {
        let r = |v: &[(u64, &str)]| -> Vec<(u64, String)> {
            v.iter().map(|(f, s)| (*f, s.to_string())).collect()
        };
        assert_eq!(compare_mappings(&r(&[(1, "a % N"), (16, "a % N")])), "same");
        // 2N - 3 at N = 100, 1600, 25600.
        assert_eq!(
            compare_mappings(&r(&[
                (1, "y[c0 % 197]"),
                (16, "y[c0 % 3197]"),
                (256, "y[c0 % 51197]")
            ])),
            "affine"
        );
        assert_eq!(
            compare_mappings(&r(&[
                (1, "y[c0 % 197]"),
                (16, "y[c0 % 3197]"),
                (256, "y[c0 % 5]")
            ])),
            "numbers"
        );
        assert_eq!(
            compare_mappings(&r(&[(1, "y[c0 % 197]"), (2, "y kept")])),
            "differs"
        );
        assert_eq!(
            compare_mappings(&r(&[(1, "y[c0 % 3]"), (2, "y[c0 % 5]")])),
            "numbers?"
        );
    }

    #[test]
    fn defines_scale_with_their_ratios() {
        let src = "#define N 10\n#define M (N - 1)\n#define T 3\ndouble A[M][N];\nvoid f(void) {\n  for (int i = 0; i < M; i++)\n    A[i][0] = A[i][0] + T;\n}\n";
        let p = frontend::extract("k", src, &frontend::Options::default());
        let (text, scaled) = scale_source(&p, "k", 4, &[]).unwrap();
        assert!(
            text.starts_with("#define N 40\n#define M (N - 1)\n"),
            "{text}"
        );
        assert!(scaled.contains(&("N".to_string(), 40)), "{scaled:?}");
        let (text, _) = scale_source(&p, "k", 4, &["k:N".to_string()]).unwrap();
        assert!(text.starts_with("#define N 10\n"), "{text}");
    }

    #[test]
    fn the_cell_cap_lowers_the_factor() {
        // A[N][N] with N = 10: 100 k² cells at factor k; at most 1000 gives 3.
        let src = "#define N 10\ndouble A[N][N];\nvoid f(void) {\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++)\n      A[i][j] = A[i][j] + 1.0;\n}\n";
        let p = frontend::extract("k", src, &frontend::Options::default());
        assert_eq!(declared_cells(&p), Some(100));
        let options = ScaleOptions {
            max_cells: Some(1000),
            ..ScaleOptions::default()
        };
        assert_eq!(capped_factor(&p, "k", 256, &options), 3);
        assert_eq!(capped_factor(&p, "k", 2, &options), 2);
        let none = ScaleOptions::default();
        assert_eq!(capped_factor(&p, "k", 256, &none), 256);
    }
}
