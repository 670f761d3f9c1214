//! What keeps two statement instances in their order besides the cells
//! they share: the rules of real C (DESIGN.md, "The rules of real C").
//!
//! A transformation that moves statement instances (fusion, shifting,
//! whole-run re-scheduling) must keep the order of every pair of
//! instances that touch one cell, one of them writing (a dependence). C
//! adds two more reasons, which this module states once for every
//! transformation:
//! - **Calls.** A call that may write memory keeps its order with every
//!   other call that may touch memory and with every access to memory a
//!   call can reach ([`ArrayFacts::call_visible`]); a call that may read
//!   memory keeps its order with every write of such memory. A call proven
//!   to touch no memory ([`Effect::None`](super::Effect::None)) moves freely.
//! - **Aliasing.** Two arrays that may overlap ([`Scop::aliases`]: pointer
//!   or array parameters without `restrict`, a parameter and a global)
//!   behave as one: every access of one keeps its order with every access
//!   of the other, one of them writing, whatever the subscripts.
//!
//! Both are *always* orders: every pair of instances of the two
//! statements (within the pairs a transformation compares) keeps its
//! order, not only pairs that meet at a cell.
//!
//! What this module does not do: it does not decide which calls are pure
//! (the front end does, `frontend::effects`) nor which arrays may overlap
//! (`frontend::aliasing`); it reads what the IR records.

use super::scop::{Access, AccessKind, AliasSource, ArrayFacts, Call, Effect, Scop, Stmt};

/// Why instances of two statements keep their order.
#[derive(Clone, Debug)]
pub enum Ordering<'a> {
    /// Where access `.0` of the first statement and `.1` of the second
    /// touch one cell (one of them writes).
    Cells(&'a Access, &'a Access),
    /// Every pair of instances, for this reason.
    Always(OrderCause),
}

/// Why every pair of instances of two statements keeps its order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OrderCause {
    /// This call (of one statement) and the other statement's call or
    /// access to memory a call can reach.
    Call(Call),
    /// These two arrays may overlap (names of the first statement's and
    /// the second's array).
    Alias {
        a: String,
        b: String,
        source: AliasSource,
    },
}

impl OrderCause {
    /// E.g. "`noise()` may write memory (its body touches `state`)" or
    /// "`in` and `out` may overlap (parameters without `restrict`;
    /// `restrict` would allow it)".
    pub fn describe(&self) -> String {
        match self {
            OrderCause::Call(c) => c.describe(),
            OrderCause::Alias { a, b, source } => {
                let why = match source {
                    AliasSource::Parameters => {
                        "parameters without `restrict`, and not every call is known to pass distinct arrays"
                    }
                    AliasSource::ParameterAndGlobal => {
                        "a parameter without `restrict` may point into the global"
                    }
                };
                format!("`{a}` and `{b}` may overlap ({why}; `restrict` would allow it)")
            }
        }
    }
}

impl ArrayFacts {
    /// Whether a call may reach the array: anything but a local whose
    /// address never escapes (a global, a `static`, a parameter's
    /// memory, a local whose address is taken).
    pub(crate) fn call_visible(&self) -> bool {
        self.storage != super::scop::Storage::Local || self.address_taken
    }
}

impl Stmt {
    /// The strongest effect of the statement's calls.
    pub fn effect(&self) -> Effect {
        self.calls
            .iter()
            .map(|c| c.effect)
            .max()
            .unwrap_or(Effect::None)
    }

    /// The call of the strongest effect (the first of them).
    fn strongest_call(&self) -> Option<&Call> {
        let e = self.effect();
        self.calls.iter().find(|c| c.effect == e)
    }
}

impl Scop {
    /// Why arrays `a` and `b` (by name: the statements compared may come
    /// from two readings of one SCoP) may overlap, if they may.
    pub(crate) fn may_alias(&self, a: &str, b: &str) -> Option<AliasSource> {
        if a == b {
            return None;
        }
        self.aliases.iter().find_map(|m| {
            let (x, y) = (&self.array(m.a).name, &self.array(m.b).name);
            ((x == a && y == b) || (x == b && y == a)).then_some(m.source)
        })
    }
}

/// Whether statement `s` of `scop` touches memory a call can reach
/// (`writes_only`: writes it).
fn touches_visible(scop: &Scop, s: &Stmt, writes_only: bool) -> bool {
    s.accesses().any(|a| {
        (!writes_only || a.kind == AccessKind::Write) && scop.array(a.array).facts.call_visible()
    })
}

/// The call of `x` that orders it with every instance of `y`, if any.
fn ordering_call<'s>(x: &'s Stmt, (sy, y): (&Scop, &Stmt)) -> Option<&'s Call> {
    match x.effect() {
        Effect::Writes if y.effect() != Effect::None || touches_visible(sy, y, false) => {
            x.strongest_call()
        }
        Effect::Reads if y.effect() == Effect::Writes || touches_visible(sy, y, true) => {
            x.strongest_call()
        }
        _ => None,
    }
}

/// Every reason for the instances of statement `x` of `sa` and `y` of
/// `sb` to keep their order (arrays matched by name; the aliases are
/// `sa`'s): [`Ordering::Cells`] per pair of accesses to one array, one
/// of them writing, and [`Ordering::Always`] for the calls and the
/// arrays that may overlap.
pub fn orderings<'a>(
    (sa, x): (&'a Scop, &'a Stmt),
    (sb, y): (&'a Scop, &'a Stmt),
) -> Vec<Ordering<'a>> {
    let mut out = Vec::new();
    let call = ordering_call(x, (sb, y)).or_else(|| ordering_call(y, (sa, x)));
    if let Some(c) = call {
        out.push(Ordering::Always(OrderCause::Call(c.clone())));
    }
    for u in x.accesses() {
        for v in y.accesses() {
            if u.kind == AccessKind::Read && v.kind == AccessKind::Read {
                continue;
            }
            let (nu, nv) = (&sa.array(u.array).name, &sb.array(v.array).name);
            if nu == nv {
                out.push(Ordering::Cells(u, v));
            } else if let Some(source) = sa.may_alias(nu, nv) {
                let cause = OrderCause::Alias {
                    a: nu.clone(),
                    b: nv.clone(),
                    source,
                };
                let seen = out
                    .iter()
                    .any(|o| matches!(o, Ordering::Always(c) if *c == cause));
                if !seen {
                    out.push(Ordering::Always(cause));
                }
            }
        }
    }
    out
}

/// Whether the two statements' instances keep their order for a reason
/// other than shared cells (the first such reason).
pub fn always_ordered(a: (&Scop, &Stmt), b: (&Scop, &Stmt)) -> Option<OrderCause> {
    orderings(a, b).into_iter().find_map(|o| match o {
        Ordering::Always(c) => Some(c),
        Ordering::Cells(..) => None,
    })
}
