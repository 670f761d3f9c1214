//! Per-stage snapshots of every corpus kernel, naga-style: for each
//! `corpus/NAME.c`, what `polyfold --emit ds`, `--emit conflicts`,
//! `--emit dataflow` and `--report text --no-timings` print is compared
//! with `tests/snapshots/NAME/STAGE.txt` (a mismatch prints a unified
//! diff; `POLYFOLD_BLESS=1 cargo test --release --test pipeline stage_snapshots::`
//! rewrites them after a deliberate change: review the diff by hand).
//!
//! A stage that fails on a kernel is recorded with its exit code and error
//! text instead of its output, so that the failure is pinned too.
//!
//! The snapshots are not trusted on their own word: the sizes in every
//! report must equal `corpus/expected/NAME.sizes` (the sizes checked
//! against seed 001 Figure 3 and the max-live bounds), and
//! `snapshots_of_small_kernels_match_brute_force` checks that the
//! committed DS, conflict and dataflow snapshots of two kernels describe
//! exactly the sets obtained by enumerating their iterations for small
//! parameter values.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::snapshot::check_snapshot;
use polyfold::analysis::dataflow::{Source, brute_sources};
use polyfold::cli::{Emit, ReportFormat};
use polyfold::driver::{Outcome, RunOptions, run_source};
use polyfold::ir::{SchedEntry, Scop};
use polyfold::poly::enumerate::integer_points;
use polyfold::poly::{Budget, Set};
use polyfold::report::Timings;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

fn snapshot_path(kernel: &str, stage: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(kernel)
        .join(format!("{stage}.txt"))
}

/// Every corpus kernel: its name and source text.
fn kernels() -> Vec<(String, String)> {
    let files = polyfold::bench::corpus_files(&corpus_dir()).expect("corpus folder");
    assert!(files.len() >= 15, "the corpus has its kernels");
    files
        .iter()
        .map(|file| {
            let name = file
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("UTF-8 name")
                .to_string();
            let source = std::fs::read_to_string(file).expect("readable kernel");
            (name, source)
        })
        .collect()
}

/// What a stage's snapshot records: the output, or the exit code and the
/// error text when the stage failed.
fn recorded(out: &Outcome) -> String {
    if out.code == 0 {
        digest_if_long(&out.stdout)
    } else {
        format!("exit {}\n{}", out.code, out.stderr)
    }
}

/// Outputs longer than this are recorded as a digest (see
/// [`digest_if_long`]), so that the repository does not carry megabytes of
/// sets no reviewer reads.
const LONG_OUTPUT: usize = 48 * 1024;

/// `text`, or for a long one its size, a 64-bit FNV-1a hash of all of it
/// and its start: any change still fails the snapshot, and a change near
/// the top still shows as a diff.
fn digest_if_long(text: &str) -> String {
    if text.len() <= LONG_OUTPUT {
        return text.to_string();
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    // Lines of at most 200 characters (longer ones cut), 8 KiB in all.
    let mut head = String::new();
    for line in text.lines() {
        let cut: String = line.chars().take(200).collect();
        if head.len() + cut.len() > 8 * 1024 {
            break;
        }
        head.push_str(&cut);
        head.push('\n');
    }
    format!(
        "# long output: {} lines, {} bytes, FNV-1a-64 {hash:016x}; its start (lines cut at 200 characters):\n{head}",
        text.lines().count(),
        text.len(),
    )
}

fn emit_options(emit: Emit) -> RunOptions {
    RunOptions {
        emit: Some(emit),
        ..RunOptions::default()
    }
}

fn report_options() -> RunOptions {
    RunOptions {
        report: Some(ReportFormat::Text),
        timings: Timings::Omitted,
        ..RunOptions::default()
    }
}

/// Which corpus kernels a test takes: all, or every other one (the
/// reports are split in two tests, so that the harness runs the halves on
/// two cores).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Share {
    All,
    Even,
    Odd,
}

