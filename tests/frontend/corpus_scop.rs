//! `polyfold --emit scop` on every corpus kernel: it must succeed (no error
//! diagnostic) and print exactly the committed dump
//! `corpus/expected/NAME.scop` (a mismatch prints a unified diff).
//! `POLYFOLD_BLESS=1` rewrites the dumps after a deliberate change of the
//! front end (review the diff).

use crate::common;

use std::path::Path;

use common::snapshot::check_snapshot;

use polyfold::driver::{RunOptions, run_source};

#[test]
fn every_corpus_kernel_has_its_expected_scop_dump() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let options = RunOptions {
        emit: Some(polyfold::cli::Emit::Scop),
        ..RunOptions::default()
    };
    let mut failures = Vec::new();
    let files = polyfold::bench::corpus_files(&dir).expect("corpus folder");
    assert!(files.len() >= 15, "the corpus has its kernels");
    for file in files {
        let name = file
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name")
            .to_string();
        let source = std::fs::read_to_string(&file).expect("readable");
        let out = run_source(&format!("corpus/{name}.c"), &source, &options);
        if out.code != 0 {
            failures.push(format!("{name}: exit {}: {}", out.code, out.stderr));
            continue;
        }
        assert!(
            out.stdout.contains("scop 0 in function"),
            "{name} has a SCoP"
        );
        let expected_path = dir.join("expected").join(format!("{name}.scop"));
        if let Err(e) = check_snapshot(&expected_path, &out.stdout) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
