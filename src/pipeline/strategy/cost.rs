//! The cost rule: storage that puts work on the accesses must pay for it.
//!
//! A fold that adds a `%` to some access of an array (a [`DimLayout::Modulo`]
//! dimension, or a [`DimLayout::Linear`] one that some access does not
//! skip) costs an integer division, or a multiply and shift, on every
//! execution of that access, and often stops the compiler from
//! vectorising the loop. It only pays back through a smaller footprint:
//! fewer cache misses, less memory traffic. Measured with `polyfold bench
//! --speed` (README, "Speed"): a fold that saves 2 cells of 32 772 puts a
//! `%` in the inner loop and runs 3.4 times slower; folds that save half
//! of the cells or more run as fast or faster.
//!
//! The rule, deterministic and independent of the machine:
//!
//! - A layout that adds no `%` always pays (dimensions dropped, or plain
//!   subscripts with smaller extents: the same code on less memory).
//! - A layout that adds a `%` pays when it saves at least
//!   [`MIN_SAVED_NUM`]/[`MIN_SAVED_DEN`] (a quarter) of the array's cells:
//!   `new <= old · (1 - 1/4)`.
//! - Without parameter values (sizes are formulas in the parameters), it
//!   pays when the new size grows more slowly than the old one (a lower
//!   degree in the parameters: `n * n` -> `2 * n - 1`, which saves almost
//!   everything for large `n`), or, with the same degree, when the fraction
//!   holds at the probe values (`n + 2` -> `n` does not).
//!
//! Merged buffers (the inter-array strategy) fold with `%`: they must save
//! the same fraction of the cells of the arrays folded alone
//! ([`merge_pays`]). Where the home of a value depends on the iteration
//! (a stencil's boundary in a buffer of its own, the first time step
//! reading the input copy), an access selects among homes with a
//! conditional on the iterators. Inside a loop that is a branch per
//! access and no vectorisation: measured, the merged ping-pong stencils
//! ran 6.4 (1-d, N = 65 536), 4.1 (2-d, N = 1 024) and 1.4
//! (jacobi2d_smoothing, N = 2 048) times slower than the originals while
//! using half or less of their memory. So merged buffers whose text
//! selects on an iterator inside a loop are not made
//! ([`selects_in_loops`]); a condition on the parameters alone is
//! loop-invariant and allowed.
//!
//! `--min-memory` (`ContractOptions::min_memory`) turns the rule off: the
//! smallest storage at any price.

use crate::analysis::model::ArrayModel;
use crate::ir::Scop;
use crate::mapping::layout::{ArrayLayout, DimLayout};
use crate::mapping::modular::ParamAffine;
use crate::verify::storage::{Location, MergedStorage};

/// The least fraction of an array's cells (`MIN_SAVED_NUM / MIN_SAVED_DEN`)
/// that a fold adding a `%` must save.
pub(crate) const MIN_SAVED_NUM: i64 = 1;
pub(crate) const MIN_SAVED_DEN: i64 = 4;

/// The accesses of `model`'s array, as the layouts name them (statement,
/// position).
pub(crate) fn access_keys(model: &ArrayModel) -> Vec<(usize, usize)> {
    model
        .events
        .iter()
        .map(|e| (e.statement, e.position))
        .collect()
}

/// Whether `layout` puts a `%` on some of the `accesses`: a modulo
/// dimension (some access wraps, or it would be plain), or a linear one
/// that some access does not skip.
pub(crate) fn adds_modulo(layout: &ArrayLayout, accesses: &[(usize, usize)]) -> bool {
    layout.dims.iter().any(|dim| match dim {
        DimLayout::Dropped | DimLayout::Plain { .. } | DimLayout::Packed { .. } => false,
        DimLayout::Modulo { exempt, .. } | DimLayout::Linear { exempt, .. } => {
            accesses.iter().any(|k| !exempt.contains(k))
        }
    })
}

