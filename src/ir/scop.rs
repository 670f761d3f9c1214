//! The IR's data: programs, SCoPs, parameters, arrays, statements, accesses,
//! schedules, and what the front end recorded of calls and aliasing.

use std::ops::Range;

use crate::diag::Diagnostic;
use crate::poly::{BasicSet, Set};

/// Index of a statement inside its [`Scop`] (`stmts[id.0]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);

/// Index of an array inside its [`Scop`] (`arrays[id.0]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ArrayId(pub u32);

/// Index of a SCoP inside its [`Program`] (`scops[id.0]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScopId(pub u32);

/// Everything the front end learned about one C file.
#[derive(Clone, Debug)]
pub struct Program {
    /// The path as given on the command line (used in diagnostics).
    pub path: String,
    /// The whole source text; every span in the IR indexes into it.
    pub source: String,
    /// The static control parts, in source order.
    pub scops: Vec<Scop>,
    /// The macros of the file, with command-line overrides applied.
    pub macros: MacroTable,
    /// What was rejected or noticed, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
    /// The names of the functions the file defines (in active
    /// preprocessor branches), in source order.
    pub functions: Vec<String>,
}

impl Program {
    /// Whether any diagnostic is an error (the input could not be parsed).
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity() == crate::diag::Severity::Error)
    }

    /// Whether every parameter of `scop` is an object-like `#define` of the
    /// file, so that a `_Static_assert` can pin its value.
    pub(crate) fn params_are_macros(&self, scop: &Scop) -> bool {
        scop.params.iter().all(|p| {
            self.macros
                .objects
                .iter()
                .any(|o| o.name == p.name && o.span.is_some())
        })
    }
}

/// The `#define`s of a file (and the `-D` values given on the command line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacroTable {
    /// Object-like macros, in definition order.
    pub objects: Vec<ObjectMacro>,
    /// Function-like macros, in definition order.
    pub functions: Vec<FunctionMacro>,
}

impl MacroTable {
    /// The object-like macro called `name` (the last definition wins).
    pub fn object(&self, name: &str) -> Option<&ObjectMacro> {
        self.objects.iter().rev().find(|m| m.name == name)
    }

    /// The function-like macro called `name` (the last definition wins).
    pub fn function(&self, name: &str) -> Option<&FunctionMacro> {
        self.functions.iter().rev().find(|m| m.name == name)
    }
}

/// `#define NAME BODY`, or a `-D NAME=VALUE` from the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectMacro {
    pub name: String,
    /// The body text, trimmed (for `-D`, the value as given).
    pub body: String,
    /// The integer value of the body when it is an integer constant
    /// expression (possibly using other macros), after `-D` overrides.
    pub value: Option<i64>,
    /// Where the value comes from.
    pub origin: ParamOrigin,
    /// The span of the `#define` line (`None` for a `-D` macro).
    pub span: Option<Range<usize>>,
}

/// `#define NAME(a, b) BODY`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionMacro {
    pub name: String,
    pub params: Vec<String>,
    pub body: String,
    pub span: Range<usize>,
}

/// Whether a SCoP was delimited by pragmas or found by the front end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopKind {
    /// Between `#pragma scop` and `#pragma endscop`.
    Pragma,
    /// A maximal run of affine statements of a function.
    Inferred,
}

/// One static control part.
#[derive(Clone, Debug)]
pub struct Scop {
    pub id: ScopId,
    /// The function containing the SCoP.
    pub function: String,
    /// Byte range of the region: from the first statement to the end of the
    /// last one.
    pub span: Range<usize>,
    pub kind: ScopKind,
    /// Parameters in order of first use; columns of every set start with them.
    pub params: Vec<Param>,
    /// Whether a known value was folded into a domain (a bound, a guard):
    /// every array's model then holds for the known values only.
    pub domains_value_used: bool,
    /// What is known of the parameters, a set over the parameters only (a
    /// space with an anonymous zero-dimensional tuple). Known values are NOT
    /// in the context: parameters stay symbolic.
    pub context: BasicSet,
    pub arrays: Vec<Array>,
    pub stmts: Vec<Stmt>,
    /// The object-like macros of the file whose body is not one operand
    /// (`#define LAST N-1`, `#define N M+2`), sorted: their names must be
    /// parenthesised wherever printed C puts them next to an operator
    /// (see [`crate::util::c_text::compound_macro_names`]).
    pub compound_macros: Vec<String>,
    /// The control structure of the SCoP's text, one entry per top-level
    /// statement that holds a statement of the SCoP, in source order (what
    /// code generation needs to delete statements by syntax nodes).
    pub items: Vec<ScopItem>,
    /// The pairs of arrays that may share memory (see [`order`]).
    pub aliases: Vec<MayAlias>,
}

