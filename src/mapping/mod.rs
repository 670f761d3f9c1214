//! Storage mappings: how a temporary array's cells are folded onto fewer
//! locations, and the proofs that a folding is valid.
//!
//! Invariant: a mapping leaves this module only with a [`Certificate`]: an
//! exact proof (integer emptiness of the collision set) that no two
//! conflicting cells share a location, either for the known parameter
//! values or for every parameter value of the context. `mapping` knows
//! nothing about C text; `codegen` turns certified mappings into edits.

pub mod certify;
pub mod lattice;
pub mod layout;
pub mod method;
pub mod modular;
pub mod smo;
pub mod successive;

pub use certify::{Certificate, CertifyMode, certify_modular};
pub use method::{LatticeMethod, MergeMethod, Method};
pub use modular::{MappedDim, ModularMapping, ParamAffine};
pub use successive::{SuccessiveResult, successive_modulo};
