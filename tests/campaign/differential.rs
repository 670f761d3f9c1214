//! Random-program differential testing (the CI slice).
//!
//! Each program made by `polyfold_fuzz::generate::generate(seed)` is a
//! complete C program whose kernel uses local temporary arrays in random
//! affine ways, and whose `main` prints every cell of the output. For each
//! one, `polyfold_fuzz::check::check_program` runs polyfold (library), the
//! trace verifier, compiles the original and polyfold's output with
//! `cc -std=c11 -O1 -w` (one program in 25 also with
//! `-fsanitize=address,undefined`), compares what they print, and parses the
//! output with lang-c. The expected output is the original program's own
//! output, computed independently of polyfold by the C compiler.
//!
//! Seeds 0..200 run by default; `POLYFOLD_FUZZ_PROGRAMS=N` runs seeds
//! 0..N and `POLYFOLD_FUZZ_SEED=S` starts at S. The programs use the forms
//! of C that hid the miscompiles of issue 14 (derived size macros, `/` and
//! `%`, `#ifdef` sizes, comments, brace-less bodies, copy-back loops,
//! block-scoped temporaries, VLAs called with tiny sizes, OpenMP), and every
//! other build of each program is compared too; `POLYFOLD_FUZZ_FORMS=classic`
//! (or a list, see `Forms::parse`) restricts them. Longer campaigns:
//! `cargo run --release -p polyfold-fuzz -- --programs 10000 --seed 1`.
//!
//! Every `tests/regressions/*.c` file (minimised cases of bugs found by the
//! campaigns) goes through the same check and must pass.
//!
//! `tests/regressions/open/*.c` are minimised cases of bugs found and not
//! fixed yet. Each header names the failure kind (`Failure: KIND`) and a
//! text of its detail (`Signature: TEXT`). They must still fail that way
//! (so a fix is noticed and the case moved to `tests/regressions/`), and a
//! random program that fails with the same kind and signature is counted
//! as that known bug instead of failing the slice; every other failure
//! fails it.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use polyfold_fuzz::check::{CheckOptions, Failure, builds_for, check_program, scratch_dir};
use polyfold_fuzz::generate::{generate, generate_with};
use polyfold_fuzz::program::Forms;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 4)
}

/// An open bug: its file name, failure kind (Debug text) and signature.
struct OpenBug {
    file: String,
    kind: String,
    signature: String,
    source: String,
}

fn open_bugs() -> Vec<OpenBug> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/open");
    let mut bugs = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return bugs;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.extension().and_then(|x| x.to_str()) != Some("c") {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("readable open case");
        let field = |key: &str| {
            source
                .lines()
                .find_map(|l| l.trim_start_matches(" *").trim().strip_prefix(key))
                .map(|v| v.trim().to_string())
                .unwrap_or_else(|| panic!("{} has no `{key}` line", path.display()))
        };
        bugs.push(OpenBug {
            file: path.display().to_string(),
            kind: field("Failure:"),
            signature: field("Signature:"),
            source: source.clone(),
        });
    }
    bugs
}

fn known_bug<'a>(bugs: &'a [OpenBug], failure: &Failure) -> Option<&'a OpenBug> {
    bugs.iter()
        .find(|b| format!("{:?}", failure.kind) == b.kind && failure.detail.contains(&b.signature))
}

