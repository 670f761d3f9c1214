//! Parsing with tree-sitter-c and lowering of its concrete syntax tree to a
//! small C syntax tree of our own.
//!
//! This is the only file of the crate that names `tree_sitter`. It keeps
//! exact byte ranges for every node and does not interpret anything: no
//! affine conversion, no name resolution, no macro expansion (macro bodies
//! are parsed here, expanded by the analysis).

use std::ops::Range;

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use tree_sitter::{Node, Parser, Tree};

/// A binary operator of C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    fn from_text(text: &str) -> Option<BinOp> {
        Some(match text {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "%" => BinOp::Mod,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "&&" => BinOp::And,
            "||" => BinOp::Or,
            "&" => BinOp::BitAnd,
            "|" => BinOp::BitOr,
            "^" => BinOp::BitXor,
            "<<" => BinOp::Shl,
            ">>" => BinOp::Shr,
            _ => return None,
        })
    }
}

/// A unary operator of C (other than `&`, `*`, `++`, `--`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

/// A C expression with its byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Range<usize>,
    /// The node comes from the body of a function-like macro (its span is
    /// then the span of the macro call).
    pub from_macro: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Ident(String),
    /// A signed integer literal that fits `i64`.
    Int(i64),
    /// Any other literal: floating, character, string, unsigned or too big.
    OtherLiteral,
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `base[index]`; `index_span` is the index expression without brackets.
    Subscript(Box<Expr>, Box<Expr>),
    Call(Box<Expr>, Vec<Expr>),
    /// A cast with the text of the type.
    Cast(String, Box<Expr>),
    /// `lhs = rhs` (`None`) or `lhs op= rhs`.
    Assign(Option<BinOp>, Box<Expr>, Box<Expr>),
    /// `++x`, `x++` (`true`), `--x`, `x--` (`false`).
    Update(bool, Box<Expr>),
    AddrOf(Box<Expr>),
    Deref(Box<Expr>),
    Field(Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    /// Anything else (`sizeof`, compound literals, ...) with its node kind
    /// and its sub-expressions.
    Other(String, Vec<Expr>),
}

impl Expr {
    /// Each direct operand with the least precedence level an expression
    /// must have to be that operand without parentheses (`a - b`: `a` at
    /// additive, `b` tighter): where a macro's expansion, pasted as
    /// tokens, would be regrouped by this node's operator (see
    /// `affine::check_macro_operands`).
    pub(crate) fn operand_slots(&self) -> Vec<(&Expr, crate::util::c_text::Prec)> {
        use crate::util::c_text::Prec;
        match &self.kind {
            ExprKind::Binary(op, a, b) => {
                let level = match op {
                    BinOp::Mul | BinOp::Div | BinOp::Mod => Prec::Multiplicative,
                    BinOp::Add | BinOp::Sub => Prec::Additive,
                    BinOp::Shl | BinOp::Shr => Prec::Shift,
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Prec::Relational,
                    BinOp::Eq | BinOp::Ne => Prec::Equality,
                    BinOp::BitAnd => Prec::BitAnd,
                    BinOp::BitXor => Prec::BitXor,
                    BinOp::BitOr => Prec::BitOr,
                    BinOp::And => Prec::LogicalAnd,
                    BinOp::Or => Prec::LogicalOr,
                };
                vec![(a, level), (b, level.tighter())]
            }
            ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => vec![(a, Prec::Unary)],
            ExprKind::Cond(c, x, y) => vec![
                (c, Prec::LogicalOr),
                (x, Prec::Comma),
                (y, Prec::Conditional),
            ],
            ExprKind::Subscript(a, _) => vec![(a, Prec::Postfix)],
            _ => Vec::new(),
        }
    }

    /// Calls `f` on each direct sub-expression, in order.
    pub(crate) fn children_mut(&mut self, mut f: impl FnMut(&mut Expr)) {
        match &mut self.kind {
            ExprKind::Ident(_) | ExprKind::Int(_) | ExprKind::OtherLiteral => {}
            ExprKind::Unary(_, a)
            | ExprKind::Cast(_, a)
            | ExprKind::Update(_, a)
            | ExprKind::AddrOf(a)
            | ExprKind::Deref(a)
            | ExprKind::Field(a) => f(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::Subscript(a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Comma(a, b) => {
                f(a);
                f(b);
            }
            ExprKind::Cond(a, b, c) => {
                f(a);
                f(b);
                f(c);
            }
            ExprKind::Call(callee, args) => {
                f(callee);
                args.iter_mut().for_each(f);
            }
            ExprKind::Other(_, subs) => subs.iter_mut().for_each(f),
        }
    }

    /// Calls `f` on this expression and every sub-expression, parents first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Ident(_) | ExprKind::Int(_) | ExprKind::OtherLiteral => {}
            ExprKind::Unary(_, a)
            | ExprKind::Cast(_, a)
            | ExprKind::Update(_, a)
            | ExprKind::AddrOf(a)
            | ExprKind::Deref(a)
            | ExprKind::Field(a) => a.walk(f),
            ExprKind::Binary(_, a, b)
            | ExprKind::Subscript(a, b)
            | ExprKind::Assign(_, a, b)
            | ExprKind::Comma(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            ExprKind::Cond(a, b, c) => {
                a.walk(f);
                b.walk(f);
                c.walk(f);
            }
            ExprKind::Call(callee, args) => {
                callee.walk(f);
                for a in args {
                    a.walk(f);
                }
            }
            ExprKind::Other(_, subs) => {
                for s in subs {
                    s.walk(f);
                }
            }
        }
    }
}

/// One declarator of a declaration: `A[N][M]`, `*p`, `x = 3`.
#[derive(Clone, Debug)]
pub struct Declarator {
    pub name: String,
    pub name_span: Range<usize>,
    /// The declarator without its initialiser.
    pub span: Range<usize>,
    /// Array dimensions, outermost first: the size expression (if any) and
    /// its text.
    pub dims: Vec<(Option<Expr>, String)>,
    /// Declared through a pointer (or as a function).
    pub is_pointer: bool,
    pub is_function: bool,
    /// The pointer (`double *restrict p`) or the array parameter
    /// (`double a[restrict n]`) is `restrict`-qualified (`restrict`,
    /// `__restrict`, `__restrict__`).
    pub restrict: bool,
    pub init: Option<Expr>,
    /// The declarator comes from the expansion of a function-like macro
    /// (`POLYBENCH_2D(A, N, N, n, n)`): its text is not the user's, so it
    /// is never rewritten (the array keeps its layout).
    pub from_macro: bool,
    /// A pointer to rows, `(*p)[M]...`: array declarators around one
    /// parenthesised pointer to the name (`dims` are the rows' extents).
    pub points_to_rows: bool,
    /// A local pointer initialised with fresh memory (see
    /// `frontend::heap`): modelled as an array, or why not.
    pub heap: Option<HeapBuffer>,
}

/// A local pointer that holds memory from `malloc` or `calloc` (see
/// `frontend::heap`).
#[derive(Clone, Debug)]
pub enum HeapBuffer {
    /// Modelled as an array with the extents of its allocation (its
    /// declarator's `dims` are those extents).
    Array {
        /// The declaration.
        span: Range<usize>,
        /// Per dimension, the text that spells its extent: the factor of
        /// the size for the first, the row type's extents for the others.
        dims: Vec<Vec<Range<usize>>>,
        /// The statements that free it.
        frees: Vec<Range<usize>>,
        /// The allocator (`malloc`).
        allocator: String,
        /// Linearised: a pointer to elements sized `h * w` whose
        /// subscripts `[y * w + x]` read as `[y][x]` (see
        /// `frontend::heap`).
        linear: bool,
        /// A local array declared `T t[h * w]` read as `t[h][w]` (see
        /// `frontend::linear_local`), not an allocation: `dims` are the
        /// factors' texts in its declarator.
        declared: bool,
    },
    /// Not modelled: why (for the diagnostic of its accesses).
    Refused(String),
}

/// A declaration: `static const int n = 3, m;`.
#[derive(Clone, Debug)]
pub struct Decl {
    /// The type specifier text, e.g. `double`, `unsigned int`, `int64_t`.
    pub type_text: String,
    /// Type qualifiers and storage classes, e.g. `static`, `const`.
    pub qualifiers: Vec<String>,
    pub declarators: Vec<Declarator>,
    pub span: Range<usize>,
    /// The attribute specifiers of the declaration (`__attribute__((pure))`,
    /// `[[gnu::const]]`), as written, wherever they sit in it.
    pub attributes: Vec<String>,
}

impl Decl {
    pub(crate) fn has_qualifier(&self, q: &str) -> bool {
        self.qualifiers.iter().any(|x| x == q)
    }

