//! The C text of merged buffers (`pipeline::merged` decides, this prints):
//! the declaration of a buffer, the condition selecting a statement part
//! or a source piece, the home of a value (`buf[s0][s1]`) and the target of
//! a write whose parts live in different places.
//!
//! The subscripts are [`level_text`](super::text::level_text)'s: a residue
//! of a merged buffer is spelt `(row) % m` (the row always parenthesised),
//! while the per-array forms parenthesise only where C's precedence needs
//! it (`i % 2`); both go through [`residue`](super::text::residue).

use super::text::{choose, extent_text, product_text, region_text, subscripted};
use crate::mapping::modular::ParamAffine;
use crate::poly::BasicSet;

/// The condition that always holds (a statement left whole, a region that
/// covers every iteration).
pub(crate) const ALWAYS: &str = "1";

/// The condition that never holds (no piece of a region is reached).
pub(crate) const NEVER: &str = "0";

/// The subscript of a buffer of one cell.
pub(crate) const ONE_CELL: &str = "0";

/// The declaration of buffer `name` with elements of type `elem`, one
/// dimension per extent (its C text, and whether it is guarded to at least
/// 1: see [`extent_text`]); a buffer without an extent is an array of one
/// cell (`double buf[1];`), so that every access is an lvalue of the same
/// kind.
pub(crate) fn buffer_declaration(elem: &str, name: &str, extents: &[(String, bool)]) -> String {
    let mut text = format!("{elem} {name}");
    for (extent, guarded) in extents {
        text.push_str(&extent_text(extent, *guarded));
    }
    if extents.is_empty() {
        text.push_str("[1]");
    }
    text.push(';');
    text
}

/// Every declaration on one line, in order.
pub(crate) fn declarations_line(declarations: &[String]) -> String {
    declarations.join(" ")
}

/// A sum of arrays' cells as C text in the parameters, each array the
/// product of its extents (`2 * (N + 2) + N`: see [`product_text`]).
pub(crate) fn sizes_text(params: &[String], arrays: &[&[ParamAffine]]) -> String {
    arrays
        .iter()
        .map(|extents| product_text(params, extents.iter().collect()))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The condition that a point of `[params | iters]` (`names` the columns'
/// C names) lies in one of `kept`, the pieces of a region kept for the
/// iterations the text is for: [`NEVER`] without a piece, [`ALWAYS`] when a
/// piece has no constraint left, else the pieces' conjunctions joined by
/// `||` (each parenthesised when there are several).
pub(crate) fn region_condition(kept: &[BasicSet], names: &[String]) -> String {
    let mut cond = Vec::new();
    for piece in kept {
        let text = region_text(piece, names);
        if text == ALWAYS {
            return ALWAYS.into();
        }
        cond.push(if kept.len() == 1 {
            text
        } else {
            format!("({text})")
        });
    }
    if cond.is_empty() {
        NEVER.to_string()
    } else {
        cond.join(" || ")
    }
}

/// The text of a home: buffer `buffer` of `buffer_names` with its
/// subscripts.
pub(crate) fn home_text(
    buffer_names: &[String],
    (buffer, subscripts): &(usize, Vec<String>),
) -> String {
    subscripted(&buffer_names[*buffer], subscripts)
}

/// The target of a write whose parts (selected by `conds`, see
/// [`choose`]) have the homes `per_part`: the home when they all agree; in
/// one buffer, a conditional in each subscript that differs
/// (`buf[(c) ? i : j][k]`); in several buffers, the chosen address
/// dereferenced (`*((c) ? &buf0[i] : &buf1[j])`).
pub(crate) fn write_target(
    buffer_names: &[String],
    per_part: &[(usize, Vec<String>)],
    conds: &[String],
) -> String {
    if per_part.iter().all(|p| *p == per_part[0]) {
        home_text(buffer_names, &per_part[0])
    } else if per_part.iter().all(|p| p.0 == per_part[0].0) {
        let subscripts: Vec<String> = (0..per_part[0].1.len())
            .map(|l| {
                let ts: Vec<String> = per_part.iter().map(|p| p.1[l].clone()).collect();
                choose(conds, &ts)
            })
            .collect();
        subscripted(&buffer_names[per_part[0].0], &subscripts)
    } else {
        let ts: Vec<String> = per_part
            .iter()
            .map(|p| format!("&{}", home_text(buffer_names, p)))
            .collect();
        format!("*{}", choose(conds, &ts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["b0".to_string(), "b1".to_string()]
    }

    /// A buffer of one cell is an array of one element; guarded extents
    /// are at least 1.
    #[test]
    fn declarations_print_each_extent() {
        assert_eq!(buffer_declaration("double", "buf", &[]), "double buf[1];");
        assert_eq!(
            buffer_declaration(
                "int",
                "buf",
                &[("n + 1".to_string(), true), ("2".to_string(), false)]
            ),
            "int buf[n + 1 > 1 ? n + 1 : 1][2];"
        );
        assert_eq!(
            declarations_line(&["int a[1];".to_string(), "int b[2];".to_string()]),
            "int a[1]; int b[2];"
        );
    }

    /// A write's parts in one home print it; in one buffer, the differing
    /// subscripts choose; in several, the address does.
    #[test]
    fn write_targets_choose_where_the_parts_differ() {
        let conds = vec!["i < 4".to_string(), "1".to_string()];
        let same = vec![(0, vec!["i".to_string()]), (0, vec!["i".to_string()])];
        assert_eq!(write_target(&names(), &same, &conds), "b0[i]");
        let one = vec![
            (0, vec!["i".to_string(), "0".to_string()]),
            (0, vec!["j".to_string(), "0".to_string()]),
        ];
        assert_eq!(
            write_target(&names(), &one, &conds),
            "b0[((i < 4) ? i : j)][0]"
        );
        let two = vec![(0, vec!["i".to_string()]), (1, vec!["i".to_string()])];
        assert_eq!(
            write_target(&names(), &two, &conds),
            "*((i < 4) ? &b0[i] : &b1[i])"
        );
    }

    /// No piece never holds; an unconstrained piece always does.
    #[test]
    fn region_conditions_of_no_piece_and_of_everything() {
        use crate::poly::space::{Space, Tuple};
        let names = vec!["i".to_string()];
        assert_eq!(region_condition(&[], &names), NEVER);
        let space = Space::set(Vec::new(), Tuple::new(None, &["i"]));
        let all = BasicSet::universe(space.clone());
        let mut low = BasicSet::universe(space.clone());
        low.ineqs.push(vec![1, -2]);
        let mut high = BasicSet::universe(space);
        high.ineqs.push(vec![-1, 9]);
        assert_eq!(region_condition(&[low.clone()], &names), "i - 2 >= 0");
        assert_eq!(
            region_condition(&[low.clone(), high], &names),
            "(i - 2 >= 0) || (-i + 9 >= 0)"
        );
        assert_eq!(region_condition(&[low, all], &names), ALWAYS);
    }
}
