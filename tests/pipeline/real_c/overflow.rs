//! Class 3 of issue 45: no new undefined behaviour. Every value polyfold
//! prints (loop bounds, the values after loops' last iterations, guards,
//! subscripts, rotating indices' starts and updates) must be one the
//! original computes or one proven representable from those; the kernels
//! are called with windows next to INT_MAX and INT_MIN (LONG_MAX and
//! LONG_MIN for `long` iterators). Each output is built and run against
//! the original under ASan and UBSan (`-fno-sanitize-recover=all`: a
//! signed overflow stops the run) at -O1 and at -O2 (the fused
//! epilogue was a segmentation fault at -O2).
//!
//! The outputs of the build before this class was fixed fail these runs:
//! `shift_near_int_max` and `shift_near_long_max` stepped the epilogue's
//! `i` to `base + n + 1` and printed `E[-base + i]` (UBSan: `2147483647 +
//! 1 cannot be represented in type 'int'`); `rescheduled_with_bases`
//! printed `ZP[-jb + j][-kb + k]` (`2147483638 + 2147483641`).

use std::path::{Path, PathBuf};

use crate::common;

/// The kernel `name` of `tests/real_c/cases/<class>/`.
pub(crate) fn case(class: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/real_c/cases")
        .join(class)
        .join(format!("{name}.c"))
}

/// polyfold's output for `path` (with `args` before the path) and the
/// lines of its text report about SCoPs.
pub(crate) fn transform(path: &Path, args: &[&str]) -> (String, Vec<String>) {
    let p = path.to_str().expect("utf-8 path");
    let mut with_path: Vec<&str> = args.to_vec();
    with_path.push(p);
    let output = common::polyfold_stdout(&with_path);
    let mut report_args = vec!["--report", "text", "--no-timings"];
    report_args.extend(with_path);
    let report = common::polyfold_stdout(&report_args);
    let lines = report
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| l.starts_with("SCoP ") || l.starts_with("kept:") || l.starts_with("rotating"))
        .collect();
    (output, lines)
}

