//! The state of one symbolic run of a function: its objects (arrays and
//! scalars, with the term in every cell written so far), the scopes of
//! names, the macros and globals of its file, and what stops a run.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::frontend::syntax::{Decl, Expr};
use crate::ir::scop::MacroTable;
use crate::util::hash::FastMap;

use super::term::{TermId, Terms, Ty};

/// A cell: at most four indices, unused ones `i64::MIN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct CellKey(pub [i64; 4]);

impl CellKey {
    pub(crate) fn new(indices: &[i64]) -> Option<CellKey> {
        if indices.len() > 4 {
            return None;
        }
        let mut k = [i64::MIN; 4];
        k[..indices.len()].copy_from_slice(indices);
        Some(CellKey(k))
    }

    pub(crate) fn indices(&self) -> Vec<i64> {
        self.0
            .iter()
            .copied()
            .take_while(|x| *x != i64::MIN)
            .collect()
    }
}

/// An array or scalar (no dimensions) of the run.
pub(crate) struct Object {
    pub name: String,
    /// The extent of each dimension when known (a pointer parameter's is
    /// not).
    pub dims: Vec<Option<i64>>,
    pub ty: Ty,
    /// Its cells outlive the function (a parameter's array, a global): they
    /// are compared at the end.
    pub external: bool,
    /// Declared in the function: its accesses are checked against its
    /// extents.
    pub local: bool,
    /// Per cell written, the term and where (the byte offset of the
    /// statement that wrote it last).
    pub cells: FastMap<CellKey, (TermId, usize)>,
}

/// Why a run stops before the end of the function.
#[derive(Clone, Debug)]
pub(crate) enum Stop {
    /// A construct equiv does not check (a call with effects, control
    /// that depends on values, ...): the span of the statement and what.
    Unsupported { span: Range<usize>, what: String },
    /// An access outside a local array's extents: the program is wrong.
    OutOfBounds { span: Range<usize>, what: String },
}

pub(crate) type R<T> = Result<T, Stop>;

/// The first write of the changed program of a term the original never
/// computed.
#[derive(Clone, Debug)]
pub(crate) struct Divergence {
    pub span: Range<usize>,
    /// `i = 3, t = 1`: the loop counters then.
    pub iteration: String,
    pub target: String,
    pub value: TermId,
}

/// What the run needs of its file.
pub(crate) struct Setup<'a> {
    pub source: &'a str,
    pub macros: &'a MacroTable,
    pub globals: &'a [Decl],
    /// The functions of the file (a call of one is run).
    pub functions: &'a [crate::frontend::syntax::Function],
    /// Arrays that are not local but are temporaries all the same (by the
    /// front end's classification of the original's SCoPs: a buffer every
    /// caller allocates for this function alone, `--temp`).
    pub temps: &'a BTreeSet<String>,
    /// Terms with an id at least this are new (`None`: this is the
    /// original program's run).
    pub boundary: Option<u32>,
    /// The most statements and expressions a run may evaluate.
    pub step_limit: u64,
}

/// One run.
pub(crate) struct Machine<'a, 't> {
    pub setup: Setup<'a>,
    pub terms: &'t mut Terms,
    pub objects: Vec<Object>,
    pub scopes: Vec<FastMap<String, usize>>,
    pub globals_bound: FastMap<String, usize>,
    /// The names of the loop counters of the loops being run, outermost
    /// first.
    pub loops: Vec<String>,
    pub steps: u64,
    pub divergence: Option<Divergence>,
    pub macro_cache: FastMap<String, Option<(Vec<String>, Expr)>>,
    pub expanding: Vec<String>,
    /// The statement being run (what errors and writers point at).
    pub stmt: Range<usize>,
    /// The value the function returned (`None`: none yet, or `void`).
    pub returned: Option<TermId>,
    /// What the run printed (`printf` and friends), one term per call.
    pub outputs: Vec<TermId>,
    /// Calls of functions of the file being run.
    pub depth: usize,
}

impl<'a, 't> Machine<'a, 't> {
    pub(crate) fn new(setup: Setup<'a>, terms: &'t mut Terms) -> Machine<'a, 't> {
        Machine {
            setup,
            terms,
            objects: Vec::new(),
            scopes: vec![FastMap::default()],
            globals_bound: FastMap::default(),
            loops: Vec::new(),
            steps: 0,
            divergence: None,
            macro_cache: FastMap::default(),
            expanding: Vec::new(),
            stmt: 0..0,
            returned: None,
            outputs: Vec::new(),
            depth: 0,
        }
    }

    pub(crate) fn unsupported<T>(&self, what: impl Into<String>) -> R<T> {
        Err(Stop::Unsupported {
            span: self.stmt.clone(),
            what: what.into(),
        })
    }

