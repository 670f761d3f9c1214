//! `polyfold bench DIR`: the corpus regression table.
//!
//! For every `DIR/*.c` the whole pipeline runs several times (the median
//! time is reported), the trace verifier measures the max-live lower bound,
//! and the result is compared with the committed expectations:
//! `DIR/expected/NAME.sizes` (one `array cells` line per array) and
//! `DIR/expected/NAME.c` (the golden transformed program), and the merged
//! SCoPs against `DIR/expected/NAME.merged` (one `scopN cells` line per
//! merged SCoP). A merged array's size is the one it needs folded alone. A
//! larger size or a different output is a regression; `--bless` rewrites
//! the expectations. With `--no-inter-array` (or `--no-lattice`) only the
//! per-array sizes are checked.
//! `DIR/published.txt` (lines `kernel array text`) supplies the published
//! figure column.
//!
//! A size line of `NAME.sizes` is `FUNCTION.ARRAY CELLS`, or, for an array
//! whose sizes have no known value (a symbolic kernel),
//! `FUNCTION.ARRAY = FORMULA` with the new size as the reports print it
//! (`(2 * n - 1)`), compared at probe values ([`formula`]). An array
//! recorded there that is no longer a temporary (or no longer has a size)
//! is a regression too.
//!
//! Besides the table, the run is one JSON document ([`BenchResult::json`],
//! `polyfold bench DIR --report json`, schema in `docs/bench-json.md`);
//! without timings (`--no-timings`) both depend only on the corpus.
//!
//! `--scale` runs the scaling benchmark instead ([`scale`]).

use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

use crate::frontend;
use crate::mapping::Method;
use crate::pipeline::{ContractOptions, Optimality, verify_contraction};
use crate::poly::Budget;

pub mod corpus;
pub mod formula;
pub mod inputs;
pub mod large;
pub mod scale;
pub mod speed;
mod speed_build;

pub use corpus::corpus_files;
use corpus::median;
use serde_json::{Value, json};

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub repeats: usize,
    pub bless: bool,
    pub contract: ContractOptions,
    /// Whether the table and the JSON document show times (`--no-timings`:
    /// no time at all, so that two runs print the same bytes).
    pub timings: bool,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            repeats: 5,
            bless: false,
            timings: true,
            contract: ContractOptions {
                record_max_live: true,
                ..ContractOptions::default()
            },
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct BenchResult {
    pub table: String,
    /// One line per regression; empty when everything meets expectations.
    pub regressions: Vec<String>,
    /// Notes: improvements, blessed files.
    pub notes: Vec<String>,
    /// One record per kernel, for [`BenchResult::json`].
    pub kernels: Vec<Value>,
    /// The corpus folder as given.
    pub dir: String,
    /// Whether times are recorded.
    pub timings: bool,
}

/// The version of the `bench --report json` document's schema
/// (`docs/bench-json.md`): raised when a field changes meaning or goes
/// away.
pub const BENCH_SCHEMA_VERSION: u32 = 1;

impl BenchResult {
    /// The whole run as one JSON document: the kernels' records, every
    /// regression and note, and the totals.
    pub fn json(&self) -> Value {
        let mut original = 0i64;
        let mut new = 0i64;
        for k in &self.kernels {
            for a in k["arrays"].as_array().into_iter().flatten() {
                if let (Some(o), Some(n)) = (a["original_cells"].as_i64(), a["new_cells"].as_i64())
                {
                    original = original.saturating_add(o);
                    new = new.saturating_add(n);
                }
            }
        }
        json!({
            "schema": "polyfold-bench",
            "schema_version": BENCH_SCHEMA_VERSION,
            "polyfold_version": env!("CARGO_PKG_VERSION"),
            "corpus": self.dir,
            "timings": self.timings,
            "status": if self.regressions.is_empty() { "ok" } else { "regression" },
            "kernels": self.kernels,
            "regressions": self.regressions,
            "notes": self.notes,
            "totals": {
                "kernels": self.kernels.len(),
                "regressions": self.regressions.len(),
                "original_cells": original,
                "new_cells": new,
            },
        })
    }
}