/// Builds the original and `output` with ASan and UBSan at -O1 and at
/// -O2, runs them and asserts that they print the same.
pub(crate) fn runs_like_original_at_every_level(path: &Path, name: &str, output: &str) {
    use polyfold_fuzz::check::{Build, build_and_run, scratch_dir};
    let scratch = scratch_dir(&format!("real-c-{name}")).expect("scratch directory");
    let output_path = scratch.join(format!("{name}.polyfold.c"));
    std::fs::write(&output_path, output).expect("write");
    let limit = std::time::Duration::from_secs(20);
    for level in ["-O1", "-O2"] {
        let build = Build {
            flags: vec![level.to_string()],
            env: Vec::new(),
            changes_sizes: false,
            runs: 1,
        };
        let expected = build_and_run(path, name, &scratch, true, limit, Some(&build))
            .unwrap_or_else(|(_, e)| panic!("{name} {level}: the original fails: {e}"));
        let actual = build_and_run(&output_path, "out", &scratch, true, limit, Some(&build))
            .unwrap_or_else(|(_, e)| panic!("{name} {level}: the output fails: {e}\n{output}"));
        assert_eq!(
            String::from_utf8_lossy(&actual),
            String::from_utf8_lossy(&expected),
            "{name} {level}: output:\n{output}"
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Whether some report line contains every one of `parts`.
fn reported(lines: &[String], parts: &[&str]) -> bool {
    lines.iter().any(|l| parts.iter().all(|p| l.contains(p)))
}

/// The kernel: two loops over `base .. base + n` fused with the
/// second shifted by one. Called with the window ending at INT_MAX, the
/// epilogue of the old text ran `i` to `base + n` and stepped it to
/// `base + n + 1`. Now the epilogue counts the second loop's own values
/// (`base + n - 1`, the original's last), and the subscripts keep the
/// iterator first (`i - base`), which the original computes.
#[test]
fn a_fused_epilogue_near_int_max_counts_the_loops_own_values() {
    let path = case("overflow", "shift_near_int_max");
    let (output, lines) = transform(&path, &[]);
    assert!(
        reported(&lines, &["fused (shifted: line 17 by 1)"]),
        "{lines:#?}"
    );
    common::assert_lines(
        &output,
        &[
            // The one-iteration epilogue is straight code (issue 49): `i`
            // takes the loop's one value, no step past it.
            "    i = base + n - 1;",
            "    E[i - base + 1] = 0.5 * A[(i - base) % 2];",
        ],
    );
    assert!(!output.contains("-base"), "{output}");
    runs_like_original_at_every_level(&path, "shift_near_int_max", &output);
}

/// The same kernel with `long` iterators and a `long` base, called next
/// to LONG_MAX and LONG_MIN.
#[test]
fn a_fused_epilogue_near_long_max_counts_the_loops_own_values() {
    let path = case("overflow", "shift_near_long_max");
    let (output, lines) = transform(&path, &[]);
    assert!(reported(&lines, &["fused (shifted"]), "{lines:#?}");
    assert!(output.contains("    long i;"), "{output}");
    assert!(!output.contains("-base"), "{output}");
    runs_like_original_at_every_level(&path, "shift_near_long_max", &output);
}

/// song_example2's shape on a window numbered from `jb` and `kb`, called
/// next to INT_MAX and INT_MIN: re-scheduled whole, its subscripts are
/// printed with the iterators first (`k - kb + 1`), a fixed column as the
/// value it has (`za_edge[KN]`), and every bound is proven.
#[test]
fn a_rescheduled_window_near_the_limits_computes_only_original_values() {
    let path = case("overflow", "rescheduled_with_bases");
    let (output, lines) = transform(&path, &[]);
    assert!(
        reported(&lines, &["re-scheduled as one nest"]),
        "{lines:#?}"
    );
    // No `-kb`, `-jb` in the code (the kernel's comment names them).
    let code: Vec<&str> = output
        .lines()
        .filter(|l| !l.trim_start().starts_with('*') && !l.trim_start().starts_with("/*"))
        .collect();
    assert!(
        !code.iter().any(|l| l.contains("-kb") || l.contains("-jb")),
        "{output}"
    );
    // The original's arrays: the iterator first.
    assert!(output.contains("ZP[j - jb - 1][k - kb + 1]"), "{output}");
    // ZB folded onto a row: its argument `jb + k + JN - j - kb + 1` (in
    // 0..JN) passes through `jb + k`, past INT_MAX for the window next to
    // it: computed in `long long`.
    assert!(
        output.contains("ZB[((long long)jb + k + JN - j - kb + 1) % JN]"),
        "{output}"
    );
    runs_like_original_at_every_level(&path, "rescheduled_with_bases", &output);
}

/// The campaign's forced re-scheduling (`reschedule_always`) takes the
/// same window; its text runs like the original at the limits.
#[test]
fn a_forced_reschedule_near_the_limits_runs_like_the_original() {
    let path = case("overflow", "rescheduled_with_bases");
    let source = std::fs::read_to_string(&path).expect("kernel");
    let program = polyfold::frontend::extract(
        "rescheduled_with_bases.c",
        &source,
        &polyfold::frontend::Options::default(),
    );
    let options = polyfold::pipeline::ContractOptions {
        reschedule_always: true,
        min_memory: true,
        ..Default::default()
    };
    let (contraction, fusion) = polyfold::pipeline::contract_read(
        &program,
        &options,
        &polyfold::frontend::Options::default(),
    )
    .expect("contraction");
    assert!(
        fusion.is_some_and(|f| !f.rescheduled.is_empty()),
        "not re-scheduled"
    );
    runs_like_original_at_every_level(&path, "rescheduled_forced", &contraction.output);
}

/// A window whose loops the shift would make compute a value the original
/// does not, for some parameters it accepts: `for (i = base + 1; i <=
/// base + n; i++)` fused with a shift of one runs its prologue from
/// `base + 1` to `base + 1`, then steps `i` to `base + 2`, which
/// overflows for `base = INT_MAX - 1` and `n = 0` (where the original
/// runs no iteration). The run is not fused, not re-scheduled, and the
/// report says which value was not proven.
#[test]
fn a_run_whose_values_cannot_be_proven_keeps_its_schedule() {
    let path = case("overflow", "unproven_prologue");
    let (output, lines) = transform(&path, &[]);
    assert!(
        reported(&lines, &["not fused", "prologue", "`int`"]),
        "{lines:#?}"
    );
    assert!(
        reported(&lines, &["not re-scheduled", "`int`"]),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains(" fused (")), "{lines:#?}");
    let source = std::fs::read_to_string(&path).expect("kernel");
    assert_eq!(
        common::scop_text(&output),
        common::scop_text(&source),
        "the loops keep their text"
    );
    runs_like_original_at_every_level(&path, "unproven_prologue", &output);
}

/// A difference over five samples folds its temporary onto 6 cells whose
/// index rotates with the loop; the rotating indices start before the
/// loop at the arguments' values at `i = base`: `(base - base) % 6 = 0`
/// and `(base - base - 5) mod 6 = 1` (by hand), and their updates are
/// proven (the window's base next to INT_MAX and INT_MIN), so they are
/// kept.
#[test]
fn rotating_indices_near_the_limits_are_proven_and_kept() {
    let path = case("overflow", "rotating_near_limits");
    let (output, lines) = transform(&path, &[]);
    assert!(
        reported(&lines, &["rotating indices: loop `i`"]),
        "{lines:#?}"
    );
    common::assert_lines(
        &output,
        &[
            "    t_r0 = 0;",
            "    t_r1 = 1;",
            "    for (i = base; i < base + n; i++) {",
            "        t_r0 = t_r0 + 1 < 6 ? t_r0 + 1 : 0;",
            "        t_r1 = t_r1 + 1 < 6 ? t_r1 + 1 : 0;",
        ],
    );
    runs_like_original_at_every_level(&path, "rotating_near_limits", &output);
}
