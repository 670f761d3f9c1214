//! Rotating indices: strength reduction of the `%` that a folded array's
//! accesses compute in a loop.
//!
//! An access `y[(2 * i + k - 1) % (2 * N - 3)]` in the loop of `i` divides
//! on every iteration. Its argument grows by 2 from one iteration to the
//! next, so a variable started at the residue before the loop and
//! advanced at the end of its body holds the same residue without a
//! division:
//!
//! ```c
//! y_r0 = (k - 1) % (2 * N - 3);
//! for (i = 0; i <= k - 1; i++) {
//!     sum = sum + r[k - i - 1] * y[y_r0];
//!     y_r0 = y_r0 + 2 < 2 * N - 3 ? y_r0 + 2 : y_r0 + 2 - (2 * N - 3);
//! }
//! ```
//!
//! The layout proves what makes this the same location
//! ([`crate::mapping::layout::Rotation`]); this module only finds the
//! loop in the syntax, names the variables, and prints their starts (the
//! argument at the iterator's first value, read from the header), their
//! updates, the accesses' new subscripts and the declarations;
//! [`super::placement`] places the starts and updates (before the loop and
//! at the end of its body, or in the header — `for (i = 0, y_r0 = ...;
//! ...; i++, y_r0 = ...)` — where the body may `continue` or the text
//! allows no line there). Either way the update runs once per iteration,
//! whatever the body's conditions; the variable is private to the loop's
//! iterations (a parallel loop, or a variable shared by a parallel loop
//! around it, is never rotated).

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use crate::ir::{ArrayId, ForHeader, Scop};
use crate::mapping::layout::ArrayLayout;
use crate::mapping::modular::ParamAffine;
use crate::util::c_text::{Prec, affine_text, operand};

use super::placement::{LoopSite, Placed, loop_sites};
use super::text::{exact_subscripts, form_text, param_text};

/// The rotating indices of one SCoP's remapped arrays.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rotations {
    /// `(array, statement, position, dimension)` of an access -> the
    /// variable that holds its residue in that dimension.
    names: HashMap<(ArrayId, usize, usize, usize), String>,
    /// Where every variable starts and advances, for [`placement_edits`](super::placement::placement_edits)
    /// (with the rotating scalars' shifts, by the caller).
    pub placed: Vec<Placed>,
    /// Per array, the variables declared after its declaration (those of
    /// loops that do not declare their iterator), with their type.
    pub declarations: Vec<(ArrayId, Vec<String>)>,
    /// Per variable: its array, and its loop's iterator and header start.
    loops: Vec<(ArrayId, String, usize)>,
}

impl Rotations {
    /// Whether `name` is one of the variables.
    pub(crate) fn is_variable(&self, name: &str) -> bool {
        self.names.values().any(|n| n == name)
    }

    /// The variable holding the residue of the access `position` of
    /// statement `si` to `array` in dimension `dim`, if it is rotated.
    pub fn name(&self, array: ArrayId, si: usize, position: usize, dim: usize) -> Option<&str> {
        self.names
            .get(&(array, si, position, dim))
            .map(String::as_str)
    }

    /// The loops whose headers advance rotating indices of `array`, in the
    /// order of the text: iterator, line of the header (1-based, in
    /// `source`) and how many indices.
    pub(crate) fn loops_of_array(
        &self,
        source: &str,
        array: ArrayId,
    ) -> Vec<(String, usize, usize)> {
        let mut out: Vec<(String, usize, usize)> = Vec::new();
        for (a, iterator, at) in &self.loops {
            if *a != array {
                continue;
            }
            let line = source.get(..*at).map_or(0, |t| t.matches('\n').count()) + 1;
            match out.iter_mut().find(|(i, l, _)| i == iterator && *l == line) {
                Some((_, _, n)) => *n += 1,
                None => out.push((iterator.clone(), line, 1)),
            }
        }
        out
    }
}

/// One rotating variable: its array, where its loop's header is, what
/// starts it, and its step and modulus (as text, and minus one).
struct Variable {
    array: ArrayId,
    header: ForHeader,
    /// The loop (in [`loop_sites`]'s list).
    site: usize,
    init: String,
    /// The start printed without the iterator (its first value put in).
    start: Option<String>,
    delta: i64,
    modulus: (String, String),
}

