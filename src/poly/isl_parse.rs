//! Parsing sets and relations written in isl notation.
//!
//! Accepted: an optional parameter list `[N, M] -> `, braces holding pieces
//! separated by `;`, each piece a tuple (`S1[k, i]`, `[x]`, `S[]`) or a
//! relation (`S[i] -> A[i + 1]`), optionally followed by `:` and a formula.
//! Tuple entries that are not fresh names (expressions, repeated names,
//! parameters) become unnamed dimensions with an equality. Formulas are built
//! from chained comparisons (`1 <= k < N`, with `<, <=, >, >=, =`), `and`,
//! `or`, parentheses, `true`, `false` and `exists (e0, e1 : ...)`.
//! Expressions are affine with integer coefficients (`2i`, `2*i`, `i*2`,
//! `-i`, `3(i + 1)`). Names that are neither dimensions nor existentials are
//! parameters, even when the parameter list does not declare them.
//!
//! What it does NOT accept: `not`, `floor`, `mod`, `min`/`max`, rational
//! coefficients, named-tuple nesting (`[S[i] -> T[j]]`). Malformed text gives
//! [`PolyError::Parse`] with the byte offset of the offending token.

use std::collections::BTreeMap;

use super::basic::BasicSet;
use super::error::{PolyError, PolyResult, add, mul, sub};
use super::set::Set;
use super::space::{Space, Tuple};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Int(i64),
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Colon,
    Semi,
    Arrow,
    Plus,
    Minus,
    Star,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    End,
}

fn parse_error(offset: usize, message: impl Into<String>) -> PolyError {
    PolyError::Parse {
        offset,
        message: message.into(),
    }
}

fn lex(text: &str) -> PolyResult<Vec<(Tok, usize)>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let v: i64 = text[start..i]
                .parse()
                .map_err(|_| parse_error(start, "integer literal too large"))?;
            out.push((Tok::Int(v), start));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || bytes[i] == b'_'
                    || bytes[i] == b'\''
                    || bytes[i] == b'$')
            {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_string()), start));
            continue;
        }
        let next = bytes.get(i + 1).copied();
        let (tok, len) = match (c, next) {
            (b'-', Some(b'>')) => (Tok::Arrow, 2),
            (b'<', Some(b'=')) => (Tok::Le, 2),
            (b'>', Some(b'=')) => (Tok::Ge, 2),
            (b'=', Some(b'=')) => (Tok::Eq, 2),
            (b'[', _) => (Tok::LBrack, 1),
            (b']', _) => (Tok::RBrack, 1),
            (b'{', _) => (Tok::LBrace, 1),
            (b'}', _) => (Tok::RBrace, 1),
            (b'(', _) => (Tok::LParen, 1),
            (b')', _) => (Tok::RParen, 1),
            (b',', _) => (Tok::Comma, 1),
            (b':', _) => (Tok::Colon, 1),
            (b';', _) => (Tok::Semi, 1),
            (b'+', _) => (Tok::Plus, 1),
            (b'-', _) => (Tok::Minus, 1),
            (b'*', _) => (Tok::Star, 1),
            (b'<', _) => (Tok::Lt, 1),
            (b'>', _) => (Tok::Gt, 1),
            (b'=', _) => (Tok::Eq, 1),
            _ => {
                let ch = text[start..].chars().next().unwrap_or('?');
                return Err(parse_error(start, format!("unexpected character {ch:?}")));
            }
        };
        out.push((tok, start));
        i += len;
    }
    out.push((Tok::End, text.len()));
    Ok(out)
}

/// A variable of a piece being parsed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Var {
    Param(String),
    Dim(usize),
    Exist(usize),
}

/// An affine expression over [`Var`]s.
#[derive(Clone, Debug, Default)]
struct Lin {
    coeffs: BTreeMap<Var, i64>,
    constant: i64,
}

impl Lin {
    fn constant(c: i64) -> Lin {
        Lin {
            coeffs: BTreeMap::new(),
            constant: c,
        }
    }

    fn var(v: Var) -> Lin {
        let mut coeffs = BTreeMap::new();
        coeffs.insert(v, 1);
        Lin {
            coeffs,
            constant: 0,
        }
    }