impl Scop {
    /// Parameter names in column order.
    /// Whether the model is exact only for the known values of some
    /// parameters (see [`Param::value_used`]).
    pub(crate) fn depends_on_values(&self) -> bool {
        self.params.iter().any(|p| p.value_used)
    }

    /// Whether the model of `array` (its accesses and extents, the
    /// domains and schedules of the statements) is exact only for the
    /// known values: a known value folded into a domain, or into one of
    /// its own accesses or extents. A value folded into another array's
    /// subscripts (`blury[ty * B + y]`) changes that array's cells only;
    /// the lifetimes of this one's do not depend on it. An extent that
    /// folded a value gives the context no fact.
    pub(crate) fn array_depends_on_values(&self, array: ArrayId) -> bool {
        self.depends_on_values() && (self.domains_value_used || self.array(array).value_used)
    }

    pub fn param_names(&self) -> Vec<String> {
        self.params.iter().map(|p| p.name.clone()).collect()
    }

    /// The known value of every parameter, or the name of one without.
    pub fn param_values(&self) -> Result<Vec<i64>, String> {
        self.params
            .iter()
            .map(|p| p.value.ok_or_else(|| p.name.clone()))
            .collect()
    }

    /// Whether `name` is a macro whose expansion is not one operand.
    pub fn is_compound(&self, name: &str) -> bool {
        self.compound_macros
            .binary_search_by(|n| n.as_str().cmp(name))
            .is_ok()
    }

    /// Parameter names in column order as C operands: a macro whose body
    /// is not one operand is parenthesised (`(N)` for `#define N M+2`), so
    /// that `2 * (N)` and `i % (N)` mean what they say.
    pub(crate) fn param_texts(&self) -> Vec<String> {
        crate::util::c_text::operand_names(
            self.params.iter().map(|p| p.name.as_str()),
            &self.compound_macros,
        )
    }

    pub fn array(&self, id: ArrayId) -> &Array {
        &self.arrays[id.0 as usize]
    }

    pub fn stmt(&self, id: StmtId) -> &Stmt {
        &self.stmts[id.0 as usize]
    }
}

/// Where a parameter comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamOrigin {
    /// An object-like `#define` with an integer constant body.
    Define,
    /// A `-D NAME=VALUE` on the command line (it overrides a `#define`).
    CommandLine,
    /// An integer parameter of the enclosing function.
    FunctionParam,
    /// A `const` integer global.
    ConstGlobal,
    /// An integer local variable (or the iterator of an enclosing loop that
    /// is not part of the SCoP) that the SCoP reads but never writes.
    Variable,
}

/// A symbolic constant of a SCoP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    /// The known value (from `#define` or `-D`), kept out of every set.
    pub value: Option<i64>,
    pub origin: ParamOrigin,
    /// Whether the model uses this known value: a product, `/` or `%` of
    /// known numbers was folded into a coefficient or a constant of a set
    /// (`s[i - N / 2]` becomes `s[i - 32]`). The SCoP is then exact for this
    /// value only, and nothing derived from it holds for other values: a
    /// mapping must be certified for the known values and pinned to them.
    pub value_used: bool,
    /// The declared type of a variable (`int`, `long`, `ptrdiff_t`);
    /// `None` for a macro. Printed arithmetic on it must stay within its
    /// range (see [`crate::codegen::overflow`]).
    pub type_text: Option<String>,
}

/// An affine expression `Σ coeffs[k]·x_k + constant` over some list of
/// variables (the parameters of the SCoP, or the parameters followed by the
/// iterators of a statement; the owner says which).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffExpr {
    pub coeffs: Vec<i64>,
    pub constant: i64,
}

impl AffExpr {
    pub fn constant(n_vars: usize, constant: i64) -> AffExpr {
        AffExpr {
            coeffs: vec![0; n_vars],
            constant,
        }
    }

