//! `polyfold --emit scop` on every corpus kernel: it must succeed (no error
//! diagnostic) and print exactly the committed dump
//! `corpus/expected/NAME.scop`. `POLYFOLD_BLESS=1` rewrites the dumps after
//! a deliberate change of the front end (review the diff).

use std::path::Path;

use polyfold::driver::{RunOptions, run_source};

#[test]
fn every_corpus_kernel_has_its_expected_scop_dump() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let bless = std::env::var_os("POLYFOLD_BLESS").is_some_and(|v| v == "1");
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
        if bless {
            std::fs::write(&expected_path, &out.stdout).expect("write dump");
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(expected) if expected == out.stdout => {}
            Ok(_) => failures.push(format!(
                "{name}: dump differs from {}",
                expected_path.display()
            )),
            Err(e) => failures.push(format!("{name}: {}: {e}", expected_path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