/// An expected size of `NAME.sizes`: cells, or a formula in the
/// parameters for a symbolic kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Size {
    Cells(i64),
    Formula(String),
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Size::Cells(n) => write!(f, "{n} cells"),
            Size::Formula(t) => write!(f, "{t} cells"),
        }
    }
}

impl Size {
    fn json(&self) -> Value {
        match self {
            Size::Cells(n) => json!({ "cells": n }),
            Size::Formula(t) => json!({ "formula": t }),
        }
    }

    /// How `self` (the new size) compares with `expected`.
    fn compare(&self, expected: &Size) -> formula::Comparison {
        use formula::Comparison;
        match (self, expected) {
            (Size::Cells(a), Size::Cells(b)) => match a.cmp(b) {
                std::cmp::Ordering::Less => Comparison::Smaller,
                std::cmp::Ordering::Equal => Comparison::Same,
                std::cmp::Ordering::Greater => Comparison::Larger,
            },
            (Size::Formula(a), Size::Formula(b)) => formula::compare(a, b),
            _ => Comparison::Different,
        }
    }
}

/// The `KEY CELLS` and `KEY = FORMULA` lines of a sizes file.
fn read_expected(path: &Path) -> Vec<(String, Size)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let (key, rest) = l.trim().split_once(char::is_whitespace)?;
            let rest = rest.trim();
            let size = match rest.strip_prefix('=') {
                Some(f) if !f.trim().is_empty() => Size::Formula(f.trim().to_string()),
                Some(_) => return None,
                None => Size::Cells(rest.parse().ok()?),
            };
            Some((key.to_string(), size))
        })
        .collect()
}

/// The `KEY CELLS` lines of a sizes file.
fn read_sizes(path: &Path) -> Vec<(String, i64)> {
    read_expected(path)
        .into_iter()
        .filter_map(|(k, s)| match s {
            Size::Cells(n) => Some((k, n)),
            Size::Formula(_) => None,
        })
        .collect()
}

fn published(dir: &Path) -> Vec<(String, String, String)> {
    let Ok(text) = std::fs::read_to_string(dir.join("published.txt")) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut it = l.splitn(3, char::is_whitespace);
            Some((
                it.next()?.to_string(),
                it.next()?.to_string(),
                it.next()?.trim().to_string(),
            ))
        })
        .collect()
}

/// The published figure of `kernel`'s `array` (`-` when none).
fn published_text(published: &[(String, String, String)], kernel: &str, array: &str) -> String {
    published
        .iter()
        .find(|(k, a, _)| k == kernel && a == array)
        .map_or("-".to_string(), |(_, _, t)| t.clone())
}

/// One row of the table: kernel, array, original, new, bound, whether the
/// new size is proven optimal (`bound`: it meets the max-live bound;
/// `search`: the exhaustive lattice search found nothing smaller), published,
/// method, then the time in milliseconds (`None`: no time column).
fn table_row(table: &mut String, cells: [&str; 8], time: Option<Duration>) {
    let [kernel, array, original, new, bound, optimal, publ, method] = cells;
    let row = format!(
        "{kernel:<22} {array:<8} {original:>9} {new:>9} {bound:>7} {optimal:<6} {publ:<34} {method:<18}"
    );
    let _ = match time {
        Some(t) => writeln!(table, "{row} {:>9.2}", t.as_secs_f64() * 1e3),
        None => writeln!(table, "{}", row.trim_end()),
    };
}

/// A median time in milliseconds for the JSON document (`None` without
/// timings).
fn ms(options: &BenchOptions, time: Duration) -> Option<f64> {
    options.timings.then_some(time.as_secs_f64() * 1e3)
}

/// What the repeated runs of the pipeline on one kernel leave: the last
/// program and contraction, and the times of every run, of each array's
/// decision and of each merged SCoP.
struct KernelRuns {
    program: crate::ir::Program,
    contraction: Result<crate::pipeline::FileContraction, crate::pipeline::Error>,
    times: Vec<Duration>,
    array_times: Vec<Vec<Duration>>,
    merged_times: std::collections::HashMap<usize, Vec<Duration>>,
}