    fn is_constant(&self) -> bool {
        self.coeffs.values().all(|c| *c == 0)
    }

    fn add(&self, other: &Lin, sign: i64) -> PolyResult<Lin> {
        let mut out = self.clone();
        for (v, c) in &other.coeffs {
            let e = out.coeffs.entry(v.clone()).or_insert(0);
            *e = add(*e, mul(sign, *c)?)?;
        }
        out.constant = add(out.constant, mul(sign, other.constant)?)?;
        Ok(out)
    }

    fn scale(&self, k: i64) -> PolyResult<Lin> {
        let mut out = self.clone();
        for c in out.coeffs.values_mut() {
            *c = mul(*c, k)?;
        }
        out.constant = mul(out.constant, k)?;
        Ok(out)
    }
}

/// A constraint `lin >= 0` or `lin = 0`.
#[derive(Clone, Debug)]
struct Cons {
    lin: Lin,
    is_eq: bool,
}

/// A formula in disjunctive normal form: a list of conjunctions.
type Dnf = Vec<Vec<Cons>>;

/// A parsed tuple: its name and, per dimension, its name if it was fresh.
struct ParsedTuple {
    name: Option<String>,
    dim_names: Vec<Option<String>>,
}

struct ParsedPiece {
    domain: ParsedTuple,
    range: Option<ParsedTuple>,
    n_dims: usize,
    n_exist: usize,
    dnf: Dnf,
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    params: Vec<String>,
    /// Names of the dimensions of the current piece.
    dims: Vec<Option<String>>,
    /// Existentials in scope: (name, id), innermost last.
    exists: Vec<(String, usize)>,
    n_exist: usize,
    /// Equalities from tuple entries that were expressions.
    tuple_eqs: Vec<Cons>,
    /// Current nesting depth (parentheses, `exists`, unary minus).
    depth: usize,
}

const KEYWORDS: &[&str] = &["and", "or", "exists", "true", "false", "not"];

