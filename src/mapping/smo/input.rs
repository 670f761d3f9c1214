//! Reading global conflict set specifications in the `.smo.input` format
//! of the public SMO tool (seed 000 §3.4.1; see
//! `shared/reference/README.md`).
//!
//! The format, item by item (lines starting with `#` and blank lines are
//! skipped; an isl item runs from its first line until its braces balance):
//! the array space of the conflicts' domain (an isl set), the same for the
//! range, the names of the output variables, the number of statements, the
//! number of conflict polyhedra, then per polyhedron a line `s t` and an isl
//! map `{ [x...] -> [y...] : ... }`.
//!
//! What this module does NOT do: check that the polyhedra respect the
//! format's conventions (one direction per conflict pair, minimality); a
//! malformed file gives an [`SmoInputError`] with a line and column, never
//! a panic.

use crate::poly::isl_parse::parse_set;
use crate::poly::ops::union_params;
use crate::poly::{BasicSet, PolyError, Set, Space, Tuple};

/// Index of a statement of a conflict specification (0-based, as in the file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub usize);

/// One conflict polyhedron: conflicts between cells `x` written by statement
/// `source` and cells `y` written by statement `target`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConflictPolyhedron {
    pub source: StmtId,
    pub target: StmtId,
    /// A relation `{ [x] -> [y] }` over the global array space (all pieces
    /// share the specification's parameters).
    pub relation: Set,
    /// 1-based line of the isl text in the input (for messages).
    pub line: usize,
}

impl ConflictPolyhedron {
    /// Whether both sides belong to the same statement.
    pub fn is_intra(&self) -> bool {
        self.source == self.target
    }
}

/// A global conflict set specification (seed 000 §3.4.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConflictSpec {
    /// Parameter names, in column order for every set below.
    pub params: Vec<String>,
    /// Number of dimensions of the global array space.
    pub n_dim: usize,
    /// The global array space as a set over `[x...]` (domain side).
    pub array_space: BasicSet,
    /// The array space as written for the range side.
    pub range_space: BasicSet,
    /// Names of the output variables as listed in the file.
    pub output_names: Vec<String>,
    pub n_statements: usize,
    pub conflicts: Vec<ConflictPolyhedron>,
}

/// A parse error with its position (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SmoInputError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for SmoInputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// One logical item of the file: its text and the byte offset where it starts.
struct Item {
    text: String,
    offset: usize,
}

/// 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(offset, |p| offset - p - 1) + 1;
    (line, column)
}

/// Splits the file into items: isl items (brace-balanced, possibly over
/// several lines) and plain lines.
fn items(text: &str) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut pending: Option<(String, usize, i64)> = None;
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if let Some((mut acc, start, depth)) = pending.take() {
            let d = depth + brace_delta(line);
            acc.push('\n');
            acc.push_str(line);
            if d <= 0 {
                out.push(Item {
                    text: acc,
                    offset: start,
                });
            } else {
                pending = Some((acc, start, d));
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let lead = line.len() - trimmed.len();
        let depth = brace_delta(line);
        if depth > 0 {
            pending = Some((trimmed.to_string(), line_start + lead, depth));
        } else {
            out.push(Item {
                text: trimmed.to_string(),
                offset: line_start + lead,
            });
        }
    }
    if let Some((acc, start, _)) = pending {
        out.push(Item {
            text: acc,
            offset: start,
        });
    }
    out
}

fn brace_delta(line: &str) -> i64 {
    line.chars()
        .map(|c| match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        })
        .sum()
}

