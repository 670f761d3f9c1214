//! Pictures of what polyfold decided, as self-contained SVG text: the
//! memory of a SCoP over its run (live values per step against the
//! storage before and after), and the difference set of a 2-D array with
//! the lattice of its modular mapping (seed 001, Fig. 2(b)).
//!
//! This module only draws: the driver (`polyfold plot`) runs the trace and
//! the analyses and hands over numbers. Everything is written with plain
//! `format!`, in a fixed order, with integer or fixed-precision
//! coordinates, so the text depends only on the data (snapshot-tested).

use std::fmt::Write as _;

/// The memory of one SCoP over its run.
#[derive(Clone, Debug)]
pub(crate) struct MemoryPlot {
    pub title: String,
    /// The number of operations of the run (the x axis).
    pub operations: usize,
    /// Per temporary: its name and its live values per span of the run.
    pub series: Vec<(String, Vec<usize>)>,
    /// The live values of all temporaries together, per span.
    pub total: Vec<usize>,
    /// Horizontal lines: label and height (original storage, new storage,
    /// max-live bound).
    pub levels: Vec<(String, i64)>,
}

/// A difference set of a 2-D array and the lattice of a mapping.
#[derive(Clone, Debug)]
pub(crate) struct LatticePlot {
    pub title: String,
    /// The mapping as printed in the report.
    pub mapping: String,
    /// The points of the difference set.
    pub ds: Vec<[i64; 2]>,
    /// The lattice's points in the picture's box.
    pub lattice: Vec<[i64; 2]>,
    /// A basis of the lattice (its two shortest independent vectors).
    pub basis: [[i64; 2]; 2],
    /// The storage size: the lattice's determinant.
    pub cells: i64,
}

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;
const COLOURS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];
const LEVEL_COLOURS: [&str; 4] = ["#7f7f7f", "#2ca02c", "#d62728", "#bcbd22"];

