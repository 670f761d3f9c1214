//! Issue 21: temporaries split by reference groups (seed 004's
//! "compatible references": accesses grouped so that no two groups touch
//! one cell, each group an array of its own).
//!
//! The expected sizes are worked out by hand in each case's comment (the
//! live values of each region, and the largest distance of two live cells
//! for the whole buffer), not taken from polyfold's output; every split
//! output is compiled and run against the original (ASan/UBSan), and the
//! trace check is shown to fail on a split that renames a reference into
//! the wrong group.

use crate::common;

use std::path::Path;

use polyfold::frontend::{Options, extract};
use polyfold::poly::Budget;
use polyfold::schedule::check::Origin;

/// corpus/split_temp.c: two regions of `scratch[3 * N]`, N and N - 1
/// values, all live between the loops. Split: N + (N - 1) = 999 cells at
/// N = 500, the max-live bound, no `%`. Whole: 3N - 1 = 1499 (cells 0
/// and 3N - 2 are live together; see the kernel's header for why no
/// mapping of the whole does better).
#[test]
fn split_temp_reaches_the_max_live_bound_in_two_arrays() {
    let r = common::json_report(&["corpus/split_temp.c"]);
    assert_eq!(common::new_cells(&r, "scratch_0"), Some(500), "{r:#}");
    assert_eq!(common::new_cells(&r, "scratch_1"), Some(499), "{r:#}");
    let what = r["files"][0]["split"][0]["split"]
        .as_str()
        .expect("a split array");
    assert!(what.starts_with("`scratch` split into 2"), "{what}");

    let out = common::polyfold_stdout(&["corpus/split_temp.c"]);
    let scop = common::scop_text(&out);
    assert!(!scop.contains('%'), "{scop}");
    assert!(!scop.contains("scratch["), "{scop}");

    let whole = common::json_report(&["--no-split", "corpus/split_temp.c"]);
    assert_eq!(
        common::new_cells(&whole, "scratch"),
        Some(1499),
        "{whole:#}"
    );
    assert_eq!(whole["files"][0]["split"], serde_json::json!([]));

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/split_temp.c");
    let source = std::fs::read_to_string(&path).expect("corpus kernel");
    for n in [500, 1, 2, 3, 7] {
        let dir = polyfold_fuzz::check::scratch_dir(&format!("split-temp-{n}")).expect("scratch");
        let file = dir.join("split_temp.c");
        std::fs::write(&file, common::with_define(&source, "N", n)).expect("write");
        let out = common::polyfold_stdout(&[file.to_str().expect("utf-8")]);
        assert!(out.contains("scratch_1"), "N = {n}:\n{out}");
        common::assert_runs_like_original(&file, "split_temp", "split", &out);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// tests/split_cases/split_vla.c: three regions of a VLA `t[3 * n + 3]`,
/// of n, n and n - 1 values, all live at once: t_0 n, t_1 n, t_2 n - 1,
/// for every n (the main program calls the kernel at n = 1, 2, 3, 7, 64).
#[test]
fn a_symbolic_buffer_is_split_for_every_size() {
    let path = "tests/split_cases/split_vla.c";
    let r = common::json_report(&[path]);
    let arrays = r["files"][0]["arrays"].as_array().expect("arrays");
    let formula = |name: &str| {
        arrays
            .iter()
            .find(|a| a["array"] == name)
            .map(|a| a["new_formula"].clone())
    };
    assert_eq!(formula("t_0"), Some("n".into()), "{r:#}");
    assert_eq!(formula("t_1"), Some("n".into()), "{r:#}");
    assert_eq!(formula("t_2"), Some("(n - 1)".into()), "{r:#}");
    let what = r["files"][0]["split"][0]["split"].as_str().expect("split");
    assert!(what.starts_with("`t` split into 3"), "{what}");
    let out = common::polyfold_stdout(&[path]);
    assert!(!common::scop_text(&out).contains('%'), "{out}");
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    common::assert_runs_like_original(&full, "split_vla", "split", &out);
}

/// tests/split_cases/split_overlap.c: regions at 0 and M of N values
/// each overlap wherever M < N: the split is not proven for every size,
/// and the buffer stays one array.
#[test]
fn regions_that_overlap_for_some_sizes_stay_whole() {
    let r = common::json_report(&["tests/split_cases/split_overlap.c"]);
    assert_eq!(r["files"][0]["split"], serde_json::json!([]), "{r:#}");
    assert!(common::new_cells(&r, "t").is_some(), "{r:#}");
    assert_eq!(common::new_cells(&r, "t_0"), None, "{r:#}");
}

/// The trace check of a split maps the new names back to the old one:
/// a split that puts the read `t[N + i]` in the group of `t[i]` (whose
/// array never holds it) must fail it, the right split must pass.
#[test]
fn the_trace_check_catches_a_wrong_split() {
    let original = "#define N 5\n\
void f(double in[N], double out[N])\n{\n    int i;\n    double t[2 * N];\n#pragma scop\n    \
for (i = 0; i < N; i++) {\n        t[i] = in[i];\n        t[N + i] = in[i] + 1.0;\n    }\n    \
for (i = 0; i < N; i++)\n        out[i] = t[N - 1 - i] + t[N + i];\n#pragma endscop\n}\n";
    let right = original
        .replace(
            "double t[2 * N];",
            "double t_0[2 * N];\n    double t_1[2 * N];",
        )
        .replace(" t[i] =", " t_0[i] =")
        .replace(" t[N + i] =", " t_1[N + i] =")
        .replace("t[N - 1 - i] + t[N + i]", "t_0[N - 1 - i] + t_1[N + i]");
    let wrong = right.replace("t_0[N - 1 - i] + t_1[N + i]", "t_0[N - 1 - i] + t_0[N + i]");
    let o = extract("o.c", original, &Options::default());
    let scop = &o.scops[0];
    let np = scop.params.len();
    let order: Vec<Origin> = scop
        .stmts
        .iter()
        .enumerate()
        .map(|(k, s)| Origin::identity(k, s.iterators.len(), np))
        .collect();
    let values = scop.param_values().expect("N = 5");
    let renames = vec![
        ("t_0".to_string(), "t".to_string()),
        ("t_1".to_string(), "t".to_string()),
    ];
    let mut budget = Budget::new(10_000_000, None);
    for (text, ok) in [(&right, true), (&wrong, false)] {
        let p = extract("s.c", text, &Options::default());
        let checked = polyfold::schedule::trace::same_values(
            scop,
            (&p.scops[0], &renames),
            &order,
            &values,
            &mut budget,
        );
        assert_eq!(checked.is_ok(), ok, "{checked:?}\n{text}");
        if ok {
            // Per i: `in[i]` twice, then `t[N - 1 - i]` and `t[N + i]`.
            assert_eq!(checked, Ok(4 * 5));
        }
    }
}

/// The offset of a region written alone (tests/split_cases/offset_region.c,
/// `s[2 * N + i]`, N - 1 values live at once unfused) is removed: N - 1
/// cells with no `%`, method `offset removed`; a removed stride is named
/// with its value (corpus/strided_temp.c: `t[2 * i][1]`, `u[3 * i + 2]`).
#[test]
fn offsets_and_strides_are_removed_and_named() {
    let path = "tests/split_cases/offset_region.c";
    let r = common::json_report(&["--no-fusion", path]);
    assert_eq!(common::new_cells(&r, "s"), Some(499), "{r:#}");
    let s = r["files"][0]["arrays"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["array"] == "s"))
        .expect("s");
    assert_eq!(s["method"], "offset removed", "{s:#}");
    let out = common::polyfold_stdout(&["--no-fusion", path]);
    let scop = common::scop_text(&out);
    assert!(!scop.contains('%'), "{scop}");
    assert!(
        scop.contains("s[i] = ") && scop.contains("s[i - 1]"),
        "{scop}"
    );

    let r = common::json_report(&["corpus/strided_temp.c"]);
    let arrays = r["files"][0]["arrays"].as_array().expect("arrays");
    let named = |name: &str| {
        arrays
            .iter()
            .find(|a| a["array"] == name)
            .map(|a| a["transformation"].clone())
    };
    assert_eq!(named("t"), Some("stride 2 removed".into()), "{r:#}");
    assert_eq!(named("u"), Some("stride 3 removed".into()), "{r:#}");
}
