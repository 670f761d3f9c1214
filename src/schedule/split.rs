//! Splitting a temporary by reference groups (seed 004's "compatible
//! references"): the accesses of an array are grouped so that no two
//! groups ever touch one cell, and each group gets an array of its own.
//!
//! A temporary `t[2][N]` whose row 0 holds a value that dies at once and
//! whose row 1 holds values that all live together folds, as one array,
//! to the product of its two dimensions' moduli (`2·N`): no modular
//! mapping of the whole can give row 0 one cell and row 1 N. Split into
//! `t_0` (the accesses of row 0) and `t_1` (those of row 1), each folds
//! alone: 1 + N cells.
//!
//! - **Groups.** Two accesses are in one group when some instance of the
//!   one and some instance of the other touch the same cell (reads
//!   included), for some parameter value of the context: exact integer
//!   emptiness tests, symbolic. Groups are the connected components. An
//!   undecided test joins the two groups.
//! - **Text.** The declarator is repeated once per group under new names
//!   (`double t_0[2][N], t_1[2][N];`), and every access's name is
//!   replaced by its group's: the contraction of the split program then
//!   shrinks each. Only local arrays of the function that nothing else
//!   references (the name's tokens in its block are the declarator and
//!   the SCoP's accesses, exactly), with no initialiser.
//! - **Checked.** The split source is read back, and every statement of
//!   the SCoP must be the original one (domain, schedule, subscripts)
//!   with the split array's accesses renamed to their group's
//!   ([`check_split`]). The trace check of `verify` and of the campaigns
//!   runs both programs with the new names mapped back to the old one.
//! - **Used** when the SCoP's temporaries need fewer cells split than not
//!   (see `crate::pipeline::contract_file`).

use crate::codegen::edits::Edit;
use crate::ir::{ArrayId, Program, Scop, Storage};
use crate::util::c_text::{TokenKind, identifier_tokens, tokens};

/// One array of SCoP `scop` split by reference groups.
#[derive(Clone, Debug)]
pub(crate) struct SplitPlan {
    pub scop: usize,
    pub array: ArrayId,
    pub name: String,
    /// Per group: its accesses, as (statement, index in
    /// [`crate::ir::Stmt::accesses`]).
    pub groups: Vec<Vec<(usize, usize)>>,
    /// Per group: the new array's name.
    pub names: Vec<String>,
}

impl SplitPlan {
    /// `(new name, original name)` per group.
    pub fn renames(&self) -> Vec<(String, String)> {
        self.names
            .iter()
            .map(|n| (n.clone(), self.name.clone()))
            .collect()
    }

    /// For the reports: `` `t` split into 2 (reference groups with
    /// disjoint footprints): `t_0` (lines 12, 15), `t_1` (line 13) ``.
    pub fn describe(&self, program: &Program) -> String {
        let scop = &program.scops[self.scop];
        let parts: Vec<String> = self
            .groups
            .iter()
            .zip(&self.names)
            .map(|(group, name)| {
                let mut lines: Vec<usize> = group
                    .iter()
                    .map(|&(k, _)| line_of(&program.source, scop.stmts[k].span.start))
                    .collect();
                lines.sort_unstable();
                lines.dedup();
                let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
                format!(
                    "`{name}` (line{} {})",
                    if lines.len() == 1 { "" } else { "s" },
                    lines.join(", ")
                )
            })
            .collect();
        format!(
            "`{}` split into {} (reference groups with disjoint footprints): {}",
            self.name,
            self.groups.len(),
            parts.join(", ")
        )
    }
}

fn line_of(source: &str, at: usize) -> usize {
    source[..at.min(source.len())].matches('\n').count() + 1
}

/// The temporaries of SCoP `si` (of the names `temporaries`: the
/// contraction's classification) whose accesses form two groups or more.
#[cfg(test)]
pub(crate) fn plan_splits(program: &Program, si: usize, temporaries: &[String]) -> Vec<SplitPlan> {
    plan_splits_named(program, si, temporaries, &source_names(program))
}

/// The identifiers of `program`'s source (new names must be none of
/// them), for [`plan_splits_named`]: read once per file, not once per
/// SCoP.
pub(crate) fn source_names(program: &Program) -> std::collections::HashSet<String> {
    identifier_tokens(&program.source, true)
        .into_iter()
        .map(|(_, n)| n)
        .collect()
}

