//! Pins: a storage certified for the known parameter values only must not
//! silently survive a change of those values. After its declaration, a
//! `_Static_assert` (C11) checks the values, so that a rebuild with other
//! values fails to compile instead of computing garbage. Only parameters
//! that are `#define`s of the file can be pinned.

use crate::codegen::Edit;
use crate::ir::{Program, Scop};
use crate::mapping::Certificate;

use super::record::{ArrayDecision, ArrayOutcome};

/// Whether every parameter of `scop` is an object-like `#define` of the
/// file, so that a `_Static_assert` can pin its value.
pub(super) fn params_are_macros(program: &Program, scop: &Scop) -> bool {
    scop.params.iter().all(|p| {
        program
            .macros
            .objects
            .iter()
            .any(|o| o.name == p.name && o.span.is_some())
    })
}

/// The parameters whose known value the model of `scop` uses, as
/// `` `N`, `M` ``.
pub(super) fn value_used_names(scop: &Scop) -> String {
    scop.params
        .iter()
        .filter(|p| p.value_used)
        .map(|p| format!("`{}`", p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `P1 == v1 && P2 == v2 ...` for the parameters of `scop` (a macro whose
/// body is not one operand is parenthesised: `(LAST) == 15`, since
/// `N-1 == 15` is `N - (1 == 15)`, true for every `N`).
pub(super) fn values_condition(scop: &Scop, values: &[i64]) -> String {
    scop.param_texts()
        .iter()
        .zip(values)
        .map(|(p, v)| format!("{p} == {v}"))
        .collect::<Vec<_>>()
        .join(" && ")
}

/// `P1 >= v1 && P2 >= v2 ...` (see [`values_condition`]) for a storage
/// certified from these values on.
fn from_condition(scop: &Scop, from: &[i64]) -> String {
    scop.param_texts()
        .iter()
        .zip(from)
        .map(|(p, v)| format!("{p} >= {v}"))
        .collect::<Vec<_>>()
        .join(" && ")
}

/// A `_Static_assert(condition, "polyfold: the {what} is certified for
/// these parameter values only")` on its own line after byte `end` (the end
/// of a declaration), indented like that line.
pub(super) fn static_assert_after(
    program: &Program,
    end: usize,
    condition: &str,
    what: &str,
) -> Edit {
    let line_start = program.source[..end].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = program.source[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    Edit::insert(
        end,
        format!("\n{indent}{}", static_assert_text(condition, what)),
    )
}

/// `_Static_assert(condition, "polyfold: the {what} is certified for these
/// parameter values only");`
pub(super) fn static_assert_text(condition: &str, what: &str) -> String {
    format!(
        "_Static_assert({condition}, \"polyfold: the {what} is certified for these parameter values only\");"
    )
}

/// A mapping certified only for the known parameter values must not
/// silently survive a change of those values: after the declaration of each
/// such array, a `_Static_assert` pins the values (C11), so that a rebuild
/// with other values fails to compile instead of computing garbage.
pub(super) fn static_assertions(program: &Program, decisions: &[ArrayDecision]) -> Vec<Edit> {
    let mut by_decl: Vec<(usize, Vec<String>, String)> = Vec::new();
    for d in decisions {
        let ArrayOutcome::Remapped { certified, .. } = &d.outcome else {
            continue;
        };
        let scop = &program.scops[d.scop];
        let condition = match certified.certificate() {
            Certificate::ForValues(values) => values_condition(scop, values),
            Certificate::FromValues(from) => from_condition(scop, from),
            Certificate::ForAllParameters => continue,
        };
        let Some(decl) = scop.array(d.array).decl_span.clone() else {
            continue;
        };
        match by_decl.iter_mut().find(|(end, _, _)| *end == decl.end) {
            Some((_, names, c)) => {
                names.push(d.name.clone());
                if *c != condition && !c.split(" && ").any(|part| part == condition) {
                    *c = format!("{c} && {condition}");
                }
            }
            None => by_decl.push((decl.end, vec![d.name.clone()], condition)),
        }
    }
    by_decl
        .into_iter()
        .map(|(end, names, condition)| {
            static_assert_after(
                program,
                end,
                &condition,
                &format!("storage of {}", names.join(", ")),
            )
        })
        .collect()
}
