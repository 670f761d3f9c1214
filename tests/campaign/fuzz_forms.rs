//! The forms of C that the random-program generator can produce (issue
//! 14: sizes as macros with operators, `/` and `%`, `#ifdef` and
//! `#ifndef` sizes, comments, brace-less bodies, `else`, copy-back loops,
//! block-scoped temporaries, VLA kernels called with tiny sizes, OpenMP).
//!
//! For each form alone, generated programs are reproducible, well defined
//! for every build and call they declare, show the form in their text,
//! compile with `cc` and print the same under every other build that
//! keeps the sizes (`-fopenmp` with 4 threads), and parse with lang-c.
//!
//! Programs of symbolic sizes (`generate_sized(.., true)`, the campaign's
//! `--sizes symbolic`) give no size a value, call their kernel with
//! several sizes (1, 2, 3 among them) and pass the differential check;
//! the check catches a fold that is right at the sizes a program was built
//! for and wrong at another size it is called with.

use std::path::Path;
use std::time::Duration;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use polyfold_fuzz::check::{
    CheckOptions, FailureKind, builds_for, check_program, compare_output, compile, run_with_env,
    scratch_dir, verify_at_sizes,
};
use polyfold_fuzz::generate::{generate, generate_sized, generate_with};
use polyfold_fuzz::minimise::minimise;
use polyfold_fuzz::program::{Forms, GenProgram, SizeForm, SizeMode};
use polyfold_fuzz::real_c::{BufferShape, CallerEscape, Dims, RealCForm, UnitKind};

/// Runs `each` on every seed of `seeds`, on two threads.
fn on_two_threads(seeds: &[u64], each: impl Fn(u64) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some(&seed) = seeds.get(next.fetch_add(1, Ordering::SeqCst)) {
                    each(seed);
                }
            });
        }
    });
}

/// The text between `#pragma scop` and `#pragma endscop`.
fn scop_text(text: &str) -> &str {
    text.split("#pragma scop")
        .nth(1)
        .and_then(|rest| rest.split("#pragma endscop").next())
        .unwrap_or("")
}

/// Whether `program` (printed as `text`) uses the form `name`.
fn shows_form(name: &str, program: &GenProgram, text: &str) -> bool {
    // The other forms read the loops without their declared iterators.
    let plain = scop_text(text).replace("for (int ", "for (");
    let scop = plain.as_str();
    match name {
        "declared-iterators" => scop_text(text).contains("for (int "),
        "derived-macros" => ["LAST", "PLUS", "HALF", "QUART"]
            .iter()
            .any(|m| text.contains(&format!("#define {m}")) && scop.contains(m)),
        "div-mod" => scop.contains(" / ") || scop.contains(" % "),
        "ifdef-sizes" => text.contains("SMALL_DATASET"),
        "other-sizes" => text.contains("#ifndef N") && !program.shape.configs.is_empty(),
        "comments" => scop.contains("// ") || scop.contains("/* "),
        "braceless" => scop.lines().any(|l| {
            let l = l.trim();
            (l.starts_with("for") || l.starts_with("if")) && l.ends_with(')')
        }),
        "else" => scop.contains("else"),
        "copy-back" => scop.contains("- 1 >= 0 && N"),
        "block-scoped" => scop.lines().any(|l| l.trim_start().starts_with("double ")),
        "vla" => {
            text.contains("static void kernel(int ")
                && program
                    .shape
                    .calls
                    .iter()
                    .any(|c| c.iter().any(|v| *v <= 3))
        }
        "openmp" => text.contains("#pragma omp parallel for"),
        "products" => scop.lines().any(|l| {
            l.split("in[")
                .chain(l.split("out["))
                .skip(1)
                .any(|rest| rest.starts_with('N') && rest.contains(" * "))
        }),
        "temp-parameters" => {
            text.contains("#pragma polyfold temp(") && text.contains("static void kernel(double T")
        }
        "triangles" => scop.contains("for (k = i + 1; k <= j - 1; k++)") || is_row_sums(scop),
        "chains" => scop.contains(" || "),
        "skewed" => {
            scop.contains("[i + j][j] = ")
                || scop.contains("[i][i + j] = ")
                || scop.contains("[i - j + N")
        }
        "strided" => scop.contains("[2 * i") || scop.contains("[3 * i"),
        "regions" => scop.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with('T')
                && (l.contains("[i + N") || l.contains("[i + 2 * N"))
                && l.contains("] = ")
        }),
        "initialised" => text.contains("] = {0};"),
        "stencil-chains" => stencil_chain_length(scop) >= 2,
        "time-loops" => time_depth(scop) >= 1,
        "labels-bitwise" => {
            scop.contains(") & (")
                || scop.lines().any(|l| {
                    let l = l.trim_start();
                    l.starts_with('L') && (l.ends_with(':') || l.contains(": for ("))
                })
        }
        _ => {
            let form = RealCForm::ALL
                .into_iter()
                .find(|f| f.name() == name)
                .unwrap_or_else(|| panic!("unknown form {name}"));
            program.real_c_forms().contains(&form) && shows_real_c_form(form, text)
        }
    }
}

/// Whether `text` shows the hazard of the issue-45 form `form` (see
/// `polyfold_fuzz::real_c`).
fn shows_real_c_form(form: RealCForm, text: &str) -> bool {
    let unit = text
        .split("/* issue 45 form ")
        .skip(1)
        .find(|u| u.starts_with(form.name()))
        .map_or("", |u| u.split("int main(void)").next().unwrap_or(u));
    let main = text.split("int main(void)").nth(1).unwrap_or("");
    match form {
        RealCForm::StatefulCalls => {
            [
                "noise0()",
                "next_byte0()",
                "get_total0()",
                "next_byte1()",
                "noise1()",
            ]
            .iter()
            .any(|c| unit.matches(c).count() >= 2)
                || unit.contains("get_total")
                || unit.contains("sqrt(")
                || unit.contains("__attribute__((const))")
                || unit.contains(" sq")
        }
        RealCForm::InPlaceCalls => main.lines().any(|l| {
            let l = l.trim();
            (l.starts_with("k0(") || l.starts_with("k1(")) && l.matches(", x").count() == 2
        }),
        RealCForm::ExtremeBases => {
            unit.contains("i - base")
                && (main.contains(", INT_MAX - ") || main.contains(", INT_MIN"))
        }
        RealCForm::LongIterators => unit.contains("long j;") && unit.contains("j * 1000000"),
        RealCForm::OpenmpIfdef => [
            "#ifdef _OPENMP",
            "#if defined(_OPENMP)",
            "#if USE_OMP",
            "_Pragma(\"omp",
        ]
        .iter()
        .any(|p| unit.contains(p)),
        RealCForm::DeclarationEffects => {
            unit.contains("] = { next_byte")
                || unit.contains("] = { noise")
                || (unit.contains("[n + ")
                    && (unit.contains("n = n + ")
                        || unit.contains("n += ")
                        || unit.contains("n++;")))
        }
        RealCForm::UndefMacros => unit.contains("#undef N\n#define N "),
        RealCForm::CMacros => {
            unit.contains("#define RESTRICT ")
                && (unit.contains("UNUSED int flag") || unit.contains("int flag UNUSED"))
                && unit.contains("FOR(i, ")
        }
        RealCForm::CallerBuffers => {
            // An array parameter used in the SCoP, a buffer of main's.
            unit.contains("#pragma scop")
                && (unit.contains(", double t0[") || unit.contains(", double ARRAY_"))
                && (main.contains(", b0, ") || main.contains(", ARR0(b0), "))
        }
        RealCForm::HeapBuffers => {
            unit.contains("#pragma scop")
                && (unit.contains("= malloc(") || unit.contains("= calloc("))
                && unit.contains("    free(")
        }
    }
}

/// One statement alone in a top-level loop (maybe inside an inner loop
/// over `j`): the loop's iterator, the statement's target and its text.
struct Stage<'a> {
    var: &'a str,
    target: &'a str,
    line: &'a str,
}

/// The top-level items of `scop` (with headers `for (` only, no
/// `for (int `) that are a loop around one assignment (maybe in an inner
/// loop over `j`), in order; `None` for every other item.
fn stages(scop: &str) -> Vec<Option<Stage<'_>>> {
    let mut items: Vec<Vec<&str>> = Vec::new();
    for line in scop.lines().filter(|l| !l.trim().is_empty()) {
        // Top-level lines start items (a `#pragma` line too), but for
        // the closing braces of a loop.
        let top = !line.starts_with("     ");
        if top && !line.trim_start().starts_with('}') || items.is_empty() {
            items.push(Vec::new());
        }
        items.last_mut().expect("an item").push(line);
    }
    items
        .into_iter()
        .map(|item| {
            let header = item[0].trim_start().strip_prefix("for (")?;
            let var = header.split(' ').next()?;
            let body: Vec<&str> = item[1..]
                .iter()
                // Without the printer's comments (`// u[i] = un[i]; }`).
                .map(|l| {
                    let code = l.split("//").next().unwrap_or(l);
                    code.split("/*").next().unwrap_or(code).trim()
                })
                .filter(|l| *l != "}" && !l.starts_with("for (j = "))
                .collect();
            let [line] = body.as_slice() else {
                return None;
            };
            let target = line.split('[').next()?;
            Some(Stage { var, target, line })
        })
        .collect()
}

/// Whether the assignment `line` reads `array` only at `[var]`,
/// `[var + c]` or `[var - c]` (`c` in 1..=2) in its first subscript,
/// at least once.
fn reads_at_offsets(line: &str, array: &str, var: &str) -> bool {
    let Some((_, rhs)) = line.split_once(" = ").or_else(|| line.split_once(" += ")) else {
        return false;
    };
    let pattern = format!("{array}[");
    let reads: Vec<&str> = rhs.split(&pattern).skip(1).collect();
    !reads.is_empty()
        && reads.iter().all(|rest| {
            let subscript = rest.split(']').next().unwrap_or("");
            subscript == var
                || ["1", "2"].iter().any(|c| {
                    subscript == format!("{var} + {c}") || subscript == format!("{var} - {c}")
                })
        })
}

