//! Symbolic values: terms hash-consed into one DAG shared by both
//! programs, so that two values are equal exactly when their ids are.
//!
//! A term is an integer constant (what C computes exactly: iterators,
//! sizes, integer literals and their integer arithmetic), a floating
//! constant (a literal, or an integer converted to floating point), a
//! symbol `name[indices]` (the value of a cell before the function runs),
//! or an operator applied to terms. Operators are uninterpreted: `a + b`
//! and `b + a` are different terms, so is `(a + b) + c` and `a + (b + c)`.

use crate::util::hash::FastMap;

/// The id of a term; equal ids are equal terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct TermId(pub u32);

/// What C type class a value has: the usual arithmetic conversions need
/// to know whether an integer constant meets a floating operand, and a
/// conversion between `float` and `double` is an operator of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    Int,
    /// `double`.
    Float,
    /// `float`: a value rounded to single precision is another term.
    Single,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    Int(i64),
    /// The bits of an `f64`.
    Float(u64),
    /// A literal that is not a plain number (a character, a suffixed
    /// constant): its text.
    Lit(u32),
    /// The value of `name[cell]` before the function runs (`name` is a
    /// string id).
    Sym {
        name: u32,
        cell: Box<[i64]>,
    },
    /// An operator (a string id: `+`, `sqrt`, `(int)`, ...) on its
    /// operands.
    Op {
        op: u32,
        args: Box<[TermId]>,
    },
}

/// The DAG of every term built so far.
#[derive(Default)]
pub(crate) struct Terms {
    nodes: Vec<(Node, Ty)>,
    ids: FastMap<(Node, Ty), TermId>,
    strings: Vec<String>,
    string_ids: FastMap<String, u32>,
}

impl Terms {
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn string(&mut self, s: &str) -> u32 {
        if let Some(&k) = self.string_ids.get(s) {
            return k;
        }
        let k = self.strings.len() as u32;
        self.strings.push(s.to_string());
        self.string_ids.insert(s.to_string(), k);
        k
    }

    pub(crate) fn intern(&mut self, node: Node, ty: Ty) -> TermId {
        let key = (node, ty);
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = TermId(self.nodes.len() as u32);
        self.nodes.push(key.clone());
        self.ids.insert(key, id);
        id
    }

    pub(crate) fn int(&mut self, v: i64) -> TermId {
        self.intern(Node::Int(v), Ty::Int)
    }

    pub(crate) fn float(&mut self, v: f64) -> TermId {
        // -0.0 and 0.0 are different values in C (1 / -0.0), keep them apart.
        self.intern(Node::Float(v.to_bits()), Ty::Float)
    }

    /// A `float` constant (its value, exactly, as an `f64`).
    pub(crate) fn single(&mut self, v: f32) -> TermId {
        self.intern(Node::Float(f64::from(v).to_bits()), Ty::Single)
    }

    pub(crate) fn sym(&mut self, name: &str, cell: &[i64], ty: Ty) -> TermId {
        let name = self.string(name);
        self.intern(
            Node::Sym {
                name,
                cell: cell.into(),
            },
            ty,
        )
    }

    pub(crate) fn op(&mut self, op: &str, args: &[TermId], ty: Ty) -> TermId {
        let op = self.string(op);
        self.intern(
            Node::Op {
                op,
                args: args.into(),
            },
            ty,
        )
    }

    pub(crate) fn lit(&mut self, text: &str, ty: Ty) -> TermId {
        let k = self.string(text);
        self.intern(Node::Lit(k), ty)
    }

    pub(crate) fn node(&self, id: TermId) -> &Node {
        &self.nodes[id.0 as usize].0
    }

    pub(crate) fn ty(&self, id: TermId) -> Ty {
        self.nodes[id.0 as usize].1
    }

    /// The integer value of a constant term.
    pub(crate) fn as_int(&self, id: TermId) -> Option<i64> {
        match self.node(id) {
            Node::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub(crate) fn as_float(&self, id: TermId) -> Option<f64> {
        match self.node(id) {
            Node::Float(b) => Some(f64::from_bits(*b)),
            _ => None,
        }
    }

    /// The first pair of sub-terms where `a` and `b` differ: the operands
    /// of equal operators are compared left to right.
    pub(crate) fn first_difference(&self, a: TermId, b: TermId) -> (TermId, TermId) {
        let (mut a, mut b) = (a, b);
        loop {
            let next = match (self.node(a), self.node(b)) {
                (Node::Op { op: p, args: x }, Node::Op { op: q, args: y })
                    if p == q && x.len() == y.len() =>
                {
                    x.iter().zip(y.iter()).find(|(u, v)| u != v)
                }
                _ => None,
            };
            match next {
                Some((u, v)) => (a, b) = (*u, *v),
                None => return (a, b),
            }
        }
    }

    /// The term as C-like text, cut at `budget` characters (`…`).
    pub(crate) fn render(&self, id: TermId, budget: usize) -> String {
        let mut out = String::new();
        self.write(id, &mut out, budget, 0);
        if out.len() > budget {
            let mut cut = budget;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
        }
        out
    }

    fn write(&self, id: TermId, out: &mut String, budget: usize, depth: usize) {
        if out.len() > budget {
            return;
        }
        match self.node(id) {
            Node::Int(v) => out.push_str(&v.to_string()),
            Node::Float(b) => out.push_str(&format!("{:?}", f64::from_bits(*b))),
            Node::Lit(k) => out.push_str(&self.strings[*k as usize]),
            Node::Sym { name, cell } => {
                out.push_str(&self.strings[*name as usize]);
                for c in cell.iter() {
                    out.push_str(&format!("[{c}]"));
                }
            }
            Node::Op { op, args } => {
                let op = &self.strings[*op as usize];
                if depth > 6 {
                    out.push('…');
                    return;
                }
                let infix = args.len() == 2 && !op.chars().next().is_some_and(char::is_alphabetic);
                if infix {
                    out.push('(');
                    self.write(args[0], out, budget, depth + 1);
                    out.push_str(&format!(" {op} "));
                    self.write(args[1], out, budget, depth + 1);
                    out.push(')');
                } else if op == "?:" && args.len() == 3 {
                    out.push('(');
                    self.write(args[0], out, budget, depth + 1);
                    out.push_str(" ? ");
                    self.write(args[1], out, budget, depth + 1);
                    out.push_str(" : ");
                    self.write(args[2], out, budget, depth + 1);
                    out.push(')');
                } else {
                    out.push_str(op);
                    out.push('(');
                    for (k, a) in args.iter().enumerate() {
                        if k > 0 {
                            out.push_str(", ");
                        }
                        self.write(*a, out, budget, depth + 1);
                    }
                    out.push(')');
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_terms_share_an_id_and_operators_are_uninterpreted() {
        let mut t = Terms::default();
        let a = t.sym("x", &[1], Ty::Float);
        let b = t.sym("x", &[2], Ty::Float);
        let ab = t.op("+", &[a, b], Ty::Float);
        let ab2 = t.op("+", &[a, b], Ty::Float);
        let ba = t.op("+", &[b, a], Ty::Float);
        assert_eq!(ab, ab2);
        assert_ne!(ab, ba);
        assert_eq!(t.render(ab, 80), "(x[1] + x[2])");
        assert_eq!(t.int(3), t.int(3));
        assert_ne!(t.float(0.0), t.float(-0.0));
    }
}
