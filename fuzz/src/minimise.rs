//! Greedy minimisation of a failing generated program.
//!
//! [`minimise`] tries one small edit at a time — drop a unit of issue 45
//! or simplify one (a call, a stage, an extra, a read), drop the main
//! kernel's body when units remain, drop a statement, a loop
//! or an `if`, unwrap a loop or an `if` into its parent, drop a condition,
//! a read, a term or the constant of a subscript, lower a size macro — and
//! keeps an edit when the program is still well defined
//! (`GenProgram::check_well_defined`) and the caller's predicate says it
//! still fails the same way. It stops at a fixed point or when the
//! predicate has been called `max_tries` times.
//!
//! This module does NOT decide what "fails" means: the predicate does.

use super::program::{Aff, GenProgram, Node, Read, Target};

/// Applies the `k`-th edit of `program`; `None` when there is no such edit.
pub fn nth_edit(program: &GenProgram, k: usize) -> Option<GenProgram> {
    let mut result = program.clone();
    let mut k = k;
    // Simplify the shape first: fewer builds and calls, plain printing.
    for index in 0..result.shape.configs.len() {
        if k == 0 {
            result.shape.configs.remove(index);
            return Some(result);
        }
        k -= 1;
    }
    for index in 0..result.shape.calls.len() {
        if k == 0 {
            result.shape.calls.remove(index);
            return Some(result);
        }
        k -= 1;
    }
    for which in 0..2 {
        let flag = if which == 0 {
            &mut result.shape.comments
        } else {
            &mut result.shape.braceless
        };
        if *flag {
            if k == 0 {
                *flag = false;
                return Some(result);
            }
            k -= 1;
        }
    }
    if edit_units(&mut result, &mut k) {
        return Some(result);
    }
    for index in 0..result.sizes.len() {
        if result.sizes[index].1 > 1 {
            if k == 0 {
                result.sizes[index].1 -= 1;
                return Some(result);
            }
            k -= 1;
        }
    }
    if edit_nodes(&mut result.body, &mut k) {
        Some(result)
    } else {
        None
    }
}

/// The edits of the units of issue 45 (see `super::real_c`): drop a
/// unit, drop the main kernel's body when units remain (a failure of a
/// unit alone), then each unit's own simplifications.
fn edit_units(program: &mut GenProgram, k: &mut usize) -> bool {
    let units = &mut program.shape.units;
    for index in 0..units.len() {
        if *k == 0 {
            units.remove(index);
            return true;
        }
        *k -= 1;
    }
    if !units.is_empty() && !program.body.is_empty() {
        if *k == 0 {
            program.body.clear();
            return true;
        }
        *k -= 1;
    }
    for unit in units.iter_mut() {
        let mut j = 0;
        while let Some(simpler) = unit.simplified(j) {
            if *k == 0 {
                *unit = simpler;
                return true;
            }
            *k -= 1;
            j += 1;
        }
    }
    false
}

fn edit_aff(aff: &mut Aff, k: &mut usize) -> bool {
    for index in 0..aff.terms.len() {
        if *k == 0 {
            aff.terms.remove(index);
            return true;
        }
        *k -= 1;
    }
    if aff.constant != 0 {
        if *k == 0 {
            aff.constant = 0;
            return true;
        }
        *k -= 1;
    }
    false
}

fn edit_affs(affs: &mut [Aff], k: &mut usize) -> bool {
    affs.iter_mut().any(|a| edit_aff(a, k))
}

