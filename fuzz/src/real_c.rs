//! The forms of real C of issue 45: kernels of their own ("units") that a
//! generated program carries after its main kernel, each written in one of
//! the forms that hid the issue's bugs.
//!
//! A [`Unit`] is one `static` kernel (two for `undef-macros`), the file
//! scope code it needs (state, helpers, macros, `#include`s) and the block
//! of `main` that calls it and prints every cell it may write. Names end
//! with the unit's number (`k0`, `noise0`, `LEN0`), but for the macros of
//! `undef-macros` (`N`, `M`) and `c-macros` (`RESTRICT`, `UNUSED`, `FOR`):
//! a program has at most one unit of a form, and no other code uses
//! those names; they stay defined to the end of the file unless the unit
//! ends with their `#undef` (as some do). The forms
//! ([`RealCForm`]):
//!
//! - `stateful-calls`: an LCG `noise()` or a byte reader called in two
//!   loops, a statement `bias = noise();` between loops, a loop adding into
//!   a `static` global that a later loop reads through `get_total()`; and
//!   pure helpers (a `static` function of its parameter, `sqrt` and `fabs`,
//!   an `__attribute__((const))` function) that may move;
//! - `in-place-calls`: the kernel called with one array for both
//!   parameters (`k(n, x, x)`), or overlapping parts of it (`k(n, x, x + 2)`),
//!   and `restrict` kernels called with distinct arrays only;
//! - `extreme-bases`: loops `for (i = base; i < base + n; i++)` with
//!   subscripts `i - base`, called with `base = INT_MAX - n`, `INT_MIN`
//!   and ordinary values;
//! - `long-iterators`: a `long j` loop computing `j * 1000000` next to an
//!   `int i` loop over the same range;
//! - `openmp-ifdef`: a parallel loop with per-row scratch under
//!   `#ifdef _OPENMP`, `#if USE_OMP`, `_Pragma("omp parallel for")` or a
//!   macro of it, built with and without `-fopenmp` and `-DUSE_OMP=0/1`
//!   (see [`Unit::builds`]);
//! - `declaration-effects`: a VLA whose size variable is written after the
//!   declaration (`double t[n + 8]; n = n + 4;`), and an array whose
//!   initialiser calls a stateful function (`unsigned t[64] = {
//!   next_byte(), next_byte() };`);
//! - `undef-macros`: `#undef N` / `#define N 4` between two kernels, the
//!   first using the first definition;
//! - `c-macros`: `#define RESTRICT __restrict`, an attribute macro on a
//!   parameter, loops written `FOR(i, a, b)`, `_Pragma` before a loop and
//!   before the function;
//! - issue 47, `caller-buffers`: a `static` kernel whose SCoP uses array
//!   parameters as scratch (every cell it reads written before in the
//!   call), the buffers owned by `main` ([`CallerBuffers`], [`Alloc`],
//!   [`Dims`]), with variants where the buffer escapes or carries values
//!   ([`CallerEscape`]);
//! - issue 47, `heap-buffers`: a kernel allocating its scratch with
//!   `malloc`/`calloc` and freeing it ([`HeapBuffers`], [`HeapAlloc`]),
//!   with variants where the pointer escapes ([`HeapEscape`]).
//!
//! (The units of issue 47 are marked `/* issue 45 form NAME */` too: one
//! marker for every unit.)
//!
//! Every unit is well defined at every call `main` makes (checked by
//! [`Unit::check`]: subscripts in bounds, no signed overflow in the bounds
//! at `INT_MAX` and `INT_MIN`, `restrict` arguments disjoint, no read of an
//! unwritten cell), whatever polyfold does with it; the campaign compiles
//! it with the sanitizers where a wrong fold would show only there
//! ([`Unit::needs_sanitizers`]).
//!
//! Units are drawn by [`draw_units`] from a stream of their own made from
//! the program's seed, so the main kernel of every seed is the one it was
//! before these forms existed. This module does NOT run polyfold or a
//! compiler.

use std::fmt::Write as _;

use crate::WEIGHTS;
use polyfold::util::rng::Rng;

/// The length of the arrays `main` passes to a unit's kernel.
pub const UNIT_ARRAY: i64 = 72;
/// The extent of fixed-size temporaries (and of the kernels' array
/// parameters).
const FIXED_EXTENT: i64 = 64;
/// The rows of an OpenMP unit's input.
const OMP_ROWS: i64 = 64;
/// The largest size `n` a chain kernel is called with (so that every
/// extent of [`FIXED_EXTENT`] holds the cells of a call, its late growth
/// and an overlapping argument's offset included).
const MAX_N: i64 = 24;

/// One of the forms of issue 45, each a name of `--forms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RealCForm {
    StatefulCalls,
    InPlaceCalls,
    ExtremeBases,
    LongIterators,
    OpenmpIfdef,
    DeclarationEffects,
    UndefMacros,
    CMacros,
    CallerBuffers,
    HeapBuffers,
}

impl RealCForm {
    /// Every form, in the order of `Forms::NAMES`.
    pub const ALL: [RealCForm; 10] = [
        RealCForm::StatefulCalls,
        RealCForm::InPlaceCalls,
        RealCForm::ExtremeBases,
        RealCForm::LongIterators,
        RealCForm::OpenmpIfdef,
        RealCForm::DeclarationEffects,
        RealCForm::UndefMacros,
        RealCForm::CMacros,
        RealCForm::CallerBuffers,
        RealCForm::HeapBuffers,
    ];

    /// The name of the form in `--forms`.
    pub fn name(self) -> &'static str {
        match self {
            RealCForm::StatefulCalls => "stateful-calls",
            RealCForm::InPlaceCalls => "in-place-calls",
            RealCForm::ExtremeBases => "extreme-bases",
            RealCForm::LongIterators => "long-iterators",
            RealCForm::OpenmpIfdef => "openmp-ifdef",
            RealCForm::DeclarationEffects => "declaration-effects",
            RealCForm::UndefMacros => "undef-macros",
            RealCForm::CMacros => "c-macros",
            RealCForm::CallerBuffers => "caller-buffers",
            RealCForm::HeapBuffers => "heap-buffers",
        }
    }
}

/// Something a chain stage has besides its reads of the stage before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extra {
    /// A term: the unit's stateful call (`noise0()`, `0.25 * next_byte0()`).
    StateCall,
    /// A term: a pure function of the stage before's cell `[i]`.
    PureCall(PureKind),
    /// A statement in the loop: `total0 += t1[i];`.
    AddIntoTotal,
    /// A term: `0.125 * get_total0()`.
    ReadTotal,
    /// A statement after the loop: `bias = noise0();`.
    DrawBias,
    /// A term: `bias` (a stage after one that draws it).
    Bias,
    /// A term: `0.5 * (i - base)` (or `0.5 * i` without a base).
    IteratorOffset,
    /// A term: `(double)(i % 8)`.
    IteratorModulo,
    /// A term of a `long` stage: `(double)(j * 1000000 % 1000003)`.
    LongProduct,
    /// `_Pragma("GCC unroll 4")` before the loop.
    UnrollPragma,
}

/// The pure helpers of the `stateful-calls` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PureKind {
    /// `static double sq0(double v) { return 0.125 * v * v + 1.0; }`.
    StaticHelper,
    /// `sqrt(fabs(v) + 1.0)` from `<math.h>`.
    MathLibrary,
    /// `static double scale0(double) __attribute__((const));`.
    ConstAttribute,
}

/// One loop of a chain: `target[i] = w * previous[i + o] + ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The reads of the stage before (of the source for the first stage):
    /// weight index and offset.
    pub reads: Vec<(usize, i64)>,
    pub extras: Vec<Extra>,
    /// The loop's iterator is the `long j` (`long-iterators`).
    pub long: bool,
    /// The loop is written `FOR(i, a, b)` (`c-macros`).
    pub for_macro: bool,
}

/// A chain of 2 to 4 sibling loops, each reading the one before at small
/// offsets within bounds shrunk to fit (the shape that loop shifting and
/// fusion fuses): the first reads the source, the last writes the output,
/// the others write temporaries `t0`, `t1`, ...
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    pub stages: Vec<Stage>,
    /// The constant term of the first stage.
    pub constant: i64,
}

impl Chain {
    /// The margins `(lo, hi)` of each stage: its loop runs over
    /// `lo <= i - base <= n - 1 - hi`, so that each read `i + o` lies in
    /// the stage before's range (the source's is `0..n`). Margins never
    /// decrease along the chain; they hold for every `n`.
    pub fn margins(&self) -> Vec<(i64, i64)> {
        let (mut lo, mut hi) = (0i64, 0i64);
        let mut result = Vec::new();
        for stage in &self.stages {
            let (mut new_lo, mut new_hi) = (lo, hi);
            for (_, o) in &stage.reads {
                new_lo = new_lo.max(lo - o);
                new_hi = new_hi.max(hi + o);
            }
            result.push((new_lo, new_hi));
            (lo, hi) = (new_lo, new_hi);
        }
        result
    }

    /// The largest margin of any stage.
    pub fn max_margin(&self) -> i64 {
        self.margins()
            .iter()
            .map(|(lo, hi)| (*lo).max(*hi))
            .max()
            .unwrap_or(0)
    }

    /// A chain of `stages` stages whose margins add up to at most
    /// `budget` on either side together.
    fn draw(rng: &mut Rng, stages: usize, budget: i64) -> Chain {
        let mut chain = Chain {
            stages: Vec::new(),
            constant: rng.range(-2, 2),
        };
        for _ in 0..stages {
            let n_reads = rng.range(1, 3);
            let mut stage = Stage {
                reads: Vec::new(),
                extras: Vec::new(),
                long: false,
                for_macro: false,
            };
            for _ in 0..n_reads {
                let w = rng.below(WEIGHTS.len());
                let offset = rng.range(-2, 2);
                stage.reads.push((w, offset));
                let margins = chain_with(&chain, &stage).margins();
                let (lo, hi) = margins[margins.len() - 1];
                if lo + hi > budget {
                    stage.reads.last_mut().expect("just pushed").1 = 0;
                }
                let offsets: Vec<i64> = stage.reads.iter().map(|r| r.1).collect();
                if offsets[..offsets.len() - 1].contains(&offsets[offsets.len() - 1]) {
                    stage.reads.pop();
                }
            }
            chain.stages.push(stage);
        }
        chain
    }
}

/// `chain` with `stage` appended.
fn chain_with(chain: &Chain, stage: &Stage) -> Chain {
    let mut copy = chain.clone();
    copy.stages.push(stage.clone());
    copy
}

/// How a chain's temporaries are declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// `double t0[64]`.
    Fixed,
    /// `double t0[n]`.
    Vla,
    /// `double t0[LEN0]` with `#define LEN0 64`.
    Macro,
}

/// The state of a `stateful-calls` or initialiser unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// `static unsigned state0 = SEED;` and `noise0()`, an LCG.
    Lcg { seed: u32 },
    /// `next_byte0()`, reading a constant table in a circle.
    Bytes { data: Vec<u8> },
    /// `static double total0;`, read by `get_total0()`.
    Total,
    /// No state: pure helpers only.
    PureOnly,
}

/// How an in-place unit declares its array parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InPlaceParams {
    /// `const double in[64], double out[64]`.
    Fixed,
    /// `const double in[n], double out[n]`.
    Vla,
    /// `const double in[restrict 64], double out[restrict 64]`.
    RestrictArrays,
    /// `const double *restrict in, double *restrict out`.
    RestrictPointers,
}

impl InPlaceParams {
    fn is_restrict(self) -> bool {
        matches!(
            self,
            InPlaceParams::RestrictArrays | InPlaceParams::RestrictPointers
        )
    }
}

/// Where an OpenMP unit's parallel pragma is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OmpSpelling {
    /// `#ifdef _OPENMP` (or `#if defined(_OPENMP)`) around the pragma.
    Ifdef { defined: bool },
    /// `#if USE_OMP` around the pragma; with `default_on`, the unit
    /// defines `USE_OMP` to 1 unless `-D` gives it.
    UseOmp { default_on: bool },
    /// `_Pragma("omp parallel for ...")` before the loop.
    PragmaOperator,
    /// A macro `PARALLEL_FOR0` that is the `_Pragma` under `_OPENMP` and
    /// nothing otherwise.
    Macro,
}

/// The per-row scratch of an OpenMP unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scratch {
    /// `double t[64][C]` at the top, row `t[i]` per iteration.
    Rows,
    /// `double t[C]` at the top, `private(j, t)`.
    Private,
    /// `double t[C]` declared in the loop body.
    Block,
}

/// The bound of an OpenMP unit's parallel loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowBound {
    /// `i < n`.
    Parameter,
    /// `i < 64`.
    Literal,
    /// `i < ROWS0` with `#define ROWS0 64`.
    Macro,
}

/// How a late-VLA unit writes its size after the declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeWrite {
    /// `n = n + D;`.
    Assign,
    /// `n += D;`.
    Compound,
    /// `n++;` (D = 1).
    Increment,
}

/// The element type of an initialised temporary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    Unsigned,
    Int,
    Double,
}

impl Element {
    fn c_type(self) -> &'static str {
        match self {
            Element::Unsigned => "unsigned",
            Element::Int => "int",
            Element::Double => "double",
        }
    }
}

/// The value of a macro of an `undef-macros` unit: `#define N 6` or
/// `#define N (2 + 4)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacroValue {
    pub value: i64,
    pub as_sum: bool,
}

impl MacroValue {
    fn text(self) -> String {
        if self.as_sum && self.value >= 2 {
            format!("(2 + {})", self.value - 2)
        } else {
            self.value.to_string()
        }
    }
}

/// The kernel of one side of an `undef-macros` unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacroShape {
    /// A chain over `N`, temporaries `double t0[N]`.
    Chain(Chain),
    /// `t[N][M]`, each row from the one before.
    Rows { weights: [usize; 3] },
    /// `t[N * M]` written `t[M * i + j]` from `t[M * (i - 1) + j]`.
    Linear { weights: [usize; 3] },
}

/// The parameters of a `c-macros` unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacroParams {
    /// `const double *RESTRICT in, double *RESTRICT out`.
    Pointers,
    /// `const double in[RESTRICT 64], double out[RESTRICT 64]`.
    Arrays,
}

