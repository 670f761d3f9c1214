//! Issue 14, classes 1, 2 and 8: statement deletion by syntax nodes and
//! the scope of merged buffers (`--inter-array`).
//!
//! Each `tests/miscompile/` case named below is a minimal program of its
//! own. The differential check of the fuzz campaign
//! (`polyfold_fuzz::check::check_program`) compiles the original and
//! polyfold's output with `cc -O1 -fsanitize=address,undefined`, runs both
//! and compares what they print; the expected output is the original
//! program's, computed by the compiler. Every case must also really be
//! merged (otherwise the check would pass without testing anything), and
//! the output must not hold a line of blanks that the input did not have.

use std::path::Path;

use polyfold_fuzz::check::{CheckOptions, CheckStats, check_program, run_polyfold, scratch_dir};

fn source_of(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/miscompile")
        .join(format!("{name}.c"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn blank_lines(text: &str) -> usize {
    text.lines()
        .filter(|l| !l.is_empty() && l.trim().is_empty())
        .count()
}

fn check_case(name: &str) {
    let stats = check_with(name, true);
    assert!(
        stats.merged_scops >= 1,
        "{name}: --inter-array no longer merges this case, so it tests nothing"
    );
}

/// The differential check of case `name` (with or without
/// `--inter-array`), and no new line of blanks.
fn check_with(name: &str, inter_array: bool) -> CheckStats {
    let source = source_of(name);
    let scratch = scratch_dir(&format!("miscompile-{name}")).expect("scratch directory");
    let options = CheckOptions {
        sanitize: true,
        inter_array,
        // The merged buffers of these cases are certified for the known
        // sizes: made with --pin-sizes only.
        pin_sizes: true,
        ..CheckOptions::default()
    };
    let result = check_program(name, &source, &scratch, &options);
    let _ = std::fs::remove_dir_all(&scratch);
    let stats = result.unwrap_or_else(|f| panic!("{name}: {:?}: {}", f.kind, f.detail));
    let (contraction, _) = run_polyfold(
        name,
        &source,
        options.library_time_limit,
        (inter_array, true),
    )
    .unwrap_or_else(|f| panic!("{name}: {:?}: {}", f.kind, f.detail));
    assert_eq!(
        blank_lines(&contraction.output),
        blank_lines(&source),
        "{name}: a deletion left a line of blanks:\n{}",
        contraction.output
    );
    stats
}

#[test]
fn a_dead_copy_goes_with_its_brace_less_if_and_for() {
    check_case("deletion_if_header");
}

#[test]
fn a_comment_after_a_loop_header_does_not_stop_the_deletion() {
    check_case("deletion_comment_after_header");
}

#[test]
fn a_dead_copy_in_an_else_branch_goes_with_its_else() {
    check_case("deletion_else_branch");
}

#[test]
fn a_deleted_loop_whose_iterator_is_read_after_it_stays() {
    check_case("deletion_iterator_read_after");
}

#[test]
fn a_pragma_goes_with_the_deleted_loop_it_applies_to() {
    check_case("deletion_pragma");
}

#[test]
fn merged_buffers_are_declared_in_a_block_enclosing_every_use() {
    check_case("merged_buffer_sibling_blocks");
}

#[test]
fn a_temporary_read_in_a_macro_body_keeps_its_layout() {
    // Both modes: folding (out-of-bounds read before the fix) and merging
    // (compile error before the fix).
    let stats = check_with("macro_body_reads_temporary", false);
    assert!(stats.temporaries >= 1, "the case has no temporary left");
    check_with("macro_body_reads_temporary", true);
}

#[test]
fn copies_that_a_fold_alone_makes_x_equals_x_go() {
    // Not merged: t is folded alone, and its two last-column copies
    // become `t[N - 2] = t[N - 2]` and `t[j] = t[j]`.
    check_with("self_copy_per_array", false);
    let source = source_of("self_copy_per_array");
    let (contraction, _) = run_polyfold(
        "self_copy_per_array",
        &source,
        std::time::Duration::from_secs(60),
        (false, true),
    )
    .unwrap_or_else(|f| panic!("{:?}: {}", f.kind, f.detail));
    assert_eq!(
        contraction.removed_copies.len(),
        2,
        "{}",
        contraction.output
    );
    let out = &contraction.output;
    assert!(out.contains("double t[N];"), "{out}");
    for gone in ["if (i > 0)", "for (j = N - 1; j < N; j++)", "t[N - 2] ="] {
        assert!(!out.contains(gone), "`{gone}` is still in\n{out}");
    }
    // The trace of the output's storage, with the copies not run.
    let program = polyfold::frontend::extract(
        "self_copy_per_array.c",
        &source,
        &polyfold::frontend::Options::default(),
    );
    let mut budget = polyfold::poly::Budget::steps(50_000_000);
    let reports =
        polyfold::verify::build::verify_program(&program, &contraction.emitted(), &mut budget)
            .expect("traced");
    assert!(reports.iter().all(|(_, r)| r.first_mismatch.is_none()));
}