    /// The element type as written: qualifiers (except storage classes)
    /// followed by the type specifier.
    pub(crate) fn elem_type_text(&self) -> String {
        let mut parts: Vec<&str> = self
            .qualifiers
            .iter()
            .map(String::as_str)
            .filter(|q| !matches!(*q, "static" | "extern" | "auto" | "register"))
            .collect();
        parts.push(&self.type_text);
        parts.join(" ")
    }
}

/// The initialiser of a `for` loop.
#[derive(Clone, Debug)]
pub enum ForInit {
    None,
    Expr(Expr),
    Decl(Decl),
}

/// A C statement with its byte range.
#[derive(Clone, Debug)]
pub(crate) enum CStmt {
    For {
        init: ForInit,
        cond: Option<Expr>,
        update: Option<Expr>,
        body: Box<CStmt>,
        span: Range<usize>,
        /// From `for` to the closing parenthesis.
        header_span: Range<usize>,
    },
    If {
        cond: Expr,
        then: Box<CStmt>,
        els: Option<Box<CStmt>>,
        /// Where the `else` keyword starts (with `els`).
        else_start: Option<usize>,
        span: Range<usize>,
    },
    Compound {
        items: Vec<CStmt>,
        span: Range<usize>,
    },
    /// An expression statement (span includes the `;`).
    Expr {
        expr: Expr,
        span: Range<usize>,
    },
    Empty {
        span: Range<usize>,
    },
    Decl {
        decl: Decl,
        span: Range<usize>,
    },
    /// A preprocessor line inside a function body (`#pragma ...`), a
    /// conditional that holds only `#pragma` lines (`#ifdef _OPENMP` /
    /// `#pragma omp parallel for` / `#endif`), or a `_Pragma(...)` (also
    /// through a macro) in statement position.
    Preproc {
        span: Range<usize>,
        /// Whether it is a pragma that applies to the statement after it
        /// (`omp ...`, `GCC ivdep`, ...; polyfold's own `scop`,
        /// `endscop` and `polyfold ...` apply to nothing), or a
        /// conditional whose branches hold such a pragma.
        applies_to_next: bool,
    },
    /// Any other statement (`while`, `do`, `switch`, `return`, labels, ...):
    /// its node kind, the expressions it contains and its sub-statements.
    Other {
        kind: String,
        exprs: Vec<Expr>,
        children: Vec<CStmt>,
        /// The label of a `labeled_statement` (`produce: for ...`, whose
        /// one child is the statement) and the label a `goto_statement`
        /// names; `None` for other kinds (and for a `goto` without a
        /// plain label).
        label: Option<String>,
        span: Range<usize>,
    },
}

impl CStmt {
    /// Its direct sub-statements, in source order.
    pub(crate) fn sub_statements(&self) -> Vec<&CStmt> {
        match self {
            CStmt::For { body, .. } => vec![body],
            CStmt::If { then, els, .. } => std::iter::once(&**then).chain(els.as_deref()).collect(),
            CStmt::Compound { items, .. } => items.iter().collect(),
            CStmt::Other { children, .. } => children.iter().collect(),
            CStmt::Expr { .. }
            | CStmt::Empty { .. }
            | CStmt::Decl { .. }
            | CStmt::Preproc { .. } => Vec::new(),
        }
    }

    pub fn span(&self) -> Range<usize> {
        match self {
            CStmt::For { span, .. }
            | CStmt::If { span, .. }
            | CStmt::Compound { span, .. }
            | CStmt::Expr { span, .. }
            | CStmt::Empty { span }
            | CStmt::Decl { span, .. }
            | CStmt::Preproc { span, .. }
            | CStmt::Other { span, .. } => span.clone(),
        }
    }

    /// Calls `f` on every expression of this statement and its
    /// sub-statements, sub-expressions included, parents first.
    pub(crate) fn walk_exprs<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        self.walk_root_exprs(&mut |e: &'a Expr| e.walk(f));
    }

    /// Calls `f` on the outermost expressions of this statement and its
    /// sub-statements (declaration sizes and initialisers included), in
    /// source order.
    pub(crate) fn walk_root_exprs<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        match self {
            CStmt::For {
                init,
                cond,
                update,
                body,
                ..
            } => {
                match init {
                    ForInit::None => {}
                    ForInit::Expr(e) => f(e),
                    ForInit::Decl(d) => walk_decl_root_exprs(d, f),
                }
                if let Some(c) = cond {
                    f(c);
                }
                if let Some(u) = update {
                    f(u);
                }
                body.walk_root_exprs(f);
            }
            CStmt::If {
                cond, then, els, ..
            } => {
                f(cond);
                then.walk_root_exprs(f);
                if let Some(e) = els {
                    e.walk_root_exprs(f);
                }
            }
            CStmt::Compound { items, .. } => {
                for s in items {
                    s.walk_root_exprs(f);
                }
            }
            CStmt::Expr { expr, .. } => f(expr),
            CStmt::Decl { decl, .. } => walk_decl_root_exprs(decl, f),
            CStmt::Empty { .. } | CStmt::Preproc { .. } => {}
            CStmt::Other {
                exprs, children, ..
            } => {
                for e in exprs {
                    f(e);
                }
                for c in children {
                    c.walk_root_exprs(f);
                }
            }
        }
    }
}

/// Calls `f` on the size expressions and initialisers of a declaration.
pub(crate) fn walk_decl_root_exprs<'a>(d: &'a Decl, f: &mut impl FnMut(&'a Expr)) {
    for dc in &d.declarators {
        for (size, _) in &dc.dims {
            if let Some(s) = size {
                f(s);
            }
        }
        if let Some(i) = &dc.init {
            f(i);
        }
    }
}

/// A function definition.
#[derive(Clone, Debug)]
pub(crate) struct Function {
    pub name: String,
    /// Declared `static`: every call of it is in this file (unless its
    /// address is taken).
    pub is_static: bool,
    /// The attribute specifiers of the definition, as written.
    pub attributes: Vec<String>,
    pub params: Vec<Decl>,
    /// The body (a `Compound`).
    pub body: CStmt,
    pub span: Range<usize>,
}

/// A `#pragma` line.
#[derive(Clone, Debug)]
pub struct Pragma {
    /// The text after `#pragma`, trimmed.
    pub text: String,
    pub span: Range<usize>,
}

/// A `#define` line.
#[derive(Clone, Debug)]
pub struct Define {
    pub name: String,
    /// `Some` for a function-like macro.
    pub params: Option<Vec<String>>,
    pub body: String,
    pub span: Range<usize>,
}

/// One file-scope item in the preprocessor structure of a file.
#[derive(Clone, Debug)]
pub enum PpItem {
    /// `SyntaxFile::defines[k]`.
    Define(usize),
    /// `#undef NAME`, with the span of the directive line.
    Undef { name: String, span: Range<usize> },
    /// `#include "name"` (`angled: false`) or `#include <name>`, with the
    /// span of the directive line. `name` is empty for a computed
    /// `#include MACRO`.
    Include {
        name: String,
        angled: bool,
        span: Range<usize>,
    },
    /// `SyntaxFile::functions[k]`.
    Function(usize),
    /// `SyntaxFile::globals[k]`.
    Global(usize),
    /// `#if`/`#ifdef`/`#ifndef` with its `#elif`/`#else` branches: each
    /// branch's condition, the span of its directive line, and its items.
    Cond {
        branches: Vec<(PpCond, Range<usize>, Vec<PpItem>)>,
    },
}

/// The condition of one branch of a preprocessor conditional.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PpCond {
    /// `#ifdef NAME` / `#elifdef NAME`.
    Defined(String),
    /// `#ifndef NAME` / `#elifndef NAME`.
    NotDefined(String),
    /// `#if EXPR` / `#elif EXPR`: the expression text.
    Expr(String),
    /// `#else`.
    Else,
}

/// The first syntax error of a file.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    pub span: Range<usize>,
    /// `Some(token)` when tree-sitter inserted a missing token.
    pub missing: Option<String>,
}

/// A parsed C file.
#[derive(Clone, Debug, Default)]
pub(crate) struct SyntaxFile {
    pub functions: Vec<Function>,
    /// File-scope declarations (in any preprocessor conditional too).
    pub globals: Vec<Decl>,
    /// Every `#define` at file scope, active or not (see `pp`).
    pub defines: Vec<Define>,
    /// The file-scope items in their preprocessor structure, so that the
    /// active branches can be chosen once the `-D` values are known.
    pub pp: Vec<PpItem>,
    pub pragmas: Vec<Pragma>,
    pub first_error: Option<SyntaxError>,
    /// Whether the file contains any loop statement (`for`, `while`, `do`).
    pub has_loops: bool,
    /// Where the syntax is nested deeper than polyfold lowers it, if
    /// anywhere (the front end then gives up on the whole file).
    pub too_deep: Option<Range<usize>>,
}