    /// Isl text of the expression with the given variable names.
    pub(crate) fn to_isl(&self, names: &[String]) -> String {
        crate::poly::isl_print::format_affine(&self.coeffs, self.constant, names)
    }
}

/// One declared dimension size of an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extent {
    /// The size as an affine expression over the SCoP's parameters, when it
    /// is one (`None` for `[]`, or a size that is not affine).
    pub aff: Option<AffExpr>,
    /// The source text between the brackets.
    pub text: String,
}

/// The storage class of an array or scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// An automatic variable of the enclosing function.
    Local,
    /// A `static` variable (local or global).
    Static,
    /// A non-static variable at file scope (or `extern`).
    Global,
    /// A parameter of the enclosing function.
    FunctionParam,
}

/// Facts about an array that decide whether it is external or temporary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayFacts {
    pub storage: Storage,
    /// `&A`, `&A[..]`, or the array used as a pointer value (passed to a
    /// call, assigned) anywhere in the file.
    pub address_taken: bool,
    /// The name is referenced (with this declaration) outside the SCoP.
    pub used_outside_scop: bool,
    /// A local with no initialiser that only the SCoP uses, and the SCoP
    /// runs at most once per entry into its block (see
    /// `frontend::fresh`): every cell holds an indeterminate value when
    /// the SCoP starts, so a live-in cell reads no value the program
    /// defined.
    pub starts_indeterminate: bool,
    /// Declared in the function that contains the SCoP.
    pub declared_in_function: bool,
    /// A scalar: a zero-dimensional array.
    pub is_scalar: bool,
    /// The SCoP runs inside a loop marked parallel (not part of the SCoP)
    /// and the array is declared outside that loop: every iteration, and
    /// so every concurrent run of the SCoP, uses this one array. The
    /// loop's iterator and mark.
    pub shared_by_parallel_loop: Option<(String, ParallelMark)>,
    /// A chained assignment `a = b = k` reads the array through the
    /// reference that writes it: one piece of text for two accesses,
    /// which a new layout could not give two different forms.
    pub read_through_its_write: bool,
    /// A scalar whose value subscripts, bounds or conditions of the SCoP
    /// use as the affine expression an assignment earlier in the same
    /// iteration gave it (forward substitution, see
    /// `frontend::substitute`): their text names it, so its name and
    /// storage stay.
    pub value_in_subscripts: bool,
    /// A variable of an extent that is written after the declaration:
    /// the declaration computed its size from the value before, so a new
    /// declaration (printed with the SCoP's value) would not be the same.
    pub extent_written: Option<String>,
    /// What in the initialiser has a side effect (a call that may touch
    /// memory, an assignment): a new declaration drops the initialiser.
    pub initializer_effect: Option<String>,
    /// A parameter of a `static` function: whether every call of the file
    /// passes a buffer its caller owns, allocates, passes and frees, and
    /// nothing else (see `frontend::buffers`): the texts that size its
    /// storage (the parameter's declarator first, then each caller's
    /// allocation), or why not. `None` for any other array.
    pub caller_owned: Option<Result<Vec<ResizeSite>, String>>,
    /// A local pointer to memory from `malloc` or `calloc`, modelled as an
    /// array (see `frontend::heap`): the texts that size it. Its
    /// declarator stays.
    pub heap: Option<Vec<ResizeSite>>,
    /// A linearised heap buffer: `t[y * w + x]` of a pointer sized `h * w`,
    /// modelled as `t[y][x]` of extents `[h][w]` (`frontend::extract`
    /// proves `0 <= x < w` for every access). Each access prints as one
    /// subscript again, `[y' * w' + x']` with the new row extent `w'`.
    pub linear_rows: bool,
}

/// A text that sizes the storage of a caller-owned parameter: the
/// parameter's declarator, or a caller's allocation (a declaration, or the
/// call of an allocation macro).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResizeSite {
    /// The function it is in.
    pub function: String,
    /// The whole site (a declarator, a declaration or a macro call).
    pub span: Range<usize>,
    /// Per dimension, the texts that spell its extent: the extent of a
    /// declarator, or the arguments of a macro that give it (empty:
    /// nothing spells it, as in a parameter `t[][m]`). A new extent
    /// replaces each of them.
    pub dims: Vec<Vec<Range<usize>>>,
    /// What the site is, for the report (`the local array`, `the macro
    /// POLYBENCH_2D_ARRAY_DECL`).
    pub what: String,
}

