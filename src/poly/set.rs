//! Unions of polyhedra, which are the sets and relations of the IR.

use super::basic::BasicSet;
use super::space::Space;

/// A finite union of [`BasicSet`]s over one [`Space`].
///
/// When the space has a range tuple this is a relation (isl's "map").
/// An empty list of pieces is the empty set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Set {
    pub space: Space,
    pub pieces: Vec<BasicSet>,
}

impl Set {
    pub fn empty(space: Space) -> Set {
        Set {
            space,
            pieces: Vec::new(),
        }
    }

    pub fn universe(space: Space) -> Set {
        Set {
            pieces: vec![BasicSet::universe(space.clone())],
            space,
        }
    }

    pub(crate) fn from_basic(basic: BasicSet) -> Set {
        Set {
            space: basic.space.clone(),
            pieces: vec![basic],
        }
    }

    /// Adds a piece to the union (no simplification).
    pub fn push(&mut self, basic: BasicSet) {
        debug_assert_eq!(basic.space, self.space);
        self.pieces.push(basic);
    }
}