/// One kernel of the bench: its name, the directory of its expectations
/// and the bench's options.
struct Kernel<'a> {
    name: String,
    expected_dir: &'a Path,
    published: &'a [(String, String, String)],
    options: &'a BenchOptions,
}

/// Runs the bench over `dir`.
pub fn run_bench(dir: &Path, options: &BenchOptions) -> std::io::Result<BenchResult> {
    let mut result = BenchResult {
        dir: dir.display().to_string(),
        timings: options.timings,
        ..BenchResult::default()
    };
    let published = published(dir);
    let expected_dir = dir.join("expected");
    if options.bless {
        std::fs::create_dir_all(&expected_dir)?;
    }
    let mut table = String::new();
    let header = format!(
        "{:<22} {:<8} {:>9} {:>9} {:>7} {:<6} {:<34} {:<18}",
        "kernel", "array", "original", "new", "bound", "opt", "published", "method"
    );
    let _ = if options.timings {
        writeln!(table, "{header} {:>9}", "time ms")
    } else {
        writeln!(table, "{}", header.trim_end())
    };
    for file in corpus_files(dir)? {
        let kernel = Kernel {
            name: file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("?")
                .to_string(),
            expected_dir: &expected_dir,
            published: &published,
            options,
        };
        let (regressions, notes) = (result.regressions.len(), result.notes.len());
        let mut record = bench_kernel(&kernel, &file, &mut table, &mut result)?;
        let file_name = file.file_name().map(|f| f.to_string_lossy().into_owned());
        record["kernel"] = json!(kernel.name);
        record["file"] = json!(file_name);
        record["regressions"] = json!(result.regressions[regressions..]);
        record["notes"] = json!(result.notes[notes..]);
        if record.get("status").is_none() {
            record["status"] = json!(if result.regressions.len() > regressions {
                "regression"
            } else {
                "ok"
            });
        }
        result.kernels.push(record);
    }
    result.table = table;
    Ok(result)
}

/// Benches one kernel: its rows of the table, and its sizes, merged
/// SCoPs, trace and golden output checked against the expectations; its
/// record of the JSON document (without its name, file, regressions and
/// notes, which the caller adds).
fn bench_kernel(
    kernel: &Kernel,
    file: &Path,
    table: &mut String,
    result: &mut BenchResult,
) -> std::io::Result<Value> {
    let source = std::fs::read_to_string(file)?;
    let Some(runs) = run_repeatedly(&kernel.name, &source, kernel.options) else {
        return Ok(json!({ "status": "failed" }));
    };
    let contraction = match &runs.contraction {
        Ok(c) => c,
        Err(e) => {
            result
                .regressions
                .push(format!("{}: polyfold failed: {e}", kernel.name));
            return Ok(json!({ "status": "failed", "error": e.to_string() }));
        }
    };
    let trace_ok = check_trace(&kernel.name, &runs.program, contraction, result);
    let (sizes_text, arrays) = array_rows(kernel, &runs, contraction, table, result);
    let merged = merged_rows(kernel, &runs, contraction, table, result)?;
    let options = kernel.options;
    let time = median(runs.times.clone());
    table_row(
        table,
        [&kernel.name, "(all)", "", "", "", "", "", "pipeline median"],
        options.timings.then_some(time),
    );
    let mut record = json!({
        "arrays": arrays,
        "merged": merged,
        "trace": if trace_ok { "ok" } else { "wrong read" },
        "golden": "not checked",
    });
    if let Some(t) = ms(options, time) {
        record["time_ms"] = json!(t);
    }
    if !options.contract.inter_array || !options.contract.lattices {
        // The golden outputs are those of the default pipeline; without
        // merging or lattices only the per-array sizes are checked.
        return Ok(record);
    }
    if options.bless {
        std::fs::write(
            kernel.expected_dir.join(format!("{}.sizes", kernel.name)),
            &sizes_text,
        )?;
        result.notes.push(format!("{}: blessed", kernel.name));
    }
    record["golden"] = json!(if check_golden(kernel, &contraction.output, result) {
        "ok"
    } else {
        "differs"
    });
    Ok(record)
}

