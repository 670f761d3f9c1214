//! Where the transformed program keeps an array's values, as the trace
//! interpreter sees it: the original layout, a per-array modular mapping,
//! or merged buffers shared by several arrays, where every access carries
//! the location the emitted program computes for it.
//!
//! A merged location is described the way the code generator prints it
//! (`pipeline::merged`): per access, a choice among branches (`(c0) ? t0 :
//! (c1) ? t1 : t2`) whose leaves name a buffer and one C subscript per
//! buffer dimension (an affine row, or C's truncated `row % m`). The trace
//! evaluates that description at every operation; it never consults the
//! dataflow analysis that produced it, so a wrong source, offset, modulus
//! or condition shows as a read that sees the wrong value, or as a
//! subscript outside its buffer.
//!
//! What this does NOT do: read the emitted C text (the description is
//! built next to it, from the same values the text is printed from);
//! describe conditions with existential variables.

use crate::mapping::ModularMapping;
use crate::mapping::modular::ParamAffine;
use crate::poly::BasicSet;

/// Where the transformed program keeps the values of one array.
#[derive(Clone, Debug, Default)]
pub enum Storage {
    /// The original layout: every cell is its own location.
    #[default]
    Original,
    /// A per-array modular mapping: every cell is sent through it.
    Modular(ModularMapping),
    /// A triangle of dimensions `p < q` packed row by row (the layout
    /// `mapping::layout::packed_layout` emits): cell `c` is at
    /// `triangle.index(c_p, c_q, extent)` in place of its dimensions `p`
    /// and `q`, every other coordinate kept; a cell outside the triangle
    /// is an error of the storage.
    Packed {
        p: usize,
        q: usize,
        triangle: crate::mapping::layout::Triangle,
        extent: ParamAffine,
    },
    /// In the merged buffers of the trace program
    /// ([`super::TraceProgram::buffers`]): each access of the array has
    /// its own location, given here (every access of the array must have
    /// one).
    Merged(Vec<AccessLocation>),
}

impl From<Option<ModularMapping>> for Storage {
    fn from(mapping: Option<ModularMapping>) -> Storage {
        match mapping {
            Some(m) => Storage::Modular(m),
            None => Storage::Original,
        }
    }
}

/// One subscript of a merged buffer, over `[params | iterators |
/// constant]` of the accessing statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Level {
    /// The row's value.
    Row(Vec<i64>),
    /// C's `row % modulus`: truncated, so negative when the row is. The
    /// modulus is affine in the parameters (a constant for storage made
    /// for known values).
    Rem { row: Vec<i64>, modulus: ParamAffine },
}

/// The location an access of the emitted program touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// Buffer `buffer` (an index into the trace program's buffers) at one
    /// subscript per dimension.
    At { buffer: usize, levels: Vec<Level> },
    /// The location of the first branch whose condition holds (the point
    /// `[params | iterators]` lies in one of its pieces, which have no
    /// existential variables); the last branch's when none does (the
    /// emitted `else`).
    Choose(Vec<(Vec<BasicSet>, Location)>),
}

/// Which access of a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Read number `k` (in the order of the statement's reads).
    Read(usize),
    Write,
}

/// The location of one access of one statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessLocation {
    /// The statement's index in the trace program.
    pub statement: usize,
    pub slot: Slot,
    pub location: Location,
}

/// A buffer of the transformed program: its name and its extents, affine
/// in the parameters (constants for storage made for known values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceBuffer {
    pub name: String,
    pub extents: Vec<ParamAffine>,
}

impl TraceBuffer {
    /// The extents for the parameter values `params`.
    pub fn extents_at(&self, params: &[i64]) -> crate::poly::PolyResult<Vec<i64>> {
        self.extents.iter().map(|e| e.eval(params)).collect()
    }
}

/// Everything the trace needs to run a SCoP whose temporaries live in
/// merged buffers, as emitted: which arrays, the buffers, every access of
/// those arrays with its location, and the statements the transformed
/// program no longer executes (pure copies `A[x] = B[y];` deleted because
/// the value is already where the copy would put it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergedStorage {
    /// The arrays in the buffers (indices into the trace's arrays).
    pub arrays: Vec<usize>,
    pub buffers: Vec<TraceBuffer>,
    pub accesses: Vec<AccessLocation>,
    /// Indices of the deleted copy statements.
    pub removed: Vec<usize>,
}

/// The storage a transformed program uses, per SCoP, as a plain
/// description (not a certificate): what `polyfold verify` traces. The
/// pipeline's record gives the one it emitted; a test can break a copy to
/// see the trace catch it.
#[derive(Clone, Debug, Default)]
pub struct ProgramStorage {
    /// `(SCoP, array index, storage)` of every array folded alone (a
    /// modular mapping, or a packed triangle).
    pub arrays: Vec<(usize, usize, Storage)>,
    /// `(SCoP, storage)` of every SCoP whose temporaries are merged.
    pub merged: Vec<(usize, MergedStorage)>,
    /// `(SCoP, statement index)` of the copies of an array folded alone
    /// that the transformed program no longer runs (source and target at
    /// one cell).
    pub removed: Vec<(usize, usize)>,
}
