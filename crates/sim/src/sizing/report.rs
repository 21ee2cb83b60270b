//! The files of `bbsim size`: `sizing.csv` (one row per design run) and `sizing.svg` (cost
//! against the first target's metric, with the Pareto front and the chosen design).

use super::metrics::{fmt_value, Target};
use super::{Dim, Tried};
use crate::output::chart::trim_float;
use crate::output::report::csv_field;
use crate::output::svg_text::{esc, svg_open, tick_step};
use std::fmt::Write as _;

/// The text of `sizing.csv`: `design,dir`, the dimensions' keys, `cost_usd` (US$), one
/// column per target named `metric` or `metric[job]` (metric names end in their unit: `_s`
/// seconds, `_bytes` bytes), `feasible` (`yes`/`no`) and `reason`. One row per design, in the
/// order run.
pub fn sizing_csv(dims: &[Dim], targets: &[Target], jobs: &[String], tried: &[Tried]) -> String {
    let mut csv = String::from("design,dir");
    for d in dims {
        csv.push(',');
        csv.push_str(&csv_field(&d.key));
    }
    csv.push_str(",cost_usd");
    for t in targets {
        csv.push(',');
        csv.push_str(&csv_field(&t.column_name(jobs)));
    }
    csv.push_str(",feasible,reason\n");
    for t in tried {
        let _ = write!(csv, "{},{}", t.design, csv_field(&t.dir));
        for v in &t.values {
            csv.push(',');
            csv.push_str(&csv_field(v));
        }
        let _ = write!(csv, ",{:.2}", t.cost);
        for v in &t.verdict.values {
            csv.push(',');
            if let Some(v) = v {
                let _ = write!(csv, "{v:.9}");
            }
        }
        let _ = writeln!(
            csv,
            ",{},{}",
            if t.verdict.feasible { "yes" } else { "no" },
            csv_field(&t.verdict.reason)
        );
    }
    csv
}

const W: f64 = 860.0;
const H: f64 = 600.0;
const LEFT: f64 = 110.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 110.0;

/// The Pareto front of `(x, cost)` points (both lower is better): indices sorted by x, each
/// cheaper than every point before it.
pub fn pareto(points: &[(f64, f64)]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..points.len()).collect();
    idx.sort_by(|&a, &b| {
        points[a]
            .0
            .total_cmp(&points[b].0)
            .then(points[a].1.total_cmp(&points[b].1))
    });
    let mut front = Vec::new();
    let mut best = f64::INFINITY;
    for i in idx {
        if points[i].1 < best {
            best = points[i].1;
            front.push(i);
        }
    }
    front
}

/// Axis ticks from `lo` (or just below) to past `hi`: (first, step, last).
fn axis(lo: f64, hi: f64) -> (f64, f64, f64) {
    let step = tick_step((hi - lo).max(f64::MIN_POSITIVE));
    let first = (lo / step).floor() * step;
    let last = ((hi / step).ceil() * step).max(first + step);
    (first, step, last)
}

/// A dollar amount for tick labels: `$0`, `$250k`, `$1.2M`.
fn dollars(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("${}M", trim_float(v / 1e6))
    } else if v.abs() >= 1e3 {
        format!("${}k", trim_float(v / 1e3))
    } else {
        format!("${}", trim_float(v))
    }
}