/// Runs the whole pipeline `repeats` times on one kernel (at least once),
/// timing each run, each array's decision and each merged SCoP.
fn run_repeatedly(kernel: &str, source: &str, options: &BenchOptions) -> Option<KernelRuns> {
    let mut times = Vec::new();
    let mut array_times: Vec<Vec<Duration>> = Vec::new();
    let mut merged_times: std::collections::HashMap<usize, Vec<Duration>> =
        std::collections::HashMap::new();
    let mut last = None;
    for _ in 0..options.repeats.max(1) {
        let start = std::time::Instant::now();
        let program = frontend::extract(kernel, source, &frontend::Options::default());
        let (program, contraction) = crate::pipeline::contract_indexed(
            program,
            &options.contract,
            &frontend::Options::default(),
        );
        times.push(start.elapsed());
        if let Ok(c) = &contraction {
            array_times.resize(c.decisions.len(), Vec::new());
            for (i, d) in c.decisions.iter().enumerate() {
                array_times[i].push(d.time);
            }
            for m in &c.merged {
                merged_times.entry(m.scop).or_default().push(m.time);
            }
        }
        last = Some((program, contraction));
    }
    let (program, contraction) = last?;
    Some(KernelRuns {
        program,
        contraction,
        times,
        array_times,
        merged_times,
    })
}

/// The trace verifier on the contraction: a wrong read is a regression;
/// whether every read was right.
fn check_trace(
    kernel: &str,
    program: &crate::ir::Program,
    contraction: &crate::pipeline::FileContraction,
    result: &mut BenchResult,
) -> bool {
    let mut budget = Budget::new(u64::MAX, None);
    let reports = verify_contraction(program, contraction, &mut budget).unwrap_or_default();
    let mut ok = true;
    for (scop, report) in &reports {
        if let Some(m) = &report.first_mismatch {
            ok = false;
            result.regressions.push(format!(
                "{kernel}: SCoP {scop}: the verifier found a wrong read: {m:?}"
            ));
        }
    }
    ok
}

/// The size `--bless` records for an array: its cells folded alone, or
/// the new size's formula when its sizes have no known value.
fn recorded_size(d: &crate::pipeline::ArrayDecision) -> Option<Size> {
    if let Some(n) = d.alone_cells() {
        return Some(Size::Cells(n));
    }
    let f = d.formula.as_ref()?;
    Some(Size::Formula(
        f.new.clone().unwrap_or_else(|| f.original.clone()),
    ))
}

/// The size of an array checked against its expected size: a regression
/// (larger, or not comparable), an improvement (a note), or nothing; the
/// status word of the JSON document.
fn check_size(
    name: &str,
    key: &str,
    size: &Size,
    expected: Option<&Size>,
    bless: bool,
    result: &mut BenchResult,
) -> &'static str {
    use formula::Comparison;
    let Some(e) = expected else {
        if !bless {
            result
                .regressions
                .push(format!("{name}: no expected size for {key} (run --bless)"));
        }
        return "unexpected";
    };
    match size.compare(e) {
        Comparison::Same => "ok",
        Comparison::Smaller => {
            result.notes.push(format!(
                "{name}: {key} improved from {e} to {size} (run --bless)"
            ));
            "improved"
        }
        Comparison::Larger => {
            result.regressions.push(format!(
                "{name}: size regression: {key} needs {size}, expected at most {e}"
            ));
            "regression"
        }
        Comparison::Different => {
            result.regressions.push(format!(
                "{name}: size regression: {key} needs {size}, not proven at most the expected {e}"
            ));
            "regression"
        }
    }
}