/// What a unit is, per form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitKind {
    Stateful {
        state: State,
        chain: Chain,
        extent: Extent,
    },
    InPlace {
        chain: Chain,
        params: InPlaceParams,
        /// The kernel has external linkage (no `static`).
        external: bool,
        extent: Extent,
    },
    ExtremeBases {
        chain: Chain,
        less_equal: bool,
        extent: Extent,
    },
    LongIterators {
        chain: Chain,
        less_equal: bool,
        extent: Extent,
    },
    Openmp {
        spelling: OmpSpelling,
        scratch: Scratch,
        columns: i64,
        /// A second loop `t[j] = t[j] + w * t[j - 1]`.
        recurrence: bool,
        /// The fold reads `t[C - 1 - j]`.
        reversed: bool,
        /// `schedule(static, 1)`.
        chunked: bool,
        weights: [usize; 3],
        /// The parallel loop's bound: `n`, the literal 64 or `ROWS0`.
        rows: RowBound,
        /// The row's loops are one loop over `j` (fill, recurrence from
        /// `t[j - 1]` under `if (j >= 1)`, fold), whose scratch folds to a
        /// cell or two when the rows are known.
        one_loop: bool,
    },
    /// `double t0[n + extra]; n = n + delta;` then a chain over `n`.
    LateVla {
        chain: Chain,
        extra: i64,
        delta: i64,
        write: SizeWrite,
    },
    /// `double t[r][n + extra]; n = n + delta;` then rows, each from the
    /// one before.
    LateVlaRows {
        extra: i64,
        delta: i64,
        write: SizeWrite,
        weights: [usize; 3],
    },
    /// `unsigned t0[64] = { next_byte0(), next_byte0() };` then a chain
    /// that writes every cell it reads.
    InitCalls {
        chain: Chain,
        element: Element,
        state: State,
        init_calls: usize,
    },
    Undef {
        /// `N` before and after the `#undef`.
        n: [MacroValue; 2],
        /// `M` before and after (the same when `redefine_m` is false).
        m: [MacroValue; 2],
        redefine_m: bool,
        shapes: [MacroShape; 2],
        /// `#undef N` and `#undef M` at the end of the unit (otherwise the
        /// later definitions stay in force to the end of the file).
        trailing_undef: bool,
    },
    CMacros {
        chain: Chain,
        params: MacroParams,
        restrict: &'static str,
        /// `int flag UNUSED` instead of `UNUSED int flag`.
        attribute_after: bool,
        /// `_Pragma("GCC diagnostic push")` before the function.
        pragma_function: bool,
        /// `#undef` of the three macros at the end of the unit.
        trailing_undef: bool,
    },
    /// Issue 47: a kernel whose scratch is an array parameter, owned by
    /// `main` (see [`CallerBuffers`]).
    CallerBuffers(CallerBuffers),
    /// Issue 47: a kernel that allocates its scratch on the heap and frees
    /// it (see [`HeapBuffers`]).
    HeapBuffers(HeapBuffers),
}

/// A base value of the `extreme-bases` and `long-iterators` forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    Value(i64),
    /// `INT_MAX - n - c`.
    BelowIntMax(i64),
    /// `INT_MIN + c`.
    AboveIntMin(i64),
}

impl Base {
    /// The value for the size `n`.
    pub fn value(self, n: i64) -> i64 {
        match self {
            Base::Value(v) => v,
            Base::BelowIntMax(c) => i64::from(i32::MAX) - n - c,
            Base::AboveIntMin(c) => i64::from(i32::MIN) + c,
        }
    }

    fn text(self, n: i64) -> String {
        match self {
            Base::Value(v) => v.to_string(),
            Base::BelowIntMax(c) => format!("INT_MAX - {}", n + c),
            Base::AboveIntMin(0) => "INT_MIN".to_string(),
            Base::AboveIntMin(c) => format!("INT_MIN + {c}"),
        }
    }
}

/// An array argument of an in-place call: `x0 + offset` or `y0 + offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    pub second: bool,
    pub offset: i64,
}

/// One call of a unit's kernel by `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitCall {
    pub n: i64,
    pub base: Base,
    pub input: Arg,
    pub output: Arg,
    /// The rows (`LateVlaRows`), the repetitions (OpenMP), the flag
    /// (`c-macros`) or which kernel (`undef-macros`: 0 or 1).
    pub other: i64,
}

impl UnitCall {
    fn plain(n: i64) -> UnitCall {
        UnitCall {
            n,
            base: Base::Value(0),
            input: Arg {
                second: false,
                offset: 0,
            },
            output: Arg {
                second: true,
                offset: 0,
            },
            other: 0,
        }
    }
}

/// Another build of a program for a unit: flags and environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitBuild {
    pub flags: Vec<String>,
    pub env: Vec<(String, String)>,
    /// How many times the output runs (see `check::Build::runs`).
    pub runs: usize,
}

/// One unit: a kernel in a form of issue 45 and the calls of `main`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The unit's number in its program: its names end with it.
    pub number: usize,
    pub kind: UnitKind,
    pub calls: Vec<UnitCall>,
}

/// Why a unit is not well defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitIllDefined(pub String);

impl Unit {
    /// The form the unit writes.
    pub fn form(&self) -> RealCForm {
        match &self.kind {
            UnitKind::Stateful { .. } => RealCForm::StatefulCalls,
            UnitKind::InPlace { .. } => RealCForm::InPlaceCalls,
            UnitKind::ExtremeBases { .. } => RealCForm::ExtremeBases,
            UnitKind::LongIterators { .. } => RealCForm::LongIterators,
            UnitKind::Openmp { .. } => RealCForm::OpenmpIfdef,
            UnitKind::LateVla { .. }
            | UnitKind::LateVlaRows { .. }
            | UnitKind::InitCalls { .. } => RealCForm::DeclarationEffects,
            UnitKind::Undef { .. } => RealCForm::UndefMacros,
            UnitKind::CMacros { .. } => RealCForm::CMacros,
            UnitKind::CallerBuffers(_) => RealCForm::CallerBuffers,
            UnitKind::HeapBuffers(_) => RealCForm::HeapBuffers,
        }
    }

    /// Whether a wrong fold of this unit may show only under the
    /// sanitizers (an overflow that wraps to the right value, a VLA
    /// overrun that reads stale cells): the campaign builds such programs
    /// with `-fsanitize=address,undefined` always.
    pub fn needs_sanitizers(&self) -> bool {
        matches!(
            self.form(),
            RealCForm::ExtremeBases
                | RealCForm::LongIterators
                | RealCForm::DeclarationEffects
                | RealCForm::CallerBuffers
                | RealCForm::HeapBuffers
        )
    }

    /// The other builds this unit needs: for OpenMP, `-fopenmp` with 4
    /// threads, again at `-O0` (shared scratch kept in memory, so that a
    /// race shows in the values: at `-O1` each thread keeps it in a
    /// register), the `-DUSE_OMP` choices, and ThreadSanitizer when
    /// `thread_sanitizer` (the compiler's runtime cooperates).
    pub fn builds(&self, thread_sanitizer: bool) -> Vec<UnitBuild> {
        let UnitKind::Openmp { spelling, .. } = &self.kind else {
            return Vec::new();
        };
        let threads = vec![("OMP_NUM_THREADS".to_string(), "4".to_string())];
        // The `-O0` OpenMP builds run eight times: a race on a shared
        // scratch shows in some runs only.
        let build = |flags: &[&str], env: bool| UnitBuild {
            flags: flags.iter().map(|f| f.to_string()).collect(),
            env: if env { threads.clone() } else { Vec::new() },
            runs: if flags.contains(&"-O0") { 8 } else { 1 },
        };
        let mut builds = match spelling {
            OmpSpelling::UseOmp { default_on: true } => vec![
                build(&["-fopenmp"], true),
                build(&["-fopenmp", "-O0"], true),
                build(&["-fopenmp", "-DUSE_OMP=0"], true),
                build(&["-DUSE_OMP=1"], false),
            ],
            OmpSpelling::UseOmp { default_on: false } => vec![
                build(&["-fopenmp"], true),
                build(&["-fopenmp", "-DUSE_OMP=1"], true),
                build(&["-fopenmp", "-O0", "-DUSE_OMP=1"], true),
                build(&["-DUSE_OMP=1"], false),
            ],
            _ => vec![
                build(&["-fopenmp"], true),
                build(&["-fopenmp", "-O0"], true),
            ],
        };
        if thread_sanitizer {
            let mut flags = vec!["-fopenmp", "-fsanitize=thread"];
            if *spelling == (OmpSpelling::UseOmp { default_on: false }) {
                flags.push("-DUSE_OMP=1");
            }
            builds.push(build(&flags, true));
        }
        builds
    }

    /// Checks that every call of `main` is well defined: sizes within the
    /// arrays, bounds and subscripts free of signed overflow, `restrict`
    /// arguments disjoint, every cell read written before.
    pub fn check(&self) -> Result<(), UnitIllDefined> {
        let fail = |why: String| Err(UnitIllDefined(why));
        if self.calls.is_empty() {
            return fail("no call".into());
        }
        if let Some(chain) = self.chain() {
            check_chain(chain)?;
        }
        for call in &self.calls {
            if call.n < 1 {
                return fail(format!("size {} below 1", call.n));
            }
            match &self.kind {
                UnitKind::Stateful { .. } | UnitKind::CMacros { .. } => {
                    if call.n > MAX_N {
                        return fail(format!("size {} too big", call.n));
                    }
                }
                UnitKind::InPlace { params, .. } => check_in_place(*params, call)?,
                UnitKind::ExtremeBases {
                    chain, less_equal, ..
                }
                | UnitKind::LongIterators {
                    chain, less_equal, ..
                } => check_bases(chain, *less_equal, call)?,
                UnitKind::Openmp { .. } => {
                    if call.n > OMP_ROWS || call.other < 1 {
                        return fail(format!("rows {} or repetitions {}", call.n, call.other));
                    }
                }
                UnitKind::LateVla { extra, delta, .. } => {
                    if *delta > *extra || *delta < 1 || call.n + extra > FIXED_EXTENT {
                        return fail(format!("late growth {delta} of extra {extra}"));
                    }
                }
                UnitKind::LateVlaRows { extra, delta, .. } => {
                    if *delta > *extra || *delta < 1 || !(1..=8).contains(&call.other) {
                        return fail(format!("late growth {delta}, rows {}", call.other));
                    }
                    if call.n + extra + call.other > FIXED_EXTENT {
                        return fail("rows read past the input".into());
                    }
                }
                UnitKind::InitCalls { init_calls, .. } => {
                    if call.n > MAX_N || !(1..=3).contains(init_calls) {
                        return fail("initialiser or size".into());
                    }
                }
                UnitKind::Undef { .. } => {
                    if !(0..=1).contains(&call.other) {
                        return fail("no such kernel".into());
                    }
                }
                UnitKind::CallerBuffers(c) => c.check_call(call).map_err(UnitIllDefined)?,
                UnitKind::HeapBuffers(h) => h.check_call(call).map_err(UnitIllDefined)?,
            }
        }
        if let UnitKind::Undef { n, m, .. } = &self.kind {
            let fits = |v: &MacroValue| (1..=16).contains(&v.value);
            if !n.iter().chain(m.iter()).all(fits) {
                return fail("macro value out of range".into());
            }
        }
        Ok(())
    }

    /// The chain of a chain-based unit.
    fn chain(&self) -> Option<&Chain> {
        match &self.kind {
            UnitKind::Stateful { chain, .. }
            | UnitKind::InPlace { chain, .. }
            | UnitKind::ExtremeBases { chain, .. }
            | UnitKind::LongIterators { chain, .. }
            | UnitKind::LateVla { chain, .. }
            | UnitKind::InitCalls { chain, .. }
            | UnitKind::CMacros { chain, .. } => Some(chain),
            UnitKind::CallerBuffers(CallerBuffers {
                shape: BufferShape::Chain(chain),
                ..
            })
            | UnitKind::HeapBuffers(HeapBuffers {
                shape: BufferShape::Chain(chain),
                ..
            }) => Some(chain),
            _ => None,
        }
    }

    fn chain_mut(&mut self) -> Option<&mut Chain> {
        match &mut self.kind {
            UnitKind::Stateful { chain, .. }
            | UnitKind::InPlace { chain, .. }
            | UnitKind::ExtremeBases { chain, .. }
            | UnitKind::LongIterators { chain, .. }
            | UnitKind::LateVla { chain, .. }
            | UnitKind::InitCalls { chain, .. }
            | UnitKind::CMacros { chain, .. } => Some(chain),
            UnitKind::CallerBuffers(CallerBuffers {
                shape: BufferShape::Chain(chain),
                ..
            })
            | UnitKind::HeapBuffers(HeapBuffers {
                shape: BufferShape::Chain(chain),
                ..
            }) => Some(chain),
            _ => None,
        }
    }

    /// The `k`-th simplification of the unit for the minimiser (drop a
    /// call, a stage, an extra, a read, the constant, an option), or
    /// `None` when there is no such edit. The result may be ill defined:
    /// the caller checks it.
    pub fn simplified(&self, k: usize) -> Option<Unit> {
        let mut k = k;
        if self.calls.len() > 1 {
            if k < self.calls.len() {
                let mut copy = self.clone();
                copy.calls.remove(k);
                return Some(copy);
            }
            k -= self.calls.len();
        }
        if let Some(chain) = self.chain() {
            let edit = *chain_edits(chain).get(k)?;
            let mut copy = self.clone();
            if let Some(c) = copy.chain_mut() {
                match edit {
                    ChainDrop::Stage(s) => {
                        c.stages.remove(s);
                    }
                    ChainDrop::Extra(s, e) => {
                        c.stages[s].extras.remove(e);
                    }
                    ChainDrop::Read(s, r) => {
                        c.stages[s].reads.remove(r);
                    }
                    ChainDrop::Constant => c.constant = 0,
                }
            }
            return Some(copy);
        }
        if let UnitKind::Openmp {
            recurrence,
            reversed,
            chunked,
            ..
        } = &self.kind
        {
            let on: Vec<usize> = [*recurrence, *reversed, *chunked]
                .iter()
                .enumerate()
                .filter(|(_, b)| **b)
                .map(|(i, _)| i)
                .collect();
            let which = *on.get(k)?;
            let mut copy = self.clone();
            if let UnitKind::Openmp {
                recurrence,
                reversed,
                chunked,
                ..
            } = &mut copy.kind
            {
                match which {
                    0 => *recurrence = false,
                    1 => *reversed = false,
                    _ => *chunked = false,
                }
            }
            return Some(copy);
        }
        None
    }
}