/// Deepest nesting of parentheses and `exists` accepted.
const MAX_DEPTH: usize = 256;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i].0
    }

    fn offset(&self) -> usize {
        self.toks[self.pos].1
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].0.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn expect(&mut self, t: Tok, what: &str) -> PolyResult<()> {
        if *self.peek() == t {
            self.bump();
            Ok(())
        } else {
            Err(parse_error(
                self.offset(),
                format!("expected {what}, found {:?}", self.peek()),
            ))
        }
    }

    fn is_keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == word)
    }

    /// Whether the '(' at the current position opens an expression (the
    /// token after its matching ')' is an arithmetic or comparison operator)
    /// rather than a parenthesised formula.
    fn paren_starts_expression(&self) -> bool {
        let mut depth = 0usize;
        let mut i = self.pos;
        while i < self.toks.len() {
            match self.toks[i].0 {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        let next = self.toks.get(i + 1).map(|t| &t.0);
                        return matches!(
                            next,
                            Some(
                                Tok::Lt
                                    | Tok::Le
                                    | Tok::Gt
                                    | Tok::Ge
                                    | Tok::Eq
                                    | Tok::Plus
                                    | Tok::Minus
                                    | Tok::Star
                            )
                        );
                    }
                }
                Tok::End => return false,
                _ => {}
            }
            i += 1;
        }
        false
    }

    /// Enters one level of nesting; deeply nested text is rejected rather
    /// than risking the stack.
    fn enter(&mut self, offset: usize) -> PolyResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(parse_error(offset, "nesting too deep"));
        }
        Ok(())
    }

    fn resolve(&mut self, name: &str) -> Var {
        if let Some((_, id)) = self.exists.iter().rev().find(|(n, _)| n == name) {
            return Var::Exist(*id);
        }
        if let Some(d) = self.dims.iter().position(|n| n.as_deref() == Some(name)) {
            return Var::Dim(d);
        }
        if !self.params.iter().any(|p| p == name) {
            self.params.push(name.to_string());
        }
        Var::Param(name.to_string())
    }

    // expr := ['+'|'-'] term (('+'|'-') term)*
    fn parse_expr(&mut self) -> PolyResult<Lin> {
        let mut sign = 1;
        match self.peek() {
            Tok::Minus => {
                self.bump();
                sign = -1;
            }
            Tok::Plus => {
                self.bump();
            }
            _ => {}
        }
        let mut acc = self.parse_term()?.scale(sign)?;
        loop {
            let s = match self.peek() {
                Tok::Plus => 1,
                Tok::Minus => -1,
                _ => return Ok(acc),
            };
            self.bump();
            let t = self.parse_term()?;
            acc = acc.add(&t, s)?;
        }
    }

    // term := factor ('*' factor)*, at most one non-constant factor.
    fn parse_term(&mut self) -> PolyResult<Lin> {
        let start = self.offset();
        let mut acc = self.parse_factor()?;
        while *self.peek() == Tok::Star {
            self.bump();
            let f = self.parse_factor()?;
            acc = multiply(&acc, &f, start)?;
        }
        Ok(acc)
    }

    // factor := '-' factor | Int [Ident | '('expr')'] | Ident | '(' expr ')'
    fn parse_factor(&mut self) -> PolyResult<Lin> {
        let off = self.offset();
        match self.peek().clone() {
            Tok::Minus => {
                self.enter(off)?;
                self.bump();
                let f = self.parse_factor()?.scale(-1);
                self.depth -= 1;
                f
            }
            Tok::Int(v) => {
                self.bump();
                // Implicit multiplication: `2i`, `2(i + 1)`.
                match self.peek().clone() {
                    Tok::Ident(name) if !KEYWORDS.contains(&name.as_str()) => {
                        self.bump();
                        let var = self.resolve(&name);
                        Lin::var(var).scale(v)
                    }
                    Tok::LParen => {
                        self.enter(off)?;
                        self.bump();
                        let e = self.parse_expr()?;
                        self.expect(Tok::RParen, "')'")?;
                        self.depth -= 1;
                        e.scale(v)
                    }
                    _ => Ok(Lin::constant(v)),
                }
            }
            Tok::Ident(name) => {
                if KEYWORDS.contains(&name.as_str()) {
                    return Err(parse_error(off, format!("unexpected keyword {name}")));
                }
                self.bump();
                let var = self.resolve(&name);
                Ok(Lin::var(var))
            }
            Tok::LParen => {
                self.bump();
                let e = self.parse_expr()?;
                self.expect(Tok::RParen, "')'")?;
                Ok(e)
            }
            t => Err(parse_error(
                off,
                format!("expected an expression, found {t:?}"),
            )),
        }
    }

    // chain := expr (cmp expr)+
    fn parse_chain(&mut self) -> PolyResult<Vec<Cons>> {
        let mut left = self.parse_expr()?;
        let mut out = Vec::new();
        loop {
            let op = self.peek().clone();
            let off = self.offset();
            if !matches!(op, Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge | Tok::Eq) {
                if out.is_empty() {
                    return Err(parse_error(
                        off,
                        format!("expected a comparison, found {op:?}"),
                    ));
                }
                return Ok(out);
            }
            self.bump();
            let right = self.parse_expr()?;
            let cons = match op {
                Tok::Le => Cons {
                    lin: right.add(&left, -1)?,
                    is_eq: false,
                },
                Tok::Lt => {
                    let mut lin = right.add(&left, -1)?;
                    lin.constant = sub(lin.constant, 1)?;
                    Cons { lin, is_eq: false }
                }
                Tok::Ge => Cons {
                    lin: left.add(&right, -1)?,
                    is_eq: false,
                },
                Tok::Gt => {
                    let mut lin = left.add(&right, -1)?;
                    lin.constant = sub(lin.constant, 1)?;
                    Cons { lin, is_eq: false }
                }
                _ => Cons {
                    lin: left.add(&right, -1)?,
                    is_eq: true,
                },
            };
            out.push(cons);
            left = right;
        }
    }

    // formula := conj ('or' conj)*
    fn parse_formula(&mut self) -> PolyResult<Dnf> {
        let mut out = self.parse_conj()?;
        while self.is_keyword("or") {
            self.bump();
            out.extend(self.parse_conj()?);
        }
        Ok(out)
    }

    // conj := atom ('and' atom)*
    fn parse_conj(&mut self) -> PolyResult<Dnf> {
        let mut acc = self.parse_atom()?;
        while self.is_keyword("and") {
            self.bump();
            let rhs = self.parse_atom()?;
            let mut next = Vec::with_capacity(acc.len() * rhs.len());
            for a in &acc {
                for b in &rhs {
                    let mut c = a.clone();
                    c.extend(b.iter().cloned());
                    next.push(c);
                }
            }
            acc = next;
        }
        Ok(acc)
    }

    fn parse_atom(&mut self) -> PolyResult<Dnf> {
        let off = self.offset();
        if self.is_keyword("true") {
            self.bump();
            return Ok(vec![Vec::new()]);
        }
        if self.is_keyword("false") {
            self.bump();
            return Ok(Vec::new());
        }
        if self.is_keyword("not") {
            return Err(parse_error(off, "`not` is not supported"));
        }
        if self.is_keyword("exists") {
            self.enter(off)?;
            self.bump();
            self.expect(Tok::LParen, "'(' after exists")?;
            let mut names = Vec::new();
            loop {
                let o = self.offset();
                match self.bump() {
                    Tok::Ident(n) if !KEYWORDS.contains(&n.as_str()) => names.push(n),
                    t => {
                        return Err(parse_error(o, format!("expected a name, found {t:?}")));
                    }
                }
                match self.peek() {
                    Tok::Comma => {
                        self.bump();
                    }
                    Tok::Colon => {
                        self.bump();
                        break;
                    }
                    t => {
                        return Err(parse_error(
                            self.offset(),
                            format!("expected ',' or ':', found {t:?}"),
                        ));
                    }
                }
            }
            let depth = self.exists.len();
            for n in names {
                self.exists.push((n, self.n_exist));
                self.n_exist += 1;
            }
            let f = self.parse_formula()?;
            self.exists.truncate(depth);
            self.expect(Tok::RParen, "')' closing exists")?;
            self.depth -= 1;
            return Ok(f);
        }
        if *self.peek() == Tok::LParen && !self.paren_starts_expression() {
            self.enter(off)?;
            self.bump();
            let f = self.parse_formula()?;
            self.expect(Tok::RParen, "')'")?;
            self.depth -= 1;
            return Ok(f);
        }
        Ok(vec![self.parse_chain()?])
    }

    fn parse_tuple(&mut self) -> PolyResult<ParsedTuple> {
        let name = match self.peek().clone() {
            Tok::Ident(n) if !KEYWORDS.contains(&n.as_str()) => {
                self.bump();
                Some(n)
            }
            _ => None,
        };
        self.expect(Tok::LBrack, "'[' opening a tuple")?;
        let mut dim_names = Vec::new();
        if *self.peek() == Tok::RBrack {
            self.bump();
            return Ok(ParsedTuple { name, dim_names });
        }
        loop {
            let fresh = match (self.peek().clone(), self.peek_at(1).clone()) {
                (Tok::Ident(n), Tok::Comma | Tok::RBrack)
                    if !KEYWORDS.contains(&n.as_str())
                        && !self.dims.iter().any(|d| d.as_deref() == Some(n.as_str()))
                        && !self.params.contains(&n) =>
                {
                    Some(n)
                }
                _ => None,
            };
            let d = self.dims.len();
            if let Some(n) = fresh {
                self.bump();
                self.dims.push(Some(n.clone()));
                dim_names.push(Some(n));
            } else {
                let e = self.parse_expr()?;
                self.dims.push(None);
                dim_names.push(None);
                let lin = Lin::var(Var::Dim(d)).add(&e, -1)?;
                self.tuple_eqs.push(Cons { lin, is_eq: true });
            }
            match self.bump() {
                Tok::Comma => {}
                Tok::RBrack => break,
                t => {
                    let o = self.toks[self.pos.saturating_sub(1)].1;
                    return Err(parse_error(o, format!("expected ',' or ']', found {t:?}")));
                }
            }
        }
        Ok(ParsedTuple { name, dim_names })
    }

    fn parse_piece(&mut self) -> PolyResult<ParsedPiece> {
        self.dims.clear();
        self.exists.clear();
        self.n_exist = 0;
        self.tuple_eqs.clear();
        let domain = self.parse_tuple()?;
        let range = if *self.peek() == Tok::Arrow {
            self.bump();
            Some(self.parse_tuple()?)
        } else {
            None
        };
        let mut dnf = if *self.peek() == Tok::Colon {
            self.bump();
            self.parse_formula()?
        } else {
            vec![Vec::new()]
        };
        for conj in &mut dnf {
            conj.extend(self.tuple_eqs.iter().cloned());
        }
        Ok(ParsedPiece {
            domain,
            range,
            n_dims: self.dims.len(),
            n_exist: self.n_exist,
            dnf,
        })
    }
}