/// Text with `&`, `<`, `>` and `"` escaped for XML.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A coordinate with two decimals (no `-0.00`).
fn num(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    if r == 0.0 {
        "0".to_string()
    } else {
        let s = format!("{r:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// About five round tick values from 0 to `max` (1, 2 or 5 times a power
/// of ten apart).
fn ticks(max: f64) -> Vec<f64> {
    if max <= 0.0 {
        return vec![0.0];
    }
    let raw = max / 5.0;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power)
        .max(1.0);
    let mut out = Vec::new();
    let mut t = 0.0;
    while t <= max + 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

fn header(out: &mut String, width: f64, height: f64, title: &str) {
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"12\">",
        num(width),
        num(height),
        num(width),
        num(height)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(title));
    let _ = writeln!(
        out,
        "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"white\"/>",
        num(width),
        num(height)
    );
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\">{}</text>",
        num(width / 2.0),
        escape(title)
    );
}

/// The memory plot: one step line per temporary and for their total, the
/// storage levels as dashed lines, axes, ticks and a legend.
pub(crate) fn memory_svg(p: &MemoryPlot) -> String {
    let mut out = String::new();
    header(&mut out, WIDTH, HEIGHT, &p.title);
    let spans = p.total.len().max(1);
    let live_top = p
        .series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .chain(p.total.iter().copied())
        .map(|v| v as f64)
        .fold(1.0, f64::max);
    // A level far above the live values (an original storage 100 times
    // the live values) would flatten them: such a level is drawn at the
    // top edge, marked off the scale.
    let near_top = p
        .levels
        .iter()
        .map(|(_, v)| *v as f64)
        .filter(|v| *v <= 4.0 * live_top)
        .fold(live_top, f64::max);
    let y_max = near_top * 1.08;
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x_of = |span: f64| LEFT + plot_w * span / spans as f64;
    let y_of = |v: f64| TOP + plot_h * (1.0 - v / y_max);
    // Axes, ticks and grid.
    let _ = writeln!(
        out,
        "<g stroke=\"#000\" stroke-width=\"1\"><line x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{b}\"/><line x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/></g>",
        l = num(LEFT),
        t = num(TOP),
        b = num(TOP + plot_h),
        r = num(LEFT + plot_w)
    );
    for t in ticks(y_max) {
        let y = y_of(t);
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#e0e0e0\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            num(LEFT),
            num(LEFT + plot_w),
            num(LEFT - 6.0),
            num(y + 4.0),
            t as i64,
            y = num(y)
        );
    }
    for t in ticks(p.operations as f64) {
        let x = LEFT + plot_w * t / (p.operations.max(1) as f64);
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#000\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            num(TOP + plot_h),
            num(TOP + plot_h + 5.0),
            num(TOP + plot_h + 18.0),
            t as i64,
            x = num(x)
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">operations of the run, in the original order</text>",
        num(LEFT + plot_w / 2.0),
        num(HEIGHT - 12.0)
    );
    let _ = writeln!(
        out,
        "<text x=\"16\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {})\">live values / cells</text>",
        num(TOP + plot_h / 2.0),
        num(TOP + plot_h / 2.0)
    );
    // Levels.
    let mut legend: Vec<(String, String, bool)> = Vec::new();
    let mut off: Vec<String> = Vec::new();
    for (k, (label, v)) in p.levels.iter().enumerate() {
        let colour = LEVEL_COLOURS[k % LEVEL_COLOURS.len()];
        let off_scale = *v as f64 > y_max;
        let y = num(if off_scale { TOP } else { y_of(*v as f64) });
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{colour}\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
            num(LEFT),
            num(LEFT + plot_w)
        );
        if off_scale {
            off.push(format!("{label} {v}"));
        }
        legend.push((format!("{label}: {v}"), colour.to_string(), true));
    }
    if !off.is_empty() {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">off the scale (top line): {}</text>",
            num(LEFT + plot_w - 4.0),
            num(TOP + 14.0),
            escape(&off.join(", "))
        );
    }
    // Series as step lines.
    let step_path = |values: &[usize]| -> String {
        let mut d = String::new();
        for (b, v) in values.iter().enumerate() {
            let y = num(y_of(*v as f64));
            if b == 0 {
                let _ = write!(d, "M{} {y}", num(x_of(0.0)));
            } else {
                let _ = write!(d, " V{y}");
            }
            let _ = write!(d, " H{}", num(x_of((b + 1) as f64)));
        }
        d
    };
    for (k, (name, values)) in p.series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let _ = writeln!(
            out,
            "<path d=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"/>",
            step_path(values)
        );
        let peak = values.iter().copied().max().unwrap_or(0);
        legend.push((
            format!("{name} (max live {peak})"),
            colour.to_string(),
            false,
        ));
    }
    if p.series.len() > 1 {
        let _ = writeln!(
            out,
            "<path d=\"{}\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>",
            step_path(&p.total)
        );
        let peak = p.total.iter().copied().max().unwrap_or(0);
        legend.push((format!("all (max live {peak})"), "#000".into(), false));
    }
    // Legend.
    for (k, (label, colour, dashed)) in legend.iter().enumerate() {
        let y = TOP + 10.0 + 18.0 * k as f64;
        let x = WIDTH - RIGHT + 12.0;
        let dash = if *dashed {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/><text x=\"{}\" y=\"{}\">{}</text>",
            num(x),
            num(y),
            num(x + 22.0),
            num(y),
            num(x + 28.0),
            num(y + 4.0),
            escape(label)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The DS and lattice plot: DS points as grey squares, lattice points as
/// blue dots, the basis as red arrows from the origin.
pub(crate) fn lattice_svg(p: &LatticePlot) -> String {
    let mut out = String::new();
    let (mut lo, mut hi) = ([0i64, 0], [0i64, 0]);
    for q in &p.ds {
        for d in 0..2 {
            lo[d] = lo[d].min(q[d]);
            hi[d] = hi[d].max(q[d]);
        }
    }
    let span = [(hi[0] - lo[0] + 2) as f64, (hi[1] - lo[1] + 2) as f64];
    // Each axis fills its room (a flat set stays readable); the caption
    // says when the axes are not to the same scale.
    let ux = (600.0 / span[0]).min(40.0);
    let uy = (400.0 / span[1]).min(40.0);
    let (ux, uy) = if ux / uy > 1.5 || uy / ux > 1.5 {
        (ux, uy)
    } else {
        (ux.min(uy), ux.min(uy))
    };
    let to_scale = ux == uy;
    let unit = ux.min(uy);
    let width = LEFT + ux * span[0] + 40.0;
    let height = TOP + uy * span[1] + 90.0;
    header(&mut out, width.max(520.0), height, &p.title);
    // Dimension 0 across, dimension 1 up.
    let x_of = |v: i64| LEFT + ux * ((v - lo[0]) as f64 + 1.0);
    let y_of = |v: i64| TOP + uy * ((hi[1] - v) as f64 + 1.0);
    let _ = writeln!(
        out,
        "<g stroke=\"#999\"><line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/><line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/></g>",
        num(x_of(lo[0]) - ux),
        num(x_of(hi[0]) + ux),
        num(y_of(hi[1]) - uy),
        num(y_of(lo[1]) + uy),
        x = num(x_of(0)),
        y = num(y_of(0))
    );
    let (rx, ry) = ((ux * 0.45).max(0.5), (uy * 0.45).max(0.5));
    let mut ds = String::new();
    for q in &p.ds {
        let _ = write!(
            ds,
            "M{} {}h{}v{}h-{}z",
            num(x_of(q[0]) - rx),
            num(y_of(q[1]) - ry),
            num(2.0 * rx),
            num(2.0 * ry),
            num(2.0 * rx)
        );
    }
    let _ = writeln!(out, "<path d=\"{ds}\" fill=\"#c8c8c8\"/>");
    let dot = (unit * 0.3).clamp(2.5, 6.0);
    for q in &p.lattice {
        let _ = writeln!(
            out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#1f77b4\"/>",
            num(x_of(q[0])),
            num(y_of(q[1])),
            num(dot)
        );
    }
    let _ = writeln!(
        out,
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" fill=\"#d62728\"/></marker></defs>"
    );
    // A basis vector outside the set's box is drawn up to the box's edge
    // (its coordinates are in the caption).
    let clip = |b: [i64; 2]| -> [f64; 2] {
        let mut t: f64 = 1.0;
        for d in 0..2 {
            let (l, h) = ((lo[d] - 1) as f64, (hi[d] + 1) as f64);
            let v = b[d] as f64;
            if v > h {
                t = t.min(h / v);
            }
            if v < l {
                t = t.min(l / v);
            }
        }
        [b[0] as f64 * t, b[1] as f64 * t]
    };
    let xf = |v: f64| LEFT + ux * (v - lo[0] as f64 + 1.0);
    let yf = |v: f64| TOP + uy * (hi[1] as f64 - v + 1.0);
    for b in &p.basis {
        let c = clip(*b);
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" stroke-width=\"2\" marker-end=\"url(#arrow)\"/>",
            num(x_of(0)),
            num(y_of(0)),
            num(xf(c[0])),
            num(yf(c[1]))
        );
    }
    let base = TOP + uy * span[1] + 30.0;
    let lines = [
        format!("mapping: {}", p.mapping),
        format!(
            "grey: difference set ({} points); blue: the lattice of the mapping, {} cells",
            p.ds.len(),
            p.cells
        ),
        format!(
            "red: its basis ({}, {}) and ({}, {}); no lattice point but 0 in the grey set{}",
            p.basis[0][0],
            p.basis[0][1],
            p.basis[1][0],
            p.basis[1][1],
            if to_scale {
                ""
            } else {
                " (axes not to the same scale)"
            }
        ),
    ];
    for (k, line) in lines.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"12\" y=\"{}\">{}</text>",
            num(base + 18.0 * k as f64),
            escape(line)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The lattice `{x : a_k·x ≡ 0 (mod m_k) for every k}` of a 2-D modular
/// mapping with numeric moduli (`rows[k] = (a_k, m_k)`, every `m_k >= 1`):
/// its points in the box `lo..=hi`, a basis (the two shortest
/// independent vectors, which in two dimensions always form one) and its
/// determinant (the number of cells the mapping uses). `None` when the
/// box is too large to scan or a basis vector lies outside the scan.
pub(crate) fn lattice_2d(
    rows: &[([i64; 2], i64)],
    lo: [i64; 2],
    hi: [i64; 2],
) -> Option<Lattice2d> {
    if rows.iter().any(|(_, m)| *m < 1) {
        return None;
    }
    let member = |x: [i64; 2]| {
        rows.iter().all(|(a, m)| {
            (i128::from(a[0]) * i128::from(x[0]) + i128::from(a[1]) * i128::from(x[1]))
                .rem_euclid(i128::from(*m))
                == 0
        })
    };
    // The determinant: the number of distinct images of Z², which the
    // images of the box [0, M)² with M the product of the moduli cover.
    let period: i64 = rows
        .iter()
        .try_fold(1i64, |acc, (_, m)| acc.checked_mul(*m))?;
    if period > 4096 {
        return None;
    }
    let mut images = std::collections::BTreeSet::new();
    for x0 in 0..period {
        for x1 in 0..period {
            let image: Vec<i64> = rows
                .iter()
                .map(|(a, m)| (a[0] * x0 + a[1] * x1).rem_euclid(*m))
                .collect();
            images.insert(image);
        }
    }
    let det = images.len() as i64;
    // Shortest vectors: scan a window that holds a reduced basis (each
    // reduced vector is at most the determinant long).
    let reach = det.max(1);
    let mut vectors: Vec<[i64; 2]> = Vec::new();
    for x0 in -reach..=reach {
        for x1 in -reach..=reach {
            if (x0, x1) != (0, 0) && member([x0, x1]) {
                vectors.push([x0, x1]);
            }
        }
    }
    let norm = |v: &[i64; 2]| v[0] * v[0] + v[1] * v[1];
    vectors.sort_by_key(|v| (norm(v), std::cmp::Reverse(v[0]), std::cmp::Reverse(v[1])));
    let b1 = *vectors.first()?;
    let b2 = *vectors.iter().find(|v| b1[0] * v[1] - b1[1] * v[0] != 0)?;
    if (b1[0] * b2[1] - b1[1] * b2[0]).abs() != det {
        return None;
    }
    let area = (hi[0] - lo[0] + 1).checked_mul(hi[1] - lo[1] + 1)?;
    if area > 1_000_000 {
        return None;
    }
    let mut points = Vec::new();
    for x0 in lo[0]..=hi[0] {
        for x1 in lo[1]..=hi[1] {
            if member([x0, x1]) {
                points.push([x0, x1]);
            }
        }
    }
    Some(Lattice2d {
        points,
        basis: [b1, b2],
        cells: det,
    })
}

/// What [`lattice_2d`] finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Lattice2d {
    /// The lattice's points in the box.
    pub points: Vec<[i64; 2]>,
    pub basis: [[i64; 2]; 2],
    /// Its determinant: the number of cells of the mapping.
    pub cells: i64,
}

/// One row of the index page.
#[derive(Clone, Debug)]
pub struct IndexEntry {
    /// `SCoP 0 (durbin_kernel)` or `durbin_kernel.y`.
    pub what: String,
    /// The report's numbers, e.g. `10000 -> 197 cells, lower bound 148`.
    pub numbers: String,
    /// The SVG file names (relative to the page).
    pub files: Vec<String>,
}

/// The index page: a table of the pictures with the report's numbers.
pub fn index_html(title: &str, entries: &[IndexEntry], notes: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>body{{font-family:sans-serif;margin:2em}}td{{vertical-align:top;padding:0.5em}}img{{max-width:760px;border:1px solid #ddd}}</style>\n</head>\n<body>\n<h1>{}</h1>",
        escape(title),
        escape(title)
    );
    for n in notes {
        let _ = writeln!(out, "<p>{}</p>", escape(n));
    }
    out.push_str("<table>\n");
    for e in entries {
        let _ = write!(
            out,
            "<tr><td><b>{}</b><br>{}</td><td>",
            escape(&e.what),
            escape(&e.numbers)
        );
        for f in &e.files {
            let _ = write!(
                out,
                "<a href=\"{f}\"><img src=\"{f}\" alt=\"{f}\"></a><br>",
                f = escape(f)
            );
        }
        out.push_str("</td></tr>\n");
    }
    out.push_str("</table>\n</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durbin_lattice_by_hand() {
        // (2 x0 + x1) mod 5: the lattice is spanned by (1, -2) and (2, 1)
        // (determinant 5), checked by hand: 2·1 - 2 = 0, 2·2 + 1 = 5.
        let Lattice2d {
            points,
            basis,
            cells: det,
        } = lattice_2d(&[([2, 1], 5)], [-2, -2], [2, 2]).expect("small");
        assert_eq!(det, 5);
        assert_eq!(
            (basis[0][0] * basis[1][1] - basis[0][1] * basis[1][0]).abs(),
            5
        );
        for b in basis {
            assert_eq!((2 * b[0] + b[1]).rem_euclid(5), 0);
            assert_eq!(b[0] * b[0] + b[1] * b[1], 5);
        }
        // In the 5 x 5 box: 0, ±(1, -2), ±(2, 1), ±(1, 3)? no: |3| > 2.
        let mut want = vec![[0, 0], [1, -2], [-1, 2], [2, 1], [-2, -1]];
        want.sort();
        let mut got = points.clone();
        got.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn axis_lattice_of_two_moduli() {
        // (x0 mod 2, x1 mod 3): the lattice 2Z x 3Z, determinant 6.
        let Lattice2d {
            basis, cells: det, ..
        } = lattice_2d(&[([1, 0], 2), ([0, 1], 3)], [0, 0], [0, 0]).expect("small");
        assert_eq!(det, 6);
        let mut b: Vec<[i64; 2]> = basis.iter().map(|v| [v[0].abs(), v[1].abs()]).collect();
        b.sort();
        assert_eq!(b, vec![[0, 3], [2, 0]]);
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(ticks(10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(148.0), vec![0.0, 50.0, 100.0]);
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(12.5), "12.5");
    }
}
