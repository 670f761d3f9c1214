//! Pictures of what polyfold decided, as self-contained SVG text: the
//! memory of a SCoP over its run (live values per step against the
//! storage before and after; the original schedule's run beside the
//! transformed one's when the output changed it), and the difference set
//! of a 2-D array (whole, or clipped to a window around the origin) with
//! the lattice of its modular mapping (seed 001, Fig. 2(b)).
//!
//! This module only draws, and finds the lattice of a mapping: the driver
//! (`polyfold plot`) runs the traces and the analyses and hands over
//! numbers. Everything is written with plain
//! `format!`, in a fixed order, with integer or fixed-precision
//! coordinates, so the text depends only on the data (snapshot-tested).

use std::fmt::Write as _;

/// The memory of one SCoP over its run: the run of the original schedule,
/// and that of the transformed one when the schedule changed.
#[derive(Clone, Debug)]
pub(crate) struct MemoryPlot {
    pub title: String,
    /// The runs drawn, the original schedule's first; with two, the first
    /// is drawn dotted and faint, the second solid.
    pub runs: Vec<MemoryRun>,
    /// Horizontal lines: label and height (original storage, new storage,
    /// max-live bound).
    pub levels: Vec<(String, i64)>,
    /// Lines under the plot that name the schedules (wrapped to fit).
    pub caption: Vec<String>,
}

/// One run of a SCoP in [`MemoryPlot`].
#[derive(Clone, Debug)]
pub(crate) struct MemoryRun {
    /// The legend's heading for the run (`original schedule`).
    pub schedule: String,
    /// The number of operations of the run (its x extent).
    pub operations: usize,
    /// Per temporary: its name and its live values per span of the run.
    pub series: Vec<(String, Vec<usize>)>,
    /// The live values of all temporaries together, per span.
    pub total: Vec<usize>,
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
    /// Set when `ds` holds only the points of a window around the origin.
    pub clip: Option<DsClip>,
}

/// How a difference set too large to draw whole was clipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DsClip {
    /// The points drawn are those with `|d0|, |d1| <= reach`.
    pub reach: i64,
    /// The box of the whole set (from its exact minima and maxima).
    pub lo: [i64; 2],
    pub hi: [i64; 2],
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