/// The number of stages of the longest stencil chain of the
/// `stencil-chains` form in `scop` (0 when there is none): consecutive
/// top-level loops around one assignment each, the first writing a
/// temporary from `in`, each later one reading the stage before's
/// temporary at small offsets of its own iterator, the last writing `out`.
fn stencil_chain_length(scop: &str) -> usize {
    let plain = scop.replace("for (int ", "for (");
    let stages = stages(&plain);
    let mut best = 0;
    for start in 0..stages.len() {
        let Some(first) = &stages[start] else {
            continue;
        };
        if !first.target.starts_with('T') || !first.line.contains(" = ") {
            continue;
        }
        let mut previous = first;
        for (n, next) in stages[start + 1..].iter().enumerate() {
            let Some(next) = next else { break };
            if !reads_at_offsets(next.line, previous.target, next.var) {
                break;
            }
            if next.target == "out" {
                best = best.max(n + 2);
                break;
            }
            previous = next;
        }
    }
    best
}

/// The row sums of an upper triangle (reg_detect's `sum_t`), one shape of
/// the `triangles` form: `T[i][j] = w * T[i][j - 1] + …` for `j > i`.
fn is_row_sums(scop: &str) -> bool {
    scop.contains("for (j = i + 1;") && (scop.contains("[i][j - 1]") || scop.contains("[j - 1][i]"))
}

/// The `products` form writes `out` at a size times an iterator too
/// (`out[N0 * j] += …`): a value folded into the subscript of an array the
/// SCoP writes, which concerns that array only. The temporaries of such
/// programs with `#define` sizes are still certified for every value
/// (no `_Static_assert` naming a value with `==`) when nothing else folds
/// a value, in some of them.
#[test]
fn the_products_form_writes_the_output_at_products_too() {
    let forms = Forms::parse("products").expect("known form");
    let (mut written, mut unpinned) = (0, 0);
    for seed in 0..80 {
        let text = generate_with(seed, &forms).to_c();
        let scop = scop_text(&text);
        let writes_product = scop.lines().any(|l| {
            l.trim_start()
                .strip_prefix("out[")
                .is_some_and(|rest| rest.starts_with('N') && rest.contains(" * "))
        });
        if !writes_product {
            continue;
        }
        written += 1;
        let result = polyfold::pipeline::contract_program(
            &polyfold::frontend::extract(
                "products.c",
                &text,
                &polyfold::frontend::Options::default(),
            ),
            &Default::default(),
        )
        .expect("contracts");
        let folded = result.decisions.iter().any(|d| {
            matches!(
                &d.outcome,
                polyfold::pipeline::record::ArrayOutcome::Remapped { certified, .. }
                    if matches!(certified.certificate(), polyfold::mapping::Certificate::ForAllParameters)
            )
        });
        unpinned += usize::from(folded && !text.contains(" in[N") && !scop.contains(" / "));
    }
    assert!(written >= 5, "{written} programs write out at a product");
    assert!(
        unpinned >= 1,
        "{unpinned} of {written} fold a temporary for every value"
    );
}

#[test]
fn the_triangles_form_makes_both_shapes_and_row_sums_fold_with_quasi_affine_moduli() {
    let forms = Forms::parse("triangles").expect("known form");
    let (mut dynprog, mut row_sums) = (0, 0);
    let mut quasi = None;
    let mut packed = 0;
    for seed in 0..60 {
        let text = generate_with(seed, &forms).to_c();
        let scop = scop_text(&text);
        dynprog += usize::from(scop.contains("for (k = i + 1; k <= j - 1; k++)"));
        if is_row_sums(scop) {
            row_sums += 1;
            // By default the upper triangle is packed row by row: row `i`
            // at `i * (2 * P - 1 - i) / 2`, P·(P + 1)/2 cells.
            let out = polyfold::pipeline::contract_program(
                &polyfold::frontend::extract(
                    "row_sums.c",
                    &text,
                    &polyfold::frontend::Options::default(),
                ),
                &Default::default(),
            )
            .expect("contracts")
            .output;
            // Upper: row `i` at `i * (2 * P - 1 - i) / 2`; lower (the
            // transposed sums): row `j` at `j * (j + 1) / 2`.
            packed += usize::from(
                (out.contains("[i * (2 * N") || out.contains("[j * (j + 1) / 2 + i]"))
                    && out.contains(" + 1) / 2]"),
            );
            if quasi.is_none() {
                // The lattice, with packed triangles off (packed, the row
                // sums take P·(P + 1)/2 cells, fewer).
                let out = polyfold::pipeline::contract_program(
                    &polyfold::frontend::extract(
                        "row_sums.c",
                        &text,
                        &polyfold::frontend::Options::default(),
                    ),
                    &polyfold::pipeline::ContractOptions {
                        packing: false,
                        ..Default::default()
                    },
                )
                .expect("contracts")
                .output;
                // The triangle's lattice, (P + 1) / 2 by (3 * P + 1) / 2
                // for every P (the size is a parameter N0, N1, …).
                if out.contains(" + 1) / 2][(3 * N") {
                    quasi = Some(seed);
                }
            }
        }
    }
    assert!(
        dynprog >= 3 && row_sums >= 3,
        "{dynprog} dynprog, {row_sums} row sums"
    );
    assert!(
        quasi.is_some(),
        "no row-sums program of seeds 0..60 got the triangle lattice"
    );
    assert!(
        packed >= 3,
        "{packed} of {row_sums} row-sums programs packed"
    );
}

/// polyfold's output for a generated program's `text`.
fn contracted(file: &str, text: &str) -> String {
    polyfold::pipeline::contract_program(
        &polyfold::frontend::extract(file, text, &polyfold::frontend::Options::default()),
        &Default::default(),
    )
    .expect("contracts")
    .output
}

/// The `chains` form (mot_detect's `Delta`): `T[W * j + k]` from the cell
/// before it under `if (j - 1 >= 0 || k - 1 >= 0)`. Every value is read by
/// the next iteration only, so one cell per chain holds them (brute force:
/// the max-live of such a chain is 1), and polyfold finds it with the
/// sizes as parameters without values: the projection that finds the
/// writer of `T[W * j + k - 1]` is exact (its `k` spans `W` values) once
/// the `||` is split into disjoint pieces. Before, every chain was kept
/// ("no known value").
#[test]
fn the_chains_form_folds_each_chain_to_one_cell_for_every_size() {
    let forms = Forms::parse("chains").expect("known form");
    let (mut chains, mut folded) = (0, 0);
    for seed in 0..100 {
        let text = generate_sized(seed, &forms, true).to_c();
        let scop = scop_text(&text);
        let lines: Vec<&str> = scop.lines().collect();
        // The chain's array: named on the line after its guard.
        let names: Vec<String> = lines
            .windows(2)
            .filter(|w| w[0].contains(" || "))
            .filter_map(|w| {
                let l = w[1].trim_start();
                l.find('[').map(|b| l[..b].to_string())
            })
            .collect();
        if names.is_empty() {
            continue;
        }
        let out = contracted("chains.c", &text);
        for name in names {
            chains += 1;
            // One cell: the array becomes a scalar, `double T0;`.
            folded += usize::from(out.contains(&format!("double {name};")));
        }
    }
    assert!(chains >= 5, "{chains} chains in seeds 0..100");
    assert_eq!(folded, chains, "every chain folds to one cell");
}

/// The `skewed` form (issue 21): a temporary written at `T[i + j][j]`,
/// `T[i][i + j]` or `T[i - j + Q - 1][j]` (shifted by `Q - 1` in its
/// write's basis) over a P × Q rectangle (declared with the wide extent
/// P + Q − 1) and read whole by a later nest needs exactly P·Q cells (one
/// per iteration, all live at once): polyfold declares it `[P][Q]` for
/// every size (symbolic sizes), in the write's own basis, where no access
/// wraps: `T[i][j]`. When P and Q are one size (`2 * N - 1`) the context
/// says P >= 1; with two sizes nothing declares P alone, and the extent is
/// guarded (`P > 1 ? P : 1`) — before the guarded extents of general
/// layouts, the lattice `T[(i + j) % P][j]` was taken instead.
#[test]
fn the_skewed_form_folds_to_its_rectangle_and_one_size_ones_to_plain_subscripts() {
    let forms = Forms::parse("skewed").expect("known form");
    let (mut skewed, mut one_size, mut plain) = (0, 0, 0);
    for seed in 0..100 {
        let text = generate_sized(seed, &forms, true).to_c();
        let scop = scop_text(&text);
        let names: Vec<String> = scop
            .lines()
            .map(str::trim_start)
            .filter(|l| {
                l.contains("[i + j][j] = ")
                    || l.contains("[i][i + j] = ")
                    || (l.contains("[i - j + N") && l.contains("][j] = "))
            })
            .filter_map(|l| l.find('[').map(|b| l[..b].to_string()))
            .collect();
        if names.is_empty() {
            continue;
        }
        let out = contracted("skewed.c", &text);
        for name in names {
            skewed += 1;
            let declared = |t: &str| {
                t.lines()
                    .find(|l| l.trim_start().starts_with(&format!("double {name}[")))
                    .map(|l| l.trim().to_string())
                    .unwrap_or_default()
            };
            let (before, after) = (declared(&text), declared(&out));
            assert!(before.contains(" - 1]"), "{before}");
            assert!(
                !after.split(';').next().unwrap_or("").contains(" - 1"),
                "seed {seed}: {name} keeps the wide extent: {after}"
            );
            if before.contains("2 * N") {
                one_size += 1;
                assert!(
                    out.contains(&format!("{name}[i][j] = ")),
                    "seed {seed}: {name} is not written plainly"
                );
            }
            plain += usize::from(out.contains(&format!("{name}[i][j] = ")));
        }
    }
    assert!(
        skewed >= 10 && one_size >= 3 && plain == skewed,
        "{skewed} skewed, {one_size} of one size, {plain} plain in seeds 0..100"
    );
}