/// What a simplification of a chain for the minimiser drops.
#[derive(Clone, Copy, Debug)]
enum ChainDrop {
    /// A stage but the last (the next one reads what it read).
    Stage(usize),
    Extra(usize, usize),
    Read(usize, usize),
    Constant,
}

/// The simplifications of `chain`: stages (while more than two remain),
/// extras, reads (while more than one remains), the constant.
fn chain_edits(chain: &Chain) -> Vec<ChainDrop> {
    let mut edits = Vec::new();
    if chain.stages.len() > 2 {
        edits.extend((0..chain.stages.len() - 1).map(ChainDrop::Stage));
    }
    for (s, stage) in chain.stages.iter().enumerate() {
        edits.extend((0..stage.extras.len()).map(|e| ChainDrop::Extra(s, e)));
        if stage.reads.len() > 1 {
            edits.extend((0..stage.reads.len()).map(|r| ChainDrop::Read(s, r)));
        }
    }
    if chain.constant != 0 {
        edits.push(ChainDrop::Constant);
    }
    edits
}

/// Checks the chain's own rules: two stages at least, one read per
/// stage, a `bias` read only after a stage that draws it, `long`
/// products on `long` stages only.
fn check_chain(chain: &Chain) -> Result<(), UnitIllDefined> {
    if chain.stages.len() < 2 {
        return Err(UnitIllDefined("a chain of one stage".into()));
    }
    let mut drawn = false;
    for stage in &chain.stages {
        if stage.reads.is_empty() {
            return Err(UnitIllDefined("a stage without a read".into()));
        }
        if stage.extras.contains(&Extra::Bias) && !drawn {
            return Err(UnitIllDefined("bias read before it is drawn".into()));
        }
        if stage.extras.contains(&Extra::LongProduct) && !stage.long {
            return Err(UnitIllDefined("a long product in an int loop".into()));
        }
        drawn |= stage.extras.contains(&Extra::DrawBias);
    }
    Ok(())
}

/// Checks an in-place call: both arguments hold `n` cells, and the
/// arguments of a `restrict` kernel do not overlap.
fn check_in_place(params: InPlaceParams, call: &UnitCall) -> Result<(), UnitIllDefined> {
    let n = call.n;
    for arg in [call.input, call.output] {
        if arg.offset < 0 || arg.offset + n > UNIT_ARRAY || n > MAX_N {
            return Err(UnitIllDefined(format!("argument offset {}", arg.offset)));
        }
    }
    if params.is_restrict() && call.input.second == call.output.second {
        let (a, b) = (call.input.offset, call.output.offset);
        if a < b + n && b < a + n {
            return Err(UnitIllDefined("restrict arguments overlap".into()));
        }
    }
    Ok(())
}

/// Checks a call of a kernel with a base: every bound the original
/// evaluates (`base + lo`, `base + n`, `base + n - hi`, the iterator after
/// its last step) fits in an `int`, and `n` fits the arrays.
fn check_bases(chain: &Chain, less_equal: bool, call: &UnitCall) -> Result<(), UnitIllDefined> {
    let n = call.n;
    if n > MAX_N {
        return Err(UnitIllDefined(format!("size {n} too big")));
    }
    let base = call.base.value(n);
    let int = i64::from(i32::MIN)..=i64::from(i32::MAX);
    let mut values = vec![base, base + n];
    for (lo, hi) in chain.margins() {
        values.push(base + lo);
        let upper = if less_equal {
            base + n - (hi + 1)
        } else {
            base + n - hi
        };
        values.push(upper);
        // `<=`: the iterator steps once past the upper bound.
        if less_equal {
            values.push(upper + 1);
        }
    }
    match values.iter().find(|v| !int.contains(v)) {
        Some(v) => Err(UnitIllDefined(format!(
            "{v} overflows an int (base {base}, n {n})"
        ))),
        None => Ok(()),
    }
}

/// `text + c`, `text - c` or `text`.
fn plus(text: &str, c: i64) -> String {
    match c.cmp(&0) {
        std::cmp::Ordering::Equal => text.to_string(),
        std::cmp::Ordering::Greater => format!("{text} + {c}"),
        std::cmp::Ordering::Less => format!("{text} - {}", -c),
    }
}

/// How a chain is printed: the names around it and the form's choices.
struct ChainText<'a> {
    unit: usize,
    /// The size variable or macro (`n`, `N`).
    size: &'a str,
    /// Subscripts `i - base + o`, bounds `base + lo`, `base + n - hi`.
    base: bool,
    less_equal: bool,
    source: &'a str,
    output: &'a str,
    /// The unit's stateful call, as a term (`noise0()`,
    /// `0.25 * next_byte0()`).
    state_call: String,
    /// The first stage writes integers: `(unsigned)(64.0 + ...)`.
    cast: Option<&'a str>,
    indent: &'a str,
}

impl ChainText<'_> {
    fn print(&self, chain: &Chain, out: &mut String) {
        let margins = chain.margins();
        let last = chain.stages.len() - 1;
        for (s, stage) in chain.stages.iter().enumerate() {
            let var = if stage.long { "j" } else { "i" };
            let target = if s == last {
                self.output.to_string()
            } else {
                format!("t{s}")
            };
            let previous = if s == 0 {
                self.source.to_string()
            } else {
                format!("t{}", s - 1)
            };
            let index = |o: i64| {
                if self.base {
                    plus(&format!("{var} - base"), o)
                } else {
                    plus(var, o)
                }
            };
            let mut terms: Vec<String> = stage
                .reads
                .iter()
                .map(|(w, o)| format!("{} * {previous}[{}]", WEIGHTS[*w], index(*o)))
                .collect();
            for extra in &stage.extras {
                if let Some(term) = self.term(*extra, var, &previous, &index(0)) {
                    terms.push(term);
                }
            }
            if s == 0 && chain.constant != 0 {
                terms.push(format!("{}.0", chain.constant));
            }
            let mut rhs = terms.join(" + ");
            if let (0, Some(cast)) = (s, self.cast) {
                rhs = format!("({cast})(64.0 + {rhs})");
            }
            let (lo, hi) = margins[s];
            let header = self.header(stage, var, lo, hi);
            let indent = self.indent;
            if stage.extras.contains(&Extra::UnrollPragma) {
                let _ = writeln!(out, "{indent}_Pragma(\"GCC unroll 4\")");
            }
            let assignment = format!("{target}[{}] = {rhs};", index(0));
            if stage.extras.contains(&Extra::AddIntoTotal) {
                let _ = writeln!(out, "{indent}{header} {{");
                let _ = writeln!(out, "{indent}    {assignment}");
                let _ = writeln!(
                    out,
                    "{indent}    total{} += {target}[{}];",
                    self.unit,
                    index(0)
                );
                let _ = writeln!(out, "{indent}}}");
            } else {
                let _ = writeln!(out, "{indent}{header}");
                let _ = writeln!(out, "{indent}    {assignment}");
            }
            if stage.extras.contains(&Extra::DrawBias) {
                let _ = writeln!(out, "{indent}bias = {};", self.state_call);
            }
        }
    }

    /// The term of an extra (`None` for statements and pragmas).
    fn term(&self, extra: Extra, var: &str, previous: &str, here: &str) -> Option<String> {
        let u = self.unit;
        Some(match extra {
            Extra::StateCall => self.state_call.clone(),
            Extra::PureCall(PureKind::StaticHelper) => format!("0.5 * sq{u}({previous}[{here}])"),
            Extra::PureCall(PureKind::MathLibrary) => {
                format!("0.5 * sqrt(fabs({previous}[{here}]) + 1.0)")
            }
            Extra::PureCall(PureKind::ConstAttribute) => format!("scale{u}({previous}[{here}])"),
            Extra::ReadTotal => format!("0.125 * get_total{u}()"),
            Extra::Bias => "bias".to_string(),
            Extra::IteratorOffset => {
                if self.base {
                    format!("0.5 * ({var} - base)")
                } else {
                    format!("0.5 * {var}")
                }
            }
            Extra::IteratorModulo => format!("(double)({var} % 8)"),
            Extra::LongProduct => format!("(double)({var} * 1000000 % 1000003)"),
            Extra::AddIntoTotal | Extra::DrawBias | Extra::UnrollPragma => return None,
        })
    }

    fn header(&self, stage: &Stage, var: &str, lo: i64, hi: i64) -> String {
        let size = self.size;
        let (lower, end) = if self.base {
            (plus("base", lo), format!("base + {size}"))
        } else {
            (lo.to_string(), size.to_string())
        };
        if stage.for_macro {
            return format!("FOR({var}, {lower}, {})", plus(&end, -hi));
        }
        if self.less_equal {
            format!(
                "for ({var} = {lower}; {var} <= {}; {var}++)",
                plus(&end, -(hi + 1))
            )
        } else {
            format!(
                "for ({var} = {lower}; {var} < {}; {var}++)",
                plus(&end, -hi)
            )
        }
    }
}

/// The declarations of a chain's temporaries `t0`, `t1`, ... (`extent`
/// gives the text inside the brackets).
fn temporaries(chain: &Chain, element: &str, extent: &str, out: &mut String) {
    let names: Vec<String> = (0..chain.stages.len() - 1)
        .map(|s| format!("t{s}[{extent}]"))
        .collect();
    let _ = writeln!(out, "    {element} {};", names.join(", "));
}

fn extent_text(extent: Extent, unit: usize) -> String {
    match extent {
        Extent::Fixed => FIXED_EXTENT.to_string(),
        Extent::Vla => "n".to_string(),
        Extent::Macro => format!("LEN{unit}"),
    }
}

/// The iterator declarations of a chain (`int i;`, `long j;`).
fn iterators(chain: &Chain, out: &mut String) {
    if chain.stages.iter().any(|s| !s.long) {
        out.push_str("    int i;\n");
    }
    if chain.stages.iter().any(|s| s.long) {
        out.push_str("    long j;\n");
    }
}

impl Unit {
    /// The file-scope text of the unit: its state, helpers, macros and
    /// kernels (ending with the `#undef`s of its macros).
    pub fn file_text(&self) -> String {
        let u = self.number;
        let mut out = format!("/* issue 45 form {} (unit {u}) */\n", self.form().name());
        match &self.kind {
            UnitKind::Stateful {
                state,
                chain,
                extent,
            } => {
                self.state_text(state, chain, &mut out);
                self.extent_macro(*extent, &mut out);
                let _ = writeln!(
                    out,
                    "static void k{u}(int n, const double in[{FIXED_EXTENT}], double out[{FIXED_EXTENT}])\n{{"
                );
                temporaries(chain, "double", &extent_text(*extent, u), &mut out);
                if chain_has(chain, Extra::DrawBias) {
                    out.push_str("    double bias;\n");
                }
                iterators(chain, &mut out);
                out.push('\n');
                if *state == State::Total {
                    let _ = writeln!(out, "    total{u} = 0.0;");
                }
                self.chain_text("n", false, false, None, state)
                    .print(chain, &mut out);
                out.push_str("}\n");
            }
            UnitKind::InPlace {
                chain,
                params,
                external,
                extent,
            } => {
                self.extent_macro(*extent, &mut out);
                let storage = if *external { "" } else { "static " };
                let e = FIXED_EXTENT;
                let parameters = match params {
                    InPlaceParams::Fixed => format!("const double in[{e}], double out[{e}]"),
                    InPlaceParams::Vla => "const double in[n], double out[n]".to_string(),
                    InPlaceParams::RestrictArrays => {
                        format!("const double in[restrict {e}], double out[restrict {e}]")
                    }
                    InPlaceParams::RestrictPointers => {
                        "const double *restrict in, double *restrict out".to_string()
                    }
                };
                let _ = writeln!(out, "{storage}void k{u}(int n, {parameters})\n{{");
                temporaries(chain, "double", &extent_text(*extent, u), &mut out);
                iterators(chain, &mut out);
                out.push('\n');
                self.chain_text("n", false, false, None, &State::PureOnly)
                    .print(chain, &mut out);
                out.push_str("}\n");
            }
            UnitKind::ExtremeBases {
                chain,
                less_equal,
                extent,
            }
            | UnitKind::LongIterators {
                chain,
                less_equal,
                extent,
            } => {
                out.push_str("#include <limits.h>\n");
                self.extent_macro(*extent, &mut out);
                let _ = writeln!(
                    out,
                    "static void k{u}(int n, int base, const double in[{FIXED_EXTENT}], double out[{FIXED_EXTENT}])\n{{"
                );
                temporaries(chain, "double", &extent_text(*extent, u), &mut out);
                iterators(chain, &mut out);
                out.push('\n');
                self.chain_text("n", true, *less_equal, None, &State::PureOnly)
                    .print(chain, &mut out);
                out.push_str("}\n");
            }
            UnitKind::Openmp { .. } => self.openmp_text(&mut out),
            UnitKind::LateVla {
                chain,
                extra,
                delta,
                write,
            } => {
                let _ = writeln!(
                    out,
                    "static void k{u}(int n, const double in[{FIXED_EXTENT}], double out[{FIXED_EXTENT}])\n{{"
                );
                temporaries(chain, "double", &format!("n + {extra}"), &mut out);
                iterators(chain, &mut out);
                out.push('\n');
                let _ = writeln!(out, "    {}", size_write("n", *write, *delta));
                self.chain_text("n", false, false, None, &State::PureOnly)
                    .print(chain, &mut out);
                out.push_str("}\n");
            }
            UnitKind::LateVlaRows { .. } => self.late_rows_text(&mut out),
            UnitKind::InitCalls {
                chain,
                element,
                state,
                init_calls,
            } => {
                self.state_text(state, chain, &mut out);
                let _ = writeln!(
                    out,
                    "static void k{u}(int n, const double in[{FIXED_EXTENT}], double out[{FIXED_EXTENT}])\n{{"
                );
                let call = state_call(state, u);
                let init: Vec<String> = (0..*init_calls).map(|_| call.clone()).collect();
                let e = FIXED_EXTENT;
                let _ = writeln!(
                    out,
                    "    {} t0[{e}] = {{ {} }};",
                    element.c_type(),
                    init.join(", ")
                );
                for s in 1..chain.stages.len() - 1 {
                    let _ = writeln!(out, "    double t{s}[{e}];");
                }
                iterators(chain, &mut out);
                out.push('\n');
                let cast = (*element != Element::Double).then_some(element.c_type());
                self.chain_text("n", false, false, cast, &State::PureOnly)
                    .print(chain, &mut out);
                out.push_str("}\n");
            }
            UnitKind::Undef { .. } => self.undef_text(&mut out),
            UnitKind::CMacros { .. } => self.macros_text(&mut out),
            UnitKind::CallerBuffers(c) => c.file_text(u, &mut out),
            UnitKind::HeapBuffers(h) => h.file_text(u, &mut out),
        }
        out
    }