/// `text` cut at spaces into lines of at most `width` characters (a
/// longer word stands alone on its line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The memory plot: one step line per temporary and for their total, per
/// run (the original schedule's dotted and faint when the transformed
/// one is drawn too), the storage levels as dashed lines, axes, ticks, a
/// legend and the caption.
pub(crate) fn memory_svg(p: &MemoryPlot) -> String {
    let mut out = String::new();
    let caption: Vec<String> = p.caption.iter().flat_map(|c| wrap(c, 112)).collect();
    let height = HEIGHT + 16.0 * caption.len() as f64;
    header(&mut out, WIDTH, height, &p.title);
    let operations = p.runs.iter().map(|r| r.operations).max().unwrap_or(0);
    let live_top = p
        .runs
        .iter()
        .flat_map(|r| {
            r.series
                .iter()
                .flat_map(|(_, v)| v.iter().copied())
                .chain(r.total.iter().copied())
        })
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
    for t in ticks(operations as f64) {
        let x = LEFT + plot_w * t / (operations.max(1) as f64);
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
    let axis = if p.runs.len() > 1 {
        "operations of each run, in the order of its schedule"
    } else {
        "operations of the run, in the order of its schedule"
    };
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{axis}</text>",
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
    // Legend rows: label, colour, dash pattern (None: a heading).
    let mut legend: Vec<(String, String, Option<&str>)> = Vec::new();
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
        legend.push((format!("{label}: {v}"), colour.to_string(), Some("6 4")));
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
    // One colour per temporary's name, the same in every run.
    let mut names: Vec<&str> = Vec::new();
    for run in &p.runs {
        for (name, _) in &run.series {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let colour_of = |name: &str| {
        let k = names.iter().position(|n| *n == name).unwrap_or(0);
        COLOURS[k % COLOURS.len()]
    };
    // Series as step lines, each over its run's share of the x axis.
    let step_path = |values: &[usize], run_ops: usize| -> String {
        let spans = values.len().max(1) as f64;
        let share = run_ops as f64 / operations.max(1) as f64;
        let x_of = |span: f64| LEFT + plot_w * share * span / spans;
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
    let several = p.runs.len() > 1;
    for (r, run) in p.runs.iter().enumerate() {
        // With two runs, the first (the original schedule) is dotted.
        let faint = several && r + 1 < p.runs.len();
        let (style, dash) = if faint {
            (
                " stroke-dasharray=\"3 2\" stroke-opacity=\"0.7\"",
                Some("3 2"),
            )
        } else {
            ("", Some(""))
        };
        if several {
            legend.push((run.schedule.clone(), String::new(), None));
        }
        for (name, values) in &run.series {
            let colour = colour_of(name);
            let _ = writeln!(
                out,
                "<path d=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"{style}/>",
                step_path(values, run.operations)
            );
            let peak = values.iter().copied().max().unwrap_or(0);
            legend.push((
                format!("{name} (max live {peak})"),
                colour.to_string(),
                dash,
            ));
        }
        if run.series.len() > 1 {
            let _ = writeln!(
                out,
                "<path d=\"{}\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"{style}/>",
                step_path(&run.total, run.operations)
            );
            let peak = run.total.iter().copied().max().unwrap_or(0);
            legend.push((format!("all (max live {peak})"), "#000".into(), dash));
        }
    }
    legend_svg(&mut out, &legend);
    for (k, line) in caption.iter().enumerate() {
        let _ = writeln!(
            out,
            "<text x=\"12\" y=\"{}\">{}</text>",
            num(HEIGHT + 8.0 + 16.0 * k as f64),
            escape(line)
        );
    }
    out.push_str("</svg>\n");
    out
}

/// The memory plot's legend, one row per `(label, colour, dash)` (`None`:
/// a heading in bold), right of the plot: rows 18 pixels apart, closer
/// when they would pass the x axis's label.
fn legend_svg(out: &mut String, legend: &[(String, String, Option<&str>)]) {
    let row = (18.0f64).min((HEIGHT - 30.0 - TOP) / legend.len().max(1) as f64);
    for (k, (label, colour, dash)) in legend.iter().enumerate() {
        let y = TOP + 10.0 + row * k as f64;
        let x = WIDTH - RIGHT + 12.0;
        let Some(dash) = dash else {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>",
                num(x),
                num(y + 4.0),
                escape(label)
            );
            continue;
        };
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(" stroke-dasharray=\"{dash}\"")
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
    let width = (LEFT + ux * span[0] + 40.0).max(520.0);
    let lines = [
        format!("mapping: {}", p.mapping),
        match &p.clip {
            None => format!(
                "grey: difference set ({} points); blue: the lattice of the mapping, {} cells",
                p.ds.len(),
                p.cells
            ),
            Some(c) => format!(
                "grey: difference set clipped to |d| <= {}: {} points shown (the whole set spans [{}, {}] x [{}, {}]); blue: the lattice, {} cells",
                c.reach,
                p.ds.len(),
                c.lo[0],
                c.hi[0],
                c.lo[1],
                c.hi[1],
                p.cells
            ),
        },
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
    // About 6 pixels a character at font size 12.
    let lines: Vec<String> = lines
        .iter()
        .flat_map(|l| wrap(l, ((width - 24.0) / 6.0) as usize))
        .collect();
    let base = TOP + uy * span[1] + 30.0;
    let height = base + 18.0 * lines.len().saturating_sub(1) as f64 + 24.0;
    header(&mut out, width, height, &p.title);
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
/// box is too large to scan or a number overflows.
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
    // A basis of the lattice, one congruence at a time: with `x = B z`,
    // `a·x ≡ 0 (mod m)` is `c·z ≡ 0` for `c = a B`; a unimodular `U` with
    // `c U = (g, 0)` (g = gcd(c)) turns it into `g w0 ≡ 0 (mod m)`, so the
    // new basis is `B U diag(m / gcd(g, m), 1)`.
    let mut basis: [[i128; 2]; 2] = [[1, 0], [0, 1]];
    for (a, m) in rows {
        let (a, m) = ([i128::from(a[0]), i128::from(a[1])], i128::from(*m));
        let c = [
            a[0] * basis[0][0] + a[1] * basis[0][1],
            a[0] * basis[1][0] + a[1] * basis[1][1],
        ];
        let (g, s, t) = extended_gcd(c[0].rem_euclid(m), c[1].rem_euclid(m));
        // Columns of U: (s, t) with c·(s, t) ≡ g, and (-c1/g, c0/g) with
        // c·(.) = 0 (the identity when c ≡ 0).
        let (u0, u1) = if g == 0 {
            ([1, 0], [0, 1])
        } else {
            let (c0, c1) = (c[0].rem_euclid(m), c[1].rem_euclid(m));
            ([s, t], [-c1 / g, c0 / g])
        };
        let scale = m / gcd(g, m);
        let combine = |u: [i128; 2]| -> Option<[i128; 2]> {
            Some([
                u[0].checked_mul(basis[0][0])?
                    .checked_add(u[1].checked_mul(basis[1][0])?)?,
                u[0].checked_mul(basis[0][1])?
                    .checked_add(u[1].checked_mul(basis[1][1])?)?,
            ])
        };
        let v0 = combine(u0)?;
        let v1 = combine(u1)?;
        basis = [[v0[0].checked_mul(scale)?, v0[1].checked_mul(scale)?], v1];
        basis = gauss_reduce(basis)?;
    }
    let det = (basis[0][0] * basis[1][1] - basis[0][1] * basis[1][0]).abs();
    // The shortest vectors: for a reduced basis, every vector at most as
    // long as the second one is `z0 b0 + z1 b1` with |z0|, |z1| <= 1, so
    // the candidates below hold both; ties are broken as a scan of the
    // plane would (the same choice whatever the basis).
    let mut vectors: Vec<[i64; 2]> = Vec::new();
    for z0 in -2i128..=2 {
        for z1 in -2i128..=2 {
            if (z0, z1) == (0, 0) {
                continue;
            }
            let v = [
                z0 * basis[0][0] + z1 * basis[1][0],
                z0 * basis[0][1] + z1 * basis[1][1],
            ];
            vectors.push([i64::try_from(v[0]).ok()?, i64::try_from(v[1]).ok()?]);
        }
    }
    let norm = |v: &[i64; 2]| i128::from(v[0]).pow(2) + i128::from(v[1]).pow(2);
    vectors.sort_by_key(|v| (norm(v), std::cmp::Reverse(v[0]), std::cmp::Reverse(v[1])));
    let b1 = *vectors.first()?;
    let b2 = *vectors
        .iter()
        .find(|v| i128::from(b1[0]) * i128::from(v[1]) != i128::from(b1[1]) * i128::from(v[0]))?;
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
        cells: i64::try_from(det).ok()?,
    })
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `(g, s, t)` with `g = gcd(a, b) >= 0` and `s a + t b = g`.
fn extended_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    let (mut r0, mut r1) = (a, b);
    let (mut s0, mut s1) = (1i128, 0i128);
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0.div_euclid(r1);
        (r0, r1) = (r1, r0 - q * r1);
        (s0, s1) = (s1, s0 - q * s1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    if r0 < 0 {
        (-r0, -s0, -t0)
    } else {
        (r0, s0, t0)
    }
}

/// Lagrange's reduction of a basis of a 2-D lattice: the first vector is
/// a shortest one, the second a shortest independent of it. `None` on
/// overflow.
fn gauss_reduce(mut b: [[i128; 2]; 2]) -> Option<[[i128; 2]; 2]> {
    let norm = |v: [i128; 2]| -> Option<i128> {
        v[0].checked_mul(v[0])?.checked_add(v[1].checked_mul(v[1])?)
    };
    if norm(b[0])? > norm(b[1])? {
        b.swap(0, 1);
    }
    loop {
        let n0 = norm(b[0])?;
        if n0 == 0 {
            return None;
        }
        let dot = b[0][0]
            .checked_mul(b[1][0])?
            .checked_add(b[0][1].checked_mul(b[1][1])?)?;
        // The nearest integer to dot / n0.
        let q = (2 * dot + n0).div_euclid(2 * n0);
        b[1] = [
            b[1][0].checked_sub(q.checked_mul(b[0][0])?)?,
            b[1][1].checked_sub(q.checked_mul(b[0][1])?)?,
        ];
        if norm(b[1])? >= n0 {
            return Some(b);
        }
        b.swap(0, 1);
    }
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

    /// The lattice of `rows` by brute force, as the scan of the plane
    /// would find it: the determinant is the number of distinct images of
    /// `[0, M)²` (M the product of the moduli), the basis the first
    /// shortest vector and the first shortest independent of it in the
    /// scan's order.
    fn brute_force(rows: &[([i64; 2], i64)]) -> ([[i64; 2]; 2], i64) {
        let period: i64 = rows.iter().map(|(_, m)| m).product();
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
        let mut vectors = Vec::new();
        for x0 in -det..=det {
            for x1 in -det..=det {
                let member = rows
                    .iter()
                    .all(|(a, m)| (a[0] * x0 + a[1] * x1).rem_euclid(*m) == 0);
                if (x0, x1) != (0, 0) && member {
                    vectors.push([x0, x1]);
                }
            }
        }
        let norm = |v: &[i64; 2]| v[0] * v[0] + v[1] * v[1];
        vectors.sort_by_key(|v| (norm(v), std::cmp::Reverse(v[0]), std::cmp::Reverse(v[1])));
        let b1 = vectors[0];
        let b2 = *vectors
            .iter()
            .find(|v| b1[0] * v[1] - b1[1] * v[0] != 0)
            .expect("independent");
        ([b1, b2], det)
    }

    #[test]
    fn lattice_is_the_brute_force_one() {
        let mut cases = 0;
        for m0 in [1i64, 2, 3, 4, 6, 7] {
            for m1 in [1i64, 2, 4, 5] {
                for (a0, a1) in [(1, 0), (0, 1), (2, 1), (1, -1), (3, 2), (4, 6), (0, 0)] {
                    for (b0, b1) in [(0, 1), (1, 1), (2, -3)] {
                        let rows = [([a0, a1], m0), ([b0, b1], m1)];
                        let (basis, det) = brute_force(&rows);
                        let got = lattice_2d(&rows, [0, 0], [0, 0]).expect("small");
                        assert_eq!((got.basis, got.cells), (basis, det), "{rows:?}");
                        cases += 1;
                    }
                }
            }
        }
        assert_eq!(cases, 6 * 4 * 7 * 3);
    }

    #[test]
    fn a_large_lattice_is_found() {
        // x0 mod 100, x1 mod 70: 7000 cells, basis (100, 0) and (0, 70)
        // (the scan of the images stopped at 4096).
        let got = lattice_2d(&[([1, 0], 100), ([0, 1], 70)], [0, 0], [0, 0]).expect("found");
        assert_eq!(got.cells, 7000);
        let mut b: Vec<[i64; 2]> = got.basis.iter().map(|v| [v[0].abs(), v[1].abs()]).collect();
        b.sort();
        assert_eq!(b, vec![[0, 70], [100, 0]]);
        // (x0 + x1) mod 4 and (x0 - x1) mod 4: both of the same parity,
        // so 8 images; shortest vectors (2, ±2).
        let got = lattice_2d(&[([1, 1], 4), ([1, -1], 4)], [0, 0], [0, 0]).expect("found");
        assert_eq!(got.cells, 8);
        for v in got.basis {
            assert_eq!((v[0].abs(), v[1].abs()), (2, 2));
        }
    }

    #[test]
    fn captions_wrap_at_spaces() {
        assert_eq!(wrap("ab cd ef", 5), vec!["ab cd", "ef"]);
        assert_eq!(wrap("abcdefgh ij", 4), vec!["abcdefgh", "ij"]);
        assert_eq!(wrap("", 4), Vec::<String>::new());
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(ticks(10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(148.0), vec![0.0, 50.0, 100.0]);
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(12.5), "12.5");
    }
}
