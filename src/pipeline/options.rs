//! Every option and every limit of the contraction, in one place. Limits
//! count work (solver steps, branch-and-bound nodes, conflict pieces,
//! operations): the counts decide results, so the output depends only on
//! the input and the flags. The durations are safety nets only; when one
//! fires, the decision says so and the driver warns.

use std::time::Duration;

use crate::analysis::liveness::LivenessOverrides;

/// Options of the contraction.
#[derive(Clone, Debug)]
pub struct ContractOptions {
    pub overrides: LivenessOverrides,
    /// Solver budget per array: the steps decide, the time is only a
    /// safety net (reported when it fires).
    pub steps_per_array: u64,
    pub time_per_array: Duration,
    /// Run the lattice strategies (seed 001 §4) besides successive modulo.
    pub lattices: bool,
    /// Pack a temporary whose accesses stay in a triangle of two square
    /// dimensions row by row (`strategy::packed`; `--no-packing` turns it
    /// off: the modular strategies alone, as in seed 001's columns).
    pub packing: bool,
    /// Work of the optimal lattice search per array, in search steps (zero:
    /// no search).
    pub optimal_steps: u64,
    /// Also fold the temporaries of each SCoP together (SMO, seed 000:
    /// [`super::merged`]), and keep that when it needs fewer cells than
    /// folding each array alone.
    pub inter_array: bool,
    /// Wall-clock safety net of the inter-array path per SCoP.
    pub inter_array_time: Duration,
    /// Record the max-live count of every temporary in its decision (for
    /// reports and `bench`): a trace of the array's statements for the
    /// known values, within [`RECORD_TRACE_STEPS`], run once unless a
    /// strategy already ran it.
    pub record_max_live: bool,
    /// The smallest storage at any price (`--min-memory`): no cost rule
    /// ([`super::strategy::cost`]), a fold that adds a `%` is taken however
    /// little it saves.
    pub min_memory: bool,
    /// `--pin-sizes`: storage certified for the known values of the
    /// `#define`d sizes only (or from some size on) may be chosen, pinned
    /// by a `_Static_assert`. Off by default: every storage is certified
    /// for every parameter value, and the best pinned one is only reported
    /// ([`super::record::ArrayDecision::pin_offer`]).
    pub pin_sizes: bool,
    /// `--fast-modulo`: a `%` by a run-time modulus that wraps at most
    /// once is printed as a conditional subtraction (see
    /// [`crate::mapping::layout::Argument::wraps_once`]).
    pub fast_modulo: bool,
    /// Rotating indices for the residues a loop advances by a constant
    /// (`--no-rotate` keeps every `%` as the mapping prints it).
    pub rotate: bool,
    /// Loop shifting and fusion before contraction, where the fused
    /// program needs fewer cells (`--no-fusion` keeps the schedule; see
    /// [`crate::schedule`]).
    pub fusion: bool,
    /// `--pow2-moduli`: trade a little memory for speed. A number modulus
    /// that a `%` computes in an innermost loop is rounded up to the next
    /// power of two where the enlarged mapping is certified again and adds
    /// at most the declared cells divided by [`MASK_EXCESS_DEN`]
    /// (`strategy/masks.rs`), and every power-of-two number
    /// modulus of the output is printed as a mask, `e & (m - 1)`.
    pub pow2_moduli: bool,
    /// For the random-program campaign (`polyfold-fuzz --reschedule`):
    /// take a SCoP re-scheduled whole by the scanner
    /// ([`crate::schedule::nest`]) whenever it passes its checks, whatever
    /// it saves, so that every such program runs the generated code.
    pub reschedule_always: bool,
    /// Temporaries split by reference groups where that needs fewer
    /// cells (`--no-split` keeps each array whole; see
    /// [`crate::schedule::split`]).
    pub split: bool,
    /// Arrays of a split program and the array each was split from (new
    /// name, original name): the notes at their declarations name the
    /// original (`scratch[i] -> scratch_0[i]`). Set by
    /// [`crate::pipeline::contract_file`], empty otherwise.
    pub renamed: Vec<(String, String)>,
}

impl Default for ContractOptions {
    fn default() -> ContractOptions {
        ContractOptions {
            overrides: LivenessOverrides::default(),
            steps_per_array: 20_000_000,
            time_per_array: Duration::from_secs(60),
            lattices: true,
            packing: true,
            optimal_steps: crate::mapping::lattice::DEFAULT_OPTIMAL_STEPS,
            inter_array: true,
            inter_array_time: INTER_ARRAY_SAFETY_NET,
            record_max_live: false,
            min_memory: false,
            pin_sizes: false,
            fast_modulo: false,
            rotate: true,
            fusion: true,
            pow2_moduli: false,
            reschedule_always: false,
            split: true,
            renamed: Vec::new(),
        }
    }
}

