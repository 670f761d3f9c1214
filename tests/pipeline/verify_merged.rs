//! `polyfold verify` on merged buffers (`--inter-array`): the trace runs
//! every access of a merged temporary at the location the emitted program
//! computes (`MergedScop::storage`), so the kernels that merge verify, and
//! a merged mapping broken on purpose is reported as a wrong read.
//!
//! The expectations do not come from polyfold's output: a correct
//! contraction must verify (the corpus programs' outputs are also compiled
//! and compared in `corpus_programs.rs`), and each break below is one that
//! no correct program survives (argued at each).

use std::process::Command;

use polyfold::frontend;
use polyfold::ir::Program;
use polyfold::pipeline::{ContractOptions, FileContraction, contract_program};
use polyfold::poly::Budget;
use polyfold::verify::ProgramStorage;
use polyfold::verify::build::verify_program;
use polyfold::verify::{Level, Location, MergedStorage, Mismatch, MismatchKind, Slot};

/// The corpus kernels whose temporaries `--inter-array` merges.
const MERGING: [&str; 4] = [
    "pingpong1d.c",
    "pingpong2d.c",
    "jacobi2d_smoothing.c",
    "gauss.c",
];

fn path(file: &str) -> String {
    format!("{}/corpus/{file}", env!("CARGO_MANIFEST_DIR"))
}

fn contract(file: &str) -> (Program, FileContraction) {
    let source = std::fs::read_to_string(path(file)).expect("corpus file");
    let program = frontend::extract(file, &source, &frontend::Options::default());
    assert!(!program.has_errors(), "{file} parses");
    // `min_memory`: gauss's merge saves 1 cell of 2403, which the cost
    // rule refuses; the merged buffers are what is checked here.
    let options = ContractOptions {
        inter_array: true,
        min_memory: true,
        pin_sizes: true,
        ..ContractOptions::default()
    };
    let c = contract_program(&program, &options).expect("contraction runs");
    assert!(
        !c.merged.is_empty(),
        "{file}: --inter-array merges nothing: {:?}",
        c.not_merged
    );
    (program, c)
}

/// The first mismatch of the verification of `c`, with the report's text.
fn verify(
    program: &Program,
    c: &FileContraction,
    storage: &ProgramStorage,
) -> (Option<Mismatch>, String) {
    let mut budget = Budget::new(u64::MAX, None);
    let reports = verify_program(program, storage, &mut budget).expect("the trace runs");
    let text = polyfold::report::verification_report("kernel.c", program, c, storage, &reports);
    for (scop, _) in &storage.merged {
        let (_, r) = reports.iter().find(|(s, _)| s == scop).expect("traced");
        assert!(
            r.merged_accesses > 0,
            "SCoP {scop}: no access ran on the buffers"
        );
    }
    let first = reports.into_iter().find_map(|(_, r)| r.first_mismatch);
    (first, text)
}

/// Every leaf of `location`.
fn leaves(location: &mut Location) -> Vec<(&mut usize, &mut Vec<Level>)> {
    match location {
        Location::At { buffer, levels } => vec![(buffer, levels)],
        Location::Choose(branches) => branches.iter_mut().flat_map(|(_, l)| leaves(l)).collect(),
    }
}

/// The merged buffer with the most cells.
fn largest_buffer(storage: &MergedStorage, values: &[i64]) -> usize {
    (0..storage.buffers.len())
        .max_by_key(|b| cells_at(storage, *b, values))
        .unwrap()
}

/// Cells of buffer `b` at the parameter values `values`.
fn cells_at(storage: &MergedStorage, b: usize, values: &[i64]) -> i64 {
    storage.buffers[b]
        .extents_at(values)
        .expect("extents")
        .iter()
        .product::<i64>()
}