    fn chain_text<'a>(
        &self,
        size: &'a str,
        base: bool,
        less_equal: bool,
        cast: Option<&'a str>,
        state: &State,
    ) -> ChainText<'a> {
        let call = match state {
            State::Bytes { .. } => format!("0.25 * {}", state_call(state, self.number)),
            _ => state_call(state, self.number),
        };
        ChainText {
            unit: self.number,
            size,
            base,
            less_equal,
            source: "in",
            output: "out",
            state_call: call,
            cast,
            indent: "    ",
        }
    }

    fn extent_macro(&self, extent: Extent, out: &mut String) {
        if extent == Extent::Macro {
            let _ = writeln!(out, "#define LEN{} {FIXED_EXTENT}", self.number);
        }
    }

    /// The state and the helpers of a stateful unit.
    fn state_text(&self, state: &State, chain: &Chain, out: &mut String) {
        let u = self.number;
        match state {
            State::Lcg { seed } => {
                let _ = write!(
                    out,
                    "static unsigned state{u} = {seed}u;\n\n\
                     static double noise{u}(void)\n{{\n    \
                     state{u} = state{u} * 1103515245u + 12345u;\n    \
                     return (double)((state{u} >> 16) & 1023u) / 1024.0;\n}}\n\n"
                );
            }
            State::Bytes { data } => {
                let bytes: Vec<String> = data.iter().map(|b| b.to_string()).collect();
                let len = data.len();
                let _ = write!(
                    out,
                    "static const unsigned char bytes{u}[{len}] = {{ {} }};\n\
                     static int pos{u};\n\n\
                     static int next_byte{u}(void)\n{{\n    \
                     int b = bytes{u}[pos{u}];\n    \
                     pos{u} = (pos{u} + 1) % {len};\n    \
                     return b;\n}}\n\n",
                    bytes.join(", ")
                );
            }
            State::Total => {
                let _ = write!(
                    out,
                    "static double total{u};\n\n\
                     static double get_total{u}(void)\n{{\n    return total{u};\n}}\n\n"
                );
            }
            State::PureOnly => {}
        }
        let pure = |kind| chain_has(chain, Extra::PureCall(kind));
        if pure(PureKind::MathLibrary) {
            out.push_str("#include <math.h>\n");
        }
        if pure(PureKind::StaticHelper) {
            let _ = write!(
                out,
                "static double sq{u}(double v)\n{{\n    return 0.125 * v * v + 1.0;\n}}\n\n"
            );
        }
        if pure(PureKind::ConstAttribute) {
            let _ = write!(
                out,
                "static double scale{u}(double v) __attribute__((const));\n\n\
                 static double scale{u}(double v)\n{{\n    return 0.75 * v - 1.0;\n}}\n\n"
            );
        }
    }
}

/// Whether some stage of `chain` has `extra`.
fn chain_has(chain: &Chain, extra: Extra) -> bool {
    chain.stages.iter().any(|s| s.extras.contains(&extra))
}

/// The call expression of a state: `noise0()` or `next_byte0()`.
fn state_call(state: &State, unit: usize) -> String {
    match state {
        State::Lcg { .. } => format!("noise{unit}()"),
        State::Bytes { .. } => format!("next_byte{unit}()"),
        _ => String::new(),
    }
}

/// The statement that grows a size after its declaration.
fn size_write(name: &str, write: SizeWrite, delta: i64) -> String {
    match write {
        SizeWrite::Assign => format!("{name} = {name} + {delta};"),
        SizeWrite::Compound => format!("{name} += {delta};"),
        SizeWrite::Increment => format!("{name}++;"),
    }
}

impl Unit {
    /// The kernel of an OpenMP unit: a parallel loop over rows, each
    /// filling a scratch row from the input, maybe running a recurrence
    /// over it, and folding it into `out[i]`.
    fn openmp_text(&self, out: &mut String) {
        let UnitKind::Openmp {
            spelling,
            scratch,
            columns,
            recurrence,
            reversed,
            chunked,
            weights,
            rows,
            one_loop,
        } = &self.kind
        else {
            return;
        };
        let u = self.number;
        let c = *columns;
        if *rows == RowBound::Macro {
            let _ = writeln!(out, "#define ROWS{u} {OMP_ROWS}");
        }
        let bound = match rows {
            RowBound::Parameter => "n".to_string(),
            RowBound::Literal => OMP_ROWS.to_string(),
            RowBound::Macro => format!("ROWS{u}"),
        };
        let private = if *scratch == Scratch::Private {
            "j, t"
        } else {
            "j"
        };
        let schedule = if *chunked { " schedule(static, 1)" } else { "" };
        let pragma = format!("omp parallel for private({private}){schedule}");
        match spelling {
            OmpSpelling::UseOmp { default_on: true } => {
                out.push_str("#ifndef USE_OMP\n#define USE_OMP 1\n#endif\n");
            }
            OmpSpelling::Macro => {
                let _ = write!(
                    out,
                    "#ifdef _OPENMP\n#define PARALLEL_FOR{u} _Pragma(\"{pragma}\")\n#else\n#define PARALLEL_FOR{u}\n#endif\n"
                );
            }
            _ => {}
        }
        let _ = writeln!(
            out,
            "static void k{u}(int n, const double in[{OMP_ROWS}][{c}], double out[{OMP_ROWS}])\n{{"
        );
        out.push_str("    int i, j;\n");
        match scratch {
            Scratch::Rows => {
                let _ = writeln!(out, "    double t[{OMP_ROWS}][{c}];");
            }
            Scratch::Private => {
                let _ = writeln!(out, "    double t[{c}];");
            }
            Scratch::Block => {}
        }
        out.push('\n');
        match spelling {
            OmpSpelling::Ifdef { defined } => {
                let test = if *defined {
                    "#if defined(_OPENMP)"
                } else {
                    "#ifdef _OPENMP"
                };
                let _ = writeln!(out, "{test}\n#pragma {pragma}\n#endif");
            }
            OmpSpelling::UseOmp { .. } => {
                let _ = writeln!(out, "#if USE_OMP\n#pragma {pragma}\n#endif");
            }
            OmpSpelling::PragmaOperator => {
                let _ = writeln!(out, "    _Pragma(\"{pragma}\")");
            }
            OmpSpelling::Macro => {
                let _ = writeln!(out, "    PARALLEL_FOR{u}");
            }
        }
        let cell = |index: &str| match scratch {
            Scratch::Rows => format!("t[i][{index}]"),
            _ => format!("t[{index}]"),
        };
        let [w0, w1, w2] = weights.map(|w| WEIGHTS[w % WEIGHTS.len()]);
        let _ = writeln!(out, "    for (i = 0; i < {bound}; i++) {{");
        if *scratch == Scratch::Block {
            let _ = writeln!(out, "        double t[{c}];");
        }
        if *one_loop {
            let _ = writeln!(
                out,
                "        for (j = 0; j < {c}; j++) {{\n            {} = {w0} * in[i][j] + 0.5 * i;",
                cell("j")
            );
            if *recurrence {
                let _ = writeln!(
                    out,
                    "            if (j >= 1)\n                {} = {} + {w1} * {};",
                    cell("j"),
                    cell("j"),
                    cell("j - 1")
                );
            }
            let _ = writeln!(
                out,
                "            out[i] += {w2} * {};\n        }}\n    }}\n}}",
                cell("j")
            );
            return;
        }
        let _ = writeln!(
            out,
            "        for (j = 0; j < {c}; j++)\n            {} = {w0} * in[i][j] + 0.5 * i;",
            cell("j")
        );
        if *recurrence {
            let _ = writeln!(
                out,
                "        for (j = 1; j < {c}; j++)\n            {} = {} + {w1} * {};",
                cell("j"),
                cell("j"),
                cell("j - 1")
            );
        }
        let read = if *reversed {
            cell(&format!("{} - j", c - 1))
        } else {
            cell("j")
        };
        let _ = writeln!(
            out,
            "        for (j = 0; j < {c}; j++)\n            out[i] += {w2} * {read};"
        );
        out.push_str("    }\n}\n");
    }

    /// The kernel of a late-VLA rows unit.
    fn late_rows_text(&self, out: &mut String) {
        let UnitKind::LateVlaRows {
            extra,
            delta,
            write,
            weights,
        } = &self.kind
        else {
            return;
        };
        let u = self.number;
        let [w0, w1, w2] = weights.map(|w| WEIGHTS[w % WEIGHTS.len()]);
        let e = FIXED_EXTENT;
        let _ = write!(
            out,
            "static void k{u}(int n, int r, const double in[{e}], double out[{e}])\n{{\n    \
             double t[r][n + {extra}];\n    int i, j;\n\n    {}\n    \
             for (j = 0; j < n; j++)\n        t[0][j] = {w0} * in[j];\n    \
             for (i = 1; i < r; i++)\n        for (j = 0; j < n; j++)\n            \
             t[i][j] = {w1} * t[i - 1][j] + {w2} * in[i + j];\n    \
             for (j = 0; j < n; j++)\n        out[j] = t[r - 1][j];\n}}\n",
            size_write("n", *write, *delta)
        );
    }

    /// The two kernels of an `undef-macros` unit around the `#undef`s.
    fn undef_text(&self, out: &mut String) {
        let UnitKind::Undef {
            n,
            m,
            redefine_m,
            shapes,
            trailing_undef,
        } = &self.kind
        else {
            return;
        };
        let u = self.number;
        let _ = writeln!(
            out,
            "#define N {}\n#define M {}\n",
            n[0].text(),
            m[0].text()
        );
        for (side, shape) in shapes.iter().enumerate() {
            if side == 1 {
                let _ = writeln!(out, "#undef N\n#define N {}", n[1].text());
                if *redefine_m {
                    let _ = writeln!(out, "#undef M\n#define M {}", m[1].text());
                }
                out.push('\n');
            }
            let name = if side == 0 { 'a' } else { 'b' };
            let e = FIXED_EXTENT;
            let _ = writeln!(
                out,
                "static void k{u}{name}(const double in[{e}], double out[{e}])\n{{"
            );
            match shape {
                MacroShape::Chain(chain) => {
                    temporaries(chain, "double", "N", out);
                    iterators(chain, out);
                    out.push('\n');
                    self.chain_text("N", false, false, None, &State::PureOnly)
                        .print(chain, out);
                }
                MacroShape::Rows { weights } | MacroShape::Linear { weights } => {
                    let linear = matches!(shape, MacroShape::Linear { .. });
                    let [w0, w1, w2] = weights.map(|w| WEIGHTS[w % WEIGHTS.len()]);
                    let cell = |row: &str| {
                        if linear {
                            format!("t[{row}]")
                        } else {
                            format!("t[{row}][j]")
                        }
                    };
                    let (declaration, first, here, before, last) = if linear {
                        (
                            "double t[N * M];",
                            cell("j"),
                            cell("M * i + j"),
                            cell("M * (i - 1) + j"),
                            cell("M * (N - 1) + j"),
                        )
                    } else {
                        (
                            "double t[N][M];",
                            cell("0"),
                            cell("i"),
                            cell("i - 1"),
                            cell("N - 1"),
                        )
                    };
                    let _ = write!(
                        out,
                        "    {declaration}\n    int i, j;\n\n    \
                         for (j = 0; j < M; j++)\n        {first} = {w0} * in[j];\n    \
                         for (i = 1; i < N; i++)\n        for (j = 0; j < M; j++)\n            \
                         {here} = {w1} * {before} + {w2} * in[i + j];\n    \
                         for (j = 0; j < M; j++)\n        out[j] = {last};\n"
                    );
                }
            }
            out.push_str("}\n\n");
        }
        if *trailing_undef {
            out.push_str("#undef N\n#undef M\n");
        }
    }

    /// The kernel of a `c-macros` unit with its macros.
    fn macros_text(&self, out: &mut String) {
        let UnitKind::CMacros {
            chain,
            params,
            restrict,
            attribute_after,
            pragma_function,
            trailing_undef,
        } = &self.kind
        else {
            return;
        };
        let u = self.number;
        let _ = write!(
            out,
            "#define RESTRICT {restrict}\n#define UNUSED __attribute__((unused))\n\
             #define FOR(i, a, b) for (i = (a); i < (b); i++)\n\n"
        );
        if *pragma_function {
            out.push_str("_Pragma(\"GCC diagnostic push\")\n");
        }
        let e = FIXED_EXTENT;
        let arrays = match params {
            MacroParams::Pointers => "const double *RESTRICT in, double *RESTRICT out".to_string(),
            MacroParams::Arrays => {
                format!("const double in[RESTRICT {e}], double out[RESTRICT {e}]")
            }
        };
        let flag = if *attribute_after {
            "int flag UNUSED"
        } else {
            "UNUSED int flag"
        };
        let _ = writeln!(out, "static void k{u}(int n, {arrays}, {flag})\n{{");
        temporaries(chain, "double", &e.to_string(), out);
        iterators(chain, out);
        out.push('\n');
        self.chain_text("n", false, false, None, &State::PureOnly)
            .print(chain, out);
        out.push_str("}\n");
        if *pragma_function {
            out.push_str("_Pragma(\"GCC diagnostic pop\")\n");
        }
        if *trailing_undef {
            out.push_str("\n#undef RESTRICT\n#undef UNUSED\n#undef FOR\n");
        }
    }