/// The rotating indices of the arrays `arrays` of `scop` (each with its
/// certified layout), for the accesses in innermost loops; the statements
/// `removed` (deleted copies) get none.
/// Accesses that share a loop, an argument and a modulus share a
/// variable. Names are `<array>_r<k>`, skipping the names in `taken`
/// (the identifiers of the file, see [`source_identifiers`], and the
/// variables of the function's SCoPs before), to which they are added.
pub(crate) fn plan_rotations(
    source: &str,
    scop: &Scop,
    (arrays, removed): (&[(ArrayId, &ArrayLayout)], &[usize]),
    taken: &mut BTreeSet<String>,
) -> Rotations {
    let (sites, loops) = loop_sites(scop);
    let params = scop.param_texts();
    let n_param = scop.params.len();
    let mut variables: Vec<Variable> = Vec::new();
    // The accesses of each variable (by index in `variables`).
    let mut uses: Vec<((ArrayId, usize, usize, usize), usize)> = Vec::new();
    // (loop span start, coeffs, constant, modulus) -> index in `variables`.
    let mut shared: HashMap<(usize, Vec<i64>, i64, ParamAffine), usize> = HashMap::new();
    for (array, layout) in arrays {
        let decl = scop.array(*array);
        for (dim, layout_dim) in layout.dims.iter().enumerate() {
            let Some((modulus, arguments)) = layout_dim.residues() else {
                continue;
            };
            // `% 2^k` of a non-negative argument is a mask: as cheap as
            // the variable's update, and it reads better.
            if modulus.is_constant()
                && modulus.constant > 0
                && modulus.constant & (modulus.constant - 1) == 0
            {
                continue;
            }
            for a in arguments {
                let (Some(rotation), true) = (&a.rotation, a.wraps) else {
                    continue;
                };
                let (si, position) = a.access;
                if removed.contains(&si) {
                    continue;
                }
                // Only where the `%` runs in an innermost loop: elsewhere
                // it runs once per iteration of a loop around a loop.
                let Some(stmt) = scop.stmts.get(si).filter(|_| scop.in_innermost_loop(si)) else {
                    continue;
                };
                let Some(access) = stmt.accesses().nth(position) else {
                    continue;
                };
                if access.array != *array || !exact_subscripts(source, scop, stmt, access) {
                    continue;
                }
                let Some(around) = loops.get(&stmt.id) else {
                    continue;
                };
                if around.len() != stmt.loop_depth() {
                    continue;
                }
                let site = around[rotation.depth];
                let (span, Some(header)) = (&sites[site].span, &sites[site].header) else {
                    continue;
                };
                let coeff = a.coeffs.get(n_param + rotation.depth).copied().unwrap_or(0);
                if header.iterator != stmt.iterators[rotation.depth]
                    || header.step.checked_mul(coeff) != Some(rotation.delta)
                {
                    continue;
                }
                // A variable declared outside the loop is shared by the
                // iterations of a parallel loop around it.
                let outer_parallel = (0..rotation.depth).any(|k| stmt.parallel_mark(k).is_some());
                let no_declaration = decl.keeps_declarator() || decl.decl_span.is_none();
                if header.declares.is_none() && (outer_parallel || no_declaration) {
                    continue;
                }
                let key = (span.start, a.coeffs.clone(), a.constant, modulus.clone());
                let index = match shared.get(&key) {
                    Some(k) => *k,
                    None => {
                        let b = param_text(modulus, &params);
                        let compound = |n: &str| scop.is_compound(n);
                        let arg = form_text(source, scop, stmt, access, a);
                        let residue = format!(
                            "{} % {}",
                            operand(&arg, Prec::Postfix, &compound),
                            operand(&b, Prec::Postfix, &compound)
                        );
                        let init = if rotation.starts_non_negative {
                            residue
                        } else {
                            format!(
                                "({residue} + {}) % {}",
                                operand(&b, Prec::Multiplicative, &compound),
                                operand(&b, Prec::Postfix, &compound)
                            )
                        };
                        let Ok(b_minus_one) = modulus.plus(-1) else {
                            continue;
                        };
                        // Its start and its update compute nothing the
                        // original could not (issue 45); else the access
                        // keeps its `%`.
                        let update = update_text(
                            "polyfold_r",
                            rotation.delta,
                            (&b, &param_text(&b_minus_one, &params)),
                            &compound,
                        );
                        if !header_values_fit(
                            (source, scop),
                            (si, rotation.depth),
                            (&init, &update),
                            modulus,
                        ) {
                            continue;
                        }
                        let start = start_text(
                            (source, scop, stmt, access),
                            (a, rotation, &sites[site]),
                            (&b, modulus, &compound),
                        )
                        .filter(|start| {
                            header_values_fit(
                                (source, scop),
                                (si, rotation.depth),
                                (start, &update),
                                modulus,
                            )
                        });
                        variables.push(Variable {
                            array: *array,
                            header: header.clone(),
                            site,
                            init,
                            start,
                            delta: rotation.delta,
                            modulus: (b, param_text(&b_minus_one, &params)),
                        });
                        shared.insert(key, variables.len() - 1);
                        variables.len() - 1
                    }
                };
                uses.push(((*array, si, position, dim), index));
            }
        }
    }
    // Named `<array>_r<k>` in the order of their loops in the text, then
    // of their accesses; in a loop where several arrays share an index,
    // the loop's indices are named after its iterator (`i_r<k>`), not
    // after one of the arrays.
    let mut users: Vec<BTreeSet<ArrayId>> = vec![BTreeSet::new(); variables.len()];
    for ((array, ..), k) in &uses {
        users[*k].insert(*array);
    }
    let mut order: Vec<usize> = (0..variables.len()).collect();
    order.sort_by_key(|k| (variables[*k].header.init_end, *k));
    let mut names = vec![String::new(); variables.len()];
    let mut out = Rotations::default();
    for k in order.iter().copied() {
        let v = &variables[k];
        out.loops
            .push((v.array, v.header.iterator.clone(), v.header.init_end));
        let shared_loop = (0..variables.len())
            .any(|u| users[u].len() > 1 && variables[u].header.init_end == v.header.init_end);
        let base = if shared_loop {
            &v.header.iterator
        } else {
            &scop.array(v.array).name
        };
        names[k] = (0..)
            .map(|n| format!("{base}_r{n}"))
            .find(|n| taken.insert(n.clone()))
            .expect("some name is free");
        if v.header.declares.is_none() {
            match out.declarations.iter_mut().find(|(a, _)| *a == v.array) {
                Some((_, list)) => list.push(names[k].clone()),
                None => out.declarations.push((v.array, vec![names[k].clone()])),
            }
        }
    }
    for (key, k) in uses {
        out.names.insert(key, names[k].clone());
    }
    // Started before the loop and advanced at the end of its body, or in
    // its header.
    out.placed = placed_indices(scop, &variables, &names, &order);
    out
}

