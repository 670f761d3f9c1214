//! `polyfold bench DIR --scale --large`: the large inputs of issue 53
//! after the scaling table. Each case is an input that [`super::inputs`]
//! generates at run time and a command run on it: a file of many small
//! kernels through the default action (`many-kernels:COUNT`), `verify` on
//! a large blur (`verify-blur:WxH`) and `plot` on a smaller one
//! (`plot-blur:WxH`). Every run is a child process of the same binary
//! (the hidden `polyfold bench-large-one CASE`, in `src/main.rs`: the
//! driver is above `bench`), which writes the input in
//! a scratch folder, runs the command once in process and prints its time
//! and its own peak memory (`VmHWM`) as one JSON line; the parent runs it
//! `--repeats` times within `--time-limit` and `--mem-limit` (as
//! `--scale` does) and prints per case the input's size, the median time
//! and the median peak memory.

use std::fmt::Write;
use std::path::Path;

use super::inputs;
use super::scale::{RunEnd, ScaleOptions, run_child};

/// The cases of `--large` when none are named.
pub const DEFAULT_CASES: &str =
    "many-kernels:100,many-kernels:800,many-kernels:10000,verify-blur:1920x1080,plot-blur:256x192";

/// One case: what to generate and what to run on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Case {
    ManyKernels(usize),
    VerifyBlur(u32, u32),
    PlotBlur(u32, u32),
}

impl Case {
    /// Parses `many-kernels:COUNT`, `verify-blur:WxH` or `plot-blur:WxH`.
    pub fn parse(text: &str) -> Result<Case, String> {
        let bad = || {
            format!(
                "`{text}` is not a large-input case (many-kernels:COUNT, verify-blur:WxH, plot-blur:WxH)"
            )
        };
        let (kind, size) = text.trim().split_once(':').ok_or_else(bad)?;
        let image = || -> Option<(u32, u32)> {
            let (w, h) = size.split_once('x')?;
            let (w, h) = (w.parse().ok()?, h.parse().ok()?);
            (w >= 3 && h >= 3).then_some((w, h))
        };
        match kind {
            "many-kernels" => size.parse().map(Case::ManyKernels).map_err(|_| bad()),
            "verify-blur" => image().map(|(w, h)| Case::VerifyBlur(w, h)).ok_or_else(bad),
            "plot-blur" => image().map(|(w, h)| Case::PlotBlur(w, h)).ok_or_else(bad),
            _ => Err(bad()),
        }
    }

    /// The case as [`Case::parse`] reads it.
    pub fn name(&self) -> String {
        match self {
            Case::ManyKernels(n) => format!("many-kernels:{n}"),
            Case::VerifyBlur(w, h) => format!("verify-blur:{w}x{h}"),
            Case::PlotBlur(w, h) => format!("plot-blur:{w}x{h}"),
        }
    }

    /// The generated input.
    pub fn input(&self) -> String {
        match self {
            Case::ManyKernels(n) => inputs::many_kernels(*n),
            Case::VerifyBlur(w, h) | Case::PlotBlur(w, h) => inputs::blur_image(*w, *h),
        }
    }
}

/// The cases of `--large`, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cases(pub Vec<Case>);

/// Parses a comma-separated list of cases.
pub fn parse_cases(text: &str) -> Result<Cases, String> {
    text.split(',')
        .map(Case::parse)
        .collect::<Result<_, _>>()
        .map(Cases)
}

/// The median of `values` (the lower middle one of an even count).
fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    values.get(values.len().saturating_sub(1) / 2).copied()
}

/// Runs every case `options.repeats` times, each in a child `exe
/// bench-large-one CASE`, and returns the table and whether a run failed.
pub fn run_large(cases: &[Case], options: &ScaleOptions, exe: &Path) -> (String, bool) {
    let mut table = String::from(
        "large input              bytes        runs  median ms  median peak MB  exit\n",
    );
    let mut failed = false;
    for case in cases {
        let mut times = Vec::new();
        let mut peaks = Vec::new();
        let mut codes = Vec::new();
        let mut ended = None;
        let mut bytes = 0u64;
        for _ in 0..options.repeats.max(1) {
            let args = vec!["bench-large-one".to_string(), case.name()];
            match run_child(exe, &args, options) {
                RunEnd::Done(v) => {
                    bytes = v["bytes"].as_u64().unwrap_or(0);
                    times.extend(v["ms"].as_f64());
                    peaks.extend(v["peak_kb"].as_f64().map(|kb| kb / 1024.0));
                    codes.extend(v["code"].as_u64());
                    if v.get("error").is_some() {
                        ended = Some(format!("failed: {}", v["error"]));
                        break;
                    }
                }
                RunEnd::Timeout => {
                    ended = Some("timeout".to_string());
                    break;
                }
                RunEnd::Memory(mb) => {
                    ended = Some(format!("memory ({mb} MB)"));
                    break;
                }
                RunEnd::Skipped => break,
                RunEnd::Failed(why) => {
                    ended = Some(format!("failed: {why}"));
                    break;
                }
            }
        }
        if options.progress {
            eprintln!("polyfold bench --large: {} done", case.name());
        }
        let show =
            |v: Option<f64>, digits: usize| v.map_or("?".to_string(), |x| format!("{x:.digits$}"));
        let code = codes.iter().max().map_or("?".to_string(), u64::to_string);
        failed |= ended.is_some() || codes.iter().any(|&c| c >= 2);
        let _ = writeln!(
            table,
            "{:<24} {:>10}  {:>4}  {:>9}  {:>14}  {:>4}{}",
            case.name(),
            bytes,
            times.len(),
            show(median(&mut times), 0),
            show(median(&mut peaks), 1),
            code,
            ended.map_or(String::new(), |e| format!("  {e}"))
        );
    }
    (table, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_read_back_their_names_and_bad_ones_are_refused() {
        let Cases(cases) = parse_cases(DEFAULT_CASES).expect("the default cases parse");
        assert_eq!(cases.len(), 5);
        assert_eq!(cases[2], Case::ManyKernels(10000));
        assert_eq!(cases[3], Case::VerifyBlur(1920, 1080));
        for case in &cases {
            assert_eq!(Case::parse(&case.name()).as_ref(), Ok(case));
        }
        for bad in [
            "many-kernels",
            "verify-blur:1920",
            "plot-blur:2x9",
            "blur:4x4",
            "many-kernels:x",
        ] {
            assert!(Case::parse(bad).is_err(), "{bad}");
        }
        let mut odd = vec![3.0, 1.0, 2.0, 10.0];
        assert_eq!(median(&mut odd), Some(2.0));
    }
}