/// The `strided` form (issue 21): a temporary written at `T[g * i + r][c]`
/// or `T[g * i + r][j]` (`g` 2 or 3) over `P` (× `Q`) iterations and read
/// by a later nest needs `P` (`P·Q`) cells, one per iteration, all live
/// at once (the recurrence variant reads the row before, written earlier
/// in the same nest): with one residue, polyfold divides the stride out
/// for every size, declares the rows `P` instead of `g·P` and writes
/// `T[i]` (or merges it with other temporaries). With two residues (`2 * i` and `2 * i + 1`) the cells are not
/// on one stride lattice and no stride may be removed: those are only
/// counted (the campaign checks that their output runs the same).
#[test]
fn the_strided_form_loses_its_stride_for_every_size() {
    let forms = Forms::parse("strided").expect("known form");
    let (mut single, mut removed, mut two) = (0, 0, 0);
    for seed in 0..120 {
        let text = generate_sized(seed, &forms, true).to_c();
        let scop = scop_text(&text);
        // Per strided array: the distinct first subscripts of its writes.
        let mut writes: Vec<(String, Vec<String>)> = Vec::new();
        for line in scop.lines().map(str::trim_start) {
            let Some(b) = line.find('[') else { continue };
            let (name, rest) = line.split_at(b);
            if !name.starts_with('T') || !(rest.starts_with("[2 * i") || rest.starts_with("[3 * i"))
            {
                continue;
            }
            if !rest.contains("] = ") {
                continue;
            }
            let first = rest[1..rest.find(']').expect("subscript")].to_string();
            match writes.iter_mut().find(|(n, _)| n == name) {
                Some((_, subs)) if !subs.contains(&first) => subs.push(first),
                Some(_) => {}
                None => writes.push((name.to_string(), vec![first])),
            }
        }
        // The form's arrays are declared `[g * Nk]` (other groups may
        // write `2 * i` too, with other extents).
        writes.retain(|(name, _)| {
            text.lines().any(|l| {
                let l = l.trim_start();
                ["2", "3"].iter().any(|g| {
                    l.strip_prefix(&format!("double {name}[{g} * N"))
                        .is_some_and(|rest| {
                            rest.trim_start_matches(|c: char| c.is_ascii_digit())
                                .starts_with("][")
                        })
                })
            })
        });
        if writes.is_empty() {
            continue;
        }
        let out = contracted("strided.c", &text);
        for (name, subs) in writes {
            if subs.len() > 1 {
                two += 1;
                continue;
            }
            single += 1;
            let declared = out
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("double {name}[")))
                .map(|l| l.split(';').next().unwrap_or("").trim().to_string())
                .unwrap_or_default();
            if declared.is_empty() {
                // Merged with other temporaries (inter-array): the merged
                // buffers replace every access.
                assert!(
                    out.contains("polyfold_buf") && !out.contains(&format!("{name}[")),
                    "seed {seed}: {name}\n{out}"
                );
                removed += 1;
                continue;
            }
            assert!(
                !declared.contains("2 * N") && !declared.contains("3 * N"),
                "seed {seed}: {name} keeps its stride: {declared}"
            );
            assert!(
                out.contains(&format!("{name}[i] = ")) || out.contains(&format!("{name}[i][j] = ")),
                "seed {seed}: {name} is not written at its iterators\n{out}"
            );
            removed += 1;
        }
    }
    assert!(
        single >= 10 && two >= 2 && removed == single,
        "{single} of one residue ({removed} removed), {two} of two in seeds 0..120"
    );
}