    /// The block of `main` that calls the unit's kernel and prints every
    /// cell it may write (and the state it leaves), call after call.
    pub fn main_text(&self) -> String {
        let u = self.number;
        let mut out = String::from("    {\n");
        if let UnitKind::CallerBuffers(c) = &self.kind {
            c.main_text(u, &self.calls, &mut out);
            out.push_str("    }\n");
            return out;
        }
        if let UnitKind::Openmp { columns, .. } = &self.kind {
            self.openmp_main(*columns, &mut out);
            out.push_str("    }\n");
            return out;
        }
        let len = UNIT_ARRAY;
        let _ = writeln!(out, "        static double x{u}[{len}], y{u}[{len}];\n");
        for (number, call) in self.calls.iter().enumerate() {
            let _ = write!(
                out,
                "        for (i = 0; i < {len}; i++) {{\n            \
                 x{u}[i] = (double)((i * 37 + {}) % 23) - 11.0;\n            \
                 y{u}[i] = (double)(i % 5);\n        }}\n",
                11 + 5 * u
            );
            let _ = writeln!(out, "        {}", self.call_text(call));
            let _ = write!(
                out,
                "        for (i = 0; i < {len}; i++)\n            \
                 printf(\"u{u} call {number}: %d %.17g %.17g\\n\", i, x{u}[i], y{u}[i]);\n"
            );
            let state = match &self.kind {
                UnitKind::Stateful { state, .. } => Some(state),
                _ => None,
            };
            match (state, &self.kind) {
                (Some(State::Lcg { .. }), _) => {
                    let _ = writeln!(out, "        printf(\"u{u} state %u\\n\", state{u});");
                }
                (Some(State::Bytes { .. }), _) => {
                    let _ = writeln!(out, "        printf(\"u{u} pos %d\\n\", pos{u});");
                }
                (Some(State::Total), _) => {
                    let _ = writeln!(out, "        printf(\"u{u} total %.17g\\n\", total{u});");
                }
                (_, UnitKind::InitCalls { state, .. }) => {
                    let format = if matches!(state, State::Lcg { .. }) {
                        "%.17g"
                    } else {
                        "%d"
                    };
                    let _ = writeln!(
                        out,
                        "        printf(\"u{u} next {format}\\n\", {});",
                        state_call(state, u)
                    );
                }
                _ => {}
            }
        }
        out.push_str("    }\n");
        out
    }

    /// The statement of one call.
    fn call_text(&self, call: &UnitCall) -> String {
        let u = self.number;
        let n = call.n;
        let arg = |a: Arg| {
            let name = if a.second {
                format!("y{u}")
            } else {
                format!("x{u}")
            };
            plus(&name, a.offset)
        };
        match &self.kind {
            UnitKind::InPlace { .. } => {
                format!("k{u}({n}, {}, {});", arg(call.input), arg(call.output))
            }
            UnitKind::ExtremeBases { .. } | UnitKind::LongIterators { .. } => {
                format!("k{u}({n}, {}, x{u}, y{u});", call.base.text(n))
            }
            UnitKind::LateVlaRows { .. } => format!("k{u}({n}, {}, x{u}, y{u});", call.other),
            UnitKind::Undef { .. } => {
                let name = if call.other == 0 { 'a' } else { 'b' };
                format!("k{u}{name}(x{u}, y{u});")
            }
            UnitKind::CMacros { .. } => format!("k{u}({n}, x{u}, y{u}, {});", call.other),
            UnitKind::HeapBuffers(_) => format!("k{u}({n}, {}, x{u}, y{u});", call.other),
            _ => format!("k{u}({n}, x{u}, y{u});"),
        }
    }

    fn openmp_main(&self, columns: i64, out: &mut String) {
        let u = self.number;
        let rows = OMP_ROWS;
        let _ = write!(
            out,
            "        static double a{u}[{rows}][{columns}], b{u}[{rows}];\n        int j, r;\n\n        \
             for (i = 0; i < {rows}; i++)\n            for (j = 0; j < {columns}; j++)\n                \
             a{u}[i][j] = (double)((i * 7 + j * 3 + {u}) % 11) - 5.0;\n"
        );
        for (number, call) in self.calls.iter().enumerate() {
            let _ = write!(
                out,
                "        for (i = 0; i < {rows}; i++)\n            b{u}[i] = 0.0;\n        \
                 for (r = 0; r < {}; r++)\n            k{u}({}, a{u}, b{u});\n        \
                 for (i = 0; i < {rows}; i++)\n            \
                 printf(\"u{u} call {number}: %d %.17g\\n\", i, b{u}[i]);\n",
                call.other, call.n
            );
        }
    }
}

/// The units of the program of `seed`: none when `enabled` is empty;
/// otherwise one or two units (distinct forms of `enabled`) in two
/// programs of three, or always when `alone` (no other form was asked
/// for). Drawn from a stream of their own made from the seed.
pub fn draw_units(seed: u64, enabled: &[RealCForm], alone: bool) -> Vec<Unit> {
    if enabled.is_empty() {
        return Vec::new();
    }
    let mut rng = Rng::new(seed ^ 0x4545_C0DE_5EED_0F0D);
    if !alone && !rng.chance(2, 3) {
        return Vec::new();
    }
    let count = if rng.chance(1, 4) { 2 } else { 1 };
    let mut forms = enabled.to_vec();
    let mut units = Vec::new();
    while units.len() < count && !forms.is_empty() {
        let form = forms.remove(rng.below(forms.len()));
        let number = units.len();
        // A draw that is not well defined is drawn again (from the same
        // stream: deterministic); the generators make few.
        for _ in 0..50 {
            let unit = draw_unit(&mut rng, form, number);
            if unit.check().is_ok() {
                units.push(unit);
                break;
            }
        }
    }
    units
}

/// One unit of `form`.
pub fn draw_unit(rng: &mut Rng, form: RealCForm, number: usize) -> Unit {
    let (kind, calls) = match form {
        RealCForm::StatefulCalls => draw_stateful(rng),
        RealCForm::InPlaceCalls => draw_in_place(rng),
        RealCForm::ExtremeBases => draw_bases(rng, false),
        RealCForm::LongIterators => draw_bases(rng, true),
        RealCForm::OpenmpIfdef => draw_openmp(rng),
        RealCForm::DeclarationEffects => draw_declarations(rng),
        RealCForm::UndefMacros => draw_undef(rng),
        RealCForm::CMacros => draw_macros(rng),
        RealCForm::CallerBuffers => draw_caller_buffers(rng),
        RealCForm::HeapBuffers => draw_heap_buffers(rng),
    };
    Unit {
        number,
        kind,
        calls,
    }
}

fn draw_extent(rng: &mut Rng) -> Extent {
    *rng.pick(&[Extent::Fixed, Extent::Vla, Extent::Macro])
}

fn draw_weights(rng: &mut Rng) -> [usize; 3] {
    [
        rng.below(WEIGHTS.len()),
        rng.below(WEIGHTS.len()),
        rng.below(WEIGHTS.len()),
    ]
}

/// A chain of 2 to 4 stages with margins at most 6 in all.
fn draw_chain(rng: &mut Rng) -> Chain {
    let stages = rng.range(2, 4) as usize;
    Chain::draw(rng, stages, 6)
}

/// Sizes of 1 to 3 calls: the first one of 10 to 24, the others of 1 to
/// 24 (tiny ones among them).
fn draw_sizes(rng: &mut Rng) -> Vec<i64> {
    let calls = rng.range(1, 3);
    (0..calls)
        .map(|c| {
            if c == 0 {
                rng.range(10, MAX_N)
            } else {
                rng.range(1, MAX_N)
            }
        })
        .collect()
}

/// Two distinct stage indices `a < b` of a chain of `stages` stages.
fn two_stages(rng: &mut Rng, stages: usize) -> (usize, usize) {
    let a = rng.below(stages - 1);
    let b = rng.range(a as i64 + 1, stages as i64 - 1) as usize;
    (a, b)
}

fn draw_stateful(rng: &mut Rng) -> (UnitKind, Vec<UnitCall>) {
    let state = match rng.below(7) {
        0 | 1 => State::Lcg {
            seed: rng.range(1, 1 << 30) as u32,
        },
        2 | 3 => State::Bytes {
            data: (0..rng.range(5, 13))
                .map(|_| rng.range(0, 255) as u8)
                .collect(),
        },
        4 | 5 => State::Total,
        _ => State::PureOnly,
    };
    let mut chain = draw_chain(rng);
    let stages = chain.stages.len();
    match state {
        State::Lcg { .. } | State::Bytes { .. } => match rng.below(3) {
            0 => {
                let (a, b) = two_stages(rng, stages);
                chain.stages[a].extras.push(Extra::StateCall);
                chain.stages[b].extras.push(Extra::StateCall);
            }
            1 => {
                chain.stages[0].extras.push(Extra::StateCall);
                let (a, b) = two_stages(rng, stages);
                chain.stages[a].extras.push(Extra::DrawBias);
                chain.stages[b].extras.push(Extra::Bias);
            }
            _ => {
                for stage in &mut chain.stages {
                    stage.extras.push(Extra::StateCall);
                }
            }
        },
        State::Total => {
            let (a, b) = two_stages(rng, stages);
            chain.stages[a].extras.push(Extra::AddIntoTotal);
            chain.stages[b].extras.push(Extra::ReadTotal);
        }
        State::PureOnly => {}
    }
    if state == State::PureOnly || rng.chance(1, 2) {
        for _ in 0..rng.range(1, 2) {
            let kind = *rng.pick(&[
                PureKind::StaticHelper,
                PureKind::MathLibrary,
                PureKind::ConstAttribute,
            ]);
            let s = rng.below(stages);
            chain.stages[s].extras.push(Extra::PureCall(kind));
        }
    }
    let extent = draw_extent(rng);
    let calls = draw_sizes(rng).into_iter().map(UnitCall::plain).collect();
    (
        UnitKind::Stateful {
            state,
            chain,
            extent,
        },
        calls,
    )
}

fn draw_in_place(rng: &mut Rng) -> (UnitKind, Vec<UnitCall>) {
    let chain = draw_chain(rng);
    let params = *rng.pick(&[
        InPlaceParams::Fixed,
        InPlaceParams::Fixed,
        InPlaceParams::Vla,
        InPlaceParams::Vla,
        InPlaceParams::RestrictArrays,
        InPlaceParams::RestrictPointers,
    ]);
    let external = rng.chance(1, 4);
    let extent = draw_extent(rng);
    let arg = |second: bool, offset: i64| Arg { second, offset };
    let mut calls = Vec::new();
    for c in 0..rng.range(2, 3) {
        let n = rng.range(8, MAX_N);
        let (input, output) = if params.is_restrict() {
            match rng.below(3) {
                0 => (arg(false, 0), arg(true, 0)),
                1 => (arg(false, 0), arg(false, 36)),
                _ => (arg(false, 36), arg(false, 0)),
            }
        } else {
            // The first call aliases; the others are any of the kinds.
            let kind = if c == 0 { rng.below(3) } else { rng.below(4) };
            let d = rng.range(1, 3);
            match kind {
                0 => (arg(false, 0), arg(false, 0)),
                1 => (arg(false, d), arg(false, 0)),
                2 => (arg(false, 0), arg(false, d)),
                _ => (arg(false, 0), arg(true, 0)),
            }
        };
        calls.push(UnitCall {
            input,
            output,
            ..UnitCall::plain(n)
        });
    }
    (
        UnitKind::InPlace {
            chain,
            params,
            external,
            extent,
        },
        calls,
    )
}

/// An `extreme-bases` unit, or with `long` a `long-iterators` one.
fn draw_bases(rng: &mut Rng, long: bool) -> (UnitKind, Vec<UnitCall>) {
    let mut chain = draw_chain(rng);
    let stages = chain.stages.len();
    let less_equal = rng.chance(1, 3);
    if long {
        for stage in &mut chain.stages {
            stage.long = rng.chance(1, 2);
        }
        if chain.stages.iter().all(|s| s.long) || chain.stages.iter().all(|s| !s.long) {
            let s = rng.below(stages);
            chain.stages[s].long = !chain.stages[s].long;
        }
        for stage in &mut chain.stages {
            if stage.long && rng.chance(2, 3) {
                stage.extras.push(Extra::LongProduct);
            } else if !stage.long && rng.chance(1, 3) {
                stage.extras.push(Extra::IteratorModulo);
            }
        }
        if !chain_has(&chain, Extra::LongProduct) {
            let s = chain.stages.iter().position(|s| s.long).unwrap_or(0);
            chain.stages[s].extras.push(Extra::LongProduct);
        }
    } else {
        if rng.chance(1, 3) {
            let s = rng.below(stages);
            chain.stages[s].extras.push(Extra::IteratorOffset);
        }
        if rng.chance(1, 4) {
            let s = rng.below(stages);
            chain.stages[s].extras.push(Extra::IteratorModulo);
        }
    }
    let extent = draw_extent(rng);
    // Every bound needs n at least the largest margin plus one at the
    // extreme bases.
    let smallest = (chain.max_margin() + 2).max(8);
    let mut calls = Vec::new();
    for c in 0..rng.range(2, 4) {
        let n = rng.range(smallest, MAX_N);
        let base = if long {
            match if c == 0 { rng.below(2) } else { rng.below(7) } {
                0 => Base::Value(3000 + rng.range(0, 500)),
                1 => Base::Value(1_000_000 + rng.range(0, 1000)),
                2 => Base::Value(-50_000 + rng.range(0, 1000)),
                3 => Base::Value(rng.range(-40, 40)),
                4 => Base::BelowIntMax(0),
                5 => Base::AboveIntMin(0),
                _ => Base::BelowIntMax(rng.range(1, 5)),
            }
        } else {
            match if c == 0 { rng.below(4) } else { rng.below(6) } {
                0 => Base::BelowIntMax(0),
                1 => Base::AboveIntMin(0),
                2 => Base::BelowIntMax(rng.range(1, 5)),
                3 => Base::AboveIntMin(rng.range(1, 5)),
                4 => Base::Value(0),
                _ => Base::Value(rng.range(-40, 40)),
            }
        };
        calls.push(UnitCall {
            base,
            ..UnitCall::plain(n)
        });
    }
    if !long && rng.chance(1, 2) {
        // A tiny call at an ordinary base.
        calls.push(UnitCall {
            base: Base::Value(rng.range(-3, 3)),
            ..UnitCall::plain(rng.range(1, 3))
        });
    }
    let kind = if long {
        UnitKind::LongIterators {
            chain,
            less_equal,
            extent,
        }
    } else {
        UnitKind::ExtremeBases {
            chain,
            less_equal,
            extent,
        }
    };
    (kind, calls)
}