thread_local! {
    /// One parser per thread, reused for every file and macro body.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `text` with the thread's C parser.
fn parse_text(text: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            let mut parser = Parser::new();
            parser.set_language(&tree_sitter_c::LANGUAGE.into()).ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(text, None)
    })
}

/// Parses a C file. Returns `None` only if tree-sitter itself fails (no
/// language, or cancelled), which the caller reports as an internal error.
pub(crate) fn parse_file(source: &str) -> Option<SyntaxFile> {
    parse_file_masked(source, &Masks::default())
}

/// What tree-sitter reads in place of text it cannot parse (see
/// `frontend::masks`): each replaced range gets a text of the same length
/// (its line breaks kept), so that every byte offset of the file stays
/// valid; the pragmas and loop headers the replaced text stood for are
/// given here.
#[derive(Clone, Debug, Default)]
pub struct Masks {
    /// Sorted, disjoint ranges of the file and the text tree-sitter reads
    /// there (at most as long as the range; blanks fill the rest).
    pub replacements: Vec<(Range<usize>, String)>,
    /// `_Pragma(...)` operators and the uses of macros that expand to
    /// them: a pragma each, at the span of the operator or of the use.
    pub pragmas: Vec<Pragma>,
    /// Loop headers written through a macro (`FOR(i, 0, N)`), whose
    /// range tree-sitter reads as `for(;;)`.
    pub loops: Vec<MacroLoopHeader>,
}

/// A `for` header written as a macro use: the use's span and the parts
/// of the header it expands to (their spans mapped back to the user's
/// text as [`crate::frontend::macros::Macros::expand_declarator`] does:
/// a node made only of the user's tokens keeps their span, any other
/// takes the use's span and is marked `from_macro`).
#[derive(Clone, Debug)]
pub struct MacroLoopHeader {
    pub span: Range<usize>,
    pub init: ForInit,
    pub cond: Option<Expr>,
    pub update: Option<Expr>,
}

impl Masks {
    pub fn is_empty(&self) -> bool {
        self.replacements.is_empty() && self.pragmas.is_empty() && self.loops.is_empty()
    }

    /// The text tree-sitter parses: `source` with the replacements.
    fn apply(&self, source: &str) -> String {
        let mut bytes = source.as_bytes().to_vec();
        for (range, text) in &self.replacements {
            let Some(slot) = bytes.get_mut(range.clone()) else {
                continue;
            };
            if text.len() > slot.len() {
                continue;
            }
            for (k, b) in slot.iter_mut().enumerate() {
                *b = match text.as_bytes().get(k) {
                    Some(c) => *c,
                    None if matches!(*b, b'\n' | b'\r') => *b,
                    None => b' ',
                };
            }
        }
        // Replacements cover whole tokens of ASCII text or put blanks and
        // ASCII text over them: still UTF-8, unless a range was not.
        String::from_utf8(bytes).unwrap_or_else(|_| source.to_string())
    }
}

/// Parses a C file with the ranges of `masks` replaced for tree-sitter.
/// Spans index `source`; names and texts of nodes are read from the
/// replaced text (a qualifier macro reads as the qualifier it stands for).
pub(crate) fn parse_file_masked(source: &str, masks: &Masks) -> Option<SyntaxFile> {
    let masked;
    let text: &str = if masks.replacements.is_empty() {
        source
    } else {
        masked = masks.apply(source);
        &masked
    };
    let tree: Tree = parse_text(text)?;
    let root = tree.root_node();
    let mut file = SyntaxFile {
        first_error: find_first_error(root, text),
        ..SyntaxFile::default()
    };
    let (value_names, pragma_nodes) = prepass(root, text.as_bytes());
    let mut lower = Lowerer::new(text.as_bytes(), value_names);
    lower.masks = Some(masks);
    let mut pragmas: Vec<Pragma> = pragma_nodes
        .into_iter()
        .filter_map(|n| lower.pragma(n))
        .collect();
    lower.top_level(root, &mut file);
    file.has_loops = lower.has_loops;
    // Pragmas may sit anywhere in the tree (tree-sitter nests them where
    // they happen to be); the pre-pass collected them all, in order.
    pragmas.extend(masks.pragmas.iter().cloned());
    pragmas.sort_by_key(|p| (p.span.start, p.span.end));
    file.pragmas = pragmas;
    file.too_deep = lower.too_deep.borrow().clone();
    Some(file)
}

/// Parses the body of a macro as one C expression. Spans of the result are
/// meaningless (they index the wrapper text); callers replace them.
/// What [`parse_expression_text`] puts before the text it parses: the
/// spans of the result are offsets in that wrapped text.
pub(crate) const BODY_PREFIX: &str = "int __polyfold_macro_body = (\n";

pub(crate) fn parse_expression_text(text: &str) -> Option<Expr> {
    parse_expression_text_with(text, &[])
}

/// Like [`parse_expression_text`], with extra names known to be values
/// (the parameters of a function-like macro).
pub(crate) fn parse_expression_text_with(text: &str, values: &[String]) -> Option<Expr> {
    let wrapper = format!("{BODY_PREFIX}{text}\n);\n");
    let tree = parse_text(&wrapper)?;
    let root = tree.root_node();
    if root.has_error() {
        return None;
    }
    let decl = root.named_child(0)?;
    let init = decl.child_by_field_name("declarator")?;
    let value = init.child_by_field_name("value")?;
    let (mut value_names, _) = prepass(root, wrapper.as_bytes());
    value_names.extend(values.iter().cloned());
    let lower = Lowerer::new(wrapper.as_bytes(), value_names);
    let e = lower.expr(value);
    // A body nested too deeply to lower is treated as unparseable.
    lower.too_deep.borrow().is_none().then_some(e)
}

/// Parses `text` as the declarator of a declaration `int TEXT;` (the text
/// a function-like macro in a declaration expands to). Spans of the result
/// index `int ` + `text`: callers map them back. `None` unless the text is
/// exactly one declarator.
pub(crate) fn parse_declarator_text(text: &str) -> Option<Declarator> {
    let wrapper = format!("int {text};\n");
    let tree = parse_text(&wrapper)?;
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() != 1 {
        return None;
    }
    let decl = root.named_child(0)?;
    if decl.kind() != "declaration" {
        return None;
    }
    let (value_names, _) = prepass(root, wrapper.as_bytes());
    let lower = Lowerer::new(wrapper.as_bytes(), value_names);
    let mut d = lower.decl(decl);
    if d.declarators.len() != 1 || lower.too_deep.borrow().is_some() {
        return None;
    }
    d.declarators.pop()
}

/// What [`parse_for_header_text`] puts before the header text: spans of
/// its result index this prefix followed by the text.
pub(crate) const FOR_HEADER_PREFIX: &str = "void __polyfold_loop(void) {\n";

/// Parses `text` as the header of a `for` loop (`for (i = 0; i < n; i++)`,
/// the expansion of a loop macro) and gives its initialisation, condition
/// and update. Spans index [`FOR_HEADER_PREFIX`] + `text`: callers map
/// them back. `None` unless the text is exactly one `for` header.
pub(crate) fn parse_for_header_text(text: &str) -> Option<(ForInit, Option<Expr>, Option<Expr>)> {
    let wrapper = format!("{FOR_HEADER_PREFIX}{text} ;\n}}\n");
    let tree = parse_text(&wrapper)?;
    let root = tree.root_node();
    if root.has_error() || root.named_child_count() != 1 {
        return None;
    }
    let body = root.named_child(0)?.child_by_field_name("body")?;
    if body.named_child_count() != 1 {
        return None;
    }
    let node = body.named_child(0)?;
    if node.kind() != "for_statement"
        || node.child_by_field_name("body")?.kind() != "expression_statement"
        || node.child_by_field_name("body")?.named_child_count() != 0
    {
        return None;
    }
    let (value_names, _) = prepass(root, wrapper.as_bytes());
    let lower = Lowerer::new(wrapper.as_bytes(), value_names);
    let init = match node.child_by_field_name("initializer") {
        None => ForInit::None,
        Some(n) if n.kind() == "declaration" => ForInit::Decl(lower.decl(n)),
        Some(n) => ForInit::Expr(lower.expr(n)),
    };
    let cond = node.child_by_field_name("condition").map(|n| lower.expr(n));
    let update = node.child_by_field_name("update").map(|n| lower.expr(n));
    if lower.too_deep.borrow().is_some() {
        return None;
    }
    Some((init, cond, update))
}

