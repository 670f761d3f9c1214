//! Class 4 of issue 45: a statement's arithmetic keeps its iterator's
//! type. Loops whose iterators have different types are not fused (the
//! fused loop's variable has the first loop's type) and not re-scheduled
//! into one nest (the scanner's loop variables have one type per level);
//! loops of one type fuse, and the fused loop declares or uses a variable
//! of that type. Unsigned iterators stay out of the SCoPs (PF013: their
//! arithmetic wraps around). Each output runs like the original under
//! ASan and UBSan at -O1 and -O2.
//!
//! The build before this class was fixed fused `long_scaled_beside_int`'s
//! and `header_declared_long`'s loops into the `int i` loop: `out[-lo + i
//! + 1] = (i + 1) * 1000000 + t;`, which overflows at 3000 seconds (UBSan:
//! `3001 * 1000000 cannot be represented in type 'int'`; unsanitized at
//! -O2 it printed `out[3] = 2147483661` where the original prints
//! `3003000014`).

use super::overflow::{case, runs_like_original_at_every_level, transform};

/// `for (i ...)` with `int i` beside `for (j ...)` with `long j`, whose
/// body computes `j * 1000000`: not fused, not re-scheduled (the report
/// says why), and the loops keep their text.
#[test]
fn loops_of_int_and_long_iterators_are_not_fused() {
    for name in ["long_scaled_beside_int", "header_declared_long"] {
        let path = case("types", name);
        let (output, lines) = transform(&path, &[]);
        assert!(
            !lines.iter().any(|l| l.contains(" fused (")),
            "{name}: {lines:#?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("not re-scheduled")
                    && l.contains("iterators have different types")),
            "{name}: {lines:#?}"
        );
        assert!(output.contains("j * 1000000"), "{name}: {output}");
        runs_like_original_at_every_level(&path, name, &output);
    }
}

/// Two `long` loops fuse (the class is no reason to keep them apart), and
/// the second body runs with the fused `long` variable.
#[test]
fn loops_of_one_type_fuse_in_that_type() {
    let path = case("types", "long_loops_fuse");
    let (output, lines) = transform(&path, &[]);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("fused (shifted: line 15 by -1)")),
        "{lines:#?}"
    );
    assert!(output.contains("    long i, j;"), "{output}");
    assert!(output.contains("(i + 1) * 1000000"), "{output}");
    runs_like_original_at_every_level(&path, "long_loops_fuse", &output);
}

/// `size_t` and `unsigned` iterators are rejected by the front end (PF013)
/// and the file is left as it is.
#[test]
fn unsigned_iterators_stay_out_of_the_scops() {
    let path = case("types", "unsigned_iterators");
    let source = std::fs::read_to_string(&path).expect("kernel");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .arg(&path)
        .output()
        .expect("polyfold runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning[PF013]: iterator `i` has type `size_t`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning[PF013]: iterator `k` has type `unsigned`"),
        "{stderr}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), source);
}