/// The liveness class of an array; the classifier of a later stage fills it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Liveness {
    Unclassified,
    External,
    Temporary,
}

/// An array or scalar accessed in the SCoP.
#[derive(Clone, Debug)]
pub struct Array {
    pub id: ArrayId,
    pub name: String,
    /// The text of the element type, e.g. `double` or `const int`.
    pub elem_type: String,
    /// One entry per dimension (empty for a scalar).
    pub extents: Vec<Extent>,
    /// The whole declaration (`double A[N][N];`), when found.
    pub decl_span: Option<Range<usize>>,
    /// The declarator (`A[N][N]`), when found.
    pub declarator_span: Option<Range<usize>>,
    /// From the end of the declarator to the end of its initialiser (` =
    /// {0}`), when it has one: a new declarator drops it (see
    /// `codegen::plan::plan_array_edits`).
    pub initializer_span: Option<Range<usize>>,
    /// The blocks around the declaration (empty at file scope or for a
    /// function parameter).
    pub decl_blocks: Vec<BlockStep>,
    pub facts: ArrayFacts,
    /// Whether a known value was folded into one of its accesses or
    /// extents (see [`Param::value_used`]): its model holds for the known
    /// values only (see [`Scop::array_depends_on_values`]).
    pub value_used: bool,
    pub liveness: Liveness,
}

impl Array {
    /// A function parameter: its type is the caller's, so a new layout
    /// keeps its declarator (a dropped dimension is subscripted `[0]`, a
    /// modulus applies inside the declared extent).
    pub(crate) fn keeps_declarator(&self) -> bool {
        self.facts.storage == Storage::FunctionParam || self.facts.heap.is_some()
    }

    /// A caller-owned parameter used only in its SCoP: the texts that
    /// size its storage (see [`ArrayFacts::caller_owned`]).
    pub(crate) fn resize_sites(&self) -> Option<&[ResizeSite]> {
        let f = &self.facts;
        match (&f.caller_owned, &f.heap) {
            (Some(Ok(sites)), _) if !f.address_taken && !f.used_outside_scop => Some(sites),
            (_, Some(sites)) => Some(sites),
            _ => None,
        }
    }
}

/// Where a declaration sits in the blocks of its function: one step per
/// enclosing `{ ... }` block, outermost (the function body) first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockStep {
    /// The block, braces included.
    pub block: Range<usize>,
    /// The item of the block that contains the declaration (the
    /// declaration itself in the innermost step), grown over the `#pragma`
    /// lines right before it that apply to it.
    pub item: Range<usize>,
}

/// A statement of the SCoP's text as a syntax node: what code generation
/// needs to delete statements with the control structure around them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxNode {
    /// A statement of the SCoP (an expression statement, `;` included).
    Stmt { id: StmtId, span: Range<usize> },
    /// A `for` loop (its header has no effect but on its iterator).
    For {
        span: Range<usize>,
        /// Where code generation may extend the header (rotating indices),
        /// when it has one of the forms it knows.
        header: Option<ForHeader>,
        body: Box<SyntaxNode>,
        /// The iterator's value after the loop may be read: the loop must
        /// stay (with an empty body when its body goes).
        keeps_iterator: bool,
    },
    /// An `if` (its condition has no side effect); `else_start` is where
    /// the `else` keyword starts.
    If {
        span: Range<usize>,
        then: Box<SyntaxNode>,
        els: Option<Box<SyntaxNode>>,
        else_start: Option<usize>,
    },
    /// A `{ ... }` block.
    Block {
        span: Range<usize>,
        items: Vec<SyntaxNode>,
    },
    /// A labelled statement (`produce: for ...`) whose label no `goto`
    /// names: the label goes wherever its statement goes, and stays when
    /// the statement is deleted (`produce: ;`).
    Labeled {
        span: Range<usize>,
        label: String,
        body: Box<SyntaxNode>,
    },
    /// An empty statement `;`.
    Empty { span: Range<usize> },
    /// A `#pragma` line that applies to the next item of its block (`omp`,
    /// `GCC ivdep`, `unroll`, ...).
    Pragma { span: Range<usize> },
    /// Anything else (a declaration, another preprocessor line): kept.
    Kept { span: Range<usize> },
}