fn edit_nodes(nodes: &mut Vec<Node>, k: &mut usize) -> bool {
    let mut index = 0;
    while index < nodes.len() {
        if *k == 0 {
            nodes.remove(index);
            return true;
        }
        *k -= 1;
        let splice = match &nodes[index] {
            Node::Loop { body, .. }
            | Node::If { body, .. }
            | Node::Block { body, .. }
            | Node::Parallel { body, .. }
            | Node::IfElse {
                then_body: body, ..
            } => Some(body.clone()),
            Node::Assign { .. } => None,
        };
        if let Some(body) = splice {
            if *k == 0 {
                nodes.splice(index..=index, body);
                return true;
            }
            *k -= 1;
        }
        let done = match &mut nodes[index] {
            Node::Loop {
                lower, upper, body, ..
            } => edit_aff(lower, k) || edit_aff(upper, k) || edit_nodes(body, k),
            Node::If {
                conditions, body, ..
            } => {
                let mut done = false;
                for c in 0..conditions.len() {
                    if *k == 0 {
                        conditions.remove(c);
                        done = true;
                        break;
                    }
                    *k -= 1;
                }
                done || edit_affs(conditions, k) || edit_nodes(body, k)
            }
            Node::IfElse {
                conditions,
                then_body,
                else_body,
            } => {
                let mut done = false;
                for c in 0..conditions.len() {
                    if *k == 0 {
                        conditions.remove(c);
                        done = true;
                        break;
                    }
                    *k -= 1;
                }
                done || edit_affs(conditions, k)
                    || edit_nodes(then_body, k)
                    || edit_nodes(else_body, k)
            }
            Node::Block { body, .. } | Node::Parallel { body, .. } => edit_nodes(body, k),
            Node::Assign {
                target,
                accumulate,
                reads,
                constant,
            } => {
                let mut done = false;
                for r in 0..reads.len() {
                    if *k == 0 {
                        reads.remove(r);
                        done = true;
                        break;
                    }
                    *k -= 1;
                }
                if !done && *constant != 0 {
                    if *k == 0 {
                        *constant = 0;
                        done = true;
                    } else {
                        *k -= 1;
                    }
                }
                if !done && *accumulate {
                    if *k == 0 {
                        *accumulate = false;
                        done = true;
                    } else {
                        *k -= 1;
                    }
                }
                if !done {
                    done = match target {
                        Target::Temp { subscripts, .. } => edit_affs(subscripts, k),
                        Target::Output(index) | Target::OutputScaled { offset: index, .. } => {
                            edit_aff(index, k)
                        }
                        Target::Scalar(_) => false,
                    };
                }
                if !done {
                    for (_, read) in reads.iter_mut() {
                        done = match read {
                            Read::Temp { subscripts, .. } => edit_affs(subscripts, k),
                            Read::Input(index)
                            | Read::InputScaled { offset: index, .. }
                            | Read::InputQuotient { index, .. }
                            | Read::Value(index) => edit_aff(index, k),
                            Read::Scalar(_) => false,
                        };
                        if done {
                            break;
                        }
                    }
                }
                done
            }
        };
        if done {
            return true;
        }
        index += 1;
    }
    false
}

