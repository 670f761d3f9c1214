//! What a run leaves (its live-out cells, its return value, where it
//! diverged), the comparison of two runs, and the messages of `equiv`.

use std::ops::Range;

use crate::util::hash::FastMap;

use super::machine::{CellKey, Divergence, Machine, Stop, cell_text};
use super::side::Side;
use super::term::{TermId, Terms, Ty};

/// An object compared at the end: its name, type and written cells.
pub(crate) type Written = (String, Ty, FastMap<CellKey, (TermId, usize)>);

/// A run's result.
pub(crate) struct Run {
    pub returned: Option<TermId>,
    /// The objects compared at the end, in the order the run made them.
    pub externals: Vec<Written>,
    pub divergence: Option<Divergence>,
    /// What it printed.
    pub outputs: Vec<TermId>,
    /// The loop counters when the run stopped early.
    pub iteration: Option<String>,
}

impl Run {
    pub(crate) fn from_machine(mut m: Machine<'_, '_>) -> Run {
        let iteration = Some(m.iteration_text()).filter(|s| !s.is_empty());
        let externals = std::mem::take(&mut m.objects)
            .into_iter()
            .filter(|o| o.external)
            .map(|o| (o.name, o.ty, o.cells))
            .collect();
        Run {
            returned: m.returned,
            externals,
            divergence: m.divergence.take(),
            outputs: std::mem::take(&mut m.outputs),
            iteration,
        }
    }

    fn object(&self, name: &str) -> Option<&Written> {
        self.externals.iter().find(|(n, _, _)| n == name)
    }
}

/// The first difference of two runs.
pub(crate) enum Finding {
    Return {
        o: Option<TermId>,
        c: Option<TermId>,
    },
    /// The `k`-th thing printed (`None`: nothing more).
    Output {
        k: usize,
        o: Option<TermId>,
        c: Option<TermId>,
    },
    Cell {
        name: String,
        cell: Vec<i64>,
        o: TermId,
        c: TermId,
        /// Where each program wrote the cell last (`None`: never).
        writer_o: Option<usize>,
        writer_c: Option<usize>,
    },
}

/// The comparison of two runs.
pub(crate) struct Compared {
    pub finding: Option<Finding>,
    /// The cells compared.
    pub cells: usize,
}

impl Compared {
    pub(crate) fn new(o: &Run, c: &Run, terms: &mut Terms) -> Compared {
        let mut cells = 0;
        let mut names: Vec<&str> = Vec::new();
        for (n, _, _) in o.externals.iter().chain(&c.externals) {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
        for name in names {
            let (eo, ec) = (o.object(name), c.object(name));
            let ty = eo.or(ec).map_or(Ty::Float, |x| x.1);
            let mut keys: Vec<CellKey> = eo
                .iter()
                .chain(ec.iter())
                .flat_map(|x| x.2.keys().copied())
                .collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                cells += 1;
                let cell = key.indices();
                let get = |e: Option<&Written>| e.and_then(|x| x.2.get(&key)).copied();
                let (vo, vc) = (get(eo), get(ec));
                let initial = terms.sym(name, &cell, ty);
                let to = vo.map_or(initial, |v| v.0);
                let tc = vc.map_or(initial, |v| v.0);
                if to != tc {
                    return Compared {
                        finding: Some(Finding::Cell {
                            name: name.to_string(),
                            cell,
                            o: to,
                            c: tc,
                            writer_o: vo.map(|v| v.1),
                            writer_c: vc.map(|v| v.1),
                        }),
                        cells,
                    };
                }
            }
        }
        let printed = (0..o.outputs.len().max(c.outputs.len())).find_map(|k| {
            let (po, pc) = (o.outputs.get(k).copied(), c.outputs.get(k).copied());
            (po != pc).then_some(Finding::Output { k, o: po, c: pc })
        });
        let finding = printed.or((o.returned != c.returned).then_some(Finding::Return {
            o: o.returned,
            c: c.returned,
        }));
        Compared { finding, cells }
    }
}

/// The 1-based line of a byte offset.
fn line(source: &str, at: usize) -> usize {
    source
        .get(..at.min(source.len()))
        .map_or(1, |s| s.matches('\n').count() + 1)
}

/// `line 12 (`y[i % 2] = x[i];`)`.
fn place(side: &Side, span: &Range<usize>) -> String {
    let text = side.source.get(span.clone()).unwrap_or("");
    format!(
        "{}:{} (`{}`)",
        side.shown,
        line(&side.source, span.start),
        super::eval::short(text)
    )
}

