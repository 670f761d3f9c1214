//! The names of the strategies, as enums: the pipeline, the record and the
//! tests compare these; text exists only at the edge (`Display`, which the
//! reports, `bench` and the JSON output print).

use std::fmt;

/// How an array's storage was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// No new storage: the array keeps its declared layout (external, or
    /// no certified improvement).
    Unchanged,
    /// At most one value live at a time, shown by the exhaustive trace of
    /// the array's statements for the known values: one location.
    TraceMaxLiveOne,
    /// Successive modulo (seed 001 §3, Lefebvre–Feautrier style moduli).
    SuccessiveModulo,
    /// A lattice strategy of seed 001 §4.
    Lattice(LatticeMethod),
    /// A lattice found at small probe sizes whose basis holds and whose
    /// moduli move affinely, proven for every parameter value
    /// (`pipeline::strategy::lifted`).
    LiftedLattice,
    /// Successive modulo in the basis of a write access (a unimodular
    /// reindexing: `B[i + j][j]` -> `B[i][j]`).
    Reindexed,
    /// Successive modulo after dividing out the stride of the accesses
    /// along some rows (seed 004's compaction: `t[2 * i][1]` -> `t[i]`),
    /// in the axes or in the basis of a write access.
    StrideRemoved,
    /// Successive modulo on the axes after subtracting the offset of the
    /// first write (a region of a bigger buffer: `s[2 * N + i]` ->
    /// `s[i]`, seed 004's footprint compaction).
    OffsetRemoved,
    /// A triangle of two dimensions packed row by row (seed 004's
    /// triangle folding: `E·(E + 1)/2` cells instead of `E·E`).
    TrianglePacked,
    /// Folded together with the other temporaries of its SCoP into merged
    /// buffers (seed 000); the SCoP's record says which search found them.
    InterArray,
}

/// The lattice strategies (seed 001 §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LatticeMethod {
    Heuristic1,
    Heuristic1a,
    Heuristic2,
    Heuristic2Linearised,
    Heuristic3,
    Heuristic3Linearised,
    /// Heuristic 3 with moduli affine in the parameters.
    Heuristic3Symbolic,
    Heuristic3SymbolicLinearised,
    /// Rank ≥ 3: successive modulo outside, the optimal 2-D lattice inside.
    BlockOptimal,
    /// The exhaustive search over Hermite normal forms.
    OptimalSearch,
}

/// The searches of the inter-array (SMO) path, one per candidate storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MergeMethod {
    /// Shared storage hyperplanes with the split-off values in arrays of
    /// their own.
    SharedHyperplanesApart,
    SharedHyperplanes,
    /// The SMO ILP (seed 000 §3) with the split-off values apart.
    SmoApart,
    Smo,
    /// One array per statement, folded alone (seed 000's baseline).
    Baseline,
}

impl LatticeMethod {
    /// Every lattice strategy.
    pub const ALL: [LatticeMethod; 10] = [
        LatticeMethod::Heuristic1,
        LatticeMethod::Heuristic1a,
        LatticeMethod::Heuristic2,
        LatticeMethod::Heuristic2Linearised,
        LatticeMethod::Heuristic3,
        LatticeMethod::Heuristic3Linearised,
        LatticeMethod::Heuristic3Symbolic,
        LatticeMethod::Heuristic3SymbolicLinearised,
        LatticeMethod::BlockOptimal,
        LatticeMethod::OptimalSearch,
    ];

    /// Heuristics 1 and 1.a are built on the successive minima (their
    /// time includes computing them).
    pub(crate) fn uses_minima(self) -> bool {
        matches!(self, LatticeMethod::Heuristic1 | LatticeMethod::Heuristic1a)
    }

    pub fn name(self) -> &'static str {
        match self {
            LatticeMethod::Heuristic1 => "heuristic 1",
            LatticeMethod::Heuristic1a => "heuristic 1.a",
            LatticeMethod::Heuristic2 => "heuristic 2",
            LatticeMethod::Heuristic2Linearised => "heuristic 2 (linearised)",
            LatticeMethod::Heuristic3 => "heuristic 3",
            LatticeMethod::Heuristic3Linearised => "heuristic 3 (linearised)",
            LatticeMethod::Heuristic3Symbolic => "heuristic 3 (symbolic)",
            LatticeMethod::Heuristic3SymbolicLinearised => "heuristic 3 (symbolic, linearised)",
            LatticeMethod::BlockOptimal => "block optimal",
            LatticeMethod::OptimalSearch => "optimal search",
        }
    }
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Unchanged => "-",
            Method::TraceMaxLiveOne => "max-live 1 (trace)",
            Method::SuccessiveModulo => "successive modulo",
            Method::Lattice(l) => l.name(),
            Method::LiftedLattice => "lattice lifted to every size",
            Method::Reindexed => "unimodular reindexing",
            Method::StrideRemoved => "stride removed",
            Method::OffsetRemoved => "offset removed",
            Method::TrianglePacked => "triangle packed",
            Method::InterArray => "inter-array",
        }
    }
}

impl MergeMethod {
    pub fn name(self) -> &'static str {
        match self {
            MergeMethod::SharedHyperplanesApart => "shared hyperplanes, split-off values apart",
            MergeMethod::SharedHyperplanes => "shared hyperplanes",
            MergeMethod::SmoApart => "SMO, split-off values apart",
            MergeMethod::Smo => "SMO",
            MergeMethod::Baseline => "baseline",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl fmt::Display for LatticeMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl fmt::Display for MergeMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names are what the reports, the JSON output and `bench` print:
    /// distinct, so that a name says which strategy it was.
    #[test]
    fn names_are_distinct() {
        let mut names: Vec<&str> = LatticeMethod::ALL
            .into_iter()
            .map(|l| Method::Lattice(l).name())
            .chain(
                [
                    Method::Unchanged,
                    Method::TraceMaxLiveOne,
                    Method::SuccessiveModulo,
                    Method::LiftedLattice,
                    Method::Reindexed,
                    Method::StrideRemoved,
                    Method::OffsetRemoved,
                    Method::TrianglePacked,
                    Method::InterArray,
                ]
                .map(Method::name),
            )
            .collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
        assert_eq!(format!("{:<8}|", Method::InterArray), "inter-array|");
        assert_eq!(
            format!("{:<20}|", Method::SuccessiveModulo),
            "successive modulo   |"
        );
    }
}