/// Whether going from `old` to `new` cells saves at least the fraction
/// the rule asks for (`old - new >= old · NUM / DEN`, exactly).
pub(crate) fn saves_enough(old: i64, new: i64) -> bool {
    saves_enough_wide(i128::from(old), i128::from(new))
}

/// [`saves_enough`] for sizes in 128 bits (far below its limit).
fn saves_enough_wide(old: i128, new: i128) -> bool {
    (old - new) * i128::from(MIN_SAVED_DEN) >= old * i128::from(MIN_SAVED_NUM)
}

/// The inter-array rule: merged buffers of `merged` cells pay for their
/// conditionals and `%` against `per_array` cells of the arrays folded
/// alone.
pub(crate) fn merge_pays(per_array: i64, merged: i64) -> bool {
    saves_enough(per_array, merged)
}

/// The statements (by name, once each) of `scop` that access merged
/// storage through a conditional on their iterators: an access of
/// `storage` whose location chooses among different homes by regions
/// whose constraints involve an iterator of a statement inside a loop.
pub(crate) fn selects_in_loops(scop: &Scop, storage: &MergedStorage) -> Vec<String> {
    let np = scop.params.len();
    let mut names: Vec<String> = Vec::new();
    for access in &storage.accesses {
        let Some(stmt) = scop.stmts.get(access.statement) else {
            continue;
        };
        let nt = stmt.iterators.len();
        if nt == 0 || !selects_on_iterators(&access.location, np, nt) {
            continue;
        }
        if !names.contains(&stmt.name) {
            names.push(stmt.name.clone());
        }
    }
    names
}

/// Whether `location` chooses between different homes by a condition
/// with a non-zero coefficient on one of the `nt` iterator columns (after
/// the `np` parameter columns).
fn selects_on_iterators(location: &Location, np: usize, nt: usize) -> bool {
    let Location::Choose(branches) = location else {
        return false;
    };
    let differ = branches.iter().any(|(_, l)| *l != branches[0].1);
    let on_iterators = branches.iter().any(|(region, _)| {
        region.iter().any(|b| {
            b.eqs
                .iter()
                .chain(&b.ineqs)
                .any(|row| row.iter().skip(np).take(nt).any(|c| *c != 0))
        })
    });
    (differ && on_iterators)
        || branches
            .iter()
            .any(|(_, l)| selects_on_iterators(l, np, nt))
}

/// Whether every statement of `scop` in an innermost loop accesses its
/// arrays contiguously along that loop: each subscript but the last is
/// the same on every iteration, and the last moves by at most one cell.
/// Such loops are the ones a compiler vectorises; a loop that walks an
/// array across its rows (song_example2's `ZA[j][k]` in a `j` loop) is
/// not, and a `%` added to it loses no vectorisation (see
/// `modulo_varying_inside` in `super::super::variants`).
pub(crate) fn innermost_contiguous(scop: &Scop) -> bool {
    let np = scop.params.len();
    (0..scop.stmts.len())
        .filter(|&si| scop.in_innermost_loop(si))
        .all(|si| {
            let stmt = &scop.stmts[si];
            let column = np + stmt.loop_depth() - 1;
            std::iter::once(&stmt.write)
                .chain(&stmt.reads)
                .all(|access| {
                    let n = access.subscripts.len();
                    access.subscripts.iter().enumerate().all(|(d, e)| {
                        let c = e.coeffs.get(column).copied().unwrap_or(0);
                        c == 0 || (d + 1 == n && c.abs() == 1)
                    })
                })
        })
}

/// The degree in the parameters of a product of affine extents (`None`
/// factors unknown): the number of non-constant factors (a product of
/// non-zero linear forms is non-zero, so the leading terms never cancel).
fn degree<'a>(factors: impl IntoIterator<Item = Option<&'a ParamAffine>>) -> Option<usize> {
    let mut d = 0;
    for f in factors {
        if !f?.is_constant() {
            d += 1;
        }
    }
    Some(d)
}