/// ` at N = 64, T = 6`: the values of the original's SCoP parameters in
/// function `name`.
pub(crate) fn parameter_values(o: &Side, name: &str) -> String {
    let mut seen: Vec<(String, i64)> = Vec::new();
    for s in o.program.scops.iter().filter(|s| s.function == name) {
        for p in &s.params {
            if let Some(v) = p.value
                && !seen.iter().any(|(n, _)| *n == p.name)
            {
                seen.push((p.name.clone(), v));
            }
        }
    }
    if seen.is_empty() {
        return String::new();
    }
    let list: Vec<String> = seen.iter().map(|(n, v)| format!("{n} = {v}")).collect();
    format!(" at {}", list.join(", "))
}

/// A run that stopped on something equiv does not check.
pub(crate) fn stopped(side: &Side, name: &str, which: &str, stop: &Stop) -> String {
    let (span, what) = match stop {
        Stop::Unsupported { span, what } | Stop::OutOfBounds { span, what } => (span, what),
    };
    let kind = match stop {
        Stop::Unsupported { .. } => "not checkable",
        Stop::OutOfBounds { .. } => "an access out of bounds",
    };
    format!(
        "cannot check `{name}`: {which} {}: {kind}: {what}\n",
        place(side, span)
    )
}

/// CHANGED accessed a local array out of its extents.
pub(crate) fn out_of_bounds(
    c: &Side,
    name: &str,
    values: &str,
    span: &Range<usize>,
    what: &str,
    iteration: Option<&str>,
) -> String {
    let at = iteration.map_or(String::new(), |i| format!(" with {i}"));
    format!(
        "different: `{name}`{values}: CHANGED {}{at} accesses memory it does not have: {what}\n",
        place(c, span)
    )
}

/// Both files, for the messages.
pub(crate) struct Sides<'s> {
    pub o: &'s Side,
    pub c: &'s Side,
}

/// `  they first differ where ...` when the difference is inside the
/// terms (empty when they differ at the top).
fn first_difference(terms: &Terms, o: TermId, c: TermId) -> String {
    let (da, db) = terms.first_difference(o, c);
    if (da, db) == (o, c) {
        return String::new();
    }
    format!(
        "  they first differ where ORIGINAL has {} and CHANGED has {}\n",
        terms.render(da, 80),
        terms.render(db, 80)
    )
}

/// The message of a difference.
pub(crate) fn difference(
    sides: &Sides<'_>,
    name: &str,
    values: &str,
    finding: &Finding,
    run_c: &Run,
    terms: &Terms,
) -> String {
    let show = |t: Option<TermId>| t.map_or("nothing".to_string(), |t| terms.render(t, 160));
    let mut out = String::new();
    match finding {
        Finding::Return { o, c } => {
            out.push_str(&format!(
                "different: `{name}`{values}: the return value differs\n  ORIGINAL: {}\n  CHANGED:  {}\n",
                show(*o),
                show(*c)
            ));
            if let (Some(o), Some(c)) = (o, c) {
                out.push_str(&first_difference(terms, *o, *c));
            }
        }
        Finding::Output { k, o, c } => {
            out.push_str(&format!(
                "different: `{name}`{values}: what it prints differs, at output call number {}\n  ORIGINAL: {}\n  CHANGED:  {}\n",
                k + 1,
                show(*o),
                show(*c)
            ));
            if let (Some(o), Some(c)) = (o, c) {
                out.push_str(&first_difference(terms, *o, *c));
            }
        }
        Finding::Cell {
            name: array,
            cell,
            o,
            c,
            writer_o,
            writer_c,
        } => {
            out.push_str(&format!(
                "different: `{name}`{values}: live-out `{}` differs\n  ORIGINAL: {}\n  CHANGED:  {}\n",
                cell_text(array, cell),
                show(Some(*o)),
                show(Some(*c))
            ));
            out.push_str(&first_difference(terms, *o, *c));
            let writer = |side: &Side, at: Option<usize>| match at {
                Some(at) => {
                    let end = side.source[at..]
                        .find(';')
                        .map_or(side.source.len(), |e| at + e + 1);
                    format!("last written at {}", place(side, &(at..end)))
                }
                None => "never written (it keeps its value from before the call)".to_string(),
            };
            out.push_str(&format!(
                "  in ORIGINAL it is {}\n  in CHANGED it is {}\n",
                writer(sides.o, *writer_o),
                writer(sides.c, *writer_c)
            ));
        }
    }
    match &run_c.divergence {
        Some(d) => {
            let at = if d.iteration.is_empty() {
                String::new()
            } else {
                format!(" with {}", d.iteration)
            };
            out.push_str(&format!(
                "  the traces diverge at CHANGED {}{at}: the first write of a value ORIGINAL never computes, {} = {}\n",
                place(sides.c, &d.span),
                d.target,
                terms.render(d.value, 120)
            ));
        }
        None => out.push_str(
            "  CHANGED computes no value ORIGINAL does not: a value is stored in the wrong cell or overwritten\n",
        ),
    }
    out
}