/// Removes temporaries and scalars that no statement mentions.
pub fn drop_unused_variables(program: &GenProgram) -> GenProgram {
    let mut used_temps = vec![false; program.temps.len()];
    let mut used_scalars = vec![false; program.scalars.len()];
    fn visit(nodes: &[Node], temps: &mut [bool], scalars: &mut [bool]) {
        for node in nodes {
            match node {
                Node::Loop { body, .. } | Node::If { body, .. } | Node::Parallel { body, .. } => {
                    visit(body, temps, scalars)
                }
                Node::Block { body, .. } => visit(body, temps, scalars),
                Node::IfElse {
                    then_body,
                    else_body,
                    ..
                } => {
                    visit(then_body, temps, scalars);
                    visit(else_body, temps, scalars);
                }
                Node::Assign { target, reads, .. } => {
                    match target {
                        Target::Temp { array, .. } => temps[*array] = true,
                        Target::Scalar(s) => scalars[*s] = true,
                        Target::Output(_) | Target::OutputScaled { .. } => {}
                    }
                    for (_, r) in reads {
                        match r {
                            Read::Temp { array, .. } => temps[*array] = true,
                            Read::Scalar(s) => scalars[*s] = true,
                            Read::Input(_)
                            | Read::InputScaled { .. }
                            | Read::InputQuotient { .. }
                            | Read::Value(_) => {}
                        }
                    }
                }
            }
        }
    }
    visit(&program.body, &mut used_temps, &mut used_scalars);
    let temp_index: Vec<Option<usize>> = renumber(&used_temps);
    let scalar_index: Vec<Option<usize>> = renumber(&used_scalars);
    fn rewrite(nodes: &mut [Node], temps: &[Option<usize>], scalars: &[Option<usize>]) {
        for node in nodes {
            match node {
                Node::Loop { body, .. } | Node::If { body, .. } | Node::Parallel { body, .. } => {
                    rewrite(body, temps, scalars)
                }
                Node::Block {
                    temps: declared,
                    body,
                } => {
                    declared.retain(|t| temps[*t].is_some());
                    for t in declared.iter_mut() {
                        *t = temps[*t].unwrap_or(0);
                    }
                    rewrite(body, temps, scalars);
                }
                Node::IfElse {
                    then_body,
                    else_body,
                    ..
                } => {
                    rewrite(then_body, temps, scalars);
                    rewrite(else_body, temps, scalars);
                }
                Node::Assign { target, reads, .. } => {
                    match target {
                        Target::Temp { array, .. } => *array = temps[*array].unwrap_or(0),
                        Target::Scalar(s) => *s = scalars[*s].unwrap_or(0),
                        Target::Output(_) | Target::OutputScaled { .. } => {}
                    }
                    for (_, r) in reads.iter_mut() {
                        match r {
                            Read::Temp { array, .. } => *array = temps[*array].unwrap_or(0),
                            Read::Scalar(s) => *s = scalars[*s].unwrap_or(0),
                            Read::Input(_)
                            | Read::InputScaled { .. }
                            | Read::InputQuotient { .. }
                            | Read::Value(_) => {}
                        }
                    }
                }
            }
        }
    }
    let mut result = program.clone();
    rewrite(&mut result.body, &temp_index, &scalar_index);
    result.temps = program
        .temps
        .iter()
        .zip(&used_temps)
        .filter(|(_, u)| **u)
        .map(|(t, _)| t.clone())
        .collect();
    result.scalars = program
        .scalars
        .iter()
        .zip(&used_scalars)
        .filter(|(_, u)| **u)
        .map(|(s, _)| s.clone())
        .collect();
    result
}

fn renumber(used: &[bool]) -> Vec<Option<usize>> {
    let mut next = 0;
    used.iter()
        .map(|u| {
            if *u {
                next += 1;
                Some(next - 1)
            } else {
                None
            }
        })
        .collect()
}

/// Minimises `program` while `still_fails` holds; returns the smallest
/// program found and the number of predicate calls made.
pub fn minimise(
    program: &GenProgram,
    max_tries: usize,
    still_fails: &mut dyn FnMut(&GenProgram) -> bool,
) -> (GenProgram, usize) {
    let mut current = program.clone();
    let mut tries = 0;
    let mut k = 0;
    while tries < max_tries {
        let Some(candidate) = nth_edit(&current, k) else {
            break;
        };
        let candidate = drop_unused_variables(&candidate);
        if candidate.check_well_defined().is_ok() {
            tries += 1;
            if still_fails(&candidate) {
                current = candidate;
                continue;
            }
        }
        k += 1;
    }
    (current, tries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::generate;

    #[test]
    fn minimising_to_a_syntactic_property_reaches_a_small_program() {
        // The "failure": the program reads some temporary array with a
        // subscript that mentions `j`. The minimum keeps one such read.
        let mentions_j = |p: &GenProgram| {
            let text = p.to_c();
            let body = text
                .split("#pragma scop")
                .nth(1)
                .unwrap_or("")
                .split("#pragma endscop")
                .next()
                .unwrap_or("");
            body.lines()
                .any(|l| l.contains(" = ") && l.contains("[j") && l.contains("T"))
        };
        let mut found = 0;
        for seed in 0..200 {
            let p = generate(seed);
            if !mentions_j(&p) {
                continue;
            }
            found += 1;
            let (small, _) = minimise(&p, 2000, &mut |c| mentions_j(c));
            assert!(mentions_j(&small));
            assert!(small.check_well_defined().is_ok());
            let statements = small.to_c().matches(';').count();
            assert!(
                statements <= p.to_c().matches(';').count(),
                "minimising never grows the program"
            );
        }
        assert!(found > 10, "the generator produces 2-d accesses");
    }
}