/// [`plan_splits`], with the names of the source `taken`
/// ([`source_names`]).
pub(crate) fn plan_splits_named(
    program: &Program,
    si: usize,
    temporaries: &[String],
    taken: &std::collections::HashSet<String>,
) -> Vec<SplitPlan> {
    let scop = &program.scops[si];
    let mut out = Vec::new();
    for array in &scop.arrays {
        if !temporaries.contains(&array.name) || !eligible(program, scop, array.id) {
            continue;
        }
        let accesses: Vec<(usize, usize)> = scop
            .stmts
            .iter()
            .enumerate()
            .flat_map(|(k, s)| {
                s.accesses()
                    .enumerate()
                    .filter(|(_, a)| a.array == array.id)
                    .map(move |(j, _)| (k, j))
            })
            .collect();
        let groups = groups(scop, &accesses);
        if groups.len() < 2 {
            continue;
        }
        let Some(names) = new_names(&array.name, groups.len(), taken) else {
            continue;
        };
        out.push(SplitPlan {
            scop: si,
            array: array.id,
            name: array.name.clone(),
            groups,
            names,
        });
    }
    out
}

/// A local temporary of the function, not referenced but by the SCoP's
/// accesses, whose declarator can be repeated as it is.
fn eligible(program: &Program, scop: &Scop, id: ArrayId) -> bool {
    let a = scop.array(id);
    let f = &a.facts;
    if f.storage != Storage::Local
        || !f.declared_in_function
        || f.address_taken
        || f.used_outside_scop
        || f.read_through_its_write
        || f.shared_by_parallel_loop.is_some()
        || a.value_used
        || a.extents.is_empty()
        || a.initializer_span.is_some()
    {
        return false;
    }
    let (Some(declarator), Some(block)) = (&a.declarator_span, a.decl_blocks.last()) else {
        return false;
    };
    let source = &program.source;
    // The declarator starts with the name and evaluates nothing twice
    // that matters: no call, no `++`, `--` or assignment in its extents.
    let text = &source[declarator.clone()];
    let toks = tokens(text);
    match toks.first() {
        Some((r, TokenKind::Ident)) if text[r.clone()] == a.name => {}
        _ => return false,
    }
    for (k, (r, kind)) in toks.iter().enumerate() {
        let t = &text[r.clone()];
        let call = *kind == TokenKind::Ident
            && toks
                .get(k + 1)
                .is_some_and(|(n, _)| &text[n.clone()] == "(");
        let assigns = *kind == TokenKind::Punct
            && (matches!(t, "++" | "--")
                || (t.ends_with('=') && !matches!(t, "==" | "<=" | ">=" | "!=")));
        if (call && k > 0) || assigns {
            return false;
        }
    }
    // The name's tokens in the declaration's block: the declarator's and
    // one per access (a compound assignment's write and read share one).
    let mut spans: Vec<std::ops::Range<usize>> = scop
        .stmts
        .iter()
        .flat_map(|s| s.accesses())
        .filter(|x| x.array == id)
        .map(|x| x.name_span.clone())
        .collect();
    spans.sort_by_key(|r| (r.start, r.end));
    spans.dedup();
    if spans.iter().any(|r| {
        source.get(r.clone()) != Some(a.name.as_str())
            || r.start < block.block.start
            || r.end > block.block.end
    }) {
        return false;
    }
    let found: Vec<usize> = identifier_tokens(&source[block.block.clone()], true)
        .into_iter()
        .filter(|(_, n)| *n == a.name)
        .map(|(at, _)| at + block.block.start)
        .collect();
    let mut expected: Vec<usize> = spans.iter().map(|r| r.start).collect();
    expected.push(declarator.start);
    expected.sort_unstable();
    found == expected
}

/// The connected components of "touches a cell the other touches", in
/// order of their first access.
fn groups(scop: &Scop, accesses: &[(usize, usize)]) -> Vec<Vec<(usize, usize)>> {
    let n = accesses.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut k: usize) -> usize {
        while parent[k] != k {
            parent[k] = parent[parent[k]];
            k = parent[k];
        }
        k
    }
    for x in 0..n {
        for y in x + 1..n {
            let (rx, ry) = (root(&mut parent, x), root(&mut parent, y));
            if rx == ry {
                continue;
            }
            if overlap(scop, accesses[x], accesses[y]) != Some(false) {
                parent[ry.max(rx)] = rx.min(ry);
            }
        }
    }
    let mut out: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut index: Vec<Option<usize>> = vec![None; n];
    for (k, access) in accesses.iter().enumerate() {
        let r = root(&mut parent, k);
        match index[r] {
            Some(g) => out[g].push(*access),
            None => {
                index[r] = Some(out.len());
                out.push(vec![*access]);
            }
        }
    }
    out
}