/// The degree in the parameters of the cell count of `layout` over an
/// array with the `declared` extents.
pub(crate) fn layout_degree(
    layout: &ArrayLayout,
    declared: &[Option<ParamAffine>],
) -> Option<usize> {
    if layout.is_linear() {
        return degree(layout.dims.iter().filter_map(|d| match d {
            DimLayout::Linear { modulus, .. } => Some(Some(modulus)),
            _ => None,
        }));
    }
    degree(
        layout
            .dims
            .iter()
            .zip(declared)
            .flat_map(|(dim, extent)| match dim {
                DimLayout::Dropped => vec![],
                DimLayout::Plain { extent: None } => vec![extent.as_ref()],
                DimLayout::Plain { extent: Some(b) } | DimLayout::Modulo { modulus: b, .. } => {
                    vec![Some(b)]
                }
                DimLayout::Linear { modulus, .. } => vec![Some(modulus)],
                // E·(E + 1)/2: the degree of E·E.
                DimLayout::Packed { extent, .. } => vec![Some(extent), Some(extent)],
            }),
    )
}

/// Why a fold does not pay: the sizes compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub original: i64,
    pub new: i64,
    /// The sizes are those at the probe values (no parameter values), and
    /// the new size grows as fast as the old one.
    pub at_probe: bool,
    /// These sizes save enough, but not the same mapping at large sizes
    /// (see [`refusal`]).
    pub as_sizes_grow: bool,
}

/// How far the values are scaled to compare the sizes of a mapping made
/// for every value as the sizes grow (see [`refusal`]).
const GROWTH: i64 = 1 << 10;

/// The cells of the declaration and of `layout` at `point` (`None` when
/// an extent is unknown or a product overflows).
fn cells_at(
    layout: &ArrayLayout,
    declared: &[Option<ParamAffine>],
    point: &[i64],
) -> Option<(i128, i128)> {
    let extents: Vec<Option<i64>> = declared
        .iter()
        .map(|e| e.as_ref().and_then(|e| e.eval(point).ok()))
        .collect();
    let original = extents
        .iter()
        .try_fold(1i128, |acc, e| acc.checked_mul(i128::from((*e)?.max(1))))?;
    Some((original, layout_cells_wide(layout, &extents, point)?))
}

/// The rule for one array: `None` when `layout` pays (no `%`, or it saves
/// enough), else the sizes that fail. `cells` are the sizes for `values`
/// (the known values, or the probe values when `values_known` is false);
/// unknown sizes pay (nothing to compare). A layout made for every value
/// (`for_every_value`) must also save enough with `values` scaled by
/// [`GROWTH`]: a fold whose size grows as fast as the declaration's and
/// that saves only a border (`(N + 2)^3` cells to `N^3`) is refused at
/// every size, not made at the small sizes only, so the mapping is the
/// same whatever the sizes.
pub fn refusal(
    layout: &ArrayLayout,
    accesses: &[(usize, usize)],
    declared: &[Option<ParamAffine>],
    (original, new): (Option<i64>, Option<i64>),
    (values, values_known): (&[i64], bool),
    for_every_value: bool,
) -> Option<Refusal> {
    if !adds_modulo(layout, accesses) {
        return None;
    }
    let (original, new) = (original?, new?);
    let old_degree = degree(declared.iter().map(Option::as_ref));
    let new_degree = layout_degree(layout, declared);
    let lower_degree = matches!((old_degree, new_degree), (Some(o), Some(n)) if n < o);
    if !values_known && lower_degree {
        return None;
    }
    let refused = |as_sizes_grow| Refusal {
        original,
        new,
        at_probe: !values_known,
        as_sizes_grow,
    };
    if !saves_enough(original, new) {
        return Some(refused(false));
    }
    if for_every_value && !lower_degree {
        let large: Option<Vec<i64>> = values
            .iter()
            .map(|v| (*v).max(1).checked_mul(GROWTH))
            .collect();
        if let Some((old, new)) = large.and_then(|p| cells_at(layout, declared, &p))
            && !saves_enough_wide(old, new)
        {
            return Some(refused(true));
        }
    }
    None
}

