//! The model of a generated test program, its C printer and its concrete
//! checker.
//!
//! A [`GenProgram`] is a tiny affine kernel as plain data: `#define`d
//! sizes, local temporary arrays and scalars, and a tree of loops, affine
//! `if`s and assignments. [`GenProgram::to_c`] prints it as a complete C11
//! program whose `main` initialises the external input `in` with integer
//! formulas, calls the kernel and prints every cell of the external output
//! `out` with `%.17g`. [`GenProgram::check_well_defined`] runs the control
//! flow of the kernel for the concrete sizes and checks that every access
//! is in bounds and that no temporary cell or scalar is read before it is
//! written (which would make the original program's output garbage).
//!
//! This module does NOT generate programs (see `generate`) and does not
//! run polyfold or a compiler (see `check`).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// Size of the external input array `in`.
pub const INPUT_SIZE: i64 = 160;
/// Size of the external output array `out`.
pub const OUTPUT_SIZE: i64 = 40;

/// An affine expression over loop iterators and size macros, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aff {
    /// Terms `coefficient * name`, each name at most once, no zero
    /// coefficients after [`Aff::normalised`].
    pub terms: Vec<(String, i64)>,
    pub constant: i64,
}

impl Aff {
    /// The constant `value`.
    pub fn constant(value: i64) -> Aff {
        Aff {
            terms: Vec::new(),
            constant: value,
        }
    }

    /// The name `name` plus `offset`.
    pub fn var(name: &str, offset: i64) -> Aff {
        Aff {
            terms: vec![(name.to_string(), 1)],
            constant: offset,
        }
    }

    /// The coefficient of `name` (0 when absent).
    pub fn coeff(&self, name: &str) -> i64 {
        self.terms
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, c)| *c)
            .sum()
    }

    /// `self + factor * other`, normalised.
    pub fn plus_scaled(&self, other: &Aff, factor: i64) -> Aff {
        let mut result = self.clone();
        for (name, c) in &other.terms {
            result.terms.push((name.clone(), c * factor));
        }
        result.constant += other.constant * factor;
        result.normalised()
    }

    /// Merges equal names and drops zero coefficients, keeping the first
    /// occurrence order.
    pub fn normalised(&self) -> Aff {
        let mut terms: Vec<(String, i64)> = Vec::new();
        for (name, c) in &self.terms {
            if let Some(entry) = terms.iter_mut().find(|(n, _)| n == name) {
                entry.1 += c;
            } else {
                terms.push((name.clone(), *c));
            }
        }
        terms.retain(|(_, c)| *c != 0);
        Aff {
            terms,
            constant: self.constant,
        }
    }

    /// Substitutes `name + shift[name]` for each shifted name.
    pub fn shifted(&self, shift: &[(String, i64)]) -> Aff {
        let mut result = self.clone();
        for (name, d) in shift {
            result.constant += self.coeff(name) * d;
        }
        result
    }

    /// The value for the given environment (`None` when a name is unbound
    /// or the arithmetic overflows).
    pub fn eval(&self, env: &HashMap<String, i64>) -> Option<i64> {
        let mut value = self.constant;
        for (name, c) in &self.terms {
            let v = *env.get(name)?;
            value = value.checked_add(c.checked_mul(v)?)?;
        }
        Some(value)
    }

    /// C text, e.g. `i + 2 * j - N0 + 1`.
    pub fn to_c(&self) -> String {
        let mut out = String::new();
        for (name, c) in &self.terms {
            if *c == 0 {
                continue;
            }
            let magnitude = c.abs();
            if out.is_empty() {
                if *c < 0 {
                    out.push('-');
                }
            } else if *c < 0 {
                out.push_str(" - ");
            } else {
                out.push_str(" + ");
            }
            if magnitude != 1 {
                let _ = write!(out, "{magnitude} * ");
            }
            out.push_str(name);
        }
        if out.is_empty() {
            let _ = write!(out, "{}", self.constant);
        } else if self.constant > 0 {
            let _ = write!(out, " + {}", self.constant);
        } else if self.constant < 0 {
            let _ = write!(out, " - {}", -(self.constant as i128));
        }
        out
    }
}

/// A temporary local array of the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TempArray {
    pub name: String,
    /// One extent per dimension (affine in the size macros).
    pub extents: Vec<Aff>,
}

/// What an assignment writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A temporary array cell.
    Temp { array: usize, subscripts: Vec<Aff> },
    /// A local scalar (by index into `GenProgram::scalars`).
    Scalar(usize),
    /// A cell of the external output `out`.
    Output(Aff),
}

/// What an assignment reads (each with a coefficient from a small table).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read {
    Temp { array: usize, subscripts: Vec<Aff> },
    Scalar(usize),
    Input(Aff),
}