/// One row per array (each once), its size folded alone checked against
/// `NAME.sizes`; returns the text `--bless` writes there and the arrays'
/// records of the JSON document.
fn array_rows(
    kernel: &Kernel,
    runs: &KernelRuns,
    contraction: &crate::pipeline::FileContraction,
    table: &mut String,
    result: &mut BenchResult,
) -> (String, Vec<Value>) {
    let name = &kernel.name;
    let options = kernel.options;
    let expected = read_expected(&kernel.expected_dir.join(format!("{name}.sizes")));
    let mut sizes_text =
        String::from("# array cells: expected sizes after contraction (polyfold bench --bless)\n");
    let mut records = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (i, d) in contraction.decisions.iter().enumerate() {
        if matches!(d.outcome, crate::pipeline::ArrayOutcome::External) {
            continue;
        }
        let function = &runs.program.scops[d.scop].function;
        let key = format!("{function}.{}", d.name);
        if !seen.insert(key.clone()) {
            continue;
        }
        let time = runs
            .array_times
            .get(i)
            .map(|v| median(v.clone()))
            .unwrap_or_default();
        let formula = d.formula.as_ref();
        let original = d
            .original_cells
            .map(|v| v.to_string())
            .or_else(|| formula.map(|f| f.original.clone()));
        let new = d
            .new_cells()
            .map(|v| v.to_string())
            .or_else(|| formula.map(|f| f.new.clone().unwrap_or_else(|| f.original.clone())));
        let publ = published_text(kernel.published, name, &d.name);
        table_row(
            table,
            [
                name,
                &d.name,
                original.as_deref().unwrap_or("?"),
                new.as_deref().unwrap_or("?"),
                &d.max_live.map_or("?".into(), |b| b.to_string()),
                d.proven_optimal().map_or("-", Optimality::short),
                &publ,
                d.method.name(),
            ],
            options.timings.then_some(time),
        );
        let size = recorded_size(d);
        let expected_size = expected.iter().find(|(k, _)| *k == key).map(|(_, e)| e);
        let status = match &size {
            Some(size) => {
                let _ = match size {
                    Size::Cells(n) => writeln!(sizes_text, "{key} {n}"),
                    Size::Formula(f) => writeln!(sizes_text, "{key} = {f}"),
                };
                check_size(name, &key, size, expected_size, options.bless, result)
            }
            None => "no size",
        };
        let mut record = json!({
            "function": function,
            "array": d.name,
            "scop": d.scop,
            "original_cells": d.original_cells,
            "new_cells": d.new_cells(),
            "alone_cells": d.alone_cells(),
            "lower_bound": d.max_live,
            "optimal": d.proven_optimal().map(Optimality::name),
            "method": d.method.name(),
            "folded": matches!(
                d.outcome,
                crate::pipeline::ArrayOutcome::Remapped { .. } | crate::pipeline::ArrayOutcome::Merged { .. }
            ),
            "published": (publ != "-").then_some(publ),
            "expected": expected_size.map(Size::json),
            "status": status,
            "regression": status == "regression",
        });
        if let Some(f) = formula {
            record["original_formula"] = json!(f.original);
            record["new_formula"] = json!(f.new.clone().unwrap_or_else(|| f.original.clone()));
        }
        if let Some(t) = ms(options, time) {
            record["time_ms"] = json!(t);
        }
        records.push(record);
    }
    // An array recorded that is no longer a temporary with a size.
    for (key, e) in &expected {
        let still = records.iter().any(|r| {
            format!(
                "{}.{}",
                r["function"].as_str().unwrap_or(""),
                r["array"].as_str().unwrap_or("")
            ) == *key
                && r["status"] != "no size"
        });
        if !still && !options.bless {
            result.regressions.push(format!(
                "{name}: size regression: {key} is no longer a folded temporary (expected {e})"
            ));
            records.push(json!({
                "function": key.split_once('.').map_or("", |(f, _)| f),
                "array": key.split_once('.').map_or(key.as_str(), |(_, a)| a),
                "expected": e.json(),
                "status": "missing",
                "regression": true,
            }));
        }
    }
    (sizes_text, records)
}