impl SyntaxNode {
    pub fn span(&self) -> Range<usize> {
        match self {
            SyntaxNode::Stmt { span, .. }
            | SyntaxNode::For { span, .. }
            | SyntaxNode::If { span, .. }
            | SyntaxNode::Block { span, .. }
            | SyntaxNode::Labeled { span, .. }
            | SyntaxNode::Empty { span }
            | SyntaxNode::Pragma { span }
            | SyntaxNode::Kept { span } => span.clone(),
        }
    }

    /// The statement under the node's labels (`a: b: for ...` is the
    /// `for`); the node itself when it has none.
    pub fn unlabelled(&self) -> &SyntaxNode {
        match self {
            SyntaxNode::Labeled { body, .. } => body.unlabelled(),
            other => other,
        }
    }

    /// Whether a labelled statement sits in the node (the node itself
    /// included).
    pub fn has_label(&self) -> bool {
        match self {
            SyntaxNode::Labeled { .. } => true,
            SyntaxNode::For { body, .. } => body.has_label(),
            SyntaxNode::If { then, els, .. } => {
                then.has_label() || els.as_ref().is_some_and(|e| e.has_label())
            }
            SyntaxNode::Block { items, .. } => items.iter().any(SyntaxNode::has_label),
            SyntaxNode::Stmt { .. }
            | SyntaxNode::Empty { .. }
            | SyntaxNode::Pragma { .. }
            | SyntaxNode::Kept { .. } => false,
        }
    }
}

/// The parts of a `for` header that code generation extends: it starts
/// and advances other variables with the iterator (`for (i = 0, r = …;
/// …; i++, r = …)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForHeader {
    pub iterator: String,
    /// +1 or -1: the update is `i++`, `++i`, `i += 1`, `i = i + 1` (or
    /// their decreasing forms).
    pub step: i64,
    /// The end of the initialisation (an assignment, or a declaration
    /// with one declarator), where `, r = …` goes.
    pub init_end: usize,
    /// The declaration's type when the initialisation declares the
    /// iterator (`int i = 0`: a new declarator there declares a variable
    /// of that type, private to the loop).
    pub declares: Option<String>,
    /// The end of the update expression.
    pub update_end: usize,
}

/// Where a top-level statement of a SCoP sits in its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// An item of a `{ ... }` block (or of a `case`): it can be removed.
    InBlock,
    /// The only statement of its parent (the body of a brace-less `for`,
    /// `while` or `do`, a branch of an `if`, a labelled statement): it can
    /// only be replaced, by `;`.
    Sole,
}

/// One top-level statement of a SCoP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopItem {
    pub node: SyntaxNode,
    pub placement: Placement,
    /// The `#pragma` lines right before the statement that apply to it
    /// (with `InBlock` only).
    pub pragmas: Vec<Range<usize>>,
}

/// One entry of a 2d+1 schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedEntry {
    /// A textual position among siblings.
    Const(i64),
    /// The iterator at `index`, times `sign` (-1 for a decreasing loop, so
    /// that the lexicographic order of schedules is the execution order).
    Iter { index: usize, sign: i64 },
}

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
}

/// One array reference of a statement.
#[derive(Clone, Debug)]
pub struct Access {
    pub array: ArrayId,
    pub kind: AccessKind,
    /// One affine expression per array dimension, over
    /// `[params | iterators of the statement]`.
    pub subscripts: Vec<AffExpr>,
    /// `S[i, j] -> A[o0, o1]` with one equality per subscript (not
    /// restricted to the domain).
    pub relation: Set,
    /// The whole reference, e.g. `A[i][j + 1]` (for a scalar: the name).
    pub span: Range<usize>,
    /// Each index expression, without the brackets.
    pub subscript_spans: Vec<Range<usize>>,
    /// The array name.
    pub name_span: Range<usize>,
}

