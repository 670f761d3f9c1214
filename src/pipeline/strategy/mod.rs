//! The strategies of one temporary array, and the chooser.
//!
//! [`ArrayFacts`] is computed once per array (the lifetimes stage: model,
//! live-in, the trace when one is needed; and on demand the conflicts
//! stage: the difference set, fixed for the known values). Each strategy
//! then *proposes* storage ([`Proposal`]: a mapping, the method, and the
//! kind of proof it expects); the certifier ([`super::certify`]) checks it;
//! the [`Chooser`] keeps the smallest certified one that pays for the
//! work it adds to the accesses ([`cost`]: a `%` must save a quarter of
//! the cells; `--min-memory` turns this off). A strategy never makes a
//! certified storage itself.
//!
//! Adding a strategy: a file here with
//! `pub(super) fn propose(facts: &mut ArrayFacts, chooser: &Chooser,
//! budget: &mut Budget) -> Result<Proposals, Kept>`, listed in [`PER_ARRAY`]
//! in the order it should run (cheap and exact first). If its proof is of
//! a new kind, one [`Proof`] variant and one `certify_*` function; if its
//! storage is of a new kind, one [`super::certify::Storage`] variant and
//! its code generation in `super::emit`. The SCoP-level strategy (merged
//! buffers, `inter_array`) runs after the per-array ones, on their result;
//! so does, with `--pow2-moduli`, the rounding of the chosen storage's
//! moduli up to powers of two for masks (`masks.rs`).

use crate::mapping::Method;
use crate::mapping::certify::Certificate;
use crate::poly::Budget;

use super::record::{KeptReason as Kept, StrategySize};

pub mod cost;
mod facts;
mod fits;
pub mod inter_array;
mod lattice;
mod lifted;
pub(super) mod masks;
mod packed;
mod reindexed;
mod successive;
mod trace_one;

pub use facts::param_values;
use facts::pays_for_pin;
pub(crate) use facts::{
    ArrayFacts, Choice, Chooser, Proof, Proposals, decision_cells_at, layout_fits, trace_array,
};

use super::record::{EveryValue, PinOffer};
use facts::Proposal;

