//! The one certifier. Every storage that reaches code generation is a
//! [`Certified`], and its fields are private to this module: the functions
//! below are the only way to make one, and each runs an exact check first.
//!
//! - [`certify_array`]: a modular mapping of one array, proven on the
//!   array's difference set (integer emptiness of the collision set, for
//!   the known values or for every value of the context), then laid out.
//! - [`certify_by_trace`]: one location for an array whose values never
//!   overlap, from the exhaustive trace of its statements for the known
//!   values (every operation enumerated, with that storage: the
//!   correctness criterion itself).
//! - [`certify_merged`]: merged buffers of a SCoP's temporaries, by the
//!   trace of the program as emitted (every access at the location its
//!   text computes, the deleted copies not run).
//! - [`certify_merged_for_every_value`]: merged buffers made for every
//!   parameter value, proven on the symbolic global conflict set (no two
//!   conflicting values share a cell, for any value of the context), and
//!   their text traced at a few small sizes.
//!
//! What this does NOT do: search. Strategies propose; what they propose is
//! checked here again, whatever the strategy checked on its way.

use crate::analysis::model::ArrayModel;
use crate::ir::{ArrayId, Scop};
use crate::mapping::certify::{Certificate, CertifyMode, certify_modular, region};
use crate::mapping::layout::{ArrayLayout, DimLayout, axis_layout, linear_layout};
use crate::mapping::modular::{ModularMapping, ParamAffine};
use crate::poly::{BasicSet, Budget};
use crate::verify::{MergedStorage, TraceReport};

use super::contraction::SmoContraction;

