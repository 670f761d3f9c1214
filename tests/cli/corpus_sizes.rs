//! Issue 49: the default output of every corpus kernel is valid wherever
//! its input is, and polyfold is a fixed point on it.
//!
//! - Fixed point: polyfold on each golden output `corpus/expected/NAME.c`
//!   (the default flags, as `polyfold bench` uses) prints it unchanged.
//! - Sizes: each golden output rebuilt with every size `#define` set to 1,
//!   2, 3 and to a larger size prints what the original prints at those
//!   sizes, both built with ASan and UBSan. A size the original does not
//!   accept (it fails to build or run) is skipped; every kernel must run
//!   at least at the larger size. Where the two print otherwise, the size
//!   is skipped only if the original prints indeterminate values there (it
//!   prints otherwise with its uninitialised locals zeroed than with them
//!   set to a pattern): polyfold need not keep a value C leaves undefined.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The corpus kernels (each `corpus/NAME.c` with its golden output),
/// sorted by name.
pub(crate) fn kernels() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "c").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    assert!(names.len() >= 20, "corpus kernels: {names:?}");
    names
}

fn corpus(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(path)
}

#[test]
fn polyfold_is_a_fixed_point_on_its_corpus_outputs() {
    let mut changed = Vec::new();
    for name in kernels() {
        let golden = format!("corpus/expected/{name}.c");
        let again = common::polyfold_stdout(&[golden.as_str()]);
        let text = std::fs::read_to_string(corpus(&format!("expected/{name}.c"))).expect("read");
        if again != text {
            changed.push(name);
        }
    }
    assert!(changed.is_empty(), "not a fixed point: {changed:?}");
}

/// The names of the `#define NAME number` lines of `source`.
fn size_defines(source: &str) -> Vec<(String, i64)> {
    source
        .lines()
        .filter_map(|l| {
            let mut words = l.strip_prefix("#define ")?.split_whitespace();
            let (name, value) = (words.next()?, words.next()?);
            (words.next().is_none()).then_some(())?;
            Some((name.to_string(), value.parse().ok()?))
        })
        .collect()
}

/// Known exceptions, asserted to still fail (remove an entry once fixed;
/// song_example2's schedule certified for `JN >= 2 && KN >= 2` only is
/// now made with `--pin-sizes` alone, and the list is empty).
const KNOWN_EXCEPTIONS: [(&str, &str); 0] = [];

/// Builds and runs `source` (ASan/UBSan) in `dir`; `Err` when it fails.
fn run(source: &str, dir: &Path, tag: &str) -> Result<Vec<u8>, String> {
    run_with(source, dir, tag, &[])
}

/// [`run`] with more compiler flags.
fn run_with(source: &str, dir: &Path, tag: &str, flags: &[&str]) -> Result<Vec<u8>, String> {
    let path = dir.join(format!("{tag}.c"));
    std::fs::write(&path, source).expect("write");
    let build = polyfold_fuzz::check::Build {
        flags: flags.iter().map(|f| f.to_string()).collect(),
        env: Vec::new(),
        changes_sizes: false,
        runs: 1,
    };
    let build = (!flags.is_empty()).then_some(&build);
    polyfold_fuzz::check::build_and_run(&path, tag, dir, true, Duration::from_secs(20), build)
        .map_err(|(_, e)| e)
}

/// Whether what `source` prints depends on the indeterminate values of
/// its uninitialised locals: it prints otherwise when they start as zero
/// bytes than when they start as a pattern (a kernel whose temporary has
/// a cell read before any write at a small size: dynprog's `c[0][N - 1]`
/// when N = 1). C does not define what it prints there, so no output can
/// be compared with it.
fn prints_indeterminate_values(source: &str, dir: &Path) -> bool {
    let zero = run_with(source, dir, "zero", &["-ftrivial-auto-var-init=zero"]);
    let pattern = run_with(source, dir, "pattern", &["-ftrivial-auto-var-init=pattern"]);
    matches!((zero, pattern), (Ok(z), Ok(p)) if z != p)
}