/// Whether some instances of the two accesses touch one cell (`None`:
/// undecided).
fn overlap(scop: &Scop, (ka, ja): (usize, usize), (kb, jb): (usize, usize)) -> Option<bool> {
    let (a, b) = (&scop.stmts[ka], &scop.stmts[kb]);
    let x = a.accesses().nth(ja)?;
    let y = b.accesses().nth(jb)?;
    // The same reference text (a compound assignment's write and read).
    if ka == kb && x.span == y.span {
        return Some(true);
    }
    let pairs = super::fusion::conflict_pairs(scop, a, b, &x.subscripts, &y.subscripts, 0)?;
    Some(!pairs.is_empty().ok()?)
}

/// `count` names `t_0`, `t_1`, ... that no identifier of the file has
/// (else `t_part0`, ...).
fn new_names(
    name: &str,
    count: usize,
    taken: &std::collections::HashSet<String>,
) -> Option<Vec<String>> {
    ["_", "_part", "_split"].iter().find_map(|sep| {
        let names: Vec<String> = (0..count).map(|k| format!("{name}{sep}{k}")).collect();
        names.iter().all(|n| !taken.contains(n)).then_some(names)
    })
}

/// The edits that split every array of `plans` (of `program`).
pub(crate) fn split_edits(program: &Program, plans: &[SplitPlan]) -> Option<Vec<Edit>> {
    let mut edits = Vec::new();
    for plan in plans {
        let scop = &program.scops[plan.scop];
        let a = scop.array(plan.array);
        let declarator = a.declarator_span.clone()?;
        let source = &program.source;
        let rest = source.get(declarator.start + a.name.len()..declarator.end)?;
        let text: Vec<String> = plan.names.iter().map(|n| format!("{n}{rest}")).collect();
        // A declaration of this array alone becomes one declaration per
        // group, one per line; else the declarators follow each other.
        let whole = a.decl_span.clone().filter(|d| {
            d.start <= declarator.start
                && source.get(declarator.end..d.end).map(str::trim) == Some(";")
                && !source[d.start..declarator.start].contains(',')
        });
        match whole {
            Some(d) => {
                let head = &source[d.start..declarator.start];
                let indent = crate::util::c_text::indent_of_line(source, d.start);
                let lines: Vec<String> = text.iter().map(|t| format!("{head}{t};")).collect();
                edits.push(Edit::replace(d, lines.join(&format!("\n{indent}"))));
            }
            None => edits.push(Edit::replace(declarator, text.join(", "))),
        }
        for (group, new) in plan.groups.iter().zip(&plan.names) {
            for &(k, j) in group {
                let access = scop.stmts[k].accesses().nth(j)?;
                let edit = Edit::replace(access.name_span.clone(), new.clone());
                if !edits.contains(&edit) {
                    edits.push(edit);
                }
            }
        }
    }
    Some(edits)
}

/// Whether SCoP `split` is SCoP `original` with the accesses of `plans`'
/// arrays (of that SCoP) renamed to their groups' arrays, and nothing
/// The program with the temporaries of `all`'s plans for the SCoPs
/// `scops` split, read back, and the plans used: a SCoP whose split text
/// fails [`check_split`] leaves `scops`, and the others are tried again.
/// `None` when no SCoP is left, or the edits cannot be made or read back.
pub(crate) fn split_program(
    program: &Program,
    all: &[SplitPlan],
    scops: &mut Vec<usize>,
    read_back: &dyn Fn(&str) -> Program,
) -> Option<(Program, Vec<SplitPlan>)> {
    while !scops.is_empty() {
        let plans: Vec<SplitPlan> = all
            .iter()
            .filter(|p| scops.contains(&p.scop))
            .cloned()
            .collect();
        let edits = split_edits(program, &plans)?;
        let text = crate::codegen::apply_edits(&program.source, &edits).ok()?;
        let changed = read_back(&text);
        if changed.has_errors() || changed.scops.len() != program.scops.len() {
            return None;
        }
        let bad: Vec<usize> = scops
            .iter()
            .copied()
            .filter(|&si| {
                let these: Vec<SplitPlan> =
                    plans.iter().filter(|p| p.scop == si).cloned().collect();
                check_split(&program.scops[si], &changed.scops[si], &these).is_err()
            })
            .collect();
        if bad.is_empty() {
            return Some((changed, plans));
        }
        scops.retain(|si| !bad.contains(si));
    }
    None
}