/// Prints `spec` in the `.smo.input` format that [`parse_smo_input`]
/// reads, after the comment lines `header` (each prefixed with `# `).
/// Every conflict polyhedron prints as one isl map, its pieces joined by
/// `;`.
pub fn print_smo_input(spec: &ConflictSpec, header: &[String]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for line in header {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(out, "\n# isl basic set defining the array space");
    let _ = writeln!(out, "{}", spec.array_space);
    let _ = writeln!(out, "{}", spec.range_space);
    let _ = writeln!(out, "\n# isl names for the output variables");
    let _ = writeln!(out, "{}", spec.output_names.join(" "));
    let _ = writeln!(out, "\n# Number of statements\n{}", spec.n_statements);
    let _ = writeln!(
        out,
        "\n# Number of conflict polyhedra\n{}\n",
        spec.conflicts.len()
    );
    for k in &spec.conflicts {
        let _ = writeln!(out, "{} {}", k.source.0, k.target.0);
        let _ = writeln!(out, "{}", k.relation);
    }
    out
}

/// Parses a `.smo.input` specification.
pub fn parse_smo_input(text: &str) -> Result<ConflictSpec, SmoInputError> {
    let err_at = |offset: usize, message: String| {
        let (line, column) = line_col(text, offset);
        SmoInputError {
            line,
            column,
            message,
        }
    };
    let items = items(text);
    let mut it = items.iter();
    let end = text.len();
    let mut next = |what: &str| -> Result<&Item, SmoInputError> {
        it.next()
            .ok_or_else(|| err_at(end, format!("unexpected end of input: expected {what}")))
    };
    let parse_isl = |item: &Item| -> Result<Set, SmoInputError> {
        parse_set(&item.text).map_err(|e| match e {
            PolyError::Parse { offset, message } => {
                let local = &item.text[..offset.min(item.text.len())];
                // Items keep their own newlines, so offsets map directly
                // unless leading whitespace was trimmed on later lines; they
                // are not trimmed (only the first line is).
                err_at(item.offset + local.len(), message)
            }
            other => err_at(item.offset, other.to_string()),
        })
    };
    let single = |set: Set, item: &Item, what: &str| -> Result<BasicSet, SmoInputError> {
        if set.pieces.len() != 1 {
            return Err(err_at(
                item.offset,
                format!("{what} must be one convex polyhedron"),
            ));
        }
        Ok(set.pieces.into_iter().next().expect("checked one piece"))
    };
    let parse_count = |item: &Item, what: &str| -> Result<usize, SmoInputError> {
        item.text
            .trim()
            .parse::<usize>()
            .map_err(|_| err_at(item.offset, format!("expected {what} (a number)")))
    };

    let dom_item = next("the array space (isl set)")?;
    let dom = parse_isl(dom_item)?;
    if dom.space.is_relation() {
        return Err(err_at(
            dom_item.offset,
            "the array space must be a set".into(),
        ));
    }
    let ran_item = next("the range array space (isl set)")?;
    let ran = parse_isl(ran_item)?;
    if ran.space.is_relation() || ran.space.n_in() != dom.space.n_in() {
        return Err(err_at(
            ran_item.offset,
            "the range array space must be a set of the same dimension".into(),
        ));
    }
    let names_item = next("the output variable names")?;
    let output_names: Vec<String> = names_item
        .text
        .split_whitespace()
        .map(str::to_string)
        .collect();
    if output_names.len() != dom.space.n_in() {
        return Err(err_at(
            names_item.offset,
            format!(
                "expected {} output variable names, found {}",
                dom.space.n_in(),
                output_names.len()
            ),
        ));
    }
    let n_statements = parse_count(
        next("the number of statements")?,
        "the number of statements",
    )?;
    let n_conflicts = parse_count(
        next("the number of conflict polyhedra")?,
        "the number of conflict polyhedra",
    )?;
    let n_dim = dom.space.n_in();
    let mut params = union_params(&dom.space.params, &ran.space.params);
    let mut raw_conflicts = Vec::new();
    for k in 0..n_conflicts {
        let pair = next(&format!("the statement pair of conflict polyhedron {k}"))?;
        let nums: Vec<&str> = pair.text.split_whitespace().collect();
        let parsed: Vec<Option<usize>> = nums.iter().map(|s| s.parse().ok()).collect();
        let (s, t) = match parsed.as_slice() {
            [Some(s), Some(t)] => (*s, *t),
            _ => {
                return Err(err_at(
                    pair.offset,
                    "expected two statement numbers `s t`".into(),
                ));
            }
        };
        if s >= n_statements || t >= n_statements {
            return Err(err_at(
                pair.offset,
                format!("statement number out of range (there are {n_statements} statements)"),
            ));
        }
        let rel_item = next(&format!("the isl map of conflict polyhedron {k}"))?;
        let rel = parse_isl(rel_item)?;
        if !rel.space.is_relation() || rel.space.n_in() != n_dim || rel.space.n_out() != n_dim {
            return Err(err_at(
                rel_item.offset,
                format!("expected a relation between two {n_dim}-dimensional tuples"),
            ));
        }
        params = union_params(&params, &rel.space.params);
        let (line, _) = line_col(text, rel_item.offset);
        raw_conflicts.push((StmtId(s), StmtId(t), rel, line, rel_item.offset));
    }
    if let Some(extra) = it.next() {
        return Err(err_at(
            extra.offset,
            "unexpected text after the last conflict polyhedron".into(),
        ));
    }
    let pe = |e: PolyError, off: usize| err_at(off, e.to_string());
    let dom = dom
        .with_params(&params)
        .map_err(|e| pe(e, dom_item.offset))?;
    let ran = ran
        .with_params(&params)
        .map_err(|e| pe(e, ran_item.offset))?;
    let array_space = single(dom, dom_item, "the array space")?;
    let range_space = single(ran, ran_item, "the range array space")?;
    let mut conflicts = Vec::new();
    let xs: Vec<String> = (0..n_dim).map(|d| format!("x{d}")).collect();
    let ys: Vec<String> = (0..n_dim).map(|d| format!("y{d}")).collect();
    let space = Space::relation(
        params.clone(),
        Tuple::anonymous(xs.clone()),
        Tuple::anonymous(ys),
    );
    for (s, t, rel, line, off) in raw_conflicts {
        let rel = rel.with_params(&params).map_err(|e| pe(e, off))?;
        let mut out = Set::empty(space.clone());
        for mut piece in rel.pieces {
            piece.space = space.clone();
            out.push(piece);
        }
        conflicts.push(ConflictPolyhedron {
            source: s,
            target: t,
            relation: out,
            line,
        });
    }
    let set_space = Space::set(params.clone(), Tuple::anonymous(xs));
    let mut array_space = array_space;
    array_space.space = set_space.clone();
    let mut range_space = range_space;
    range_space.space = set_space;
    Ok(ConflictSpec {
        params,
        n_dim,
        array_space,
        range_space,
        output_names,
        n_statements,
        conflicts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAT1D: &str = "# comment\n[N0] -> { [x0, x1] : 0 <= x0 < N0 and 0 <= x1 <= 1 }\n\
        [N0] -> { [y0, y1] : 0 <= y0 < N0 and 0 <= y1 <= 1 }\n\ny0 y1\n2\n2\n\
        0 0\n[N0] -> { [x0, x1] -> [y0, y1] : x1 = 0 and y1 = 0 and x0 < y0 }\n\
        1 0\n[N0] -> { [x0, x1] -> \n  [y0, y1] : x1 = 1 and y1 = 0 and x0 >= y0 }\n";

    #[test]
    fn parses_a_small_specification() {
        let spec = parse_smo_input(HEAT1D).expect("parses");
        assert_eq!(spec.params, vec!["N0".to_string()]);
        assert_eq!(spec.n_dim, 2);
        assert_eq!(spec.n_statements, 2);
        assert_eq!(spec.conflicts.len(), 2);
        assert!(spec.conflicts[0].is_intra());
        assert_eq!(spec.conflicts[1].source, StmtId(1));
        assert_eq!(spec.conflicts[1].line, 11);
        assert_eq!(spec.conflicts[1].relation.pieces[0].ineqs.len(), 1);
    }

    #[test]
    fn errors_carry_positions() {
        let bad = HEAT1D.replace("1 0\n", "1 7\n");
        let e = parse_smo_input(&bad).expect_err("statement out of range");
        assert_eq!(e.line, 10);
        let bad = HEAT1D.replace("x0 < y0", "x0 < < y0");
        let e = parse_smo_input(&bad).expect_err("isl error");
        assert_eq!(e.line, 9);
        assert!(e.column > 40, "column {}", e.column);
        let e = parse_smo_input("[N] -> { [x] : x >= 0 }\n").expect_err("truncated");
        assert!(e.message.contains("unexpected end"));
        let bad = HEAT1D.replace("\n2\n2\n", "\ntwo\n2\n");
        let e = parse_smo_input(&bad).expect_err("bad count");
        assert_eq!((e.line, e.column), (6, 1));
    }
}