/// A per-array strategy.
type Strategy = fn(&mut ArrayFacts<'_>, &Chooser, &mut Budget) -> Result<Proposals, Kept>;

/// The per-array strategies, in the order they run. Packing (no search)
/// comes before the lattice searches, whose cost grows with the
/// difference set: a packed triangle at the max-live bound leaves them
/// nothing to find (reg_detect's `sum_t`, `mean` and `diff`).
const PER_ARRAY: [(&str, Strategy); 6] = [
    ("one-cell trace", trace_one::propose),
    ("successive modulo", successive::propose),
    ("unimodular reindexing", reindexed::propose),
    ("packed triangle", packed::propose),
    ("lattice lifted to every size", lifted::propose),
    ("lattice strategies", lattice::propose),
];

/// Max-live values need max-live cells in any storage: when nothing is
/// chosen yet and the trace (run for known values by the first strategy
/// or the lattice searches) finds as many as the declaration has, no
/// strategy can do better.
fn all_live_at_once(facts: &ArrayFacts<'_>, chooser: &Chooser) -> Option<Kept> {
    let (live, cells) = (facts.traced_max_live()?, facts.original_cells?);
    (chooser.best.is_none() && facts.values_known && i64::try_from(live).is_ok_and(|l| l >= cells))
        .then_some(Kept::AllLiveAtOnce { cells })
}

/// Runs the per-array strategies on `facts` and returns the chosen
/// certified storage with its size and method, every certified size, and
/// why the array keeps its layout when nothing smaller is proven.
pub(super) fn choose(
    facts: &mut ArrayFacts<'_>,
    budget: &mut Budget,
) -> (Result<Choice, Kept>, Vec<StrategySize>) {
    let scop = facts.scop;
    let failure = if scop.array_depends_on_values(facts.array) && !facts.macros_pinnable {
        Kept::ValueNotPinnable(super::pins::value_used_names(scop))
    } else if scop.array_depends_on_values(facts.array) && !facts.options.pin_sizes {
        Kept::PinNotAsked
    } else {
        Kept::NotProvenForEveryValue
    };
    let mut chooser = Chooser {
        original_cells: facts.original_cells,
        best: None,
        sizes: Vec::new(),
        failure,
        refused: None,
        grown: None,
        pin_offer: None,
    };
    let accesses = cost::access_keys(&facts.model);
    for (name, strategy) in PER_ARRAY {
        if chooser.done() {
            break;
        }
        if let Some(kept) = all_live_at_once(facts, &chooser) {
            return (Err(kept), chooser.sizes);
        }
        crate::util::progress::step(name);
        let proposals = match strategy(facts, &chooser, budget) {
            Ok(p) => p,
            Err(kept) => return (Err(kept), chooser.sizes),
        };
        // A strategy that lists its own sizes (every lattice heuristic) is
        // not listed again for its chosen proposal.
        let lists_own_sizes = !proposals.sizes.is_empty();
        chooser.sizes.extend(proposals.sizes);
        if let Some(f) = proposals.failure {
            chooser.failure = f;
        }
        for p in proposals.list {
            if consider(facts, &mut chooser, p, (&accesses, lists_own_sizes), budget) {
                break;
            }
        }
    }
    // The trace may have run in the last strategy (the lattice searches
    // run it for their bound): the same verdict as before each strategy.
    if let Some(kept) = all_live_at_once(facts, &chooser) {
        return (Err(kept), chooser.sizes);
    }
    let sizes = std::mem::take(&mut chooser.sizes);
    // The offer is reported when smaller than what is chosen (or kept).
    facts.pin_offer = chooser
        .pin_offer
        .take()
        .filter(|o| o.cells < chooser.current());
    (verdict(facts, chooser, budget), sizes)
}

/// Weighs proposal `p` of a strategy against the chooser's best so far:
/// certifies it, applies the pin and cost rules, lists its size (unless
/// the strategy lists its own) and takes it when it wins. Returns whether
/// it was taken and ends the strategy's list (a layout without `%`).
fn consider(
    facts: &mut ArrayFacts<'_>,
    chooser: &mut Chooser,
    p: Proposal,
    (accesses, lists_own_sizes): (&[(usize, usize)], bool),
    budget: &mut Budget,
) -> bool {
    let current = chooser.current();
    // On a tie, a layout without `%` replaces one with (the same
    // cells, plain subscripts: a change of basis such as
    // `T[i][i + j]` -> `T[i][j]` instead of `T[i][(i + j) % N]`).
    let best_wraps = chooser.best.as_ref().is_some_and(|b| {
        b.certified
            .layout()
            .is_some_and(|l| cost::adds_modulo(l, accesses))
    });
    let beats = |c: i64| c < current || (c == current && best_wraps);
    // A storage for every value may still replace a smaller one
    // pinned to the known values (see `FIXED_SIZE_GAIN`).
    let pin_rule = !facts.options.min_memory;
    let best_pinned = pin_rule && chooser.best.as_ref().is_some_and(|b| b.is_pinned());
    if chooser.best.is_some()
        && p.cells
            .is_some_and(|c| !beats(c) && (!best_pinned || pays_for_pin(current, c)))
    {
        return false;
    }
    // Nor is a pinned one that could not pay for its pin.
    if pin_rule
        && chooser.best.as_ref().is_some_and(|b| !b.is_pinned())
        && p.is_pinned()
        && p.cells.is_some_and(|c| !pays_for_pin(c, current))
    {
        return false;
    }
    let certified = match facts.certify(&p, budget) {
        Ok(c) => c,
        Err(why) => {
            // A packed triangle is a guess at a shape (every pair
            // of square dimensions, each triangle): that the
            // accesses leave it says nothing of why the array
            // keeps its layout.
            if !matches!(p.proof, Proof::Packed(..)) {
                chooser.failure = Kept::NotCertified(why);
            }
            return false;
        }
    };
    let cells = certified.layout().and_then(|l| facts.cells_of(l));
    let plain = certified
        .layout()
        .is_some_and(|l| !cost::adds_modulo(l, accesses));
    let for_values = matches!(certified.certificate(), Certificate::ForValues(_));
    if let (Some(best), Some(c)) = (&chooser.best, cells)
        && pin_rule
        && for_values != best.is_pinned()
    {
        // One pinned to the known values, one for every value: the
        // pinned one must save `FIXED_SIZE_GAIN` of the other.
        let (pinned, every) = if for_values {
            (c, current)
        } else {
            (current, c)
        };
        if pays_for_pin(pinned, every) != for_values {
            return false;
        }
    } else if chooser.best.is_some()
        && cells.is_none_or(|c| c > current || (c == current && !(best_wraps && plain)))
    {
        return false;
    }
    // Not smaller than the declaration: not worth a report line
    // (successive modulo still lists its size, as the baseline).
    if p.method == Method::LiftedLattice
        && cells.is_some_and(|c| facts.original_cells.is_some_and(|o| c >= o))
    {
        return false;
    }
    if !lists_own_sizes
        && let Some(cells) = cells
        && !chooser
            .sizes
            .iter()
            .any(|s| s.method == p.method && s.cells == cells)
    {
        chooser.sizes.push(StrategySize {
            method: p.method,
            cells,
            proven_optimal: None,
            time: p.time,
        });
    }
    // The cost rule: a `%` on the accesses must pay for itself.
    if !facts.options.min_memory
        && for_values
        && let Some(grown) = &chooser.grown
        && cells.is_some_and(|c| c >= grown.new)
    {
        return false;
    }
    if !facts.options.min_memory
        && let Some(refusal) = certified.layout().and_then(|l| {
            cost::refusal(
                l,
                accesses,
                &facts.extent_affs,
                (facts.original_cells, cells),
                (&facts.values, facts.values_known),
                !for_values,
            )
        })
    {
        if refusal.as_sizes_grow && chooser.grown.as_ref().is_none_or(|r| refusal.new < r.new) {
            chooser.grown = Some(refusal.clone());
        }
        if chooser.refused.as_ref().is_none_or(|r| refusal.new < r.new) {
            chooser.refused = Some(refusal);
        }
        return false;
    }
    // Without `--pin-sizes`, a storage for some values only is not taken:
    // the smallest is kept to say what the pin would have saved. Without
    // parameters (literal sizes) there is nothing to pin.
    if !facts.options.pin_sizes
        && !facts.scop.params.is_empty()
        && !matches!(certified.certificate(), Certificate::ForAllParameters)
    {
        if let Some(c) = cells
            && chooser.pin_offer.as_ref().is_none_or(|o| c < o.cells)
            && let Some(mapping) = certified.mapping_text()
        {
            chooser.pin_offer = Some(PinOffer {
                mapping,
                cells: c,
                valid: valid_text(facts.scop, certified.certificate()),
            });
            if chooser.best.is_none() {
                chooser.failure = Kept::PinNotAsked;
            }
        }
        return false;
    }
    // The first proposal taken ends the strategy's list (its best
    // first), unless its layout wraps: a later one of the same
    // cells may read without `%` (a shifted change of basis).
    let wraps = certified
        .layout()
        .is_some_and(|l| cost::adds_modulo(l, accesses));
    // A pinned storage keeps the one for every value it beat.
    let every_value = if for_values {
        chooser.best.take().and_then(|b| {
            if b.is_pinned() {
                b.every_value
            } else {
                Some(EveryValue {
                    mapping: b.certified.mapping_text()?,
                    cells: b.cells?,
                    method: b.method,
                })
            }
        })
    } else {
        None
    };
    chooser.best = Some(Choice {
        certified,
        cells,
        method: p.method,
        every_value,
    });
    !wraps
}

/// Where a storage of `certificate` is valid, for the reports:
/// `W = 256, H = 192 only`, `N >= 4`.
fn valid_text(scop: &crate::ir::Scop, certificate: &Certificate) -> String {
    let names = scop.params.iter().map(|p| p.name.as_str());
    match certificate {
        Certificate::ForValues(values) => {
            let pairs: Vec<String> = names
                .zip(values)
                .map(|(p, v)| format!("{p} = {v}"))
                .collect();
            format!("at {} only", pairs.join(", "))
        }
        Certificate::FromValues(from) => {
            let pairs: Vec<String> = names
                .zip(from)
                .map(|(p, v)| format!("{p} >= {v}"))
                .collect();
            format!("for {} only", pairs.join(", "))
        }
        Certificate::ForAllParameters => "for every value".into(),
    }
}

/// The choice once every strategy ran: the best storage when it is
/// smaller than the declaration (for every value, at probe values), else
/// why the array keeps its layout.
fn verdict(facts: &ArrayFacts<'_>, chooser: Chooser, budget: &mut Budget) -> Result<Choice, Kept> {
    match chooser.best {
        Some(best) if !facts.values_known => {
            // Probe values: the sizes compared above are only a guide; the
            // choice must never be larger than the declaration, for any
            // value, and its size is a formula (no number to record).
            let fits = best
                .certified
                .layout()
                .is_some_and(|l| layout_fits(l, &facts.extent_affs, &facts.scop.context, budget));
            let smaller = best
                .cells
                .is_some_and(|new| facts.original_cells.is_none_or(|old| new < old));
            if fits && smaller {
                Ok(Choice {
                    cells: None,
                    ..best
                })
            } else {
                Err(Kept::NoSmallerForEveryValue)
            }
        }
        Some(Choice {
            cells: Some(new), ..
        }) if facts.original_cells.is_some_and(|old| new >= old) => Err(Kept::NoSmaller {
            cells: facts.original_cells.unwrap_or_default(),
        }),
        Some(best) => Ok(best),
        None => Err(match chooser.refused {
            Some(r) => Kept::NotWorthAModulo {
                original: r.original,
                new: r.new,
                at_probe: r.at_probe,
                as_sizes_grow: r.as_sizes_grow,
            },
            None => chooser.failure,
        }),
    }
}
