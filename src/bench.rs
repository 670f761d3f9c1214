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
//! `--scale` runs the scaling benchmark instead ([`scale`]).

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::frontend;
use crate::mapping::Method;
use crate::pipeline::{ContractOptions, Optimality, verify_contraction};
use crate::poly::Budget;

pub mod scale;
pub mod speed;

#[derive(Clone, Debug)]
pub struct BenchOptions {
    pub repeats: usize,
    pub bless: bool,
    pub contract: ContractOptions,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            repeats: 5,
            bless: false,
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
}

/// The median of `v` (zero when empty).
pub(crate) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn read_sizes(path: &Path) -> Vec<(String, i64)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.to_string(), it.next()?.parse().ok()?))
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
/// method, then the time in milliseconds.
fn table_row(table: &mut String, cells: [&str; 8], time: Duration) {
    let [kernel, array, original, new, bound, optimal, publ, method] = cells;
    let _ = writeln!(
        table,
        "{kernel:<22} {array:<8} {original:>9} {new:>9} {bound:>7} {optimal:<6} {publ:<34} {method:<18} {:>9.2}",
        time.as_secs_f64() * 1e3
    );
}

/// The corpus programs of `dir`, sorted.
pub fn corpus_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    Ok(files)
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
    let mut result = BenchResult::default();
    let published = published(dir);
    let expected_dir = dir.join("expected");
    if options.bless {
        std::fs::create_dir_all(&expected_dir)?;
    }
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<22} {:<8} {:>9} {:>9} {:>7} {:<6} {:<34} {:<18} {:>9}",
        "kernel", "array", "original", "new", "bound", "opt", "published", "method", "time ms"
    );
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
        bench_kernel(&kernel, &file, &mut table, &mut result)?;
    }
    result.table = table;
    Ok(result)
}