    /// Counts one step; stops the run past the limit.
    pub(crate) fn step(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > self.setup.step_limit {
            return self.unsupported(format!(
                "the run needs more than {} steps: pass smaller sizes with -D",
                self.setup.step_limit
            ));
        }
        Ok(())
    }

    pub(crate) fn add_object(&mut self, object: Object) -> usize {
        self.objects.push(object);
        self.objects.len() - 1
    }

    /// Binds `name` in the innermost scope.
    pub(crate) fn bind(&mut self, name: &str, object: usize) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), object);
        }
    }

    /// The object a name denotes in the scopes of the function.
    pub(crate) fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// The value of cell `cell` of `object`: the term last written, or
    /// the symbol of its value before the function.
    pub(crate) fn load(&mut self, object: usize, cell: &[i64]) -> R<TermId> {
        let key = self.checked_key(object, cell)?;
        if let Some((t, _)) = self.objects[object].cells.get(&key) {
            return Ok(*t);
        }
        let o = &self.objects[object];
        let name = if o.local {
            // Garbage is never equal to garbage: each program's own.
            let which = if self.setup.boundary.is_some() {
                "CHANGED"
            } else {
                "ORIGINAL"
            };
            format!("uninitialised {which} {}", o.name)
        } else {
            o.name.clone()
        };
        let ty = o.ty;
        Ok(self.terms.sym(&name, cell, ty))
    }

    /// Writes `value` (converted to the object's type) into a cell;
    /// returns the value stored.
    pub(crate) fn store(&mut self, object: usize, cell: &[i64], value: TermId) -> R<TermId> {
        let key = self.checked_key(object, cell)?;
        let value = self.convert(value, self.objects[object].ty)?;
        if let Some(boundary) = self.setup.boundary
            && value.0 >= boundary
            && self.divergence.is_none()
            && matches!(self.terms.node(value), super::term::Node::Op { .. })
        {
            let target = cell_text(&self.objects[object].name, cell);
            self.divergence = Some(Divergence {
                span: self.stmt.clone(),
                iteration: self.iteration_text(),
                target,
                value,
            });
        }
        let at = self.stmt.start;
        self.objects[object].cells.insert(key, (value, at));
        Ok(value)
    }

    /// The values of the loop counters, `i = 3, t = 1`.
    pub(crate) fn iteration_text(&mut self) -> String {
        let mut parts = Vec::new();
        for name in self.loops.clone() {
            if let Some(o) = self.lookup(&name)
                && self.objects[o].dims.is_empty()
                && let Some((t, _)) = self.objects[o].cells.get(&CellKey([i64::MIN; 4]))
                && let Some(v) = self.terms.as_int(*t)
            {
                parts.push(format!("{name} = {v}"));
            }
        }
        parts.join(", ")
    }

    /// A value converted to type `ty` as an assignment converts it: an
    /// integer constant to a floating constant when exact, anything else
    /// through a conversion operator.
    pub(crate) fn convert(&mut self, value: TermId, ty: Ty) -> R<TermId> {
        let from = self.terms.ty(value);
        if from == ty {
            return Ok(value);
        }
        if let Some(v) = self.terms.as_int(value) {
            match ty {
                Ty::Float if v.unsigned_abs() <= 1 << 53 => return Ok(self.terms.float(v as f64)),
                Ty::Single if v.unsigned_abs() <= 1 << 24 => {
                    return Ok(self.terms.single(v as f32));
                }
                _ => {}
            }
        }
        let op = match ty {
            Ty::Int => "(int)",
            Ty::Float => "(double)",
            Ty::Single => "(float)",
        };
        Ok(self.terms.op(op, &[value], ty))
    }

    fn checked_key(&self, object: usize, cell: &[i64]) -> R<CellKey> {
        let o = &self.objects[object];
        if cell.len() != o.dims.len() {
            return self.unsupported(format!(
                "`{}` has {} dimensions, accessed with {} subscripts",
                o.name,
                o.dims.len(),
                cell.len()
            ));
        }
        let outside = cell
            .iter()
            .zip(&o.dims)
            .any(|(x, d)| *x < 0 || d.is_some_and(|d| *x >= d));
        if outside && (o.local || o.dims.iter().all(Option::is_some)) {
            return Err(Stop::OutOfBounds {
                span: self.stmt.clone(),
                what: format!(
                    "{} is outside its extents {}",
                    cell_text(&o.name, cell),
                    o.dims
                        .iter()
                        .map(|d| d.map_or("[]".to_string(), |d| format!("[{d}]")))
                        .collect::<String>()
                ),
            });
        }
        CellKey::new(cell).map_or_else(
            || self.unsupported("an array of more than four dimensions"),
            Ok,
        )
    }
}

/// `name[1][2]`.
pub(crate) fn cell_text(name: &str, cell: &[i64]) -> String {
    let mut s = name.to_string();
    for c in cell {
        s.push_str(&format!("[{c}]"));
    }
    s
}