/// Cells of an array after remapping with `layout`.
pub(crate) fn layout_cells(
    layout: &ArrayLayout,
    extents: &[Option<i64>],
    values: &[i64],
) -> Option<i64> {
    i64::try_from(layout_cells_wide(layout, extents, values)?).ok()
}

/// [`layout_cells`] in 128 bits (`None` only when an extent is unknown or
/// that overflows too).
pub(crate) fn layout_cells_wide(
    layout: &ArrayLayout,
    extents: &[Option<i64>],
    values: &[i64],
) -> Option<i128> {
    let mut cells: i128 = 1;
    if layout.is_linear() {
        for dim in &layout.dims {
            if let DimLayout::Linear { modulus, .. } = dim {
                // A guarded extent is at least 1.
                cells = cells.checked_mul(i128::from(modulus.eval(values).ok()?.max(1)))?;
            }
        }
        return Some(cells);
    }
    for (dim, extent) in layout.dims.iter().zip(extents) {
        let size = match dim {
            DimLayout::Dropped => 1,
            DimLayout::Linear { modulus, .. } => modulus.eval(values).ok()?,
            DimLayout::Plain { extent: None } => (*extent)?,
            DimLayout::Plain { extent: Some(b) } => b.eval(values).ok()?,
            // A guarded extent is at least 1 (see `DimLayout::Modulo`).
            DimLayout::Modulo { modulus: b, .. } => b.eval(values).ok()?.max(1),
            DimLayout::Packed {
                extent: e,
                triangle,
                ..
            } => i64::try_from(triangle.cells(e.eval(values).ok()?)).ok()?,
        };
        cells = cells.checked_mul(i128::from(size))?;
    }
    Some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aff(coeffs: &[i64], constant: i64) -> ParamAffine {
        ParamAffine {
            coeffs: coeffs.to_vec(),
            constant,
            den: 1,
        }
    }

    /// [`refusal`] with known sizes `(original, new)` at `values`.
    fn judge(
        layout: &ArrayLayout,
        accesses: &[(usize, usize)],
        declared: &[Option<ParamAffine>],
        (original, new): (i64, i64),
        values: &[i64],
        values_known: bool,
        for_every_value: bool,
    ) -> Option<Refusal> {
        refusal(
            layout,
            accesses,
            declared,
            (Some(original), Some(new)),
            (values, values_known),
            for_every_value,
        )
    }

    fn modulo(m: ParamAffine, exempt: Vec<(usize, usize)>) -> DimLayout {
        DimLayout::Modulo {
            modulus: m,
            exempt,
            extent_proven: true,
            arguments: Vec::new(),
        }
    }

    /// The accesses of one array: a write (0, 0) and a read (1, 1).
    const ACCESSES: [(usize, usize); 2] = [(0, 0), (1, 1)];

    #[test]
    fn the_fraction_is_exact_at_a_quarter() {
        assert!(saves_enough(100, 75));
        assert!(!saves_enough(100, 76));
        assert!(saves_enough(4, 3));
        assert!(!saves_enough(66, 64));
        assert!(!saves_enough(32_772, 32_770));
        // pingpong1d merged: 132 cells alone, 67 merged.
        assert!(merge_pays(132, 67));
        // pingpong2d merged (issue 18): 8.41 M -> 8.40 M.
        assert!(!merge_pays(8_410_000, 8_400_000));
        // No overflow near the i64 limit.
        assert!(saves_enough(i64::MAX, 1));
        assert!(!saves_enough(i64::MAX, i64::MAX - 1));
    }

    #[test]
    fn a_layout_without_modulo_always_pays() {
        let m = ACCESSES;
        let plain = ArrayLayout {
            dims: vec![DimLayout::Plain {
                extent: Some(aff(&[1], 0)),
            }],
        };
        assert!(!adds_modulo(&plain, &m));
        assert_eq!(
            judge(
                &plain,
                &m,
                &[Some(aff(&[1], 2))],
                (66, 64),
                &[64],
                true,
                true
            ),
            None
        );
        let dropped = ArrayLayout {
            dims: vec![DimLayout::Dropped],
        };
        assert!(!adds_modulo(&dropped, &m));
        // A modulo dimension that every access skips adds no `%`.
        let skipped = ArrayLayout {
            dims: vec![modulo(aff(&[1], 0), vec![(0, 0), (1, 1)])],
        };
        assert!(!adds_modulo(&skipped, &m));
    }

    #[test]
    fn a_modulo_that_saves_two_of_n_plus_two_cells_is_refused() {
        let m = ACCESSES;
        // P[N + 2] -> P[i % N] (pingpong1d local), one access wraps.
        let layout = ArrayLayout {
            dims: vec![modulo(aff(&[1], 0), vec![(0, 0)])],
        };
        assert!(adds_modulo(&layout, &m));
        let declared = [Some(aff(&[1], 2))];
        assert_eq!(
            judge(&layout, &m, &declared, (66, 64), &[64], true, true),
            Some(Refusal {
                original: 66,
                new: 64,
                at_probe: false,
                as_sizes_grow: false,
            })
        );
        // Without values: n + 2 -> n has the same degree, and at the probe
        // value 16 it saves 2 of 18.
        assert_eq!(
            judge(&layout, &m, &declared, (18, 16), &[16], false, true),
            Some(Refusal {
                original: 18,
                new: 16,
                at_probe: true,
                as_sizes_grow: false,
            })
        );
        // A fold that halves the array pays (sizes of a mapping for the
        // known values: its layout's formula is not the one above).
        assert_eq!(
            judge(&layout, &m, &declared, (66, 33), &[64], true, false),
            None
        );
    }

    #[test]
    fn a_border_saved_only_at_small_sizes_is_refused_at_every_size() {
        let m = ACCESSES;
        // P[N + 2][N + 2][N + 2] -> P[i % N][j % N][k % N] (pingpong3d):
        // at N = 16, 5 832 -> 4 096 cells saves 30 %; at N = 16 384 it
        // saves 0.04 %. Made for every value, it is refused at N = 16 too.
        let n = || modulo(aff(&[1], 0), vec![(0, 0)]);
        let layout = ArrayLayout {
            dims: vec![n(), n(), n()],
        };
        let declared = [Some(aff(&[1], 2)), Some(aff(&[1], 2)), Some(aff(&[1], 2))];
        assert_eq!(
            judge(&layout, &m, &declared, (5832, 4096), &[16], true, true),
            Some(Refusal {
                original: 5832,
                new: 4096,
                at_probe: false,
                as_sizes_grow: true,
            })
        );
        // A mapping for the known values only is judged at those values.
        assert_eq!(
            judge(&layout, &m, &declared, (5832, 4096), &[16], true, false),
            None
        );
        // T[2N + 10] -> T[i % (N + 10)]: at N = 40, 90 -> 50; as N grows
        // it saves half: it pays at every size.
        let layout = ArrayLayout {
            dims: vec![modulo(aff(&[1], 10), vec![(0, 0)])],
        };
        let declared = [Some(aff(&[2], 10))];
        assert_eq!(
            judge(&layout, &m, &declared, (90, 50), &[40], true, true),
            None
        );
    }

    #[test]
    fn a_lower_degree_pays_without_values() {
        let m = [(0, 0)];
        // y[n][n] -> y[i % 2][j]: 2n cells for n^2 (degree 1 < 2).
        let layout = ArrayLayout {
            dims: vec![
                modulo(aff(&[0], 2), vec![]),
                DimLayout::Plain { extent: None },
            ],
        };
        let declared = [Some(aff(&[1], 0)), Some(aff(&[1], 0))];
        assert_eq!(layout_degree(&layout, &declared), Some(1));
        // Even where the probe sizes alone would not show it.
        assert_eq!(
            judge(&layout, &m, &declared, (4, 4), &[2], false, true),
            None
        );
        // With known values the numbers decide.
        assert!(judge(&layout, &m, &declared, (4, 4), &[2], true, true).is_some());
    }
}
