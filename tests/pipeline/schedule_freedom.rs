//! Issue 52: schedule freedom for storage. A nest that touches nothing
//! of a producer's moves before it, so that the producer's rows fuse with
//! their consumer's (PolyBench's 3mm: `F := C*D` first, then `E := A*B`
//! row by row with `G := E*F`); the caller's buffers, which macros
//! declare and allocate, are distinct objects (the whole file's calls);
//! loops whose inner loops walk arrays across their rows fuse when one
//! step of the fused loop stays in the cache at the known sizes
//! (`schedule::footprint`).
//!
//! Every output is compiled and run against its original (ASan/UBSan);
//! the cells are derived by hand in each test's comment.

use crate::common;

/// 3mm as PolyBench writes it: sizes as function parameters, buffers
/// declared and allocated by macros in `main`, a row-major `i, j, k`
/// product whose inner loop walks `B` and `F` across their rows, and the
/// indentation of tabs beside spaces.
const THREE_MM: &str = "#include <stdio.h>\n#include <stdlib.h>\n\
#define NI 4\n#define NJ 5\n#define NK 6\n#define NL 7\n#define NM 8\n\
#define DECL_2D(v, d1, d2) double (*v)[d1][d2]; v = (double(*)[d1][d2])malloc((d1) * (d2) * sizeof(double));\n\
#define ARR(x) *x\n#define FREE(x) free((void *)x);\n\
static void init(int n, int m, double t[n][m], int seed)\n{\n  int i, j;\n\
  for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)\n      t[i][j] = (double)((i * seed + j) % 7) / 7;\n}\n\
static void kernel_3mm(int ni, int nj, int nk, int nl, int nm,\n\
\t\tdouble E[NI][NJ], double A[NI][NK], double B[NK][NJ],\n\
\t\tdouble F[NJ][NL], double C[NJ][NM], double D[NM][NL], double G[NI][NL])\n{\n  int i, j, k;\n\n\
  for (i = 0; i < ni; i++)\n    for (j = 0; j < nj; j++)\n      {\n\tE[i][j] = 0.0;\n\tfor (k = 0; k < nk; ++k)\n\t  E[i][j] += A[i][k] * B[k][j];\n      }\n\
  for (i = 0; i < nj; i++)\n    for (j = 0; j < nl; j++)\n      {\n\tF[i][j] = 0.0;\n\tfor (k = 0; k < nm; ++k)\n\t  F[i][j] += C[i][k] * D[k][j];\n      }\n\
  for (i = 0; i < ni; i++)\n    for (j = 0; j < nl; j++)\n      {\n\tG[i][j] = 0.0;\n\tfor (k = 0; k < nj; ++k)\n\t  G[i][j] += E[i][k] * F[k][j];\n      }\n}\n\
int main(void)\n{\n  int i, j;\n\
  DECL_2D(E, NI, NJ);\n  DECL_2D(A, NI, NK);\n  DECL_2D(B, NK, NJ);\n  DECL_2D(F, NJ, NL);\n\
  DECL_2D(C, NJ, NM);\n  DECL_2D(D, NM, NL);\n  DECL_2D(G, NI, NL);\n\
  init(NI, NK, ARR(A), 3);\n  init(NK, NJ, ARR(B), 5);\n  init(NJ, NM, ARR(C), 2);\n  init(NM, NL, ARR(D), 11);\n\
  kernel_3mm(NI, NJ, NK, NL, NM, ARR(E), ARR(A), ARR(B), ARR(F), ARR(C), ARR(D), ARR(G));\n\
  for (i = 0; i < NI; i++)\n    for (j = 0; j < NL; j++)\n      printf(\"%.6f\\n\", (*G)[i][j]);\n\
  FREE(E);\n  FREE(A);\n  FREE(B);\n  FREE(F);\n  FREE(C);\n  FREE(D);\n  FREE(G);\n  return 0;\n}\n";

/// The sizes of the test, and the same kernel with `NK = NJ = 400`.
fn sized(nk: i64, nj: i64) -> String {
    common::with_define(&common::with_define(THREE_MM, "NK", nk), "NJ", nj)
}

#[test]
fn the_independent_nest_moves_first_and_the_product_keeps_one_row() {
    let dir = common::scratch("pipeline", "schedule_freedom_3mm");
    let path = dir.join("3mm.c");
    std::fs::write(&path, THREE_MM).expect("write");
    // `E` lives from its row's product to `G`'s row once the rows fuse:
    // one row of NJ = 5 cells (it had NI * NJ = 20).
    // (The JSON report has no cell counts for a caller's buffer yet: the
    // text report's sizes, which are formulas.)
    let report =
        common::polyfold_stdout(&["--report", "text", "--no-timings", path.to_str().unwrap()]);
    assert!(
        report.contains("kernel_3mm.E: NI * NJ -> NJ cells"),
        "{report}"
    );
    let output = common::polyfold_stdout(&[&path]);
    let scop = &output[output.find("int i, j, k;").expect("kernel")..];
    // `F`'s nest first, as written (re-indented with spaces where tabs
    // sat beside them), then one loop with the header of `E`'s own.
    let f = scop.find("F[i][j] = 0.0;").expect("F");
    let fused = scop.find("for (i = 0; i < ni; i++) {").expect("{output}");
    assert!(f < fused, "{output}");
    assert!(scop.contains("        E[0][j] = 0.0;\n"), "{output}");
    assert!(scop.contains("G[i][j] += E[0][k] * F[k][j];"), "{output}");
    assert!(output.contains("DECL_2D(E, 1, NJ);"), "{output}");
    for (nk, nj) in [(6, 5), (1, 1), (3, 9)] {
        let original = dir.join(format!("3mm_{nk}_{nj}.c"));
        std::fs::write(&original, sized(nk, nj)).expect("write");
        common::assert_runs_like_original(
            &original,
            &format!("3mm_{nk}_{nj}"),
            "schedule_freedom",
            &common::with_define(&common::with_define(&output, "NK", nk), "NJ", nj),
        );
    }
}

#[test]
fn a_step_beyond_the_cache_keeps_the_nests_apart() {
    let dir = common::scratch("pipeline", "schedule_freedom_3mm_big");
    let path = dir.join("3mm.c");
    std::fs::write(&path, sized(400, 400)).expect("write");
    // One step of the fused `i` would touch all of B (400 rows of 400
    // doubles, 1.28 MB) and of F (400 rows of 7, a line each at least:
    // 400 * 64 bytes): above the 256 KiB of `footprint::STEP_BYTES`.
    let text = |extra: &[&str]| {
        let mut args = vec!["--report", "text", "--no-timings"];
        args.extend_from_slice(extra);
        args.push(path.to_str().unwrap());
        common::polyfold_stdout(&args)
    };
    let report = text(&[]);
    assert!(
        report.contains("kernel_3mm.E: NI * NJ -> NI * NJ cells"),
        "{report}"
    );
    // With --min-memory (no cost rule) the rows fuse: one row of NJ.
    let report = text(&["--min-memory"]);
    assert!(
        report.contains("kernel_3mm.E: NI * NJ -> NJ cells"),
        "{report}"
    );
}