/// else changed.
pub(crate) fn check_split(
    original: &Scop,
    split: &Scop,
    plans: &[SplitPlan],
) -> Result<(), super::failure::Failure> {
    use super::failure::Failure;
    let names = |s: &Scop| s.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>();
    if names(original) != names(split) || original.stmts.len() != split.stmts.len() {
        return Err(Failure::SplitShape);
    }
    for (k, (a, b)) in original.stmts.iter().zip(&split.stmts).enumerate() {
        if a.iterators != b.iterators
            || format!("{:?}", a.domain) != format!("{:?}", b.domain)
            || a.schedule != b.schedule
        {
            return Err(Failure::NotOriginalStatement(b.name.clone()));
        }
        let (xs, ys): (Vec<_>, Vec<_>) = (a.accesses().collect(), b.accesses().collect());
        if xs.len() != ys.len() {
            return Err(Failure::SplitAccesses(b.name.clone()));
        }
        for (j, (x, y)) in xs.iter().zip(&ys).enumerate() {
            let old = &original.array(x.array).name;
            let expected = plans
                .iter()
                .find(|p| p.name == *old)
                .and_then(|p| {
                    p.groups
                        .iter()
                        .position(|g| g.contains(&(k, j)))
                        .map(|g| &p.names[g])
                })
                .unwrap_or(old);
            let ax = original.array(x.array);
            let ay = split.array(y.array);
            if ay.name != *expected
                || x.kind != y.kind
                || x.subscripts != y.subscripts
                || ax.extents.len() != ay.extents.len()
                || ax.elem_type != ay.elem_type
            {
                return Err(Failure::NotRenamed {
                    stmt: b.name.clone(),
                    access: j,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::{Options, extract};

    fn kernel(body: &str, decls: &str) -> Program {
        let text = format!(
            "#define N 8\nvoid f(double in[N], double out[N])\n{{\n    int i;\n{decls}\n#pragma scop\n{body}#pragma endscop\n}}\n"
        );
        extract("k.c", &text, &Options::default())
    }

    /// The groups as the lines of their statements' accesses: (statement,
    /// access index) per group.
    fn plans(p: &Program) -> Vec<SplitPlan> {
        plan_splits(p, 0, &["t".to_string()])
    }

    #[test]
    fn regions_at_different_offsets_make_two_groups() {
        let p = kernel(
            "    for (i = 0; i < N; i++) {\n        t[i] = in[i];\n        t[N + i] = in[i];\n    }\n    \
for (i = 0; i < N; i++)\n        out[i] = t[N - 1 - i] + t[N + i];\n",
            "    double t[2 * N];",
        );
        let plans = plans(&p);
        assert_eq!(plans.len(), 1);
        // S0 writes t[i] (access 0), S1 t[N + i]; S2 reads t[N - 1 - i]
        // (access 1) and t[N + i] (access 2).
        assert_eq!(
            plans[0].groups,
            vec![vec![(0, 0), (2, 1)], vec![(1, 0), (2, 2)]]
        );
        assert_eq!(plans[0].names, ["t_0", "t_1"]);
        let edits = split_edits(&p, &plans).expect("edits");
        let text = crate::codegen::apply_edits(&p.source, &edits).expect("applies");
        assert!(
            text.contains("    double t_0[2 * N];\n    double t_1[2 * N];"),
            "{text}"
        );
        assert!(
            text.contains("out[i] = t_0[N - 1 - i] + t_1[N + i];"),
            "{text}"
        );
        let back = extract("k.c", &text, &Options::default());
        assert_eq!(check_split(&p.scops[0], &back.scops[0], &plans), Ok(()));
        // A read renamed into the other group is not the split planned.
        let wrong = text.replace("t_1[N + i];", "t_0[N + i];");
        let back = extract("k.c", &wrong, &Options::default());
        assert!(check_split(&p.scops[0], &back.scops[0], &plans).is_err());
    }

    /// A read that spans both regions (`t[N / 2 + i]`) joins them: one
    /// group, no split; so does a second declarator on the line.
    #[test]
    fn a_read_across_the_regions_joins_them() {
        let p = kernel(
            "    for (i = 0; i < N; i++) {\n        t[i] = in[i];\n        t[N + i] = in[i];\n    }\n    \
for (i = 0; i < N; i++)\n        out[i] = t[4 + i];\n",
            "    double t[2 * N];",
        );
        assert!(plans(&p).is_empty());
    }

    /// The new names avoid every identifier of the file; the name used
    /// elsewhere (a comment does not count) makes the array ineligible.
    #[test]
    fn names_avoid_the_file_s_identifiers_and_other_references_block() {
        let body = "    for (i = 0; i < N; i++) {\n        t[i] = in[i];\n        t[N + i] = in[i];\n    }\n    \
for (i = 0; i < N; i++)\n        out[i] = t[N - 1 - i] + t[N + i];\n";
        let p = kernel(
            body,
            "    double t[2 * N]; /* t */\n    int t_1 = 0;\n    (void)t_1;",
        );
        let plans = plans(&p);
        assert_eq!(plans.len(), 1);
        assert_eq!(plans[0].names, ["t_part0", "t_part1"]);
        let p = kernel(
            body,
            "    double t[2 * N];\n    double *q = t;\n    (void)q;",
        );
        assert!(super::plan_splits(&p, 0, &["t".to_string()]).is_empty());
    }
}