/// The `stencil-chains` form makes chains of 2 to 4 sibling loops that
/// loop shifting and fusion fuses: of 40 programs of the form alone (each
/// with a chain, besides 0 to 2 other groups in the same SCoP), the
/// `polyfold` binary's text report says `fused` for most. What keeps
/// the others apart: a comment after a brace-less stage's statement (text
/// between the loops), other groups' temporaries that make the cells
/// fusion saves less than a quarter of the SCoP's, merged buffers
/// (inter-array) whose cells count at known values only. Some 2-d chains
/// read each stage's own row only: there the fused row window becomes
/// rotating scalars inside the loop of rows.
#[test]
fn the_stencil_chains_form_is_fused_by_polyfold() {
    let forms = Forms::parse("stencil-chains").expect("known form");
    let scratch = scratch_dir("fuzz-stencil").expect("scratch directory");
    let seeds: Vec<u64> = (0..40).collect();
    let results = Mutex::new(Vec::new());
    on_two_threads(&seeds, |seed| {
        let text = generate_with(seed, &forms).to_c();
        let chain = stencil_chain_length(scop_text(&text));
        let path = scratch.join(format!("stencil_{seed}.c"));
        std::fs::write(&path, &text).expect("write");
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_polyfold"))
            .args(["--report", "text"])
            .arg(&path)
            .output()
            .expect("polyfold runs");
        let report = String::from_utf8_lossy(&output.stdout);
        let fused = report.lines().any(|l| l.contains(" fused"));
        // A 2-d chain that reads along `j`: is a row window kept in
        // scalars inside the loop of rows (`T0[i][j - 1]` ->
        // `T0_s0 = T0[i][j - 1]`)? By default the cost rule refuses the
        // inner loops' fusion that the window needs (it stops their
        // vectorisation, docs/benchmarks.md).
        let row_scalars = (text.contains("][j - ") || text.contains("][j + "))
            && std::process::Command::new(env!("CARGO_BIN_EXE_polyfold"))
                .arg(&path)
                .output()
                .is_ok_and(|o| {
                    String::from_utf8_lossy(&o.stdout).lines().any(|l| {
                        l.contains("-> scalars ")
                            && l.contains("_s0 = ")
                            && l.split("_s0 = ").nth(1).is_some_and(|r| r.contains("][j"))
                    })
                });
        results
            .lock()
            .expect("lock")
            .push((seed, chain, fused, row_scalars));
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let results = results.into_inner().expect("lock");
    let without: Vec<u64> = results
        .iter()
        .filter(|(_, chain, ..)| !(2..=4).contains(chain))
        .map(|(seed, ..)| *seed)
        .collect();
    assert!(without.is_empty(), "seeds without a chain: {without:?}");
    let fused = results.iter().filter(|(_, _, f, _)| *f).count();
    assert!(
        fused * 2 >= results.len(),
        "polyfold fused the loops of only {fused} of {} programs",
        results.len()
    );
    // Chains of every length, 2-d ones among them.
    for length in 2..=4 {
        assert!(
            results.iter().any(|(_, chain, ..)| *chain == length),
            "no chain of {length} stages"
        );
    }
    let two_d = (0..40)
        .filter(|seed| {
            let text = generate_with(*seed, &forms).to_c();
            scop_text(&text).contains("[j] = ")
        })
        .count();
    assert!(two_d >= 5, "only {two_d} 2-d chains");
    // Chains that read their own row only (gecos_gaussian's form): the
    // cost rule keeps their inner loops apart by default, so no window of
    // a row is kept in scalars by inner loops (measured slower:
    // gecos_gaussian 1.72 times at -O3 in the cache; the window itself is
    // tested with --min-memory in tests/pipeline/rotating_scalars.rs).
    let rows: Vec<u64> = results
        .iter()
        .filter(|(.., rows)| *rows)
        .map(|(seed, ..)| *seed)
        .collect();
    assert!(
        rows.is_empty(),
        "row windows kept in scalars by default: {rows:?}"
    );
}

/// Programs of `--forms all` that draw no stencil chain are the ones the
/// generator made before the form existed: its draws come from a stream
/// of their own. Half of them have a chain, mostly as the first group.
#[test]
fn the_stencil_chains_form_leaves_other_programs_as_they_were() {
    // Without time loops, which may wrap a chain (the chain's text is then
    // not the top-level run this test reads), and without labels and `&`
    // conditions, which the chain reader does not read.
    let all = Forms {
        time_loops: false,
        labels_bitwise: false,
        ..Forms::all()
    };
    let without = Forms {
        stencil_chains: false,
        ..all
    };
    let (mut same, mut first) = (0, 0);
    for seed in 0..60 {
        for symbolic in [false, true] {
            let with = generate_sized(seed, &all, symbolic);
            if with == generate_sized(seed, &without, symbolic) {
                same += 1;
                continue;
            }
            // Changed: the program has a chain.
            let text = with.to_c();
            let scop = scop_text(&text);
            assert!(
                stencil_chain_length(scop) >= 2,
                "seed {seed} (symbolic {symbolic}) changed without a chain:\n{scop}"
            );
            first += usize::from(
                stages(&scop.replace("for (int ", "for ("))
                    .first()
                    .is_some_and(|s| s.as_ref().is_some_and(|s| s.line.contains("in["))),
            );
        }
    }
    assert!(
        (30..=90).contains(&same),
        "{same} of 120 programs unchanged"
    );
    assert!(
        first * 2 >= 120 - same,
        "{first} of {} chains are the first group",
        120 - same
    );
}

/// The number of nested time loops of the `time-loops` form in `scop`
/// (`for (t0 = 0; t0 <= TT0 - 1; t0++)`, then `t1`, `t2` inside).
fn time_depth(scop: &str) -> usize {
    (0..3)
        .take_while(|l| scop.contains(&format!("for (t{l} = 0; t{l} <= TT{l} - 1; t{l}++)")))
        .count()
}

/// The lines of `scop` inside its innermost time loop (those indented
/// deeper than the loop's header, after it, up to its closing brace).
fn time_body(scop: &str) -> Vec<&str> {
    let depth = time_depth(scop);
    let header = format!(
        "for (t{0} = 0; t{0} <= TT{0} - 1; t{0}++)",
        depth.max(1) - 1
    );
    let mut lines = scop.lines().skip_while(|l| !l.contains(&header));
    let Some(first) = lines.next() else {
        return Vec::new();
    };
    let indent = first.len() - first.trim_start().len();
    lines
        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
        .collect()
}

/// The `time-loops` form (issue 48) wraps nests, or runs of sibling loops
/// inside a loop, in 1 to 3 time loops, with kernels inside: in 60
/// programs of the form alone, every program has a time loop, at each
/// depth; some time sizes are 0 and 1; the time iterators are in values
/// (`(t0 + 1)`) and in subscripts (`in[u + t0]`); a time loop sits inside
/// another loop (`for (i ...) { ... for (t0 ...`) and wraps nests of the
/// generator's groups (loops over `i` inside it); a scratch is rewritten
/// every step and read by a sibling consumer loop (`out[..] += w * S[u]`),
/// a value is carried across steps (`C[u] += w * C[u + 1]`, or `S[u] =
/// w * C[u]` at the start of the step and `C[u] = w * S[u] + ..` after
/// it) and a copy-back stencil (`Q[u - 1]`, `Q[u + 1]` then `Q[u] =
/// A[u]`) runs inside. Each program is well defined at every size it is
/// called with (checked by the generator; symbolic programs are called
/// with no time step too).
#[test]
fn the_time_loops_form_wraps_nests_in_time_loops_with_kernels_inside() {
    let forms = Forms::parse("time-loops").expect("known form");
    let mut depths = [0usize; 4];
    let (mut zero, mut one, mut value, mut subscript, mut inside, mut wraps) = (0, 0, 0, 0, 0, 0);
    let (mut consumer, mut carried, mut copy_back) = (0, 0, 0);
    for seed in 0..60 {
        let program = generate_with(seed, &forms);
        let text = program.to_c();
        let scop = scop_text(&text).replace("for (int ", "for (");
        let depth = time_depth(&scop);
        depths[depth] += 1;
        let sizes: Vec<i64> = program
            .sizes
            .iter()
            .filter(|(n, _)| n.starts_with("TT"))
            .map(|(_, v)| *v)
            .collect();
        assert_eq!(sizes.len(), depth, "seed {seed}: one TT size per time loop");
        zero += usize::from(sizes.contains(&0));
        one += usize::from(sizes.contains(&1));
        let body = time_body(&scop).join("\n");
        value += usize::from(body.contains(" * (t"));
        subscript += usize::from(body.contains(" + t0]") || body.contains(" + t1]"));
        inside += usize::from(scop.lines().any(|l| l.starts_with("        for (t0 = 0;")));
        wraps += usize::from(body.contains("for (i = "));
        consumer += usize::from(body.contains("[u - 1];") && body.contains("if (u - 1 >= 0)"));
        carried += usize::from(
            body.contains("[u + 1] + ")
                || body.contains("[u] + ") && {
                    // `S[u] = w * C[u] + w' * (t)` at the start of the step.
                    body.lines()
                        .any(|l| l.contains("[u] = ") && l.contains(" * T") && l.contains("(t"))
                },
        );
        copy_back += usize::from(body.contains("[u - 1] + ") && body.contains("[u + 1]"));
    }
    assert_eq!(depths[0], 0, "programs without a time loop");
    for (depth, count) in depths.iter().enumerate().skip(1) {
        assert!(
            *count >= 5,
            "only {count} programs of depth {depth}: {depths:?}"
        );
    }
    for (what, count) in [
        ("a time size 0", zero),
        ("a time size 1", one),
        ("a time iterator in a value", value),
        ("a time iterator in a subscript", subscript),
        ("a time loop inside another loop", inside),
        ("a generator's nest inside the time loops", wraps),
        ("a consumer loop reading S[u - 1]", consumer),
        ("a value carried across steps", carried),
        ("a copy-back stencil", copy_back),
    ] {
        assert!(count >= 3, "only {count} of 60 programs with {what}");
    }
    // Symbolic sizes: the time sizes are parameters, called with no step.
    let no_step = (0..30)
        .filter(|seed| {
            let program = generate_sized(*seed, &forms, true);
            let params = program.parameter_sizes();
            program.runtime_sizes().iter().any(|call| {
                params
                    .iter()
                    .zip(call)
                    .any(|(p, v)| p.starts_with("TT") && *v == 0)
            })
        })
        .count();
    assert!(
        no_step >= 5,
        "only {no_step} symbolic programs called with TT = 0"
    );
}

/// Programs of `--forms all` that do not draw `time-loops` are the ones
/// the generator made before the form existed (its draws come from
/// streams of their own); about one in three draws it.
#[test]
fn the_time_loops_form_leaves_other_programs_as_they_were() {
    // Without labels and `&` conditions, which the time-loop reader does
    // not read.
    let all = Forms {
        labels_bitwise: false,
        ..Forms::all()
    };
    let without = Forms {
        time_loops: false,
        ..all
    };
    let mut changed = 0;
    for seed in 0..60 {
        for symbolic in [false, true] {
            let with = generate_sized(seed, &all, symbolic);
            if with == generate_sized(seed, &without, symbolic) {
                assert!(time_depth(scop_text(&with.to_c())) == 0);
                continue;
            }
            changed += 1;
            let text = with.to_c();
            assert!(
                time_depth(&scop_text(&text).replace("for (int ", "for (")) >= 1,
                "seed {seed} (symbolic {symbolic}) changed without a time loop"
            );
        }
    }
    assert!(
        (20..=60).contains(&changed),
        "{changed} of 120 programs changed"
    );
}

/// A short differential run of the `time-loops` form: polyfold, the trace
/// verifier, the compiled original and output compared (values and
/// symbolic sizes), every program passes and polyfold changes most.
#[test]
fn the_time_loops_form_passes_a_short_differential_run() {
    let forms = Forms::parse("time-loops").expect("known form");
    let scratch = scratch_dir("fuzz-time-loops").expect("scratch directory");
    let seeds: Vec<u64> = (0..10).collect();
    let changed = AtomicUsize::new(0);
    on_two_threads(&seeds, |seed| {
        let program = generate_sized(seed, &forms, seed % 2 == 1);
        let options = CheckOptions {
            sanitize: true,
            trace_sizes: program.call_assignments(),
            builds: builds_for(&program),
            ..CheckOptions::default()
        };
        let stats = check_program(&format!("time_{seed}"), &program.to_c(), &scratch, &options)
            .unwrap_or_else(|f| panic!("seed {seed}: {:?}: {}", f.kind, f.detail));
        changed.fetch_add(usize::from(stats.changed), Ordering::SeqCst);
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let changed = changed.into_inner();
    assert!(
        changed >= 5,
        "polyfold changed only {changed} of 10 programs"
    );
}

/// The check catches a value carried across time steps folded away: in
/// the carried kernel of the `time-loops` form (`C[u] = w * in[..]`
/// before the time loops, `S[u] = w * C[u] + w' * (t..)` at the start of
/// each step, `C[u] = w * S[u] + ..` after it), reading `C`'s initial
/// value instead of the one the step before wrote (what storage that
/// does not keep `C` from one step to the next gives) prints the same
/// with one time step and something else with two or more.
#[test]
fn the_check_catches_a_carried_value_folded_away() {
    let forms = Forms::parse("time-loops").expect("known form");
    let scratch = scratch_dir("fuzz-time-carried").expect("scratch directory");
    let options = CheckOptions::default();
    let (mut caught, mut same) = (0, 0);
    for seed in 0..80 {
        let program = generate_with(seed, &forms);
        let text = program.to_c();
        let steps: i64 = program
            .sizes
            .iter()
            .filter(|(n, _)| n.starts_with("TT"))
            .map(|(_, v)| *v)
            .product();
        // `S[u] = w * C[u] + w' * (t..);`
        let Some(line) = text.lines().find(|l| {
            let l = l.trim();
            l.starts_with('T') && l.contains("[u] = ") && l.contains(" * T") && l.contains("(t")
        }) else {
            continue;
        };
        let Some(carried) = line
            .split(" * ")
            .nth(1)
            .and_then(|r| r.split("[u]").next())
            .filter(|c| c.starts_with('T'))
        else {
            continue;
        };
        // `C[u] = <initial value>;`, the first write of `C`.
        let Some(initial) = text
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(&format!("{carried}[u] = ")))
            .and_then(|r| r.strip_suffix(';'))
            .filter(|r| r.contains("in["))
        else {
            continue;
        };
        let wrong_line = line.replacen(&format!("{carried}[u]"), &format!("({initial})"), 1);
        let wrong = text.replacen(line, &wrong_line, 1);
        assert_ne!(wrong, text);
        let verdict = compare_output(
            &format!("carried_{seed}"),
            &text,
            &wrong,
            &scratch,
            &options,
        );
        if steps <= 1 {
            verdict.unwrap_or_else(|f| panic!("seed {seed}: one step: {}", f.detail));
            same += 1;
        } else {
            let failure = verdict.expect_err("a carried value folded away prints something else");
            assert_eq!(
                failure.kind,
                FailureKind::OutputDiffers,
                "{}",
                failure.detail
            );
            caught += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        caught >= 3,
        "only {caught} carried kernels with two steps or more"
    );
    assert!(same >= 1, "no carried kernel with one step or none");
}

/// Compiles `source` with `flags`, runs it with `env`; its output.
fn build_and_run(source: &Path, tag: &str, flags: &[&str], env: &[(String, String)]) -> Vec<u8> {
    let exe = source.with_file_name(format!("{tag}.exe"));
    let mut all = vec!["-std=c11", "-O1", "-w", "-fsanitize=address,undefined"];
    all.extend_from_slice(flags);
    compile(source, &exe, &all).unwrap_or_else(|e| panic!("{tag} does not compile: {e}"));
    run_with_env(&exe, Duration::from_secs(20), env)
        .unwrap_or_else(|e| panic!("{tag} does not run: {e}"))
}

#[test]
fn each_form_appears_compiles_and_parses() {
    let scratch = scratch_dir("fuzz-forms").expect("scratch directory");
    for name in Forms::NAMES {
        let forms = Forms::parse(name).expect("known form");
        let mut shown = 0;
        let mut compiled = 0;
        for seed in 0..60 {
            let program = generate_with(seed, &forms);
            assert_eq!(program, generate_with(seed, &forms), "{name}, seed {seed}");
            if let Err(e) = program.check_well_defined() {
                panic!("{name}, seed {seed}: not well defined: {e:?}");
            }
            let text = program.to_c();
            if !shows_form(name, &program, &text) {
                continue;
            }
            shown += 1;
            if compiled >= 3 {
                continue;
            }
            compiled += 1;
            let tag = format!("{name}_{seed}");
            let path = scratch.join(format!("{tag}.c"));
            std::fs::write(&path, &text).expect("write");
            let plain = build_and_run(&path, &tag, &[], &[]);
            assert!(!plain.is_empty());
            for (index, build) in builds_for(&program).iter().enumerate() {
                let flags: Vec<&str> = build.flags.iter().map(String::as_str).collect();
                if flags.contains(&"-fsanitize=thread") {
                    continue;
                }
                let other = build_and_run(&path, &format!("{tag}_{index}"), &flags, &build.env);
                if !build.changes_sizes {
                    assert_eq!(
                        String::from_utf8_lossy(&plain),
                        String::from_utf8_lossy(&other),
                        "{name}, seed {seed}: the build {build:?} prints the same"
                    );
                }
            }
            lang_c::driver::parse(&lang_c::driver::Config::default(), &path)
                .unwrap_or_else(|e| panic!("{name}, seed {seed}: lang-c: {e}"));
        }
        assert!(
            shown >= 3,
            "the form {name} shows in only {shown} of 60 programs"
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn classic_forms_keep_the_old_programs() {
    for seed in 0..50 {
        let classic = generate_with(seed, &Forms::classic());
        assert_eq!(classic, generate(seed));
        let text = classic.to_c();
        for absent in ["#ifdef", "#ifndef", "//", "omp", "else", "kernel(int"] {
            assert!(!text.contains(absent), "seed {seed}: {absent}");
        }
        assert_eq!(classic.shape, Default::default());
    }
}

#[test]
fn other_sizes_and_tiny_calls_are_really_used() {
    // Over many programs with every form, some are rebuilt with `-D`
    // (guarded or dataset sizes) and some call their VLA kernel with a
    // size of 1, and every one of them is well defined under them.
    let all = Forms::all();
    let (mut rebuilt, mut tiny) = (0, 0);
    for seed in 0..150 {
        let program = generate_with(seed, &all);
        assert!(program.check_well_defined().is_ok());
        rebuilt += usize::from(!program.shape.configs.is_empty());
        let has_param =
            (0..program.sizes.len()).any(|i| program.size_form(i) == SizeForm::Parameter);
        if has_param && program.shape.calls.iter().any(|c| c.contains(&1)) {
            tiny += 1;
        }
    }
    assert!(rebuilt >= 10, "only {rebuilt} programs have other builds");
    assert!(
        tiny >= 10,
        "only {tiny} programs call their kernel with a size 1"
    );
}

/// Why `program` (printed as `text`) gives a size a value, if it does.
fn value_given(program: &GenProgram, text: &str) -> Option<String> {
    if !program.shape.symbolic || !program.sizes_are_symbolic() {
        return Some("a size is not a kernel parameter, or a build defines one".into());
    }
    let names: Vec<&str> = program.sizes.iter().map(|(n, _)| n.as_str()).collect();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("#if") || line.contains("DATASET") {
            return Some(format!("conditional sizes: `{line}`"));
        }
        if let Some(rest) = line.strip_prefix("#define ") {
            // Only the sizes of the external arrays `in` and `out`.
            let name = rest.split(' ').next().unwrap_or(rest);
            if !["IN_SIZE", "OUT_SIZE"].contains(&name) {
                return Some(format!("a size macro: `{line}`"));
            }
        }
    }
    // `N0 / 2` and `N0 % 4` may appear: a quotient of a parameter is
    // modelled for every value (issue 19), no value is given.
    let signature: Vec<String> = names.iter().map(|n| format!("int {n}, ")).collect();
    if !text.contains(&format!("static void kernel({}double", signature.concat())) {
        return Some("the sizes are not the kernel's parameters".into());
    }
    if builds_for(program).iter().any(|b| b.changes_sizes) {
        return Some("a build changes sizes (-D)".into());
    }
    // What polyfold sees: no value for any parameter of any SCoP but the
    // sizes of the external arrays `in` and `out`, and the kernel's SCoP
    // has parameters (`main`'s loops may make a SCoP of their own).
    let extracted = polyfold::frontend::extract("p.c", text, &Default::default());
    let mut symbolic = false;
    for scop in &extracted.scops {
        let mut sizes = scop
            .params
            .iter()
            .filter(|p| !["IN_SIZE", "OUT_SIZE"].contains(&p.name.as_str()));
        if let Some(p) = sizes.clone().find(|p| p.value.is_some()) {
            return Some(format!("polyfold sees `{}` = {:?}", p.name, p.value));
        }
        symbolic |= sizes.next().is_some();
    }
    (!symbolic).then(|| "no SCoP with a symbolic size".into())
}

#[test]
fn symbolic_size_programs_have_no_values_and_pass_the_check() {
    // 20 programs of symbolic sizes (fixed seeds, every form but those
    // giving sizes values, inter-array merging on odd seeds, sanitizers
    // whenever polyfold changed the program and on every fifth seed):
    // none gives a size a value, each calls its kernel with several
    // sizes, most with every size <= 3 and with every size 1, and none
    // fails the differential check.
    let scratch = scratch_dir("fuzz-symbolic").expect("scratch directory");
    let failures = Mutex::new(Vec::new());
    let counts = Mutex::new((0usize, 0usize, 0usize, 0usize)); // calls, tiny, ones, with TS
    let seeds: Vec<u64> = (7000..7020).collect();
    // The main kernel's forms: the units of issue 45 have sizes of their
    // own (`LEN0`, `N`), and their known bugs are the campaign's to find.
    let forms = Forms::all_but_real_c();
    on_two_threads(&seeds, |seed| {
        let program = generate_sized(seed, &forms, true);
        assert_eq!(program, generate_sized(seed, &forms, true));
        let text = program.to_c();
        if let Some(why) = value_given(&program, &text) {
            failures
                .lock()
                .expect("lock")
                .push(format!("seed {seed}: {why}"));
            return;
        }
        let calls = program.runtime_sizes();
        {
            let mut c = counts.lock().expect("lock");
            c.0 += calls.len();
            c.1 += usize::from(calls.iter().any(|v| v.iter().all(|x| *x <= 3)));
            c.2 += usize::from(calls.iter().any(|v| v.iter().all(|x| *x == 1)));
            c.3 += usize::from(program.parameter_sizes().contains(&"TS".into()));
        }
        if calls.len() < 2 {
            failures
                .lock()
                .expect("lock")
                .push(format!("seed {seed}: one call only"));
        }
        let options = CheckOptions {
            sanitize: seed.is_multiple_of(5),
            sanitize_if_changed: true,
            inter_array: seed % 2 == 1,
            builds: builds_for(&program),
            trace_sizes: program.call_assignments(),
            ..CheckOptions::default()
        };
        if let Err(f) = check_program(&format!("sym_{seed}"), &text, &scratch, &options) {
            failures.lock().expect("lock").push(format!(
                    "seed {seed}: {:?}: {} (reproduce: polyfold-fuzz --programs 1 --seed {seed} --sizes symbolic)",
                    f.kind, f.detail
                ));
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let failures = failures.into_inner().expect("lock");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let (calls, tiny, ones, steps) = counts.into_inner().expect("lock");
    assert!(calls >= 4 * seeds.len(), "only {calls} kernel calls in all");
    assert!(tiny >= 15, "only {tiny} programs call with every size <= 3");
    assert!(ones >= 10, "only {ones} programs call with every size 1");
    // Time steps: counted over more programs (generation only, no check),
    // as ping-pong groups are one shape among many.
    let with_steps = (7000..7100)
        .filter(|seed| {
            generate_sized(*seed, &forms, true)
                .parameter_sizes()
                .contains(&"TS".into())
        })
        .count();
    assert!(
        with_steps >= 10,
        "only {with_steps} of 100 programs have symbolic time steps ({steps} of the 20 checked)"
    );
}

#[test]
fn symbolic_mode_covers_the_generator_shapes() {
    // Over 200 programs of symbolic sizes: bounds and extents with
    // `2 * N`, several parameters in one program, ping-pong stencils,
    // copy-back loops, triangular loops, more than one temporary, and quotients
    // (`N0 / 2`, `N0 % 4`) in bounds and in subscripts (`in[(i + 1) % 3]`).
    let mut seen = std::collections::BTreeMap::new();
    for seed in 0..200 {
        let program = generate_sized(seed, &Forms::all_but_real_c(), true);
        let text = program.to_c();
        let scop = scop_text(&text);
        let mut mark =
            |key: &'static str, on: bool| *seen.entry(key).or_insert(0) += usize::from(on);
        mark("2 * N bound", scop.contains("<= 2 * N"));
        mark(
            "2 * N extent",
            text.lines()
                .any(|l| l.trim_start().starts_with("double T") && l.contains("2 * N")),
        );
        mark(
            "two parameters used",
            scop.contains("N0") && scop.contains("N1"),
        );
        mark("ping-pong", scop.contains("for (t = 1; t <= TS; t++)"));
        mark("copy-back", scop.contains("- 1 >= 0 && N"));
        mark(
            "triangular",
            scop.lines()
                .any(|l| l.contains("for (j = i") || l.contains("j <= i")),
        );
        mark("several temporaries", program.temps.len() >= 2);
        mark("quotient", scop.contains(" / ") || scop.contains(" % "));
        mark(
            "quotient in a subscript",
            scop.split("in[").skip(1).any(|rest| {
                let index = rest.split(']').next().unwrap_or("");
                index.contains(" / ") || index.contains(" % ")
            }),
        );
        if let Some(why) = value_given(&program, &text) {
            panic!("seed {seed}: {why}");
        }
        mark("no value", true);
    }
    for (key, count) in &seen {
        let least = if *key == "no value" { 200 } else { 5 };
        assert!(*count >= least, "{key}: {count} of 200 programs");
    }
    assert_eq!(seen.len(), 10);
    // The size modes of the campaign.
    assert_eq!(SizeMode::parse("mixed"), Ok(SizeMode::Mixed));
    let symbolic: Vec<bool> = (0..8).map(|s| SizeMode::Mixed.symbolic_for(s)).collect();
    assert_eq!(
        symbolic,
        [false, false, true, true, false, false, true, true]
    );
    assert!(!SizeMode::Values.symbolic_for(3) && SizeMode::Symbolic.symbolic_for(0));
    // `values` keeps the programs of every seed.
    for seed in 0..20 {
        assert_eq!(
            generate_sized(seed, &Forms::all(), false),
            generate_with(seed, &Forms::all())
        );
    }
}

/// A kernel of symbolic size `n` and a fold of `T` that polyfold could
/// get wrong: each output is right at n = 6 and wrong at another size the
/// program calls its kernel with.
const SYMBOLIC_KERNEL: &str = r#"#include <stdio.h>
static void kernel(int n, double in[64], double out[64])
{
    int i;
    double T[n];
#pragma scop
    for (i = 0; i <= n - 1; i++)
        T[i] = 0.5 * in[i];
    for (i = 0; i <= n - 1; i++)
        out[i] += T[n - 1 - i];
#pragma endscop
}
int main(void)
{
    static double in[64];
    static double out[64];
    int i;
    for (i = 0; i < 64; i++)
        in[i] = (double)((i * 37 + 11) % 23) - 11.0;
    kernel(6, in, out);
    kernel(1, in, out);
    kernel(2, in, out);
    kernel(3, in, out);
    kernel(11, in, out);
    for (i = 0; i < 64; i++)
        printf("%d %.17g\n", i, out[i]);
    return 0;
}
"#;

#[test]
fn the_check_catches_a_fold_wrong_at_another_size() {
    let scratch = scratch_dir("fuzz-symbolic-wrong").expect("scratch directory");
    let options = CheckOptions {
        sanitize_if_changed: true,
        ..CheckOptions::default()
    };
    // Unchanged: a pass.
    compare_output("same", SYMBOLIC_KERNEL, SYMBOLIC_KERNEL, &scratch, &options)
        .expect("an unchanged output passes");
    // A right rewrite (`T[n]` declared as `T[n + 0]`): a pass.
    let right = SYMBOLIC_KERNEL.replace("double T[n];", "double T[n + 0];");
    compare_output("right", SYMBOLIC_KERNEL, &right, &scratch, &options)
        .expect("an equivalent output passes");
    // `T[6]` with `i % 6`: right for n <= 6, wrong values at n = 11.
    let fixed = SYMBOLIC_KERNEL
        .replace("double T[n];", "double T[6];")
        .replace("T[i] =", "T[i % 6] =")
        .replace("T[n - 1 - i]", "T[(n - 1 - i) % 6]");
    let failure = compare_output("fixed", SYMBOLIC_KERNEL, &fixed, &scratch, &options)
        .expect_err("a fold right only up to n = 6 fails");
    assert_eq!(
        failure.kind,
        FailureKind::OutputDiffers,
        "{}",
        failure.detail
    );
    // `T[n - 1]`: the last cell written out of bounds at every size; the
    // values may print the same, the sanitizers report it.
    let short = SYMBOLIC_KERNEL.replace("double T[n];", "double T[n - 1 + (n == 6)];");
    let failure = compare_output("short", SYMBOLIC_KERNEL, &short, &scratch, &options)
        .expect_err("an out-of-bounds VLA at n != 6 fails");
    assert_eq!(
        failure.kind,
        FailureKind::OutputDiffers,
        "{}",
        failure.detail
    );
    assert!(
        failure.detail.contains("runtime error") || failure.detail.contains("Sanitizer"),
        "{}",
        failure.detail
    );
    // A modulus that is `n` for every n >= 2 and divides by zero at
    // n = 1 only.
    let tiny = SYMBOLIC_KERNEL.replace("T[i] =", "T[i % (n - 1 + (n - 1) / (n - 1))] =");
    let failure = compare_output("tiny", SYMBOLIC_KERNEL, &tiny, &scratch, &options)
        .expect_err("a fold that divides by zero at n = 1 fails");
    assert_eq!(
        failure.kind,
        FailureKind::OutputDiffers,
        "{}",
        failure.detail
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn the_trace_verifier_runs_at_each_call_size() {
    // polyfold folds `T` of this kernel when `-D m=3` gives `m` a value;
    // the trace of that contraction, on the program extracted without the
    // value, runs once per size given (m = 1, 2, 7), and finds no wrong
    // read; without sizes it runs none (it skips a SCoP without values).
    let kernel = "static void kernel(int m, double in[64], double out[64])\n{\n    int t;\n    double T[2 * m];\n#pragma scop\n    for (t = 0; t <= m - 1; t++)\n        T[2 * t] = in[t];\n    for (t = 0; t <= m - 1; t++)\n        out[t] += T[2 * m - 2 - 2 * t];\n#pragma endscop\n}\n";
    let with_value = polyfold::frontend::extract(
        "k.c",
        kernel,
        &polyfold::frontend::Options {
            defines: vec![("m".into(), 3)],
            ..Default::default()
        },
    );
    let contraction =
        polyfold::pipeline::contract_program(&with_value, &Default::default()).expect("contracts");
    assert_ne!(contraction.output, kernel, "polyfold folds T with m = 3");
    let symbolic = polyfold::frontend::extract("k.c", kernel, &Default::default());
    let sizes: Vec<Vec<(String, i64)>> = [1, 2, 7].iter().map(|v| vec![("m".into(), *v)]).collect();
    let traces = verify_at_sizes(&symbolic, &contraction, &sizes).expect("no wrong read");
    assert_eq!(traces, 3);
    assert_eq!(
        verify_at_sizes(&symbolic, &contraction, &[]).expect("nothing to do"),
        0
    );
}

/// Rotating indices (issue 18): the campaign's pipeline puts them into
/// some random programs (with values and with symbolic sizes; headers that
/// declare their iterator among them, the `declared-iterators` form), and
/// those outputs build and print what the originals print (under the
/// sanitizers for symbolic sizes), which is how the campaign checks them.
#[test]
fn random_programs_get_rotating_indices_that_run_like_the_originals() {
    let scratch = scratch_dir("fuzz_forms_rotating").expect("scratch dir");
    let (mut rotated, mut declared) = (0, 0);
    for seed in 0..120u64 {
        if rotated >= 4 && declared >= 1 {
            break;
        }
        let symbolic = seed % 2 == 1;
        let program = generate_sized(seed, &Forms::all_but_real_c(), symbolic);
        let text = program.to_c();
        let Ok((contraction, _)) = polyfold_fuzz::check::run_polyfold_traced(
            "rotating.c",
            &text,
            std::time::Duration::from_secs(60),
            (false, false, false),
            &program.call_assignments(),
        ) else {
            panic!("seed {seed}: the campaign's pipeline failed");
        };
        let output = &contraction.output;
        // A rotating index starts on a line before its loop (issue 49), or
        // in the loop's header where the body may leave the loop early.
        if !output.lines().any(|l| l.contains("_r0 = ")) {
            continue;
        }
        rotated += 1;
        declared += usize::from(
            output
                .lines()
                .any(|l| l.trim_start().starts_with("for (int ")),
        );
        let options = CheckOptions {
            sanitize_if_changed: symbolic,
            builds: builds_for(&program),
            ..CheckOptions::default()
        };
        compare_output(&format!("rot_{seed}"), &text, output, &scratch, &options)
            .unwrap_or_else(|f| panic!("seed {seed}: {:?}: {}\n{output}", f.kind, f.detail));
    }
    assert!(rotated >= 4, "{rotated} programs with rotating indices");
    assert!(
        declared >= 1,
        "{declared} with an index declared in its header"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Stencil chains with `reschedule` (`polyfold-fuzz --reschedule 1`): the
/// runs of their nests are re-scheduled whole by the scanner where a plan
/// exists, and the printed loops compile and compute what the original
/// computes (every check of the campaign: compiled runs at the kernel's
/// calls, the trace of the new schedule on value ids, the verifier).
#[test]
fn stencil_chains_rescheduled_whole_run_like_the_originals() {
    let forms = Forms::parse("stencil-chains").expect("known form");
    let scratch = scratch_dir("fuzz-reschedule").expect("scratch directory");
    let seeds: Vec<u64> = (0..16).collect();
    let failures = Mutex::new(Vec::new());
    let rescheduled = AtomicUsize::new(0);
    on_two_threads(&seeds, |seed| {
        let program = generate_sized(seed, &forms, seed % 2 == 1);
        let text = program.to_c();
        let options = CheckOptions {
            reschedule: true,
            builds: builds_for(&program),
            trace_sizes: program.call_assignments(),
            ..CheckOptions::default()
        };
        match check_program(&format!("resched_{seed}"), &text, &scratch, &options) {
            Ok(stats) => {
                if stats.rescheduled > 0 {
                    rescheduled.fetch_add(1, Ordering::SeqCst);
                }
            }
            Err(f) => failures
                .lock()
                .expect("lock")
                .push(format!("seed {seed}: {:?}: {}", f.kind, f.detail)),
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let failures = failures.into_inner().expect("lock");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let rescheduled = rescheduled.into_inner();
    assert!(
        rescheduled >= 3,
        "only {rescheduled} programs re-scheduled whole"
    );
}

/// The forms of issue 45 write units of their own after the main kernel,
/// drawn from a stream of their own: a program of `--forms all` is the
/// program its seed made before (main kernel, builds, calls) plus its
/// units, the units' text is in the program verbatim (the campaign counts
/// a unit changed when polyfold's output lacks it), at least half of the
/// programs have a unit, every form is drawn, and a form asked for alone
/// is in every program.
#[test]
fn the_issue_45_forms_add_units_to_half_the_programs_and_keep_the_rest() {
    let base = Forms::all_but_real_c();
    let mut with_units = 0;
    let mut per_form = std::collections::BTreeMap::new();
    for seed in 0..200u64 {
        let symbolic = SizeMode::Mixed.symbolic_for(seed);
        let program = generate_sized(seed, &Forms::all(), symbolic);
        let mut without = program.clone();
        without.shape.units.clear();
        for form in RealCForm::ALL {
            without.shape.drawn.set(form.name(), false);
        }
        assert_eq!(
            without,
            generate_sized(seed, &base, symbolic),
            "seed {seed}: the main kernel moved"
        );
        let text = program.to_c();
        assert!(text.contains(&program.kernel_c()));
        assert!(program.kernel_c().starts_with("static void kernel("));
        for unit in &program.shape.units {
            assert!(text.contains(&unit.file_text()), "seed {seed}");
            *per_form.entry(unit.form().name()).or_insert(0) += 1;
            assert_eq!(program.shape.drawn.get(unit.form().name()), Some(true));
        }
        with_units += usize::from(!program.shape.units.is_empty());
    }
    assert!(
        with_units >= 110,
        "only {with_units} of 200 programs of `all` have a unit of issue 45"
    );
    for form in RealCForm::ALL {
        let count = per_form.get(form.name()).copied().unwrap_or(0);
        assert!(count >= 8, "{}: in {count} of 200 programs", form.name());
    }
    for form in RealCForm::ALL {
        let alone = Forms::parse(form.name()).expect("known form");
        assert!(alone.only_real_c() && alone.real_c() == vec![form]);
        for seed in 0..10 {
            let program = generate_with(seed, &alone);
            assert_eq!(program.real_c_forms(), vec![form], "{}", form.name());
            // The main kernel is the classic one.
            let mut classic = program.clone();
            classic.shape.units.clear();
            classic.shape.drawn = Forms::classic();
            assert_eq!(classic, generate(seed), "{}, seed {seed}", form.name());
        }
    }
}

/// Generates the programs of the issue-45 form `form` alone for `seeds`:
/// each reproducible, well defined, showing the form; the first `built`
/// are compiled with `-fsanitize=address,undefined` and run with every
/// other build they declare (OpenMP with 4 threads, at `-O0`, the
/// `-DUSE_OMP` choices), all printing what the plain build prints, and
/// parsed by lang-c. Returns every program and its text.
fn real_c_programs(
    form: RealCForm,
    seeds: std::ops::Range<u64>,
    built: usize,
) -> Vec<(GenProgram, String)> {
    let forms = Forms::parse(form.name()).expect("known form");
    let scratch = scratch_dir(&format!("fuzz-{}", form.name())).expect("scratch directory");
    let mut programs = Vec::new();
    for seed in seeds {
        let program = generate_with(seed, &forms);
        assert_eq!(program, generate_with(seed, &forms));
        program
            .check_well_defined()
            .unwrap_or_else(|e| panic!("{}, seed {seed}: {e:?}", form.name()));
        let text = program.to_c();
        assert!(
            shows_form(form.name(), &program, &text),
            "{}, seed {seed}: the form does not show\n{text}",
            form.name()
        );
        programs.push((program, text));
    }
    let checked: Vec<u64> = (0..programs.len().min(built) as u64).collect();
    on_two_threads(&checked, |index| {
        let (program, text) = &programs[index as usize];
        let tag = format!("{}_{index}", form.name().replace('-', "_"));
        let path = scratch.join(format!("{tag}.c"));
        std::fs::write(&path, text).expect("write");
        let plain = build_and_run(&path, &tag, &[], &[]);
        for (b, build) in builds_for(program).iter().enumerate() {
            let flags: Vec<&str> = build.flags.iter().map(String::as_str).collect();
            if flags.contains(&"-fsanitize=thread") || build.changes_sizes {
                continue;
            }
            let other = build_and_run(&path, &format!("{tag}_{b}"), &flags, &build.env);
            assert_eq!(
                String::from_utf8_lossy(&plain),
                String::from_utf8_lossy(&other),
                "{tag}: the build {build:?} prints the same"
            );
        }
        lang_c::driver::parse(&lang_c::driver::Config::default(), &path)
            .unwrap_or_else(|e| panic!("{tag}: lang-c: {e}"));
    });
    let _ = std::fs::remove_dir_all(&scratch);
    programs
}

/// The text of the units of a program (without `main`).
fn unit_text(text: &str) -> &str {
    let start = text.find("/* issue 45 form ").unwrap_or(0);
    let end = text.find("int main(void)").unwrap_or(text.len());
    &text[start..end.max(start)]
}

#[test]
fn the_stateful_calls_form_writes_state_in_loops_and_pure_helpers() {
    let programs = real_c_programs(RealCForm::StatefulCalls, 0..40, 3);
    let count = |needle: &str| {
        programs
            .iter()
            .filter(|(_, t)| unit_text(t).contains(needle))
            .count()
    };
    // An LCG and a byte reader called in two loops, a draw between loops,
    // a global read through a call, and the pure helpers.
    let in_two_loops = |call: &str| {
        programs
            .iter()
            .filter(|(_, t)| {
                unit_text(t)
                    .lines()
                    .filter(|l| l.trim_start().starts_with("t") || l.contains("out["))
                    .filter(|l| l.contains(call))
                    .count()
                    >= 2
            })
            .count()
    };
    assert!(in_two_loops("noise0()") >= 2, "LCG in two loops");
    assert!(
        in_two_loops("next_byte0()") >= 2,
        "byte reader in two loops"
    );
    assert!(count("bias = ") >= 2, "a draw between loops");
    assert!(
        count("total0 += ") >= 2 && count("get_total0()") >= 2,
        "a global read through a call"
    );
    for helper in ["sq0(", "sqrt(fabs(", "__attribute__((const))"] {
        assert!(count(helper) >= 2, "{helper}");
    }
    // main prints the state after each call.
    assert!(
        programs
            .iter()
            .any(|(_, t)| t.contains("printf(\"u0 state %u\\n\", state0);"))
    );
}

#[test]
fn the_in_place_calls_form_aliases_its_arguments_and_keeps_restrict_disjoint() {
    let programs = real_c_programs(RealCForm::InPlaceCalls, 0..40, 3);
    let (mut same, mut overlap, mut restrict, mut external) = (0, 0, 0, 0);
    for (_, text) in &programs {
        let calls: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("k0("))
            .collect();
        let is_restrict = unit_text(text).contains("restrict");
        restrict += usize::from(is_restrict);
        external += usize::from(unit_text(text).contains("\nvoid k0("));
        for call in calls {
            let args: Vec<&str> = call
                .trim_start_matches("k0(")
                .trim_end_matches(");")
                .split(", ")
                .collect();
            let (input, output) = (args[1], args[2]);
            if is_restrict {
                // Distinct arrays, or parts 36 apart of one (n <= 24).
                assert!(
                    input != output
                        && (input.starts_with('y')
                            || output.starts_with('y')
                            || input.contains("+ 36")
                            || output.contains("+ 36")),
                    "restrict arguments may overlap: {call}"
                );
                continue;
            }
            same += usize::from(input == output);
            overlap +=
                usize::from(input != output && input.starts_with('x') && output.starts_with('x'));
        }
    }
    assert!(
        same >= 5 && overlap >= 5,
        "{same} same, {overlap} overlapping calls"
    );
    assert!(
        restrict >= 3 && external >= 3,
        "{restrict} restrict, {external} external kernels"
    );
}

#[test]
fn the_extreme_bases_form_calls_at_int_max_and_int_min() {
    let programs = real_c_programs(RealCForm::ExtremeBases, 0..30, 4);
    let (mut max, mut min, mut ordinary, mut less_equal) = (0, 0, 0, 0);
    for (program, text) in &programs {
        assert!(program.needs_sanitizers());
        assert!(unit_text(text).contains("for (i = base"));
        for line in text.lines().map(str::trim).filter(|l| l.starts_with("k0(")) {
            let args: Vec<&str> = line.trim_start_matches("k0(").split(", ").collect();
            let n: i64 = args[0].parse().expect("a size");
            if let Some(m) = args[1].strip_prefix("INT_MAX - ") {
                // `base + n` is at most INT_MAX.
                assert!(m.parse::<i64>().expect("a number") >= n, "{line}");
                max += 1;
            } else if args[1].starts_with("INT_MIN") {
                min += 1;
            } else {
                ordinary += 1;
            }
        }
        less_equal += usize::from(unit_text(text).contains(" <= base + n"));
    }
    assert!(
        max >= 10 && min >= 10 && ordinary >= 10,
        "{max} {min} {ordinary}"
    );
    assert!(less_equal >= 3);
}

#[test]
fn the_long_iterators_form_puts_long_loops_next_to_int_loops() {
    let programs = real_c_programs(RealCForm::LongIterators, 0..30, 4);
    let mut past_int = 0;
    for (program, text) in &programs {
        let unit = unit_text(text);
        assert!(
            unit.contains("for (i = ") && unit.contains("for (j = "),
            "{unit}"
        );
        assert!(program.needs_sanitizers());
        // Some call makes `j * 1000000` exceed INT_MAX: the product needs
        // the `long` iterator.
        past_int += usize::from(text.lines().map(str::trim).any(|l| {
            l.starts_with("k0(")
                && l.split(", ").nth(1).is_some_and(|b| {
                    b.starts_with("INT_") || b.parse::<i64>().is_ok_and(|v| v.abs() >= 2148)
                })
        }));
    }
    assert_eq!(past_int, programs.len());
}

#[test]
fn the_openmp_ifdef_form_hides_its_pragma_and_is_built_every_way() {
    let programs = real_c_programs(RealCForm::OpenmpIfdef, 0..40, 4);
    let mut spellings = std::collections::BTreeSet::new();
    for (program, text) in &programs {
        let unit = unit_text(text);
        for spelling in [
            "#ifdef _OPENMP\n#pragma omp",
            "#if defined(_OPENMP)\n#pragma omp",
            "#if USE_OMP\n#pragma omp",
            "    _Pragma(\"omp parallel for",
            "_Pragma(\"omp parallel for private(j",
        ] {
            if unit.contains(spelling) {
                spellings.insert(spelling);
            }
        }
        let flags: Vec<String> = builds_for(program)
            .iter()
            .map(|b| b.flags.join(" "))
            .collect();
        assert!(flags.contains(&"-fopenmp".to_string()), "{flags:?}");
        assert!(flags.iter().any(|f| f.contains("-O0")), "{flags:?}");
        if unit.contains("USE_OMP") {
            assert!(flags.iter().any(|f| f == "-DUSE_OMP=1"), "{flags:?}");
            assert!(
                flags
                    .iter()
                    .any(|f| f.contains("-fopenmp") && f.contains("USE_OMP"))
            );
        }
    }
    assert_eq!(spellings.len(), 5, "{spellings:?}");
    for scratch in ["    double t[64][", "private(j, t)", "        double t["] {
        assert!(
            programs.iter().any(|(_, t)| unit_text(t).contains(scratch)),
            "{scratch}"
        );
    }
}

#[test]
fn the_declaration_effects_form_grows_sizes_late_and_calls_in_initialisers() {
    let programs = real_c_programs(RealCForm::DeclarationEffects, 0..40, 4);
    let count = |f: &dyn Fn(&str) -> bool| programs.iter().filter(|(_, t)| f(unit_text(t))).count();
    let late = count(&|u| {
        u.contains("t0[n + ")
            && (u.contains("    n = n + ") || u.contains("    n += ") || u.contains("    n++;"))
    });
    let rows = count(&|u| u.contains("double t[r][n + "));
    let initialised =
        count(&|u| u.contains("t0[64] = { next_byte0()") || u.contains("t0[64] = { noise0()"));
    assert!(
        late >= 4 && rows >= 3 && initialised >= 4,
        "{late} {rows} {initialised}"
    );
    // main prints the state after each call: calls lost from an
    // initialiser show.
    assert!(programs.iter().any(|(_, t)| t.contains("printf(\"u0 next")));
}

#[test]
fn the_undef_macros_form_redefines_a_size_between_two_kernels() {
    let programs = real_c_programs(RealCForm::UndefMacros, 0..30, 3);
    let mut trailing = 0;
    for (_, text) in &programs {
        let unit = unit_text(text);
        let first = unit.find("static void k0a(").expect("first kernel");
        let redefine = unit.find("#undef N\n#define N ").expect("redefinition");
        let second = unit.find("static void k0b(").expect("second kernel");
        assert!(first < redefine && redefine < second);
        trailing += usize::from(unit.trim_end().ends_with("#undef M"));
    }
    assert!(trailing >= 3 && trailing < programs.len(), "{trailing}");
    // Each kernel's shape among chains over N, rows t[N][M] and linearised
    // rows t[N * M].
    for shape in ["t0[N]", "double t[N][M]", "double t[N * M]"] {
        assert!(
            programs.iter().any(|(_, t)| unit_text(t).contains(shape)),
            "{shape}"
        );
    }
}

#[test]
fn the_c_macros_form_writes_qualifier_attribute_and_statement_macros() {
    let programs = real_c_programs(RealCForm::CMacros, 0..30, 3);
    for needle in [
        "#define RESTRICT __restrict\n",
        "#define RESTRICT restrict\n",
        "*RESTRICT in",
        "in[RESTRICT 64]",
        "int flag UNUSED",
        "UNUSED int flag",
        "_Pragma(\"GCC diagnostic push\")\nstatic void k0(",
        "_Pragma(\"GCC unroll 4\")",
        "    FOR(i, ",
    ] {
        assert!(
            programs.iter().any(|(_, t)| unit_text(t).contains(needle)),
            "{needle}"
        );
    }
}

/// The minimiser drops the units and the main kernel's body a failure
/// does not need: with the "failure" a unit's stateful call in two loops,
/// the minimum keeps that one unit, an empty main kernel, one call.
#[test]
fn minimising_a_unit_failure_drops_everything_else() {
    let mut found = 0;
    for seed in 0..120 {
        if found >= 4 {
            break;
        }
        let program = generate_with(seed, &Forms::all());
        let Some(unit) = program
            .shape
            .units
            .iter()
            .find(|u| u.form() == RealCForm::StatefulCalls)
        else {
            continue;
        };
        let kernel = format!("k{}(", unit.number);
        let fails = |p: &GenProgram| p.to_c().contains(&format!("static void {kernel}"));
        found += 1;
        let (small, _) = minimise(&program, 400, &mut |c| fails(c));
        assert!(fails(&small) && small.check_well_defined().is_ok());
        assert_eq!(small.shape.units.len(), 1, "seed {seed}");
        assert!(
            small.body.is_empty() && small.temps.is_empty(),
            "seed {seed}"
        );
        assert_eq!(small.shape.units[0].calls.len(), 1, "seed {seed}");
    }
    assert!(found >= 2, "{found} programs with a stateful unit");
}

/// How many of `programs` have a unit text containing each of `needles`;
/// asserts each count is at least `least`.
fn each_shows(programs: &[(GenProgram, String)], needles: &[&str], least: usize) {
    for needle in needles {
        let count = programs.iter().filter(|(_, t)| t.contains(needle)).count();
        assert!(
            count >= least,
            "`{needle}` in {count} of {} programs",
            programs.len()
        );
    }
}

#[test]
fn the_caller_buffers_form_passes_main_s_buffers_in_every_allocation_and_escape() {
    let programs = real_c_programs(RealCForm::CallerBuffers, 0..80, 4);
    let mut one_by_one = 0;
    for (program, text) in &programs {
        assert!(program.needs_sanitizers());
        assert!(text.contains("#include <stdlib.h>"));
        // What main allocates it frees.
        let main = text.split("int main(void)").nth(1).expect("main");
        let allocated = main.matches("alloc(").count() - main.matches("realloc(").count()
            + main.matches("ALLOC_").count();
        let freed = main.matches("free(b").count() + main.matches("FREE_ARRAY0(b").count();
        assert_eq!(allocated, freed, "{main}");
        let UnitKind::CallerBuffers(unit) = &program.shape.units[0].kind else {
            panic!("not a caller-buffers unit");
        };
        one_by_one += usize::from(program.shape.units[0].calls.len() == 1);
        if unit.escape == CallerEscape::PassedTwice {
            assert!(
                main.contains("x0, b0, b0, ") || main.contains("x0, ARR0(b0), ARR0(b0), "),
                "{main}"
            );
        }
    }
    each_shows(
        &programs,
        &[
            // Allocations: local arrays and VLAs, malloc, calloc, macros.
            "        double b0[BN0][BM0];",
            "double b0[n][m];",
            "double b0[n];",
            "double (*b0)[BM0] = malloc(sizeof(double[BN0][BM0]));",
            "double (*b0)[m] = malloc(n * sizeof *b0);",
            "double *b0 = calloc(",
            "#define ARRAY_2D0(var, d1, d2) var[d1][d2]",
            "double ARRAY_2D0(t0, ",
            "ALLOC_2D0(b0, double, ",
            "ALLOC_1D0(b0, double, ",
            "k0(n, m, x0, ARR0(b0), ",
            "FREE_ARRAY0(b0);",
            // Sizes: VLA parameters, macros, a loop over sizes, 1 x 1.
            "double t0[n][m]",
            "double t0[BN0][BM0]",
            "for (i = 0; i < BN0; i++)\n        for (j = 0; j < BM0; j++)",
            "for (s = 0; s < ",
            "{1, 1}",
            // Escapes.
            "printf(\"u0 b0 %d %.17g\\n\", i, ",
            "printf(\"u0 b0 sum %.17g\\n\", sum);",
            "keep0 = (double *)b0;",
            "\nvoid observe0(const double *p, int count)",
            "static void (*kp0)(int n, int m, ",
            "b0 = realloc(b0, ",
            "x0, b0, b0, ",
            "t0[i] = 0.5 * t0[i] + ",
            "t0[i][j] = 0.5 * t0[i][j] + ",
            "= (double)((i + 2 * j) % 7);",
        ],
        1,
    );
    assert!(one_by_one >= 5 && one_by_one < programs.len());
}

#[test]
fn the_heap_buffers_form_allocates_and_frees_its_scratch() {
    let programs = real_c_programs(RealCForm::HeapBuffers, 0..60, 4);
    for (program, text) in &programs {
        assert!(program.needs_sanitizers());
        let unit = unit_text(text);
        let allocated = unit.matches("alloc(").count() - unit.matches("realloc(").count();
        assert_eq!(allocated, unit.matches("    free(").count(), "{unit}");
    }
    each_shows(
        &programs,
        &[
            "double (*t0)[m] = malloc(sizeof(double[n][m]));",
            "double (*t0)[W0] = malloc(sizeof(double[n][W0]));",
            "double *t0 = malloc(n * sizeof *t0);",
            "double *t0 = calloc(n, sizeof *t0);",
            "double *t0 = malloc(sizeof(double) * n * m);",
            "t0[i * m + j] = ",
            "t0[(i - 1) * W0 + j]",
            "keep0 = (double *)t0;",
            "observe0(",
            "t0 = realloc(t0, ",
            "= base0 + 1;",
            "    t0++;",
            "free(t0 - 1);",
            "malloc(bytes0(n, ",
        ],
        1,
    );
}

/// The programs of the issue-47 forms pass the differential check with
/// the sanitizers (as the campaign builds them: `needs_sanitizers`); a
/// buffer allocated one row short, which may print the right values, is
/// caught by the sanitizer run.
#[test]
fn the_buffer_forms_pass_the_check_under_the_sanitizers() {
    let scratch = scratch_dir("fuzz-buffers").expect("scratch directory");
    let failures = Mutex::new(Vec::new());
    let seeds: Vec<u64> = (0..80).collect();
    on_two_threads(&seeds, |index| {
        let form = if index % 2 == 0 {
            RealCForm::CallerBuffers
        } else {
            RealCForm::HeapBuffers
        };
        let seed = 500 + index / 2;
        let program = generate_with(seed, &Forms::parse(form.name()).expect("known form"));
        assert!(program.needs_sanitizers());
        let options = CheckOptions {
            sanitize: program.needs_sanitizers(),
            builds: builds_for(&program),
            trace_sizes: program.call_assignments(),
            ..CheckOptions::default()
        };
        let name = format!("buf_{}_{seed}", index % 2);
        if let Err(f) = check_program(&name, &program.to_c(), &scratch, &options) {
            failures.lock().expect("lock").push(format!(
                "{} seed {seed}: {:?}: {} (reproduce: polyfold-fuzz --forms {} --sizes values --programs 1 --seed {seed})",
                form.name(),
                f.kind,
                f.detail,
                form.name()
            ));
        }
    });
    let failures = failures.into_inner().expect("lock");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // One row short: `malloc(D1 * sizeof *b0)` becomes `malloc((D1 - 1)
    // * sizeof *b0)` in programs whose rows are all written by a call of
    // two rows or more.
    let mut caught = 0;
    let forms = Forms::parse("caller-buffers").expect("known form");
    for seed in 0..200 {
        if caught >= 3 {
            break;
        }
        let program = generate_with(seed, &forms);
        let unit = &program.shape.units[0];
        let UnitKind::CallerBuffers(buffers) = &unit.kind else {
            continue;
        };
        let text = program.to_c();
        let Some(d1) = ["BN0", "n"]
            .into_iter()
            .find(|d| text.contains(&format!("= malloc({d} * sizeof *b0);")))
        else {
            continue;
        };
        let rows = matches!(buffers.shape, BufferShape::Rows { .. });
        let full_rows = rows
            && unit
                .calls
                .iter()
                .any(|c| c.n >= 2 && (buffers.dims != Dims::Macros || c.n == buffers.extents.0));
        if !full_rows || text.contains("realloc") {
            continue;
        }
        let short = text.replace(
            &format!("= malloc({d1} * sizeof *b0);"),
            &format!("= malloc(({d1} - 1) * sizeof *b0);"),
        );
        let options = CheckOptions {
            sanitize: program.needs_sanitizers(),
            ..CheckOptions::default()
        };
        let result = compare_output(&format!("short_{seed}"), &text, &short, &scratch, &options);
        assert!(result.is_err(), "seed {seed}: a short buffer passes");
        caught += 1;
    }
    assert!(caught >= 3, "only {caught} short buffers tried");
    let _ = std::fs::remove_dir_all(&scratch);
}

/// OpenMP wants a plain comparison as the condition of a loop its pragma
/// applies to (gcc -fopenmp: "invalid controlling predicate"): the
/// `labels-bitwise` form writes `&` conditions on other loops only (the
/// campaign drew one under `#pragma omp parallel for`, seed 53002).
#[test]
fn the_labels_bitwise_form_leaves_parallel_loops_plain() {
    let (mut parallel, mut bitwise) = (0, 0);
    for seed in 53000..53200 {
        for symbolic in [false, true] {
            let text = generate_sized(seed, &Forms::all(), symbolic).to_c();
            let lines: Vec<&str> = text.lines().collect();
            for pair in lines.windows(2) {
                let next = pair[1].trim_start();
                if next.starts_with("for (") && next.contains(") & (") {
                    bitwise += 1;
                }
                if pair[0].trim_start().starts_with("#pragma omp") && next.contains("for (") {
                    parallel += 1;
                    assert!(
                        !next.contains(") & ("),
                        "seed {seed} (symbolic {symbolic}): {}\n{}",
                        pair[0],
                        pair[1]
                    );
                }
            }
        }
    }
    // Both kinds of loops were drawn.
    assert!(
        parallel >= 10 && bitwise >= 10,
        "{parallel} parallel, {bitwise} bitwise"
    );
}
