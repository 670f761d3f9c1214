//! Data-driven front-end tests: every `grammar-tests/NAME.c` is run through
//! the same driver as `polyfold --emit scop grammar-tests/NAME.c`, and what
//! the CLI would print (rendered diagnostics from stderr, then the dump from
//! stdout, then `exit: N` when the exit code is not 0) is compared with
//! `grammar-tests/NAME.expected`.
//!
//! A first line `// polyfold-args: -D N=10 -D M=5` passes `-D` values
//! (`-D NAME`, `-D NAME=TOKENS`, `-U NAME` and `-I DIR`, the directory
//! relative to the crate, as the CLI takes them).
//! Set `POLYFOLD_BLESS=1` to rewrite the expectations after a deliberate
//! change (then review the diff by hand); a mismatch prints a unified diff
//! (the snapshot helper of `tests/common/snapshot.rs`). Every SCoP is also checked with
//! `ir::verify`.

use crate::common;

use std::fs;
use std::path::Path;

use common::snapshot::check_snapshot;

use polyfold::cli::{Emit, parse_macro_define, parse_macro_undef};
use polyfold::driver::{RunOptions, run_source};
use polyfold::frontend;
use polyfold::ir;

fn options_for(source: &str) -> RunOptions {
    let mut macros = Vec::new();
    let mut include_dirs = Vec::new();
    if let Some(first) = source.lines().next()
        && let Some(args) = first.strip_prefix("// polyfold-args:")
    {
        let words: Vec<&str> = args.split_whitespace().collect();
        let mut k = 0;
        while k < words.len() {
            match (words[k], words.get(k + 1)) {
                ("-D", Some(w)) => {
                    macros.push(parse_macro_define(w).expect("valid -D in a test header"))
                }
                ("-U", Some(w)) => {
                    macros.push(parse_macro_undef(w).expect("valid -U in a test header"))
                }
                ("-I", Some(w)) => include_dirs.push(std::path::PathBuf::from(w)),
                _ => panic!("unknown test argument `{}`", words[k]),
            }
            k += 2;
        }
    }
    RunOptions {
        emit: Some(Emit::Scop),
        macros,
        include_dirs,
        // Every diagnostic of the front end, about candidate loop nests
        // or not (`-v`): these cases are about what it rejects.
        verbose: true,
        ..RunOptions::default()
    }
}

#[test]
fn grammar_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("grammar-tests");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .expect("grammar-tests/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    names.sort();
    assert!(names.len() >= 40, "only {} grammar cases", names.len());
    let mut failures = Vec::new();
    for name in &names {
        let path = dir.join(name);
        let source = fs::read_to_string(&path).expect("readable UTF-8 case");
        let shown = format!("grammar-tests/{name}");
        let options = options_for(&source);
        let out = run_source(&shown, &source, &options);
        let mut actual = out.stderr.to_string();
        actual.push_str(&out.stdout);
        if out.code != 0 {
            actual.push_str(&format!("exit: {}\n", out.code));
        }
        // Every SCoP must satisfy the IR invariants.
        let program = frontend::extract(
            &shown,
            &source,
            &frontend::Options {
                defines: options.defines.clone(),
                macros: options.macros.clone(),
                include_dirs: options.include_dirs.clone(),
            },
        );
        for scop in &program.scops {
            if let Err(e) = ir::verify(scop, &source) {
                failures.push(format!("{name}: ir::verify: {e}"));
            }
        }
        if let Err(e) = check_snapshot(&path.with_extension("expected"), &actual) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} grammar cases failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
