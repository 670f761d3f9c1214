//! Measures the front end: reads the given C files once, then runs
//! `frontend::extract` on all of them 20 times and prints the fastest total
//! (the minimum is robust to a busy machine).
//!
//! `cargo run --release --example time_extract -- corpus/*.c`

use std::time::{Duration, Instant};

use polyfold::frontend::{Options, extract};

fn main() {
    let files: Vec<(String, String)> = std::env::args()
        .skip(1)
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|s| (p, s)))
        .collect();
    let bytes: usize = files.iter().map(|(_, s)| s.len()).sum();
    let mut best = Duration::MAX;
    let mut n_scops = 0;
    for _ in 0..20 {
        let start = Instant::now();
        n_scops = 0;
        for (path, source) in &files {
            n_scops += extract(path, source, &Options::default()).scops.len();
        }
        best = best.min(start.elapsed());
    }
    println!(
        "{} files, {bytes} bytes, {n_scops} SCoPs: fastest of 20 runs {:.2} ms",
        files.len(),
        best.as_secs_f64() * 1e3
    );
}