/// The indices `variables` named `names`, in the order `order`, as
/// [`placement_edits`](super::placement::placement_edits) places them.
fn placed_indices(
    scop: &Scop,
    variables: &[Variable],
    names: &[String],
    order: &[usize],
) -> Vec<Placed> {
    let compound = |n: &str| scop.is_compound(n);
    order
        .iter()
        .map(|k| {
            let (v, name) = (&variables[*k], &names[*k]);
            Placed {
                site: v.site,
                name: name.clone(),
                header_start: Some(format!("{name} = {}", v.init)),
                start: v.start.clone(),
                update: update_text(name, v.delta, (&v.modulus.0, &v.modulus.1), &compound),
                declares: v.header.declares.clone(),
            }
        })
        .collect()
}

/// A modulus: its text, its form, and which names are compound macros.
type Modulus<'a> = (&'a str, &'a ParamAffine, &'a dyn Fn(&str) -> bool);

/// The start of the rotating index of argument `a` (of `access` in
/// `stmt`) printed without the loop's iterator: the loop's first value,
/// read from its header (`i = <n>`, `i = <name>`, `i = <name> ± <n>`, with
/// `<name>` a size or an outer iterator), put in the argument's form. The
/// same value as the header's start, which the header evaluates right after
/// setting the iterator; `None` for another first value.
fn start_text(
    (source, scop, stmt, access): (&str, &Scop, &crate::ir::Stmt, &crate::ir::Access),
    (a, rotation, site): (
        &crate::mapping::layout::Argument,
        &crate::mapping::layout::Rotation,
        &LoopSite,
    ),
    (b, modulus, compound): Modulus,
) -> Option<String> {
    let header = site.header.as_ref()?;
    let np = scop.params.len();
    let head = source.get(site.span.start..header.init_end)?;
    let init = &head[head.find('(')? + 1..];
    let (_, first) = init.split_once('=')?;
    let toks = crate::util::c_text::tokens(first);
    let text = |r: &Range<usize>| &first[r.clone()];
    use crate::util::c_text::TokenKind;
    // (column of a name, constant)
    let column = |name: &str| -> Option<usize> {
        if let Some(k) = scop.params.iter().position(|p| p.name == name) {
            return Some(k);
        }
        stmt.iterators[..rotation.depth]
            .iter()
            .position(|i| i == name)
            .map(|k| np + k)
    };
    let (col, constant) = match toks.as_slice() {
        [(_, TokenKind::Int(n))] => (None, *n),
        [(m, TokenKind::Punct), (_, TokenKind::Int(n))] if text(m) == "-" => {
            (None, n.checked_neg()?)
        }
        [(r, TokenKind::Ident)] => (Some(column(text(r))?), 0),
        [
            (r, TokenKind::Ident),
            (op, TokenKind::Punct),
            (_, TokenKind::Int(n)),
        ] => {
            let n = match text(op) {
                "+" => *n,
                "-" => n.checked_neg()?,
                _ => return None,
            };
            (Some(column(text(r))?), n)
        }
        _ => return None,
    };
    let it = np + rotation.depth;
    let c = *a.coeffs.get(it)?;
    let mut at_first = a.clone();
    at_first.coeffs[it] = 0;
    if let Some(col) = col {
        at_first.coeffs[col] = at_first.coeffs[col].checked_add(c)?;
    }
    at_first.constant = a.constant.checked_add(c.checked_mul(constant)?)?;
    // A number when the argument and the modulus are numbers, 0 when the
    // argument is the modulus.
    let iterators_free = at_first.coeffs[np..].iter().all(|c| *c == 0);
    if iterators_free
        && at_first.coeffs[..np].iter().all(|c| *c == 0)
        && let Ok(b) = b.parse::<i64>()
        && b > 0
    {
        return Some(at_first.constant.rem_euclid(b).to_string());
    }
    if iterators_free
        && modulus.den == 1
        && at_first.coeffs[..np] == modulus.coeffs[..]
        && at_first.constant == modulus.constant
    {
        return Some("0".to_string());
    }
    let arg = form_text(source, scop, stmt, access, &at_first);
    let residue = format!(
        "{} % {}",
        operand(&arg, Prec::Postfix, compound),
        operand(b, Prec::Postfix, compound)
    );
    Some(if rotation.starts_non_negative {
        residue
    } else {
        format!(
            "({residue} + {}) % {}",
            operand(b, Prec::Multiplicative, compound),
            operand(b, Prec::Postfix, compound)
        )
    })
}