fn draw_openmp(rng: &mut Rng) -> (UnitKind, Vec<UnitCall>) {
    let spelling = match rng.below(6) {
        0 => OmpSpelling::Ifdef { defined: false },
        1 => OmpSpelling::Ifdef { defined: true },
        2 => OmpSpelling::UseOmp { default_on: true },
        3 => OmpSpelling::UseOmp { default_on: false },
        4 => OmpSpelling::PragmaOperator,
        _ => OmpSpelling::Macro,
    };
    let scratch = *rng.pick(&[Scratch::Rows, Scratch::Private, Scratch::Block]);
    let kind = UnitKind::Openmp {
        spelling,
        scratch,
        columns: rng.range(8, 32),
        recurrence: rng.chance(1, 2),
        reversed: rng.chance(1, 4),
        chunked: rng.chance(1, 2),
        weights: draw_weights(rng),
        rows: *rng.pick(&[RowBound::Parameter, RowBound::Literal, RowBound::Macro]),
        one_loop: rng.chance(1, 2),
    };
    // A thousand repetitions and more: a race on scratch that polyfold
    // made shared shows in the `-O0` build's values in some runs
    // (measured on 2 cores: ten repetitions almost never, 400 in a third
    // to all of the runs, 3000 in a third to nine tenths).
    let mut calls = vec![UnitCall {
        other: rng.range(1000, 2000),
        ..UnitCall::plain(rng.range(40, OMP_ROWS))
    }];
    if rng.chance(1, 3) {
        calls.push(UnitCall {
            other: 1,
            ..UnitCall::plain(rng.range(1, 5))
        });
    }
    (kind, calls)
}

fn draw_size_write(rng: &mut Rng, extra: i64) -> (SizeWrite, i64) {
    match rng.below(3) {
        0 => (SizeWrite::Assign, rng.range(1, extra)),
        1 => (SizeWrite::Compound, rng.range(1, extra)),
        _ => (SizeWrite::Increment, 1),
    }
}

fn draw_declarations(rng: &mut Rng) -> (UnitKind, Vec<UnitCall>) {
    match rng.below(5) {
        0 | 1 => {
            let chain = draw_chain(rng);
            let extra = rng.range(1, 8);
            let (write, delta) = draw_size_write(rng, extra);
            let calls = draw_sizes(rng).into_iter().map(UnitCall::plain).collect();
            (
                UnitKind::LateVla {
                    chain,
                    extra,
                    delta,
                    write,
                },
                calls,
            )
        }
        2 => {
            let extra = rng.range(1, 8);
            let (write, delta) = draw_size_write(rng, extra);
            let calls = draw_sizes(rng)
                .into_iter()
                .enumerate()
                .map(|(c, n)| UnitCall {
                    other: if c == 0 {
                        rng.range(3, 8)
                    } else {
                        rng.range(1, 8)
                    },
                    ..UnitCall::plain(n)
                })
                .collect();
            (
                UnitKind::LateVlaRows {
                    extra,
                    delta,
                    write,
                    weights: draw_weights(rng),
                },
                calls,
            )
        }
        _ => {
            let chain = draw_chain(rng);
            let element = *rng.pick(&[Element::Unsigned, Element::Int, Element::Double]);
            let state = if rng.chance(1, 2) {
                State::Lcg {
                    seed: rng.range(1, 1 << 30) as u32,
                }
            } else {
                State::Bytes {
                    data: (0..rng.range(5, 13))
                        .map(|_| rng.range(0, 255) as u8)
                        .collect(),
                }
            };
            let calls = draw_sizes(rng).into_iter().map(UnitCall::plain).collect();
            (
                UnitKind::InitCalls {
                    chain,
                    element,
                    state,
                    init_calls: rng.range(1, 3) as usize,
                },
                calls,
            )
        }
    }
}

fn draw_undef(rng: &mut Rng) -> (UnitKind, Vec<UnitCall>) {
    let mut value = |lo: i64, hi: i64, not: Option<i64>| loop {
        let v = rng.range(lo, hi);
        if Some(v) != not {
            break v;
        }
    };
    let n0 = value(3, 12, None);
    let n1 = value(3, 12, Some(n0));
    let m0 = value(2, 8, None);
    let m1 = value(2, 8, Some(m0));
    let redefine_m = rng.chance(1, 2);
    let mut macro_value = |value: i64| MacroValue {
        value,
        as_sum: rng.chance(1, 4),
    };
    let n = [macro_value(n0), macro_value(n1)];
    let m = if redefine_m {
        [macro_value(m0), macro_value(m1)]
    } else {
        let v = macro_value(m0);
        [v, v]
    };
    let mut shape = |size: i64| match rng.below(3) {
        0 => {
            let stages = rng.range(2, 3) as usize;
            MacroShape::Chain(Chain::draw(rng, stages, (size - 2).max(0)))
        }
        1 => MacroShape::Rows {
            weights: draw_weights(rng),
        },
        _ => MacroShape::Linear {
            weights: draw_weights(rng),
        },
    };
    let shapes = [shape(n0), shape(n1)];
    let trailing_undef = rng.chance(1, 3);
    let calls = vec![
        UnitCall::plain(1),
        UnitCall {
            other: 1,
            ..UnitCall::plain(1)
        },
    ];
    (
        UnitKind::Undef {
            n,
            m,
            redefine_m,
            shapes,
            trailing_undef,
        },
        calls,
    )
}

/// The spellings of `restrict` a `c-macros` unit defines `RESTRICT` as.
const RESTRICT_SPELLINGS: [&str; 3] = ["__restrict", "__restrict__", "restrict"];

fn draw_macros(rng: &mut Rng) -> (UnitKind, Vec<UnitCall>) {
    let mut chain = draw_chain(rng);
    for stage in &mut chain.stages {
        stage.for_macro = rng.chance(1, 2);
    }
    if chain.stages.iter().all(|s| !s.for_macro) {
        let s = rng.below(chain.stages.len());
        chain.stages[s].for_macro = true;
    }
    if rng.chance(1, 2) {
        let s = rng.below(chain.stages.len());
        chain.stages[s].extras.push(Extra::UnrollPragma);
    }
    let kind = UnitKind::CMacros {
        chain,
        params: *rng.pick(&[MacroParams::Pointers, MacroParams::Arrays]),
        restrict: RESTRICT_SPELLINGS[rng.below(RESTRICT_SPELLINGS.len())],
        attribute_after: rng.chance(1, 2),
        pragma_function: rng.chance(1, 2),
        trailing_undef: rng.chance(1, 2),
    };
    let calls = draw_sizes(rng)
        .into_iter()
        .map(|n| UnitCall {
            other: rng.range(0, 1),
            ..UnitCall::plain(n)
        })
        .collect();
    (kind, calls)
}

// ---------------------------------------------------------------------
// Issue 47: buffers where real code keeps its temporaries.
// ---------------------------------------------------------------------

/// The largest rows (and columns) of a buffer unit's call: rows `i` and
/// `i + MAX_N` of the output stay apart, `in[i + j]` stays in the input.
const MAX_ROWS: i64 = MAX_N;

/// The scratch of a buffer unit's kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferShape {
    /// 1-D: a chain whose temporaries `t0`, `t1`, ... are the buffers.
    Chain(Chain),
    /// 2-D: one buffer `t0` of `n` rows of `m` cells, written from the
    /// input, maybe each row from the one before (`t0[i][j] += w *
    /// t0[i - 1][j]`), then folded into `out[i]` and `out[i + 24]`.
    Rows {
        recurrence: bool,
        weights: [usize; 4],
    },
}

impl BufferShape {
    /// The buffers' names (the chain's temporaries, or `t0`).
    fn temporaries(&self) -> usize {
        match self {
            BufferShape::Chain(chain) => chain.stages.len() - 1,
            BufferShape::Rows { .. } => 1,
        }
    }

    fn is_rows(&self) -> bool {
        matches!(self, BufferShape::Rows { .. })
    }
}

/// How the kernel of a `caller-buffers` unit declares its buffer's
/// extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dims {
    /// `double t0[BN0][BM0]` (macros), loops to the parameters `n`, `m`
    /// (at most the macros).
    Macros,
    /// `double t0[BN0][BM0]`, loops to `BN0` and `BM0` themselves.
    MacroBounds,
    /// `double t0[n][m]` (VLA parameters), one buffer per call.
    Params,
}

/// How `main` allocates a `caller-buffers` unit's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alloc {
    /// `double b0[D1][D2];` (a VLA when the extents are `n`, `m`).
    Local,
    /// `double (*b0)[D2] = malloc(sizeof(double[D1][D2]));`.
    MallocArray,
    /// `double (*b0)[D2] = malloc(D1 * sizeof *b0);`.
    MallocRows,
    /// `double (*b0)[D2] = calloc(D1, sizeof *b0);` (`double *b0` in 1-D).
    Calloc,
    /// PolyBench's family, defined in the program: `ARRAY_2D0` in the
    /// parameter list, `ALLOC_2D0(b0, double, D1, D2);` in `main`,
    /// `ARR0(b0)` at the call, `FREE_ARRAY0(b0);`.
    Macros,
}

/// What makes a `caller-buffers` buffer something polyfold must leave
/// alone (or nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallerEscape {
    None,
    /// `main` prints (or sums and prints) the cells after the call.
    ReadAfter {
        sum: bool,
    },
    /// `keep0 = (double *)b0;`, a `static double *` global.
    GlobalPointer,
    /// The cells are passed to `void observe0(const double *, int)`, a
    /// function of external linkage, after the call.
    NonStatic,
    /// `main` calls the kernel through `static void (*kp0)(...) = k0;`.
    FunctionPointer,
    /// `b0 = realloc(b0, ...);` before the call.
    Realloc,
    /// The same buffer for `t0` and `t1` (a chain of three stages or more).
    PassedTwice,
    /// The kernel reads each cell before writing it (`t0[i] = 0.5 *
    /// t0[i] + ...`): values carried between calls from a buffer `main`
    /// initialises once.
    Carried,
    /// `main` writes every cell in a loop before each call.
    InitLoop,
}

/// A `caller-buffers` unit: `static void k0(int n, int m, const double
/// in[72], double t0[..], ..., double out[72])` whose SCoP uses its array
/// parameters `t0`, ... as scratch, and the buffers `main` passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallerBuffers {
    pub shape: BufferShape,
    pub dims: Dims,
    pub alloc: Alloc,
    pub escape: CallerEscape,
    /// `BN0` and `BM0` (`Dims::Macros`, `Dims::MacroBounds`).
    pub extents: (i64, i64),
    /// `main` calls the kernel in a loop over a table of sizes.
    pub loop_calls: bool,
    /// The constant term of the rows' first loop.
    pub constant: i64,
}

/// How a `heap-buffers` kernel allocates its scratch `t0` (and, for
/// chains, `t1`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeapAlloc {
    /// 1-D (chains): `double *t0 = malloc(n * sizeof *t0);`.
    Malloc,
    /// 1-D (chains): `double *t0 = calloc(n, sizeof *t0);`.
    Calloc,
    /// 2-D: `double (*t0)[C] = malloc(sizeof(double[n][C]));`.
    VlaRows,
    /// 2-D: `double *t0 = malloc(sizeof(double) * n * C);`, `t0[i * C +
    /// j]`.
    Linear,
}

/// What makes a `heap-buffers` scratch escape (or nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeapEscape {
    None,
    /// `keep0 = (double *)t0;`, a `static double *` global.
    Global,
    /// `observe0((const double *)t0, ...)`, external linkage, after the
    /// SCoP.
    Unknown,
    /// `t0 = realloc(t0, ...);` before the SCoP.
    Realloc,
    /// One more row allocated as `base0`, `t0 = base0 + 1`.
    Plus,
    /// One more row allocated, `t0++;` and `free(t0 - 1);`.
    Increment,
    /// The size is `bytes0(n, C)`, a function of external linkage.
    SizeCall,
}

/// A `heap-buffers` unit: `static void k0(int n, int m, const double
/// in[72], double out[72])` that allocates its scratch, uses it in its
/// SCoP and frees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapBuffers {
    pub shape: BufferShape,
    pub alloc: HeapAlloc,
    pub escape: HeapEscape,
    /// The columns are `W0` (`#define W0 value`) instead of `m`.
    pub width: Option<i64>,
    pub constant: i64,
    /// How a [`HeapAlloc::Linear`] scratch spells its index: `row * C +
    /// (col)`, `(col) + C * row`, or `row * C + col - 1` (a sum that does
    /// not split as `a * C + b`, which polyfold leaves alone).
    pub linear_order: LinearOrder,
}

/// The spelling of a linearised index (see [`HeapBuffers::linear_order`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinearOrder {
    RowFirst,
    ColumnFirst,
    Flat,
}

/// Checks a call's sizes: rows and columns within 1..=24.
fn check_sizes(call: &UnitCall) -> Result<(), String> {
    if !(1..=MAX_ROWS).contains(&call.n) || !(1..=MAX_ROWS).contains(&call.other) {
        return Err(format!("sizes {} x {}", call.n, call.other));
    }
    Ok(())
}