/// Runs `options` on the kernels of `share` and compares with the `stage`
/// snapshot; `also` may add failures of its own for a kernel's recorded
/// text.
fn check_stage(
    stage: &str,
    share: Share,
    options: &RunOptions,
    also: &dyn Fn(&str, &str) -> Vec<String>,
) {
    let mut failures = Vec::new();
    let all = kernels();
    let taken = all.iter().enumerate().filter(|(k, _)| match share {
        Share::All => true,
        Share::Even => k % 2 == 0,
        Share::Odd => k % 2 == 1,
    });
    for (_, (name, source)) in taken {
        let out = run_source(&format!("corpus/{name}.c"), source, options);
        let text = recorded(&out);
        failures.extend(also(name, &text));
        if let Err(e) = check_snapshot(&snapshot_path(name, stage), &text) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{stage}: {} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn no_extra_check(_: &str, _: &str) -> Vec<String> {
    Vec::new()
}

#[test]
fn ds_snapshots() {
    check_stage("ds", Share::All, &emit_options(Emit::Ds), &no_extra_check);
}

#[test]
fn conflicts_snapshots() {
    check_stage(
        "conflicts",
        Share::All,
        &emit_options(Emit::Conflicts),
        &no_extra_check,
    );
}

#[test]
fn dataflow_snapshots() {
    check_stage(
        "dataflow",
        Share::All,
        &emit_options(Emit::Dataflow),
        &no_extra_check,
    );
}

/// The `(function.array, new size)` pairs of a text report, in the format
/// of `corpus/expected/NAME.sizes`: temporaries only (external arrays keep
/// their layout and are not listed there), first occurrence of a name.
fn report_sizes(report: &str) -> Vec<(String, Option<i64>)> {
    let lines: Vec<&str> = report.lines().collect();
    let mut sizes = Vec::new();
    let mut seen = BTreeSet::new();
    for (k, line) in lines.iter().enumerate() {
        // `  F.A: X -> Y cells, lower bound L, METHOD`
        let Some(rest) = line.strip_prefix("  ") else {
            continue;
        };
        if rest.starts_with(' ') {
            continue;
        }
        let Some((key, tail)) = rest.split_once(": ") else {
            continue;
        };
        let Some((_, after)) = tail.split_once(" -> ") else {
            continue;
        };
        // A merged array: `X cells -> merged buffers (Y cells folded alone)`.
        let after = after.strip_prefix("merged buffers (").unwrap_or(after);
        let Some((new, _)) = after.split_once(" cells") else {
            continue;
        };
        // The note is the third line of the entry.
        let external = lines
            .get(k + 2)
            .is_some_and(|l| l.trim_start().starts_with("external: "));
        if external || !seen.insert(key.to_string()) {
            continue;
        }
        sizes.push((key.to_string(), new.parse::<i64>().ok()));
    }
    sizes
}

/// The sizes of `corpus/expected/NAME.sizes`.
fn expected_sizes(kernel: &str) -> Vec<(String, i64)> {
    let path = corpus_dir()
        .join("expected")
        .join(format!("{kernel}.sizes"));
    let text = std::fs::read_to_string(&path).expect("expected sizes");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (key, n) = l.split_once(' ').expect("`name size`");
            (key.to_string(), n.trim().parse().expect("a size"))
        })
        .collect()
}

/// Every temporary of the report has exactly the size recorded in
/// `corpus/expected/NAME.sizes`, and the report lists every array there.
fn sizes_match_expected(kernel: &str, report: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let got = report_sizes(report);
    let expected = expected_sizes(kernel);
    for (key, size) in &got {
        let want = expected.iter().find(|(k, _)| k == key).map(|(_, n)| *n);
        if *size != want {
            problems.push(format!(
                "{kernel}: report gives {key} {size:?} cells, {kernel}.sizes {want:?}"
            ));
        }
    }
    for (key, _) in &expected {
        if !got.iter().any(|(k, _)| k == key) {
            problems.push(format!(
                "{kernel}: {key} of {kernel}.sizes not in the report"
            ));
        }
    }
    problems
}

#[test]
fn report_snapshots_of_every_other_kernel() {
    check_stage(
        "report",
        Share::Even,
        &report_options(),
        &sizes_match_expected,
    );
}

#[test]
fn report_snapshots_of_the_other_kernels() {
    check_stage(
        "report",
        Share::Odd,
        &report_options(),
        &sizes_match_expected,
    );
}

