//! The `polyfold` binary: parses the command line and hands each file to
//! the driver. Exit codes: `polyfold --help` and `docs/exit-codes.md` (0
//! nothing to change; 1 a file that would change, a wrong read or a
//! regression; 2 an error: syntax, usage, I/O or internal).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches};
use polyfold::bench::scale::{Factors, ScaleOptions, run_scale};
use polyfold::bench::speed::{SpeedOptions, run_speed};
use polyfold::bench::{BenchOptions, run_bench};
use polyfold::cli::{
    AnalysisArgs, BenchArgs, BenchInputArgs, BenchInputKind, BenchScaleOneArgs, Cli, Command,
    CommandMacro, EquivArgs, ExplainArgs, LatticeArgs, MessageFormat, PlotArgs, SmoArgs,
    VerifyArgs,
};
use polyfold::driver::messages::end_lines;
use polyfold::driver::{
    Outcome, RunOptions, failed_record, report_document, run_file, stderr_lines, verify_file,
};
use polyfold::util::progress::{Display, Progress};

/// The SARIF log of a run (`--message-format sarif`): the results and
/// notifications of every file, printed once, at the end, on stderr.
#[derive(Default)]
struct SarifRun {
    results: Vec<serde_json::Value>,
    notifications: Vec<serde_json::Value>,
}

impl SarifRun {
    /// Prints `out`'s messages as `options` wants them (`-q`,
    /// `--message-format`: [`stderr_lines`]) on stderr, or keeps them for
    /// the SARIF log.
    fn messages(&mut self, out: &Outcome, options: &RunOptions) {
        if options.message_format == MessageFormat::Sarif {
            let (results, notifications) = out.stderr.sarif(options.quiet);
            self.results.extend(results);
            self.notifications.extend(notifications);
        } else {
            to_stderr(&end_lines(&stderr_lines(out, options)));
        }
    }

    /// With `--message-format sarif`, prints the log of the run that
    /// exits with `code`.
    fn finish(self, options: &RunOptions, code: u8) {
        if options.message_format == MessageFormat::Sarif {
            let log = polyfold::diag::sarif::log(self.results, self.notifications, code < 2);
            let text = serde_json::to_string_pretty(&log).unwrap_or_default();
            to_stderr(&format!("{text}\n"));
        }
    }
}

/// Prints what one file gave: its messages (see [`SarifRun::messages`]),
/// then its stdout, with the bytes of the file that are not UTF-8 as they
/// were (see `polyfold::util::bytes`).
fn emit(out: &Outcome, options: &RunOptions, sarif: &mut SarifRun) {
    sarif.messages(out, options);
    write_stdout(&polyfold::util::bytes::restore(&out.stdout));
}

/// Writes to standard output. A reader that went away (`polyfold … |
/// head`) is not an error of ours: what it did not read is dropped, where
/// `print!` would panic.
fn to_stdout(text: &str) {
    write_stdout(text.as_bytes());
}

/// [`to_stdout`] for bytes.
fn write_stdout(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes);
    let _ = stdout.flush();
}

/// Writes to standard error, ignoring a closed stream like `to_stdout`.
fn to_stderr(text: &str) {
    let bytes = polyfold::util::bytes::restore(text);
    let _ = std::io::stderr().lock().write_all(&bytes);
}

/// The `-D` and `-U` of the command line in the order given (clap keeps
/// them in two lists): `-U NAME` cancels only the `-D NAME`s before it, as
/// in `cc`.
fn ordered_macros(matches: &ArgMatches, args: &AnalysisArgs) -> Vec<CommandMacro> {
    let at = |id: &str| -> Vec<usize> {
        matches
            .indices_of(id)
            .map(|i| i.collect())
            .unwrap_or_default()
    };
    let mut all: Vec<(usize, CommandMacro)> = at("define")
        .into_iter()
        .zip(args.define.iter().cloned())
        .chain(at("undef").into_iter().zip(args.undef.iter().cloned()))
        .collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, m)| m).collect()
}