impl CallerBuffers {
    fn check_call(&self, call: &UnitCall) -> Result<(), String> {
        check_sizes(call)?;
        let (bn, bm) = self.extents;
        match self.dims {
            Dims::Macros if call.n > bn || call.other > bm => {
                return Err(format!(
                    "sizes {} x {} past the extents",
                    call.n, call.other
                ));
            }
            Dims::MacroBounds if (call.n, call.other) != (bn, bm) => {
                return Err("sizes other than the extents".into());
            }
            _ => {}
        }
        if !(1..=MAX_ROWS).contains(&bn) || !(1..=MAX_ROWS).contains(&bm) {
            return Err("extents".into());
        }
        if self.escape == CallerEscape::PassedTwice && self.shape.temporaries() < 2 {
            return Err("one buffer passed twice".into());
        }
        if self.escape == CallerEscape::Carried && self.dims == Dims::Params {
            return Err("carried values in a buffer per call".into());
        }
        if self.escape == CallerEscape::Realloc && self.alloc == Alloc::Local {
            return Err("realloc of a local array".into());
        }
        Ok(())
    }

    /// The extents of the buffers in the kernel's parameters and in
    /// `main` (`BN0`, `BM0` or `n`, `m`); one in 1-D.
    fn extents_text(&self, u: usize) -> Vec<String> {
        let mut dims = match self.dims {
            Dims::Params => vec!["n".to_string(), "m".to_string()],
            _ => vec![format!("BN{u}"), format!("BM{u}")],
        };
        if !self.shape.is_rows() {
            dims.pop();
        }
        dims
    }

    /// The kernel's parameter list.
    fn parameters(&self, u: usize) -> String {
        let dims = self.extents_text(u);
        let buffers: Vec<String> = (0..self.shape.temporaries())
            .map(|s| {
                if self.alloc == Alloc::Macros {
                    let d = dims.len();
                    format!("double ARRAY_{d}D{u}(t{s}, {})", dims.join(", "))
                } else {
                    let brackets: String = dims.iter().map(|d| format!("[{d}]")).collect();
                    format!("double t{s}{brackets}")
                }
            })
            .collect();
        format!(
            "int n, int m, const double in[{UNIT_ARRAY}], {}, double out[{UNIT_ARRAY}]",
            buffers.join(", ")
        )
    }

    /// The file-scope text: `<stdlib.h>`, the extent macros, the macro
    /// family, the helpers of the escape, the kernel.
    fn file_text(&self, u: usize, out: &mut String) {
        out.push_str("#include <stdlib.h>\n");
        if self.dims != Dims::Params {
            let _ = writeln!(out, "#define BN{u} {}", self.extents.0);
            let _ = writeln!(out, "#define BM{u} {}", self.extents.1);
        }
        if self.alloc == Alloc::Macros {
            if self.shape.is_rows() {
                let _ = write!(
                    out,
                    "#define ARRAY_2D{u}(var, d1, d2) var[d1][d2]\n\
                     #define ALLOC_2D{u}(var, type, d1, d2) type (*var)[d1][d2]; \
                     var = (type (*)[d1][d2])malloc(sizeof(type) * (d1) * (d2))\n"
                );
            } else {
                let _ = write!(
                    out,
                    "#define ARRAY_1D{u}(var, d1) var[d1]\n\
                     #define ALLOC_1D{u}(var, type, d1) type (*var)[d1]; \
                     var = (type (*)[d1])malloc(sizeof(type) * (d1))\n"
                );
            }
            let _ = write!(
                out,
                "#define ARR{u}(x) *x\n#define FREE_ARRAY{u}(x) free((void *)x)\n"
            );
        }
        match self.escape {
            CallerEscape::GlobalPointer => {
                let _ = writeln!(out, "static double *keep{u};");
            }
            CallerEscape::NonStatic => observer_text(u, out),
            _ => {}
        }
        out.push('\n');
        let _ = writeln!(out, "static void k{u}({})\n{{", self.parameters(u));
        let carried = self.escape == CallerEscape::Carried;
        let (rows, cols) = match self.dims {
            Dims::MacroBounds => (format!("BN{u}"), format!("BM{u}")),
            _ => ("n".to_string(), "m".to_string()),
        };
        let cell = |i: &str, j: &str| format!("t0[{i}][{j}]");
        out.push_str(&scratch_scop(
            &self.shape,
            self.constant,
            carried,
            &rows,
            &cols,
            &cell,
        ));
        out.push_str("}\n");
        if self.escape == CallerEscape::FunctionPointer {
            let _ = writeln!(
                out,
                "\nstatic void (*kp{u})({}) = k{u};",
                self.parameters(u)
            );
        }
    }
}

/// `text + c.0`, `text - c.0` or `text`.
fn constant_term(text: &str, c: i64) -> String {
    match c.cmp(&0) {
        std::cmp::Ordering::Equal => text.to_string(),
        std::cmp::Ordering::Greater => format!("{text} + {c}.0"),
        std::cmp::Ordering::Less => format!("{text} - {}.0", -c),
    }
}

/// `void observe0(const double *p, int count)`: prints the sum of the
/// cells (external linkage: an unknown function to polyfold).
fn observer_text(u: usize, out: &mut String) {
    let _ = write!(
        out,
        "\nvoid observe{u}(const double *p, int count)\n{{\n    double sum = 0.0;\n    int c;\n\n    \
         for (c = 0; c < count; c++)\n        sum += p[c];\n    \
         printf(\"u{u} observe %d %.17g\\n\", count, sum);\n}}\n"
    );
}

/// The declarations and the SCoP of a buffer kernel (each a line):
/// `int i;` (`int i, j;`), `#pragma scop`, the loops, `#pragma endscop`.
/// `cell(i, j)` writes a 2-D buffer's cell. With `carried`, the first
/// stage adds `0.5 *` the cell it writes, as it was before.
fn scratch_scop(
    shape: &BufferShape,
    constant: i64,
    carried: bool,
    rows: &str,
    cols: &str,
    cell: &dyn Fn(&str, &str) -> String,
) -> String {
    let mut out = String::new();
    match shape {
        BufferShape::Chain(chain) => {
            out.push_str("    int i;\n\n#pragma scop\n");
            let mut text = String::new();
            ChainText {
                unit: 0,
                size: rows,
                base: false,
                less_equal: false,
                source: "in",
                output: "out",
                state_call: String::new(),
                cast: None,
                indent: "    ",
            }
            .print(chain, &mut text);
            if carried {
                text = text.replacen("t0[i] = ", "t0[i] = 0.5 * t0[i] + ", 1);
            }
            out.push_str(&text);
        }
        BufferShape::Rows {
            recurrence,
            weights,
        } => {
            let w = |k: usize| WEIGHTS[weights[k]];
            let here = cell("i", "j");
            let old = if carried {
                format!("0.5 * {here} + ")
            } else {
                String::new()
            };
            let _ = write!(
                out,
                "    int i, j;\n\n#pragma scop\n    for (i = 0; i < {rows}; i++)\n        \
                 for (j = 0; j < {cols}; j++)\n            \
                 {here} = {old}{} * in[i + j] + {};\n",
                w(0),
                constant_term(&format!("{} * in[j]", w(1)), constant)
            );
            if *recurrence {
                let _ = write!(
                    out,
                    "    for (i = 1; i < {rows}; i++)\n        for (j = 0; j < {cols}; j++)\n            \
                     {here} = {here} + {} * {};\n",
                    w(2),
                    cell("i - 1", "j")
                );
            }
            let _ = write!(
                out,
                "    for (i = 0; i < {rows}; i++)\n        for (j = 0; j < {cols}; j++)\n            \
                 out[i] = out[i] + {} * {here};\n    \
                 for (i = 0; i < {rows}; i++)\n        for (j = 1; j < {cols}; j++)\n            \
                 out[i + {MAX_ROWS}] = out[i + {MAX_ROWS}] + {here} * {};\n",
                w(3),
                cell("i", "j - 1")
            );
        }
    }
    out.push_str("#pragma endscop\n");
    out
}

impl CallerBuffers {
    /// The temporaries that have a buffer of their own in `main` (all
    /// but `t1` when `t0`'s buffer is passed for it too).
    fn buffers(&self) -> Vec<usize> {
        let twice = self.escape == CallerEscape::PassedTwice;
        (0..self.shape.temporaries())
            .filter(|s| !(twice && *s == 1))
            .collect()
    }

    /// The argument for the temporary `s`.
    fn argument(&self, u: usize, s: usize) -> String {
        let b = if self.escape == CallerEscape::PassedTwice && s == 1 {
            0
        } else {
            s
        };
        if self.alloc == Alloc::Macros {
            format!("ARR{u}(b{b})")
        } else {
            format!("b{b}")
        }
    }

    /// A cell of `main`'s buffer `b` (`j` unused in 1-D).
    fn cell(&self, b: usize, i: &str, j: &str) -> String {
        let name = if self.alloc == Alloc::Macros {
            format!("(*b{b})")
        } else {
            format!("b{b}")
        };
        if self.shape.is_rows() {
            format!("{name}[{i}][{j}]")
        } else {
            format!("{name}[{i}]")
        }
    }

    /// The allocation of `main`'s buffer `b` (and its `realloc`).
    fn alloc_text(&self, u: usize, b: usize, indent: &str, out: &mut String) {
        let dims = self.extents_text(u);
        let d1 = &dims[0];
        let line = match (self.alloc, dims.get(1)) {
            (Alloc::Local, _) => {
                let brackets: String = dims.iter().map(|d| format!("[{d}]")).collect();
                format!("double b{b}{brackets};")
            }
            (Alloc::MallocArray, None) => format!("double *b{b} = malloc(sizeof(double[{d1}]));"),
            (Alloc::MallocArray, Some(d2)) => {
                format!("double (*b{b})[{d2}] = malloc(sizeof(double[{d1}][{d2}]));")
            }
            (Alloc::MallocRows, None) => format!("double *b{b} = malloc({d1} * sizeof *b{b});"),
            (Alloc::MallocRows, Some(d2)) => {
                format!("double (*b{b})[{d2}] = malloc({d1} * sizeof *b{b});")
            }
            (Alloc::Calloc, None) => format!("double *b{b} = calloc({d1}, sizeof *b{b});"),
            (Alloc::Calloc, Some(d2)) => {
                format!("double (*b{b})[{d2}] = calloc({d1}, sizeof *b{b});")
            }
            (Alloc::Macros, _) => format!(
                "ALLOC_{}D{u}(b{b}, double, {});",
                dims.len(),
                dims.join(", ")
            ),
        };
        let _ = writeln!(out, "{indent}{line}");
        if self.escape == CallerEscape::Realloc {
            let size = if self.alloc == Alloc::Macros {
                format!("sizeof *b{b}")
            } else {
                format!("({d1} + 1) * sizeof *b{b}")
            };
            let _ = writeln!(out, "{indent}b{b} = realloc(b{b}, {size});");
        }
    }

    /// The `free` of `main`'s buffer `b` (none for a local array).
    fn free_text(&self, u: usize, b: usize, indent: &str, out: &mut String) {
        match self.alloc {
            Alloc::Local => {}
            Alloc::Macros => {
                let _ = writeln!(out, "{indent}FREE_ARRAY{u}(b{b});");
            }
            _ => {
                let _ = writeln!(out, "{indent}free(b{b});");
            }
        }
    }

    /// A loop writing every cell of `main`'s buffer `b`.
    fn init_text(&self, u: usize, b: usize, indent: &str, out: &mut String) {
        let dims = self.extents_text(u);
        let _ = writeln!(out, "{indent}for (i = 0; i < {}; i++)", dims[0]);
        match dims.get(1) {
            Some(d2) => {
                let _ = writeln!(
                    out,
                    "{indent}    for (j = 0; j < {d2}; j++)\n{indent}        {} = (double)((i + 2 * j) % 7);",
                    self.cell(b, "i", "j")
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{indent}    {} = (double)(i % 7);",
                    self.cell(b, "i", "")
                );
            }
        }
    }

    /// The loops over the cells of buffer `b` the call wrote, around
    /// `body` (which names the cell `CELL`, and for rows the row `i`).
    fn written_cells(&self, b: usize, indent: &str, body: &str, out: &mut String) {
        match &self.shape {
            BufferShape::Rows { .. } => {
                let _ = writeln!(
                    out,
                    "{indent}for (i = 0; i < n; i++)\n{indent}    for (j = 0; j < m; j++)\n{indent}        {}",
                    body.replace("CELL", &self.cell(b, "i", "j"))
                );
            }
            BufferShape::Chain(chain) => {
                let (lo, hi) = chain.margins()[b];
                let _ = writeln!(
                    out,
                    "{indent}for (i = {lo}; i < {}; i++)\n{indent}    {}",
                    plus("n", -hi),
                    body.replace("CELL", &self.cell(b, "i", ""))
                );
            }
        }
    }

    /// What `main` does after a call with the buffers: prints or sums
    /// them, passes them to `observe0`.
    fn after_call(&self, u: usize, indent: &str, out: &mut String) {
        for b in self.buffers() {
            match self.escape {
                CallerEscape::ReadAfter { sum: false } => self.written_cells(
                    b,
                    indent,
                    &format!("printf(\"u{u} b{b} %d %.17g\\n\", i, CELL);"),
                    out,
                ),
                CallerEscape::ReadAfter { sum: true } => {
                    let _ = writeln!(out, "{indent}{{\n{indent}    double sum = 0.0;");
                    self.written_cells(b, &format!("{indent}    "), "sum += CELL;", out);
                    let _ = writeln!(
                        out,
                        "{indent}    printf(\"u{u} b{b} sum %.17g\\n\", sum);\n{indent}}}"
                    );
                }
                CallerEscape::NonStatic => match &self.shape {
                    BufferShape::Rows { .. } => {
                        let _ = writeln!(
                            out,
                            "{indent}for (i = 0; i < n; i++)\n{indent}    observe{u}(&{}, m);",
                            self.cell(b, "i", "0")
                        );
                    }
                    BufferShape::Chain(chain) => {
                        let (lo, hi) = chain.margins()[b];
                        let _ = writeln!(
                            out,
                            "{indent}if (n > {})\n{indent}    observe{u}(&{}, {});",
                            hi + lo,
                            self.cell(b, &lo.to_string(), ""),
                            plus("n", -(hi + lo))
                        );
                    }
                },
                _ => {}
            }
        }
    }