/// Why the certifier refused a storage. Its `Display` is the reason the
/// report gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The exact proof on the difference set failed (or was undecided).
    Proof(crate::mapping::certify::CertifyFailure),
    /// The layout of a proven mapping could not be proven in bounds.
    Layout(crate::mapping::layout::LayoutFailure),
    /// A certificate for parameter values other than the claim's.
    OtherValues,
    /// The certificate names no set of parameter values.
    NoParameterSet,
    /// A packed triangle over an extent that is not affine.
    ExtentNotAffine,
    /// A packed triangle over a dimension the array does not have.
    NoSuchDimension,
    /// A packed triangle over dimensions declared with different extents.
    TriangleExtents,
    /// The strategy computed no difference set to prove on.
    NoDifferenceSet,
    /// The strategy ran no trace to certify by.
    NoTrace,
    /// The trace ran with a storage other than the one proposed.
    TracedOtherStorage,
    /// A trace certifies one location only.
    NotSingleLocation,
    /// The array is accessed in a parallel loop, which a trace does not
    /// order.
    ParallelLoop,
    /// Some cells are read before they are written.
    LiveIn,
    /// More than one value live at once, in a single location.
    LiveAtOnce(usize),
    /// The trace found a wrong read, in this statement.
    WrongRead(String),
    /// A function parameter keeps its declarator: a layout combining
    /// subscripts does not fit it.
    DeclaratorLinear,
    /// A function parameter keeps its declarator: a mapping for the
    /// known values cannot be pinned there.
    DeclaratorKnownValues,
    /// The array is sized at its callers' allocations or at its own
    /// allocation: a new extent there must be a number or a form of
    /// macros.
    SiteExtents,
    /// Merged storage made for the known values only, offered for every
    /// value.
    KnownValuesOnly,
    /// The merged mapping is not proven for every value (with the
    /// error, when the proof did not finish).
    MergedNotProven(Option<String>),
    /// No small size of the context to trace merged storage at.
    NoSmallSize,
    /// The trace of merged storage could not run.
    TraceFailed(String),
    /// The trace of merged storage found a read that sees another value.
    Mismatch(Box<crate::verify::trace::Mismatch>),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const DECLARATOR: &str = "a function parameter keeps its declared type";
        match self {
            Refused::Proof(failure) => write!(f, "{failure}"),
            Refused::Layout(failure) => f.write_str(&failure.0),
            Refused::OtherValues => f.write_str("a proof for values other than the claim's"),
            Refused::NoParameterSet => f.write_str("no set of parameter values to prove it on"),
            Refused::ExtentNotAffine => f.write_str("an extent is not affine"),
            Refused::NoSuchDimension => f.write_str("no such dimension"),
            Refused::TriangleExtents => {
                f.write_str("the triangle's dimensions are not declared with one extent")
            }
            Refused::NoDifferenceSet => f.write_str("no difference set was computed"),
            Refused::NoTrace => f.write_str("no trace ran"),
            Refused::TracedOtherStorage => f.write_str("the trace ran with another storage"),
            Refused::NotSingleLocation => f.write_str("not a single location"),
            Refused::ParallelLoop => {
                f.write_str("the trace does not order the iterations of a parallel loop")
            }
            Refused::LiveIn => f.write_str("some cells are read before they are written (live-in)"),
            Refused::LiveAtOnce(n) => write!(f, "{n} values live at once"),
            Refused::WrongRead(statement) => {
                write!(f, "the trace found a wrong read in {statement}")
            }
            Refused::DeclaratorLinear => write!(
                f,
                "{DECLARATOR}: a layout that combines subscripts does not fit it"
            ),
            Refused::DeclaratorKnownValues => write!(
                f,
                "{DECLARATOR}: the mapping holds only for the known values, and a parameter list has no place for their pin"
            ),
            Refused::SiteExtents => f.write_str(
                "its storage is sized where it is allocated, and a new extent there must be a number or a form of macros",
            ),
            Refused::KnownValuesOnly => {
                f.write_str("merged storage made for the known values only")
            }
            Refused::MergedNotProven(None) => {
                f.write_str("the merged mapping is not proven for every value")
            }
            Refused::MergedNotProven(Some(e)) => {
                write!(f, "the merged mapping is not proven: {e}")
            }
            Refused::NoSmallSize => {
                f.write_str("no small size of the context to trace the merged storage at")
            }
            Refused::TraceFailed(e) => f.write_str(e),
            Refused::Mismatch(m) => write!(
                f,
                "trace check failed: {} at {:?}, {} of {}{:?} at {}{:?}: expected {:?}, found {:?} ({:?})",
                m.statement,
                m.iteration,
                m.read
                    .map_or("the write".to_string(), |k| format!("read {k}")),
                m.array,
                m.cell,
                m.buffer.as_deref().unwrap_or(""),
                m.location,
                m.expected_writer,
                m.found_writer,
                m.kind
            ),
        }
    }
}

/// A certified storage: what code generation accepts.
#[derive(Clone, Debug)]
pub struct Certified {
    storage: Storage,
    certificate: Certificate,
}

/// The kinds of storage. A new kind (piecewise mappings, a changed
/// schedule) is one more variant here and one more `certify_*` function.
#[derive(Clone, Debug)]
pub enum Storage {
    /// One array folded by a modular mapping, and how its declaration and
    /// subscripts are written.
    Modular {
        array: ArrayId,
        mapping: ModularMapping,
        layout: ArrayLayout,
    },
    /// The temporaries of a SCoP in merged buffers, with the edits that
    /// emit them (the trace checked those very locations).
    Merged(Box<SmoContraction>),
}

impl Certified {
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    pub fn certificate(&self) -> &Certificate {
        &self.certificate
    }

    /// Lets rotating indices compute the residues of the layout's wrapping
    /// arguments where that is proven (see
    /// [`ArrayLayout::prove_rotations`]): it changes how the certified
    /// locations are computed, not which they are. A proof cut short by
    /// the budget leaves the remaining arguments with their `%`.
    pub(crate) fn prove_rotations(&mut self, scop: &Scop, budget: &mut Budget) {
        if let Storage::Modular { layout, .. } = &mut self.storage {
            let mut rotated = layout.clone();
            if rotated
                .prove_rotations(scop, &self.certificate, &scop.context, budget)
                .is_ok()
            {
                *layout = rotated;
            }
        }
    }