/// The sets of `polyfold lattice`'s input: the text itself, or, when it
/// has `#` comment lines (what `--emit ds` and `--emit conflicts` print),
/// each set after its comment line, named by it. Blank lines are skipped.
fn lattice_inputs(text: &str) -> Vec<(Option<String>, String)> {
    if !text.lines().any(|l| l.trim_start().starts_with('#')) {
        return vec![(None, text.to_string())];
    }
    let mut out: Vec<(Option<String>, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(comment) = t.strip_prefix('#') {
            out.push((Some(comment.trim().to_string()), String::new()));
        } else if !t.is_empty() {
            match out.last_mut() {
                Some((_, set)) => {
                    set.push_str(line);
                    set.push('\n');
                }
                None => out.push((None, format!("{line}\n"))),
            }
        }
    }
    // A comment without a set (e.g. `# file: ...`) names nothing.
    out.retain(|(_, set)| !set.trim().is_empty());
    out
}

/// The progress line of one file of `count` (issue 22): on a terminal a
/// line drawn in place; in a log a line every ten seconds (issue 53) when
/// the run has several files (a run over a source tree; one file's run
/// logs only its diagnostics: a rerun on polyfold's own output is
/// silent, however long it takes); none with `-q`.
fn start_progress(file: &std::path::Path, (quiet, count): (bool, usize)) -> Progress {
    let terminal = std::io::stderr().is_terminal();
    let display = match Display::for_stderr(terminal, quiet) {
        Display::Log if count <= 1 => Display::Off,
        d => d,
    };
    let progress = Progress::start(display);
    polyfold::util::progress::set_file(&file.display().to_string());
    progress
}

/// Runs `work` on each of `files`, `jobs` at a time, and hands each
/// outcome to `done` in the order of the files (so that the output does
/// not depend on which finished first). One file at a time, each has its
/// progress line ([`start_progress`]); several at a time, the run has one
/// in log form, and after ten seconds a line per file finished.
fn each_file(
    files: &[std::path::PathBuf],
    (jobs, quiet): (u32, bool),
    work: impl Fn(&std::path::Path) -> Outcome + Sync,
    mut done: impl FnMut(&std::path::Path, Outcome),
) {
    if jobs <= 1 || files.len() <= 1 {
        for file in files {
            let progress = start_progress(file, (quiet, files.len()));
            let out = work(file);
            progress.finish();
            done(file, out);
        }
        return;
    }
    let display = if quiet { Display::Off } else { Display::Log };
    let progress = Progress::start(display);
    let start = std::time::Instant::now();
    polyfold::util::parallel::in_order(
        files,
        jobs as usize,
        |file| {
            polyfold::util::progress::set_file(&file.display().to_string());
            work(file)
        },
        |k, out| {
            done(&files[k], out);
            let elapsed = start.elapsed();
            if display == Display::Log && elapsed >= polyfold::util::progress::LOG_PERIOD {
                to_stderr(&format!(
                    "polyfold [{} s] {} done ({} of {})\n",
                    elapsed.as_secs(),
                    files[k].display(),
                    k + 1,
                    files.len()
                ));
            }
        },
    );
    progress.finish();
}

/// `options` with the global options of the command line (`-q`, `-v`),
/// given before or after the subcommand.
fn with_globals(mut options: RunOptions, cli: &Cli) -> RunOptions {
    options.quiet = cli.quiet;
    options.verbose = cli.verbose;
    options
}

/// The work runs on a thread with a large stack: parsing deeply nested C
/// recurses, and a stack overflow must never replace a diagnostic.
fn main() -> ExitCode {
    let worker = std::thread::Builder::new().stack_size(512 << 20).spawn(run);
    match worker.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        _ => {
            to_stderr("polyfold: internal error: the worker thread failed\n");
            ExitCode::from(2)
        }
    }
}

