//! `--pow2-moduli` (issue 18, strength reduction of `%`: power-of-two
//! moduli as masks when a flag allows trading a little memory for speed).
//!
//! `tests/masks/ring3.c` keeps three values of `t` live at each write
//! (`t[i - 1]`, `t[i - 2]`, `t[i - 3]`, read before `t[i]` is written):
//! it folds to `t[i % 3]`, its `%` in the innermost loop. Rounding 3 up
//! to 4 adds one cell, so the flag takes it where 8 · 1 <= N (an eighth
//! of the declared `N` cells) and leaves it below. The expected lines and
//! that boundary are worked out by hand here; the outputs are built with
//! the sanitizers and `-Wall -Werror` and must print what the originals
//! print, and `polyfold verify` must read the masks back as the same
//! SCoPs.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use polyfold::driver::{RunOptions, run_source, verify_file};
use polyfold_fuzz::check::{compile, run_with_limit, scratch_dir};

/// `tests/masks/ring3.c` with `#define N {n}`, written to `dir`.
fn ring_at(n: i64, dir: &Path) -> (PathBuf, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/masks/ring3.c")).expect("readable case");
    assert!(text.contains("#define N 200\n"));
    let text = text.replace("#define N 200\n", &format!("#define N {n}\n"));
    let path = dir.join(format!("ring3_{n}.c"));
    std::fs::write(&path, &text).expect("write the case");
    (path, text)
}

/// polyfold's output (or its text report) for `text`.
fn contract(name: &str, text: &str, pow2: bool, report: bool) -> String {
    let options = RunOptions {
        pow2_moduli: pow2,
        no_packing: true,
        // The lattices of the unfused schedules (fused, triangle.c's
        // arrays need one cell: tests/pipeline/fusion.rs).
        no_fusion: true,
        // `t % 3` is proven at the known N only (t[N - 1] and t[N - 2]
        // are read after the loop): a pin, made on request.
        pin_sizes: true,
        quiet: true,
        report: report.then_some(polyfold::cli::ReportFormat::Text),
        ..RunOptions::default()
    };
    let out = run_source(name, text, &options);
    assert_eq!(out.code, 0, "{name}: {}", out.stderr);
    out.stdout
}

/// Builds `original` and `output` with `cc -O2 -Wall -Werror` and the
/// sanitizers, runs both and asserts that they print the same.
fn runs_the_same(original: &Path, output: &str, dir: &Path, tag: &str) {
    let output_path = dir.join(format!("{tag}.out.c"));
    std::fs::write(&output_path, output).expect("write the output");
    let flags = [
        "-std=c11",
        "-O2",
        "-Wall",
        "-Werror",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
    ];
    let (exe_a, exe_b) = (
        dir.join(format!("{tag}.orig")),
        dir.join(format!("{tag}.new")),
    );
    compile(original, &exe_a, &flags).expect("the original builds");
    compile(&output_path, &exe_b, &flags)
        .unwrap_or_else(|e| panic!("{tag}: the output does not build: {e}\n{output}"));
    let limit = Duration::from_secs(20);
    let want = run_with_limit(&exe_a, limit).expect("the original runs");
    let got = run_with_limit(&exe_b, limit).expect("the output runs");
    assert!(!want.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want),
        "{tag}:\n{output}"
    );
}

/// The SCoP headers of `polyfold verify` on `path` up to the operation
/// count; the verification must pass.
fn verified_operations(path: &Path) -> Vec<String> {
    let out = verify_file(path, &RunOptions::default());
    assert_eq!(
        out.code,
        0,
        "{}: {}{}",
        path.display(),
        out.stdout,
        out.stderr
    );
    let lines: Vec<String> = out
        .stdout
        .lines()
        .filter(|l| l.contains(" operations, "))
        .map(|l| l.split(", ").next().unwrap_or("").trim().to_string())
        .collect();
    assert!(!lines.is_empty(), "{}: {}", path.display(), out.stdout);
    lines
}

