//! SVG plots: per-rank I/O phases over time (the picture HPC people draw to compare designs)
//! and simple bar charts (hops, utilisation). Plain SVG text, no dependencies.
//!
//! Timelines are rasterised to pixel rows before drawing, so the file size is bounded by the
//! picture's resolution, not by the number of ranks or operations.

use std::fmt::Write;

/// One job's I/O intervals, for the timeline plot.
#[derive(Clone, Debug, Default)]
pub struct JobTimeline {
    /// Job name shown as the panel title.
    pub name: String,
    /// Number of ranks (the vertical axis, rank 0 at the bottom).
    pub ranks: u32,
    /// (rank, start ps, end ps) of every I/O operation.
    pub intervals: Vec<(u32, u64, u64)>,
}

const WIDTH: usize = 900;
const PLOT_W: usize = 760;
const LEFT: usize = 90;
const PANEL_H: usize = 220;
const ROWS_MAX: usize = 200;

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A "nice" tick step for an axis spanning `span` units.
pub(crate) fn tick_step(span: f64) -> f64 {
    if span <= 0.0 {
        return 1.0;
    }
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if raw <= m * mag {
            return m * mag;
        }
    }
    10.0 * mag
}

/// Chooses a time unit for an axis ending at `max_ps`.
fn time_unit(max_ps: u64) -> (&'static str, f64) {
    if max_ps >= 10_000_000_000_000 {
        ("s", 1e12)
    } else if max_ps >= 10_000_000_000 {
        ("ms", 1e9)
    } else if max_ps >= 10_000_000 {
        ("us", 1e6)
    } else {
        ("ns", 1e3)
    }
}

/// Renders per-rank I/O phases for each job, one panel per job, on a common time axis
/// (from 0 to the last interval's end; intervals in picoseconds).
pub fn timeline_svg(title: &str, jobs: &[JobTimeline]) -> String {
    let t_max = jobs
        .iter()
        .flat_map(|j| j.intervals.iter().map(|i| i.2))
        .max()
        .unwrap_or(1)
        .max(1);
    let panels = jobs.len().max(1);
    let height = 50 + panels * (PANEL_H + 40) + 20;
    let mut s = String::new();
    svg_open(&mut s, WIDTH, height, title);
    for (p, job) in jobs.iter().enumerate() {
        let top = 50 + p * (PANEL_H + 40);
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{}" font-size="13">{} ({} ranks)</text>"#,
            top - 6,
            esc(&job.name),
            job.ranks
        );
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{top}" width="{PLOT_W}" height="{PANEL_H}" fill="#f7f7f7" stroke="#999"/>"##
        );
        panel_rows(&mut s, &Raster::of(job, t_max), top);
        panel_axes(&mut s, job, top, t_max);
    }
    s.push_str("</svg>\n");
    s
}

/// Opens an SVG picture `width` by `height` px: white background, `title` centred on top.
pub(crate) fn svg_open(s: &mut String, width: usize, height: usize, title: &str) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" font-size="16" text-anchor="middle">{}</text>"#,
        width / 2,
        esc(title)
    );
}

/// One job's intervals rasterised to pixel rows: one bit per (row, pixel column), ranks
/// folded onto at most [`ROWS_MAX`] rows.
struct Raster {
    /// Pixel rows.
    rows: usize,
    /// `rows * PLOT_W` bits, row by row, rank 0's row first.
    grid: Vec<bool>,
}

impl Raster {
    /// Rasterises `job` on a time axis from 0 to `t_max` ps.
    fn of(job: &JobTimeline, t_max: u64) -> Self {
        let ranks = job.ranks.max(1) as usize;
        let rows = ranks.min(ROWS_MAX);
        let mut grid = vec![false; rows * PLOT_W];
        for &(rank, a, b) in &job.intervals {
            let row = (rank as usize).min(ranks - 1) * rows / ranks;
            let x0 = ((a as f64 / t_max as f64) * PLOT_W as f64) as usize;
            let x1 = (((b as f64 / t_max as f64) * PLOT_W as f64).ceil() as usize)
                .max(x0 + 1)
                .min(PLOT_W);
            for x in x0.min(PLOT_W - 1)..x1 {
                grid[row * PLOT_W + x] = true;
            }
        }
        Raster { rows, grid }
    }
}

/// Draws a panel's rasterised rows (highest rank on top) as one rectangle per run of set
/// pixels; the panel's top edge is at `top` px.
fn panel_rows(s: &mut String, raster: &Raster, top: usize) {
    let Raster { rows, grid } = raster;
    let row_h = PANEL_H as f64 / *rows as f64;
    for row in 0..*rows {
        // Highest rank on top.
        let y = top as f64 + PANEL_H as f64 - (row + 1) as f64 * row_h;
        let mut x = 0;
        while x < PLOT_W {
            if grid[row * PLOT_W + x] {
                let start = x;
                while x < PLOT_W && grid[row * PLOT_W + x] {
                    x += 1;
                }
                let _ = writeln!(
                    s,
                    r##"<rect x="{}" y="{y:.2}" width="{}" height="{:.2}" fill="#1f77b4"/>"##,
                    LEFT + start,
                    x - start,
                    row_h.max(0.5)
                );
            } else {
                x += 1;
            }
        }
    }
}