/// `polyfold bench DIR --scale`: the scaling table (exit 1 when a
/// measurement failed, 2 when DIR cannot be read).
fn bench_scale(args: &BenchArgs, factors: &Factors, quiet: bool) -> u8 {
    if args.bless {
        to_stderr("polyfold: error: --bless does not apply to --scale\n");
        return 2;
    }
    let Ok(exe) = std::env::current_exe() else {
        to_stderr("polyfold: error: cannot find the polyfold binary to run the measurements\n");
        return 2;
    };
    let options = ScaleOptions {
        factors: factors.0.clone(),
        repeats: args.repeats.unwrap_or(3) as usize,
        fixed: args.fixed.clone(),
        max_cells: args.max_cells.map(|c| i64::try_from(c).unwrap_or(i64::MAX)),
        time_limit: std::time::Duration::from_secs_f64(args.time_limit.clamp(0.0, 1e9)),
        mem_limit_mb: args.mem_limit,
        lattices: !args.no_lattice,
        inter_array: !args.no_inter_array,
        pin_sizes: args.pin_sizes,
        progress: !quiet,
    };
    match run_scale(&args.dir, &options, &exe) {
        Ok(result) => {
            to_stdout(&format!("{}\n{}", result.table, result.summary));
            let mut failed = result.failed;
            if let Some(cases) = &args.large {
                let (table, large_failed) =
                    polyfold::bench::large::run_large(&cases.0, &options, &exe);
                to_stdout(&format!("\n{table}"));
                failed |= large_failed;
            }
            u8::from(failed)
        }
        Err(e) => {
            to_stderr(&format!(
                "polyfold: error: cannot read {}: {e}\n",
                args.dir.display()
            ));
            2
        }
    }
}

/// `polyfold bench DIR --speed`: the speed table (exit 1 when a kernel
/// failed or printed differently, 2 when DIR cannot be read).
fn bench_speed(args: &BenchArgs, quiet: bool) -> u8 {
    if args.bless {
        to_stderr("polyfold: error: --bless does not apply to --speed\n");
        return 2;
    }
    let mut options = SpeedOptions {
        pairs: args.repeats.unwrap_or(7) as usize,
        min_time: std::time::Duration::from_secs_f64(args.min_time.clamp(0.0, 1e6)),
        factor: args.factor,
        fixed: args.fixed.clone(),
        progress: !quiet,
        ..SpeedOptions::default()
    };
    if let Some(c) = args.max_cells {
        options.max_cells = i64::try_from(c).unwrap_or(i64::MAX);
    }
    if let Some(c) = args.cache_cells {
        options.cache_cells = i64::try_from(c).unwrap_or(i64::MAX);
    }
    if let Some(c) = args.memory_cells {
        options.memory_cells = i64::try_from(c).unwrap_or(i64::MAX);
    }
    if let Some(opts) = &args.opt {
        options.opts = opts.0.clone();
    }
    if let Some(sizes) = &args.size {
        options.sizes = sizes.0.clone();
    }
    options.contract.lattices = !args.no_lattice;
    options.contract.inter_array = !args.no_inter_array;
    options.contract.min_memory = args.min_memory;
    options.contract.pin_sizes = args.pin_sizes;
    match run_speed(&args.dir, &options) {
        Ok(result) => {
            to_stdout(&result.table);
            u8::from(result.failed)
        }
        Err(e) => {
            to_stderr(&format!(
                "polyfold: error: cannot read {}: {e}\n",
                args.dir.display()
            ));
            2
        }
    }
}

