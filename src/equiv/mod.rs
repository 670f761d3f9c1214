//! `polyfold equiv ORIGINAL CHANGED`: translation validation of a changed
//! C file against its original, for known parameter values.
//!
//! Each function that has SCoPs in either file and whose text differs is
//! run twice, once per file, with concrete control and symbolic data (a
//! symbolic value trace): loop counters, sizes and integer arithmetic on
//! them are numbers; every cell the function did not write holds the
//! symbol `name[indices]` of its value before the call; every write stores
//! the term of its right-hand side, hash-consed in one DAG for both runs
//! (`term`), so that equal values have equal ids. At the end, the cells
//! that outlive the function (its array parameters and the globals it
//! touches, less the buffers the front end classifies as temporaries) and
//! its return value must hold the same terms. Operators are uninterpreted:
//! a sum reassociated by hand is a difference.
//!
//! Verdicts: equal (exit 0), different (exit 1: the first live-out cell
//! whose terms differ, its last writers, and where the changed trace
//! diverges: the first write of a term the original never computed), or
//! not checkable (exit 2: a parse error, a function missing, a call with
//! effects, control that depends on values, unknown sizes). See
//! `docs/equiv.md`.
//!
//! What this does NOT do: prove equivalence for every parameter value
//! (only for the values given), or know algebra.

pub(crate) mod eval;
pub(crate) mod exec;
pub(crate) mod machine;
pub(crate) mod report;
pub(crate) mod side;
pub(crate) mod term;

use std::collections::BTreeSet;
use std::path::Path;

use crate::driver::{Message, Messages, Outcome, RunOptions};
use crate::frontend::syntax::Function;

use machine::{Machine, Setup, Stop};
use report::Compared;
use side::{Side, function, read_side};
use term::Terms;

/// The most statements and expressions one run may evaluate.
const STEP_LIMIT: u64 = 400_000_000;

/// `polyfold equiv ORIGINAL CHANGED`: exit 0 equal, 1 different, 2 not
/// checkable or an error.
pub fn equiv_files(original: &Path, changed: &Path, options: &RunOptions) -> Outcome {
    let mut stderr = Messages::new();
    let sides = [original, changed].map(|p| read_side(p, options));
    let [o, c] = match sides {
        [Ok(o), Ok(c)] => [o, c],
        [o, c] => {
            for side in [o, c] {
                if let Err(messages) = side {
                    for m in messages.iter() {
                        stderr.push(m.clone());
                    }
                }
            }
            return outcome(String::new(), stderr, 2);
        }
    };
    compare_sides(&o, &c, options, stderr)
}

/// The most size combinations `--sizes` runs.
const MAX_SIZE_COMBINATIONS: usize = 256;

/// [`equiv_files`] at every combination of `sizes` (`NAME=V1,V2,...`
/// each, as `-D NAME=Vk`): one verdict per combination, the worst exit
/// code; it stops at the first that cannot be checked.
pub fn equiv_files_at_sizes(
    original: &Path,
    changed: &Path,
    options: &RunOptions,
    sizes: &[String],
) -> Outcome {
    let combinations = match size_combinations(sizes) {
        Ok(c) => c,
        Err(e) => return outcome(String::new(), Messages::new().with(Message::error(e)), 2),
    };
    let mut total = outcome(String::new(), Messages::new(), 0);
    for combination in combinations {
        let mut at = options.clone();
        for (name, value) in combination {
            at.macros
                .push(crate::frontend::preproc::CommandMacro::Define {
                    name,
                    body: value.to_string(),
                });
        }
        let out = equiv_files(original, changed, &at);
        total.stdout.push_str(&out.stdout);
        for m in out.stderr.iter() {
            total.stderr.push(m.clone());
        }
        total.code = total.code.max(out.code);
        if out.code == 2 {
            break;
        }
    }
    total
}