fn find_first_error(root: Node, source: &str) -> Option<SyntaxError> {
    if !root.has_error() {
        return None;
    }
    let mut node = root;
    'descend: loop {
        if node.is_missing() {
            return Some(SyntaxError {
                span: node.start_byte()..node.start_byte(),
                missing: Some(node.kind().to_string()),
            });
        }
        if node.is_error() {
            let r = node.byte_range();
            // Point at the first token of the erroneous region.
            let text = &source[r.clone()];
            let len = text
                .char_indices()
                .find(|(_, c)| c.is_whitespace())
                .map_or(text.len(), |(i, _)| i)
                .max(usize::from(!text.is_empty()));
            let end = (r.start + len).min(r.end);
            let mut end = end;
            while end < source.len() && !source.is_char_boundary(end) {
                end += 1;
            }
            return Some(SyntaxError {
                span: r.start..end,
                missing: None,
            });
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() || child.is_missing() || child.is_error() {
                node = child;
                continue 'descend;
            }
        }
        // has_error without an erroneous child: report the node itself.
        return Some(SyntaxError {
            span: node.start_byte()..node.start_byte(),
            missing: None,
        });
    }
}

struct Lowerer<'s> {
    src: &'s [u8],
    has_loops: bool,
    /// Names that denote values (variables, parameters, macro parameters),
    /// used to undo C's cast ambiguity: `(a) - b` is parsed by tree-sitter
    /// as a cast of `-b` to type `a`.
    value_names: HashSet<String>,
    /// Spans of binary nodes rebuilt from such a misparsed cast, while they
    /// are on the left spine of their parent (see `fix_fake_cast`).
    fake: RefCell<HashSet<(usize, usize)>>,
    /// Current recursion depth (statements plus expressions).
    depth: Cell<usize>,
    /// The first node that was too deep to lower.
    too_deep: RefCell<Option<Range<usize>>>,
    /// What the text stands for where it was replaced (a file only).
    masks: Option<&'s Masks>,
}

/// Deeper syntax is not lowered (it becomes an opaque node that every
/// later stage rejects), so that no recursion can exhaust the stack.
const MAX_NESTING: usize = 200;