/// The deterministic report prints no time at all, and the parser of the
/// sizes above reads the format it is given.
#[test]
fn deterministic_reports_have_no_times_and_their_sizes_parse() {
    let (name, source) = kernels()
        .into_iter()
        .find(|(n, _)| n == "gauss")
        .expect("gauss kernel");
    let out = run_source(&format!("corpus/{name}.c"), &source, &report_options());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains(" ms"), "{}", out.stdout);
    let sizes = report_sizes(&out.stdout);
    // g_tmp's rows fuse with their consumer's (one step of `x` touches
    // three rows of the image: issue 52's footprint rule), and the second
    // pass reads `g_tmp[x][y - 1 .. y + 1]` one `y` late: three cells.
    assert!(
        sizes.contains(&("gauss_kernel.g_tmp".to_string(), Some(3))),
        "{sizes:?}"
    );
    assert!(
        !sizes.iter().any(|(k, _)| k == "gauss_kernel.in_image"),
        "external arrays are not listed: {sizes:?}"
    );
    // The same report with timings shown has a time on every array line.
    let timed = run_source(
        &format!("corpus/{name}.c"),
        &source,
        &RunOptions {
            report: Some(ReportFormat::Text),
            ..RunOptions::default()
        },
    );
    assert!(timed.stdout.contains(" ms)"), "{}", timed.stdout);
    assert_eq!(report_sizes(&timed.stdout), sizes);
}

// ---------------------------------------------------------------------
// The committed DS, conflict and dataflow snapshots against brute force.

/// The kernels checked by brute force, with the parameter values used
/// (small, so that every iteration can be enumerated).
const BRUTE_KERNELS: [(&str, &[(&str, i64)]); 2] = [
    ("durbin", &[("N", 5)]),
    ("pingpong1d", &[("N", 6), ("T", 3)]),
];

fn value_of(values: &[(&str, i64)], name: &str) -> i64 {
    values
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
        .unwrap_or_else(|| panic!("no test value for parameter {name}"))
}

/// The integer points of `set` (a snapshot parsed back) for the given
/// parameter values, as vectors of its dimensions.
fn points_of(set: &Set, values: &[(&str, i64)]) -> BTreeSet<Vec<i64>> {
    let params: Vec<i64> = set
        .space
        .params
        .iter()
        .map(|p| value_of(values, p))
        .collect();
    let mut budget = Budget::default();
    let mut out = BTreeSet::new();
    for piece in &set.pieces {
        out.extend(integer_points(piece, &params, &mut budget).expect("bounded piece"));
    }
    out
}

/// The snapshot `stage` of `kernel`, split into its `# ...` header lines,
/// each with the set printed on the line after it (when there is one).
fn snapshot_blocks(kernel: &str, stage: &str) -> Vec<(String, Option<String>)> {
    let text = std::fs::read_to_string(snapshot_path(kernel, stage)).expect("committed snapshot");
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        if let Some(header) = line.strip_prefix("# ") {
            let set = lines
                .get(k + 1)
                .filter(|next| !next.starts_with('#'))
                .map(|s| s.to_string());
            blocks.push((header.to_string(), set));
        }
    }
    blocks
}

/// One access of a brute-force trace: time (padded schedule, then 0 for a
/// read and 1 for the write: reads come first in an operation), array and
/// cell.
struct Event {
    time: Vec<i64>,
    array: usize,
    cell: Vec<i64>,
    write: bool,
}