fn multiply(a: &Lin, b: &Lin, offset: usize) -> PolyResult<Lin> {
    if a.is_constant() {
        b.scale(a.constant)
    } else if b.is_constant() {
        a.scale(b.constant)
    } else {
        Err(parse_error(
            offset,
            "product of two non-constant expressions is not affine",
        ))
    }
}

/// A name for dimension `index` that is not used by any parameter or other
/// dimension.
fn fresh_name(index: usize, taken: &[String]) -> String {
    let mut name = format!("d{index}");
    while taken.contains(&name) {
        name.push('_');
    }
    name
}

/// Parses isl text into one set per space (pieces in different spaces, such
/// as `{ S1[i]; S2[j] }`, give different sets), in order of first appearance.
/// All results share the parameter list (declared ones first, then the ones
/// found in constraints).
pub fn parse_union(text: &str) -> PolyResult<Vec<Set>> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        pos: 0,
        params: Vec::new(),
        dims: Vec::new(),
        exists: Vec::new(),
        n_exist: 0,
        tuple_eqs: Vec::new(),
        depth: 0,
    };
    // Optional parameter list.
    if *p.peek() == Tok::LBrack {
        p.bump();
        if *p.peek() != Tok::RBrack {
            loop {
                let o = p.offset();
                match p.bump() {
                    Tok::Ident(n) if !KEYWORDS.contains(&n.as_str()) => {
                        if p.params.contains(&n) {
                            return Err(parse_error(o, format!("parameter {n} declared twice")));
                        }
                        p.params.push(n);
                    }
                    t => return Err(parse_error(o, format!("expected a parameter, found {t:?}"))),
                }
                match p.bump() {
                    Tok::Comma => {}
                    Tok::RBrack => break,
                    t => {
                        let o = p.toks[p.pos.saturating_sub(1)].1;
                        return Err(parse_error(o, format!("expected ',' or ']', found {t:?}")));
                    }
                }
            }
        } else {
            p.bump();
        }
        p.expect(Tok::Arrow, "'->' after the parameter list")?;
    }
    p.expect(Tok::LBrace, "'{'")?;
    let mut pieces = Vec::new();
    if *p.peek() != Tok::RBrace {
        loop {
            pieces.push(p.parse_piece()?);
            match p.peek() {
                Tok::Semi => {
                    p.bump();
                    if *p.peek() == Tok::RBrace {
                        break;
                    }
                }
                Tok::RBrace => break,
                t => {
                    return Err(parse_error(
                        p.offset(),
                        format!("expected ';' or '}}', found {t:?}"),
                    ));
                }
            }
        }
    }
    p.expect(Tok::RBrace, "'}'")?;
    p.expect(Tok::End, "end of input")?;

    let params = p.params.clone();
    let mut sets: Vec<Set> = Vec::new();
    for piece in pieces {
        let shape = (
            piece.domain.name.clone(),
            piece.domain.dim_names.len(),
            piece
                .range
                .as_ref()
                .map(|r| (r.name.clone(), r.dim_names.len())),
        );
        let idx = sets.iter().position(|s| {
            (
                s.space.domain.name.clone(),
                s.space.domain.len(),
                s.space.range.as_ref().map(|r| (r.name.clone(), r.len())),
            ) == shape
        });
        let idx = match idx {
            Some(i) => i,
            None => {
                let mut taken: Vec<String> = params.clone();
                let mut names = Vec::new();
                let all: Vec<&Option<String>> = piece
                    .domain
                    .dim_names
                    .iter()
                    .chain(piece.range.iter().flat_map(|r| r.dim_names.iter()))
                    .collect();
                taken.extend(all.iter().filter_map(|n| (*n).clone()));
                for (i, n) in all.iter().enumerate() {
                    let name = match n {
                        Some(n) => n.clone(),
                        None => {
                            let f = fresh_name(i, &taken);
                            taken.push(f.clone());
                            f
                        }
                    };
                    names.push(name);
                }
                let n_in = piece.domain.dim_names.len();
                let domain = Tuple {
                    name: piece.domain.name.clone(),
                    dims: names[..n_in].to_vec(),
                };
                let space = match &piece.range {
                    None => Space::set(params.clone(), domain),
                    Some(r) => Space::relation(
                        params.clone(),
                        domain,
                        Tuple {
                            name: r.name.clone(),
                            dims: names[n_in..].to_vec(),
                        },
                    ),
                };
                sets.push(Set::empty(space));
                sets.len() - 1
            }
        };
        let space = sets[idx].space.clone();
        let np = params.len();
        for conj in &piece.dnf {
            let mut b = BasicSet {
                space: space.clone(),
                n_exist: piece.n_exist,
                eqs: Vec::new(),
                ineqs: Vec::new(),
            };
            let w = b.width();
            for c in conj {
                let mut row = vec![0i64; w];
                for (v, k) in &c.lin.coeffs {
                    let col = match v {
                        Var::Param(n) => params
                            .iter()
                            .position(|q| q == n)
                            .expect("every parameter was registered while parsing"),
                        Var::Dim(d) => np + d,
                        Var::Exist(e) => np + piece.n_dims + e,
                    };
                    row[col] = add(row[col], *k)?;
                }
                row[w - 1] = c.lin.constant;
                if c.is_eq {
                    b.eqs.push(row);
                } else {
                    b.ineqs.push(row);
                }
            }
            let b = super::constraints::simplify(&b)?;
            if !b.is_obviously_empty() {
                sets[idx].pieces.push(b);
            }
        }
    }
    Ok(sets)
}