#[test]
fn a_modulus_of_three_in_the_innermost_loop_becomes_a_mask_of_three() {
    let dir = scratch_dir("pow2_moduli_ring").expect("scratch directory");
    for n in [8, 9, 64, 200, 1000] {
        let (path, text) = ring_at(n, &dir);
        let name = format!("ring3_{n}.c");
        let output = contract(&name, &text, true, false);
        // t[i] -> t[i mod 4]: t[i - 3] is t[(i + 1) & 3] (the simplest
        // non-negative argument of the same residue, i >= 3), t[i - 1]
        // stays `i - 1`; N - 1 and N - 2 are at least 6.
        common::assert_lines(
            &output,
            &[
                "    double t[4]; /* polyfold: t[i] -> t[i % 4] */",
                "        t[i & 3] = 0.5 * t[(i - 1) & 3] - 0.25 * t[(i + 1) & 3] + in[i];",
                "    out[0] = t[(N - 1) & 3] + t[(N - 2) & 3] * 0.125;",
            ],
        );
        // No division left in the SCoP, and no rotating index.
        let scop = common::scop_text(&output);
        assert!(!scop.contains('%') && !scop.contains("t_r0"), "{scop}");
        runs_the_same(&path, &output, &dir, &format!("ring3_{n}"));
        // The output reads back: the same operations as the original.
        let out_path = dir.join(format!("ring3_{n}.masked.c"));
        std::fs::write(&out_path, &output).expect("write the output");
        assert_eq!(verified_operations(&out_path), verified_operations(&path));
        // One cell more than the three of successive modulo.
        let report = contract(&name, &text, true, true);
        assert!(
            report.contains(&format!("ring_kernel.t: {n} -> 4 cells"))
                && report.contains("    mask: modulus 3 -> 4 for `& 3` (+1 cell)\n"),
            "{report}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn below_an_eighth_of_the_declaration_the_modulus_stays() {
    // N = 4..7: the extra cell is more than N / 8; the output is the
    // one without the flag (`% 3` and its rotating index).
    let dir = scratch_dir("pow2_moduli_small").expect("scratch directory");
    for n in [4, 5, 7] {
        let (path, text) = ring_at(n, &dir);
        let name = format!("ring3_{n}.c");
        let output = contract(&name, &text, true, false);
        assert_eq!(output, contract(&name, &text, false, false), "N = {n}");
        assert!(output.contains("    double t[3];"), "{output}");
        assert!(!common::scop_text(&output).contains('&'), "{output}");
        let report = contract(&name, &text, true, true);
        assert!(
            report.contains(&format!(
                "    mask: modulus 3 -> 4 not taken: it adds 1 cell, more than an eighth of the {n} declared\n"
            )),
            "{report}"
        );
        runs_the_same(&path, &output, &dir, &format!("ring3_{n}"));
    }
    // N = 3: two cells, `t[i % 2]` already a power of two: printed as a
    // mask with the flag ((N - 1) & 1 is 2 % 2), nothing rounded.
    let (path, text) = ring_at(3, &dir);
    let output = contract("ring3_3.c", &text, true, false);
    common::assert_lines(
        &output,
        &["    out[0] = t[(N - 1) & 1] + t[N - 2] * 0.125;"],
    );
    assert!(!common::scop_text(&output).contains('%'), "{output}");
    assert!(!contract("ring3_3.c", &text, true, true).contains("mask:"));
    runs_the_same(&path, &output, &dir, "ring3_3");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lattice_whose_enlarged_modulus_collides_keeps_its_mapping() {
    // tests/readable/triangle.c (N = 6, unpacked): sum_t[j][i] ->
    // sum_t[j % 3][(i - 2 * j) % 9], 27 cells for the 21 of the
    // triangle, all live at once (every cell is written in the first
    // nest and read in the second). With j % 4 the cells (0, 5) and
    // (4, 4) would share (0, 5): not certified. With 9 -> 16, 3 * 16 -
    // 27 = 21 cells more than the 36 / 8 allowed. The output is the one
    // without the flag (no modulus is a power of two).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("tests/readable/triangle.c");
    let text = std::fs::read_to_string(&path).expect("readable case");
    let output = contract("triangle.c", &text, true, false);
    assert_eq!(output, contract("triangle.c", &text, false, false));
    let report = contract("triangle.c", &text, true, true);
    for array in ["sum_t", "mean"] {
        assert!(
            report.contains(&format!("  triangle_kernel.{array}: 36 -> 27 cells")),
            "{report}"
        );
    }
    let refusal = "    mask: modulus 3 -> 4 not taken: the enlarged mapping is not certified";
    assert_eq!(report.matches(refusal).count(), 2, "{report}");
    assert_eq!(
        report
            .matches("modulus 9 -> 16 not taken: it adds 21 cells, more than an eighth of the 36 declared")
            .count(),
        2,
        "{report}"
    );
    let dir = scratch_dir("pow2_moduli_triangle").expect("scratch directory");
    runs_the_same(&path, &output, &dir, "triangle");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_flag_on_the_command_line_and_in_the_json_report() {
    let output = common::polyfold_stdout(&["--pow2-moduli", "-q", "tests/masks/ring3.c"]);
    assert!(output.contains("t[i & 3] = "), "{output}");
    let without = common::polyfold_stdout(&["-q", "tests/masks/ring3.c"]);
    assert!(
        without.contains("    double t[3];") && !common::scop_text(&without).contains('&'),
        "{without}"
    );
    let json = common::polyfold_stdout(&[
        "--pow2-moduli",
        "-q",
        "--report",
        "json",
        "tests/masks/ring3.c",
    ]);
    let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let arrays = value
        .pointer("/files/0/arrays")
        .and_then(|a| a.as_array())
        .unwrap_or_else(|| panic!("no arrays in {json}"));
    let t = arrays
        .iter()
        .find(|a| a["array"] == "t")
        .unwrap_or_else(|| panic!("no t in {json}"));
    assert_eq!(t["new_cells"], 4);
    assert_eq!(t["masks"]["moduli"][0]["from"], 3);
    assert_eq!(t["masks"]["moduli"][0]["to"], 4);
    assert_eq!(t["masks"]["moduli"][0]["mask"], 3);
    assert_eq!(t["masks"]["added_cells"], 1);
}

#[test]
fn merged_buffers_print_a_power_of_two_modulus_as_a_mask() {
    // tests/masks/pingpong7.c with --min-memory: P and Q share one buffer
    // of N + 1 = 8 cells (seed 000's 1-d ping-pong), P[i] of step t at
    // (t - i) mod 8. With the flag each `(row) % 8` of the default text
    // is `(row) & 7`, and nothing else changes.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("tests/masks/pingpong7.c");
    let text = std::fs::read_to_string(&path).expect("readable case");
    let run = |pow2: bool| {
        let options = RunOptions {
            pow2_moduli: pow2,
            min_memory: true,
            quiet: true,
            ..RunOptions::default()
        };
        let out = run_source("pingpong7.c", &text, &options);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let (masked, plain) = (run(true), run(false));
    assert!(
        plain.contains("            polyfold_buf0[(t - i + 8) % 8] =\n                0.25 *"),
        "{plain}"
    );
    assert_eq!(masked, plain.replace(") % 8]", ") & 7]"));
    assert!(!common::scop_text(&masked).contains("% 8"), "{masked}");
    let dir = scratch_dir("pow2_moduli_merged").expect("scratch directory");
    runs_the_same(&path, &masked, &dir, "pingpong7");
    // The masks read back as the `%` do (the deleted copy loop runs no
    // operation in either).
    let (masked_path, plain_path) = (
        dir.join("pingpong7.masked.c"),
        dir.join("pingpong7.plain.c"),
    );
    std::fs::write(&masked_path, &masked).expect("write the output");
    std::fs::write(&plain_path, &plain).expect("write the output");
    assert_eq!(
        verified_operations(&masked_path),
        verified_operations(&plain_path)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