/// One walk over the whole tree: the names of all `identifier` nodes (not
/// `type_identifier`) and all `preproc_call` nodes in document order.
fn prepass<'t>(root: Node<'t>, src: &[u8]) -> (HashSet<String>, Vec<Node<'t>>) {
    let mut names = HashSet::new();
    let mut calls = Vec::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let kind = node.kind();
        let mut descend = true;
        if kind == "identifier" {
            names.insert(String::from_utf8_lossy(&src[node.byte_range()]).into_owned());
            descend = false;
        } else if kind == "preproc_call" {
            calls.push(node);
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    (names, calls)
}

/// Binding strength of a binary operator (higher binds tighter).
fn precedence(op: BinOp) -> u8 {
    match op {
        BinOp::Mul | BinOp::Div | BinOp::Mod => 10,
        BinOp::Add | BinOp::Sub => 9,
        BinOp::Shl | BinOp::Shr => 8,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 7,
        BinOp::Eq | BinOp::Ne => 6,
        BinOp::BitAnd => 5,
        BinOp::BitXor => 4,
        BinOp::BitOr => 3,
        BinOp::And => 2,
        BinOp::Or => 1,
    }
}

impl<'s> Lowerer<'s> {
    fn new(src: &'s [u8], value_names: HashSet<String>) -> Lowerer<'s> {
        Lowerer {
            src,
            has_loops: false,
            value_names,
            fake: RefCell::new(HashSet::new()),
            depth: Cell::new(0),
            too_deep: RefCell::new(None),
            masks: None,
        }
    }

    fn text(&self, n: Node) -> String {
        String::from_utf8_lossy(&self.src[n.byte_range()]).into_owned()
    }

    fn top_level(&mut self, node: Node, file: &mut SyntaxFile) {
        let mut items = Vec::new();
        self.top_items(node, file, &mut items);
        file.pp = items;
    }

    /// The file-scope items among the named children of `node`.
    fn top_items(&mut self, node: Node, file: &mut SyntaxFile, out: &mut Vec<PpItem>) {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        for child in children {
            self.top_item(child, file, out);
        }
    }

    fn top_item(&mut self, child: Node, file: &mut SyntaxFile, out: &mut Vec<PpItem>) {
        match child.kind() {
            "function_definition" => {
                if let Some(f) = self.function(child) {
                    file.functions.push(f);
                    out.push(PpItem::Function(file.functions.len() - 1));
                }
            }
            "declaration" => {
                file.globals.push(self.decl(child));
                out.push(PpItem::Global(file.globals.len() - 1));
            }
            "preproc_def" | "preproc_function_def" => {
                if let Some(d) = self.define(child) {
                    file.defines.push(d);
                    out.push(PpItem::Define(file.defines.len() - 1));
                }
            }
            "preproc_include" => {
                let r = child.byte_range();
                let mut end = r.end;
                while end > r.start && matches!(self.src[end - 1], b'\n' | b'\r') {
                    end -= 1;
                }
                let (name, angled) = match child.child_by_field_name("path") {
                    Some(p) if p.kind() == "string_literal" => {
                        (self.text(p).trim_matches('"').to_string(), false)
                    }
                    Some(p) if p.kind() == "system_lib_string" => (
                        self.text(p)
                            .trim_start_matches('<')
                            .trim_end_matches('>')
                            .to_string(),
                        true,
                    ),
                    _ => (String::new(), false),
                };
                out.push(PpItem::Include {
                    name,
                    angled,
                    span: r.start..end,
                });
            }
            "preproc_call" => {
                let directive = child
                    .child_by_field_name("directive")
                    .map(|d| self.text(d))
                    .unwrap_or_default();
                if directive.trim() == "#undef"
                    && let Some(arg) = child.child_by_field_name("argument")
                {
                    let name = self.text(arg).trim().to_string();
                    let r = child.byte_range();
                    out.push(PpItem::Undef {
                        name,
                        span: r.start..r.start + self.text(child).trim_end().len(),
                    });
                }
            }
            "preproc_if" | "preproc_ifdef" => {
                let mut branches = Vec::new();
                let mut at = Some(child);
                while let Some(n) = at {
                    let Some(cond) = self.pp_condition(n) else {
                        break;
                    };
                    let line_end = self.src[n.start_byte()..]
                        .iter()
                        .position(|c| *c == b'\n')
                        .map_or(n.end_byte(), |k| n.start_byte() + k);
                    let mut items = Vec::new();
                    let mut cursor = n.walk();
                    let mut body: Vec<Node> = Vec::new();
                    if cursor.goto_first_child() {
                        loop {
                            let field = cursor.field_name();
                            let c = cursor.node();
                            if c.is_named()
                                && !matches!(field, Some("condition" | "name" | "alternative"))
                            {
                                body.push(c);
                            }
                            if !cursor.goto_next_sibling() {
                                break;
                            }
                        }
                    }
                    for c in body {
                        self.top_item(c, file, &mut items);
                    }
                    branches.push((cond, n.start_byte()..line_end, items));
                    at = n.child_by_field_name("alternative");
                }
                out.push(PpItem::Cond { branches });
            }
            "linkage_specification" | "declaration_list" => self.top_items(child, file, out),
            _ => {
                // Statements at file scope only happen in erroneous input;
                // still look for pragmas and loops inside.
                self.scan_misc(child);
            }
        }
    }

    /// The condition of a `#if`/`#ifdef`/`#elif`/`#else` node.
    fn pp_condition(&self, n: Node) -> Option<PpCond> {
        match n.kind() {
            "preproc_if" | "preproc_elif" => Some(PpCond::Expr(
                n.child_by_field_name("condition")
                    .map(|c| self.text(c))
                    .unwrap_or_default(),
            )),
            "preproc_ifdef" | "preproc_elifdef" => {
                let directive = n.child(0).map(|d| self.text(d)).unwrap_or_default();
                let name = n
                    .child_by_field_name("name")
                    .map(|c| self.text(c))
                    .unwrap_or_default();
                Some(if directive.contains("ndef") {
                    PpCond::NotDefined(name)
                } else {
                    PpCond::Defined(name)
                })
            }
            "preproc_else" => Some(PpCond::Else),
            _ => None,
        }
    }

    fn scan_misc(&mut self, node: Node) {
        if matches!(
            node.kind(),
            "for_statement" | "while_statement" | "do_statement"
        ) {
            self.has_loops = true;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.scan_misc(child);
        }
    }

    fn pragma(&self, node: Node) -> Option<Pragma> {
        let directive = node.child_by_field_name("directive")?;
        if self.text(directive).trim() != "#pragma" {
            return None;
        }
        let text = node
            .child_by_field_name("argument")
            .map(|a| self.text(a).trim().to_string())
            .unwrap_or_default();
        let r = node.byte_range();
        // The node includes the newline; keep the span on the line.
        let mut end = r.end;
        while end > r.start && matches!(self.src[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        Some(Pragma {
            text,
            span: r.start..end,
        })
    }

    /// For a conditional (`#if`/`#ifdef` with its `#elif`/`#else`
    /// branches) that holds only `#pragma` lines, comments and such
    /// conditionals: whether one of its pragmas applies to the next
    /// statement. `None` when it holds anything else (code, `#define`s).
    fn pragma_group(&self, node: Node) -> Option<bool> {
        let mut applies = false;
        let mut cursor = node.walk();
        if cursor.goto_first_child() {
            loop {
                let field = cursor.field_name();
                let c = cursor.node();
                if c.is_named() && !matches!(field, Some("condition" | "name")) {
                    match c.kind() {
                        "comment" => {}
                        "preproc_call" => applies |= pragma_applies_to_next(&self.pragma(c)?.text),
                        "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif"
                        | "preproc_elifdef" => applies |= self.pragma_group(c)?,
                        _ => return None,
                    }
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        Some(applies)
    }

    fn define(&self, node: Node) -> Option<Define> {
        let name = self.text(node.child_by_field_name("name")?);
        let body = node
            .child_by_field_name("value")
            .map(|v| self.text(v).trim().to_string())
            .unwrap_or_default();
        let params = if node.kind() == "preproc_function_def" {
            let p = node.child_by_field_name("parameters")?;
            let mut cursor = p.walk();
            let names: Vec<String> = p
                .named_children(&mut cursor)
                .map(|c| self.text(c))
                .collect();
            Some(names)
        } else {
            None
        };
        let r = node.byte_range();
        let mut end = r.end;
        while end > r.start && matches!(self.src[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        Some(Define {
            name,
            params,
            body,
            span: r.start..end,
        })
    }

    fn function(&mut self, node: Node) -> Option<Function> {
        let body = node.child_by_field_name("body")?;
        let mut decl = node.child_by_field_name("declarator")?;
        // Unwrap pointer declarators of the return type (`double *f(...)`).
        while decl.kind() != "function_declarator" {
            decl = decl.child_by_field_name("declarator")?;
        }
        let name_node = decl.child_by_field_name("declarator")?;
        let name = self.text(name_node);
        let mut params = Vec::new();
        if let Some(plist) = decl.child_by_field_name("parameters") {
            let mut cursor = plist.walk();
            for p in plist.named_children(&mut cursor) {
                if p.kind() == "parameter_declaration" {
                    params.push(self.decl(p));
                }
            }
        }
        let mut is_static = false;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.kind() == "storage_class_specifier" && self.text(child) == "static" {
                is_static = true;
            }
        }
        Some(Function {
            name,
            is_static,
            attributes: self.attributes(node),
            params,
            body: self.stmt(body),
            span: node.byte_range(),
        })
    }

    fn decl(&self, node: Node) -> Decl {
        let mut qualifiers = Vec::new();
        let mut declarators = Vec::new();
        let type_text = node
            .child_by_field_name("type")
            .map(|t| self.text(t))
            .unwrap_or_default();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "storage_class_specifier" | "type_qualifier" => qualifiers.push(self.text(child)),
                _ => {}
            }
        }
        let mut cursor = node.walk();
        for d in node.children_by_field_name("declarator", &mut cursor) {
            if let Some(dc) = self.declarator(d) {
                declarators.push(dc);
            }
        }
        Decl {
            type_text,
            qualifiers,
            declarators,
            span: node.byte_range(),
            attributes: self.attributes(node),
        }
    }

    /// The texts of the attribute specifiers inside `node`, outside any
    /// body, parameter list or initialiser.
    fn attributes(&self, node: Node) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "attribute_specifier" | "attribute_declaration" | "ms_declspec_modifier" => {
                    out.push(self.text(n));
                    continue;
                }
                "compound_statement" | "parameter_list" | "initializer_list" => continue,
                _ => {}
            }
            if n.id() != node.id() && n.kind() == "init_declarator" {
                if let Some(d) = n.child_by_field_name("declarator") {
                    stack.push(d);
                }
                continue;
            }
            let mut cursor = n.walk();
            let children: Vec<Node> = n.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        out
    }

    /// Whether `node` (a pointer or array declarator) has a `restrict`
    /// qualifier of its own.
    fn has_restrict(&self, node: Node) -> bool {
        // `restrict` is a type qualifier; `*__restrict` may also read as a
        // Microsoft pointer modifier.
        let mut cursor = node.walk();
        node.children(&mut cursor).any(|c| {
            matches!(
                c.kind(),
                "type_qualifier" | "ms_pointer_modifier" | "ms_restrict_modifier"
            ) && matches!(
                self.text(c).trim(),
                "restrict" | "__restrict" | "__restrict__"
            )
        })
    }

    fn declarator(&self, node: Node) -> Option<Declarator> {
        let (node, init) = if node.kind() == "init_declarator" {
            let value = node.child_by_field_name("value");
            (
                node.child_by_field_name("declarator")?,
                value.map(|v| self.expr(v)),
            )
        } else {
            (node, None)
        };
        let span = node.byte_range();
        let mut dims_rev = Vec::new();
        let mut is_pointer = false;
        let mut is_function = false;
        let mut restrict = false;
        // The kinds met, outermost first.
        let mut kinds: Vec<&str> = Vec::new();
        let mut cur = node;
        loop {
            kinds.push(cur.kind());
            match cur.kind() {
                "identifier" => break,
                "array_declarator" => {
                    restrict |= self.has_restrict(cur);
                    let size = cur.child_by_field_name("size");
                    dims_rev.push((
                        size.filter(|s| s.kind() != "*").map(|s| self.expr(s)),
                        size.map(|s| self.text(s)).unwrap_or_default(),
                    ));
                    cur = cur.child_by_field_name("declarator")?;
                }
                "pointer_declarator" => {
                    is_pointer = true;
                    restrict |= self.has_restrict(cur);
                    cur = cur.child_by_field_name("declarator")?;
                }
                "function_declarator" => {
                    is_function = true;
                    cur = cur.child_by_field_name("declarator")?;
                }
                "parenthesized_declarator" | "attributed_declarator" => {
                    // `(*p)[N]`: treat as a pointer, conservatively.
                    is_pointer = true;
                    cur = cur.named_child(0)?;
                }
                _ => return None,
            }
        }
        dims_rev.reverse();
        let rows = kinds
            .iter()
            .take_while(|k| **k == "array_declarator")
            .count();
        let points_to_rows = rows > 0
            && kinds[rows..]
                == [
                    "parenthesized_declarator",
                    "pointer_declarator",
                    "identifier",
                ];
        Some(Declarator {
            name: self.text(cur),
            name_span: cur.byte_range(),
            span,
            dims: dims_rev,
            is_pointer,
            is_function,
            restrict,
            init,
            from_macro: false,
            points_to_rows,
            heap: None,
        })
    }

    fn stmt(&mut self, node: Node) -> CStmt {
        let span = node.byte_range();
        if self.depth.get() > MAX_NESTING {
            self.too_deep.borrow_mut().get_or_insert(span.clone());
            return CStmt::Other {
                kind: "too_deeply_nested_statement".into(),
                exprs: Vec::new(),
                children: Vec::new(),
                label: None,
                span,
            };
        }
        self.depth.set(self.depth.get() + 1);
        let out = self.stmt_inner(node, span);
        self.depth.set(self.depth.get() - 1);
        out
    }

    fn stmt_inner(&mut self, node: Node, span: Range<usize>) -> CStmt {
        match node.kind() {
            "for_statement" => {
                self.has_loops = true;
                let body_node = node.child_by_field_name("body");
                if let Some(header) = self
                    .masks
                    .and_then(|m| m.loops.iter().find(|l| l.span.start == span.start))
                {
                    // `FOR(i, 0, N) body`: the header is the macro's
                    // expansion, read from the masks.
                    let body = match body_node {
                        Some(b) => self.stmt(b),
                        None => CStmt::Empty {
                            span: span.end..span.end,
                        },
                    };
                    return CStmt::For {
                        init: header.init.clone(),
                        cond: header.cond.clone(),
                        update: header.update.clone(),
                        body: Box::new(body),
                        header_span: header.span.clone(),
                        span,
                    };
                }
                let init = match node.child_by_field_name("initializer") {
                    None => ForInit::None,
                    Some(n) if n.kind() == "declaration" => ForInit::Decl(self.decl(n)),
                    Some(n) => ForInit::Expr(self.expr(n)),
                };
                let cond = node.child_by_field_name("condition").map(|n| self.expr(n));
                let update = node.child_by_field_name("update").map(|n| self.expr(n));
                // The end of the `)` before the body (comments between the
                // header and the body are trivia, not part of the header).
                let header_end = body_node.map_or(span.end, |b| {
                    let mut cursor = node.walk();
                    let close = node
                        .children(&mut cursor)
                        .filter(|c| c.kind() == ")" && c.end_byte() <= b.start_byte())
                        .last()
                        .map(|c| c.end_byte());
                    close.unwrap_or(b.start_byte())
                });
                let body = match body_node {
                    Some(b) => self.stmt(b),
                    None => CStmt::Empty {
                        span: span.end..span.end,
                    },
                };
                CStmt::For {
                    init,
                    cond,
                    update,
                    body: Box::new(body),
                    header_span: span.start..header_end,
                    span,
                }
            }
            "if_statement" => {
                let cond = match node.child_by_field_name("condition") {
                    Some(c) => self.expr(c),
                    None => Expr {
                        kind: ExprKind::Other("missing".into(), vec![]),
                        span: span.clone(),
                        from_macro: false,
                    },
                };
                let then = match node.child_by_field_name("consequence") {
                    Some(c) => self.stmt(c),
                    None => CStmt::Empty {
                        span: span.end..span.end,
                    },
                };
                let alternative = node.child_by_field_name("alternative");
                // The `else` keyword: the start of an `else_clause`, or the
                // anonymous `else` token before the alternative.
                let else_start = alternative.and_then(|alt| {
                    if alt.kind() == "else_clause" {
                        return Some(alt.start_byte());
                    }
                    let mut cursor = node.walk();
                    node.children(&mut cursor)
                        .find(|c| c.kind() == "else")
                        .map(|c| c.start_byte())
                });
                let els = alternative.and_then(|alt| {
                    let inner = if alt.kind() == "else_clause" {
                        first_named_non_comment(alt)?
                    } else {
                        alt
                    };
                    Some(Box::new(self.stmt(inner)))
                });
                CStmt::If {
                    cond,
                    then: Box::new(then),
                    else_start: els.as_ref().and(else_start),
                    els,
                    span,
                }
            }
            "compound_statement" => {
                let mut items = Vec::new();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if child.kind() == "comment" {
                        continue;
                    }
                    items.push(self.stmt(child));
                }
                self.insert_masked_pragmas(&mut items, &span);
                CStmt::Compound { items, span }
            }
            "expression_statement" => match node.named_child(0) {
                Some(e) => CStmt::Expr {
                    expr: self.expr(e),
                    span,
                },
                None => CStmt::Empty { span },
            },
            "declaration" => CStmt::Decl {
                decl: self.decl(node),
                span,
            },
            "preproc_call" | "preproc_def" | "preproc_function_def" => {
                let mut end = span.end;
                while end > span.start && matches!(self.src[end - 1], b'\n' | b'\r') {
                    end -= 1;
                }
                CStmt::Preproc {
                    span: span.start..end,
                    applies_to_next: self
                        .pragma(node)
                        .is_some_and(|p| pragma_applies_to_next(&p.text)),
                }
            }
            "preproc_if" | "preproc_ifdef" if self.pragma_group(node) == Some(true) => {
                let mut end = span.end;
                while end > span.start && matches!(self.src[end - 1], b'\n' | b'\r') {
                    end -= 1;
                }
                CStmt::Preproc {
                    span: span.start..end,
                    applies_to_next: true,
                }
            }
            kind => {
                if matches!(kind, "while_statement" | "do_statement") {
                    self.has_loops = true;
                }
                let mut exprs = Vec::new();
                let mut children = Vec::new();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let k = child.kind();
                    if k == "comment" {
                        continue;
                    }
                    if k.ends_with("_statement")
                        || k == "else_clause"
                        || k == "case_statement"
                        || k == "declaration"
                    {
                        if k == "else_clause" {
                            if let Some(inner) = first_named_non_comment(child) {
                                children.push(self.stmt(inner));
                            }
                        } else {
                            children.push(self.stmt(child));
                        }
                    } else if k == "parenthesized_expression" || is_expression_kind(k) {
                        exprs.push(self.expr(child));
                    }
                }
                let label = match kind {
                    "labeled_statement" | "goto_statement" => node
                        .child_by_field_name("label")
                        .filter(|l| l.kind() == "statement_identifier")
                        .map(|l| self.text(l)),
                    _ => None,
                };
                CStmt::Other {
                    kind: kind.to_string(),
                    exprs,
                    children,
                    label,
                    span,
                }
            }
        }
    }

    /// Adds to the items of the block at `span` a pragma statement for
    /// each `_Pragma` (or use of a macro that expands to one) of the masks
    /// that sits between its statements (not inside one), in text order.
    fn insert_masked_pragmas(&self, items: &mut Vec<CStmt>, span: &Range<usize>) {
        let Some(masks) = self.masks else {
            return;
        };
        let mut added = false;
        let mut last: Option<Range<usize>> = None;
        for p in &masks.pragmas {
            let inside_block = span.start < p.span.start && p.span.end < span.end;
            let inside_item = items.iter().any(|it| {
                let r = it.span();
                r.start <= p.span.start && p.span.end <= r.end
            });
            // Several pragmas of one macro use are one statement.
            if !inside_block || inside_item || last.as_ref() == Some(&p.span) {
                continue;
            }
            let applies = masks
                .pragmas
                .iter()
                .any(|q| q.span == p.span && pragma_applies_to_next(&q.text));
            items.push(CStmt::Preproc {
                span: p.span.clone(),
                applies_to_next: applies,
            });
            last = Some(p.span.clone());
            added = true;
        }
        if added {
            items.sort_by_key(|it| it.span().start);
        }
    }

    fn is_fake(&self, e: &Expr) -> bool {
        self.fake.borrow().contains(&(e.span.start, e.span.end))
    }

    fn mark_fake(&self, e: &Expr) {
        self.fake.borrow_mut().insert((e.span.start, e.span.end));
    }

    /// `(a) - b` parsed as a cast of `-b` to a type `a` that is in fact a
    /// value: rebuild `a - b` (and `(a) + b`, `(a) * b`, `(a) & b`,
    /// `(a) && b`). The result is marked so that an enclosing operator of
    /// higher precedence re-associates it (`(a) - b * c` is `a - (b * c)`).
    fn fix_fake_cast(&self, node: Node) -> Option<Expr> {
        let descriptor = node.child_by_field_name("type")?;
        // The identifier itself (the descriptor may include the parentheses).
        let ty = descriptor.child_by_field_name("type").unwrap_or(descriptor);
        let name = self.text(ty).trim().to_string();
        let is_ident = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !is_ident || !self.value_names.contains(&name) {
            return None;
        }
        let value = node.child_by_field_name("value")?;
        if value.kind() == "number_literal" {
            // `(a) -1`: the sign was lexed into the literal.
            let text = self.text(value);
            let (op, digits) = if let Some(d) = text.strip_prefix('-') {
                (BinOp::Sub, d)
            } else if let Some(d) = text.strip_prefix('+') {
                (BinOp::Add, d)
            } else {
                return None;
            };
            let lit = Expr {
                kind: parse_int_literal(digits.trim_start())
                    .map_or(ExprKind::OtherLiteral, ExprKind::Int),
                span: value.start_byte() + 1..value.end_byte(),
                from_macro: false,
            };
            let lhs = Expr {
                kind: ExprKind::Ident(name),
                span: ty.byte_range(),
                from_macro: false,
            };
            let e = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(lit)),
                span: node.byte_range(),
                from_macro: false,
            };
            self.mark_fake(&e);
            return Some(e);
        }
        let op_text = value
            .child_by_field_name("operator")
            .map(|o| self.text(o))
            .unwrap_or_default();
        let arg = value.child_by_field_name("argument")?;
        let (op, rhs) = match (value.kind(), op_text.as_str()) {
            ("unary_expression", "-") => (BinOp::Sub, self.expr(arg)),
            ("unary_expression", "+") => (BinOp::Add, self.expr(arg)),
            ("pointer_expression", "*") => (BinOp::Mul, self.expr(arg)),
            ("pointer_expression", "&") => {
                let inner_op = arg
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                if arg.kind() == "pointer_expression" && inner_op == "&" {
                    (BinOp::And, self.expr(arg.child_by_field_name("argument")?))
                } else {
                    (BinOp::BitAnd, self.expr(arg))
                }
            }
            _ => return None,
        };
        let lhs = Expr {
            kind: ExprKind::Ident(name),
            span: ty.byte_range(),
            from_macro: false,
        };
        let e = Expr {
            kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            span: node.byte_range(),
            from_macro: false,
        };
        self.mark_fake(&e);
        Some(e)
    }

    /// Builds `l op r`, re-associating a rebuilt cast on the left:
    /// `(a - b) op c` with `op` binding tighter than `-` is `a - (b op c)`.
    fn binary(&self, op: BinOp, l: Expr, r: Expr, span: Range<usize>) -> Expr {
        if self.is_fake(&l)
            && let ExprKind::Binary(lop, a, b) = &l.kind
            && precedence(*lop) < precedence(op)
        {
            let inner_span = b.span.start..r.span.end;
            let inner = self.binary(op, (**b).clone(), r, inner_span);
            let e = Expr {
                kind: ExprKind::Binary(*lop, a.clone(), Box::new(inner)),
                span,
                from_macro: false,
            };
            self.mark_fake(&e);
            return e;
        }
        // `x op (a) && b`: the rebuilt `a && b` is the right operand, but
        // `a` belongs to `op`: `(x op a) && b`.
        if self.is_fake(&r)
            && let ExprKind::Binary(rop, a, b) = &r.kind
            && precedence(*rop) < precedence(op)
        {
            let inner_span = l.span.start..a.span.end;
            let inner = self.binary(op, l, (**a).clone(), inner_span);
            let e = Expr {
                kind: ExprKind::Binary(*rop, Box::new(inner), b.clone()),
                span,
                from_macro: false,
            };
            self.mark_fake(&e);
            return e;
        }
        Expr {
            kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
            span,
            from_macro: false,
        }
    }

    /// `-(a) - b` parsed as `-((a)(-b))`: the unary operator applies to `a`.
    fn rotate_unary(&self, op: &str, arg: &Expr, node: Node) -> Option<Expr> {
        if !self.is_fake(arg) {
            return None;
        }
        let ExprKind::Binary(lop, a, b) = &arg.kind else {
            return None;
        };
        let un = match op {
            "-" => UnOp::Neg,
            "+" => UnOp::Plus,
            "!" => UnOp::Not,
            "~" => UnOp::BitNot,
            _ => return None,
        };
        let start = node.start_byte();
        let left = Expr {
            kind: ExprKind::Unary(un, a.clone()),
            span: start..a.span.end,
            from_macro: false,
        };
        let e = Expr {
            kind: ExprKind::Binary(*lop, Box::new(left), b.clone()),
            span: node.byte_range(),
            from_macro: false,
        };
        self.mark_fake(&e);
        Some(e)
    }

    fn mk(&self, kind: ExprKind, node: Node) -> Expr {
        Expr {
            kind,
            span: node.byte_range(),
            from_macro: false,
        }
    }

    fn field_expr(&self, node: Node, field: &str) -> Box<Expr> {
        Box::new(match node.child_by_field_name(field) {
            Some(n) => self.expr(n),
            None => self.mk(ExprKind::Other("missing".into(), vec![]), node),
        })
    }

    fn expr(&self, node: Node) -> Expr {
        if self.depth.get() > MAX_NESTING {
            self.too_deep.borrow_mut().get_or_insert(node.byte_range());
            return self.mk(
                ExprKind::Other("too_deeply_nested".into(), Vec::new()),
                node,
            );
        }
        self.depth.set(self.depth.get() + 1);
        let out = self.expr_inner(node);
        self.depth.set(self.depth.get() - 1);
        out
    }

    fn expr_inner(&self, node: Node) -> Expr {
        let kind = match node.kind() {
            "identifier" => ExprKind::Ident(self.text(node)),
            "number_literal" => {
                parse_int_literal(&self.text(node)).map_or(ExprKind::OtherLiteral, ExprKind::Int)
            }
            "true" => ExprKind::Int(1),
            "false" => ExprKind::Int(0),
            "char_literal" | "string_literal" | "concatenated_string" | "null" => {
                ExprKind::OtherLiteral
            }
            "parenthesized_expression" => {
                return match node.named_child(0) {
                    Some(inner) if inner.kind() != "comment" => {
                        let mut e = self.expr(inner);
                        // Names and array elements keep their own tight
                        // spans (code generation edits them); other
                        // expressions take the parentheses along.
                        if !matches!(e.kind, ExprKind::Ident(_) | ExprKind::Subscript(..)) {
                            e.span = node.byte_range();
                        }
                        e
                    }
                    _ => self.mk(ExprKind::Other("missing".into(), vec![]), node),
                };
            }
            "unary_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                let arg = self.field_expr(node, "argument");
                if let Some(fixed) = self.rotate_unary(&op, &arg, node) {
                    return fixed;
                }
                match op.as_str() {
                    "-" => ExprKind::Unary(UnOp::Neg, arg),
                    "+" => ExprKind::Unary(UnOp::Plus, arg),
                    "!" => ExprKind::Unary(UnOp::Not, arg),
                    "~" => ExprKind::Unary(UnOp::BitNot, arg),
                    _ => ExprKind::Other("unary_expression".into(), vec![*arg]),
                }
            }
            "binary_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                let l = self.field_expr(node, "left");
                let r = self.field_expr(node, "right");
                match BinOp::from_text(&op) {
                    Some(op) => return self.binary(op, *l, *r, node.byte_range()),
                    None => ExprKind::Other("binary_expression".into(), vec![*l, *r]),
                }
            }
            "conditional_expression" => ExprKind::Cond(
                self.field_expr(node, "condition"),
                self.field_expr(node, "consequence"),
                self.field_expr(node, "alternative"),
            ),
            "subscript_expression" => ExprKind::Subscript(
                self.field_expr(node, "argument"),
                self.field_expr(node, "index"),
            ),
            "call_expression" => {
                let callee = self.field_expr(node, "function");
                let mut args = Vec::new();
                if let Some(list) = node.child_by_field_name("arguments") {
                    let mut cursor = list.walk();
                    for a in list.named_children(&mut cursor) {
                        if a.kind() != "comment" {
                            args.push(self.expr(a));
                        }
                    }
                }
                ExprKind::Call(callee, args)
            }
            "cast_expression" => {
                if let Some(fixed) = self.fix_fake_cast(node) {
                    return fixed;
                }
                ExprKind::Cast(
                    node.child_by_field_name("type")
                        .map(|t| self.text(t))
                        .unwrap_or_default(),
                    self.field_expr(node, "value"),
                )
            }
            "assignment_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                let l = self.field_expr(node, "left");
                let r = self.field_expr(node, "right");
                if op == "=" {
                    ExprKind::Assign(None, l, r)
                } else {
                    match BinOp::from_text(op.trim_end_matches('=')) {
                        Some(b) => ExprKind::Assign(Some(b), l, r),
                        None => ExprKind::Other("assignment_expression".into(), vec![*l, *r]),
                    }
                }
            }
            "update_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                ExprKind::Update(op == "++", self.field_expr(node, "argument"))
            }
            "pointer_expression" => {
                let op = node
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or_default();
                let arg = self.field_expr(node, "argument");
                if op == "&" {
                    ExprKind::AddrOf(arg)
                } else {
                    ExprKind::Deref(arg)
                }
            }
            "field_expression" => ExprKind::Field(self.field_expr(node, "argument")),
            "comma_expression" => ExprKind::Comma(
                self.field_expr(node, "left"),
                self.field_expr(node, "right"),
            ),
            kind => {
                let mut subs = Vec::new();
                let mut cursor = node.walk();
                for c in node.named_children(&mut cursor) {
                    if is_expression_kind(c.kind()) {
                        subs.push(self.expr(c));
                    } else if kind == "sizeof_expression" && c.kind() == "type_descriptor" {
                        // `sizeof(double[n][m])`: the extents, outermost
                        // first.
                        let mut sizes = Vec::new();
                        let mut d = c.child_by_field_name("declarator");
                        while let Some(x) = d.filter(|x| x.kind() == "abstract_array_declarator") {
                            if let Some(size) = x.child_by_field_name("size") {
                                sizes.push(size);
                            }
                            d = x.child_by_field_name("declarator");
                        }
                        sizes.sort_by_key(|n| n.start_byte());
                        subs.extend(sizes.into_iter().map(|n| self.expr(n)));
                    }
                }
                ExprKind::Other(kind.to_string(), subs)
            }
        };
        self.mk(kind, node)
    }
}

