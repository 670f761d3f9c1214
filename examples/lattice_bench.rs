//! Timing of the lattice strategies on the corpus kernels (release build):
//! `cargo run --release --example lattice_bench [REPEATS]`. Prints, per
//! array, the median time of the successive minima, of each heuristic, of
//! the optimal search, and the sizes found.

use std::time::{Duration, Instant};

use polyfold::analysis::build::array_model;
use polyfold::analysis::cells::compute_cell_conflicts;
use polyfold::frontend;
use polyfold::mapping::lattice::polytope::FixedDifferenceSet;
use polyfold::mapping::lattice::{LatticeOptions, analyse};
use polyfold::poly::{BasicSet, Budget};

fn corpus_ds(file: &str, array: &str) -> Result<(Vec<BasicSet>, usize, Vec<i64>), String> {
    let path = format!("{}/corpus/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let program = frontend::extract(&path, &source, &frontend::Options::default());
    for scop in &program.scops {
        if let Some(a) = scop.arrays.iter().find(|a| a.name == array) {
            let values = polyfold::pipeline::param_values(scop)?;
            let model = array_model(scop, a.id);
            let mut budget = Budget::default();
            let ds = compute_cell_conflicts(&model, &[], &mut budget)
                .map_err(|e| e.to_string())?
                .difference_set();
            return Ok((ds, model.rank, values));
        }
    }
    Err(format!(
        "{array} not found in any SCoP of {file} (front end rejected it?)"
    ))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let cases = [
        ("durbin.c", "y", 148),
        ("dynprog_init.c", "c", 44),
        ("gauss.c", "g_tmp", 2400),
        ("reg_detect.c", "sum_t", 21),
        ("reg_detect.c", "mean", 21),
        ("reg_detect.c", "diff", 1344),
    ];
    for (file, array, max_live) in cases {
        let (ds, rank, values) = match corpus_ds(file, array) {
            Ok(x) => x,
            Err(e) => {
                println!("{file} {array}: skipped: {e}");
                continue;
            }
        };
        let opts = LatticeOptions {
            array: array.into(),
            lower_bound: max_live,
            optimal_steps: polyfold::mapping::lattice::DEFAULT_OPTIMAL_STEPS,
            ..LatticeOptions::default()
        };
        let mut minima_t = Vec::new();
        let mut optimal_t = Vec::new();
        let mut total_t = Vec::new();
        let mut per_method: Vec<(String, Vec<Duration>)> = Vec::new();
        let mut last = None;
        for _ in 0..repeats {
            let mut budget = Budget::new(u64::MAX, Some(Duration::from_secs(60)));
            let start = Instant::now();
            let fixed = FixedDifferenceSet::new(&ds, rank, &values, &mut budget).expect("fix");
            let a = analyse(&fixed, &opts, &mut budget).expect("analyse");
            total_t.push(start.elapsed());
            minima_t.push(a.minima_time);
            optimal_t.push(a.optimal_time);
            for h in &a.heuristics {
                let key = format!("{} [{}]", h.method, h.detail);
                match per_method.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push(h.time),
                    None => per_method.push((key, vec![h.time])),
                }
            }
            last = Some(a);
        }
        let a = last.expect("at least one repeat");
        println!(
            "{file} {array}: total {:?}, minima {:?}, optimal search {:?}",
            median(total_t),
            median(minima_t),
            median(optimal_t)
        );
        let mut slowest = Duration::ZERO;
        for (h, (key, times)) in a.heuristics.iter().zip(per_method) {
            let m = median(times);
            slowest = slowest.max(m);
            println!(
                "    {:>8} {:>10.3} ms  {key}",
                h.mapping.size().unwrap_or(-1),
                m.as_secs_f64() * 1e3
            );
        }
        if let Some(r) = &a.optimal {
            println!(
                "    optimal: size {:?} (else best heuristic {:?}), proven {}, lower bound {}, clique bound {}",
                r.size,
                a.optimal_upper.as_ref().map(|u| u.0),
                r.proven,
                r.lower_bound,
                r.clique_bound
            );
        }
        println!(
            "    slowest heuristic: {:.3} ms",
            slowest.as_secs_f64() * 1e3
        );
    }
}
