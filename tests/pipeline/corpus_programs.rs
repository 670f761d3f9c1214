//! Differential baseline for the corpus: every `corpus/*.c` program is
//! compiled with `cc -std=c11 -O2 -Wall -Werror`, run, and its standard
//! output compared byte for byte with the committed `corpus/NAME.stdout`.
//!
//! The `.stdout` files are the programs' own output (checksums of the
//! kernels' results); later tests compare the output of polyfold's
//! transformed programs against them. This test only guards the originals:
//! that each still compiles warning-free, runs, exits with status 0 and
//! prints what was committed.
//!
//! The same comparison runs on polyfold's output for every corpus program
//! (the differential test of DESIGN.md), with and without `--inter-array`:
//! the contracted program must compile with the same flags and print
//! exactly what the original prints. The
//! output must also parse with lang-c, and the trace verifier must find
//! every read of every SCoP seeing the value it sees in the original.
//!
//! Nothing is skipped: a missing `cc` is a test failure with a clear
//! message, and so is a `.c` file without its `.stdout` (or the reverse).
//! The programs are compiled and run on a few threads in parallel; the
//! executables live in a fresh directory under `std::env::temp_dir()` that
//! is removed at the end.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The corpus folder of this crate.
fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Sorted list of the files in `dir` whose name ends with `extension`
/// (given without the dot).
fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("cannot read the corpus folder {}: {error}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("cannot read a corpus folder entry").path())
        .filter(|path| path.extension().and_then(|ext| ext.to_str()) == Some(extension))
        .collect();
    files.sort();
    files
}

/// The file name of `path` without its extension.
fn stem_of(path: &Path) -> String {
    path.file_stem()
        .and_then(|stem| stem.to_str())
        .expect("corpus file names are UTF-8")
        .to_string()
}

/// A scratch directory that is removed when dropped.
struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// Creates a fresh directory under the system temporary directory, with
    /// a name made unique by the process id and the current time.
    fn create() -> ScratchDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|duration| duration.as_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "polyfold-corpus-programs-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|error| panic!("cannot create {}: {error}", path.display()));
        ScratchDir { path }
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Fails the test with a clear message when no C compiler called `cc` can
/// be run.
fn require_cc() {
    match Command::new("cc").arg("--version").output() {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!(
            "`cc --version` failed ({}); the corpus test needs a working C compiler named `cc`",
            output.status
        ),
        Err(error) => panic!(
            "cannot run `cc` ({error}); the corpus test needs a C compiler named `cc` on PATH"
        ),
    }
}