/// One row per merged SCoP (`--inter-array`), its cells checked against
/// `NAME.merged`; with `--inter-array`, a SCoP recorded there that no
/// longer merges is a regression, and `--bless` rewrites the file.
/// Returns the merged SCoPs' records of the JSON document.
fn merged_rows(
    kernel: &Kernel,
    runs: &KernelRuns,
    contraction: &crate::pipeline::FileContraction,
    table: &mut String,
    result: &mut BenchResult,
) -> std::io::Result<Vec<Value>> {
    let name = &kernel.name;
    let options = kernel.options;
    let merged_expected = read_sizes(&kernel.expected_dir.join(format!("{name}.merged")));
    let mut merged_text = String::from(
        "# merged cells per SCoP with --inter-array (polyfold bench --inter-array --bless)\n",
    );
    let mut records = Vec::new();
    for m in &contraction.merged {
        let key = format!("scop{}", m.scop);
        let time = runs
            .merged_times
            .get(&m.scop)
            .map(|v| median(v.clone()))
            .unwrap_or_default();
        let publ = published_text(kernel.published, name, "(merged)");
        table_row(
            table,
            [
                name,
                "(merged)",
                &m.per_array_cells.to_string(),
                &m.merged_cells.to_string(),
                &m.lower_bound.map_or("-".to_string(), |b| b.to_string()),
                if usize::try_from(m.merged_cells).is_ok_and(|c| Some(c) == m.lower_bound) {
                    Optimality::MaxLiveBound.short()
                } else {
                    "-"
                },
                &publ,
                Method::InterArray.name(),
            ],
            options.timings.then_some(time),
        );
        let _ = writeln!(merged_text, "{key} {}", m.merged_cells);
        let expected = merged_expected
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, e)| *e);
        let status = match expected {
            Some(e) if m.merged_cells > e => {
                result.regressions.push(format!(
                    "{name}: size regression: SCoP {} merged needs {} cells, expected at most {e}",
                    m.scop, m.merged_cells
                ));
                "regression"
            }
            Some(e) if m.merged_cells < e => {
                result.notes.push(format!(
                    "{name}: SCoP {} merged improved from {e} to {} cells (run --bless)",
                    m.scop, m.merged_cells
                ));
                "improved"
            }
            Some(_) => "ok",
            None => "unexpected",
        };
        let mut record = json!({
            "scop": m.scop,
            "per_array_cells": m.per_array_cells,
            "merged_cells": m.merged_cells,
            "lower_bound": m.lower_bound,
            "published": (publ != "-").then_some(publ),
            "expected": expected.map(|e| json!({ "cells": e })),
            "status": status,
            "regression": status == "regression",
        });
        if let Some(t) = ms(options, time) {
            record["time_ms"] = json!(t);
        }
        records.push(record);
    }
    if !options.contract.inter_array {
        return Ok(records);
    }
    for (key, e) in &merged_expected {
        if !contraction
            .merged
            .iter()
            .any(|m| format!("scop{}", m.scop) == *key)
        {
            result.regressions.push(format!(
                "{name}: size regression: {key} is no longer merged (expected {e} cells)"
            ));
            records.push(json!({
                "scop": key.strip_prefix("scop").and_then(|n| n.parse::<usize>().ok()),
                "expected": { "cells": e },
                "status": "missing",
                "regression": true,
            }));
        }
    }
    if options.bless {
        let path = kernel.expected_dir.join(format!("{name}.merged"));
        if contraction.merged.is_empty() {
            if path.exists() {
                std::fs::remove_file(&path)?;
            }
        } else {
            std::fs::write(&path, &merged_text)?;
        }
    }
    Ok(records)
}

/// The golden output `NAME.c`, through the project's one snapshot check
/// (a mismatch carries the unified diff; `--bless` rewrites it); whether
/// it matched.
fn check_golden(kernel: &Kernel, output: &str, result: &mut BenchResult) -> bool {
    let golden = kernel.expected_dir.join(format!("{}.c", kernel.name));
    match crate::util::snapshot::check_snapshot(
        &golden,
        output,
        kernel.options.bless,
        "polyfold bench --bless",
    ) {
        Ok(()) => true,
        Err(why) => {
            result
                .regressions
                .push(format!("{}: golden output: {why}", kernel.name));
            false
        }
    }
}