    /// The modular mapping, for a per-array storage.
    pub fn mapping(&self) -> Option<&ModularMapping> {
        match &self.storage {
            Storage::Modular { mapping, .. } => Some(mapping),
            Storage::Merged(_) => None,
        }
    }

    /// The layout, for a per-array storage.
    /// The storage as text: the mapping, or for a packed triangle the
    /// packed index (see [`crate::codegen::mapping_text::packed_mapping_text`]).
    pub(crate) fn mapping_text(&self) -> Option<String> {
        let mapping = self.mapping()?;
        Some(
            self.layout()
                .and_then(|l| {
                    crate::codegen::mapping_text::packed_mapping_text(
                        l,
                        &mapping.array,
                        &mapping.params,
                    )
                })
                .unwrap_or_else(|| mapping.to_string()),
        )
    }

    pub fn layout(&self) -> Option<&ArrayLayout> {
        match &self.storage {
            Storage::Modular { layout, .. } => Some(layout),
            Storage::Merged(_) => None,
        }
    }

    /// The merged buffers, for a SCoP's merged storage.
    pub fn merged(&self) -> Option<&SmoContraction> {
        match &self.storage {
            Storage::Merged(m) => Some(m),
            Storage::Modular { .. } => None,
        }
    }
}

/// What a per-array proof is about: the array, its model and difference
/// set, and the values the proof may be for.
pub(crate) struct ArrayClaim<'a> {
    pub scop: &'a Scop,
    pub array: ArrayId,
    pub model: &'a ArrayModel,
    /// Its declared extents, affine in the parameters where they are.
    pub extents: &'a [Option<ParamAffine>],
    pub values: &'a [i64],
    /// The difference set, symbolic and with the known values fixed.
    pub ds: &'a [BasicSet],
    pub fixed_ds: &'a [BasicSet],
    /// `--fast-modulo`: prove which arguments wrap at most once (see
    /// [`crate::mapping::layout::ArrayLayout::prove_single_wraps`]).
    pub fast_modulo: bool,
}

/// For which values a per-array mapping is to be proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every parameter value of the SCoP's context.
    EveryValue,
    /// The known values (the caller pins them with a `_Static_assert`).
    KnownValues,
    /// Every value of the context with each parameter at least the
    /// smaller of this and its known value (pinned as `N >= …`).
    AtLeast(i64),
}

/// The lower ends of [`Scope::AtLeast`]`(t)` for the known `values`: each
/// parameter at least `t`, or its value if smaller.
pub(crate) fn at_least(values: &[i64], t: i64) -> Vec<i64> {
    values.iter().map(|v| (*v).min(t)).collect()
}

/// Proves `mapping` on the array's difference set and lays it out.
pub(crate) fn certify_array(
    claim: &ArrayClaim<'_>,
    mapping: ModularMapping,
    scope: Scope,
    budget: &mut Budget,
) -> Result<Certified, Refused> {
    let from: Option<Vec<i64>> = match scope {
        Scope::AtLeast(t) => Some(at_least(claim.values, t)),
        _ => None,
    };
    let within: Option<BasicSet> = from.as_ref().map(|f| region(&claim.scop.context, f));
    let (pieces, mode) = match (&within, scope) {
        (Some(within), _) => (claim.ds, CertifyMode::Symbolic { context: within }),
        (None, Scope::KnownValues) => (claim.fixed_ds, CertifyMode::Fixed(claim.values)),
        (None, _) => (
            claim.ds,
            CertifyMode::Symbolic {
                context: &claim.scop.context,
            },
        ),
    };
    let mut certificate =
        certify_modular(pieces, &mapping, mode, budget).map_err(Refused::Proof)?;
    if let Some(from) = from {
        certificate = Certificate::FromValues(from);
    }
    modular(claim, mapping, certificate, budget)
}