/// Parses isl text that holds pieces of one space only. `{ }` gives the empty
/// set of a zero-dimensional anonymous space.
pub fn parse_set(text: &str) -> PolyResult<Set> {
    let mut sets = parse_union(text)?;
    match sets.len() {
        0 => {
            // Recover the declared parameters for the empty set.
            let params = declared_params(text)?;
            Ok(Set::empty(Space::set(params, Tuple::anonymous(Vec::new()))))
        }
        1 => Ok(sets.remove(0)),
        _ => Err(parse_error(
            0,
            format!("the text holds pieces of {} different spaces", sets.len()),
        )),
    }
}

fn declared_params(text: &str) -> PolyResult<Vec<String>> {
    let toks = lex(text)?;
    let mut out = Vec::new();
    if toks.first().map(|t| &t.0) == Some(&Tok::LBrack) {
        for (t, _) in &toks[1..] {
            match t {
                Tok::Ident(n) => out.push(n.clone()),
                Tok::RBrack => break,
                _ => {}
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::brute::{
        BruteBox, RandomShape, for_each_point, proptest_cases, random_basic, set_contains,
    };
    use crate::util::rng::Rng;

    fn count_points(s: &Set, bx: &BruteBox, fixed: &[(usize, i64)]) -> usize {
        let mut n = 0;
        for_each_point(s.space.n_var(), bx.lo, bx.hi, |p| {
            if fixed.iter().all(|(c, v)| p[*c] == *v) && set_contains(s, p, bx) {
                n += 1;
            }
            true
        });
        n
    }

    #[test]
    fn parses_the_triangle_with_chained_comparisons() {
        let s = parse_set("[N, M] -> { S1[k, i] : 1 <= k < N and 0 <= i < k }").unwrap();
        assert_eq!(s.space.params, vec!["N", "M"]);
        assert_eq!(s.space.domain.name.as_deref(), Some("S1"));
        assert_eq!(s.space.domain.dims, vec!["k", "i"]);
        // N = 4, M = 0: k in 1..=3, i in 0..k: 1 + 2 + 3 = 6 points.
        let bx = BruteBox::new(-1, 5, 0, 0);
        assert_eq!(count_points(&s, &bx, &[(0, 4), (1, 0)]), 6);
    }

    #[test]
    fn parses_relations_with_expressions_in_tuples() {
        let s = parse_set("{ S[i] -> A[i + 1] : 0 <= i <= 2 }").unwrap();
        assert!(s.space.is_relation());
        assert_eq!(s.space.range.as_ref().unwrap().name.as_deref(), Some("A"));
        let bx = BruteBox::new(-4, 4, 0, 0);
        for i in -4..=4 {
            for a in -4..=4 {
                assert_eq!(
                    set_contains(&s, &[i, a], &bx),
                    (0..=2).contains(&i) && a == i + 1
                );
            }
        }
        // Repeated names and parameters inside tuples become equalities.
        let s = parse_set("[N] -> { [i, i, N] }").unwrap();
        // Columns [N, d0, d1, d2]: d0 = d1 free, d2 = N free: 5 * 5 points.
        assert_eq!(s.space.n_var(), 4);
        let bx = BruteBox::new(-2, 2, 0, 0);
        assert_eq!(count_points(&s, &bx, &[]), 25);
        assert_eq!(count_points(&s, &bx, &[(0, 1), (3, 1)]), 5);
    }

    #[test]
    fn parses_disjunctions_existentials_and_coefficients() {
        let s = parse_set("{ [i] : i < -2 or (i > 2 and i <= 3) }").unwrap();
        assert_eq!(s.pieces.len(), 2);
        let bx = BruteBox::new(-4, 4, -8, 8);
        assert_eq!(count_points(&s, &bx, &[]), 3); // -4, -3, 3
        let s = parse_set("{ [x] : exists (e0 : x = 2e0) and 0 <= x <= 6 }").unwrap();
        assert_eq!(count_points(&s, &BruteBox::new(-8, 8, -8, 8), &[]), 4);
        let s = parse_set("{ [i, j] : 2i + 3*j - i*2 >= -1 and -(i - j) = 0 and 3(i + 1) <= 9 }")
            .unwrap();
        // j >= 0 (3j >= -1), i = j, i <= 2: (0,0), (1,1), (2,2).
        assert_eq!(count_points(&s, &BruteBox::new(-4, 4, 0, 0), &[]), 3);
        let s = parse_set("{ [i] : (i + 1) >= 0 and ((i <= 1)) }").unwrap();
        assert_eq!(count_points(&s, &BruteBox::new(-4, 4, 0, 0), &[]), 3);
    }

    #[test]
    fn parses_trivial_sets_and_undeclared_parameters() {
        let s = parse_set("{ }").unwrap();
        assert!(s.pieces.is_empty());
        let s = parse_set("[N] -> {  }").unwrap();
        assert!(s.pieces.is_empty() && s.space.params == vec!["N"]);
        let s = parse_set("{ S[] }").unwrap();
        assert_eq!(s.pieces.len(), 1);
        assert_eq!(s.space.n_var(), 0);
        let s = parse_set("{ [i] : false }").unwrap();
        assert!(s.pieces.is_empty());
        let s = parse_set("{ [i] : true }").unwrap();
        assert_eq!(count_points(&s, &BruteBox::new(-2, 2, 0, 0), &[]), 5);
        let s = parse_set("{ [i] : 0 <= i < N }").unwrap();
        assert_eq!(s.space.params, vec!["N"]);
        // N = 3: i in {0, 1, 2}.
        assert_eq!(count_points(&s, &BruteBox::new(-4, 4, 0, 0), &[(0, 3)]), 3);
        let u = parse_union("{ S1[i] : i >= 0; S2[i, j] : i = j; S1[k] : k < -5 }").unwrap();
        assert_eq!(u.len(), 2);
        assert_eq!(u[0].pieces.len(), 2);
        assert!(parse_set("{ S1[i]; S2[i, j] }").is_err());
    }

    #[test]
    fn malformed_text_reports_the_offset() {
        let cases: &[(&str, usize)] = &[
            ("{ S[i] : i >= }", 14),
            ("{ S[i] : i * i >= 0 }", 9),
            ("{ S[i] : not i >= 0 }", 9),
            ("[N -> { }", 3),
            ("{ S[i] : i >= 0", 15),
            ("{ S[i] : i # 0 }", 11),
            ("{ S[i] : i }", 11),
            ("{ S[i] } x", 9),
            ("{ S[i] : i >= 99999999999999999999 }", 14),
        ];
        for (text, offset) in cases {
            match parse_set(text) {
                Err(PolyError::Parse { offset: o, .. }) => {
                    assert_eq!(o, *offset, "offset for {text:?}")
                }
                other => panic!("{text:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn deep_nesting_is_fast_or_rejected() {
        // 200 nested parenthesised formulas parse (no backtracking blow-up).
        let text = format!("{{ [i] : {}i >= 0{} }}", "(".repeat(200), ")".repeat(200));
        let s = parse_set(&text).unwrap();
        assert_eq!(s.pieces.len(), 1);
        let text = format!("{{ [i] : {}i{} >= 0 }}", "(".repeat(200), ")".repeat(200));
        assert_eq!(parse_set(&text).unwrap().pieces.len(), 1);
        // Deeper than the limit: an error, not a stack overflow.
        let text = format!(
            "{{ [i] : {}i >= 0{} }}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        match parse_set(&text) {
            Err(PolyError::Parse { message, .. }) => assert!(message.contains("too deep")),
            other => panic!("{other:?}"),
        }
        let text = format!("{{ [i] : {}i >= 0 }}", "-".repeat(100_000));
        assert!(matches!(parse_set(&text), Err(PolyError::Parse { .. })));
    }

    /// Property: printing a random set (or relation) and parsing it back gives
    /// the same integer points in a box. Cases scale with
    /// `POLYFOLD_PROPTEST_CASES`.
    #[test]
    fn print_then_parse_is_identity_on_points() {
        let mut rng = Rng::new(0x151A_0001);
        let names = ["i", "j", "k", "l"];
        for _ in 0..proptest_cases(1500) {
            let n_param = rng.below(2);
            let n_in = 1 + rng.below(2);
            let n_out = rng.below(2);
            let params: Vec<String> = (0..n_param).map(|i| format!("N{i}")).collect();
            let dom = Tuple::new(Some("S"), &names[..n_in]);
            let space = if n_out > 0 {
                Space::relation(
                    params,
                    dom,
                    Tuple::new(Some("A"), &names[n_in..n_in + n_out]),
                )
            } else {
                Space::set(params, dom)
            };
            let shape = RandomShape {
                n_rows: 1 + rng.below(3),
                max_coeff: 4,
                max_const: 8,
                half_box: 3,
                exist_half_box: 3,
                eq_one_in: 4,
                anchored: false,
            };
            let mut s = Set::empty(space.clone());
            for _ in 0..rng.below(3) {
                let n_exist = if rng.chance(1, 4) { 1 } else { 0 };
                s.pieces
                    .push(random_basic(&mut rng, &space, n_exist, &shape));
            }
            let text = s.to_string();
            let back = parse_set(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let bx = BruteBox::new(-4, 4, -4, 4);
            if s.pieces.is_empty() {
                assert!(back.pieces.is_empty(), "{text}");
                continue;
            }
            assert_eq!(back.space.n_var(), space.n_var(), "{text}");
            assert_eq!(back.space.params, space.params, "{text}");
            for_each_point(space.n_var(), -4, 4, |p| {
                assert_eq!(
                    set_contains(&back, p, &bx),
                    set_contains(&s, p, &bx),
                    "{text} -> {back} at {p:?}"
                );
                true
            });
        }
    }
}
