//! The contraction pipeline. One file goes through these passes, in
//! order ([`contract_file`], then [`contract_scop`] per SCoP):
//!
//! ```text
//! classify           decide.rs: each array of a SCoP is a temporary or
//!                    external (analysis::liveness)
//! lifetimes and      strategy::ArrayFacts: cell lifetimes, the
//!   conflicts        conflict set, max-live, at most once per array
//! schedule variants  variants.rs: the fusion rounds, whole runs
//!                    re-scheduled, temporaries split, which
//!                    crate::schedule proposes and checks; each
//!                    variant is contracted and the one needing the
//!                    fewest cells kept
//! strategies         strategy/*.rs: each proposes storage
//! certify            certify.rs: the only maker of `Certified`
//! choose             strategy::choose: the smallest certified, per
//!                    array (`--pow2-moduli`: strategy/masks.rs); then
//!                    merged buffers for the SCoP when they need fewer
//!                    cells (strategy/inter_array.rs, merged/)
//! codegen            code.rs: the edits, printed by crate::codegen
//!                    from `Certified` only
//! record             record.rs: what reports, `bench`, `verify` and
//!                    the JSON output read
//! ```
//!
//! Each array that is not provably improved keeps its layout, and its
//! decision says why. Options and every limit are in `options.rs`; pins
//! (`_Static_assert`s of the known values) in `pins.rs`.
//!
//! Adding a strategy: read `strategy/mod.rs`.

use crate::analysis::liveness::LivenessOverrides;
use crate::codegen::apply_edits;
use crate::ir::Program;
use crate::poly::Budget;
use crate::schedule::{Fusion, ReadBack};

pub mod certify;
mod code;
pub mod contraction;
mod decide;
mod error;
pub mod merged;
pub mod options;
mod pins;
pub mod probe;
pub mod record;
pub mod strategy;
mod variants;

pub use certify::{Certified, Refused, Storage};
pub use error::Error;
pub use options::ContractOptions;
pub use record::{
    ArrayDecision, ArrayOutcome, FileContraction, InnerLoopModulo, InnerModulo, KeptReason,
    MaskRefusal, MaskRounding, MergedScop, NotMerged, Optimality, SizeFormula, StrategySize,
};
pub use strategy::param_values;

/// The whole pipeline on one file: the contraction of `program` on its
/// best schedule variant. `read_back` runs the front end on a changed
/// source. Returns the contraction and, when the schedule changed (runs
/// fused, SCoPs re-scheduled, temporaries split), what was done and the
/// changed program, which the contraction's records index.
pub fn contract_file(
    program: &Program,
    options: &ContractOptions,
    read_back: ReadBack,
) -> Result<(FileContraction, Option<Fusion>), Error> {
    let passes = (read_back, &contract_program as variants::Contract);
    // The original schedule, then the fusion stages, each contracted.
    let best = variants::best_schedule(program, options, passes)?;
    let (mut contraction, fusion) = if options.split {
        // The temporaries split by reference groups, when that pays.
        variants::split_temporaries(program, best, options, passes)?
    } else {
        best
    };
    // One-iteration loops as straight code, and changed lines within the
    // width a reviewer reads.
    let output =
        crate::codegen::straight::one_iteration_loops(&program.source, &contraction.output);
    contraction.output = crate::codegen::wrap::wrap_changed_lines(&program.source, &output);
    Ok((contraction, fusion))
}

/// [`contract_file`] for a program the front end read with `frontend`
/// (every SCoP kept).
pub fn contract_read(
    program: &Program,
    options: &ContractOptions,
    frontend: &crate::frontend::Options,
) -> Result<(FileContraction, Option<Fusion>), Error> {
    let read_back = |text: &str| crate::frontend::extract(&program.path, text, frontend);
    contract_file(program, options, &read_back)
}

/// [`contract_read`], with the program the contraction's records index:
/// the fused one when the schedule changed, `program` otherwise.
pub(crate) fn contract_indexed(
    program: Program,
    options: &ContractOptions,
    frontend: &crate::frontend::Options,
) -> (Program, Result<FileContraction, Error>) {
    match contract_read(&program, options, frontend) {
        Ok((c, Some(f))) => (f.program, Ok(c)),
        Ok((c, None)) => (program, Ok(c)),
        Err(e) => (program, Err(e)),
    }
}

/// The passes on one schedule of the file: per SCoP, [`contract_scop`];
/// then the notes at the declarations (pins) and the edits applied.
pub fn contract_program(
    program: &Program,
    options: &ContractOptions,
) -> Result<FileContraction, Error> {
    let mut overrides = options.overrides.clone();
    overrides
        .temp
        .extend(crate::analysis::liveness::pragma_temps(&program.source));
    let mut record = FileContraction {
        decisions: Vec::new(),
        merged: Vec::new(),
        not_merged: Vec::new(),
        schedule_kept: Vec::new(),
        edits: Vec::new(),
        removed_copies: Vec::new(),
        rotating: Vec::new(),
        scalars: Vec::new(),
        output: String::new(),
    };
    // Names of rotating indices: none that the file uses, none twice in
    // a function.
    let identifiers = crate::codegen::rotate::source_identifiers(&program.source);
    let mut taken: std::collections::HashMap<String, std::collections::BTreeSet<String>> =
        std::collections::HashMap::new();
    for si in 0..program.scops.len() {
        let function = &program.scops[si].function;
        let in_function = overrides.in_function(function);
        let taken = taken
            .entry(function.clone())
            .or_insert_with(|| identifiers.clone());
        contract_scop(program, si, options, (&in_function, taken), &mut record)?;
    }
    let notes = pins::declaration_notes(program, &record, &options.renamed);
    record.edits.extend(notes);
    record.output = apply_edits(&program.source, &record.edits)?;
    Ok(record)
}

/// The passes of one SCoP, in order.
fn contract_scop(
    program: &Program,
    si: usize,
    options: &ContractOptions,
    (overrides, taken): (&LivenessOverrides, &mut std::collections::BTreeSet<String>),
    record: &mut FileContraction,
) -> Result<(), Error> {
    let scop = &program.scops[si];
    let first = record.decisions.len();
    // Classify → lifetimes and conflicts → strategies → certify → choose,
    // per array.
    for array in &scop.arrays {
        let decision = decide::decide_array(program, si, array, options, overrides);
        record.decisions.push(decision);
    }
    let decisions = &mut record.decisions[first..];
    // A layout whose text would compute a value not proven representable
    // is not chosen.
    decide::keep_unproven_values(program, scop, decisions, options.pow2_moduli);
    // The SCoP-level strategy: merged buffers, when they pay.
    let merged = match decide::merge_temporaries(program, si, options, decisions) {
        Some(Ok(m)) => Some(m),
        Some(Err(why)) => {
            record.not_merged.push((si, why));
            None
        }
        None => None,
    };
    // Codegen and record.
    let decisions = &mut record.decisions[first..];
    let code = code::per_array_code(program, si, options, decisions, taken)?;
    code::record_per_array(record, si, code);
    if let Some(m) = merged {
        code::record_merged(program, scop, options, m, record)?;
    }
    Ok(())
}

/// Runs the trace verifier on every SCoP of `program` with the storage
/// `contraction` emitted ([`FileContraction::emitted`]), for the known
/// parameter values (each SCoP whose parameters all have values). Returns
/// one report per verified SCoP.
pub fn verify_contraction(
    program: &Program,
    contraction: &FileContraction,
    budget: &mut Budget,
) -> Result<Vec<(usize, crate::verify::TraceReport)>, String> {
    crate::verify::build::verify_program(program, &contraction.emitted(), budget)
}