/// Benches one kernel: its rows of the table, and its sizes, merged
/// SCoPs, trace and golden output checked against the expectations.
fn bench_kernel(
    kernel: &Kernel,
    file: &Path,
    table: &mut String,
    result: &mut BenchResult,
) -> std::io::Result<()> {
    let source = std::fs::read_to_string(file)?;
    let Some(runs) = run_repeatedly(&kernel.name, &source, kernel.options) else {
        return Ok(());
    };
    let contraction = match &runs.contraction {
        Ok(c) => c,
        Err(e) => {
            result
                .regressions
                .push(format!("{}: polyfold failed: {e}", kernel.name));
            return Ok(());
        }
    };
    check_trace(&kernel.name, &runs.program, contraction, result);
    let sizes_text = array_rows(kernel, &runs, contraction, table, result);
    merged_rows(kernel, &runs, contraction, table, result)?;
    table_row(
        table,
        [&kernel.name, "(all)", "", "", "", "", "", "pipeline median"],
        median(runs.times.clone()),
    );
    let options = kernel.options;
    if !options.contract.inter_array || !options.contract.lattices {
        // The golden outputs are those of the default pipeline; without
        // merging or lattices only the per-array sizes are checked.
        return Ok(());
    }
    if options.bless {
        std::fs::write(
            kernel.expected_dir.join(format!("{}.sizes", kernel.name)),
            &sizes_text,
        )?;
        result.notes.push(format!("{}: blessed", kernel.name));
    }
    check_golden(kernel, &contraction.output, result);
    Ok(())
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

/// The trace verifier on the contraction: a wrong read is a regression.
fn check_trace(
    kernel: &str,
    program: &crate::ir::Program,
    contraction: &crate::pipeline::FileContraction,
    result: &mut BenchResult,
) {
    let mut budget = Budget::new(u64::MAX, None);
    let reports = verify_contraction(program, contraction, &mut budget).unwrap_or_default();
    for (scop, report) in &reports {
        if let Some(m) = &report.first_mismatch {
            result.regressions.push(format!(
                "{kernel}: SCoP {scop}: the verifier found a wrong read: {m:?}"
            ));
        }
    }
}

/// One row per array (each once), its size folded alone checked against
/// `NAME.sizes`; returns the text `--bless` writes there.
fn array_rows(
    kernel: &Kernel,
    runs: &KernelRuns,
    contraction: &crate::pipeline::FileContraction,
    table: &mut String,
    result: &mut BenchResult,
) -> String {
    let name = &kernel.name;
    let expected = read_sizes(&kernel.expected_dir.join(format!("{name}.sizes")));
    let mut sizes_text =
        String::from("# array cells: expected sizes after contraction (polyfold bench --bless)\n");
    let mut seen = std::collections::BTreeSet::new();
    for (i, d) in contraction.decisions.iter().enumerate() {
        if matches!(d.outcome, crate::pipeline::ArrayOutcome::External) {
            continue;
        }
        let key = format!("{}.{}", runs.program.scops[d.scop].function, d.name);
        if !seen.insert(key.clone()) {
            continue;
        }
        let max_live = d.max_live;
        let bound = max_live.map_or("?".into(), |b| b.to_string());
        let new = d.new_cells();
        // Merged arrays are checked by their size folded alone (and
        // the merged buffers below).
        let alone = d.alone_cells();
        let time = runs
            .array_times
            .get(i)
            .map(|v| median(v.clone()))
            .unwrap_or_default();
        table_row(
            table,
            [
                name,
                &d.name,
                &d.original_cells.map_or("?".into(), |v| v.to_string()),
                &new.map_or("?".into(), |v| v.to_string()),
                &bound,
                d.proven_optimal().map_or("-", Optimality::short),
                &published_text(kernel.published, name, &d.name),
                d.method.name(),
            ],
            time,
        );
        if let Some(n) = alone {
            let _ = writeln!(sizes_text, "{key} {n}");
            match expected.iter().find(|(a, _)| *a == key) {
                Some((_, e)) if n > *e => result.regressions.push(format!(
                    "{name}: {key} needs {n} cells, expected at most {e}"
                )),
                Some((_, e)) if n < *e => result.notes.push(format!(
                    "{name}: {key} improved from {e} to {n} cells (run --bless)"
                )),
                None if !kernel.options.bless => result
                    .regressions
                    .push(format!("{name}: no expected size for {key} (run --bless)")),
                _ => {}
            }
        }
    }
    sizes_text
}

/// One row per merged SCoP (`--inter-array`), its cells checked against
/// `NAME.merged`; with `--inter-array`, a SCoP recorded there that no
/// longer merges is a regression, and `--bless` rewrites the file.
fn merged_rows(
    kernel: &Kernel,
    runs: &KernelRuns,
    contraction: &crate::pipeline::FileContraction,
    table: &mut String,
    result: &mut BenchResult,
) -> std::io::Result<()> {
    let name = &kernel.name;
    let merged_expected = read_sizes(&kernel.expected_dir.join(format!("{name}.merged")));
    let mut merged_text = String::from(
        "# merged cells per SCoP with --inter-array (polyfold bench --inter-array --bless)\n",
    );
    for m in &contraction.merged {
        let key = format!("scop{}", m.scop);
        let time = runs
            .merged_times
            .get(&m.scop)
            .map(|v| median(v.clone()))
            .unwrap_or_default();
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
                &published_text(kernel.published, name, "(merged)"),
                Method::InterArray.name(),
            ],
            time,
        );
        let _ = writeln!(merged_text, "{key} {}", m.merged_cells);
        match merged_expected.iter().find(|(k, _)| *k == key) {
            Some((_, e)) if m.merged_cells > *e => result.regressions.push(format!(
                "{name}: SCoP {} merged needs {} cells, expected at most {e}",
                m.scop, m.merged_cells
            )),
            Some((_, e)) if m.merged_cells < *e => result.notes.push(format!(
                "{name}: SCoP {} merged improved from {e} to {} cells (run --bless)",
                m.scop, m.merged_cells
            )),
            _ => {}
        }
    }
    if !kernel.options.contract.inter_array {
        return Ok(());
    }
    for (key, e) in &merged_expected {
        if !contraction
            .merged
            .iter()
            .any(|m| format!("scop{}", m.scop) == *key)
        {
            result.regressions.push(format!(
                "{name}: {key} is no longer merged (expected {e} cells)"
            ));
        }
    }
    if kernel.options.bless {
        let path = kernel.expected_dir.join(format!("{name}.merged"));
        if contraction.merged.is_empty() {
            if path.exists() {
                std::fs::remove_file(&path)?;
            }
        } else {
            std::fs::write(&path, &merged_text)?;
        }
    }
    Ok(())
}

/// The golden output `NAME.c`, through the project's one snapshot check
/// (a mismatch carries the unified diff; `--bless` rewrites it).
fn check_golden(kernel: &Kernel, output: &str, result: &mut BenchResult) {
    let golden = kernel.expected_dir.join(format!("{}.c", kernel.name));
    if let Err(why) = crate::util::snapshot::check_snapshot(
        &golden,
        output,
        kernel.options.bless,
        "polyfold bench --bless",
    ) {
        result
            .regressions
            .push(format!("{}: golden output: {why}", kernel.name));
    }
}