/// `--pow2-moduli` rounds moduli up for masks only while the cells it
/// adds are at most the declared cells divided by this (an eighth, 12.5 %).
pub(crate) const MASK_EXCESS_DEN: i64 = 8;

/// Steps (about one per operation) the pipeline's trace of one array may
/// use: it only helps (exact live-in and max-live for the known values), so
/// a huge iteration space gives up early instead of filling the memory;
/// `polyfold verify` has its own, larger budget.
pub(crate) const TRACE_STEPS: u64 = 2_000_000;

/// The probe values of parameters without a known value
/// (`strategy::probe_values`): the `q`-th parameter is probed at
/// `PROBE_BASE + PROBE_STEP·q` or above, when the context allows. Large
/// enough that loops with bounds like `n - 3` run, small enough that the
/// difference set stays small; distinct so that no two parameters are
/// equal by chance.
pub(crate) const PROBE_BASE: i64 = 16;

/// The lower ends tried for a mapping proven from some size on (each
/// parameter at least this or its known value, if smaller), pinned as
/// `_Static_assert(N >= 4, …)`: by the lifted lattices, the reindexed
/// bases and the packed triangles.
pub(crate) const PIN_FROM: [i64; 4] = [2, 4, 8, PROBE_BASE];
pub(crate) const PROBE_STEP: i64 = 4;

/// Steps of the trace that only records an array's max-live count for the
/// reports (`ContractOptions::record_max_live`): small, so that a report
/// costs little more than the transform; past it the bound is unknown.
pub(crate) const RECORD_TRACE_STEPS: u64 = 250_000;

/// Solver steps the lattice strategies of one array may use (the optimal
/// search has its own, `optimal_steps`): the corpus needs at most 340 000
/// (blur_tiled's `blurx`); a difference set of many pieces whose hull would
/// take minutes stops here (tests/regressions/lattice_hull_budget.c).
pub(crate) const LATTICE_STEPS: u64 = 1_000_000;

/// The fixed-size lattice strategies (`strategy::lattice`: a search on the
/// difference set for the known values, whose cost grows with it) run only
/// on arrays of at most this many cells; larger ones get the mappings
/// proven for every value (successive modulo, lifted lattices), whose cost
/// does not depend on the sizes.
pub(crate) const FIXED_SEARCH_CELLS: i64 = 10_000;

/// Solver steps of each search of the lifted lattices (`strategy::lifted`,
/// one per probe point) and the optimal search's steps there: the probe
/// values are small, and what a lift finds does not depend on the sizes
/// of the program.
pub(crate) const LIFT_LATTICE_STEPS: u64 = 1_000_000;
pub(crate) const LIFT_OPTIMAL_STEPS: u64 = 1_000_000;
/// Steps of the trace that gives the max-live count at the probe sizes (a
/// lift is not searched when successive modulo already meets it there).
pub(crate) const LIFT_TRACE_STEPS: u64 = 200_000;

/// The wall-clock safety net of one SCoP's inter-array path: building the
/// global conflict set may use half of it, and all SMO solves share it.
/// Work counts decide the result; this only stops a pathological case.
/// At 20 s it decided: pingpong3d's merging (about 6 s of one core) went
/// past its half under a loaded test run and was refused with "computation
/// budget exhausted" instead of its cost rule's reason.
pub(crate) const INTER_ARRAY_SAFETY_NET: Duration = Duration::from_secs(120);

/// Branch-and-bound nodes of all SMO ILPs of one SCoP.
pub(crate) const SMO_NODES: u64 = 200_000;

/// Nodes of each level of SMO on all statements after a successful solve
/// with the split-off values apart.
pub(crate) const SMO_SECOND_LEVEL_NODES: u64 = 250;

/// Nodes of all SMO ILPs after the shared-hyperplane search found a
/// mapping.
pub(crate) const SMO_AFTER_SHARED_NODES: u64 = 1_000;

/// The most conflict polyhedra for which the SMO ILP still runs after the
/// shared-hyperplane search found a mapping.
pub(crate) const SMO_AFTER_SHARED_PIECES: usize = 32;

/// Operations of a SCoP (statement instances for the known parameter
/// values) that the merging may enumerate (for the lifetimes, the lower
/// bound and the trace check): a count, so a SCoP too large for it gets the
/// same answer every time.
pub(crate) const SMO_MAX_OPERATIONS: u64 = 300_000;

/// Work units of the global conflict set (one per conflict piece built
/// and tested): the count, not the time, decides whether it is built.
pub(crate) const CONFLICT_WORK: u64 = 1_000_000;

/// Work units of each shared-hyperplane search (one per conflict piece
/// examined for a candidate linear part or a revision).
pub(crate) const SHARED_WORK: u64 = 10_000;
