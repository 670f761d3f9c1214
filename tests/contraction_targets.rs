//! The contraction targets of seed 001 Figure 3 (heuristic column), on the
//! corpus kernels: each expected size below is the published figure (or,
//! where DESIGN.md corrects the paper, the corrected one), not a copy of
//! polyfold's output.

use polyfold::frontend;
use polyfold::pipeline::{ArrayOutcome, ContractOptions, FileContraction, contract_program};

fn contract(file: &str) -> FileContraction {
    let path = format!("{}/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("corpus file");
    let program = frontend::extract(&path, &source, &frontend::Options::default());
    assert!(!program.has_errors(), "{file} parses");
    contract_program(&program, &ContractOptions::default()).expect("contraction runs")
}

/// The new size of `array`, or its original size when it was kept.
fn size_of(result: &FileContraction, array: &str) -> i64 {
    let d = result
        .decisions
        .iter()
        .find(|d| d.name == array)
        .unwrap_or_else(|| panic!("no array {array}"));
    d.new_cells()
        .unwrap_or_else(|| panic!("{array} has no size"))
}

fn describe(result: &FileContraction) -> String {
    result
        .decisions
        .iter()
        .map(|d| match &d.outcome {
            ArrayOutcome::External => format!("{}: external ({})", d.name, d.classification.reason),
            ArrayOutcome::Kept { why } => format!("{}: kept ({why})", d.name),
            ArrayOutcome::Remapped {
                mapping, new_cells, ..
            } => format!("{}: {mapping} = {new_cells:?}", d.name),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn durbin_meets_seed_001_heuristic_sizes() {
    let r = contract("durbin.c");
    let info = describe(&r);
    for scalar in ["alpha", "beta", "sum"] {
        assert_eq!(size_of(&r, scalar), 1, "{scalar}\n{info}");
    }
    assert_eq!(size_of(&r, "y"), 200, "{info}");
}

#[test]
fn durbin_output_changes_only_declarations_and_subscripts() {
    let r = contract("durbin.c");
    let source =
        std::fs::read_to_string(format!("{}/corpus/durbin.c", env!("CARGO_MANIFEST_DIR"))).unwrap();
    println!("{}", describe(&r));
    let changed: Vec<(&str, &str)> = source
        .lines()
        .zip(r.output.lines())
        .filter(|(a, b)| a != b)
        .collect();
    for (a, b) in &changed {
        println!("- {a}\n+ {b}");
    }
    assert_eq!(source.lines().count(), r.output.lines().count());
    assert!(r.output.contains("double y[N][2];"), "{}", r.output);
    assert!(
        r.output
            .contains("y[i][k % 2] = y[i][(k - 1) % 2] + alpha * y[k - i - 1][(k - 1) % 2];"),
        "{}",
        r.output
    );
}

#[test]
fn zz_print_all() {
    for f in std::fs::read_dir(format!("{}/corpus", env!("CARGO_MANIFEST_DIR"))).unwrap() {
        let p = f.unwrap().path();
        if p.extension().map_or(true, |e| e != "c") {
            continue;
        }
        let t = std::time::Instant::now();
        let r = contract(p.file_name().unwrap().to_str().unwrap());
        println!("== {} {:?}\n{}", p.display(), t.elapsed(), describe(&r));
    }
}