/// Whether a pragma (its text after `#pragma`) applies to the statement
/// after it: every pragma but polyfold's own (`scop`, `endscop`,
/// `polyfold ...`).
pub(crate) fn pragma_applies_to_next(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or("");
    !first.is_empty() && !matches!(first, "scop" | "endscop" | "polyfold")
}

/// The first named child of `node` that is not a comment (comments are
/// trivia: `else // why` is followed by the statement).
fn first_named_non_comment(node: Node) -> Option<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .find(|c| c.kind() != "comment")
}

fn is_expression_kind(k: &str) -> bool {
    k.ends_with("_expression")
        || matches!(
            k,
            "identifier" | "number_literal" | "char_literal" | "string_literal" | "true" | "false"
        )
}

/// Parses a C integer literal (decimal, hex, octal, binary, with `l`/`L`
/// suffixes). Unsigned literals (`u` suffix) and values beyond `i64` give
/// `None`: their arithmetic is not the integer arithmetic we model.
pub(crate) fn parse_int_literal(text: &str) -> Option<i64> {
    let t: String = text.chars().filter(|c| *c != '\'').collect();
    let lower = t.to_ascii_lowercase();
    let digits = lower.trim_end_matches('l');
    if digits.ends_with('u') || digits.contains('u') {
        return None;
    }
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = digits.strip_prefix("0b") {
        (2, b)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() {
        return None;
    }
    i64::from_str_radix(body, radix).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restrict_in_every_spelling() {
        let f = parse_file(
            "void k(int n, const double *__restrict a, double *restrict b, double c[__restrict__ n], double *d, double e[n]) {}\n",
        )
        .expect("parses");
        let restrict: Vec<(String, bool)> = f.functions[0]
            .params
            .iter()
            .flat_map(|p| &p.declarators)
            .map(|d| (d.name.clone(), d.restrict))
            .collect();
        let expected: Vec<(String, bool)> = [
            ("n", false),
            ("a", true),
            ("b", true),
            ("c", true),
            ("d", false),
            ("e", false),
        ]
        .iter()
        .map(|(n, r)| (n.to_string(), *r))
        .collect();
        assert_eq!(restrict, expected);
    }

    #[test]
    fn integer_literals() {
        assert_eq!(parse_int_literal("42"), Some(42));
        assert_eq!(parse_int_literal("0x1F"), Some(31));
        assert_eq!(parse_int_literal("017"), Some(15));
        assert_eq!(parse_int_literal("10L"), Some(10));
        assert_eq!(parse_int_literal("10u"), None);
        assert_eq!(parse_int_literal("1.5"), None);
        assert_eq!(parse_int_literal("0"), Some(0));
    }

    #[test]
    fn parses_a_loop_nest() {
        let src = "void f(int n, double A[n]) {\n  for (int i = 0; i < n; i++) A[i] = 0;\n}\n";
        let file = parse_file(src).expect("parser");
        assert!(file.first_error.is_none());
        assert_eq!(file.functions.len(), 1);
        assert_eq!(file.functions[0].params.len(), 2);
        let CStmt::Compound { items, .. } = &file.functions[0].body else {
            panic!("body is a compound statement");
        };
        assert!(matches!(items[0], CStmt::For { .. }));
        assert!(file.has_loops);
    }

    #[test]
    fn conditionals_of_pragmas_are_statement_pragmas() {
        let src = "void f(int n, double a[n]) {\n#ifdef _OPENMP\n#pragma omp parallel for\n#else\n/* none */\n#endif\n  for (int i = 0; i < n; i++) a[i] = 0;\n#if X\n#pragma scop\n#endif\n#ifdef Y\n#pragma GCC ivdep\n  a[0] = 1;\n#endif\n}\n";
        let file = parse_file(src).expect("parser");
        let CStmt::Compound { items, .. } = &file.functions[0].body else {
            panic!("body is a compound statement");
        };
        let kinds: Vec<String> = items
            .iter()
            .map(|it| match it {
                CStmt::Preproc {
                    span,
                    applies_to_next,
                } => format!("{applies_to_next} {}", &src[span.clone()]),
                other => format!("{:?}", std::mem::discriminant(other)),
            })
            .collect();
        assert_eq!(
            kinds[0],
            "true #ifdef _OPENMP\n#pragma omp parallel for\n#else\n/* none */\n#endif"
        );
        assert!(matches!(items[1], CStmt::For { .. }));
        // Only polyfold's own pragma, or code besides the pragma: as before.
        assert!(matches!(&items[2], CStmt::Other { kind, .. } if kind == "preproc_if"));
        assert!(matches!(&items[3], CStmt::Other { kind, .. } if kind == "preproc_ifdef"));
    }

    #[test]
    fn reports_missing_token() {
        let src = "void f() { int x = 1 }\n";
        let file = parse_file(src).expect("parser");
        let err = file.first_error.expect("an error");
        assert!(err.missing.is_some() || err.span.start > 0);
    }
}
#[cfg(test)]
mod cast_ambiguity_tests {
    use super::*;

    fn sexp(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Ident(n) => n.clone(),
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Unary(op, a) => format!("({op:?} {})", sexp(a)),
            ExprKind::Binary(op, a, b) => format!("({op:?} {} {})", sexp(a), sexp(b)),
            ExprKind::Cast(t, a) => format!("(cast {t} {})", sexp(a)),
            ExprKind::Cond(a, b, c) => format!("(? {} {} {})", sexp(a), sexp(b), sexp(c)),
            ExprKind::Deref(a) => format!("(deref {})", sexp(a)),
            ExprKind::Assign(None, a, b) => format!("(= {} {})", sexp(a), sexp(b)),
            ExprKind::AddrOf(a) => format!("(addr {})", sexp(a)),
            other => format!("{other:?}"),
        }
    }

    fn parse(text: &str, values: &[&str]) -> String {
        let values: Vec<String> = values.iter().map(|s| s.to_string()).collect();
        sexp(&parse_expression_text_with(text, &values).expect("parses"))
    }

    #[test]
    fn parenthesised_values_are_not_casts() {
        assert_eq!(parse("(a) - b", &["a"]), "(Sub a b)");
        assert_eq!(parse("(a) + 1", &["a"]), "(Add a 1)");
        assert_eq!(parse("(a) -1", &["a"]), "(Sub a 1)");
        assert_eq!(parse("(a)-1*2", &["a"]), "(Sub a (Mul 1 2))");
        assert_eq!(parse("x = (a) -1", &["a", "x"]), "(= x (Sub a 1))");
        assert_eq!(parse("(a) - b * c", &["a"]), "(Sub a (Mul b c))");
        assert_eq!(
            parse("(a) - b * c * d", &["a"]),
            "(Sub a (Mul (Mul b c) d))"
        );
        assert_eq!(parse("(a) - b < c", &["a"]), "(Lt (Sub a b) c)");
        assert_eq!(parse("-(a) - b", &["a"]), "(Sub (Neg a) b)");
        assert_eq!(parse("(i) * N + (j)", &["i", "j"]), "(Add (Mul i N) j)");
        assert_eq!(
            parse("((x) >= (lo) && (x) <= (hi))", &["x", "lo", "hi"]),
            "(And (Ge x lo) (Le x hi))"
        );
        assert_eq!(parse("(a) & b", &["a"]), "(BitAnd a b)");
        assert_eq!(parse("!(a) && b", &["a"]), "(And (Not a) b)");
        assert_eq!(parse("x < (b) - c * d", &["b"]), "(Lt x (Sub b (Mul c d)))");
        assert_eq!(
            parse("(i) >= (lo) && (i) - 1 <= (hi) * 2", &["i", "lo", "hi"]),
            "(And (Ge i lo) (Le (Sub i 1) (Mul hi 2)))"
        );
    }

    #[test]
    fn rebuilt_names_have_tight_spans() {
        let e = parse_expression_text_with("(a) - b", &["a".to_string()]).expect("parses");
        let ExprKind::Binary(_, a, _) = &e.kind else {
            panic!("a binary expression: {e:?}")
        };
        // `a` is one byte long wherever the wrapper put it.
        assert_eq!(a.span.end - a.span.start, 1);
    }

    #[test]
    fn real_casts_stay_casts() {
        assert_eq!(parse("(double) -x", &["x"]), "(cast double (Neg x))");
        assert_eq!(
            parse("(int)(i - 1) * -1", &["i"]),
            "(Mul (cast int (Sub i 1)) -1)"
        );
    }
}