/// Every combination of the values of `--sizes NAME=V1,V2,...` (one
/// empty combination without any).
fn size_combinations(sizes: &[String]) -> Result<Vec<Vec<(String, i64)>>, String> {
    let mut out: Vec<Vec<(String, i64)>> = vec![Vec::new()];
    for spec in sizes {
        let bad = || format!("--sizes {spec}: expected NAME=V1,V2,... with integer values");
        let (name, values) = spec.split_once('=').ok_or_else(bad)?;
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(bad());
        }
        let values: Vec<i64> = values
            .split(',')
            .map(|v| v.trim().parse::<i64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let mut next = Vec::new();
        for combination in &out {
            for v in &values {
                let mut c = combination.clone();
                c.push((name.to_string(), *v));
                next.push(c);
            }
        }
        if next.len() > MAX_SIZE_COMBINATIONS {
            return Err(format!(
                "--sizes: more than {MAX_SIZE_COMBINATIONS} combinations of sizes"
            ));
        }
        out = next;
    }
    Ok(out)
}

/// The verdict on two files read and parsed.
fn compare_sides(o: &Side, c: &Side, options: &RunOptions, mut stderr: Messages) -> Outcome {
    let mut names: Vec<&str> = Vec::new();
    for scop in o.program.scops.iter().chain(&c.program.scops) {
        if !names.contains(&scop.function.as_str()) {
            names.push(&scop.function);
        }
    }
    if names.is_empty() {
        stderr.push(Message::error(format!(
            "{}: no SCoP in either file: nothing to compare",
            o.shown
        )));
        return outcome(String::new(), stderr, 2);
    }
    let mut stdout = String::new();
    let mut code = 0u8;
    let mut terms = Terms::default();
    for name in names {
        let (text, verdict) = compare_function(o, c, name, options, &mut terms);
        if verdict == 2 {
            stderr.push(Message::error(text.trim_end()));
        } else {
            stdout.push_str(&text);
        }
        code = code.max(verdict);
        if verdict == 2 {
            break;
        }
    }
    for note in unchecked_functions(o, c) {
        stderr.push(Message::warning(note));
    }
    outcome(stdout, stderr, code)
}

fn outcome(stdout: String, stderr: Messages, code: u8) -> Outcome {
    Outcome {
        stdout,
        stderr,
        code,
        rewrite: None,
        record: None,
    }
}

/// The verdict of one function: the text for stdout and the exit code.
fn compare_function(
    o: &Side,
    c: &Side,
    name: &str,
    options: &RunOptions,
    terms: &mut Terms,
) -> (String, u8) {
    let (Some(fo), Some(fc)) = (function(o, name), function(c, name)) else {
        let missing = if function(o, name).is_none() { o } else { c };
        return (
            format!(
                "cannot check `{name}`: {} has no function `{name}`\n",
                missing.shown
            ),
            2,
        );
    };
    let values = report::parameter_values(o, name);
    if o.source.get(fo.span.clone()) == c.source.get(fc.span.clone())
        && same_macros(&o.program.macros, &c.program.macros)
        && global_texts(o) == global_texts(c)
    {
        return (
            format!("equal: `{name}` (the same text, macros and globals in both files)\n"),
            0,
        );
    }
    let temps = temporaries(o, name, options);
    let run = |side: &Side, f: &Function, boundary: Option<u32>, terms: &mut Terms| {
        let setup = Setup {
            source: &side.source,
            macros: &side.program.macros,
            globals: &side.syntax.globals,
            functions: &side.syntax.functions,
            temps: &temps,
            boundary,
            step_limit: STEP_LIMIT,
        };
        let mut m = Machine::new(setup, terms);
        let result = m.run_function(f);
        let outcome = report::Run::from_machine(m);
        (result, outcome)
    };
    let (ro, run_o) = run(o, fo, None, terms);
    if let Err(stop) = ro {
        return (report::stopped(o, name, "ORIGINAL", &stop), 2);
    }
    let boundary = terms.len() as u32;
    let (rc, run_c) = run(c, fc, Some(boundary), terms);
    match rc {
        Err(stop @ Stop::Unsupported { .. }) => {
            return (report::stopped(c, name, "CHANGED", &stop), 2);
        }
        Err(Stop::OutOfBounds { span, what }) => {
            return (
                report::out_of_bounds(c, name, &values, &span, &what, run_c.iteration.as_deref()),
                1,
            );
        }
        Ok(()) => {}
    }
    let compared = Compared::new(&run_o, &run_c, terms);
    match compared.finding {
        None => (
            format!(
                "equal: `{name}` computes the same live-out values{values} ({} live-out {} compared{})\n",
                compared.cells,
                if compared.cells == 1 { "cell" } else { "cells" },
                if run_o.returned.is_some() {
                    ", and the return value"
                } else {
                    ""
                }
            ),
            0,
        ),
        Some(finding) => (
            report::difference(
                &report::Sides { o, c },
                name,
                &values,
                &finding,
                &run_c,
                terms,
            ),
            1,
        ),
    }
}