/// One statement (an assignment) of a SCoP.
#[derive(Clone, Debug)]
pub struct Stmt {
    pub id: StmtId,
    /// `S0`, `S1`, ... in textual order.
    pub name: String,
    /// Names of the enclosing loop iterators, outermost first, followed by
    /// one name per quotient dimension (see `quotients`).
    pub iterators: Vec<String>,
    /// The C text of each quotient dimension, e.g. `(i / 2)`: the last
    /// `quotients.len()` entries of `iterators` are not loops but the
    /// quotients (C's truncation) that the subscripts use (`A[i % 2]` is
    /// `A[i - 2·q0]` with `q0 = i / 2`). The domain defines them exactly,
    /// so each iteration of the loops has one value of each; the schedule
    /// lists them after the loops (`[.., c_d, q0, 0]`), which orders
    /// nothing, and they are never parallel.
    pub quotients: Vec<String>,
    /// The iteration domain over `params` and tuple `name[iterators]`; a
    /// union when conditions are disjunctive; strides use existentials.
    pub domain: Set,
    /// Per enclosing loop (outermost first): the iterations of that loop
    /// and the loops around it, without the `if` conditions around the
    /// statement nor the bounds of deeper loops (over the space of
    /// `domain`): every point where the loop's header runs.
    pub loop_domains: Vec<Set>,
    /// 2d+1 schedule: `2 * iterators.len() + 1` entries.
    pub schedule: Vec<SchedEntry>,
    pub write: Access,
    /// Reads in evaluation order; they all happen before the write.
    pub reads: Vec<Access>,
    /// The whole expression statement, including the `;`.
    pub span: Range<usize>,
    /// The source text of the statement.
    pub body_text: String,
    /// One entry per iterator (outermost first, like `iterators`): `Some`
    /// when that loop is marked parallel by a pragma (OpenMP, OpenACC,
    /// `ivdep`, ...), `None` for a quotient dimension. A parallel loop's
    /// iterations are unordered: they may run at the same time, in any
    /// interleaving.
    pub parallel: Vec<Option<ParallelMark>>,
    /// The calls of its expression, in source order (see [`order`]).
    pub calls: Vec<Call>,
    /// The declared type of each loop iterator, outermost first (one per
    /// loop: quotient dimensions have none). A copy of the statement keeps
    /// these types (see [`crate::codegen::overflow`]).
    pub iterator_types: Vec<String>,
    /// The conditions that read data around it (`if (A[a] == B[b])`),
    /// outermost first: it may not run at a point of its domain, its
    /// write also reads the cell it writes, and the first assignment of
    /// each branch reads what the condition reads (see
    /// `frontend::analyze::data_if`). Empty for most statements.
    pub data_conds: Vec<Range<usize>>,
    /// The scalars its subscripts name whose value the model substituted
    /// (an affine value assigned earlier in the same iteration, see
    /// `frontend::substitute`), each with that value over `[params |
    /// iterators]`: what a check of a new text that keeps the name reads
    /// it as.
    pub scalar_values: Vec<(String, AffExpr)>,
}

/// Why a loop is parallel: the pragma that marks it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParallelMark {
    /// The text after `#pragma`, with runs of blanks made single spaces
    /// (e.g. `omp parallel for private(j)`).
    pub directive: String,
    /// The span of the `#pragma` line (for a loop marked through
    /// `collapse(k)`, the pragma of the outermost loop).
    pub span: Range<usize>,
}

impl ParallelMark {
    /// The 1-based line of the pragma in `source`.
    pub fn line(&self, source: &str) -> usize {
        source
            .get(..self.span.start.min(source.len()))
            .map_or(1, |s| s.matches('\n').count() + 1)
    }

    /// E.g. "loop `i` is parallel (`#pragma omp parallel for` at line 23)".
    pub fn describe(&self, source: &str, iterator: &str) -> String {
        format!(
            "loop `{iterator}` is parallel (`#pragma {}` at line {})",
            self.directive,
            self.line(source)
        )
    }
}

impl Stmt {
    /// The write first, then the reads.
    pub fn accesses(&self) -> impl Iterator<Item = &Access> {
        std::iter::once(&self.write).chain(self.reads.iter())
    }

    /// The number of enclosing loops (the iterators that are not
    /// quotient dimensions).
    pub fn loop_depth(&self) -> usize {
        self.iterators.len() - self.quotients.len()
    }

