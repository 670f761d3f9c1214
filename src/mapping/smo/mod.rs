//! SMO: integrated intra- and inter-array storage optimisation over a
//! global array space (seed 000, Bhaskaracharya, Bondhugula and Cohen).
//!
//! Input is a global conflict set specification ([`input`], the
//! `.smo.input` format of the public SMO tool, or one built from a SCoP).
//! [`solve::smo_solve`] finds, per statement, storage hyperplanes with
//! offsets and per-level moduli (Algorithm 1 with Farkas-linearised ILPs,
//! iterative conflict revision and decoalescing); [`baseline::baseline`]
//! computes successive modulo + rectangular hulls for comparison;
//! [`certify`] proves results exactly. `report::smo_report` prints all of it.
//!
//! What this module does NOT do: build conflict sets from C programs (see
//! `analysis`), generate code or print mappings (see `codegen` and
//! `codegen::mapping_text`). Nothing here is reported
//! as valid without an exact certificate.

pub mod baseline;
pub mod certify;
pub mod conflicts;
pub mod input;
pub mod shared;
pub mod solve;

pub use certify::{SmoVerdict, certify_fixed, certify_symbolic};
pub use input::{
    ConflictPolyhedron, ConflictSpec, SmoInputError, StmtId, parse_smo_input, print_smo_input,
};
pub use shared::shared_solve_isolating;
pub use solve::{
    ArrayMapping, DEFAULT_LEVEL_NODES, Hyperplane, SmoOptions, SmoSolution, smo_solve,
    smo_solve_isolating,
};