/// Whether the start `init` and the update `update` (of the variable
/// `polyfold_r`) of a rotating index in the header of the loop at `depth`
/// around statement `si` compute only representable values (see
/// [`super::overflow`]): the start where the header starts the loop (its
/// iterator at its first value, whether the loop runs or not), the update
/// with the variable in `[0, b - 1]`.
fn header_values_fit(
    (source, scop): (&str, &Scop),
    (si, depth): (usize, usize),
    (init, update): (&str, &str),
    modulus: &ParamAffine,
) -> bool {
    use super::overflow::{self, text::Name};
    let stmt = &scop.stmts[si];
    let np = scop.params.len();
    let n = stmt.iterators.len();
    let facts = overflow::scop_facts(source, scop);
    let Some(frame) = overflow::header_frame(scop, &facts, si, depth) else {
        return false;
    };
    let param_col = |name: &str| scop.params.iter().position(|p| p.name == name);
    let column = |name: &str| -> Option<Name> {
        if let Some(k) = param_col(name) {
            return Some(Name::Column(k));
        }
        stmt.iterators[..=depth]
            .iter()
            .position(|i| i == name)
            .map(|k| Name::Column(np + k))
    };
    if overflow::text::expression_fits(&frame, init, &column).is_err() {
        return false;
    }
    if modulus.coeffs.len() != np {
        return false;
    }
    let mut high = vec![0i64; np + n + 1];
    if modulus.den == 1 {
        high[..np].copy_from_slice(&modulus.coeffs);
        high[np + n] = modulus.constant - 1;
    } else {
        // A quasi-affine modulus: its value at the known sizes.
        let Ok(values) = scop.param_values() else {
            return false;
        };
        let Ok(b) = modulus.eval(&values) else {
            return false;
        };
        high[np + n] = b - 1;
    }
    let low = vec![0i64; np + n + 1];
    let ty = overflow::IntType::Int;
    let names = |name: &str| {
        if name == "polyfold_r" {
            Some(Name::Bounded {
                low: low.clone(),
                high: high.clone(),
                ty: ty.clone(),
            })
        } else {
            column(name)
        }
    };
    // `r = <value>`: the value.
    let Some((_, value)) = update.split_once(" = ") else {
        return false;
    };
    overflow::text::expression_fits(&frame, value, &names).is_ok()
}

/// Every identifier of the C text `source` (comments and the contents of
/// string and character literals left out; preprocessor lines included).
pub(crate) fn source_identifiers(source: &str) -> BTreeSet<String> {
    crate::util::c_text::identifier_tokens(source, true)
        .into_iter()
        .map(|(_, name)| name)
        .collect()
}

