//! Class 6 and 7 of issue 45: declarations. An extent whose variables are
//! written after the declaration keeps the value they had there, so the
//! array keeps its declaration (a new one would be printed with the
//! SCoP's values); an initialiser with side effects would be dropped by a
//! new declaration, so the array keeps it. Each output is run against the
//! original under ASan/UBSan; the outputs of the build before these
//! classes were fixed overflowed the VLA (`vla_size_changed`) and lost two
//! calls (`init_with_calls`).

use super::calls::{case, runs_like_original, transform};
use crate::common;

/// The report line of array `name` (`function.name: ...`) and the lines
/// after it, up to the next array.
fn array_report(path: &std::path::Path, name: &str) -> String {
    let p = path.to_str().expect("utf-8 path");
    let report = common::polyfold_stdout(&["--report", "text", "--no-timings", p]);
    let mut out = String::new();
    let mut inside = false;
    for line in report.lines() {
        if line.starts_with("  ") && !line.starts_with("    ") {
            inside = line.trim_start().contains(&format!(".{name}:"));
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn check_kept(name: &str, array: &str, reason: &str) {
    let path = case("declarations", name);
    let (output, _) = transform(&path);
    let source = std::fs::read_to_string(&path).expect("read");
    assert_eq!(output, source, "{name}: the file must not change");
    let report = array_report(&path, array);
    assert!(report.contains(reason), "{name}: {report}");
    runs_like_original(&path, name, &output);
}

fn check_folded(name: &str, array: &str) {
    let path = case("declarations", name);
    let (output, _) = transform(&path);
    assert!(
        output.contains(&format!("/* polyfold: {array}[i] -> ")),
        "{name}: `{array}` must fold:\n{output}"
    );
    runs_like_original(&path, name, &output);
}

#[test]
fn a_vla_whose_size_variable_grows_after_the_declaration_keeps_it() {
    check_kept(
        "vla_size_changed",
        "t",
        "`n`, in its extent, is written after the declaration",
    );
}

#[test]
fn a_vla_whose_size_variable_grows_before_the_declaration_folds() {
    check_folded("vla_size_before", "t");
}

#[test]
fn an_initialiser_with_calls_keeps_its_declaration() {
    check_kept(
        "init_with_calls",
        "t",
        "its initialiser has a side effect (a call of `next_byte()`)",
    );
}

#[test]
fn an_initialiser_without_side_effects_is_dropped_with_the_declaration() {
    check_folded("init_pure", "t");
}