/// The size settings of a kernel: every size `#define` at 1, 2, 3, and
/// each at its value plus 5 (a larger size, and not the one pinned).
fn settings(defines: &[(String, i64)]) -> Vec<(String, Vec<(String, i64)>)> {
    let mut list: Vec<(String, Vec<(String, i64)>)> = (1..=3)
        .map(|v| {
            let set = defines.iter().map(|(n, _)| (n.clone(), v)).collect();
            (format!("all {v}"), set)
        })
        .collect();
    let larger = defines.iter().map(|(n, v)| (n.clone(), v + 5)).collect();
    list.push(("each + 5".into(), larger));
    list
}

/// Checks one kernel at every setting: `Err` lists what differs.
fn check_kernel(name: &str) -> Result<usize, String> {
    let original = std::fs::read_to_string(corpus(&format!("{name}.c"))).expect("read");
    let output = std::fs::read_to_string(corpus(&format!("expected/{name}.c"))).expect("read");
    let defines = size_defines(&original);
    assert!(!defines.is_empty(), "{name}: no size #define");
    let dir = polyfold_fuzz::check::scratch_dir(&format!("corpus-sizes-{name}")).expect("scratch");
    let mut ran = 0;
    let mut larger_ran = false;
    let mut indeterminate = 0;
    let mut failures = Vec::new();
    for (label, set) in settings(&defines) {
        let (mut o, mut t) = (original.clone(), output.clone());
        for (n, v) in &set {
            o = common::with_define(&o, n, *v);
            t = common::with_define(&t, n, *v);
        }
        let Ok(expected) = run(&o, &dir, "original") else {
            continue;
        };
        ran += 1;
        larger_ran |= label == "each + 5";
        let known = KNOWN_EXCEPTIONS.contains(&(name, label.as_str()));
        match run(&t, &dir, "output") {
            Ok(actual) if actual == expected && known => {
                failures.push(format!("{name} at {label}: no longer an exception"));
            }
            Ok(actual) if actual == expected => {}
            Err(e) if known && e.contains("static assertion failed") => {}
            // Only where the original's own output is defined.
            Ok(_) if prints_indeterminate_values(&o, &dir) => indeterminate += 1,
            Ok(_) => failures.push(format!("{name} at {label}: prints otherwise")),
            Err(e) => failures.push(format!("{name} at {label}: fails: {e}")),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if !larger_ran {
        failures.push(format!(
            "{name}: the original does not run at the larger size"
        ));
    }
    // Indeterminate output is for the small sizes only (the sizes of the
    // kernels' comments, where every cell read is written first).
    if indeterminate > 2 {
        failures.push(format!(
            "{name}: the original prints indeterminate values at {indeterminate} settings"
        ));
    }
    if failures.is_empty() {
        Ok(ran)
    } else {
        Err(failures.join("\n"))
    }
}

#[test]
fn corpus_outputs_run_like_the_originals_at_other_sizes() {
    let names = kernels();
    // Two threads: the machine's cores.
    let (a, b): (Vec<_>, Vec<_>) = names.iter().enumerate().partition(|(i, _)| i % 2 == 0);
    let half = |list: Vec<(usize, &String)>| {
        list.into_iter()
            .map(|(_, n)| check_kernel(n))
            .collect::<Vec<_>>()
    };
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| half(a));
        let hb = s.spawn(|| half(b));
        (ha.join().expect("thread"), hb.join().expect("thread"))
    });
    let results: Vec<_> = ra.into_iter().chain(rb).collect();
    let failures: Vec<String> = results.iter().filter_map(|r| r.clone().err()).collect();
    let runs: usize = results.iter().filter_map(|r| r.as_ref().ok()).sum();
    assert!(failures.is_empty(), "miscompiles:\n{}", failures.join("\n"));
    // At least the larger size of each kernel ran.
    assert!(runs >= names.len(), "{runs} runs");
}