/// The coefficients a read may carry (printed as C double literals).
pub const WEIGHTS: [&str; 6] = ["0.5", "0.25", "0.75", "1.0", "-0.5", "1.5"];

/// One node of the kernel body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// `for (var = lower; var <= upper; var++) { body }`.
    Loop {
        var: String,
        lower: Aff,
        upper: Aff,
        body: Vec<Node>,
    },
    /// `if (c1 >= 0 && c2 >= 0 ...) { body }`.
    If {
        conditions: Vec<Aff>,
        body: Vec<Node>,
    },
    /// `target = e` or `target += e` with
    /// `e = w1 * r1 + w2 * r2 + ... + constant`.
    Assign {
        target: Target,
        accumulate: bool,
        reads: Vec<(usize, Read)>,
        constant: i64,
    },
}

/// A generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenProgram {
    /// The seed it was generated from (printed in the header).
    pub seed: u64,
    /// `#define NAME VALUE` sizes, in order.
    pub sizes: Vec<(String, i64)>,
    pub temps: Vec<TempArray>,
    pub scalars: Vec<String>,
    pub body: Vec<Node>,
}

/// Why a program is not well defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllDefined(pub String);

impl GenProgram {
    /// The complete C program.
    pub fn to_c(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "/* Generated by polyfold's random program generator (seed {}). */",
            self.seed
        );
        out.push_str("#include <stdio.h>\n\n");
        out.push_str("#pragma GCC diagnostic ignored \"-Wunknown-pragmas\"\n");
        out.push_str("#pragma STDC FP_CONTRACT OFF\n\n");
        for (name, value) in &self.sizes {
            let _ = writeln!(out, "#define {name} {value}");
        }
        let _ = writeln!(out, "#define IN_SIZE {INPUT_SIZE}");
        let _ = writeln!(out, "#define OUT_SIZE {OUTPUT_SIZE}");
        out.push('\n');
        out.push_str("static void kernel(double in[IN_SIZE], double out[OUT_SIZE])\n{\n");
        let mut vars: Vec<String> = Vec::new();
        collect_vars(&self.body, &mut vars);
        if !vars.is_empty() {
            let _ = writeln!(out, "    int {};", vars.join(", "));
        }
        for temp in &self.temps {
            let dims: String = temp
                .extents
                .iter()
                .map(|e| format!("[{}]", e.to_c()))
                .collect();
            let _ = writeln!(out, "    double {}{};", temp.name, dims);
        }
        for scalar in &self.scalars {
            let _ = writeln!(out, "    double {scalar};");
        }
        out.push('\n');
        out.push_str("#pragma scop\n");
        for node in &self.body {
            self.print_node(node, 1, &mut out);
        }
        out.push_str("#pragma endscop\n}\n\n");
        out.push_str("int main(void)\n{\n");
        out.push_str("    static double in[IN_SIZE];\n    static double out[OUT_SIZE];\n");
        out.push_str("    int i;\n\n");
        out.push_str("    for (i = 0; i < IN_SIZE; i++)\n");
        out.push_str("        in[i] = (double)((i * 37 + 11) % 23) - 11.0;\n");
        out.push_str("    for (i = 0; i < OUT_SIZE; i++)\n        out[i] = 0.0;\n");
        out.push_str("    kernel(in, out);\n");
        out.push_str("    for (i = 0; i < OUT_SIZE; i++)\n");
        out.push_str("        printf(\"out[%d] %.17g\\n\", i, out[i]);\n");
        out.push_str("    return 0;\n}\n");
        out
    }

    fn access_text(&self, array: usize, subscripts: &[Aff]) -> String {
        let mut text = self.temps[array].name.clone();
        for s in subscripts {
            let _ = write!(text, "[{}]", s.to_c());
        }
        text
    }

    fn target_text(&self, target: &Target) -> String {
        match target {
            Target::Temp { array, subscripts } => self.access_text(*array, subscripts),
            Target::Scalar(s) => self.scalars[*s].clone(),
            Target::Output(index) => format!("out[{}]", index.to_c()),
        }
    }

    fn read_text(&self, read: &Read) -> String {
        match read {
            Read::Temp { array, subscripts } => self.access_text(*array, subscripts),
            Read::Scalar(s) => self.scalars[*s].clone(),
            Read::Input(index) => format!("in[{}]", index.to_c()),
        }
    }

    fn print_node(&self, node: &Node, depth: usize, out: &mut String) {
        let indent = "    ".repeat(depth);
        match node {
            Node::Loop {
                var,
                lower,
                upper,
                body,
            } => {
                let _ = writeln!(
                    out,
                    "{indent}for ({var} = {}; {var} <= {}; {var}++) {{",
                    lower.to_c(),
                    upper.to_c()
                );
                for child in body {
                    self.print_node(child, depth + 1, out);
                }
                let _ = writeln!(out, "{indent}}}");
            }
            Node::If { conditions, body } => {
                let text: Vec<String> = if conditions.is_empty() {
                    vec!["1".to_string()]
                } else {
                    conditions
                        .iter()
                        .map(|c| format!("{} >= 0", c.to_c()))
                        .collect()
                };
                let _ = writeln!(out, "{indent}if ({}) {{", text.join(" && "));
                for child in body {
                    self.print_node(child, depth + 1, out);
                }
                let _ = writeln!(out, "{indent}}}");
            }
            Node::Assign {
                target,
                accumulate,
                reads,
                constant,
            } => {
                let mut rhs: Vec<String> = reads
                    .iter()
                    .map(|(w, r)| {
                        format!("{} * {}", WEIGHTS[*w % WEIGHTS.len()], self.read_text(r))
                    })
                    .collect();
                if *constant != 0 || rhs.is_empty() {
                    rhs.push(format!("{}.0", constant));
                }
                let op = if *accumulate { "+=" } else { "=" };
                let _ = writeln!(
                    out,
                    "{indent}{} {op} {};",
                    self.target_text(target),
                    rhs.join(" + ")
                );
            }
        }
    }

    /// Runs the kernel's control flow for the concrete sizes and checks
    /// that every subscript is in bounds, every temporary cell and scalar
    /// is written before it is read, and the trip count stays small.
    pub fn check_well_defined(&self) -> Result<(), IllDefined> {
        let mut env: HashMap<String, i64> = self.sizes.iter().cloned().collect();
        let mut extents: Vec<Vec<i64>> = Vec::new();
        for temp in &self.temps {
            let mut dims = Vec::new();
            for e in &temp.extents {
                let v = e
                    .eval(&env)
                    .ok_or_else(|| IllDefined(format!("extent of {} unknown", temp.name)))?;
                if v <= 0 || v > 10_000 {
                    return Err(IllDefined(format!("extent {v} of {}", temp.name)));
                }
                dims.push(v);
            }
            if dims.iter().product::<i64>() > 100_000 {
                return Err(IllDefined(format!("{} too big", temp.name)));
            }
            extents.push(dims);
        }
        let mut state = CheckState {
            extents,
            written: vec![HashSet::new(); self.temps.len()],
            scalar_written: vec![false; self.scalars.len()],
            steps: 0,
            statements_run: 0,
        };
        for node in &self.body {
            self.check_node(node, &mut env, &mut state)?;
        }
        Ok(())
    }

    fn cell(
        &self,
        state: &CheckState,
        array: usize,
        subscripts: &[Aff],
        env: &HashMap<String, i64>,
    ) -> Result<Vec<i64>, IllDefined> {
        let dims = state
            .extents
            .get(array)
            .ok_or_else(|| IllDefined(format!("no array {array}")))?;
        if dims.len() != subscripts.len() {
            return Err(IllDefined("wrong number of subscripts".into()));
        }
        let mut cell = Vec::new();
        for (s, extent) in subscripts.iter().zip(dims) {
            let v = s
                .eval(env)
                .ok_or_else(|| IllDefined(format!("unbound name in {}", s.to_c())))?;
            if v < 0 || v >= *extent {
                return Err(IllDefined(format!(
                    "{} out of bounds: {v} not in 0..{extent}",
                    self.temps[array].name
                )));
            }
            cell.push(v);
        }
        Ok(cell)
    }

    fn check_node(
        &self,
        node: &Node,
        env: &mut HashMap<String, i64>,
        state: &mut CheckState,
    ) -> Result<(), IllDefined> {
        state.steps += 1;
        if state.steps > 200_000 {
            return Err(IllDefined("too many steps".into()));
        }
        match node {
            Node::Loop {
                var,
                lower,
                upper,
                body,
            } => {
                if env.contains_key(var) {
                    return Err(IllDefined(format!("iterator {var} reused")));
                }
                let lo = lower
                    .eval(env)
                    .ok_or_else(|| IllDefined("unbound name in a bound".into()))?;
                let hi = upper
                    .eval(env)
                    .ok_or_else(|| IllDefined("unbound name in a bound".into()))?;
                let mut value = lo;
                while value <= hi {
                    env.insert(var.clone(), value);
                    for child in body {
                        let result = self.check_node(child, env, state);
                        if result.is_err() {
                            env.remove(var);
                            return result;
                        }
                    }
                    value += 1;
                }
                env.remove(var);
                Ok(())
            }
            Node::If { conditions, body } => {
                for c in conditions {
                    let v = c
                        .eval(env)
                        .ok_or_else(|| IllDefined("unbound name in a condition".into()))?;
                    if v < 0 {
                        return Ok(());
                    }
                }
                for child in body {
                    self.check_node(child, env, state)?;
                }
                Ok(())
            }
            Node::Assign {
                target,
                accumulate,
                reads,
                ..
            } => {
                state.statements_run += 1;
                for (_, read) in reads {
                    match read {
                        Read::Temp { array, subscripts } => {
                            let cell = self.cell(state, *array, subscripts, env)?;
                            if !state.written[*array].contains(&cell) {
                                return Err(IllDefined(format!(
                                    "{}{cell:?} read before written",
                                    self.temps[*array].name
                                )));
                            }
                        }
                        Read::Scalar(s) => {
                            if !state.scalar_written.get(*s).copied().unwrap_or(false) {
                                return Err(IllDefined(format!("scalar {s} read before written")));
                            }
                        }
                        Read::Input(index) => {
                            let v = index
                                .eval(env)
                                .ok_or_else(|| IllDefined("unbound name in in[]".into()))?;
                            if !(0..INPUT_SIZE).contains(&v) {
                                return Err(IllDefined(format!("in[{v}] out of bounds")));
                            }
                        }
                    }
                }
                match target {
                    Target::Temp { array, subscripts } => {
                        let cell = self.cell(state, *array, subscripts, env)?;
                        if *accumulate && !state.written[*array].contains(&cell) {
                            return Err(IllDefined("accumulation into an unwritten cell".into()));
                        }
                        state.written[*array].insert(cell);
                    }
                    Target::Scalar(s) => {
                        let Some(flag) = state.scalar_written.get_mut(*s) else {
                            return Err(IllDefined(format!("no scalar {s}")));
                        };
                        if *accumulate && !*flag {
                            return Err(IllDefined("accumulation into an unwritten scalar".into()));
                        }
                        *flag = true;
                    }
                    Target::Output(index) => {
                        let v = index
                            .eval(env)
                            .ok_or_else(|| IllDefined("unbound name in out[]".into()))?;
                        if !(0..OUTPUT_SIZE).contains(&v) {
                            return Err(IllDefined(format!("out[{v}] out of bounds")));
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Number of top-level loop nests.
    pub fn nest_count(&self) -> usize {
        self.body
            .iter()
            .filter(|n| matches!(n, Node::Loop { .. }))
            .count()
    }
}

struct CheckState {
    extents: Vec<Vec<i64>>,
    written: Vec<HashSet<Vec<i64>>>,
    scalar_written: Vec<bool>,
    steps: u64,
    statements_run: u64,
}

/// Every loop iterator name used in `nodes`, in first-use order.
fn collect_vars(nodes: &[Node], vars: &mut Vec<String>) {
    for node in nodes {
        match node {
            Node::Loop { var, body, .. } => {
                if !vars.contains(var) {
                    vars.push(var.clone());
                }
                collect_vars(body, vars);
            }
            Node::If { body, .. } => collect_vars(body, vars),
            Node::Assign { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_expressions_print_as_c() {
        let a = Aff {
            terms: vec![("i".into(), 1), ("j".into(), -2), ("N0".into(), 1)],
            constant: -1,
        };
        assert_eq!(a.to_c(), "i - 2 * j + N0 - 1");
        assert_eq!(Aff::constant(0).to_c(), "0");
        assert_eq!(
            Aff::var("j", 0).plus_scaled(&Aff::var("j", 1), -1).to_c(),
            "-1"
        );
    }

    #[test]
    fn reading_an_unwritten_cell_is_ill_defined() {
        let program = GenProgram {
            seed: 0,
            sizes: vec![("N0".into(), 4)],
            temps: vec![TempArray {
                name: "T0".into(),
                extents: vec![Aff::var("N0", 0)],
            }],
            scalars: vec![],
            body: vec![Node::Loop {
                var: "i".into(),
                lower: Aff::constant(1),
                upper: Aff::var("N0", -1),
                body: vec![Node::Assign {
                    target: Target::Temp {
                        array: 0,
                        subscripts: vec![Aff::var("i", 0)],
                    },
                    accumulate: false,
                    reads: vec![(
                        0,
                        Read::Temp {
                            array: 0,
                            subscripts: vec![Aff::var("i", -1)],
                        },
                    )],
                    constant: 0,
                }],
            }],
        };
        // T0[0] is never written, and i = 1 reads it.
        assert!(program.check_well_defined().is_err());
        let mut fixed = program.clone();
        if let Node::Loop { lower, .. } = &mut fixed.body[0] {
            *lower = Aff::constant(0);
        }
        // Now i = 0 reads T0[-1]: out of bounds.
        assert!(fixed.check_well_defined().is_err());
    }
}