/// The command line with a subcommand written after options moved first
/// (`polyfold -q verify x.c` reads as `polyfold verify -q x.c`: options
/// the subcommand does not take, such as `-i`, are then refused by it as
/// usage errors), or a usage error for a word that is no file and is
/// spelt almost like a subcommand (`polyfold verfy x.c`), before any file
/// is read or written.
fn subcommand_first(mut args: Vec<std::ffi::OsString>) -> Result<Vec<std::ffi::OsString>, String> {
    let cli = Cli::command();
    let names: Vec<String> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .chain(std::iter::once("help".to_string()))
        .collect();
    // The options of the rewrite that take a value (the next word is not
    // a file).
    let valued: Vec<String> = cli
        .get_arguments()
        .filter(|a| a.get_action().takes_values() && !a.is_positional())
        .flat_map(|a| {
            let mut v: Vec<String> = a.get_long().map(|l| format!("--{l}")).into_iter().collect();
            v.extend(a.get_short().map(|c| format!("-{c}")));
            v
        })
        .collect();
    let mut k = 1;
    while k < args.len() {
        let Some(word) = args[k].to_str().map(str::to_string) else {
            return Ok(args);
        };
        if word == "--" {
            return Ok(args);
        }
        if word.starts_with('-') {
            k += if valued.contains(&word) { 2 } else { 1 };
            continue;
        }
        // The first word that is not an option: a subcommand, a file, or
        // a misspelt subcommand.
        if std::path::Path::new(&word).exists() {
            return Ok(args);
        }
        if names.contains(&word) {
            if k > 1 {
                let sub = args.remove(k);
                args.insert(1, sub);
            }
            return Ok(args);
        }
        let close = names
            .iter()
            .find(|n| !word.contains('.') && !word.contains('/') && edit_distance(n, &word) <= 2);
        return match close {
            Some(n) => Err(format!(
                "unknown subcommand `{word}` (did you mean `{n}`?); the subcommands are: {}",
                names.join(", ")
            )),
            None => Ok(args),
        };
    }
    Ok(args)
}