/// Compiles one corpus program, runs it and compares its output with the
/// expected text. Returns a description of the first problem found.
fn check_program(source: &Path, expected_stdout: &Path, scratch: &Path) -> Result<(), String> {
    let name = source
        .file_name()
        .and_then(|n| n.to_str())
        .expect("file names are UTF-8")
        .replace(".c", "");
    let executable = scratch.join(format!("{name}.exe"));
    let compile = Command::new("cc")
        .args(["-std=c11", "-O2", "-Wall", "-Werror", "-o"])
        .arg(&executable)
        .arg(source)
        .arg("-lm")
        .output()
        .map_err(|error| format!("{name}: cannot run cc: {error}"))?;
    if !compile.status.success() {
        return Err(format!(
            "{name}: `cc -std=c11 -O2 -Wall -Werror` failed ({}):\n{}",
            compile.status,
            String::from_utf8_lossy(&compile.stderr)
        ));
    }
    let run = Command::new(&executable)
        .output()
        .map_err(|error| format!("{name}: cannot run the compiled program: {error}"))?;
    if !run.status.success() {
        return Err(format!(
            "{name}: the program exited with {}; stderr:\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    let expected = std::fs::read(expected_stdout)
        .map_err(|error| format!("{name}: cannot read {}: {error}", expected_stdout.display()))?;
    if run.stdout != expected {
        // Not a snapshot to bless: the expectation is what the original
        // program prints; only the diff is shared with the snapshot helper.
        return Err(format!(
            "{name}: output differs from {}\n{}",
            expected_stdout.display(),
            polyfold::util::snapshot::snapshot_diff(
                &expected_stdout.display().to_string(),
                &String::from_utf8_lossy(&expected),
                &String::from_utf8_lossy(&run.stdout)
            )
        ));
    }
    Ok(())
}

#[test]
fn every_corpus_program_compiles_runs_and_prints_its_expected_output() {
    require_cc();
    let dir = corpus_dir();
    let sources = files_with_extension(&dir, "c");
    let expectations = files_with_extension(&dir, "stdout");
    assert!(
        !sources.is_empty(),
        "no C programs found in {}",
        dir.display()
    );
    let source_names: Vec<String> = sources.iter().map(|path| stem_of(path)).collect();
    let expectation_names: Vec<String> = expectations.iter().map(|path| stem_of(path)).collect();
    assert_eq!(
        source_names, expectation_names,
        "every corpus/NAME.c needs a corpus/NAME.stdout and the reverse"
    );

    let scratch = ScratchDir::create();
    let mut jobs: Vec<(PathBuf, PathBuf)> = sources
        .iter()
        .map(|source| {
            (
                source.clone(),
                dir.join(format!("{}.stdout", stem_of(source))),
            )
        })
        .collect();
    let mut problems = Vec::new();
    for source in &sources {
        for inter_array in [false, true] {
            match contract_and_check(source, &scratch.path, inter_array) {
                Ok(transformed) => {
                    jobs.push((transformed, dir.join(format!("{}.stdout", stem_of(source)))))
                }
                Err(message) => problems.push(message),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "polyfold failed on the corpus:\n{}",
        problems.join("\n")
    );
    let next_job = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let n_threads = std::thread::available_parallelism()
        .map(|count| count.get())
        .unwrap_or(2)
        .clamp(2, 4);
    std::thread::scope(|scope| {
        for _ in 0..n_threads {
            scope.spawn(|| {
                loop {
                    let index = next_job.fetch_add(1, Ordering::SeqCst);
                    let Some((source, expected)) = jobs.get(index) else {
                        break;
                    };
                    if let Err(message) = check_program(source, expected, &scratch.path) {
                        failures
                            .lock()
                            .expect("a checking thread panicked")
                            .push(message);
                    }
                }
            });
        }
    });
    let failures = failures.lock().expect("a checking thread panicked");
    assert!(
        failures.is_empty(),
        "{} of {} corpus programs failed:\n{}",
        failures.len(),
        jobs.len(),
        failures.join("\n")
    );
}

/// Runs polyfold on `source` (with `--inter-array` when `inter_array`:
/// merged SCoPs are checked by their own value trace before they are
/// emitted), verifies the per-array mappings with the trace interpreter,
/// parses the output with lang-c, and writes it to
/// `scratch/NAME.polyfold.c` or `scratch/NAME.inter-array.c` (returned).
fn contract_and_check(source: &Path, scratch: &Path, inter_array: bool) -> Result<PathBuf, String> {
    let name = stem_of(source);
    let text = std::fs::read_to_string(source).map_err(|e| format!("{name}: {e}"))?;
    let program =
        polyfold::frontend::extract(&name, &text, &polyfold::frontend::Options::default());
    let options = polyfold::pipeline::ContractOptions {
        inter_array,
        ..polyfold::pipeline::ContractOptions::default()
    };
    let contraction = polyfold::pipeline::contract_program(&program, &options)
        .map_err(|e| format!("{name}: contraction failed: {e}"))?;
    let mut budget = polyfold::poly::Budget::new(u64::MAX, None);
    let reports = polyfold::pipeline::verify_contraction(&program, &contraction, &mut budget)
        .map_err(|e| format!("{name}: {e}"))?;
    for (scop, report) in &reports {
        if let Some(m) = &report.first_mismatch {
            return Err(format!(
                "{name}: SCoP {scop}: the verifier found a wrong read: {m:?}"
            ));
        }
    }
    let out = scratch.join(if inter_array {
        format!("{name}.inter-array.c")
    } else {
        format!("{name}.polyfold.c")
    });
    std::fs::write(&out, &contraction.output).map_err(|e| format!("{name}: {e}"))?;
    let config = lang_c::driver::Config::default();
    lang_c::driver::parse(&config, &out)
        .map_err(|e| format!("{name}: lang-c rejects polyfold's output: {e}"))?;
    Ok(out)
}

/// Every corpus program marks its kernel with exactly one
/// `#pragma scop` ... `#pragma endscop` pair, in that order, and starts with
/// a header comment (origin, temporaries, targets, fixes).
#[test]
fn every_corpus_program_has_one_marked_scop_and_a_header_comment() {
    let dir = corpus_dir();
    let sources = files_with_extension(&dir, "c");
    assert!(
        !sources.is_empty(),
        "no C programs found in {}",
        dir.display()
    );
    for source in &sources {
        let name = stem_of(source);
        let text = std::fs::read_to_string(source)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", source.display()));
        assert!(
            text.starts_with(&format!("/* {name}.c")),
            "{name}.c must start with a header comment naming the file"
        );
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let begins: Vec<usize> = (0..lines.len())
            .filter(|&index| lines[index] == "#pragma scop")
            .collect();
        let ends: Vec<usize> = (0..lines.len())
            .filter(|&index| lines[index] == "#pragma endscop")
            .collect();
        assert_eq!(begins.len(), 1, "{name}.c needs exactly one `#pragma scop`");
        assert_eq!(
            ends.len(),
            1,
            "{name}.c needs exactly one `#pragma endscop`"
        );
        assert!(
            begins[0] < ends[0],
            "{name}.c: `#pragma scop` must come before `#pragma endscop`"
        );
    }
}