/// Proves `mapping` on the array's difference set for the parameter
/// values of `certificate` (those of a storage already certified on it,
/// for a mapping derived from that one: its moduli rounded up for masks)
/// and lays it out. A certificate for values other than the claim's is
/// refused (its fixed difference set is for the claim's values).
pub(crate) fn certify_array_for(
    claim: &ArrayClaim<'_>,
    mapping: ModularMapping,
    certificate: &Certificate,
    budget: &mut Budget,
) -> Result<Certified, Refused> {
    let within = certificate.parameter_set(&claim.scop.context);
    let (pieces, mode) = match (certificate, &within) {
        (Certificate::ForValues(values), _) if values == claim.values => {
            (claim.fixed_ds, CertifyMode::Fixed(claim.values))
        }
        (Certificate::ForValues(_), _) => {
            return Err(Refused::OtherValues);
        }
        (_, Some(within)) => (claim.ds, CertifyMode::Symbolic { context: within }),
        (_, None) => return Err(Refused::NoParameterSet),
    };
    certify_modular(pieces, &mapping, mode, budget).map_err(Refused::Proof)?;
    modular(claim, mapping, certificate.clone(), budget)
}

/// A packed triangle (`mapping::layout::packed_layout`): the dimensions
/// `(p, q)` of `claim`'s array, declared with one extent, hold a triangle
/// that every access stays inside (proven for the parameter values of
/// `scope`: every value of the context, a region of it pinned from a
/// lower end on, or the known values), packed row by row. The layout is a bijection from the
/// accessed cells onto the packed ones: it folds no two cells, so it needs
/// no difference set. Its storage carries the identity mapping (the
/// declared extents as moduli) for what reads a mapping; `polyfold
/// verify` traces the packed index itself (`FileContraction::emitted`).
pub(crate) fn certify_packed(
    claim: &ArrayClaim<'_>,
    pair: (usize, usize, crate::mapping::layout::Triangle),
    scope: Scope,
    budget: &mut Budget,
) -> Result<Certified, Refused> {
    let moduli: Vec<ParamAffine> = claim
        .extents
        .iter()
        .cloned()
        .collect::<Option<Vec<_>>>()
        .ok_or(Refused::ExtentNotAffine)?;
    let extent = moduli.get(pair.0).ok_or(Refused::NoSuchDimension)?;
    if moduli.get(pair.1) != Some(extent) {
        return Err(Refused::TriangleExtents);
    }
    let extent = &extent.clone();
    let name = &claim.scop.array(claim.array).name;
    let mapping = ModularMapping::axis(name, &claim.model.params, moduli);
    // The proof's parameter values: every value of the context, the
    // region from a lower end on, or the known values.
    let certificate = match scope {
        Scope::EveryValue => Certificate::ForAllParameters,
        Scope::AtLeast(t) => Certificate::FromValues(at_least(claim.values, t)),
        Scope::KnownValues => Certificate::ForValues(claim.values.to_vec()),
    };
    let layout = crate::mapping::layout::packed_layout(
        claim.model,
        pair,
        extent,
        &certificate,
        &claim.scop.context,
        budget,
    )
    .map_err(Refused::Layout)?;
    Ok(Certified {
        storage: Storage::Modular {
            array: claim.array,
            mapping,
            layout,
        },
        certificate,
    })
}