/// Draws a panel's axes: rank labels and time ticks in a unit chosen for `t_max` ps.
fn panel_axes(s: &mut String, job: &JobTimeline, top: usize, t_max: u64) {
    let (unit, div) = time_unit(t_max);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="end">0</text><text x="{}" y="{}" text-anchor="end">{}</text>"#,
        LEFT - 4,
        top + PANEL_H,
        LEFT - 4,
        top + 10,
        job.ranks.saturating_sub(1)
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{}" transform="rotate(-90 18 {})" text-anchor="middle">rank</text>"#,
        top + PANEL_H / 2,
        top + PANEL_H / 2
    );
    let span = t_max as f64 / div;
    let step = tick_step(span);
    let mut v = 0.0;
    while v <= span + 1e-9 {
        let x = LEFT as f64 + v / span * PLOT_W as f64;
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#999"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
            top + PANEL_H,
            top + PANEL_H + 4,
            top + PANEL_H + 16,
            trim_float(v)
        );
        v += step;
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">time ({unit})</text>"#,
        LEFT + PLOT_W / 2,
        top + PANEL_H + 32
    );
}

pub(crate) fn trim_float(v: f64) -> String {
    let t = format!("{v:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Width allowed per label character in bar charts (px, 12 px sans-serif).
const LABEL_CHAR_PX: usize = 7;

/// Renders a horizontal bar chart: one bar per label, bar lengths proportional to the values
/// (the largest spans the plot), each value written after its bar with `unit`.
pub fn bar_svg(title: &str, unit: &str, bars: &[(String, f64)]) -> String {
    let n = bars.len().max(1);
    let bar_h = 22;
    // Room for the longest label at 12 px sans-serif (about 7 px per character), at least
    // 260 px, so that long labels (e.g. "apart from ior (same nodes) | grouped | 20us") are
    // not cut off at the left edge.
    let longest = bars.iter().map(|b| b.0.chars().count()).max().unwrap_or(0);
    let label_w = (longest * LABEL_CHAR_PX + 16).max(260);
    let plot_w = 560;
    let height = 60 + n * (bar_h + 6) + 30;
    let max = bars
        .iter()
        .map(|b| b.1)
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let mut s = String::new();
    svg_open(&mut s, label_w + plot_w + 100, height, title);
    for (i, (label, v)) in bars.iter().enumerate() {
        let y = 50 + i * (bar_h + 6);
        let w = (v / max * plot_w as f64).max(0.0);
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end">{}</text><rect x="{label_w}" y="{y}" width="{w:.1}" height="{bar_h}" fill="#ff7f0e"/><text x="{:.1}" y="{}">{} {}</text>"##,
            label_w - 6,
            y + 15,
            esc(label),
            label_w as f64 + w + 4.0,
            y + 15,
            trim_float(*v),
            esc(unit)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_is_bounded_and_well_formed() {
        let mut job = JobTimeline {
            name: "GTC <big>".into(),
            ranks: 30_000,
            intervals: Vec::new(),
        };
        for r in 0..30_000u32 {
            job.intervals.push((
                r,
                u64::from(r) * 1_000_000,
                u64::from(r) * 1_000_000 + 5_000_000_000,
            ));
        }
        let svg = timeline_svg("test", &[job]);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("GTC &lt;big&gt;"));
        assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
        assert!(svg.matches("<rect").count() > 100);
    }

    #[test]
    fn bars_scale_to_the_largest() {
        let svg = bar_svg("hops", "hops", &[("a".into(), 2.0), ("b".into(), 4.0)]);
        assert!(svg.contains(r#"width="560.0""#));
        assert!(svg.contains(r#"width="280.0""#));
    }

    /// A long label widens the label column so that it starts inside the image: the bars
    /// start right of the label's estimated width, and short labels keep the 260 px column.
    #[test]
    fn long_bar_labels_fit() {
        let bar_x = |svg: &str| -> usize {
            let i = svg.find("<rect x=\"").expect("a bar") + 9;
            svg[i..i + svg[i..].find('"').expect("quote")]
                .parse()
                .expect("x")
        };
        let short = bar_svg("t", "s", &[("alone | grouped | 20us".into(), 1.0)]);
        assert_eq!(bar_x(&short), 260);
        let label = "apart from gtc+s3d (same nodes) | node-local | 45us";
        let long = bar_svg("t", "s", &[(label.into(), 1.0), ("x".into(), 2.0)]);
        assert!(bar_x(&long) >= label.len() * 7 + 6, "{}", bar_x(&long));
        assert!(long.contains(&format!(r#"width="{}""#, bar_x(&long) + 560 + 100)));
    }

    #[test]
    fn ticks_are_nice() {
        assert_eq!(tick_step(10.0), 2.0);
        assert_eq!(tick_step(1.0), 0.2);
        assert_eq!(time_unit(5_000_000_000_000), ("ms", 1e9));
    }
}
