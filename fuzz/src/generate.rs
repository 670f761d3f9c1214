//! The seeded random generator of affine test programs.
//!
//! [`generate`] builds a [`GenProgram`] from a seed: 1 to 3 "groups", each
//! built around one temporary array, placed one after the other, with the
//! separate consumer nests of a group possibly delayed past later groups:
//!
//! - *producer* groups: a loop nest of depth 1–3 (rectangular or
//!   triangular bounds) writes `T[σ(p)]` unconditionally, where σ picks,
//!   permutes, reverses or skews the iterators and adds offsets; guarded
//!   statements then update the same cell from `T[σ(p - d)]` (a
//!   lexicographically earlier iteration, guarded by `p - d ∈ D`, so the
//!   cell is always written before), from an earlier group's array, and
//!   fold values into `out`; later nests read the cells back (same domain,
//!   possibly another loop order, shifted reads guarded to stay inside the
//!   written cells), into `out`, into a local scalar reduction or into a
//!   local reduction array;
//! - *fully initialised* groups: an initialisation nest writes every cell,
//!   then nests read and update cells with random affine subscripts (the
//!   extents are chosen afterwards, to hold every access);
//! - *ping-pong* groups: a time loop with a 1- or 2-d stencil from Q into
//!   A and a copy back from A into Q.
//!
//! [`generate_with`] also uses the forms of C of issue 14 ([`Forms`]): a
//! random subset per program, drawn from a second generator so that with
//! every form switched off ([`generate`]) the programs of each seed are
//! exactly the original ones. Sizes may be kernel parameters (VLAs, with
//! extra calls of sizes 1, 2, 3), `#ifndef`-guarded (other `-D` builds),
//! `#ifdef SMALL_DATASET`-selected (three styles), and have derived
//! macros (`N0-1`, `N0+2`, `(N0)/2`, `N0 % 4`) or inline `N0 / 2`,
//! `N0 % 4` atoms used in bounds, extents and shift distances; ping-pong
//! groups may copy back under a guard over the whole array (`x = y;`)
//! and probe the array in the time loop; *row* groups fill a scratch row
//! per iteration of an outer loop (declared in the loop body, or 2-d at
//! the top), possibly under `#pragma omp parallel for`; guarded folds may
//! get an `else`. The printer adds comments and drops braces from the
//! shape's style seed.
//!
//! The `stencil-chains` form (loop shifting and fusion's input: 2 to 4
//! sibling loops, each stage reading the one before at constant offsets,
//! see [`Builder::stencil_group`]) draws from a third generator whether
//! a program has a chain and which group it is (mostly the first), so
//! that a program without one is exactly the one its seed made before.
//!
//! The forms of issue 45 ([`super::real_c`]) add kernels of their own
//! ("units") after the main kernel, drawn by `real_c::draw_units` from a
//! fourth generator made from the seed: the main kernel of every seed is
//! the one it made before (with a list of these forms only, the classic
//! one).
//!
//! [`generate_sized`] with `symbolic` makes programs whose every size is
//! a kernel parameter without value (the campaign's `--sizes symbolic`):
//! extents and subscript offsets are fitted as affine functions of the
//! sizes, bounds may be `2 * N0 - c` or `N0 + N1 - c`, and `main` calls
//! the kernel with several sizes, the tiny ones among them.
//!
//! Every generated program passes `GenProgram::check_well_defined` for
//! every build and call it declares (the generator retries with the next
//! sub-seed otherwise; other builds and calls under which the original
//! is not well defined are dropped). This module does NOT run polyfold or
//! a compiler.

use std::collections::HashMap;

use super::program::{
    Aff, DatasetStyle, Derived, DerivedOp, Forms, GenProgram, Node, QuotientForm, Read, Shape,
    SizeConfig, SizeForm, Target, TempArray,
};
use super::real_c::{RealCForm, draw_units};
use crate::WEIGHTS;
use polyfold::util::rng::Rng;

const LOOP_VARS: [&str; 3] = ["i", "j", "k"];

/// One loop level of a domain: `lower <= var <= upper`.
#[derive(Clone, Debug)]
struct Level {
    var: String,
    lower: Aff,
    upper: Aff,
}

type Domain = Vec<Level>;

/// A shift of the iterators: `var -> var + d` (d affine in the sizes).
type Shift = Vec<(String, Aff)>;

/// The inequalities (`aff >= 0`) of a domain.
fn constraints(domain: &Domain) -> Vec<Aff> {
    let mut out = Vec::new();
    for level in domain {
        out.push(Aff::var(&level.var, 0).plus_scaled(&level.lower, -1));
        out.push(level.upper.plus_scaled(&Aff::var(&level.var, 0), -1));
    }
    out
}

/// The conditions under which `p + shift` lies in `domain`, for a point
/// `p` of `domain`: only the constraints that the shift tightens.
fn guard_for_shift(domain: &Domain, shift: &[(String, Aff)]) -> Vec<Aff> {
    constraints(domain)
        .into_iter()
        .filter_map(|c| {
            let shifted = c.shifted_by(shift);
            // Kept unless the shift provably loosens the constraint (a
            // size-dependent shift always keeps it: redundant at worst).
            let delta = shifted.plus_scaled(&c, -1);
            (!delta.terms.is_empty() || delta.constant < 0).then_some(shifted)
        })
        .collect()
}