/// The Levenshtein distance between `a` and `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Parses the command line and runs the command it names; the exit code.
fn run() -> ExitCode {
    let args = match subcommand_first(std::env::args_os().collect()) {
        Ok(args) => args,
        Err(e) => {
            to_stderr(&format!("polyfold: error: {e}\n"));
            return ExitCode::from(2);
        }
    };
    let matches = Cli::command().get_matches_from(args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Some(spec) = &cli.log {
        match polyfold::util::logging::StderrLogger::parse(spec) {
            Ok(logger) => logger.install(),
            Err(e) => {
                to_stderr(&format!("polyfold: error: {e}\n"));
                return ExitCode::from(2);
            }
        }
    }
    let code = match &cli.command {
        Some(Command::Verify(args)) => verify_files(&matches, args, &cli),
        Some(Command::Plot(args)) => plot_files(&matches, args, &cli),
        Some(Command::Bench(args)) => bench(args, cli.quiet),
        Some(Command::BenchScaleOne(args)) => bench_scale_one(args),
        Some(Command::BenchInput(args)) => bench_input(args),
        Some(Command::BenchLargeOne(args)) => bench_large_one(&args.case),
        Some(Command::Lattice(args)) => lattice(args),
        Some(Command::Smo(args)) => smo(args),
        Some(Command::Explain(args)) => explain(args),
        Some(Command::Equiv(args)) => equiv(&matches, args, &cli),
        None => run_files(&matches, &cli),
    };
    ExitCode::from(code)
}

/// `polyfold verify FILE...`: traces each file's mappings; the worst exit
/// code of the files.
fn verify_files(matches: &ArgMatches, args: &VerifyArgs, cli: &Cli) -> u8 {
    let mut options = with_globals(RunOptions::from_analysis(&args.analysis), cli);
    if let Some(sub) = matches.subcommand_matches("verify") {
        options.macros = ordered_macros(sub, &args.analysis);
    }
    let mut code = 0u8;
    let mut sarif = SarifRun::default();
    each_file(
        &args.files,
        (args.jobs, options.quiet),
        |file| verify_file(file, &options),
        |_, out| {
            emit(&out, &options, &mut sarif);
            code = code.max(out.code);
        },
    );
    sarif.finish(&options, code);
    code
}

/// `polyfold equiv ORIGINAL CHANGED`: 0 equal, 1 different, 2 not
/// checkable.
fn equiv(matches: &ArgMatches, args: &EquivArgs, cli: &Cli) -> u8 {
    let mut options = with_globals(RunOptions::from_analysis(&args.analysis), cli);
    if let Some(sub) = matches.subcommand_matches("equiv") {
        options.macros = ordered_macros(sub, &args.analysis);
    }
    let out =
        polyfold::equiv::equiv_files_at_sizes(&args.original, &args.changed, &options, &args.sizes);
    let mut sarif = SarifRun::default();
    emit(&out, &options, &mut sarif);
    sarif.finish(&options, out.code);
    out.code
}

/// `polyfold plot FILE... --out DIR`: draws each file, then writes
/// `index.html` and prints its path.
fn plot_files(matches: &ArgMatches, args: &PlotArgs, cli: &Cli) -> u8 {
    let mut options = with_globals(RunOptions::from_analysis(&args.analysis), cli);
    if let Some(sub) = matches.subcommand_matches("plot") {
        options.macros = ordered_macros(sub, &args.analysis);
    }
    let mut code = 0u8;
    let mut entries = Vec::new();
    let mut notes = Vec::new();
    let mut sarif = SarifRun::default();
    for file in &args.files {
        let progress = start_progress(file, (options.quiet, args.files.len()));
        let out = polyfold::driver::plot_file(file, &options, &args.out, &mut entries, &mut notes);
        progress.finish();
        emit(&out, &options, &mut sarif);
        code = code.max(out.code);
    }
    for n in notes.iter().filter(|_| !options.quiet) {
        if options.message_format == MessageFormat::Sarif {
            sarif
                .notifications
                .push(polyfold::diag::sarif::notification("note", n));
        } else {
            to_stderr(&format!("polyfold: note: {n}\n"));
        }
    }
    sarif.finish(&options, code);
    let index = args.out.join("index.html");
    let page = polyfold::plot::index_html("polyfold plot", &entries, &notes);
    if let Err(e) = std::fs::create_dir_all(&args.out).and_then(|()| std::fs::write(&index, page)) {
        to_stderr(&format!(
            "polyfold: error: cannot write {}: {e}\n",
            index.display()
        ));
        code = code.max(2);
    } else {
        to_stdout(&format!("{}\n", index.display()));
    }
    code
}

/// `polyfold bench DIR`: the regression table, or the scaling or speed
/// benchmark (exit 1 on a regression, 2 when DIR cannot be read); `-q`:
/// no notes and no progress line.
fn bench(args: &BenchArgs, quiet: bool) -> u8 {
    if (args.no_lattice || args.no_inter_array) && args.bless {
        to_stderr(
            "polyfold: error: --bless records the default configuration; drop --no-lattice and --no-inter-array\n",
        );
        return 2;
    }
    if (args.scale.is_some() || args.speed)
        && (args.report == polyfold::cli::ReportFormat::Json || args.no_timings)
    {
        to_stderr(
            "polyfold: error: --report json and --no-timings apply to the regression table, not to --scale or --speed\n",
        );
        return 2;
    }
    if let Some(factors) = &args.scale {
        return bench_scale(args, factors, quiet);
    }
    if args.speed {
        return bench_speed(args, quiet);
    }
    let mut options = BenchOptions {
        repeats: args.repeats.unwrap_or(5) as usize,
        bless: args.bless,
        timings: !args.no_timings,
        ..BenchOptions::default()
    };
    options.contract.lattices = !args.no_lattice;
    options.contract.inter_array = !args.no_inter_array;
    options.contract.min_memory = args.min_memory;
    options.contract.pin_sizes = args.pin_sizes;
    match run_bench(&args.dir, &options) {
        Ok(result) => {
            if args.report == polyfold::cli::ReportFormat::Json {
                let text = serde_json::to_string_pretty(&result.json()).unwrap_or_default();
                to_stdout(&format!("{text}\n"));
            } else {
                to_stdout(&result.table);
                for n in result.notes.iter().filter(|_| !quiet) {
                    to_stdout(&format!("note: {n}\n"));
                }
                for r in &result.regressions {
                    to_stdout(&format!("REGRESSION: {r}\n"));
                }
            }
            u8::from(!result.regressions.is_empty())
        }
        Err(e) => {
            to_stderr(&format!(
                "polyfold: error: cannot read {}: {e}\n",
                args.dir.display()
            ));
            2
        }
    }
}

/// `polyfold bench-scale-one FILE`: one measurement of `bench --scale`,
/// printed as one JSON line.
fn bench_scale_one(args: &BenchScaleOneArgs) -> u8 {
    // The main job's options (what `polyfold FILE` runs): no report-only
    // max-live trace, whose cost grows with the sizes up to its cap.
    let contract = polyfold::pipeline::ContractOptions {
        lattices: !args.no_lattice,
        inter_array: !args.no_inter_array,
        pin_sizes: args.pin_sizes,
        ..Default::default()
    };
    let line = polyfold::bench::scale::measure_one(
        &args.file,
        args.factor,
        &args.fixed,
        args.repeats.max(1) as usize,
        std::time::Duration::from_secs_f64(args.time_budget.max(0.0)),
        &contract,
    );
    to_stdout(&format!("{line}\n"));
    0
}

/// `polyfold bench-input KIND SIZE`: prints a generated input of the
/// large-input benchmark (exit 2 when SIZE does not fit KIND).
fn bench_input(args: &BenchInputArgs) -> u8 {
    use polyfold::bench::inputs;
    let text = match args.kind {
        BenchInputKind::ManyKernels => args.size.parse::<usize>().ok().map(inputs::many_kernels),
        BenchInputKind::Blur => args
            .size
            .split_once('x')
            .and_then(|(w, h)| Some(inputs::blur_image(w.parse().ok()?, h.parse().ok()?))),
    };
    match text {
        Some(text) => {
            to_stdout(&text);
            0
        }
        None => {
            to_stderr(&format!(
                "polyfold: error: `{}` is not a size of this input (a count of kernels, or WIDTHxHEIGHT)\n",
                args.size
            ));
            2
        }
    }
}

/// `polyfold bench-large-one CASE`: one measurement of `bench --scale
/// --large`: generates the input of `case` in a scratch folder, runs its
/// command once and prints one JSON line (time in ms, the input's bytes,
/// the command's exit code and this process's peak memory).
fn bench_large_one(case: &polyfold::bench::large::Case) -> u8 {
    use polyfold::bench::large::Case;
    let text = case.input();
    let Ok(dir) = polyfold::util::scratch::scratch_dir("large") else {
        to_stderr("polyfold: error: cannot make a scratch folder\n");
        return 2;
    };
    let file = dir.join("input.c");
    if let Err(e) = std::fs::write(&file, &text) {
        to_stderr(&format!(
            "polyfold: error: cannot write {}: {e}\n",
            file.display()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        return 2;
    }
    let options = RunOptions {
        quiet: true,
        ..RunOptions::default()
    };
    let start = std::time::Instant::now();
    let code = match case {
        Case::ManyKernels(_) => run_file(&file, &options).code,
        Case::VerifyBlur(..) => verify_file(&file, &options).code,
        Case::PlotBlur(..) => {
            let (mut entries, mut notes) = (Vec::new(), Vec::new());
            let out = dir.join("plot");
            polyfold::driver::plot_file(&file, &options, &out, &mut entries, &mut notes).code
        }
    };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let _ = std::fs::remove_dir_all(&dir);
    let line = serde_json::json!({
        "case": case.name(),
        "bytes": text.len(),
        "ms": ms,
        "code": code,
        "peak_kb": polyfold::bench::scale::peak_kb_self(),
    });
    to_stdout(&format!("{line}\n"));
    0
}

/// `polyfold lattice SET`: the lattice report of each set of the input
/// (exit 2 when the input cannot be read or a set is refused).
fn lattice(args: &LatticeArgs) -> u8 {
    let options = polyfold::mapping::lattice::LatticeOptions {
        array: "A".into(),
        optimal: args.optimal_budget > 0,
        optimal_steps: args.optimal_budget,
        ..Default::default()
    };
    let set = if args.set == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map(|_| text)
            .map_err(|e| format!("polyfold: error: cannot read standard input: {e}\n"))
    } else if let Some(path) = args.set.strip_prefix('@') {
        polyfold::driver::read_source(std::path::Path::new(path)).map_err(|e| e.to_string())
    } else {
        Ok(args.set.clone())
    };
    match set.and_then(|set| {
        let mut out = String::new();
        for (header, set) in lattice_inputs(&set) {
            let report = polyfold::mapping::lattice::lattice_report(&set, &args.define, &options)
                .map_err(|e| match &header {
                Some(h) => format!("polyfold: error: {h}: {e}\n"),
                None => format!("polyfold: error: {e}\n"),
            })?;
            if let Some(h) = header {
                out.push_str(&format!("# {h}\n"));
            }
            out.push_str(&report);
        }
        Ok(out)
    }) {
        Ok(text) => {
            to_stdout(&text);
            0
        }
        Err(e) => {
            to_stderr(&e);
            2
        }
    }
}

/// `polyfold smo FILE`: the SMO storage optimiser's report (exit 2 when
/// the file cannot be read or is refused).
fn smo(args: &SmoArgs) -> u8 {
    match polyfold::driver::read_source(&args.file) {
        Ok(text) => {
            let options = polyfold::mapping::smo::SmoOptions::default();
            match polyfold::report::smo_report(&text, &args.define, &options) {
                Ok(report) => {
                    to_stdout(&report);
                    0
                }
                Err(e) => {
                    to_stderr(&format!("polyfold: error: {}: {e}\n", args.file.display()));
                    2
                }
            }
        }
        Err(e) => {
            to_stderr(&e.to_string());
            2
        }
    }
}

/// `polyfold explain CODE`: what a diagnostic code means; `--markdown`:
/// the reference page of every code. An unknown code is a usage error
/// (exit 2).
fn explain(args: &ExplainArgs) -> u8 {
    if args.markdown {
        to_stdout(&polyfold::diag::reference_markdown());
        return 0;
    }
    let asked = args.code.as_deref().unwrap_or_default();
    match polyfold::diag::Code::parse(asked) {
        Some(code) => {
            to_stdout(&code.explain_text());
            0
        }
        None => {
            to_stderr(&format!(
                "polyfold: error: `{asked}` is not a diagnostic code of polyfold (`polyfold explain --markdown` lists them all)\n"
            ));
            2
        }
    }
}

/// `polyfold FILE...`: runs the pipeline on each file and prints what the
/// options ask for (with `--report json`, one document for all files).
fn run_files(matches: &ArgMatches, cli: &Cli) -> u8 {
    let mut options = with_globals(RunOptions::from(&cli.run), cli);
    options.macros = ordered_macros(matches, &cli.run.analysis);
    let json = options.report == Some(polyfold::cli::ReportFormat::Json);
    let mut code = 0u8;
    let mut records = Vec::new();
    let mut sarif = SarifRun::default();
    each_file(
        &cli.run.files,
        (cli.run.jobs, options.quiet),
        |file| run_file(file, &options),
        |file, mut out| {
            let printed = stderr_lines(&out, &options);
            if json {
                records.push(match out.record.take() {
                    Some(r) => r,
                    None => failed_record(file, &out, &printed),
                });
            }
            emit(&out, &options, &mut sarif);
            code = code.max(out.code);
        },
    );
    sarif.finish(&options, code);
    if json {
        let document = report_document(records);
        let text = serde_json::to_string_pretty(&document).unwrap_or_default();
        to_stdout(&format!("{text}\n"));
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explain_knows_every_code_and_refuses_others() {
        let args = |code: &str| ExplainArgs {
            code: Some(code.to_string()),
            markdown: false,
        };
        assert_eq!(explain(&args("PF016")), 0);
        assert_eq!(explain(&args("pf041")), 0);
        assert_eq!(explain(&args("PF099")), 2);
        assert_eq!(explain(&args("hello")), 2);
    }
}