#[test]
fn the_merging_kernels_verify_through_the_cli() {
    for file in MERGING {
        let out = Command::new(env!("CARGO_BIN_EXE_polyfold"))
            // Merged buffers on the loops as written.
            .args([
                "verify",
                "--inter-array",
                "--min-memory",
                "--pin-sizes",
                "--no-fusion",
                &path(file),
            ])
            .output()
            .expect("polyfold runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{file}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The count is the trace's: accesses it ran on merged buffers.
        let checked = stdout
            .lines()
            .find(|l| l.contains("merged buffers checked: "))
            .and_then(|l| l.split_once(" accesses at the locations the output computes"))
            .and_then(|(head, _)| head.rsplit(' ').next()?.parse::<usize>().ok());
        assert!(
            checked.is_some_and(|n| n > 0),
            "{file}: the report does not say the merged buffers were checked\n{stdout}"
        );
        assert!(!stdout.contains("WRONG"), "{file}\n{stdout}");
    }
}

#[test]
fn the_merging_kernels_verify_with_every_merged_access_located() {
    for file in MERGING {
        let (program, c) = contract(file);
        for m in &c.merged {
            let scop = &program.scops[m.scop];
            // Every read and write of a merged temporary in a statement the
            // output still runs has its location (checked again by the
            // trace), and only temporaries are merged.
            for &a in &m.storage().arrays {
                assert!(
                    c.decisions
                        .iter()
                        .any(|d| d.scop == m.scop && d.array.0 as usize == a),
                    "{file}: {}",
                    scop.arrays[a].name
                );
            }
            let values = scop.param_values().expect("known values");
            let cells: i64 = (0..m.storage().buffers.len())
                .map(|b| cells_at(m.storage(), b, &values))
                .sum();
            assert_eq!(
                cells, m.merged_cells,
                "{file}: the buffers traced are the ones declared"
            );
        }
        let (mismatch, text) = verify(&program, &c, &c.emitted());
        assert!(mismatch.is_none(), "{file}\n{text}");
        assert!(text.contains("merged buffers checked: "), "{file}\n{text}");
    }
}

/// The largest buffer made one shorter in its first dimension of more than
/// one cell: every subscript `(x) % m` of that dimension becomes
/// `(x) % (m - 1)`. The buffers then have fewer cells than the values of
/// the temporaries live at once (`lower_bound`, checked below): two live
/// values share a place, so a later read of the first sees the second (or
/// a subscript falls outside the shortened buffer).
fn shrink(storage: &mut MergedStorage, values: &[i64]) -> (String, i64) {
    let b = largest_buffer(storage, values);
    let at = storage.buffers[b].extents_at(values).expect("extents");
    let d = at
        .iter()
        .position(|e| *e > 1)
        .expect("a dimension of more than one cell");
    let lost: i64 = at.iter().product::<i64>() / at[d];
    let old = storage.buffers[b].extents[d].clone();
    storage.buffers[b].extents[d].constant -= 1;
    for access in &mut storage.accesses {
        for (buffer, levels) in leaves(&mut access.location) {
            if *buffer == b
                && let Level::Rem { modulus, .. } = &mut levels[d]
                && *modulus == old
            {
                modulus.constant -= 1;
            }
        }
    }
    let name = &storage.buffers[b].name;
    (format!("{name} dimension {d} of {} cells", at[d] - 1), lost)
}

/// The values of one statement written one place further than its
/// readers look for them (`(x + 1) % m` in place of `x` or `(x) % m` in a
/// dimension of `m > 1` cells): as if the statement's offset were wrong.
/// Each value of the statement is then never where its readers read it,
/// since that place only ever receives other values, so the first read of
/// one of them sees another value (the subscripts stay inside the buffer).
fn shift_write(storage: &mut MergedStorage, values: &[i64]) -> (String, i64) {
    // The first statement writing into the largest buffer only (its
    // values are read by statements the output runs, directly or through
    // a deleted copy, in every kernel of `MERGING`).
    let b = largest_buffer(storage, values);
    let extents = storage.buffers[b].extents.clone();
    let d = storage.buffers[b]
        .extents_at(values)
        .expect("extents")
        .iter()
        .position(|e| *e > 1)
        .expect("a dimension of more than one cell");
    let access = storage
        .accesses
        .iter_mut()
        .find(|a| {
            a.slot == Slot::Write
                && leaves(&mut a.location.clone())
                    .iter()
                    .all(|(buffer, _)| **buffer == b)
        })
        .expect("a write into the largest buffer");
    let statement = access.statement;
    for (_, levels) in leaves(&mut access.location) {
        let mut row = match &levels[d] {
            Level::Row(row) | Level::Rem { row, .. } => row.clone(),
        };
        *row.last_mut().unwrap() += 1;
        levels[d] = Level::Rem {
            row,
            modulus: extents[d].clone(),
        };
    }
    (format!("the write of statement {statement}"), 0)
}

/// Breaks the first merged SCoP of `file` with `brk` (which returns what it
/// did and how many cells it took away) and expects verify to name the
/// read that goes wrong.
fn expect_caught(
    file: &str,
    program: &Program,
    c: &FileContraction,
    brk: fn(&mut MergedStorage, &[i64]) -> (String, i64),
) {
    let mut storage = c.emitted();
    let merged = &c.merged[0];
    let values = program.scops[merged.scop]
        .param_values()
        .expect("known values");
    let (what, lost) = brk(&mut storage.merged[0].1, &values);
    if lost > 0
        && let Some(bound) = merged.lower_bound
    {
        // Below the values live at once: no storage can be right.
        assert!(
            merged.merged_cells - lost < bound as i64,
            "{file}: {what} still leaves {} cells for {bound} live values",
            merged.merged_cells - lost,
        );
    }
    let (mismatch, text) = verify(program, c, &storage);
    println!("{file}: {what}:\n{text}");
    let m = mismatch.unwrap_or_else(|| panic!("{file}: {what} verifies\n{text}"));
    assert!(text.contains("WRONG: "), "{file}: {what}\n{text}");
    assert!(
        text.contains(&format!("{}{:?} ", m.statement, m.iteration)),
        "{file}: {what}: the statement is named\n{text}"
    );
    if lost == 0 {
        assert_eq!(m.kind, MismatchKind::WrongValue, "{file}: {what}\n{text}");
    }
    match m.kind {
        MismatchKind::WrongValue => {
            let k = m.read.expect("a wrong value is seen by a read");
            assert!(text.contains(&format!("read {k} of {}", m.array)), "{text}");
            assert!(m.buffer.is_some(), "{file}: a merged read\n{text}");
        }
        MismatchKind::OutOfBounds => {
            assert!(text.contains("outside the buffer"), "{text}");
        }
    }
    // What `verify` did before it traced merged buffers: the merged
    // temporaries in their original layout. That sees nothing wrong, so
    // the break is caught by the merged storage alone.
    let mut old = storage.clone();
    old.merged.clear();
    let (before, text) = verify(program, c, &old);
    assert!(before.is_none(), "{file}\n{text}");
}

#[test]
fn a_broken_merged_mapping_is_caught() {
    for file in MERGING {
        let (program, c) = contract(file);
        expect_caught(file, &program, &c, shrink);
        expect_caught(file, &program, &c, shift_write);
    }
}
