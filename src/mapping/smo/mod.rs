//! SMO: integrated intra- and inter-array storage optimisation over a
//! global array space (seed 000, Bhaskaracharya, Bondhugula and Cohen).
//!
//! Input is a global conflict set specification ([`input`], the
//! `.smo.input` format of the public SMO tool, or one built from a SCoP).
//! [`solve::smo_solve`] finds, per statement, storage hyperplanes with
//! offsets and per-level moduli (Algorithm 1 with Farkas-linearised ILPs,
//! iterative conflict revision and decoalescing); [`baseline::baseline`]
//! computes successive modulo + rectangular hulls for comparison;
//! [`certify`] proves results exactly. [`smo_report`] prints all of it.
//!
//! What this module does NOT do: build conflict sets from C programs (see
//! `analysis`), or generate code (see `codegen`). Nothing here is reported
//! as valid without an exact certificate.

pub mod baseline;
pub mod certify;
pub mod conflicts;
pub mod input;
pub mod shared;
pub mod solve;

use std::fmt::Write as _;
use std::time::Instant;

pub use certify::{SmoVerdict, certify_fixed, certify_symbolic};
pub use input::{
    ConflictPolyhedron, ConflictSpec, SmoInputError, StmtId, parse_smo_input, print_smo_input,
};
pub use shared::shared_solve_isolating;
pub use solve::{
    ArrayMapping, DEFAULT_LEVEL_NODES, Hyperplane, SmoOptions, SmoSolution, smo_solve,
    smo_solve_isolating,
};

use crate::mapping::modular::ParamAffine;
use crate::poly::isl_print::format_affine;

/// Text of one statement's mapping in `array`, e.g. `A0[(-x0 + x2) mod (N0 + 1)]`.
pub(crate) fn mapping_text(
    spec: &ConflictSpec,
    array: &ArrayMapping,
    name: &str,
    s: usize,
) -> String {
    let dims: Vec<String> = (0..spec.n_dim).map(|d| format!("x{d}")).collect();
    let parts: Vec<String> = array
        .levels
        .iter()
        .zip(&array.moduli)
        .map(|(level, m)| {
            let h = &level[s];
            format!(
                "({}) mod ({})",
                format_affine(&h.coeffs, h.offset, &dims),
                m.to_text(&spec.params)
            )
        })
        .collect();
    if parts.is_empty() {
        // No level: every value of the statement goes to one cell.
        return format!("{name}[0]");
    }
    format!("{name}[{}]", parts.join(", "))
}

/// The size of an array as a product of its moduli, e.g. `(N0 + 1)*(N0)`.
pub(crate) fn size_text(params: &[String], moduli: &[ParamAffine]) -> String {
    if moduli.is_empty() {
        return "1".into();
    }
    moduli
        .iter()
        .map(|m| format!("({})", m.to_text(params)))
        .collect::<Vec<_>>()
        .join("*")
}

fn describe(
    out: &mut String,
    spec: &ConflictSpec,
    sol: &SmoSolution,
    values: &[i64],
    prefix: &str,
) -> Result<i64, String> {
    for (ai, array) in sol.arrays.iter().enumerate() {
        let name = format!("{prefix}{ai}");
        let stmts: Vec<String> = array
            .statements
            .iter()
            .map(|s| format!("S{}", s.0))
            .collect();
        let size = array.size(values).map_err(|e| e.to_string())?;
        let _ = writeln!(
            out,
            "  array {name} (statements {}): size {} = {size}",
            stmts.join(", "),
            size_text(&spec.params, &array.moduli)
        );
        for (s, stmt) in array.statements.iter().enumerate() {
            let _ = writeln!(
                out,
                "    S{}: {}",
                stmt.0,
                mapping_text(spec, array, &name, s)
            );
        }
    }
    sol.size(values).map_err(|e| e.to_string())
}

/// Parses a `.smo.input` text, runs SMO and the baseline for the given
/// parameter values, certifies both exactly and prints mappings, sizes,
/// verdicts and times. Parameters not given are an error.
pub fn smo_report(
    input_text: &str,
    values: &[(String, i64)],
    opts: &SmoOptions,
) -> Result<String, String> {
    let spec = parse_smo_input(input_text).map_err(|e| e.to_string())?;
    let mut vals = Vec::new();
    for p in &spec.params {
        match values.iter().find(|(n, _)| n == p) {
            Some((_, v)) => vals.push(*v),
            None => return Err(format!("no value given for parameter {p}")),
        }
    }
    let binding: Vec<String> = spec
        .params
        .iter()
        .zip(&vals)
        .map(|(p, v)| format!("{p} = {v}"))
        .collect();
    let binding = binding.join(", ");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "SMO: {} statements, {} conflict polyhedra, {}-dimensional global array space; {}",
        spec.n_statements,
        spec.conflicts.len(),
        spec.n_dim,
        binding
    );
    let start = Instant::now();
    let smo = smo_solve(&spec, opts).map_err(|e| e.to_string())?;
    let smo_time = start.elapsed();
    let mut smo_size = None;
    match &smo {
        Ok(sol) => {
            let verdict = certify_fixed(&spec, sol, &vals);
            let symbolic = certify_symbolic(&spec, sol);
            if verdict == SmoVerdict::Valid {
                let _ = writeln!(
                    out,
                    "SMO mapping ({} ILP levels, {:.3} s), certified for {binding}{}:",
                    sol.n_levels_solved,
                    smo_time.as_secs_f64(),
                    match symbolic {
                        Ok(true) => " and proven for all parameter values",
                        Ok(false) => " (not proven for all parameter values)",
                        Err(_) => " (symbolic proof undecided)",
                    }
                );
                let size = describe(&mut out, &spec, sol, &vals, "A")?;
                let _ = writeln!(out, "  total size: {size}");
                smo_size = Some(size);
            } else {
                let _ = writeln!(
                    out,
                    "SMO result REJECTED (certification failed: {verdict:?}); not a valid mapping:"
                );
                let _ = describe(&mut out, &spec, sol, &vals, "rejected");
            }
        }
        Err(why) => {
            let _ = writeln!(out, "SMO found no mapping: {why}");
        }
    }
    let start = Instant::now();
    let base = baseline::baseline(&spec, &vals).map_err(|e| e.to_string())?;
    let base_time = start.elapsed();
    match &base {
        Ok(sol) => {
            let verdict = certify_fixed(&spec, sol, &vals);
            if verdict == SmoVerdict::Valid {
                let _ = writeln!(
                    out,
                    "baseline (successive modulo + rectangular hull, {:.3} s), certified for {binding}:",
                    base_time.as_secs_f64()
                );
                let size = describe(&mut out, &spec, sol, &vals, "B")?;
                let _ = writeln!(out, "  total size: {size}");
                if let Some(s) = smo_size {
                    let _ = writeln!(out, "SMO {s} vs baseline {size}");
                }
            } else {
                let _ = writeln!(out, "baseline REJECTED (certification failed: {verdict:?})");
            }
        }
        Err(why) => {
            let _ = writeln!(out, "baseline failed: {why}");
        }
    }
    Ok(out)
}
