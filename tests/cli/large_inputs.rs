//! Large inputs (issue 53): a file of many small kernels reads as its
//! kernels one by one, and `-j N` prints what one file at a time prints.
//! The sizes here are small; `polyfold bench-input` makes the large ones
//! for measurements, never for tests.

use polyfold::bench::inputs::{many_kernel, many_kernels_header};

use crate::common::{polyfold, scratch, text};

/// Writes a file of `header` and `kernels` in `dir`, named `name`.
fn write(dir: &std::path::Path, name: &str, body: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).expect("write the kernel file");
    path
}

/// polyfold's stdout for `path` with `flags` (it must exit 0).
fn output(path: &std::path::Path, flags: &[&str]) -> String {
    let mut args: Vec<String> = vec!["-q".into()];
    args.extend(flags.iter().map(|f| f.to_string()));
    args.push(path.display().to_string());
    let out = polyfold(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// The output of the whole file, and the header followed by what each
/// kernel prints in a file of its own (less the header, which polyfold
/// leaves as it is).
fn whole_and_one_by_one(count: usize, flags: &[&str]) -> (String, String) {
    let dir = scratch("large_inputs", &format!("kernels_{}", flags.join("")));
    let header = many_kernels_header();
    let kernels: Vec<String> = (0..count).map(many_kernel).collect();
    let whole = write(&dir, "all.c", &format!("{header}{}", kernels.concat()));
    let mut one_by_one = header.clone();
    for (k, kernel) in kernels.iter().enumerate() {
        let alone = write(&dir, &format!("k{k}.c"), &format!("{header}{kernel}"));
        let printed = output(&alone, flags);
        let rest = printed
            .strip_prefix(&header)
            .expect("the header is left as it is");
        one_by_one.push_str(rest);
    }
    (output(&whole, flags), one_by_one)
}

#[test]
fn a_file_of_kernels_prints_what_each_kernel_prints_alone() {
    // Fourteen kernels: each of the seven forms twice, with defines and
    // with numbers.
    let (whole, one_by_one) = whole_and_one_by_one(14, &["--no-fusion"]);
    assert!(
        whole.contains("/* polyfold: t"),
        "some kernel is folded:\n{whole}"
    );
    assert_eq!(whole, one_by_one);
    // FIXME(issue 53): with fusion, a file where some SCoP fuses contracts
    // all its SCoPs again with other options
    // (`pipeline::variants::best_schedule` runs the whole fused program
    // with `inter_array: false`), and the cost rules judge the variants
    // of the whole file: kernel 2's `t` keeps its rows alone (fused, the
    // rows would hand values along the inner loop in rotating scalars,
    // which the cost rule refuses) and becomes one row in the file. Each
    // SCoP should take its own schedule, as if alone.
    let (whole, one_by_one) = whole_and_one_by_one(14, &[]);
    assert_ne!(whole, one_by_one);
    assert!(one_by_one.contains("float t[K2_H][K2_W];"), "{one_by_one}");
    assert!(whole.contains("float t[K2_W];"), "{whole}");
}

#[test]
fn several_files_at_a_time_print_what_one_at_a_time_prints() {
    let dir = scratch("large_inputs", "jobs");
    let header = many_kernels_header();
    let mut files: Vec<String> = (0..5)
        .map(|k| {
            let body = format!("{header}{}", many_kernel(k));
            write(&dir, &format!("k{k}.c"), &body).display().to_string()
        })
        .collect();
    // A file that does not parse: exit 2 whatever the order of the work.
    files.insert(
        2,
        write(&dir, "broken.c", "int f( {\n").display().to_string(),
    );
    for flags in [&[][..], &["--report", "json", "--no-timings"][..]] {
        let run = |jobs: &str| {
            let mut args: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
            args.extend(["-j".to_string(), jobs.to_string()]);
            args.extend(files.iter().cloned());
            polyfold(&args)
        };
        let one = run("1");
        let three = run("3");
        assert_eq!(one.status.code(), Some(2), "{}", text(&one.stderr));
        assert_eq!(three.status.code(), one.status.code());
        assert_eq!(text(&three.stdout), text(&one.stdout));
        assert_eq!(text(&three.stderr), text(&one.stderr));
        assert!(text(&one.stdout).contains("k4"));
    }
}

#[test]
fn bench_scale_measures_the_large_inputs_it_is_given() {
    let out = polyfold(&[
        "-q",
        "bench",
        "corpus/filter_chain.c",
        "--scale",
        "1",
        "--repeats",
        "1",
        "--large",
        "many-kernels:3,verify-blur:8x6,plot-blur:8x6",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    // One row per case, each run once and exiting 0; the many-kernels
    // input is the generator's text.
    let header = many_kernels_header();
    let bytes = header.len() + (0..3).map(|k| many_kernel(k).len()).sum::<usize>();
    for (case, size) in [
        ("many-kernels:3", Some(bytes)),
        ("verify-blur:8x6", None),
        ("plot-blur:8x6", None),
    ] {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(case))
            .unwrap_or_else(|| panic!("no row for {case}:\n{stdout}"));
        let fields: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(fields.len(), 6, "{row}");
        if let Some(size) = size {
            assert_eq!(fields[1], size.to_string(), "{row}");
        }
        assert_eq!((fields[2], fields[5]), ("1", "0"), "{row}");
    }
    // A case that names no input is a usage error.
    let bad = polyfold(&["bench", "corpus", "--scale", "--large", "blur:8x6"]);
    assert_eq!(bad.status.code(), Some(2));
}