/// The text of every file-scope declaration of a file.
fn global_texts(side: &Side) -> Vec<&str> {
    side.syntax
        .globals
        .iter()
        .map(|g| side.source.get(g.span.clone()).unwrap_or(""))
        .collect()
}

/// Whether two files define the same macros (names, bodies, values;
/// not where).
fn same_macros(a: &crate::ir::scop::MacroTable, b: &crate::ir::scop::MacroTable) -> bool {
    let objects = |t: &crate::ir::scop::MacroTable| -> Vec<(String, String, Option<i64>)> {
        t.objects
            .iter()
            .map(|m| (m.name.clone(), m.body.clone(), m.value))
            .collect()
    };
    let functions = |t: &crate::ir::scop::MacroTable| -> Vec<(String, Vec<String>, String)> {
        t.functions
            .iter()
            .map(|m| (m.name.clone(), m.params.clone(), m.body.clone()))
            .collect()
    };
    objects(a) == objects(b) && functions(a) == functions(b)
}

/// The arrays of `name`'s SCoPs in the original that are not local but
/// that the front end classifies as temporaries (with `--temp`,
/// `--live-out` and `#pragma polyfold temp`).
fn temporaries(o: &Side, name: &str, options: &RunOptions) -> BTreeSet<String> {
    use crate::analysis::liveness::{LivenessOverrides, classify, pragma_temps};
    let mut temp = options.temp.clone();
    temp.extend(pragma_temps(&o.source));
    let overrides = LivenessOverrides {
        temp,
        live_out: options.live_out.clone(),
    }
    .in_function(name);
    o.program
        .scops
        .iter()
        .filter(|s| s.function == name)
        .flat_map(|s| &s.arrays)
        .filter(|a| a.facts.storage != crate::ir::scop::Storage::Local)
        .filter(|a| classify(a, &overrides).liveness == crate::ir::Liveness::Temporary)
        .map(|a| a.name.clone())
        .collect()
}

/// The functions whose text differs but that have no SCoP in either
/// file: equiv does not check them.
fn unchecked_functions(o: &Side, c: &Side) -> Vec<String> {
    let with_scops: BTreeSet<&str> = o
        .program
        .scops
        .iter()
        .chain(&c.program.scops)
        .map(|s| s.function.as_str())
        .collect();
    let mut notes = Vec::new();
    for f in &o.syntax.functions {
        if with_scops.contains(f.name.as_str()) {
            continue;
        }
        let same = c
            .syntax
            .functions
            .iter()
            .find(|g| g.name == f.name)
            .is_some_and(|g| o.source.get(f.span.clone()) == c.source.get(g.span.clone()));
        if !same {
            notes.push(format!(
                "`{}` differs between the files but has no SCoP: equiv does not check it",
                f.name
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests;