/// One location for the array, from `trace`: the trace of its statements
/// for `claim.values` with every cell of the array at the one location of
/// `mapping`. Certified when that run saw no live-in value, at most one
/// value live at a time and every read find the value the original
/// program reads. The trace runs the sequential order: an array accessed
/// in a parallel loop is refused.
pub(crate) fn certify_by_trace(
    claim: &ArrayClaim<'_>,
    mapping: ModularMapping,
    trace: &TraceReport,
    traced_storage: &crate::verify::Storage,
    budget: &mut Budget,
) -> Result<Certified, Refused> {
    let a = claim.array.0 as usize;
    if !matches!(traced_storage, crate::verify::Storage::Modular(m) if *m == mapping) {
        return Err(Refused::TracedOtherStorage);
    }
    if mapping
        .dims
        .iter()
        .any(|d| !d.modulus.is_constant() || d.modulus.constant != 1)
    {
        return Err(Refused::NotSingleLocation);
    }
    if claim
        .model
        .events
        .iter()
        .any(|e| !e.parallel_levels.is_empty())
    {
        return Err(Refused::ParallelLoop);
    }
    if trace.initial_reads[a] > 0 {
        return Err(Refused::LiveIn);
    }
    if trace.max_live[a] > 1 {
        return Err(Refused::LiveAtOnce(trace.max_live[a]));
    }
    if let Some(m) = &trace.first_mismatch {
        return Err(Refused::WrongRead(m.statement.clone()));
    }
    let certificate = Certificate::ForValues(claim.values.to_vec());
    modular(claim, mapping, certificate, budget)
}

/// A proven per-array storage, laid out (private: only the functions
/// above call it, after their check).
fn modular(
    claim: &ArrayClaim<'_>,
    mapping: ModularMapping,
    certificate: Certificate,
    budget: &mut Budget,
) -> Result<Certified, Refused> {
    let mapping = in_declared_order(mapping);
    let layout = if mapping.is_axis() {
        axis_layout(
            claim.model,
            &mapping,
            claim.extents,
            &certificate,
            &claim.scop.context,
            budget,
        )
    } else {
        linear_layout(
            claim.model,
            &mapping,
            &certificate,
            &claim.scop.context,
            budget,
        )
    }
    .map_err(Refused::Layout)?;
    let mut layout = layout;
    if claim.fast_modulo {
        // An argument left unproven keeps its `%`.
        let _ = layout.prove_single_wraps(claim.model, &certificate, &claim.scop.context, budget);
    }
    let layout = fit_declarator(claim, layout, &certificate)?;
    Ok(Certified {
        storage: Storage::Modular {
            array: claim.array,
            mapping,
            layout,
        },
        certificate,
    })
}

/// `mapping` with its rows in the order of the array's dimensions: by the
/// first dimension each combines (stable), so that `diff[j][i][k]` folds
/// to `diff[j % 3][(i - 2 * j) % 9][k]`, not `diff[k][j % 3][…]`, keeping
/// the declaration's order and its innermost dimension innermost (the
/// locations are the same up to a renaming: a permutation of the rows is a
/// bijection, so the certificate holds for it).
fn in_declared_order(mut mapping: ModularMapping) -> ModularMapping {
    mapping
        .dims
        .sort_by_key(|d| d.coeffs.iter().position(|c| *c != 0).unwrap_or(usize::MAX));
    mapping
}

/// The layout of an array whose declarator stays (a function parameter
/// folded with `--temp`, see [`crate::ir::Array::keeps_declarator`]): every
/// dimension keeps its declared extent. An axis layout fits it: a
/// subscript `e`, proven non-negative, becomes `e % b <= e` (or `0`), in
/// bounds wherever the original access is. A layout that combines
/// subscripts does not fit, and the mapping must hold for every value (a
/// parameter list has no place for a `_Static_assert` pin).
fn fit_declarator(
    claim: &ArrayClaim<'_>,
    layout: ArrayLayout,
    certificate: &Certificate,
) -> Result<ArrayLayout, Refused> {
    if !claim.scop.array(claim.array).keeps_declarator() {
        return Ok(layout);
    }
    if layout.is_linear() {
        return Err(Refused::DeclaratorLinear);
    }
    if *certificate != Certificate::ForAllParameters {
        return Err(Refused::DeclaratorKnownValues);
    }
    let mut dims = layout.dims;
    for dim in &mut dims {
        if let DimLayout::Plain { extent } = dim {
            *extent = None;
        }
    }
    let layout = ArrayLayout { dims };
    if claim.scop.array(claim.array).resize_sites().is_some()
        && crate::mapping::layout::site_extents(&layout, &claim.scop.params).is_none()
    {
        return Err(Refused::SiteExtents);
    }
    Ok(layout)
}