#[test]
fn open_regressions_still_fail() {
    let bugs = open_bugs();
    let scratch = scratch_dir("open-regressions").expect("scratch directory");
    let mut fixed = Vec::new();
    for (index, bug) in bugs.iter().enumerate() {
        match check_program(
            &format!("open_{index}"),
            &bug.source,
            &scratch,
            &CheckOptions::default(),
        ) {
            Err(failure) if known_bug(std::slice::from_ref(bug), &failure).is_some() => {}
            Err(failure) => fixed.push(format!(
                "{}: now fails differently: {:?}: {}",
                bug.file, failure.kind, failure.detail
            )),
            Ok(_) => fixed.push(format!(
                "{}: passes now: move it to tests/regressions/",
                bug.file
            )),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(fixed.is_empty(), "{}", fixed.join("\n"));
}

#[test]
fn random_programs_print_the_same_after_contraction() {
    let bugs = open_bugs();
    let known = Mutex::new(Vec::new());
    let count = env_number("POLYFOLD_FUZZ_PROGRAMS", 200);
    let first = env_number("POLYFOLD_FUZZ_SEED", 0);
    let forms = std::env::var("POLYFOLD_FUZZ_FORMS")
        .map(|v| Forms::parse(&v).expect("POLYFOLD_FUZZ_FORMS names known forms"))
        .unwrap_or_else(|_| Forms::all());
    let scratch = scratch_dir("differential").expect("scratch directory");
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let contracting = AtomicUsize::new(0);
    let contracted_arrays = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads() {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst) as u64;
                    if index >= count {
                        break;
                    }
                    let seed = first + index;
                    let program = generate_with(seed, &forms);
                    let options = CheckOptions {
                        sanitize: seed.is_multiple_of(25),
                        builds: builds_for(&program),
                        ..CheckOptions::default()
                    };
                    match check_program(&format!("gen_{seed}"), &program.to_c(), &scratch, &options)
                    {
                        Ok(stats) => {
                            if stats.contracted_arrays > 0 {
                                contracting.fetch_add(1, Ordering::SeqCst);
                            }
                            contracted_arrays.fetch_add(stats.contracted_arrays, Ordering::SeqCst);
                        }
                        Err(failure) if known_bug(&bugs, &failure).is_some() => {
                            let bug = known_bug(&bugs, &failure).expect("checked");
                            known.lock().expect("lock").push(format!("seed {seed}: {}", bug.file));
                        }
                        Err(failure) => failures.lock().expect("lock").push(format!(
                            "seed {seed}: {:?}: {}\n(reproduce: cargo run --release -p polyfold-fuzz -- --programs 1 --seed {seed})",
                            failure.kind, failure.detail
                        )),
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let failures = failures.into_inner().expect("lock");
    assert!(
        failures.is_empty(),
        "{} of {count} random programs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    let contracting = contracting.load(Ordering::SeqCst) as u64;
    let known = known.into_inner().expect("lock");
    println!(
        "{} programs failed with a known open bug:\n{}",
        known.len(),
        known.join("\n")
    );
    println!(
        "{count} programs, {contracting} contracting something, {} arrays contracted",
        contracted_arrays.load(Ordering::SeqCst)
    );
    assert!(
        2 * contracting >= count,
        "only {contracting} of {count} programs contract an array: the generator no longer exercises contraction"
    );
}

#[test]
fn regression_cases_pass_the_differential_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("c"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    assert!(
        !files.is_empty(),
        "tests/regressions holds at least one case"
    );
    let scratch = scratch_dir("regressions").expect("scratch directory");
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("UTF-8 file name")
            .to_string();
        let source = std::fs::read_to_string(path).expect("readable regression case");
        // Cases named `inter_array_*` were found with `--inter-array`.
        let options = CheckOptions {
            sanitize: true,
            inter_array: name.starts_with("inter_array_"),
            ..CheckOptions::default()
        };
        if let Err(failure) = check_program(&name, &source, &scratch, &options) {
            failures.push(format!("{name}: {:?}: {}", failure.kind, failure.detail));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_check_catches_a_wrong_output() {
    // A hand-made "contraction" that is wrong: the temporary is folded to
    // one cell although two values are live. The check must see that the
    // outputs differ, i.e. the differential loop can fail.
    let program = generate(7).to_c();
    let scratch = scratch_dir("negative").expect("scratch directory");
    let original = scratch.join("neg.c");
    std::fs::write(&original, &program).expect("write");
    let broken = program.replacen("out[i] = 0.0;", "out[i] = 1.0;", 1);
    assert_ne!(broken, program);
    let run = |text: &str, tag: &str| {
        let path = scratch.join(format!("{tag}.c"));
        std::fs::write(&path, text).expect("write");
        let exe = scratch.join(format!("{tag}.exe"));
        let status = std::process::Command::new("cc")
            .args(["-std=c11", "-O1", "-w", "-o"])
            .arg(&exe)
            .arg(&path)
            .status()
            .expect("cc runs");
        assert!(status.success());
        polyfold_fuzz::check::run_with_limit(&exe, std::time::Duration::from_secs(10))
            .expect("program runs")
    };
    assert_ne!(run(&program, "a"), run(&broken, "b"));
    let _ = std::fs::remove_dir_all(&scratch);
}
