//! The preprocessor as a user meets it: `-I`, `-D NAME[=TOKENS]`, `-U`,
//! headers (quoted and angled), conditionals, function-like macros in
//! declarations, and PolyBench's conventions, through the built binary.
//!
//! `tests/preproc/pb_like.c` is a complete PolyBench-style program (with
//! the headers of `grammar-tests/include/`): the original and polyfold's
//! output are compiled with `cc -O1 -fsanitize=address,undefined`, run,
//! and must print the same; the array declared through a macro keeps its
//! declaration, byte for byte.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use polyfold_fuzz::check::{compile, run_with_limit, scratch_dir};

fn polyfold(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyfold"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn crate_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

const PB_ARGS: [&str; 6] = [
    "-I",
    "grammar-tests/include",
    "-D",
    "SMALL_DATASET",
    "-D",
    "POLYBENCH_USE_SCALAR_LB",
];

#[test]
fn polybench_style_program_runs_the_same_after_polyfold() {
    let mut args: Vec<&str> = PB_ARGS.to_vec();
    args.push("tests/preproc/pb_like.c");
    let out = polyfold(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let output = text(&out.stdout);
    let original = std::fs::read_to_string(crate_path("tests/preproc/pb_like.c")).expect("read");
    assert_ne!(output, original, "acc and t fold: the program changes");
    // The macro-declared temporary keeps its declaration and its accesses.
    assert!(output.contains("DATA_TYPE LOCAL_1D(w, M);"), "{output}");
    assert!(output.contains("w[j] = "), "{output}");
    // Headers are never edited (they are not even written).
    let dir = scratch_dir("preproc-pb").expect("scratch dir");
    let new_path = dir.join("pb_like_out.c");
    std::fs::write(&new_path, &output).expect("write output");
    let include = crate_path("grammar-tests/include");
    let include = format!("-I{}", include.display());
    let flags = [
        "-std=c11",
        "-O1",
        "-w",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
        include.as_str(),
        "-DSMALL_DATASET",
        "-DPOLYBENCH_USE_SCALAR_LB",
    ];
    let mut printed = Vec::new();
    for (tag, src) in [
        ("orig", crate_path("tests/preproc/pb_like.c")),
        ("new", new_path.clone()),
    ] {
        let exe = dir.join(format!("{tag}.exe"));
        compile(&src, &exe, &flags).unwrap_or_else(|e| panic!("{tag} does not compile: {e}"));
        printed.push(run_with_limit(&exe, Duration::from_secs(60)).expect("runs"));
    }
    assert_eq!(text(&printed[0]).lines().count(), 20, "N = 20 rows");
    assert_eq!(text(&printed[0]), text(&printed[1]));
    // The report says why `w` keeps its layout, and that `u` (read through
    // the chained assignment's reference) does too.
    let mut args: Vec<&str> = PB_ARGS.to_vec();
    args.extend([
        "--report",
        "text",
        "--no-timings",
        "tests/preproc/pb_like.c",
    ]);
    let report = text(&polyfold(&args).stdout);
    let line_of = |name: &str| {
        let mut lines = report.lines();
        lines.find(|l| l.contains(&format!("kernel_rows.{name}:")));
        lines.take(2).collect::<Vec<_>>().join("\n")
    };
    assert!(
        line_of("w").contains("declaration was not found"),
        "{report}"
    );
    assert!(line_of("u").contains("external"), "{report}");
    assert!(line_of("u").contains("chained assignment"), "{report}");
    assert!(!line_of("acc").contains("external"), "{report}");
    // `--temp` vouches for liveness, not for two forms of one text.
    let mut args: Vec<&str> = PB_ARGS.to_vec();
    args.extend([
        "--report",
        "text",
        "--no-timings",
        "--temp",
        "kernel_rows:u",
        "tests/preproc/pb_like.c",
    ]);
    let report = text(&polyfold(&args).stdout);
    let mut lines = report.lines();
    lines.find(|l| l.contains("kernel_rows.u:"));
    let u = lines.take(2).collect::<Vec<_>>().join("\n");
    assert!(u.contains("chained assignment"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn macros_and_headers_from_the_command_line() {
    let dir = scratch_dir("preproc-cli").expect("scratch dir");
    std::fs::create_dir_all(dir.join("inc")).expect("mkdir");
    std::fs::write(
        dir.join("inc/sizes.h"),
        "#ifdef SMALL\n# define N 10\n#else\n# define N 1000\n#endif\n",
    )
    .expect("write header");
    let kernel = dir.join("k.c");
    std::fs::write(
        &kernel,
        "#include <sizes.h>\nvoid f(double A[N]) {\n  for (int i = 1; i < N; i++)\n    A[i] = A[i - 1];\n}\n",
    )
    .expect("write kernel");
    let k = kernel.to_str().expect("utf-8");
    let inc = dir.join("inc");
    let inc = inc.to_str().expect("utf-8");
    let run = |extra: &[&str]| {
        let mut args = vec!["--emit", "scop"];
        args.extend_from_slice(extra);
        args.push(k);
        polyfold(&args)
    };
    let out = run(&["-I", inc, "-D", "SMALL"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("N = 10 (#define)"),
        "{}",
        text(&out.stdout)
    );
    // -U cancels the -D: the #else branch.
    let out = run(&["-I", inc, "-D", "SMALL", "-U", "SMALL"]);
    assert!(
        text(&out.stdout).contains("N = 1000 (#define)"),
        "{}",
        text(&out.stdout)
    );
    // ... only the -D before it, as in cc.
    let out = run(&["-I", inc, "-U", "SMALL", "-D", "SMALL"]);
    assert!(
        text(&out.stdout).contains("N = 10 (#define)"),
        "{}",
        text(&out.stdout)
    );
    // Without -I, <sizes.h> is a system header: not read, not warned
    // about; N is unknown and the loop is rejected (a warning, exit 0).
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !text(&out.stderr).contains("PF034"),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("PF011"), "{}", text(&out.stderr));
    // A -D body may be any tokens.
    let out = run(&["-I", inc, "-D", "N=2*5"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("N = 10 (-D)"),
        "{}",
        text(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_preprocessor_flags_are_usage_errors() {
    let k = "grammar-tests/simple_nest.c";
    for (args, says) in [
        (vec!["-I", "/no/such/polyfold/dir", k], "is not a directory"),
        (vec!["-D", "1N=3", k], "is not a C identifier"),
        (vec!["-D", "F(x)=x", k], "function-like macros"),
        (vec!["-U", "N=3", k], "is not a C identifier"),
    ] {
        let out = polyfold(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // An #if polyfold cannot evaluate is a warning, not a failure.
    let out = polyfold(&["--emit", "scop", "grammar-tests/pp_if_bad.c"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("PF032"));
    // So is a quoted header that is not found.
    let out = polyfold(&["--emit", "scop", "grammar-tests/include_missing.c"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("PF034"));
    // An unterminated #if is a syntax error: exit 2, nothing written.
    let dir = scratch_dir("preproc-bad-if").expect("scratch dir");
    let path = dir.join("bad.c");
    std::fs::write(
        &path,
        "#if 1\nvoid f(double A[4]) { for (int i = 0; i < 4; i++) A[i] = 0; }\n",
    )
    .expect("write");
    let out = polyfold(&[path.to_str().expect("utf-8")]);
    assert!(
        matches!(out.status.code(), Some(0 | 2)),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn include_cycles_pragma_once_and_nested_headers() {
    let dir = scratch_dir("preproc-cycle").expect("scratch dir");
    // A header that includes itself without a guard: cut at 64 levels,
    // said (PF034), no hang, exit 0.
    std::fs::write(dir.join("loop.h"), "#define N 10\n#include \"loop.h\"\n").expect("write");
    // `#pragma once`: the second #include is skipped, so `M` stays
    // undefined after the #undef and the #else branch is compiled.
    std::fs::write(dir.join("once.h"), "#pragma once\n#define M 7\n").expect("write");
    let cycle = dir.join("cycle.c");
    std::fs::write(
        &cycle,
        "#include \"loop.h\"\nvoid f(double A[100]) {\n  for (int i = 0; i < 5; i++)\n    A[i] = 0;\n}\n",
    )
    .expect("write");
    let out = polyfold(&["--emit", "scop", cycle.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("headers nested more than 64 deep"),
        "{}",
        text(&out.stderr)
    );
    let once = dir.join("once.c");
    std::fs::write(
        &once,
        "#include \"once.h\"\n#undef M\n#include \"once.h\"\n#ifdef M\n# define K 1\n#else\n# define K 2\n#endif\nvoid f(double A[100]) {\n  for (int i = 0; i < K; i++)\n    A[i] = 0;\n}\n",
    )
    .expect("write");
    let out = polyfold(&["--emit", "scop", once.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("K = 2 (#define)"),
        "{}",
        text(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
