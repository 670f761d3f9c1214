//! Issue 49, item 3: output a reviewer accepts. No line that polyfold adds
//! to a corpus kernel is wider than 120 columns, and rotating indices start
//! on lines before their loop and advance at the end of its body (not in
//! the loop's header), the program printing what the original prints.

use crate::common;

use std::collections::HashSet;
use std::path::Path;

/// The lines of `output` that are not lines of `input` (the lines that
/// polyfold added or changed).
fn added_lines<'a>(input: &str, output: &'a str) -> Vec<&'a str> {
    let before: HashSet<&str> = input.lines().collect();
    output.lines().filter(|l| !before.contains(l)).collect()
}

/// The corpus kernels, `corpus/*.c`, sorted.
fn corpus_kernels() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut kernels: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    kernels.sort();
    assert!(kernels.len() >= 20, "{kernels:?}");
    kernels
}

#[test]
fn corpus_outputs_add_no_line_over_120_columns() {
    let kernels = corpus_kernels();
    let mut wide = Vec::new();
    let mut changed = 0;
    for path in &kernels {
        let input = std::fs::read_to_string(path).expect("kernel");
        let output = common::polyfold_stdout(&[path]);
        let added = added_lines(&input, &output);
        changed += usize::from(!added.is_empty());
        for line in added {
            if line.chars().count() > 120 {
                wide.push(format!("{}: {line}", path.display()));
            }
        }
    }
    assert!(changed >= 15, "only {changed} kernels changed");
    assert!(
        wide.is_empty(),
        "lines over 120 columns:\n{}",
        wide.join("\n")
    );
}

/// `tests/readable/rotating_placement.c`: w[t][i] -> w[i % 5], read in the
/// loop of j at i, i - 1, i - 2, i - 4. Worked out by hand: at i = 0 the
/// residues are 0, -1 mod 5 = 4, -2 mod 5 = 3, -4 mod 5 = 1, each rising
/// by 1 per iteration of i (wrapping at 5). The loop of i is the brace-less
/// body of the loop of t, which gets braces for the starts; the loop of i
/// runs no iteration from t = N - 1 on, and i is returned after the SCoP.
/// The output prints what the original prints at several sizes, under
/// ASan and UBSan.
#[test]
fn rotating_indices_start_before_the_loop_and_advance_at_the_end_of_the_body() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/readable/rotating_placement.c");
    let source = std::fs::read_to_string(&path).expect("test program");
    let output = common::polyfold_stdout(&[&path]);
    common::assert_lines(
        &output,
        &[
            "    double w[5]; /* polyfold: w[t][i] -> w[i % 5] */",
            "    for (t = 0; t < T; t++) {",
            "        w_r0 = 0;",
            "        w_r1 = 4;",
            "        w_r2 = 3;",
            "        w_r3 = 1;",
            "        for (i = 0; i < N - 1 - t; i++) {",
            "                    out[t][i][j] = w[w_r0] + 2.0 * j * w[w_r1] - w[w_r2] + w[w_r3];",
            "            w_r0 = w_r0 + 1 < 5 ? w_r0 + 1 : 0;",
            "            w_r3 = w_r3 + 1 < 5 ? w_r3 + 1 : 0;",
            "        }",
            "    }",
        ],
    );
    // No rotating index in a header.
    assert!(
        !output
            .lines()
            .any(|l| l.contains("for (") && l.contains("w_r")),
        "{output}"
    );
    common::assert_runs_like_original(&path, "rotating_placement", "reviewer", &output);
    // Other sizes: the loop of i runs from N - 1 iterations down to none.
    for (n, t) in [(6, 9), (9, 3), (7, 4)] {
        let sized = common::with_define(&common::with_define(&source, "N", n), "T", t);
        let name = format!("rotating_placement_{n}_{t}");
        let dir = polyfold_fuzz::check::scratch_dir(&name).expect("scratch dir");
        let sized_path = dir.join(format!("{name}.c"));
        std::fs::write(&sized_path, &sized).expect("write");
        let output = common::polyfold_stdout(&[&sized_path]);
        assert!(output.contains("w[w_r0]"), "{output}");
        common::assert_runs_like_original(&sized_path, &name, "reviewer", &output);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Issue 49 (and 47's "without new warnings"): every golden output of the
/// corpus builds with `cc -std=c11 -Wall -Wextra -Werror` wherever its
/// original does (jacobi2d_smoothing's guards around an `if`/`else` once
/// drew `-Wdangling-else`).
#[test]
fn corpus_outputs_add_no_compiler_warning() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let kernels = corpus_kernels();
    let clean = |path: &Path| -> Result<(), String> {
        let out = std::process::Command::new("cc")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"])
            .arg(path)
            .output()
            .expect("cc runs");
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    };
    let mut checked = 0;
    let mut warned = Vec::new();
    for original in &kernels {
        if clean(original).is_err() {
            continue;
        }
        let name = original.file_name().expect("a name");
        let golden = dir.join("expected").join(name);
        checked += 1;
        if let Err(e) = clean(&golden) {
            warned.push(format!("{}:\n{e}", golden.display()));
        }
    }
    assert!(checked >= 15, "only {checked} originals build cleanly");
    assert!(warned.is_empty(), "{}", warned.join("\n"));
}