/// The affine function whose coefficients and constant are the larger
/// of `a`'s and `b`'s: at least both wherever the names are >= 0.
fn coefficient_max(a: &Aff, b: &Aff) -> Aff {
    let mut names: Vec<String> = Vec::new();
    for (n, _) in a.terms.iter().chain(&b.terms) {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    Aff {
        terms: names
            .into_iter()
            .map(|n| {
                let c = a.coeff(&n).max(b.coeff(&n));
                (n, c)
            })
            .collect(),
        constant: a.constant.max(b.constant),
    }
    .normalised()
}

/// Calls `visit` with the environment of every point of `domain`.
fn for_each_point(
    domain: &[Level],
    env: &mut HashMap<String, i64>,
    visit: &mut dyn FnMut(&HashMap<String, i64>),
) {
    let Some((first, rest)) = domain.split_first() else {
        visit(env);
        return;
    };
    let (Some(lo), Some(hi)) = (first.lower.eval(env), first.upper.eval(env)) else {
        return;
    };
    for v in lo..=hi {
        env.insert(first.var.clone(), v);
        for_each_point(rest, env, visit);
    }
    env.remove(&first.var);
}

/// Minimum and maximum of each expression over `domain` (`None` when the
/// domain is empty).
fn ranges(domain: &Domain, sizes: &HashMap<String, i64>, exprs: &[Aff]) -> Option<Vec<(i64, i64)>> {
    let mut result: Option<Vec<(i64, i64)>> = None;
    let mut env = sizes.clone();
    for_each_point(domain, &mut env, &mut |point| {
        let values: Vec<i64> = exprs.iter().map(|e| e.eval(point).unwrap_or(0)).collect();
        match &mut result {
            None => result = Some(values.iter().map(|v| (*v, *v)).collect()),
            Some(r) => {
                for (range, v) in r.iter_mut().zip(&values) {
                    range.0 = range.0.min(*v);
                    range.1 = range.1.max(*v);
                }
            }
        }
    });
    result
}

/// The producer of one group: its domain, array and write map.
#[derive(Clone, Debug)]
struct Producer {
    domain: Domain,
    array: usize,
    map: Vec<Aff>,
}

struct Builder {
    rng: Rng,
    program: GenProgram,
    size_values: HashMap<String, i64>,
    producers: Vec<Producer>,
    /// The forms this program may use (a random subset of the caller's).
    forms: Forms,
    /// The draws of the forms, separate from `rng` so that the classic
    /// draws do not move when forms are switched off.
    form_rng: Rng,
    /// [`SizeMode::Symbolic`](super::program::SizeMode): extents and
    /// subscript offsets are affine in the sizes (fitted by
    /// [`Builder::fitted_ranges`]) so that the program stays well defined
    /// at other sizes than the ones it was built for.
    symbolic: bool,
}

impl Builder {
    /// The names of the program's sizes (`N0`, `N1`, ...).
    fn size_names(&self) -> Vec<String> {
        self.program
            .sizes
            .iter()
            .filter(|(n, _)| n.starts_with('N'))
            .map(|(n, _)| n.clone())
            .collect()
    }

    fn param(&mut self) -> String {
        let names = self.size_names();
        self.rng.pick(&names).clone()
    }

    fn weight(&mut self) -> usize {
        self.rng.below(WEIGHTS.len())
    }

    fn new_temp(&mut self, extents: Vec<Aff>) -> usize {
        let name = format!("T{}", self.program.temps.len());
        self.program.temps.push(TempArray { name, extents });
        self.program.temps.len() - 1
    }

    fn new_scalar(&mut self) -> usize {
        let name = format!("s{}", self.program.scalars.len());
        self.program.scalars.push(name);
        self.program.scalars.len() - 1
    }

    /// `P + c` with the value `value`, for a random size macro `P`.
    fn extent_expr(&mut self, value: i64) -> Aff {
        if self.form(self.forms.div_mod || self.forms.derived_macros, 1, 3)
            && let Some(atom) = self.atom(0)
        {
            let av = self.size_values[&atom];
            return Aff::var(&atom, value - av);
        }
        if self.rng.chance(1, 5) {
            return Aff::constant(value);
        }
        let p = self.param();
        let pv = self.size_values[&p];
        Aff::var(&p, value - pv)
    }

    /// The minimum and maximum of each expression over `domain`, as
    /// affine functions of the base sizes: exact at the sizes' values,
    /// with the slope in each base size measured at its value plus one.
    /// Elsewhere they are a guess (exact where the shape of the domain
    /// does not change); the well-definedness check of each call keeps
    /// only the sizes where the program is valid. `None` when the domain
    /// is empty at the sizes' values.
    fn fitted_ranges(&self, domain: &Domain, exprs: &[Aff]) -> Option<Vec<(Aff, Aff)>> {
        let base = ranges(domain, &self.size_values, exprs)?;
        let mut fitted: Vec<(Aff, Aff)> = base
            .iter()
            .map(|(lo, hi)| (Aff::constant(*lo), Aff::constant(*hi)))
            .collect();
        for (name, value) in &self.program.sizes {
            let env = self.program.environment(&[(name.clone(), value + 1)]);
            let Some(up) = ranges(domain, &env, exprs) else {
                continue;
            };
            let step = Aff::var(name, -value);
            for ((lo, hi), ((lo0, hi0), (lo1, hi1))) in fitted.iter_mut().zip(base.iter().zip(&up))
            {
                *lo = lo.plus_scaled(&step, lo1 - lo0);
                *hi = hi.plus_scaled(&step, hi1 - hi0);
            }
        }
        Some(fitted)
    }

    /// A nest depth: 1 (35%), 2 (50%) or 3 (15%).
    fn random_depth(&mut self) -> usize {
        match self.rng.below(20) {
            0..=6 => 1,
            7..=16 => 2,
            _ => 3,
        }
    }

    fn random_domain(&mut self, depth: usize) -> Domain {
        let mut domain: Domain = Vec::new();
        for m in 0..depth {
            let var = LOOP_VARS[m].to_string();
            let triangular = m > 0 && self.rng.chance(1, 3);
            let outer = if m > 0 {
                Some(domain[self.rng.below(m)].var.clone())
            } else {
                None
            };
            let p = self.param();
            let mut lower = Aff::constant(self.rng.range(0, 1));
            let mut upper = Aff::var(&p, -self.rng.range(1, 2));
            if self.form(self.forms.div_mod || self.forms.derived_macros, 1, 4)
                && let Some(atom) = self.atom(1)
            {
                upper = Aff::var(&atom, -self.form_rng.range(0, 1));
            }
            if self.symbolic {
                // Bounds `2 * N0 - c` and `N0 + N1 - c` (symbolic mode
                // only: no draw otherwise).
                let names: Vec<String> = self
                    .program
                    .sizes
                    .iter()
                    .filter(|(n, _)| n.starts_with('N'))
                    .map(|(n, _)| n.clone())
                    .collect();
                match self.form_rng.below(8) {
                    0 => {
                        upper = Aff {
                            terms: vec![(p.clone(), 2)],
                            constant: -self.form_rng.range(1, 3),
                        }
                    }
                    1 if names.len() >= 2 => {
                        let q = self.form_rng.pick(&names).clone();
                        upper = Aff::var(&p, -self.form_rng.range(1, 2))
                            .plus_scaled(&Aff::var(&q, 0), 1);
                    }
                    _ => {}
                }
            }
            if let (true, Some(outer)) = (triangular, outer) {
                if self.rng.chance(1, 2) {
                    lower = Aff::var(&outer, self.rng.range(0, 1));
                } else {
                    upper = Aff::var(&outer, -self.rng.range(0, 1));
                }
            }
            domain.push(Level { var, lower, upper });
        }
        domain
    }

    /// A random write map from `domain` to an array, with offsets making
    /// every subscript non-negative; returns the map and the extents.
    fn random_map(&mut self, domain: &Domain) -> Option<(Vec<Aff>, Vec<Aff>)> {
        let depth = domain.len();
        let mut vars: Vec<String> = domain.iter().map(|l| l.var.clone()).collect();
        for i in (1..vars.len()).rev() {
            let j = self.rng.below(i + 1);
            vars.swap(i, j);
        }
        let dims = if depth >= 2 && self.rng.chance(1, 5) {
            depth - 1
        } else {
            depth
        };
        let mut map: Vec<Aff> = Vec::new();
        for var in vars.iter().take(dims) {
            let sign = if self.rng.chance(1, 8) { -1 } else { 1 };
            let mut aff = Aff {
                terms: vec![(var.clone(), sign)],
                constant: 0,
            };
            if depth >= 2 && self.rng.chance(1, 5) {
                let other = self.rng.pick(&vars).clone();
                if &other != var {
                    aff.terms.push((other, self.rng.range(-1, 1)));
                    aff = aff.normalised();
                }
            }
            map.push(aff);
        }
        if self.symbolic {
            // `T[i - lo + r]` of extent `hi - lo + 1 + r + slack`, with
            // `lo` and `hi` affine in the sizes.
            let fitted = self.fitted_ranges(domain, &map)?;
            let mut extents = Vec::new();
            for (aff, (lo, hi)) in map.iter_mut().zip(fitted) {
                let offset = Aff::constant(self.rng.range(0, 1)).plus_scaled(&lo, -1);
                *aff = aff.plus_scaled(&offset, 1);
                let slack = self.rng.range(0, 1);
                extents.push(
                    hi.plus_scaled(&offset, 1)
                        .plus_scaled(&Aff::constant(1 + slack), 1),
                );
            }
            return Some((map, extents));
        }
        let r = ranges(domain, &self.size_values, &map)?;
        let mut extents = Vec::new();
        for (aff, (lo, hi)) in map.iter_mut().zip(r) {
            let offset = -lo + self.rng.range(0, 1);
            aff.constant += offset;
            let slack = self.rng.range(0, 1);
            extents.push(self.extent_expr(hi + offset + 1 + slack));
        }
        Some((map, extents))
    }

    /// Wraps `body` in the loops of `domain` in the given order.
    fn nest(domain: &Domain, order: &[usize], body: Vec<Node>) -> Vec<Node> {
        let mut nodes = body;
        for &m in order.iter().rev() {
            let level = &domain[m];
            nodes = vec![Node::Loop {
                var: level.var.clone(),
                lower: level.lower.clone(),
                upper: level.upper.clone(),
                body: nodes,
            }];
        }
        nodes
    }

    fn guarded(conditions: Vec<Aff>, body: Vec<Node>) -> Vec<Node> {
        if conditions.is_empty() {
            body
        } else {
            vec![Node::If {
                conditions,
                any: false,
                body,
            }]
        }
    }

    /// [`Builder::guarded`], sometimes with an `else` that folds an
    /// input value into `out` (the `else` form).
    fn guarded_else(
        &mut self,
        conditions: Vec<Aff>,
        body: Vec<Node>,
        vars: &[String],
    ) -> Vec<Node> {
        if conditions.is_empty() || !self.form(self.forms.else_branches, 1, 3) {
            return Self::guarded(conditions, body);
        }
        let w = self.weight();
        let index = self.input_read(vars);
        let target = self.output_target(vars);
        vec![Node::IfElse {
            conditions,
            then_body: body,
            else_body: vec![Node::Assign {
                target,
                accumulate: true,
                reads: vec![(w, index)],
                constant: 0,
            }],
        }]
    }

    /// A read of `in`: at an index from some iterators of `vars`, or (the
    /// `products` form) at a size times one of them plus such an index.
    fn input_read(&mut self, vars: &[String]) -> Read {
        if !vars.is_empty() && self.form(self.forms.products, 1, 2) {
            let var = self.form_rng.pick(vars).clone();
            let size = self.form_rng.pick(&self.program.sizes).0.clone();
            let rest: Vec<String> = vars.iter().filter(|v| **v != var).cloned().collect();
            let offset = self.input_index(&rest);
            return Read::InputScaled { size, var, offset };
        }
        if !vars.is_empty() && self.form(self.forms.div_mod, 1, 4) {
            // A quotient in the subscript (a quotient dimension of the
            // statement), on either sign when the index may be negative.
            let k = self.form_rng.range(2, 4);
            let form = match self.form_rng.below(4) {
                0 => QuotientForm::Div(k),
                1 => QuotientForm::Mod(k),
                2 => QuotientForm::ModShifted(k),
                _ => QuotientForm::DivMod(k, self.form_rng.range(2, 5)),
            };
            let index = self.input_index(vars);
            if index.terms.is_empty() {
                return Read::Input(index);
            }
            return Read::InputQuotient { index, form };
        }
        Read::Input(self.input_index(vars))
    }

    /// An index into `in` from some iterators of `vars`.
    fn input_index(&mut self, vars: &[String]) -> Aff {
        let mut aff = Aff::constant(self.rng.range(0, 3));
        for v in vars {
            if self.rng.chance(2, 3) {
                aff.terms.push((v.clone(), 1));
            }
        }
        aff
    }

    /// An index into `out`: an iterator plus a constant, or a constant.
    /// An `out` cell from some iterators of `vars`, or (the `products`
    /// form, one time in four) at a size times one of them plus such an
    /// index: a product folded into the subscript of an array the SCoP
    /// writes (`blury[ty * B + y]`), which concerns `out` only.
    fn output_target(&mut self, vars: &[String]) -> Target {
        if !vars.is_empty() && self.form(self.forms.products, 1, 4) {
            let var = self.form_rng.pick(vars).clone();
            let size = self.form_rng.pick(&self.program.sizes).0.clone();
            let offset = Aff::constant(self.form_rng.range(0, 3));
            return Target::OutputScaled { size, var, offset };
        }
        Target::Output(self.output_index(vars))
    }

    fn output_index(&mut self, vars: &[String]) -> Aff {
        if vars.is_empty() || self.rng.chance(1, 3) {
            Aff::constant(self.rng.range(0, 7))
        } else {
            {
                let v = self.rng.pick(vars).clone();
                Aff::var(&v, self.rng.range(0, 3))
            }
        }
    }

    /// A lexicographically positive small vector over `depth` iterators.
    fn positive_shift(&mut self, domain: &Domain) -> Shift {
        let depth = domain.len();
        let lead = self.rng.below(depth);
        let mut shift: Shift = domain
            .iter()
            .enumerate()
            .map(|(m, l)| {
                let d = if m < lead {
                    0
                } else if m == lead {
                    self.rng.range(1, 2)
                } else {
                    self.rng.range(-1, 1)
                };
                (l.var.clone(), Aff::constant(d))
            })
            .collect();
        // `/` and `%` forms: the leading distance becomes a derived size
        // (`N0 / 2`, `HALF0`), at least 1 for the sizes seen here. Not with
        // symbolic sizes: in a subscript a quotient of a parameter leaves
        // the statement out of every SCoP.
        if !self.symbolic
            && self.form(self.forms.div_mod || self.forms.derived_macros, 1, 3)
            && let Some(atom) = self.atom(1)
        {
            shift[lead].1 = Aff::var(&atom, 0);
        }
        shift
    }

    fn any_shift(&mut self, domain: &Domain) -> Shift {
        domain
            .iter()
            .map(|l| {
                let d = if self.rng.chance(1, 2) {
                    0
                } else {
                    self.rng.range(-1, 1)
                };
                (l.var.clone(), Aff::constant(d))
            })
            .collect()
    }

    fn neg(shift: &[(String, Aff)]) -> Shift {
        shift
            .iter()
            .map(|(n, d)| (n.clone(), Aff::constant(0).plus_scaled(d, -1)))
            .collect()
    }

    fn apply(map: &[Aff], shift: &[(String, Aff)]) -> Vec<Aff> {
        map.iter().map(|a| a.shifted_by(shift)).collect()
    }

    /// True with probability `num / den` when `enabled` (no draw
    /// otherwise, so that switched-off forms leave the classic sequence
    /// of draws intact).
    fn form(&mut self, enabled: bool, num: u64, den: u64) -> bool {
        enabled && self.form_rng.chance(num, den)
    }

    /// A derived size whose value (for the sizes seen) is at least `min`.
    fn atom(&mut self, min: i64) -> Option<String> {
        let names: Vec<String> = self
            .program
            .shape
            .derived
            .iter()
            .filter(|d| self.size_values.get(&d.name).is_some_and(|v| *v >= min))
            .map(|d| d.name.clone())
            .collect();
        if names.is_empty() {
            None
        } else {
            Some(self.form_rng.pick(&names).clone())
        }
    }

    /// A random affine condition over the iterators of `domain` and the
    /// sizes (any condition: it only restricts where a consumer reads).
    fn random_condition(&mut self, domain: &Domain) -> Aff {
        let mut aff = Aff::constant(self.rng.range(-2, 2));
        for l in domain {
            let c = self.rng.range(-1, 2);
            if c != 0 {
                aff.terms.push((l.var.clone(), c));
            }
        }
        if self.rng.chance(1, 2) {
            let p = self.param();
            aff.terms.push((p, 1));
        }
        aff.normalised()
    }

    /// A producer group. Returns (producer nodes, consumer units).
    fn producer_group(&mut self) -> Option<(Vec<Node>, Vec<Vec<Node>>)> {
        // Possibly reuse an earlier producer's domain and read its array.
        let mut chain: Option<Producer> = None;
        let domain = if !self.producers.is_empty() && self.rng.chance(2, 5) {
            let p = self.rng.pick(&self.producers).clone();
            let d = p.domain.clone();
            chain = Some(p);
            d
        } else {
            let depth = self.random_depth();
            self.random_domain(depth)
        };
        let vars: Vec<String> = domain.iter().map(|l| l.var.clone()).collect();
        let (map, extents) = self.random_map(&domain)?;
        let array = self.new_temp(extents);
        let here = Target::Temp {
            array,
            subscripts: map.clone(),
        };
        let mut body = Vec::new();
        // S1: the unconditional write.
        let w = self.weight();
        let index = self.input_read(&vars);
        body.push(Node::Assign {
            target: here.clone(),
            accumulate: false,
            reads: vec![(w, index)],
            constant: self.rng.range(-2, 2),
        });
        // A read of an earlier group's array, guarded to its written cells.
        if let Some(earlier) = &chain {
            let shift = self.any_shift(&domain);
            let guard = guard_for_shift(&earlier.domain, &shift);
            let w = self.weight();
            body.extend(Self::guarded(
                guard,
                vec![Node::Assign {
                    target: here.clone(),
                    accumulate: true,
                    reads: vec![(
                        w,
                        Read::Temp {
                            array: earlier.array,
                            subscripts: Self::apply(&earlier.map, &shift),
                        },
                    )],
                    constant: 0,
                }],
            ));
        }
        // Updates from earlier iterations of the same nest.
        let updates = self.rng.range(0, 1) + i64::from(self.rng.chance(1, 6));
        for _ in 0..updates {
            let shift = self.positive_shift(&domain);
            let back = Self::neg(&shift);
            let guard = guard_for_shift(&domain, &back);
            let read = Read::Temp {
                array,
                subscripts: Self::apply(&map, &back),
            };
            let (w1, w2) = (self.weight(), self.weight());
            let stmt = if self.rng.chance(1, 2) {
                Node::Assign {
                    target: here.clone(),
                    accumulate: false,
                    reads: vec![
                        (
                            w1,
                            Read::Temp {
                                array,
                                subscripts: map.clone(),
                            },
                        ),
                        (w2, read),
                    ],
                    constant: 0,
                }
            } else {
                Node::Assign {
                    target: here.clone(),
                    accumulate: true,
                    reads: vec![(w2, read)],
                    constant: 0,
                }
            };
            body.extend(Self::guarded(guard, vec![stmt]));
        }
        // In-nest consumers: fold recent values into `out`.
        let folds = 1 + i64::from(self.rng.chance(1, 4));
        for _ in 0..folds {
            let shift = if self.rng.chance(1, 2) {
                vec![]
            } else {
                self.positive_shift(&domain)
            };
            let back = Self::neg(&shift);
            let mut guard = guard_for_shift(&domain, &back);
            if self.rng.chance(1, 4) {
                guard.push(self.random_condition(&domain));
            }
            let w = self.weight();
            let target = self.output_target(&vars);
            let folded = self.guarded_else(
                guard,
                vec![Node::Assign {
                    target,
                    accumulate: true,
                    reads: vec![(
                        w,
                        Read::Temp {
                            array,
                            subscripts: Self::apply(&map, &back),
                        },
                    )],
                    constant: 0,
                }],
                &vars,
            );
            body.extend(folded);
        }
        let order: Vec<usize> = (0..domain.len()).collect();
        let producer_nodes = Self::nest(&domain, &order, body);
        let producer = Producer {
            domain: domain.clone(),
            array,
            map: map.clone(),
        };
        self.producers.push(producer.clone());
        // Later consumers.
        let mut consumers = Vec::new();
        let n_consumers = i64::from(self.rng.chance(2, 5)) + i64::from(self.rng.chance(1, 8));
        for _ in 0..n_consumers {
            consumers.push(self.consumer(&producer));
        }
        Some((producer_nodes, consumers))
    }

    /// A later nest reading the producer's cells.
    fn consumer(&mut self, producer: &Producer) -> Vec<Node> {
        let domain = &producer.domain;
        let rectangular = domain.iter().all(|l| {
            l.lower
                .terms
                .iter()
                .all(|(n, _)| !LOOP_VARS.contains(&n.as_str()))
                && l.upper
                    .terms
                    .iter()
                    .all(|(n, _)| !LOOP_VARS.contains(&n.as_str()))
        });
        let mut order: Vec<usize> = (0..domain.len()).collect();
        if rectangular {
            for i in (1..order.len()).rev() {
                let j = self.rng.below(i + 1);
                order.swap(i, j);
            }
        }
        let shift = self.any_shift(domain);
        let mut guard = guard_for_shift(domain, &shift);
        if self.rng.chance(1, 4) {
            guard.push(self.random_condition(domain));
        }
        let read = Read::Temp {
            array: producer.array,
            subscripts: Self::apply(&producer.map, &shift),
        };
        let w = self.weight();
        let outer_var = domain[order[0]].var.clone();
        let kind = self.rng.below(3);
        if kind == 0 || domain.len() < 2 && kind == 2 {
            // Straight into `out`.
            let vars: Vec<String> = domain.iter().map(|l| l.var.clone()).collect();
            let target = self.output_target(&vars);
            let stmt = Node::Assign {
                target,
                accumulate: true,
                reads: vec![(w, read)],
                constant: 0,
            };
            Self::nest(domain, &order, Self::guarded(guard, vec![stmt]))
        } else if kind == 1 {
            // A scalar reduction.
            let s = self.new_scalar();
            let mut nodes = vec![Node::Assign {
                target: Target::Scalar(s),
                accumulate: false,
                reads: vec![],
                constant: self.rng.range(0, 1),
            }];
            let stmt = Node::Assign {
                target: Target::Scalar(s),
                accumulate: true,
                reads: vec![(w, read)],
                constant: 0,
            };
            nodes.extend(Self::nest(domain, &order, Self::guarded(guard, vec![stmt])));
            let w2 = self.weight();
            nodes.push(Node::Assign {
                target: Target::Output(Aff::constant(self.rng.range(0, 7))),
                accumulate: true,
                reads: vec![(w2, Read::Scalar(s))],
                constant: 0,
            });
            nodes
        } else {
            // A reduction array indexed by the outer iterator.
            let outer = &domain[order[0]];
            if self.symbolic {
                let Some(fitted) =
                    self.fitted_ranges(&vec![outer.clone()], &[Aff::var(&outer_var, 0)])
                else {
                    return Vec::new();
                };
                let (lo, hi) = &fitted[0];
                let extent = hi.plus_scaled(lo, -1).plus_scaled(&Aff::constant(1), 1);
                let cell = Aff::var(&outer_var, 0).plus_scaled(lo, -1);
                return self.reduction_array(
                    domain,
                    &order,
                    guard,
                    read,
                    w,
                    outer.clone(),
                    extent,
                    cell,
                );
            }
            let r = ranges(
                &vec![outer.clone()],
                &self.size_values,
                &[Aff::var(&outer_var, 0)],
            );
            let Some(r) = r else {
                return Vec::new();
            };
            let (lo, hi) = r[0];
            let offset = -lo;
            let extent = self.extent_expr(hi + offset + 1);
            let outer = outer.clone();
            self.reduction_array(
                domain,
                &order,
                guard,
                read,
                w,
                outer,
                extent,
                Aff::var(&outer_var, offset),
            )
        }
    }

    /// The reduction-array consumer: `R[cell] = c;` then, inside the
    /// loops of `domain` but the outer one, `R[cell] += w * read;`, then
    /// `out[outer + c] += w2 * R[cell];`, all in the outer loop.
    #[allow(clippy::too_many_arguments)]
    fn reduction_array(
        &mut self,
        domain: &Domain,
        order: &[usize],
        guard: Vec<Aff>,
        read: Read,
        w: usize,
        outer: Level,
        extent: Aff,
        cell: Aff,
    ) -> Vec<Node> {
        let outer_var = outer.var.clone();
        {
            let red = self.new_temp(vec![extent]);
            let cell = vec![cell];
            let init = Node::Assign {
                target: Target::Temp {
                    array: red,
                    subscripts: cell.clone(),
                },
                accumulate: false,
                reads: vec![],
                constant: self.rng.range(0, 2),
            };
            let stmt = Node::Assign {
                target: Target::Temp {
                    array: red,
                    subscripts: cell.clone(),
                },
                accumulate: true,
                reads: vec![(w, read)],
                constant: 0,
            };
            let inner = Self::nest(domain, &order[1..], Self::guarded(guard, vec![stmt]));
            let w2 = self.weight();
            let fold = Node::Assign {
                target: Target::Output(Aff::var(&outer_var, self.rng.range(0, 3))),
                accumulate: true,
                reads: vec![(
                    w2,
                    Read::Temp {
                        array: red,
                        subscripts: cell,
                    },
                )],
                constant: 0,
            };
            let mut body = vec![init];
            body.extend(inner);
            body.push(fold);
            vec![Node::Loop {
                var: outer.var.clone(),
                lower: outer.lower.clone(),
                upper: outer.upper.clone(),
                body,
            }]
        }
    }

    /// A fully initialised group: random affine reads, extents fitted.
    fn initialised_group(&mut self) -> Option<(Vec<Node>, Vec<Vec<Node>>)> {
        let dims = self.rng.range(1, 3) as usize;
        let array = self.new_temp(vec![Aff::constant(1); dims]);
        let units: Vec<Vec<Node>> = Vec::new();
        let mut accesses: Vec<(Domain, Vec<Aff>)> = Vec::new();
        let n = 1 + i64::from(self.rng.chance(1, 3));
        for _ in 0..n {
            let depth = self.random_depth();
            let domain = self.random_domain(depth);
            let mut subs: Vec<Aff> = Vec::new();
            for _ in 0..dims {
                let mut aff = Aff::constant(0);
                for l in &domain {
                    let c = *self.rng.pick(&[0, 0, 1, 1, 1, -1, 2]);
                    if c != 0 {
                        aff.terms.push((l.var.clone(), c));
                    }
                }
                subs.push(aff.normalised());
            }
            if self.symbolic {
                let fitted = self.fitted_ranges(&domain, &subs)?;
                for (s, (lo, _)) in subs.iter_mut().zip(&fitted) {
                    *s = s.plus_scaled(lo, -1);
                }
            } else {
                let r = ranges(&domain, &self.size_values, &subs)?;
                for (s, (lo, _)) in subs.iter_mut().zip(&r) {
                    s.constant -= lo;
                }
            }
            accesses.push((domain, subs));
        }
        if self.symbolic {
            // Extents: per dimension, an affine bound of the largest
            // subscript of every access (coefficient-wise maximum: sizes
            // are positive), plus slack.
            let mut maxima = vec![Aff::constant(0); dims];
            for (domain, subs) in &accesses {
                let fitted = self.fitted_ranges(domain, subs)?;
                for (m, (_, hi)) in maxima.iter_mut().zip(fitted) {
                    *m = coefficient_max(m, &hi);
                }
            }
            let extents: Vec<Aff> = maxima
                .iter()
                .map(|m| m.plus_scaled(&Aff::constant(1 + self.rng.range(0, 1)), 1))
                .collect();
            return self.finish_initialised_group(array, extents, accesses, units);
        }
        // Extents: the largest subscript of every access, plus slack.
        let mut maxima = vec![0i64; dims];
        for (domain, subs) in &accesses {
            let r = ranges(domain, &self.size_values, subs)?;
            for (m, (_, hi)) in maxima.iter_mut().zip(r) {
                *m = (*m).max(hi);
            }
        }
        let extents: Vec<Aff> = maxima
            .iter()
            .map(|m| {
                let slack = self.rng.range(0, 1);
                self.extent_expr(m + 1 + slack)
            })
            .collect();
        self.finish_initialised_group(array, extents, accesses, units)
    }

    /// The initialisation nest of every cell of `array` (of `extents`),
    /// then the nests of `accesses`.
    fn finish_initialised_group(
        &mut self,
        array: usize,
        extents: Vec<Aff>,
        accesses: Vec<(Domain, Vec<Aff>)>,
        mut units: Vec<Vec<Node>>,
    ) -> Option<(Vec<Node>, Vec<Vec<Node>>)> {
        let dims = extents.len();
        // The initialisation nest over every cell.
        let init_domain: Domain = extents
            .iter()
            .enumerate()
            .map(|(m, e)| Level {
                var: LOOP_VARS[m].to_string(),
                lower: Aff::constant(0),
                upper: e.plus_scaled(&Aff::constant(1), -1),
            })
            .collect();
        let init_vars: Vec<String> = init_domain.iter().map(|l| l.var.clone()).collect();
        let w = self.weight();
        let init_stmt = Node::Assign {
            target: Target::Temp {
                array,
                subscripts: init_vars.iter().map(|v| Aff::var(v, 0)).collect(),
            },
            accumulate: false,
            reads: vec![(w, self.input_read(&init_vars))],
            constant: self.rng.range(-1, 1),
        };
        let order: Vec<usize> = (0..dims).collect();
        let mut producer_nodes = Self::nest(&init_domain, &order, vec![init_stmt]);
        self.program.temps[array].extents = extents;
        for (domain, subs) in accesses {
            let vars: Vec<String> = domain.iter().map(|l| l.var.clone()).collect();
            let order: Vec<usize> = (0..domain.len()).collect();
            let mut body = Vec::new();
            let here = Target::Temp {
                array,
                subscripts: subs.clone(),
            };
            if self.rng.chance(1, 2) {
                let (w1, w2) = (self.weight(), self.weight());
                let index = self.input_read(&vars);
                body.push(Node::Assign {
                    target: here,
                    accumulate: false,
                    reads: vec![
                        (
                            w1,
                            Read::Temp {
                                array,
                                subscripts: subs.clone(),
                            },
                        ),
                        (w2, index),
                    ],
                    constant: 0,
                });
            }
            let w = self.weight();
            let mut guard = Vec::new();
            if self.rng.chance(1, 4) {
                guard.push(self.random_condition(&domain));
            }
            body.extend(Self::guarded(
                guard,
                vec![Node::Assign {
                    target: self.output_target(&vars),
                    accumulate: true,
                    reads: vec![(
                        w,
                        Read::Temp {
                            array,
                            subscripts: subs,
                        },
                    )],
                    constant: 0,
                }],
            ));
            let nest = Self::nest(&domain, &order, body);
            if units.is_empty() {
                producer_nodes.extend(nest);
                units.push(Vec::new());
            } else {
                units.push(nest);
            }
        }
        units.retain(|u| !u.is_empty());
        Some((producer_nodes, units))
    }

    /// A ping-pong group: a time loop with a stencil and a copy.
    fn pingpong_group(&mut self) -> Option<(Vec<Node>, Vec<Vec<Node>>)> {
        if !self.program.sizes.iter().any(|(n, _)| n == "TS") {
            let steps = self.rng.range(1, 3);
            self.program.sizes.push(("TS".to_string(), steps));
            self.size_values.insert("TS".to_string(), steps);
            if self.symbolic {
                // The time steps are a kernel parameter too (the forms
                // of the sizes before it are all `Parameter`).
                let forms = &mut self.program.shape.size_forms;
                forms.resize(self.program.sizes.len(), SizeForm::Parameter);
            }
        }
        let dims = self.rng.range(1, 2) as usize;
        let p = self.param();
        let pv = self.size_values[&p];
        let extent = Aff::var(&p, 2);
        let q = self.new_temp(vec![extent.clone(); dims]);
        let a_extent = if self.rng.chance(1, 2) {
            Aff::var(&p, 1)
        } else {
            Aff::var(&p, 2)
        };
        let a = self.new_temp(vec![a_extent; dims]);
        let vars: Vec<String> = LOOP_VARS[..dims].iter().map(|s| s.to_string()).collect();
        let full: Domain = vars
            .iter()
            .map(|v| Level {
                var: v.clone(),
                lower: Aff::constant(0),
                upper: Aff::var(&p, 1),
            })
            .collect();
        let inner: Domain = vars
            .iter()
            .map(|v| Level {
                var: v.clone(),
                lower: Aff::constant(1),
                upper: Aff::var(&p, 0),
            })
            .collect();
        let order: Vec<usize> = (0..dims).collect();
        let at = |shift: &[i64]| -> Vec<Aff> {
            vars.iter()
                .zip(shift)
                .map(|(v, d)| Aff::var(v, *d))
                .collect()
        };
        let zero = vec![0i64; dims];
        let w = self.weight();
        let init = Node::Assign {
            target: Target::Temp {
                array: q,
                subscripts: at(&zero),
            },
            accumulate: false,
            reads: vec![(w, self.input_read(&vars))],
            constant: 0,
        };
        let mut nodes = Self::nest(&full, &order, vec![init]);
        let mut reads = vec![(
            self.weight(),
            Read::Temp {
                array: q,
                subscripts: at(&zero),
            },
        )];
        for m in 0..dims {
            for d in [-1, 1] {
                if self.rng.chance(3, 4) {
                    let mut s = zero.clone();
                    s[m] = d;
                    reads.push((
                        self.rng.below(3),
                        Read::Temp {
                            array: q,
                            subscripts: at(&s),
                        },
                    ));
                }
            }
        }
        let stencil = Node::Assign {
            target: Target::Temp {
                array: a,
                subscripts: at(&zero),
            },
            accumulate: false,
            reads,
            constant: 0,
        };
        let copy = Node::Assign {
            target: Target::Temp {
                array: q,
                subscripts: at(&zero),
            },
            accumulate: false,
            reads: vec![(
                3,
                Read::Temp {
                    array: a,
                    subscripts: at(&zero),
                },
            )],
            constant: 0,
        };
        let mut time_body = Self::nest(&inner, &order, vec![stencil]);
        if self.form(self.forms.copy_back, 2, 3) {
            // `for (i = 0; i <= N + 1; i++) if (i >= 1 && i <= N) Q[i] = A[i];`
            // then a probe of Q inside the time loop.
            let guard: Vec<Aff> = vars
                .iter()
                .flat_map(|v| {
                    [
                        Aff::var(v, -1),
                        Aff::var(&p, 0).plus_scaled(&Aff::var(v, 0), -1),
                    ]
                })
                .collect();
            time_body.extend(Self::nest(&full, &order, Self::guarded(guard, vec![copy])));
            let mut probe = Vec::new();
            for _ in 0..dims {
                let candidates: Vec<String> = self
                    .program
                    .shape
                    .derived
                    .iter()
                    .filter(|d| d.base == p)
                    .map(|d| d.name.clone())
                    .collect();
                let index = if !candidates.is_empty() && self.form_rng.chance(2, 3) {
                    let name = self.form_rng.pick(&candidates).clone();
                    Aff::var(&name, 0)
                } else if self.form_rng.chance(1, 2) {
                    Aff::var(&p, 0)
                } else {
                    Aff::constant(1)
                };
                probe.push(index);
            }
            let w = self.weight();
            time_body.push(Node::Assign {
                target: Target::Output(Aff::constant(self.form_rng.range(0, 7))),
                accumulate: true,
                reads: vec![(
                    w,
                    Read::Temp {
                        array: q,
                        subscripts: probe,
                    },
                )],
                constant: 0,
            });
        } else {
            time_body.extend(Self::nest(&inner, &order, vec![copy]));
        }
        nodes.push(Node::Loop {
            var: "t".to_string(),
            lower: Aff::constant(1),
            upper: Aff::var("TS", 0),
            body: time_body,
        });
        let w = self.weight();
        let fold = Node::Assign {
            target: Target::Output(Aff::var(&vars[0], 0)),
            accumulate: true,
            reads: vec![(
                w,
                Read::Temp {
                    array: q,
                    subscripts: at(&zero),
                },
            )],
            constant: 0,
        };
        let _ = pv;
        let consumer = Self::nest(&full, &order, vec![fold]);
        Some((nodes, vec![consumer]))
    }

    /// A dynamic-programming triangle (the `triangles` form, dynprog's
    /// shape) over a size `P`:
    ///
    /// ```text
    /// for (i = 0; i <= P - 2; i++)
    ///     for (j = i + 1; j <= P - 1; j++) {
    ///         T[i][j] = w * in[..] + c;
    ///         for (k = i + 1; k <= j - 1; k++)
    ///             T[i][j] += w * T[i][k];
    ///         [out[..] += w * T[i][j];]
    ///     }
    /// out[..] += w * T[0][P - 1];
    /// ```
    ///
    /// Every read of `T` in the nest sees a cell written earlier in its
    /// row. The corner read after the nest is not guarded: when P = 1 no
    /// iteration writes it, so its cell is live-in at that size only, and
    /// a mapping of `T` holds from P >= 2 on (the program itself is valid
    /// only there; calls and builds with P = 1 are dropped by the
    /// well-definedness check).
    fn triangle_group(&mut self) -> Option<(Vec<Node>, Vec<Vec<Node>>)> {
        if self.rng.chance(1, 2) {
            return Some(self.row_sums_group());
        }
        let p = self.param();
        if self.size_values[&p] < 2 {
            return None;
        }
        let extent = Aff::var(&p, 0);
        let array = self.new_temp(vec![extent.clone(), extent]);
        let cell = |a: &str, b: &str| vec![Aff::var(a, 0), Aff::var(b, 0)];
        let w = self.weight();
        let index = self.input_read(&["i".to_string(), "j".to_string()]);
        let mut row = vec![Node::Assign {
            target: Target::Temp {
                array,
                subscripts: cell("i", "j"),
            },
            accumulate: false,
            reads: vec![(w, index)],
            constant: self.rng.range(-2, 2),
        }];
        let w = self.weight();
        row.push(Node::Loop {
            var: "k".into(),
            lower: Aff::var("i", 1),
            upper: Aff::var("j", -1),
            body: vec![Node::Assign {
                target: Target::Temp {
                    array,
                    subscripts: cell("i", "j"),
                },
                accumulate: true,
                reads: vec![(
                    w,
                    Read::Temp {
                        array,
                        subscripts: cell("i", "k"),
                    },
                )],
                constant: 0,
            }],
        });
        if self.rng.chance(1, 2) {
            let w = self.weight();
            let target = Target::Output(self.output_index(&["j".to_string()]));
            row.push(Node::Assign {
                target,
                accumulate: true,
                reads: vec![(
                    w,
                    Read::Temp {
                        array,
                        subscripts: cell("i", "j"),
                    },
                )],
                constant: 0,
            });
        }
        let nest = vec![Node::Loop {
            var: "i".into(),
            lower: Aff::constant(0),
            upper: Aff::var(&p, -2),
            body: vec![Node::Loop {
                var: "j".into(),
                lower: Aff::var("i", 1),
                upper: Aff::var(&p, -1),
                body: row,
            }],
        }];
        let w = self.weight();
        let target = Target::Output(self.output_index(&[]));
        let corner = vec![Node::Assign {
            target,
            accumulate: true,
            reads: vec![(
                w,
                Read::Temp {
                    array,
                    subscripts: vec![Aff::constant(0), Aff::var(&p, -1)],
                },
            )],
            constant: 0,
        }];
        Some((nest, vec![corner]))
    }

    /// Row sums of an upper triangle (the `triangles` form, reg_detect's
    /// `sum_t`) over a size `P`, every cell live from its write until a
    /// later nest reads the whole triangle:
    ///
    /// ```text
    /// for (i = 0; i <= P - 1; i++) {
    ///     T[i][i] = w * in[..] + c;
    ///     for (j = i + 1; j <= P - 1; j++)
    ///         T[i][j] = w * T[i][j - 1] + w' * in[..];
    /// }
    /// ... (consumer, maybe after other groups)
    /// for (i = 0; i <= P - 1; i++)
    ///     for (j = i; j <= P - 1; j++)
    ///         out[..] += w * T[i][j];
    /// ```
    ///
    /// Its best lattices have quasi-affine moduli (`(P + 1) / 2` and
    /// `(3 * P + 1) / 2`), lifted from probes two apart; packed row by row
    /// it takes `P·(P + 1)/2` cells. Half of them are transposed (`T[j][i]`:
    /// a lower triangle summed down its columns).
    fn row_sums_group(&mut self) -> (Vec<Node>, Vec<Vec<Node>>) {
        let p = self.param();
        let extent = Aff::var(&p, 0);
        let array = self.new_temp(vec![extent.clone(), extent]);
        // Maybe transposed: the sums run down the columns of a lower
        // triangle, `T[j][i]` for `j >= i`.
        let lower = self.form_rng.chance(1, 2);
        let at = |a: Aff, b: Aff| if lower { vec![b, a] } else { vec![a, b] };
        let w = self.weight();
        let diagonal = self.input_read(&["i".to_string()]);
        let first = Node::Assign {
            target: Target::Temp {
                array,
                subscripts: at(Aff::var("i", 0), Aff::var("i", 0)),
            },
            accumulate: false,
            reads: vec![(w, diagonal)],
            constant: self.rng.range(-2, 2),
        };
        let (w, w2) = (self.weight(), self.weight());
        let input = self.input_read(&["i".to_string(), "j".to_string()]);
        let step = Node::Assign {
            target: Target::Temp {
                array,
                subscripts: at(Aff::var("i", 0), Aff::var("j", 0)),
            },
            accumulate: false,
            reads: vec![
                (
                    w,
                    Read::Temp {
                        array,
                        subscripts: at(Aff::var("i", 0), Aff::var("j", -1)),
                    },
                ),
                (w2, input),
            ],
            constant: 0,
        };
        let nest = vec![Node::Loop {
            var: "i".into(),
            lower: Aff::constant(0),
            upper: Aff::var(&p, -1),
            body: vec![
                first,
                Node::Loop {
                    var: "j".into(),
                    lower: Aff::var("i", 1),
                    upper: Aff::var(&p, -1),
                    body: vec![step],
                },
            ],
        }];
        let w = self.weight();
        let target = Target::Output(self.output_index(&["j".to_string()]));
        let consumer = vec![Node::Loop {
            var: "i".into(),
            lower: Aff::constant(0),
            upper: Aff::var(&p, -1),
            body: vec![Node::Loop {
                var: "j".into(),
                lower: Aff::var("i", 0),
                upper: Aff::var(&p, -1),
                body: vec![Node::Assign {
                    target,
                    accumulate: true,
                    reads: vec![(
                        w,
                        Read::Temp {
                            array,
                            subscripts: at(Aff::var("i", 0), Aff::var("j", 0)),
                        },
                    )],
                    constant: 0,
                }],
            }],
        }];
        (nest, vec![consumer])
    }

    /// A linearised chain (the `chains` form, mot_detect's `Delta`) over
    /// a size `P`, a constant row width `W` (2 to 5) and, half of the
    /// time, an outer loop over a size `Q` with a chain per row:
    ///
    /// ```text
    /// for (i = 0; i <= Q - 1; i++) {          (or no outer loop, no [i])
    ///     T[i][0] = w * in[..] + c;
    ///     for (j = 0; j <= P - 1; j++)
    ///         for (k = 0; k <= W - 1; k++)
    ///             if (j - 1 >= 0 || k - 1 >= 0)
    ///                 T[i][W * j + k] = w * T[i][W * j + k - 1] + w * in[..];
    ///     out[..] += w * T[i][W * P - 1];
    /// }
    /// ```
    ///
    /// The cell a read finds is the one the iteration before wrote: the
    /// row of `k` spans exactly `W` values, so the projection that finds
    /// its writer is exact (Omega's dark shadow) once the `||` is split
    /// into disjoint pieces, and the chain folds to one cell per row. The
    /// guard is sometimes written the other way round or with a third,
    /// redundant disjunct.
    fn chain_group(&mut self) -> (Vec<Node>, Vec<Vec<Node>>) {
        let p = self.param();
        let width = self.form_rng.range(2, 5);
        let rows = self.form_rng.chance(1, 2);
        let q = self.param();
        let mut extents = Vec::new();
        if rows {
            extents.push(Aff::var(&q, 0));
        }
        extents.push(Aff {
            terms: vec![(p.clone(), width)],
            constant: 0,
        });
        let array = self.new_temp(extents);
        let row = |last: Aff| -> Vec<Aff> {
            if rows {
                vec![Aff::var("i", 0), last]
            } else {
                vec![last]
            }
        };
        let cell = |constant: i64| Aff {
            terms: vec![("j".to_string(), width), ("k".to_string(), 1)],
            constant,
        };
        let outer: Vec<String> = if rows { vec!["i".into()] } else { vec![] };
        let w = self.weight();
        let first_input = self.input_read(&outer);
        let first = Node::Assign {
            target: Target::Temp {
                array,
                subscripts: row(Aff::constant(0)),
            },
            accumulate: false,
            reads: vec![(w, first_input)],
            constant: self.rng.range(-2, 2),
        };
        let (w, w2) = (self.weight(), self.weight());
        let mut vars = outer.clone();
        vars.extend(["j".to_string(), "k".to_string()]);
        let input = self.input_read(&vars);
        let step = Node::Assign {
            target: Target::Temp {
                array,
                subscripts: row(cell(0)),
            },
            accumulate: false,
            reads: vec![
                (
                    w,
                    Read::Temp {
                        array,
                        subscripts: row(cell(-1)),
                    },
                ),
                (w2, input),
            ],
            constant: 0,
        };
        let mut conditions = vec![Aff::var("j", -1), Aff::var("k", -1)];
        if self.form_rng.chance(1, 3) {
            conditions.reverse();
        }
        if self.form_rng.chance(1, 4) {
            // j - 2 >= 0 implies j - 1 >= 0: the same guard.
            conditions.push(Aff::var("j", -2));
        }
        let chain = Node::Loop {
            var: "j".into(),
            lower: Aff::constant(0),
            upper: Aff::var(&p, -1),
            body: vec![Node::Loop {
                var: "k".into(),
                lower: Aff::constant(0),
                upper: Aff::constant(width - 1),
                body: vec![Node::If {
                    conditions,
                    any: true,
                    body: vec![step],
                }],
            }],
        };
        let w = self.weight();
        let target = Target::Output(self.output_index(&outer));
        let fold = Node::Assign {
            target,
            accumulate: true,
            reads: vec![(
                w,
                Read::Temp {
                    array,
                    subscripts: row(Aff {
                        terms: vec![(p.clone(), width)],
                        constant: -1,
                    }),
                },
            )],
            constant: 0,
        };
        let body = vec![first, chain, fold];
        let nodes = if rows {
            vec![Node::Loop {
                var: "i".into(),
                lower: Aff::constant(0),
                upper: Aff::var(&q, -1),
                body,
            }]
        } else {
            body
        };
        (nodes, Vec::new())
    }

    /// A skewed temporary (the `skewed` form, issue 21's unimodular
    /// reindexing) over sizes `P` and `Q`:
    ///
    /// ```text
    /// for (i = 0; i <= P - 1; i++)
    ///     for (j = 0; j <= Q - 1; j++)
    ///         T[σ(i, j)] = w * in[..] + c;
    /// for (i = ..; ..) for (j = ..; ..)       (either direction, either order)
    ///     out[..] += w * T[σ(i, j)];
    /// ```
    ///
    /// with σ one of `(i + j, j)`, `(i, i + j)`, `(i - j + Q - 1, j)`: a
    /// unimodular map of the iterations onto a skewed footprint of a
    /// `(P + Q - 1) × Q` (or `P × (P + Q - 1)`) declaration, every value
    /// live at once between the nests. Its least storage is `P·Q` cells
    /// with plain subscripts `T[i][j]` (a change of basis), where the axes
    /// need `(P + Q - 1)·Q`.
    fn skewed_group(&mut self) -> (Vec<Node>, Vec<Vec<Node>>) {
        let p = self.param();
        let q = self.param();
        let wide = Aff {
            terms: vec![(p.clone(), 1), (q.clone(), 1)],
            constant: -1,
        }
        .normalised();
        let (extents, subscripts) = match self.form_rng.below(3) {
            0 => (
                vec![wide, Aff::var(&q, 0)],
                vec![
                    Aff {
                        terms: vec![("i".into(), 1), ("j".into(), 1)],
                        constant: 0,
                    },
                    Aff::var("j", 0),
                ],
            ),
            1 => (
                vec![Aff::var(&p, 0), wide],
                vec![
                    Aff::var("i", 0),
                    Aff {
                        terms: vec![("i".into(), 1), ("j".into(), 1)],
                        constant: 0,
                    },
                ],
            ),
            _ => (
                vec![wide, Aff::var(&q, 0)],
                vec![
                    Aff {
                        terms: vec![("i".into(), 1), ("j".into(), -1), (q.clone(), 1)],
                        constant: -1,
                    }
                    .normalised(),
                    Aff::var("j", 0),
                ],
            ),
        };
        let array = self.new_temp(extents);
        let vars = vec!["i".to_string(), "j".to_string()];
        let w = self.weight();
        let input = self.input_read(&vars);
        let write = Node::Assign {
            target: Target::Temp {
                array,
                subscripts: subscripts.clone(),
            },
            accumulate: false,
            reads: vec![(w, input)],
            constant: self.rng.range(-2, 2),
        };
        let full: Domain = vec![
            Level {
                var: "i".into(),
                lower: Aff::constant(0),
                upper: Aff::var(&p, -1),
            },
            Level {
                var: "j".into(),
                lower: Aff::constant(0),
                upper: Aff::var(&q, -1),
            },
        ];
        let producer = Self::nest(&full, &[0, 1], vec![write]);
        let w = self.weight();
        let target = self.output_target(&vars);
        let fold = Node::Assign {
            target,
            accumulate: true,
            reads: vec![(w, Read::Temp { array, subscripts })],
            constant: 0,
        };
        let order = if self.form_rng.chance(1, 2) {
            vec![0, 1]
        } else {
            vec![1, 0]
        };
        let consumer = Self::nest(&full, &order, vec![fold]);
        (producer, vec![consumer])
    }

    /// A strided temporary (the `strided` form, issue 21's stride
    /// removal) over a size `P`, `g` 2 or 3 and `0 <= r < g`:
    ///
    /// ```text
    /// for (i = 0; i <= P - 1; i++)            (maybe a loop over j inside)
    ///     T[g * i + r][c] = w * in[..] + k;    (or T[g * i + r][j])
    ///     if (i - 1 >= 0)                      (maybe: a recurrence)
    ///         T[g * i + r][c] += w * T[g * i + r - g][c];
    /// for (i = ..; ..)                         (either direction)
    ///     out[..] += w * T[g * i + r][c];
    /// ```
    ///
    /// declared `[g * P][C]` (`c < C <= 3`) or `[g * P][Q]`; sometimes a
    /// second residue `r'` is written and read too (the cells no longer
    /// lie on one stride lattice: no stride may be removed). One residue
    /// needs `P` cells (`P·Q`), all live at once between the nests.
    fn strided_group(&mut self) -> (Vec<Node>, Vec<Vec<Node>>) {
        let p = self.param();
        let g = 2 + self.form_rng.below(2) as i64;
        let r = self.form_rng.below(g as usize) as i64;
        let q = self.form_rng.chance(1, 2).then(|| self.param());
        let columns = 1 + self.form_rng.below(3) as i64;
        let column = self.form_rng.below(columns as usize) as i64;
        let second = self
            .form_rng
            .chance(1, 4)
            .then(|| (r + 1 + self.form_rng.below(g as usize - 1) as i64) % g);
        let recurrence = self.form_rng.chance(1, 3);
        let rows = Aff {
            terms: vec![(p.clone(), g)],
            constant: 0,
        };
        let extents = vec![
            rows,
            q.as_ref()
                .map_or(Aff::constant(columns), |q| Aff::var(q, 0)),
        ];
        let array = self.new_temp(extents);
        let mut full: Domain = vec![Level {
            var: "i".into(),
            lower: Aff::constant(0),
            upper: Aff::var(&p, -1),
        }];
        if let Some(q) = &q {
            full.push(Level {
                var: "j".into(),
                lower: Aff::constant(0),
                upper: Aff::var(q, -1),
            });
        }
        let vars: Vec<String> = full.iter().map(|l| l.var.clone()).collect();
        let at = |residue: i64, back: i64| -> Vec<Aff> {
            vec![
                Aff {
                    terms: vec![("i".into(), g)],
                    constant: residue - g * back,
                },
                if q.is_some() {
                    Aff::var("j", 0)
                } else {
                    Aff::constant(column)
                },
            ]
        };
        let residues: Vec<i64> = std::iter::once(r).chain(second).collect();
        let mut body = Vec::new();
        for &residue in &residues {
            body.extend(self.written_from_input(
                array,
                &vars,
                (at(residue, 0), at(residue, 1)),
                recurrence,
            ));
        }
        let order: Vec<usize> = (0..full.len()).collect();
        let producer = Self::nest(&full, &order, body);
        // Maybe read in reverse, row g * (P - 1 - i) + r: every value is
        // live at once between the nests.
        let reverse = self.form_rng.chance(1, 2);
        let mut folds = Vec::new();
        for &residue in &residues {
            let w = self.weight();
            let target = self.output_target(&vars);
            let mut subscripts = at(residue, 0);
            if reverse {
                subscripts[0] = Aff {
                    terms: vec![("i".into(), -g), (p.clone(), g)],
                    constant: residue - g,
                }
                .normalised();
            }
            folds.push(Node::Assign {
                target,
                accumulate: true,
                reads: vec![(w, Read::Temp { array, subscripts })],
                constant: 0,
            });
        }
        let consumer = Self::nest(&full, &order, folds);
        (producer, vec![consumer])
    }

    /// `array[now] = w * in[..] + k;`, then with `recurrence` `if (i - 1 >=
    /// 0) array[now] += w' * array[before];` (the strided and the regions
    /// forms' producers).
    fn written_from_input(
        &mut self,
        array: usize,
        vars: &[String],
        (now, before): (Vec<Aff>, Vec<Aff>),
        recurrence: bool,
    ) -> Vec<Node> {
        let w = self.weight();
        let input = self.input_read(vars);
        let mut body = vec![Node::Assign {
            target: Target::Temp {
                array,
                subscripts: now.clone(),
            },
            accumulate: false,
            reads: vec![(w, input)],
            constant: self.rng.range(-2, 2),
        }];
        if recurrence {
            let w = self.weight();
            body.extend(Self::guarded(
                vec![Aff::var("i", -1)],
                vec![Node::Assign {
                    target: Target::Temp {
                        array,
                        subscripts: now,
                    },
                    accumulate: true,
                    reads: vec![(
                        w,
                        Read::Temp {
                            array,
                            subscripts: before,
                        },
                    )],
                    constant: 0,
                }],
            ));
        }
        body
    }

    /// A buffer of two or three regions (the `regions` form, issue 21's
    /// split by reference groups) over a size `P`:
    ///
    /// ```text
    /// for (i = 0; i <= P - 1; i++) {          (or one loop per region)
    ///     T[i] = w * in[..] + k;
    ///     T[P + 2 + i] = w * in[..] + k;       (region r at a_r * P + c_r)
    ///     if (i - 1 >= 0)                      (maybe: a recurrence)
    ///         T[P + 2 + i] += w * T[P + 2 + i - 1];
    /// }
    /// for (i = 0; i <= P - 1; i++)            (each region in order or
    ///     out[..] += w * T[i] + w' * T[2 * P + 3 + P - 1 - i];   reversed)
    /// ```
    ///
    /// declared `[(a + 1) * P + c]` for the last region's `a * P + c`.
    /// The regions start at increasing offsets `a_r * P + c_r` (`a_r` one
    /// more than the region before's, `c_r` in 0..2): disjoint for every
    /// `P`. A quarter of the programs put one region at a constant
    /// offset `c < 3` from the one before instead: the regions overlap
    /// (for `P > c`) and the accesses form one group.
    fn regions_group(&mut self) -> (Vec<Node>, Vec<Vec<Node>>) {
        let p = self.param();
        let count = 2 + self.form_rng.below(2);
        let overlap = self
            .form_rng
            .chance(1, 4)
            .then(|| 1 + self.form_rng.below(count - 1));
        // Each region's offset (a * P + c).
        let mut offsets: Vec<(i64, i64)> = vec![(0, 0)];
        for r in 1..count {
            let (a, c) = offsets[r - 1];
            if overlap == Some(r) {
                offsets.push((a, c + 1 + self.form_rng.below(2) as i64));
            } else {
                offsets.push((a + 1, self.form_rng.below(3) as i64));
            }
        }
        let (a_last, c_last) = offsets[count - 1];
        let array = self.new_temp(vec![
            Aff {
                terms: vec![(p.clone(), a_last + 1)],
                constant: c_last,
            }
            .normalised(),
        ]);
        let full: Domain = vec![Level {
            var: "i".into(),
            lower: Aff::constant(0),
            upper: Aff::var(&p, -1),
        }];
        let vars: Vec<String> = vec!["i".into()];
        let at = |(a, c): (i64, i64), back: i64, reverse: bool| -> Vec<Aff> {
            let mut terms = vec![("i".to_string(), if reverse { -1 } else { 1 })];
            let mut a = a;
            let mut c = c - back;
            if reverse {
                // a * P + c + (P - 1 - i)
                a += 1;
                c -= 1;
            }
            if a != 0 {
                terms.push((p.clone(), a));
            }
            vec![Aff { terms, constant: c }.normalised()]
        };
        let recurrence = self.form_rng.chance(1, 3);
        let one_loop = self.form_rng.chance(1, 2);
        let mut producers: Vec<Vec<Node>> = Vec::new();
        for &offset in &offsets {
            let cells = (at(offset, 0, false), at(offset, 1, false));
            producers.push(self.written_from_input(array, &vars, cells, recurrence));
        }
        let order: Vec<usize> = vec![0];
        let producer: Vec<Node> = if one_loop {
            Self::nest(&full, &order, producers.concat())
        } else {
            producers
                .into_iter()
                .flat_map(|body| Self::nest(&full, &order, body))
                .collect()
        };
        let mut folds = Vec::new();
        for &offset in &offsets {
            let w = self.weight();
            let target = self.output_target(&vars);
            let reverse = self.form_rng.chance(1, 2);
            folds.push(Node::Assign {
                target,
                accumulate: true,
                reads: vec![(
                    w,
                    Read::Temp {
                        array,
                        subscripts: at(offset, 0, reverse),
                    },
                )],
                constant: 0,
            });
        }
        let consumer = Self::nest(&full, &order, folds);
        (producer, vec![consumer])
    }

    /// A stencil chain (the `stencil-chains` form): 2 to 4 stages, each a
    /// loop of its own over a new size `P` of value 12 to 24 (a nest over
    /// `P` and an earlier size `Q` in 2-d chains), one after the other at
    /// the top level:
    ///
    /// ```text
    /// for (i = 1; i <= P - 3; i++)
    ///     T0[i] = w * in[i - 1] + w' * in[i] + w'' * in[i + 2] + c;
    /// for (k = 3; k <= P - 4; k++)
    ///     T1[k] = w * T0[k + 1] + w' * T0[k - 2];
    /// for (i = 3; i <= P - 4; i++)
    ///     out[i + c] = w * T1[i];
    /// ```
    ///
    /// Each stage reads the one before (the first reads `in`) at 1 to 3
    /// distinct offsets in [-2, 2] and runs on `[lo, P - 1 - hi]`, where
    /// `lo` and `hi` add the offsets' margins to the stage before's (`in`
    /// counts as defined on `[0, P - 1]`), so that every read finds a cell
    /// the stage before wrote. An offset that would leave fewer than two
    /// iterations at the sizes' values is dropped (at other sizes, the
    /// later stages may run no iteration). A third of the chains are 2-d:
    /// every stage has an inner loop over `j` and a size `Q` (`T[i][j]`,
    /// `in[i + j + o]`), read at offsets in `i` only or, half of the time,
    /// in `j` too (its bounds shrunk the same way; half of those in `j`
    /// only, each stage reading its own row), and the last stage
    /// folds each row into `out[i + c] +=`. The stages all use `i` (`j`
    /// inside), or half of the time each draws its own name. Each
    /// temporary is read by the next stage only: loop shifting and fusion
    /// makes each value live a few iterations.
    fn stencil_group(&mut self) -> (Vec<Node>, Vec<Vec<Node>>) {
        let names = self.size_names();
        // A size of its own, 12 to 24: the cells fusion saves are then
        // worth it beside the other groups' temporaries at the sizes'
        // values (the kernel's other calls and builds go down to 1).
        let p = format!("N{}", names.len());
        let value = self.form_rng.range(12, 24);
        self.program.sizes.push((p.clone(), value));
        if self.symbolic {
            let forms = &mut self.program.shape.size_forms;
            forms.resize(self.program.sizes.len(), SizeForm::Parameter);
        }
        self.size_values = self.program.environment(&[]);
        let stages = self.form_rng.range(2, 4) as usize;
        // 2-d chains: the size of `j`, and whether reads shift `j` too.
        let columns = if self.form_rng.chance(1, 3) {
            let q = self.form_rng.pick(&names).clone();
            let shift_j = self.form_rng.chance(1, 2);
            // Half of those read in their own row only (`T[i][j - 1]`,
            // gecos_gaussian's `tmp`): fused, a window of the row kept in
            // rotating scalars by the inner loops.
            let own_row = shift_j && self.form_rng.chance(1, 2);
            Some((q, shift_j, own_row))
        } else {
            None
        };
        let shared_name = self.form_rng.chance(1, 2);
        let own_names: &[&str] = if columns.is_some() {
            &["i", "k"]
        } else {
            &["i", "j", "k"]
        };
        // The margins' budget per dimension: at least two iterations.
        let budget = [
            (self.size_values[&p] - 2).max(0),
            columns
                .as_ref()
                .map_or(0, |(q, ..)| (self.size_values[q] - 2).max(0)),
        ];
        let (mut lo, mut hi) = ([0i64; 2], [0i64; 2]);
        // The array the next stage reads (`None`: `in`).
        let mut previous: Option<usize> = None;
        let mut nodes = Vec::new();
        for stage in 0..stages {
            let last = stage + 1 == stages;
            let var = if shared_name {
                "i".to_string()
            } else {
                self.form_rng.pick(own_names).to_string()
            };
            let n_reads = self.form_rng.range(1, 3);
            let (mut new_lo, mut new_hi) = (lo, hi);
            let mut offsets: Vec<[i64; 2]> = Vec::new();
            for _ in 0..n_reads {
                let shift_j = columns.as_ref().is_some_and(|(_, s, _)| *s);
                let own_row = columns.as_ref().is_some_and(|(_, _, r)| *r);
                let mut offset = [
                    if own_row {
                        0
                    } else {
                        self.form_rng.range(-2, 2)
                    },
                    if shift_j {
                        self.form_rng.range(-2, 2)
                    } else {
                        0
                    },
                ];
                for d in 0..2 {
                    // `x + o` must lie in the stage before's `[lo, P - 1 - hi]`.
                    let l = new_lo[d].max(lo[d] - offset[d]);
                    let h = new_hi[d].max(hi[d] + offset[d]);
                    if l + h > budget[d] {
                        offset[d] = 0;
                    } else {
                        new_lo[d] = l;
                        new_hi[d] = h;
                    }
                }
                if !offsets.contains(&offset) {
                    offsets.push(offset);
                }
            }
            let at = |o: [i64; 2]| -> Vec<Aff> {
                let mut subscripts = vec![Aff::var(&var, o[0])];
                if columns.is_some() {
                    subscripts.push(Aff::var("j", o[1]));
                }
                subscripts
            };
            let mut reads = Vec::new();
            for o in &offsets {
                let w = self.weight();
                let read = match previous {
                    None => {
                        let mut index = Aff::var(&var, o[0] + o[1]);
                        if columns.is_some() {
                            index.terms.push(("j".to_string(), 1));
                        }
                        Read::Input(index)
                    }
                    Some(array) => Read::Temp {
                        array,
                        subscripts: at(*o),
                    },
                };
                reads.push((w, read));
            }
            let target = if last {
                Target::Output(Aff::var(&var, self.form_rng.range(0, 3)))
            } else {
                let mut extents = vec![Aff::var(&p, self.form_rng.range(0, 1))];
                if let Some((q, ..)) = &columns {
                    extents.push(Aff::var(q, 0));
                }
                let array = self.new_temp(extents);
                previous = Some(array);
                Target::Temp {
                    array,
                    subscripts: at([0, 0]),
                }
            };
            let constant = if stage == 0 { self.rng.range(-2, 2) } else { 0 };
            let mut body = vec![Node::Assign {
                target,
                // A 2-d chain's last stage sums each row into `out[i + c]`.
                accumulate: last && columns.is_some(),
                reads,
                constant,
            }];
            if let Some((q, ..)) = &columns {
                body = vec![Node::Loop {
                    var: "j".to_string(),
                    lower: Aff::constant(new_lo[1]),
                    upper: Aff::var(q, -1 - new_hi[1]),
                    body,
                }];
            }
            nodes.push(Node::Loop {
                var,
                lower: Aff::constant(new_lo[0]),
                upper: Aff::var(&p, -1 - new_hi[0]),
                body,
            });
            (lo, hi) = (new_lo, new_hi);
        }
        (nodes, Vec::new())
    }

    /// A row group (block-scoped and OpenMP forms): one or two sibling
    /// loops over `i`, each filling a scratch row `R[j]` (declared in the
    /// loop body) or `R[i][j]` (declared at the top) from the input, maybe
    /// running a prefix sum over it, and folding it into `out[i + c]`.
    /// Iterations of `i` touch disjoint cells, so the loop may carry
    /// `#pragma omp parallel for`.
    fn row_group(&mut self) -> Option<(Vec<Node>, Vec<Vec<Node>>)> {
        let mut nodes = Vec::new();
        let siblings = 1 + usize::from(self.form_rng.chance(1, 2));
        for _ in 0..siblings {
            let p = self.param();
            let q = self.param();
            let scoped = self.form(self.forms.block_scoped, 2, 3);
            let parallel = self.form(self.forms.openmp, 2, 3);
            let row_extent = if self.symbolic {
                Aff::var(&q, 0)
            } else {
                self.extent_expr(self.size_values[&q])
            };
            let (array, cell): (usize, Box<dyn Fn(Aff) -> Vec<Aff>>) = if scoped {
                (self.new_temp(vec![row_extent]), Box::new(|j| vec![j]))
            } else {
                let outer_extent = Aff::var(&p, 0);
                (
                    self.new_temp(vec![outer_extent, row_extent]),
                    Box::new(|j| vec![Aff::var("i", 0), j]),
                )
            };
            let j_loop = |lower: i64, body: Vec<Node>| Node::Loop {
                var: "j".to_string(),
                lower: Aff::constant(lower),
                upper: Aff::var(&q, -1),
                body,
            };
            let mut body = Vec::new();
            let w = self.weight();
            let index = Aff {
                terms: vec![("i".to_string(), 1), ("j".to_string(), 1)],
                constant: self.rng.range(0, 3),
            };
            body.push(j_loop(
                0,
                vec![Node::Assign {
                    target: Target::Temp {
                        array,
                        subscripts: cell(Aff::var("j", 0)),
                    },
                    accumulate: false,
                    reads: vec![(w, Read::Input(index))],
                    constant: self.rng.range(-1, 1),
                }],
            ));
            if self.rng.chance(1, 2) {
                let w = self.weight();
                body.push(j_loop(
                    1,
                    vec![Node::Assign {
                        target: Target::Temp {
                            array,
                            subscripts: cell(Aff::var("j", 0)),
                        },
                        // `R[j] = 1.0 * R[j] + w * R[j - 1]`, not `+=`
                        // (inter-array merging refuses compound
                        // assignments to temporaries).
                        accumulate: false,
                        reads: vec![
                            (
                                3,
                                Read::Temp {
                                    array,
                                    subscripts: cell(Aff::var("j", 0)),
                                },
                            ),
                            (
                                w,
                                Read::Temp {
                                    array,
                                    subscripts: cell(Aff::var("j", -1)),
                                },
                            ),
                        ],
                        constant: 0,
                    }],
                ));
            }
            let w = self.weight();
            let read_at = if self.rng.chance(1, 2) {
                Aff::var("j", 0)
            } else {
                Aff::var(&q, -1).plus_scaled(&Aff::var("j", 0), -1)
            };
            body.push(j_loop(
                0,
                vec![Node::Assign {
                    target: Target::Output(Aff::var("i", self.rng.range(0, 3))),
                    accumulate: true,
                    reads: vec![(
                        w,
                        Read::Temp {
                            array,
                            subscripts: cell(read_at),
                        },
                    )],
                    constant: 0,
                }],
            ));
            let loop_body = if scoped {
                vec![Node::Block {
                    temps: vec![array],
                    body,
                }]
            } else {
                body
            };
            let outer = Node::Loop {
                var: "i".to_string(),
                lower: Aff::constant(0),
                upper: Aff::var(&p, -1),
                body: loop_body,
            };
            if parallel {
                nodes.push(Node::Parallel {
                    private: vec!["j".to_string()],
                    chunked: self.form_rng.chance(1, 2),
                    body: vec![outer],
                });
            } else {
                nodes.push(outer);
            }
        }
        Some((nodes, Vec::new()))
    }
}

/// Generates one well-defined program from `seed` with the classic forms
/// (the programs of the original generator).
pub fn generate(seed: u64) -> GenProgram {
    generate_with(seed, &Forms::classic())
}

/// Generates one well-defined program from `seed`, using a random subset
/// of `forms`. With [`Forms::classic`] this is [`generate`]; with other
/// forms the same seed gives another program.
pub fn generate_with(seed: u64, forms: &Forms) -> GenProgram {
    generate_sized(seed, forms, false)
}

/// [`generate_with`], or with `symbolic` a program of
/// [`SizeMode::Symbolic`](super::program::SizeMode): every size (the
/// time steps `TS` too) is an `int` parameter of the kernel with no value
/// in the text (no `#define`, no `#ifdef` sizes, no `-D` build, and no
/// derived size `LAST0`, `N0 / 2`, `N0 % 4`: polyfold leaves those
/// statements out of its SCoPs without values), temporaries are
/// VLAs whose extents and subscript offsets are affine in the sizes
/// (`N0 + 2`, `2 * N0 + 1`, `N0 + N1`), loop bounds may be `2 * N0 - c`
/// or `N0 + N1 - c`, and `main` calls the kernel with the sizes' values,
/// then with every size 1, 2 and 3, with mixed small sizes, with no time
/// step, and with two larger random sets. A call is kept only when the
/// ORIGINAL is well defined with it (every declared extent >= 1, every
/// access in bounds, no read before write: a kernel with an extent
/// `N0 - 2` is not valid C for `N0 <= 2`, so no such call is made), so
/// every program runs its kernel with several sizes, and most with the
/// tiny ones. Every group shape of the generator is used (producer and
/// chained multi-array groups, fully initialised groups, ping-pong
/// stencils with or without copy-back loops, row groups, triangular
/// loops), with the forms of `forms` except the ones that give sizes a
/// value.
pub fn generate_sized(seed: u64, forms: &Forms, symbolic: bool) -> GenProgram {
    let mut attempt: u64 = 0;
    // The main kernel's forms: those of issue 45 write units of their own.
    let mut base_forms = *forms;
    for form in RealCForm::ALL {
        base_forms.set(form.name(), false);
    }
    let mut program = loop {
        let sub_seed = seed
            .wrapping_mul(0x2545_F491_4F6C_DD1D)
            .wrapping_add(attempt);
        if let Some(program) = try_generate(seed, sub_seed, &base_forms, symbolic)
            && program.check_well_defined().is_ok()
        {
            break program;
        }
        attempt += 1;
    };
    // The units come from a stream of their own: the main kernel of every
    // seed stays the one it was before them.
    let units = draw_units(seed, &forms.real_c(), forms.only_real_c());
    for unit in &units {
        program.shape.drawn.set(unit.form().name(), true);
    }
    program.shape.units = units;
    program
}

/// Each form of `forms` kept with probability 1/2 (the `braceless` and
/// `comments` printing forms with 2/3), so that programs mix forms. The
/// `stencil-chains` form is drawn from `stencil_rng` (a stream of its
/// own, so that the other draws do not move), and always kept when it is
/// the only form asked for; the `regions` form from a stream of its own
/// made from `seed`, the `time-loops` form too (one program in three,
/// always when it is the only form asked for).
fn program_forms(forms: &Forms, rng: &mut Rng, stencil_rng: &mut Rng, seed: u64) -> Forms {
    let alone = *forms
        == Forms {
            stencil_chains: true,
            ..Forms::classic()
        };
    let stencil_chains = forms.stencil_chains && (alone || stencil_rng.chance(1, 2));
    let time_alone = *forms
        == Forms {
            time_loops: true,
            ..Forms::classic()
        };
    let labels_alone = *forms
        == Forms {
            labels_bitwise: true,
            ..Forms::classic()
        };
    let mut keep = |on: bool, num: u64| on && rng.chance(num, 3);
    Forms {
        stencil_chains,
        derived_macros: keep(forms.derived_macros, 2),
        div_mod: keep(forms.div_mod, 2),
        ifdef_sizes: keep(forms.ifdef_sizes, 1),
        other_sizes: keep(forms.other_sizes, 2),
        comments: keep(forms.comments, 2),
        braceless: keep(forms.braceless, 2),
        else_branches: keep(forms.else_branches, 2),
        copy_back: keep(forms.copy_back, 2),
        block_scoped: keep(forms.block_scoped, 2),
        vla: keep(forms.vla, 1),
        openmp: keep(forms.openmp, 2),
        products: keep(forms.products, 2),
        temp_parameters: keep(forms.temp_parameters, 2),
        triangles: keep(forms.triangles, 2),
        chains: keep(forms.chains, 2),
        skewed: keep(forms.skewed, 2),
        strided: keep(forms.strided, 2),
        initialised: keep(forms.initialised, 2),
        declared_iterators: keep(forms.declared_iterators, 2),
        // From streams of their own too: the other draws do not move.
        time_loops: forms.time_loops
            && (time_alone || Rng::new(seed ^ 0x71E5_7E95_5EED_0F0D).chance(1, 3)),
        regions: forms.regions && Rng::new(seed ^ 0x2E61_0A5B_5EED_0F0D).chance(2, 3),
        labels_bitwise: forms.labels_bitwise
            && (labels_alone || Rng::new(seed ^ 0x1AB3_15B1_5EED_0F0D).chance(1, 2)),
        // The forms of issue 45 write units of their own (`draw_units`).
        ..Forms::classic()
    }
}

fn try_generate(seed: u64, sub_seed: u64, forms: &Forms, symbolic: bool) -> Option<GenProgram> {
    let mut rng = Rng::new(sub_seed);
    let mut form_rng = Rng::new(sub_seed ^ 0x0F0E_D1C3_B2A1_9087);
    // The `stencil-chains` form's own draws: whether the program has a
    // chain and which group it is. Without a chain, `rng` and `form_rng`
    // make the program they made before the form existed. From the seed,
    // not the attempt: a seed whose attempts had a chain in some attempts
    // only could end on another attempt than before without one.
    let mut stencil_rng = Rng::new(seed ^ 0x57E4_C11A_5EED_0F0D);
    let mut forms = if *forms == Forms::classic() {
        Forms::classic()
    } else {
        program_forms(forms, &mut form_rng, &mut stencil_rng, seed)
    };
    if symbolic {
        // Sizes are parameters only: no form that gives them a value, and
        // none that polyfold models only with values (`in[N0 * i]` and
        // macros of a parameter such as `#define LAST0 N0-1` make it leave
        // the statements out of every SCoP). `N0 / 2` and `N0 % 4` stay:
        // in bounds they are quotients modelled for every value (in
        // subscripts and extents they still leave statements out).
        forms.vla = true;
        forms.ifdef_sizes = false;
        forms.other_sizes = false;
        forms.derived_macros = false;
        forms.products = false;
    }
    let n_params = rng.range(1, 3) as usize;
    let mut sizes = Vec::new();
    let mut size_values = HashMap::new();
    for p in 0..n_params {
        let value = if rng.chance(3, 4) {
            rng.range(3, 7)
        } else {
            rng.range(8, 12)
        };
        sizes.push((format!("N{p}"), value));
        size_values.insert(format!("N{p}"), value);
    }
    let mut shape = choose_shape(&forms, &sizes, &mut form_rng, symbolic);
    shape.drawn = forms;
    let mut builder = Builder {
        rng,
        program: GenProgram {
            seed,
            sizes,
            temps: Vec::new(),
            scalars: Vec::new(),
            body: Vec::new(),
            shape,
        },
        size_values,
        producers: Vec::new(),
        forms,
        form_rng,
        symbolic,
    };
    builder.size_values = builder.program.environment(&[]);
    let groups = match builder.rng.below(10) {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    // The chain is any group of the SCoP: after a loop of another shape
    // too (polyfold's fusion once moved the chain's first loop before
    // such a loop, and never fused the chain:
    // tests/fusion_cases/chain_after_other_loop.c).
    let stencil_at = forms.stencil_chains.then(|| stencil_rng.below(groups));
    let mut pending: Vec<Vec<Node>> = Vec::new();
    for group in 0..groups {
        let (nodes, consumers) = if stencil_at == Some(group) {
            builder.stencil_group()
        } else if builder.form(forms.block_scoped || forms.openmp, 1, 3) {
            builder.row_group()?
        } else if builder.form(forms.copy_back, 1, 5) {
            builder.pingpong_group()?
        } else if builder.form(forms.triangles, 1, 4) {
            builder.triangle_group()?
        } else if builder.form(forms.chains, 1, 4) {
            builder.chain_group()
        } else if builder.form(forms.skewed, 1, 4) {
            builder.skewed_group()
        } else if builder.form(forms.strided, 1, 4) {
            builder.strided_group()
        } else if builder.form(forms.regions, 1, 3) {
            builder.regions_group()
        } else {
            let kind = builder.rng.below(10);
            if kind < 6 {
                builder.producer_group()?
            } else if kind < 8 {
                builder.initialised_group()?
            } else {
                builder.pingpong_group()?
            }
        };
        builder.program.body.extend(nodes);
        pending.extend(consumers);
        while !pending.is_empty() && builder.rng.chance(1, 2) {
            let index = builder.rng.below(pending.len());
            let unit = pending.remove(index);
            builder.program.body.extend(unit);
        }
    }
    for unit in pending {
        builder.program.body.extend(unit);
    }
    if forms.time_loops {
        // A stream of its own (from the attempt: a draw whose program is
        // not well defined is not drawn again).
        builder.time_loops(&mut Rng::new(sub_seed ^ 0x3C1A_D7E0_71E5_0F0D));
    }
    let mut program = builder.program;
    if forms != Forms::classic() {
        // The program must be well defined for the sizes seen before the
        // other builds and calls are chosen.
        program.check_well_defined().ok()?;
        if symbolic {
            add_symbolic_calls(&mut program, &mut builder.form_rng);
        } else {
            add_builds_and_calls(&mut program, &mut builder.form_rng);
        }
    }
    Some(program)
}

/// How sizes are written, the derived sizes and the printing style.
fn choose_shape(forms: &Forms, sizes: &[(String, i64)], rng: &mut Rng, symbolic: bool) -> Shape {
    let mut shape = Shape {
        symbolic,
        ..Shape::default()
    };
    if *forms == Forms::classic() {
        return shape;
    }
    for (name, value) in sizes {
        // Symbolic sizes are all parameters (no draw: `||` short-cuts).
        let form = if symbolic || forms.vla && rng.chance(2, 3) {
            SizeForm::Parameter
        } else if forms.ifdef_sizes && rng.chance(2, 3) {
            SizeForm::Dataset {
                small: (value - rng.range(1, 3)).max(1),
                large: value + rng.range(1, 4),
            }
        } else if forms.other_sizes && rng.chance(2, 3) {
            SizeForm::Guarded
        } else {
            SizeForm::Define
        };
        shape.size_forms.push(form);
        let p = &name[1..];
        if forms.derived_macros && rng.chance(2, 3) {
            let (macro_name, text, op) = match rng.below(4) {
                0 => (format!("LAST{p}"), format!("{name}-1"), DerivedOp::Add(-1)),
                1 => (format!("PLUS{p}"), format!("{name}+2"), DerivedOp::Add(2)),
                2 => (format!("HALF{p}"), format!("({name})/2"), DerivedOp::Div(2)),
                _ => (
                    format!("QUART{p}"),
                    format!("{name} % 4"),
                    DerivedOp::Mod(4),
                ),
            };
            shape.derived.push(Derived {
                name: macro_name,
                text,
                base: name.clone(),
                op,
                inline: false,
            });
        }
        if forms.div_mod && rng.chance(2, 3) {
            let (text, op) = match rng.below(3) {
                0 => (format!("{name} / 2"), DerivedOp::Div(2)),
                1 => (format!("{name} % 4"), DerivedOp::Mod(4)),
                _ => (format!("{name} / 3"), DerivedOp::Div(3)),
            };
            shape.derived.push(Derived {
                name: text.clone(),
                text,
                base: name.clone(),
                op,
                inline: true,
            });
        }
    }
    shape.dataset_style = *rng.pick(&[
        DatasetStyle::IfdefSmall,
        DatasetStyle::IfndefSmall,
        DatasetStyle::PolyBench,
    ]);
    shape.comments = forms.comments;
    shape.braceless = forms.braceless;
    shape.plain_copies = forms.copy_back;
    shape.style_seed = rng.next_u64();
    shape.temp_parameter = forms.temp_parameters && !symbolic && rng.chance(1, 2);
    shape.initialised = forms.initialised && !symbolic;
    shape.declared_iterators = forms.declared_iterators;
    shape.labels_bitwise = forms.labels_bitwise;
    shape
}

/// The extra kernel calls of a program of symbolic sizes, each kept only
/// when the program is well defined with it: every size 1, then 2, then
/// 3; two mixes of small sizes (when there are several); the sizes'
/// values with no time step (`TS = 0`); and two larger random sets (the
/// values plus 1 to 5, twice the values plus 0 to 3; `TS` at most 4).
fn add_symbolic_calls(program: &mut GenProgram, rng: &mut Rng) {
    let params = program.parameter_sizes();
    if params.is_empty() {
        return;
    }
    let values: Vec<i64> = program.runtime_sizes()[0].clone();
    let is_steps: Vec<bool> = params
        .iter()
        .map(|p| p == "TS" || p.starts_with("TT"))
        .collect();
    let mut candidates: Vec<Vec<i64>> = (1..=3).map(|t| vec![t; params.len()]).collect();
    if params.len() - usize::from(is_steps.contains(&true)) >= 2 {
        for _ in 0..2 {
            candidates.push(params.iter().map(|_| rng.range(1, 3)).collect());
        }
    }
    if is_steps.contains(&true) {
        candidates.push(
            values
                .iter()
                .zip(&is_steps)
                .map(|(v, steps)| if *steps { 0 } else { *v })
                .collect(),
        );
    }
    for scale in [1, 2] {
        candidates.push(
            values
                .iter()
                .zip(&is_steps)
                .map(|(v, steps)| {
                    if *steps {
                        rng.range(1, 4)
                    } else if scale == 1 {
                        v + rng.range(1, 5)
                    } else {
                        2 * v + rng.range(0, 3)
                    }
                })
                .collect(),
        );
    }
    for call in candidates {
        if program.runtime_sizes().contains(&call) {
            continue;
        }
        program.shape.calls.push(call);
        if program.check_well_defined().is_err() {
            program.shape.calls.pop();
        }
    }
}

/// Adds the other builds (`-DN0=..` for guarded sizes, the dataset
/// choices) and the extra kernel calls (tiny sizes 1, 2, 3 and others for
/// parameter sizes) under which the program stays well defined.
fn add_builds_and_calls(program: &mut GenProgram, rng: &mut Rng) {
    let params = program.parameter_sizes();
    if !params.is_empty() {
        let mut candidates: Vec<Vec<i64>> = (1..=3).map(|t| vec![t; params.len()]).collect();
        candidates.push(
            params
                .iter()
                .map(|p| program.environment(&[])[p] + rng.range(1, 5))
                .collect(),
        );
        for call in candidates {
            program.shape.calls.push(call);
            if program.check_well_defined().is_err() {
                program.shape.calls.pop();
            }
        }
    }
    let mut configs: Vec<SizeConfig> = Vec::new();
    let guarded: Vec<(String, i64)> = (0..program.sizes.len())
        .filter(|&i| program.size_form(i) == SizeForm::Guarded)
        .map(|i| program.sizes[i].clone())
        .collect();
    if !guarded.is_empty() {
        for _ in 0..4 {
            let values: Vec<(String, i64)> = guarded
                .iter()
                .map(|(n, v)| {
                    let other = match rng.below(6) {
                        0 => 1,
                        1 => 2,
                        2 => v - 1,
                        3 => v + 1,
                        4 => v + rng.range(2, 6),
                        _ => 2 * v + 1,
                    };
                    (n.clone(), other.max(1))
                })
                .collect();
            let flags = values.iter().map(|(n, v)| format!("-D{n}={v}")).collect();
            configs.push(SizeConfig { flags, values });
        }
    }
    let datasets: Vec<(String, i64, i64)> = (0..program.sizes.len())
        .filter_map(|i| match program.size_form(i) {
            SizeForm::Dataset { small, large } => Some((program.sizes[i].0.clone(), small, large)),
            _ => None,
        })
        .collect();
    if !datasets.is_empty() {
        configs.push(SizeConfig {
            flags: vec!["-DSMALL_DATASET".into()],
            values: datasets.iter().map(|d| (d.0.clone(), d.1)).collect(),
        });
        if program.shape.dataset_style == DatasetStyle::PolyBench {
            configs.push(SizeConfig {
                flags: vec!["-DLARGE_DATASET".into()],
                values: datasets.iter().map(|d| (d.0.clone(), d.2)).collect(),
            });
        }
    }
    for config in configs {
        if program.shape.configs.len() >= 2 || program.shape.configs.contains(&config) {
            break;
        }
        program.shape.configs.push(config);
        if program.check_well_defined().is_err() {
            program.shape.configs.pop();
        }
    }
}

/// The iterator of the loops of the `time-loops` form's own kernels (not
/// one of [`LOOP_VARS`]: they may sit inside a loop of the kernel).
const TIME_SPACE_VAR: &str = "u";

/// What the `time-loops` form puts around and inside its time loops.
struct TimeParts {
    /// Before the outermost time loop (initialisations of carried arrays).
    before: Vec<Node>,
    /// Inside the innermost time loop, before and after the wrapped nodes.
    first: Vec<Node>,
    last: Vec<Node>,
    /// After the outermost time loop (carried arrays read into `out`).
    after: Vec<Node>,
}

impl Builder {
    /// The `time-loops` form (issue 48): 1 to 3 time loops `for (tL = 0;
    /// tL <= TTL - 1; tL++)` (`TTL` a new size of value 0 to 3) around a
    /// run of the kernel's top-level nodes or of the body of one of its
    /// top-level loops, some statements of the run given a time
    /// iterator in their value or in their `in[]` subscript, and 1 to 3
    /// kernels of their own inside the innermost time loop (see
    /// [`Builder::time_kernel`]). Every draw is from `rng`, a stream of
    /// the form's own.
    fn time_loops(&mut self, rng: &mut Rng) {
        let depth = rng.range(1, 3) as usize;
        let mut times: Vec<(String, String)> = Vec::new();
        let mut may_be_empty = false;
        for level in 0..depth {
            let name = format!("TT{level}");
            let value = match rng.below(8) {
                0 => 0,
                1 => 1,
                2..=4 => 2,
                _ => 3,
            };
            may_be_empty |= value == 0;
            self.program.sizes.push((name.clone(), value));
            self.size_values.insert(name.clone(), value);
            times.push((format!("t{level}"), name));
        }
        if self.symbolic {
            let forms = &mut self.program.shape.size_forms;
            forms.resize(self.program.sizes.len(), SizeForm::Parameter);
        }
        let time_vars: Vec<String> = times.iter().map(|(v, _)| v.clone()).collect();
        let mut parts = TimeParts {
            before: Vec::new(),
            first: Vec::new(),
            last: Vec::new(),
            after: Vec::new(),
        };
        let kernels = match rng.below(6) {
            0..=2 => 1,
            3 | 4 => 2,
            _ => 3,
        };
        for _ in 0..kernels {
            self.time_kernel(rng, &time_vars, &mut parts);
        }
        let mut body = std::mem::take(&mut self.program.body);
        let loops: Vec<usize> = (0..body.len())
            .filter(|&i| matches!(&body[i], Node::Loop { body, .. } if !body.is_empty()))
            .collect();
        let siblings: &mut Vec<Node> = if !loops.is_empty() && rng.chance(1, 3) {
            match &mut body[*rng.pick(&loops)] {
                Node::Loop { body, .. } => body,
                _ => unreachable!("a loop was picked"),
            }
        } else {
            &mut body
        };
        // The run wrapped: a suffix when a time loop may run no step (a
        // read after the run of a value written in it would be a read
        // before write), else any run (maybe empty).
        let len = siblings.len();
        let (start, end) = if len == 0 || rng.chance(1, 6) {
            (len, len)
        } else {
            let start = rng.range(0, len as i64 - 1) as usize;
            if may_be_empty {
                (start, len)
            } else {
                (start, rng.range(start as i64 + 1, len as i64) as usize)
            }
        };
        let mut run: Vec<Node> = siblings.drain(start..end).collect();
        for node in &mut run {
            time_dependent(node, rng, &time_vars);
        }
        let mut inner = std::mem::take(&mut parts.first);
        inner.extend(run);
        inner.extend(std::mem::take(&mut parts.last));
        for (var, size) in times.iter().rev() {
            inner = vec![Node::Loop {
                var: var.clone(),
                lower: Aff::constant(0),
                upper: Aff::var(size, -1),
                body: inner,
            }];
        }
        let mut wrapped = parts.before;
        wrapped.extend(inner);
        wrapped.extend(parts.after);
        siblings.splice(start..start, wrapped);
        self.program.body = body;
    }

    /// One kernel of the `time-loops` form over `u in 0..=P-1` (`P` a
    /// size), `t` one of `time_vars`:
    /// - scratch per step, producer and consumer as sibling loops (a
    ///   fusion candidate at depth 1): `S[u] = w * in[u + t] + w' * (t +
    ///   c)`, then `out[u + o] += w * S[u]` (and `S[u - 1]` under `if (u
    ///   >= 1)`);
    /// - carried across steps: `C` initialised before the time loops,
    ///   `S[u] = w * C[u] + (t)` then `C[u] = w * S[u] + w' * in[u]` (the
    ///   value written at step t is read at step t + 1), or `C[u] += w *
    ///   C[u + 1] + (t)` (the cell after, not yet written this step), `C`
    ///   read into `out` after them;
    /// - a copy-back stencil: `Q` of `P + 2` cells initialised before,
    ///   `A[u] = w * Q[u - 1] + w' * Q[u] + w'' * Q[u + 1]` then `Q[u] =
    ///   A[u]` over `1..=P`, `Q` read into `out` after.
    fn time_kernel(&mut self, rng: &mut Rng, time_vars: &[String], parts: &mut TimeParts) {
        let u = TIME_SPACE_VAR;
        let names = self.size_names();
        let p = rng.pick(&names).clone();
        let t = rng.pick(time_vars).clone();
        let w = |rng: &mut Rng| rng.below(WEIGHTS.len());
        let at = |d: i64| vec![Aff::var(u, d)];
        let time_value = |rng: &mut Rng| Read::Value(Aff::var(&t, rng.range(0, 2)));
        let over = |lower: i64, upper: i64, body: Vec<Node>| Node::Loop {
            var: u.to_string(),
            lower: Aff::constant(lower),
            upper: Aff::var(&p, upper),
            body,
        };
        let assign = |target: Target, accumulate: bool, reads: Vec<(usize, Read)>| Node::Assign {
            target,
            accumulate,
            reads,
            constant: 0,
        };
        let temp = |array: usize, d: i64| Target::Temp {
            array,
            subscripts: at(d),
        };
        let read = |array: usize, d: i64| Read::Temp {
            array,
            subscripts: at(d),
        };
        let out = |rng: &mut Rng| Target::Output(Aff::var(u, rng.range(0, 7)));
        let input = |rng: &mut Rng, with_time: bool| {
            let mut index = Aff::var(u, rng.range(0, 2));
            if with_time {
                index.terms.push((t.clone(), 1));
            }
            Read::Input(index)
        };
        match rng.below(4) {
            0 => {
                let s = self.new_temp(vec![Aff::var(&p, 0)]);
                let with_time = rng.chance(1, 2);
                let reads = vec![(w(rng), input(rng, with_time)), (w(rng), time_value(rng))];
                parts
                    .last
                    .push(over(0, -1, vec![assign(temp(s, 0), false, reads)]));
                let mut consumer = vec![assign(out(rng), true, vec![(w(rng), read(s, 0))])];
                if rng.chance(1, 2) {
                    consumer.push(Node::If {
                        conditions: vec![Aff::var(u, -1)],
                        any: false,
                        body: vec![assign(out(rng), true, vec![(w(rng), read(s, -1))])],
                    });
                }
                parts.last.push(over(0, -1, consumer));
            }
            kind @ (1 | 2) => {
                let c = self.new_temp(vec![Aff::var(&p, 0)]);
                let init = assign(temp(c, 0), false, vec![(w(rng), input(rng, false))]);
                parts.before.push(over(0, -1, vec![init]));
                let steps = if kind == 1 {
                    let s = self.new_temp(vec![Aff::var(&p, 0)]);
                    let first = vec![(w(rng), read(c, 0)), (w(rng), time_value(rng))];
                    let second = vec![(w(rng), read(s, 0)), (w(rng), input(rng, false))];
                    vec![
                        over(0, -1, vec![assign(temp(s, 0), false, first)]),
                        over(0, -1, vec![assign(temp(c, 0), false, second)]),
                    ]
                } else {
                    let update = assign(
                        temp(c, 0),
                        true,
                        vec![(w(rng), read(c, 1)), (w(rng), time_value(rng))],
                    );
                    let last = Aff::var(&p, -2).plus_scaled(&Aff::var(u, 0), -1);
                    vec![over(0, -1, Self::guarded(vec![last], vec![update]))]
                };
                // At the start of the step: its reads see the step before.
                let mut first = steps;
                first.append(&mut parts.first);
                parts.first = first;
                parts.after.push(over(
                    0,
                    -1,
                    vec![assign(out(rng), true, vec![(w(rng), read(c, 0))])],
                ));
            }
            _ => {
                let q = self.new_temp(vec![Aff::var(&p, 2)]);
                let a = self.new_temp(vec![Aff::var(&p, 1)]);
                let init = assign(temp(q, 0), false, vec![(w(rng), input(rng, false))]);
                parts.before.push(over(0, 1, vec![init]));
                let mut reads: Vec<(usize, Read)> =
                    [-1, 0, 1].iter().map(|d| (w(rng), read(q, *d))).collect();
                if rng.chance(1, 2) {
                    reads.push((w(rng), time_value(rng)));
                }
                parts
                    .last
                    .push(over(1, 0, vec![assign(temp(a, 0), false, reads)]));
                parts.last.push(over(
                    1,
                    0,
                    vec![assign(temp(q, 0), false, vec![(3, read(a, 0))])],
                ));
                parts.after.push(over(
                    0,
                    1,
                    vec![assign(out(rng), true, vec![(w(rng), read(q, 0))])],
                ));
            }
        }
    }
}

/// Gives some statements of `node` a time iterator of `time_vars`: in
/// their value (`+ w * (t0 + c)`) or in the subscript of their `in[]`
/// read (`in[i + t0]`).
fn time_dependent(node: &mut Node, rng: &mut Rng, time_vars: &[String]) {
    match node {
        Node::Loop { body, .. }
        | Node::If { body, .. }
        | Node::Block { body, .. }
        | Node::Parallel { body, .. } => {
            for child in body {
                time_dependent(child, rng, time_vars);
            }
        }
        Node::IfElse {
            then_body,
            else_body,
            ..
        } => {
            for child in then_body.iter_mut().chain(else_body.iter_mut()) {
                time_dependent(child, rng, time_vars);
            }
        }
        Node::Assign { reads, .. } => {
            let t = rng.pick(time_vars).clone();
            if rng.chance(1, 3) {
                let c = rng.range(0, 2);
                reads.push((rng.below(WEIGHTS.len()), Read::Value(Aff::var(&t, c))));
            }
            if rng.chance(1, 3)
                && let Some((_, Read::Input(index))) =
                    reads.iter_mut().find(|(_, r)| matches!(r, Read::Input(_)))
            {
                index.terms.push((t, 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_programs_are_well_defined_and_reproducible() {
        for seed in 0..300 {
            let a = generate(seed);
            let b = generate(seed);
            assert_eq!(a, b, "seed {seed} is reproducible");
            assert!(a.check_well_defined().is_ok());
            assert!(!a.temps.is_empty());
            assert!(a.to_c().contains("#pragma scop"));
        }
    }
}
