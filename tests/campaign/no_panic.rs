//! No-panic fuzzing of every entry point (the CI slice).
//!
//! Inputs come from the seeded mutator `polyfold_fuzz::mutate::fuzz_input`
//! over the corpus programs, the grammar tests (when the folder exists), the
//! regression cases and a few generated programs: random bytes (UTF-8 and
//! not), token soup, truncated and mutated files, huge constants, deep
//! nesting, the empty file. Each goes through `frontend::extract`,
//! `ir::dump::emit_program`, `pipeline::contract_program` and
//! `pipeline::verify_contraction` under `catch_unwind` with a time limit;
//! one in 20 also goes through the built `polyfold --emit scop`, which must
//! exit with 0, 1 or 2 within 10 s (never 101, a panic, or a signal).
//!
//! `POLYFOLD_FUZZ_INPUTS=N` (default 200) and `POLYFOLD_FUZZ_SEED=S`
//! (default 0) choose the slice. Longer runs:
//! `cargo run --release -p polyfold-fuzz -- --mutations 100000 --seed 1`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use polyfold_fuzz::check::{install_quiet_panic_hook, scratch_dir};
use polyfold_fuzz::mutate::{check_no_panic, fuzz_input, seed_files};

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs the built binary on `bytes`; an error unless it exits with 0, 1
/// or 2 within 10 s.
fn run_binary(bytes: &[u8], scratch: &Path, tag: &str) -> Result<(), String> {
    let path = scratch.join(format!("{tag}.c"));
    std::fs::write(&path, bytes).expect("write input");
    let mut child = Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg("--emit")
        .arg("scop")
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run polyfold: {e}"))?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("hang: killed after 10 s".into());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    match status.code() {
        Some(0..=2) => Ok(()),
        Some(code) => Err(format!("exit code {code}")),
        None => Err(format!("killed by a signal: {status}")),
    }
}

#[test]
fn no_entry_point_panics_or_hangs_on_fuzzed_input() {
    install_quiet_panic_hook();
    let count = env_number("POLYFOLD_FUZZ_INPUTS", 200);
    let first = env_number("POLYFOLD_FUZZ_SEED", 0);
    let seeds = seed_files(Path::new(env!("CARGO_MANIFEST_DIR")), 10);
    let scratch = scratch_dir("no-panic").expect("scratch directory");
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst) as u64;
                    if index >= count {
                        break;
                    }
                    let seed = first + index;
                    let (kind, bytes) = fuzz_input(seed, &seeds);
                    if let Err((k, detail)) = check_no_panic(&bytes, true, Duration::from_secs(60))
                    {
                        failures
                            .lock()
                            .expect("lock")
                            .push(format!("seed {seed} ({kind:?} input): {k:?}: {detail}"));
                        continue;
                    }
                    if seed.is_multiple_of(20)
                        && let Err(e) = run_binary(&bytes, &scratch, &format!("in{seed}"))
                    {
                        failures
                            .lock()
                            .expect("lock")
                            .push(format!("seed {seed} ({kind:?} input): binary: {e}"));
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let failures = failures.into_inner().expect("lock");
    assert!(
        failures.is_empty(),
        "{} of {count} fuzzed inputs failed (reproduce: cargo run --release -p polyfold-fuzz -- --mutations 1 --seed SEED):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Hand-picked edge cases: empty and whitespace files, invalid UTF-8,
/// extreme nesting, literals past i64, every size macro at i64::MAX.
#[test]
fn edge_case_inputs_neither_panic_nor_crash_the_binary() {
    install_quiet_panic_hook();
    let scratch = scratch_dir("edge-cases").expect("scratch directory");
    let deep_loops = deep_loops(3000);
    let deep_parens = deep_parens(20000);
    let big = "#define N 9223372036854775807\nvoid f(double A[N]) {\nint i;\ndouble T[N];\n#pragma scop\nfor (i = 0; i < N; i++) T[i] = A[i];\nfor (i = 0; i < N; i++) A[i] = T[N - 1 - i] + T[i];\n#pragma endscop\n}\n".to_string();
    let big2 = "#define N 4611686018427387904\nvoid f(double A[2*N]) {\nint i;\ndouble T[N][N];\n#pragma scop\nfor (i = 0; i < 3 * N; i++) T[i][2 * i + N] = A[i];\nfor (i = 0; i < N; i++) A[i] = T[i][i * 4];\n#pragma endscop\n}\n".to_string();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("whitespace", b"   \n\t\n".to_vec()),
        (
            "invalid UTF-8",
            vec![0xff, 0xfe, b'i', b'n', b't', 0xc3, 0x28],
        ),
        ("lone pragma", b"#pragma scop\n".to_vec()),
        ("deep loops", deep_loops.into_bytes()),
        ("deep parentheses", deep_parens.into_bytes()),
        ("i64::MAX size", big.into_bytes()),
        ("2^62 size", big2.into_bytes()),
    ];
    let mut failures = Vec::new();
    for (name, bytes) in &cases {
        if let Err((kind, detail)) = check_no_panic(bytes, true, Duration::from_secs(60)) {
            failures.push(format!("{name}: library {kind:?}: {detail}"));
        }
        if let Err(e) = run_binary(bytes, &scratch, "edge") {
            failures.push(format!("{name}: binary: {e}"));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A kernel with `depth` nested `for` loops.
fn deep_loops(depth: usize) -> String {
    let mut s = String::from("#define N 4\nvoid f(double A[N]) {\nint i;\n#pragma scop\n");
    for _ in 0..depth {
        s.push_str("for (i = 0; i < N; i++) {\n");
    }
    s.push_str("A[i] = 1.0;\n");
    s.push_str(&"}\n".repeat(depth));
    s.push_str("#pragma endscop\n}\n");
    s
}

/// A kernel whose subscript sits inside `depth` parentheses.
fn deep_parens(depth: usize) -> String {
    format!(
        "#define N 4\nvoid f(double A[N]) {{\nint i;\n#pragma scop\nfor (i = 0; i < N; i++) A[{}i{}] = 1.0;\n#pragma endscop\n}}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    )
}

/// Regression (found by this fuzzer): the binary used to die with a stack
/// overflow on a kernel with 3000 nested loops or a subscript inside 20000
/// parentheses; it now works on a large-stack thread and exits normally.
#[test]
fn deep_nesting_does_not_overflow_the_binary_stack() {
    let scratch = scratch_dir("deep").expect("scratch directory");
    let loops = run_binary(deep_loops(3000).as_bytes(), &scratch, "loops");
    let parens = run_binary(deep_parens(20000).as_bytes(), &scratch, "parens");
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        loops.is_ok() && parens.is_ok(),
        "loops: {loops:?}, parens: {parens:?}"
    );
}