/// Every access of `scop` for the parameter values `params`, by running
/// its statements' iteration domains in schedule order.
fn trace(scop: &Scop, params: &[i64]) -> Vec<Event> {
    let depth = scop
        .stmts
        .iter()
        .map(|s| s.schedule.len())
        .max()
        .unwrap_or(0);
    let mut budget = Budget::default();
    let mut events = Vec::new();
    for stmt in &scop.stmts {
        let mut iterations = BTreeSet::new();
        for piece in &stmt.domain.pieces {
            iterations.extend(integer_points(piece, params, &mut budget).expect("domain"));
        }
        for it in iterations {
            let mut time: Vec<i64> = stmt
                .schedule
                .iter()
                .map(|e| match *e {
                    SchedEntry::Const(c) => c,
                    SchedEntry::Iter { index, sign } => sign * it[index],
                })
                .collect();
            time.resize(depth, 0);
            let full: Vec<i64> = params.iter().chain(&it).copied().collect();
            let cell = |a: &polyfold::ir::Access| -> Vec<i64> {
                a.subscripts
                    .iter()
                    .map(|e| {
                        e.constant + e.coeffs.iter().zip(&full).map(|(c, v)| c * v).sum::<i64>()
                    })
                    .collect()
            };
            for (phase, access) in stmt.reads.iter().map(|r| (0, r)).chain([(1, &stmt.write)]) {
                let mut t = time.clone();
                t.push(phase);
                events.push(Event {
                    time: t,
                    array: access.array.0 as usize,
                    cell: cell(access),
                    write: phase == 1,
                });
            }
        }
    }
    // In execution order (the reads of one operation share a time).
    events.sort_by(|a, b| a.time.cmp(&b.time));
    events
}

/// The conflicts of `array` by brute force from value lifetimes (seeds
/// 000 and 002, as DESIGN.md defines them, what the analysis uses where
/// the dataflow is exact, as it is for these kernels): every write makes
/// a value that lives until the last read that sees it (a value nobody
/// reads dies at once), and two cells conflict iff a value of one is
/// written while a value of the other is still to be read. `--emit
/// conflicts` and `--emit ds` give no live-in cells to the analysis, so
/// the kernels checked here must have none (asserted).
fn brute_conflicts(events: &[Event], array: usize) -> BTreeSet<(Vec<i64>, Vec<i64>)> {
    // Per value: its cell, the time of its write and of its last read.
    type Value<'a> = (&'a [i64], &'a [i64], Option<&'a [i64]>);
    let mut values: Vec<Value> = Vec::new();
    let mut current: BTreeMap<&[i64], usize> = BTreeMap::new();
    for e in events.iter().filter(|e| e.array == array) {
        if e.write {
            current.insert(&e.cell, values.len());
            values.push((&e.cell, &e.time, None));
        } else {
            let v = *current.get(e.cell.as_slice()).unwrap_or_else(|| {
                panic!("cell {:?} is read before it is written (live-in)", e.cell)
            });
            values[v].2 = Some(&e.time);
        }
    }
    let mut pairs = BTreeSet::new();
    for (c, w, _) in &values {
        for (c2, w2, last) in &values {
            if w2 < w && last.is_some_and(|r| w < &r) {
                pairs.insert((c.to_vec(), c2.to_vec()));
                pairs.insert((c2.to_vec(), c.to_vec()));
            }
        }
    }
    pairs
}

/// Checks the `ds` and `conflicts` snapshots of one kernel against the
/// brute-force conflicts of its arrays; returns the number of sets checked.
fn check_cell_snapshots(kernel: &str, values: &[(&str, i64)], failures: &mut Vec<String>) -> usize {
    let source = std::fs::read_to_string(corpus_dir().join(format!("{kernel}.c"))).unwrap();
    let program = polyfold::frontend::extract(kernel, &source, &Default::default());
    let mut checked = 0;
    let mut found = false;
    for stage in ["conflicts", "ds"] {
        for (header, set) in snapshot_blocks(kernel, stage) {
            // `scop K (F), array A: STAGE`
            let (scop_part, rest) = header.split_once(", array ").expect("header");
            let si: usize = scop_part
                .strip_prefix("scop ")
                .and_then(|s| s.split(' ').next())
                .and_then(|s| s.parse().ok())
                .expect("scop index");
            let name = rest.split(':').next().expect("array name");
            let scop = &program.scops[si];
            let array = scop
                .arrays
                .iter()
                .position(|a| a.name == name)
                .expect("array");
            let params: Vec<i64> = scop
                .param_names()
                .iter()
                .map(|p| value_of(values, p))
                .collect();
            let pairs = brute_conflicts(&trace(scop, &params), array);
            let printed =
                polyfold::poly::isl_parse::parse_set(&set.expect("a set after the header"))
                    .expect("the snapshot parses");
            let points = points_of(&printed, values);
            let truth: BTreeSet<Vec<i64>> = if stage == "conflicts" {
                pairs
                    .iter()
                    .map(|(c, c2)| c.iter().chain(c2).copied().collect())
                    .collect()
            } else {
                pairs
                    .iter()
                    .map(|(c, c2)| c.iter().zip(c2).map(|(a, b)| a - b).collect())
                    .collect()
            };
            found |= !truth.is_empty();
            if points != truth {
                failures.push(format!(
                    "{kernel} {header} at {values:?}: snapshot only {:?}, brute force only {:?}",
                    points.difference(&truth).take(5).collect::<Vec<_>>(),
                    truth.difference(&points).take(5).collect::<Vec<_>>()
                ));
            }
            checked += 1;
        }
    }
    assert!(found, "{kernel}: the brute force found no conflict at all");
    checked
}