/// Merged buffers for `values`, by the trace of `scop` with its
/// temporaries where the emitted text puts them.
pub(crate) fn certify_merged(
    scop: &Scop,
    values: &[i64],
    mut proposal: SmoContraction,
) -> Result<Certified, Refused> {
    let reads = trace_check(scop, values, &proposal.storage)?;
    proposal.reads_checked = reads;
    proposal.report.trace = Some(super::contraction::TraceCheck::Values { reads });
    Ok(Certified {
        storage: Storage::Merged(Box::new(proposal)),
        certificate: Certificate::ForValues(values.to_vec()),
    })
}

/// The most sizes the text of merged storage made for every value is
/// traced at (see [`certify_merged_for_every_value`]).
const EVERY_VALUE_TRACES: usize = 6;

/// Certifies merged storage made for every parameter value: its mapping
/// is proven on the symbolic global conflict set of the statements'
/// parts ([`crate::mapping::smo::certify_symbolic`]: for every value of
/// the context, no two values whose lifetimes overlap share a cell), and
/// the storage as emitted (every access at the location its text
/// computes, the deleted copies not run; the offsets and conditions of
/// that text were proven on the statements' domains when it was made) is
/// traced at small sizes of the context (each parameter at 1 to 4, where
/// the context allows) and at the first probe point.
pub(crate) fn certify_merged_for_every_value(
    scop: &Scop,
    mut proposal: SmoContraction,
) -> Result<Certified, Refused> {
    let every = proposal
        .every_value
        .as_ref()
        .ok_or(Refused::KnownValuesOnly)?;
    match crate::mapping::smo::certify_symbolic(&every.spec, &every.sol) {
        Ok(true) => {}
        Ok(false) => return Err(Refused::MergedNotProven(None)),
        Err(e) => return Err(Refused::MergedNotProven(Some(e.to_string()))),
    }
    let n = scop.params.len();
    let mut sizes: Vec<Vec<i64>> = (1..=4).map(|v| vec![v; n]).collect();
    sizes.extend((1..=3).map(|v| (0..n).map(|q| v + q as i64).collect()));
    sizes.extend(every.probes.first().cloned());
    let mut budget = Budget::default_query();
    let mut reads = 0;
    let mut traced = 0;
    for values in sizes {
        if traced == EVERY_VALUE_TRACES {
            break;
        }
        let mut q = scop.context.clone();
        crate::poly::enumerate::fix_params(&mut q, &values);
        if !matches!(
            crate::poly::simplex::integer_point(&q, &mut budget),
            Ok(Some(_))
        ) {
            continue;
        }
        reads += trace_check(scop, &values, &proposal.storage)?;
        traced += 1;
    }
    if traced == 0 {
        return Err(Refused::NoSmallSize);
    }
    proposal.reads_checked = reads;
    proposal.report.trace = Some(super::contraction::TraceCheck::EveryValue {
        sizes: traced,
        reads,
    });
    Ok(Certified {
        storage: Storage::Merged(Box::new(proposal)),
        certificate: Certificate::ForAllParameters,
    })
}
/// Runs the trace verifier on `scop` with its temporaries in the merged
/// `storage`, for the parameter values `values`: every read of the
/// transformed program must see the value it sees in the original. Returns
/// the number of reads compared.
fn trace_check(scop: &Scop, values: &[i64], storage: &MergedStorage) -> Result<usize, Refused> {
    let mut trace = crate::verify::build::trace_program(scop);
    trace.merge(storage).map_err(Refused::TraceFailed)?;
    // Unbounded, as the enumerations of the operations above: the trace
    // visits each operation once.
    let mut budget = Budget::new(u64::MAX, None);
    let report = crate::verify::run_trace(&trace, values, &mut budget)
        .map_err(|e| Refused::TraceFailed(e.to_string()))?;
    match report.first_mismatch {
        None => Ok(report.reads_checked),
        Some(m) => Err(Refused::Mismatch(Box::new(m))),
    }
}