    /// One call: sizes, the buffers of a call (`Dims::Params`), their
    /// initialisation, the input and output, the call, what it prints.
    fn call_body(
        &self,
        u: usize,
        sizes: (&str, &str),
        label: &str,
        indent: &str,
        out: &mut String,
    ) {
        let once = self.dims != Dims::Params;
        let _ = writeln!(out, "{indent}n = {};\n{indent}m = {};", sizes.0, sizes.1);
        if !once {
            for b in self.buffers() {
                self.alloc_text(u, b, indent, out);
            }
        }
        if self.escape == CallerEscape::InitLoop {
            for b in self.buffers() {
                self.init_text(u, b, indent, out);
            }
        }
        let len = UNIT_ARRAY;
        let _ = write!(
            out,
            "{indent}for (i = 0; i < {len}; i++) {{\n{indent}    \
             x{u}[i] = (double)((i * 37 + {}) % 23) - 11.0;\n{indent}    \
             y{u}[i] = (double)(i % 5);\n{indent}}}\n",
            11 + 5 * u
        );
        if self.escape == CallerEscape::GlobalPointer {
            let _ = writeln!(out, "{indent}keep{u} = (double *)b0;");
        }
        let kernel = if self.escape == CallerEscape::FunctionPointer {
            format!("kp{u}")
        } else {
            format!("k{u}")
        };
        let args: Vec<String> = (0..self.shape.temporaries())
            .map(|s| self.argument(u, s))
            .collect();
        let _ = writeln!(
            out,
            "{indent}{kernel}(n, m, x{u}, {}, y{u});",
            args.join(", ")
        );
        let _ = writeln!(
            out,
            "{indent}for (i = 0; i < {len}; i++)\n{indent}    \
             printf(\"u{u} call %d: %d %.17g %.17g\\n\", {label}, i, x{u}[i], y{u}[i]);"
        );
        self.after_call(u, indent, out);
        if !once {
            for b in self.buffers() {
                self.free_text(u, b, indent, out);
            }
        }
    }

    /// The block of `main`: the buffers (once, or per call), the calls
    /// (one by one, or in a loop over a table of sizes), the frees.
    fn main_text(&self, u: usize, calls: &[UnitCall], out: &mut String) {
        let once = self.dims != Dims::Params;
        let indent = "        ";
        let len = UNIT_ARRAY;
        let _ = writeln!(
            out,
            "{indent}static double x{u}[{len}], y{u}[{len}];\n{indent}int n, m, j, s;\n"
        );
        if once {
            for b in self.buffers() {
                self.alloc_text(u, b, indent, out);
                if self.escape == CallerEscape::Carried && self.alloc != Alloc::Calloc {
                    self.init_text(u, b, indent, out);
                }
            }
        }
        if self.loop_calls {
            let table: Vec<String> = calls
                .iter()
                .map(|c| format!("{{{}, {}}}", c.n, c.other))
                .collect();
            let _ = writeln!(
                out,
                "{indent}static const int sizes{u}[{}][2] = {{ {} }};",
                calls.len(),
                table.join(", ")
            );
            let _ = writeln!(out, "{indent}for (s = 0; s < {}; s++) {{", calls.len());
            self.call_body(
                u,
                (&format!("sizes{u}[s][0]"), &format!("sizes{u}[s][1]")),
                "s",
                "            ",
                out,
            );
            let _ = writeln!(out, "{indent}}}");
        } else {
            for (number, call) in calls.iter().enumerate() {
                let _ = writeln!(out, "{indent}{{");
                self.call_body(
                    u,
                    (&call.n.to_string(), &call.other.to_string()),
                    &number.to_string(),
                    "            ",
                    out,
                );
                let _ = writeln!(out, "{indent}}}");
            }
        }
        if once {
            for b in self.buffers() {
                self.free_text(u, b, indent, out);
            }
        }
    }
}

impl HeapBuffers {
    fn check_call(&self, call: &UnitCall) -> Result<(), String> {
        check_sizes(call)?;
        if let Some(w) = self.width
            && (w != call.other || !self.shape.is_rows())
        {
            return Err(format!("width {w} with columns {}", call.other));
        }
        let rows_alloc = matches!(self.alloc, HeapAlloc::VlaRows | HeapAlloc::Linear);
        if rows_alloc != self.shape.is_rows() {
            return Err("allocation of another shape".into());
        }
        Ok(())
    }

    /// The columns: `m` or `W0`.
    fn columns(&self, u: usize) -> String {
        match self.width {
            Some(_) => format!("W{u}"),
            None => "m".to_string(),
        }
    }

    /// The declaration of scratch `name` of `rows` rows, allocated with
    /// `size` (`None`: the allocation's own size expression).
    fn allocation(&self, u: usize, name: &str, rows: &str, sized: bool) -> String {
        let c = self.columns(u);
        let bytes = |cols: &str| format!("bytes{u}({rows}, {cols})");
        match self.alloc {
            HeapAlloc::Malloc | HeapAlloc::Calloc if sized => {
                format!("double *{name} = malloc({});", bytes("1"))
            }
            HeapAlloc::Malloc => format!("double *{name} = malloc({rows} * sizeof *{name});"),
            HeapAlloc::Calloc => format!("double *{name} = calloc({rows}, sizeof *{name});"),
            HeapAlloc::VlaRows if sized => {
                format!("double (*{name})[{c}] = malloc({});", bytes(&c))
            }
            HeapAlloc::VlaRows => {
                format!("double (*{name})[{c}] = malloc(sizeof(double[{rows}][{c}]));")
            }
            HeapAlloc::Linear if sized => format!("double *{name} = malloc({});", bytes(&c)),
            HeapAlloc::Linear => format!("double *{name} = malloc(sizeof(double) * {rows} * {c});"),
        }
    }

    /// The type of a pointer to the scratch (`double *`, `double (*)[C]`)
    /// declaring `name`.
    fn pointer(&self, u: usize, name: &str) -> String {
        match self.alloc {
            HeapAlloc::VlaRows => format!("double (*{name})[{}]", self.columns(u)),
            _ => format!("double *{name}"),
        }
    }

    fn file_text(&self, u: usize, out: &mut String) {
        out.push_str("#include <stdlib.h>\n");
        if let Some(w) = self.width {
            let _ = writeln!(out, "#define W{u} {w}");
        }
        match self.escape {
            HeapEscape::Global => {
                let _ = writeln!(out, "static double *keep{u};");
            }
            HeapEscape::Unknown => observer_text(u, out),
            HeapEscape::SizeCall => {
                let _ = write!(
                    out,
                    "\nsize_t bytes{u}(int rows, int cols)\n{{\n    \
                     return sizeof(double) * (size_t)rows * (size_t)cols;\n}}\n"
                );
            }
            _ => {}
        }
        let _ = writeln!(
            out,
            "\nstatic void k{u}(int n, int m, const double in[{UNIT_ARRAY}], double out[{UNIT_ARRAY}])\n{{"
        );
        let escape = self.escape;
        let temps = self.shape.temporaries();
        for s in 0..temps {
            let name = format!("t{s}");
            let line = match escape {
                HeapEscape::Plus if s == 0 => format!(
                    "{}\n    {} = base{u} + 1;",
                    self.allocation(u, &format!("base{u}"), "(n + 1)", false),
                    self.pointer(u, "t0")
                ),
                HeapEscape::Increment if s == 0 => {
                    format!("{}\n    t0++;", self.allocation(u, "t0", "(n + 1)", false))
                }
                HeapEscape::SizeCall if s == 0 => self.allocation(u, &name, "n", true),
                _ => self.allocation(u, &name, "n", false),
            };
            let _ = writeln!(out, "    {line}");
        }
        match escape {
            HeapEscape::Global => {
                let _ = writeln!(out, "    keep{u} = (double *)t0;");
            }
            HeapEscape::Realloc => {
                let size = match self.alloc {
                    HeapAlloc::VlaRows => format!("sizeof(double[n + 1][{}])", self.columns(u)),
                    HeapAlloc::Linear => format!("sizeof(double) * (n + 1) * {}", self.columns(u)),
                    _ => "(n + 1) * sizeof *t0".to_string(),
                };
                let _ = writeln!(out, "    t0 = realloc(t0, {size});");
            }
            _ => {}
        }
        let c = self.columns(u);
        let linear = self.alloc == HeapAlloc::Linear;
        let cell = |i: &str, j: &str| {
            if linear {
                let paren = |e: &str| {
                    if e.contains(' ') {
                        format!("({e})")
                    } else {
                        e.to_string()
                    }
                };
                let row = paren(i);
                match self.linear_order {
                    LinearOrder::RowFirst => format!("t0[{row} * {c} + {}]", paren(j)),
                    LinearOrder::ColumnFirst => format!("t0[{} + {c} * {row}]", paren(j)),
                    LinearOrder::Flat => format!("t0[{row} * {c} + {j}]"),
                }
            } else {
                format!("t0[{i}][{j}]")
            }
        };
        out.push_str(&scratch_scop(
            &self.shape,
            self.constant,
            false,
            "n",
            &c,
            &cell,
        ));
        if escape == HeapEscape::Unknown {
            match &self.shape {
                BufferShape::Rows { .. } => {
                    let _ = writeln!(out, "    observe{u}((const double *)t0, n * {c});");
                }
                BufferShape::Chain(chain) => {
                    let (lo, hi) = chain.margins()[0];
                    let _ = writeln!(
                        out,
                        "    if (n > {})\n        observe{u}({}, {});",
                        hi + lo,
                        plus("t0", lo),
                        plus("n", -(hi + lo))
                    );
                }
            }
        }
        for s in 0..temps {
            let line = match escape {
                HeapEscape::Plus if s == 0 => format!("free(base{u});"),
                HeapEscape::Increment if s == 0 => "free(t0 - 1);".to_string(),
                _ => format!("free(t{s});"),
            };
            let _ = writeln!(out, "    {line}");
        }
        out.push_str("}\n");
    }
}

/// 1 one time in four, otherwise in `1..=hi`.
fn small(rng: &mut Rng, hi: i64) -> i64 {
    if rng.chance(1, 4) {
        1
    } else {
        rng.range(1, hi)
    }
}

fn draw_rows(rng: &mut Rng) -> BufferShape {
    BufferShape::Rows {
        recurrence: rng.chance(1, 2),
        weights: [
            rng.below(WEIGHTS.len()),
            rng.below(WEIGHTS.len()),
            rng.below(WEIGHTS.len()),
            rng.below(WEIGHTS.len()),
        ],
    }
}

fn draw_caller_buffers(rng: &mut Rng) -> (UnitKind, Vec<UnitCall>) {
    let escape = if rng.chance(1, 2) {
        CallerEscape::None
    } else {
        *rng.pick(&[
            CallerEscape::ReadAfter { sum: false },
            CallerEscape::ReadAfter { sum: true },
            CallerEscape::GlobalPointer,
            CallerEscape::NonStatic,
            CallerEscape::FunctionPointer,
            CallerEscape::Realloc,
            CallerEscape::PassedTwice,
            CallerEscape::Carried,
            CallerEscape::InitLoop,
        ])
    };
    let shape = if escape == CallerEscape::PassedTwice {
        let stages = rng.range(3, 4) as usize;
        BufferShape::Chain(Chain::draw(rng, stages, 6))
    } else if rng.chance(1, 2) {
        draw_rows(rng)
    } else {
        BufferShape::Chain(draw_chain(rng))
    };
    let mut dims = *rng.pick(&[Dims::Macros, Dims::MacroBounds, Dims::Params]);
    if escape == CallerEscape::Carried && dims == Dims::Params {
        dims = Dims::Macros;
    }
    let mut alloc = *rng.pick(&[
        Alloc::Local,
        Alloc::MallocArray,
        Alloc::MallocRows,
        Alloc::Calloc,
        Alloc::Macros,
    ]);
    if escape == CallerEscape::Realloc && alloc == Alloc::Local {
        alloc = Alloc::MallocRows;
    }
    let extents = match dims {
        Dims::MacroBounds => (small(rng, 8), small(rng, 8)),
        _ => (rng.range(1, MAX_ROWS), rng.range(1, MAX_ROWS)),
    };
    let mut count = rng.range(1, 3) as usize;
    if escape == CallerEscape::Carried {
        count = count.max(2);
    }
    let calls = (0..count)
        .map(|_| {
            let (n, m) = match dims {
                Dims::MacroBounds => extents,
                Dims::Macros => (small(rng, extents.0), small(rng, extents.1)),
                Dims::Params => (small(rng, MAX_ROWS), small(rng, MAX_ROWS)),
            };
            UnitCall {
                other: m,
                ..UnitCall::plain(n)
            }
        })
        .collect();
    let kind = UnitKind::CallerBuffers(CallerBuffers {
        shape,
        dims,
        alloc,
        escape,
        extents,
        loop_calls: count > 1 && rng.chance(1, 2),
        constant: rng.range(-2, 2),
    });
    (kind, calls)
}

fn draw_heap_buffers(rng: &mut Rng) -> (UnitKind, Vec<UnitCall>) {
    let alloc = *rng.pick(&[
        HeapAlloc::Malloc,
        HeapAlloc::Calloc,
        HeapAlloc::VlaRows,
        HeapAlloc::Linear,
    ]);
    let rows = matches!(alloc, HeapAlloc::VlaRows | HeapAlloc::Linear);
    let shape = if rows {
        draw_rows(rng)
    } else {
        BufferShape::Chain(draw_chain(rng))
    };
    let escape = if rng.chance(1, 2) {
        HeapEscape::None
    } else {
        *rng.pick(&[
            HeapEscape::Global,
            HeapEscape::Unknown,
            HeapEscape::Realloc,
            HeapEscape::Plus,
            HeapEscape::Increment,
            HeapEscape::SizeCall,
        ])
    };
    let width = (rows && rng.chance(1, 3)).then(|| small(rng, 8));
    let calls = (0..rng.range(1, 3))
        .map(|_| UnitCall {
            other: width.unwrap_or_else(|| small(rng, MAX_ROWS)),
            ..UnitCall::plain(small(rng, MAX_ROWS))
        })
        .collect();
    let kind = UnitKind::HeapBuffers(HeapBuffers {
        shape,
        alloc,
        escape,
        width,
        constant: rng.range(-2, 2),
        linear_order: if alloc == HeapAlloc::Linear {
            *rng.pick(&[
                LinearOrder::RowFirst,
                LinearOrder::ColumnFirst,
                LinearOrder::Flat,
            ])
        } else {
            LinearOrder::Flat
        },
    });
    (kind, calls)
}