/// `r = r + d < b ? r + d : r + d - b` (for `d > 0`; `r = r >= -d ? r + d
/// : r + d + b` for `d < 0`), with the simpler forms of a step of one
/// (`r = r + 1 < b ? r + 1 : 0`, `r = r > 0 ? r - 1 : b - 1`, with
/// `b_minus_one` the text of `b - 1`).
fn update_text(
    r: &str,
    delta: i64,
    (b, b_minus_one): (&str, &str),
    compound: &dyn Fn(&str) -> bool,
) -> String {
    let relational = operand(b, Prec::Shift, compound);
    let subtracted = operand(b, Prec::Multiplicative, compound);
    let mag = delta.unsigned_abs();
    // A number modulus folds into the step: `r - 2 + 72` is `r + 70`.
    let folded = b
        .parse::<i64>()
        .ok()
        .and_then(|b| b.checked_sub(delta.abs()));
    if delta > 0 {
        let wrapped = match folded {
            _ if delta == 1 => "0".to_string(),
            Some(k) => affine_text(&[(1, r.to_string())], -k),
            None => format!("{r} + {mag} - {subtracted}"),
        };
        format!("{r} = {r} + {mag} < {relational} ? {r} + {mag} : {wrapped}")
    } else {
        let wrapped = match folded {
            _ if delta == -1 => b_minus_one.to_string(),
            Some(k) => affine_text(&[(1, r.to_string())], k),
            None => format!("{r} - {mag} + {subtracted}"),
        };
        if delta == -1 {
            format!("{r} = {r} > 0 ? {r} - 1 : {wrapped}")
        } else {
            format!("{r} = {r} >= {mag} ? {r} - {mag} : {wrapped}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{source_identifiers, update_text};

    #[test]
    fn identifiers_of_a_source_skip_comments_and_literals() {
        let text = "int y_r0; /* y_r1 */ // y_r2\nchar *s = \"y_r3 \\\" y_r4\"; char c = 'x';\n#define y_r5 1e5f\n";
        let names = source_identifiers(text);
        let expect: Vec<&str> = vec!["c", "char", "define", "int", "s", "y_r0", "y_r5"];
        assert_eq!(names.iter().map(String::as_str).collect::<Vec<_>>(), expect);
    }

    /// The printed update, evaluated for every start in `0..b`, advances
    /// the residue by `delta` modulo `b` (checked against `rem_euclid`).
    #[test]
    fn updates_advance_the_residue() {
        let no_macros = |_: &str| false;
        for b in 1..12i64 {
            for delta in -(b - 1)..b {
                if delta == 0 {
                    continue;
                }
                let text = update_text(
                    "r",
                    delta,
                    (&b.to_string(), &(b - 1).to_string()),
                    &no_macros,
                );
                for r in 0..b {
                    let got = eval_update(&text, r);
                    assert_eq!(got, (r + delta).rem_euclid(b), "{text} at r = {r}");
                }
            }
        }
        assert_eq!(
            update_text("y_r0", 2, ("2 * N - 3", "2 * N - 4"), &no_macros),
            "y_r0 = y_r0 + 2 < 2 * N - 3 ? y_r0 + 2 : y_r0 + 2 - (2 * N - 3)"
        );
        assert_eq!(
            update_text("y_r1", -1, ("N - 1", "N - 2"), &no_macros),
            "y_r1 = y_r1 > 0 ? y_r1 - 1 : N - 2"
        );
    }

    /// Evaluates `r = r OP k CMP b ? X : Y` printed by `update_text` with
    /// numeric `b`, by hand (the forms are fixed).
    fn eval_update(text: &str, r: i64) -> i64 {
        let rhs = text.split_once(" = ").expect("assignment").1;
        let (cond, rest) = rhs.split_once(" ? ").expect("conditional");
        let (then, els) = rest.split_once(" : ").expect("branches");
        let value = |e: &str| -> i64 {
            // Sums of `r`, integers and parenthesised integers.
            let mut total = 0i64;
            let mut sign = 1i64;
            for token in e.split(' ') {
                match token {
                    "+" => sign = 1,
                    "-" => sign = -1,
                    "r" => total += sign * r,
                    t => {
                        total += sign
                            * t.trim_matches(|c| c == '(' || c == ')')
                                .parse::<i64>()
                                .expect("number")
                    }
                }
            }
            total
        };
        let holds = if let Some((l, rr)) = cond.split_once(" < ") {
            value(l) < value(rr)
        } else if let Some((l, rr)) = cond.split_once(" >= ") {
            value(l) >= value(rr)
        } else {
            let (l, rr) = cond.split_once(" > ").expect("comparison");
            value(l) > value(rr)
        };
        if holds { value(then) } else { value(els) }
    }
}