    /// The iterators as C operands: the loops' names, then the quotients'
    /// texts (what printed code puts for each column).
    pub(crate) fn c_names(&self) -> Vec<String> {
        let mut out = self.iterators[..self.loop_depth()].to_vec();
        out.extend(self.quotients.iter().cloned());
        out
    }

    /// The parallel mark of the loop of iterator `index`, if any.
    pub(crate) fn parallel_mark(&self, index: usize) -> Option<&ParallelMark> {
        self.parallel.get(index).and_then(Option::as_ref)
    }
}

impl Scop {
    /// Whether the loop around statement `si` (its innermost one) contains
    /// no other loop: no statement nested deeper shares it.
    pub(crate) fn in_innermost_loop(&self, si: usize) -> bool {
        let stmt = &self.stmts[si];
        let depth = stmt.loop_depth();
        depth > 0
            && !self.stmts.iter().any(|other| {
                other.loop_depth() > depth
                    && other.schedule[..2 * depth] == stmt.schedule[..2 * depth]
            })
    }

    /// The parallel loops around the accesses of `array` (every array when
    /// `None`): iterator name and mark, in statement order, each loop once.
    pub fn parallel_loops(&self, array: Option<ArrayId>) -> Vec<(String, ParallelMark)> {
        let mut out: Vec<(String, ParallelMark)> = Vec::new();
        for s in &self.stmts {
            if let Some(a) = array
                && !s.accesses().any(|x| x.array == a)
            {
                continue;
            }
            for (k, m) in s.parallel.iter().enumerate() {
                let (Some(m), Some(it)) = (m, s.iterators.get(k)) else {
                    continue;
                };
                if !out.iter().any(|(i, q)| i == it && q == m) {
                    out.push((it.clone(), m.clone()));
                }
            }
        }
        out
    }
}

/// What a call may do to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    /// It reads and writes no memory (`sqrt`, a `const` function, a body
    /// that computes from its arguments only): it may move.
    None,
    /// It may read memory a call can reach (a `pure` function, a body
    /// that reads a global): it keeps its order with every write of such
    /// memory and with every call that may write.
    Reads,
    /// It may read and write memory a call can reach: it keeps its order
    /// with every other call that touches memory and every access to
    /// such memory.
    Writes,
}

/// Why a call has its [`Effect`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EffectSource {
    /// A standard library function known to touch no memory (`<math.h>`,
    /// the `abs` family).
    Library,
    /// `__attribute__((const))` or `((pure))` (or their C23 forms).
    Attribute,
    /// The body in this file, checked with the bodies it calls.
    Body,
    /// The body writes or reads this variable (or memory through this
    /// pointer), or calls this function.
    BodyTouches(String),
    /// No body in this file and nothing known of it.
    Unknown,
    /// Called through a pointer.
    Pointer,
}

/// One call in a statement's expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Call {
    /// The function's name (`(*fp)` for a call through a pointer).
    pub name: String,
    /// The call expression.
    pub span: Range<usize>,
    pub effect: Effect,
    pub source: EffectSource,
}

impl Call {
    /// E.g. "`noise()` may write memory (its body writes `state`)".
    pub fn describe(&self) -> String {
        let what = match self.effect {
            Effect::None => "touches no memory",
            Effect::Reads => "may read memory",
            Effect::Writes => "may write memory",
        };
        let why = match &self.source {
            EffectSource::Library => "a library function without side effects".to_string(),
            EffectSource::Attribute => "its attribute".to_string(),
            EffectSource::Body => "its body".to_string(),
            EffectSource::BodyTouches(n) => format!("its body touches `{n}`"),
            EffectSource::Unknown => "no body in this file".to_string(),
            EffectSource::Pointer => "a call through a pointer".to_string(),
        };
        format!("`{}()` {what} ({why})", self.name)
    }
}

/// Why two arrays of a SCoP may overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AliasSource {
    /// Two pointer or array parameters, neither `restrict`, and not every
    /// call site of the function is known to pass distinct objects.
    Parameters,
    /// A pointer or array parameter (not `restrict`) and a global or
    /// `static` variable a caller may pass.
    ParameterAndGlobal,
}

/// Two arrays of a SCoP that may share memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MayAlias {
    pub a: ArrayId,
    pub b: ArrayId,
    pub source: AliasSource,
}