/// Checks the `dataflow` snapshot of one kernel against
/// `analysis::dataflow::brute_sources` (the last writer of every read,
/// found by running the SCoP); returns the number of reads checked.
fn check_dataflow_snapshot(
    kernel: &str,
    values: &[(&str, i64)],
    failures: &mut Vec<String>,
) -> usize {
    let source = std::fs::read_to_string(corpus_dir().join(format!("{kernel}.c"))).unwrap();
    let program = polyfold::frontend::extract(kernel, &source, &Default::default());
    let mut scop_index = None;
    let mut checked = 0;
    for (header, set) in snapshot_blocks(kernel, "dataflow") {
        if let Some(rest) = header.strip_prefix("scop ") {
            scop_index = rest.split(' ').next().and_then(|s| s.parse::<usize>().ok());
            continue;
        }
        // `S1 read 0 of sum_c: exact; initial value outside these pieces`
        assert!(
            header.ends_with(": exact; initial value outside these pieces"),
            "{header}"
        );
        let scop = &program.scops[scop_index.expect("a scop header first")];
        let words: Vec<&str> = header.split(' ').collect();
        let reader = scop
            .stmts
            .iter()
            .position(|s| s.name == words[0])
            .expect("statement");
        let read: usize = words[2].parse().expect("read index");
        let params: Vec<i64> = scop
            .param_names()
            .iter()
            .map(|p| value_of(values, p))
            .collect();
        // The truth: (reader iterations, writer statement, writer iterations).
        let truth: BTreeSet<(Vec<i64>, usize, Vec<i64>)> = brute_sources(scop, &params)
            .expect("brute force")
            .into_iter()
            .filter(|((s, r, _), _)| *s == reader && *r == read)
            .filter_map(|((_, _, it), src)| match src {
                Source::Initial => None,
                Source::Write { stmt, iters } => Some((it, stmt, iters)),
            })
            .collect();
        let mut printed = BTreeSet::new();
        let text = set.expect("a relation after the header");
        for relation in polyfold::poly::isl_parse::parse_union(&text).expect("parses") {
            let target = relation
                .space
                .range
                .as_ref()
                .and_then(|t| t.name.clone())
                .expect("writer");
            let writer = scop
                .stmts
                .iter()
                .position(|s| s.name == target)
                .expect("writer");
            let n_in = relation.space.n_in();
            for p in points_of(&relation, values) {
                printed.insert((p[..n_in].to_vec(), writer, p[n_in..].to_vec()));
            }
        }
        if printed != truth {
            failures.push(format!(
                "{kernel} scop {scop_index:?} {header} at {values:?}: snapshot only {:?}, brute force only {:?}",
                printed.difference(&truth).take(5).collect::<Vec<_>>(),
                truth.difference(&printed).take(5).collect::<Vec<_>>()
            ));
        }
        checked += 1;
    }
    checked
}

#[test]
fn snapshots_of_small_kernels_match_brute_force() {
    let mut failures = Vec::new();
    for (kernel, values) in BRUTE_KERNELS {
        let sets = check_cell_snapshots(kernel, values, &mut failures);
        let reads = check_dataflow_snapshot(kernel, values, &mut failures);
        assert!(
            sets >= 2 && reads >= 2,
            "{kernel}: {sets} sets, {reads} reads checked"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