/// `sizing.svg`: every design run with a value of the first target's metric, cost (US$)
/// against that metric; feasible designs filled, infeasible hollow, the Pareto front of
/// (metric, cost) as a line, the target as a dashed vertical line, and the chosen design
/// circled and labelled. `labels` are the designs' short labels.
pub fn sizing_svg(
    title: &str,
    target: &Target,
    jobs: &[String],
    tried: &[Tried],
    labels: &[String],
    chosen: Option<usize>,
) -> String {
    let unit = target.metric.unit.symbol();
    // Bytes read better in GB.
    let (scale, unit_label) = if unit == "B" {
        (1e9, "GB")
    } else {
        (1.0, unit)
    };
    let pts: Vec<(usize, f64, f64)> = tried
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.verdict.values[0].map(|v| (i, v / scale, t.cost)))
        .collect();
    let limit = target.limit / scale;
    let xmax = pts.iter().map(|p| p.1).fold(limit, f64::max);
    let ymax = pts.iter().map(|p| p.2).fold(0.0, f64::max);
    let ymin = pts.iter().map(|p| p.2).fold(f64::INFINITY, f64::min);
    let ymin = if ymin.is_finite() { ymin } else { 0.0 };
    let pad = ((ymax - ymin) * 0.1).max(ymax * 0.01);
    let (x0, xs, x1) = axis(0.0, xmax * 1.05);
    let (y0, ys, y1) = axis((ymin - pad).max(0.0), ymax + pad);
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * pw;
    let py = |y: f64| TOP + ph - (y - y0) / (y1 - y0) * ph;
    let mut s = String::new();
    svg_open(&mut s, W as usize, H as usize, title);
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="#fafafa" stroke="#999"/>"##
    );
    // Grid and ticks.
    let mut v = x0;
    while v <= x1 + xs * 1e-6 {
        let x = px(v);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#e4e4e4"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP + ph,
            TOP + ph + 18.0,
            trim_float(v)
        );
        v += xs;
    }
    let mut v = y0;
    while v <= y1 + ys * 1e-6 {
        let y = py(v);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e4e4e4"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + pw,
            LEFT - 8.0,
            y + 4.0,
            dollars(v)
        );
        v += ys;
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="13">{} ({unit_label})</text>"#,
        LEFT + pw / 2.0,
        TOP + ph + 40.0,
        esc(&target.column_name(jobs))
    );
    let _ = writeln!(
        s,
        r#"<text x="22" y="{:.1}" transform="rotate(-90 22 {:.1})" text-anchor="middle" font-size="13">total cost (US$)</text>"#,
        TOP + ph / 2.0,
        TOP + ph / 2.0
    );
    // The target.
    let tx = px(limit);
    let _ = writeln!(
        s,
        r##"<line x1="{tx:.1}" y1="{TOP}" x2="{tx:.1}" y2="{:.1}" stroke="#d62728" stroke-dasharray="6,4"/>"##,
        TOP + ph
    );
    // The Pareto front.
    let xy: Vec<(f64, f64)> = pts.iter().map(|p| (p.1, p.2)).collect();
    let front = pareto(&xy);
    if front.len() > 1 {
        let path: Vec<String> = front
            .iter()
            .map(|&i| format!("{:.1},{:.1}", px(xy[i].0), py(xy[i].1)))
            .collect();
        let _ = writeln!(
            s,
            r##"<polyline points="{}" fill="none" stroke="#2ca02c" stroke-width="2"/>"##,
            path.join(" ")
        );
    }
    // The designs.
    for &(i, x, y) in &pts {
        let fill = if tried[i].verdict.feasible {
            "#1f77b4"
        } else {
            "white"
        };
        let _ = writeln!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{fill}" stroke="#1f77b4" stroke-width="1.5"><title>{}</title></circle>"##,
            px(x),
            py(y),
            esc(&labels[i])
        );
    }
    if let Some(&(i, x, y)) = chosen.and_then(|c| pts.iter().find(|p| p.0 == c)) {
        let (cx, cy) = (px(x), py(y));
        let anchor = if cx > LEFT + pw * 0.6 { "end" } else { "start" };
        let dx = if anchor == "end" { -14.0 } else { 14.0 };
        let _ = writeln!(
            s,
            r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="10" fill="none" stroke="#d62728" stroke-width="2.5"/><text x="{:.1}" y="{:.1}" text-anchor="{anchor}" font-size="12" fill="#d62728">chosen</text>"##,
            cx + dx,
            cy - 12.0,
        );
        let _ = writeln!(
            s,
            r##"<text x="{:.1}" y="42" text-anchor="middle" font-size="12" fill="#d62728">chosen: {} ({}, {} {unit_label})</text>"##,
            W / 2.0,
            esc(&labels[i]),
            dollars_exact(tried[i].cost),
            fmt_value(x)
        );
    }
    legend(&mut s, &target.label(jobs));
    s.push_str("</svg>\n");
    s
}

/// A cost for labels: `$916,290`.
fn dollars_exact(v: f64) -> String {
    let n = v.round() as i64;
    let digits = n.abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{}${out}", if n < 0 { "-" } else { "" })
}

/// The legend: one row under the plot, each mark followed by its text.
fn legend(s: &mut String, target: &str) {
    let y = H - 30.0;
    let rows: [(&str, String); 5] = [
        (
            r##"<circle cx="{cx}" cy="{cy}" r="5" fill="#1f77b4" stroke="#1f77b4"/>"##,
            "meets every target".into(),
        ),
        (
            r##"<circle cx="{cx}" cy="{cy}" r="5" fill="white" stroke="#1f77b4" stroke-width="1.5"/>"##,
            "misses a target".into(),
        ),
        (
            r##"<line x1="{x0}" y1="{cy}" x2="{x1}" y2="{cy}" stroke="#2ca02c" stroke-width="2"/>"##,
            "Pareto front".into(),
        ),
        (
            r##"<line x1="{x0}" y1="{cy}" x2="{x1}" y2="{cy}" stroke="#d62728" stroke-dasharray="6,4"/>"##,
            format!("target {target}"),
        ),
        (
            r##"<circle cx="{cx}" cy="{cy}" r="8" fill="none" stroke="#d62728" stroke-width="2.5"/>"##,
            "chosen".into(),
        ),
    ];
    let widths: Vec<f64> = rows
        .iter()
        .map(|r| 36.0 + r.1.chars().count() as f64 * 6.6)
        .collect();
    let mut x = ((W - widths.iter().sum::<f64>()) / 2.0).max(10.0);
    let _ = writeln!(
        s,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="24" fill="white" stroke="#bbb"/>"##,
        x - 6.0,
        y - 12.0,
        widths.iter().sum::<f64>() + 12.0
    );
    for ((mark, text), w) in rows.iter().zip(&widths) {
        let cx = x + 12.0;
        let m = mark
            .replace("{cx}", &format!("{cx:.1}"))
            .replace("{cy}", &format!("{y:.1}"))
            .replace("{x0}", &format!("{:.1}", cx - 10.0))
            .replace("{x1}", &format!("{:.1}", cx + 10.0));
        let _ = writeln!(
            s,
            r#"{m}<text x="{:.1}" y="{:.1}" font-size="12">{}</text>"#,
            x + 28.0,
            y + 4.0,
            esc(text)
        );
        x += w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_keeps_the_cheapest_for_each_value() {
        let p = [(1.0, 10.0), (2.0, 5.0), (3.0, 7.0), (4.0, 1.0), (0.5, 20.0)];
        assert_eq!(pareto(&p), vec![4, 0, 1, 3]);
    }

    #[test]
    fn dollars_read_well() {
        assert_eq!(dollars_exact(916289.6), "$916,290");
        assert_eq!(dollars(1_500_000.0), "$1.5M");
        assert_eq!(dollars(250_000.0), "$250k");
    }
}
