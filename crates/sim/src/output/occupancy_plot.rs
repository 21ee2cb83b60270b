//! `occupancy.svg`: burst-buffer fill over time, as a percentage of capacity: all devices
//! of each kind together, and the device that got fullest.

use super::capacity::{fullest, total_occupancy, CapacityRow};
use super::plot::{esc, svg_open, tick_step, time_axis, time_unit, trim_float};
use bbsim_engine::Time;
use std::fmt::Write;

const WIDTH: usize = 980;
const HEIGHT: usize = 420;
const LEFT: usize = 80;
const TOP: usize = 50;
const PLOT_W: usize = 620;
const PLOT_H: usize = 300;
const COLOURS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];

/// One line: legend label and (ps, percent) steps.
struct Series {
    label: String,
    steps: Vec<(Time, f64)>,
}

fn percent(steps: &[(Time, u64)], capacity: u64) -> Vec<(Time, f64)> {
    let cap = capacity.max(1) as f64;
    steps
        .iter()
        .map(|&(t, b)| (t, b as f64 * 100.0 / cap))
        .collect()
}

/// The lines to draw: per kind present, all its devices together; then the fullest device.
fn series(rows: &[CapacityRow]) -> Vec<Series> {
    let mut out = Vec::new();
    for (kind, what) in [
        ("bb-server", "all BB servers"),
        ("node-local", "all node-local SSDs"),
    ] {
        let rs: Vec<&CapacityRow> = rows.iter().filter(|r| r.kind == kind).collect();
        if rs.is_empty() {
            continue;
        }
        let cap: u64 = rs.iter().map(|r| r.capacity_bytes).sum();
        out.push(Series {
            label: format!("{what} ({} devices)", rs.len()),
            steps: percent(&total_occupancy(&rs), cap),
        });
    }
    if let Some(r) = fullest(rows).filter(|_| rows.len() > 1) {
        out.push(Series {
            label: format!("fullest device: {} {}", r.kind, r.host),
            steps: percent(&r.points, r.capacity_bytes),
        });
    }
    out
}

/// The picture for `rows` over `[0, end]` ps.
pub fn occupancy_svg(title: &str, rows: &[CapacityRow], end: Time) -> String {
    let end = end.max(1);
    let lines = series(rows);
    // The axis reaches 100 % (full) when the devices got at least half full; otherwise it
    // spans the data, so that a device that never got near full is still readable.
    let data_max = lines
        .iter()
        .flat_map(|l| l.steps.iter().map(|s| s.1))
        .fold(0.0f64, f64::max);
    let y_max = if data_max >= 50.0 {
        data_max.max(100.0)
    } else {
        let step = tick_step(data_max.max(1e-6) * 1.1);
        (data_max * 1.1 / step).ceil().max(1.0) * step
    };
    let full_shown = y_max >= 100.0;
    let (unit, div) = time_unit(end);
    let x_of = |t: Time| LEFT as f64 + t as f64 / end as f64 * PLOT_W as f64;
    let y_of = |v: f64| (TOP + PLOT_H) as f64 - v / y_max * PLOT_H as f64;
    let mut s = String::new();
    svg_open(&mut s, WIDTH, HEIGHT, title);
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="#f7f7f7" stroke="#999"/>"##
    );
    // Axes: time in the chosen unit, fill in percent.
    let label = format!("simulated time ({unit})");
    time_axis(
        &mut s,
        (LEFT, PLOT_W),
        TOP + PLOT_H,
        end as f64 / div,
        &label,
    );
    let ystep = tick_step(y_max);
    let mut v = 0.0;
    while v <= y_max + 1e-9 {
        let y = y_of(v);
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{y:.1}" x2="{LEFT}" y2="{y:.1}" stroke="#999"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 5,
            LEFT - 8,
            y + 4.0,
            trim_float(v)
        );
        v += ystep;
    }
    let _ = writeln!(
        s,
        r#"<text x="20" y="{}" text-anchor="middle" transform="rotate(-90 20 {})">occupied (% of capacity)</text>"#,
        TOP + PLOT_H / 2,
        TOP + PLOT_H / 2
    );
    // Full capacity.
    if full_shown {
        let y100 = y_of(100.0);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y100:.1}" x2="{}" y2="{y100:.1}" stroke="#444" stroke-dasharray="6 4"/>"##,
            LEFT + PLOT_W
        );
    }
    for (i, l) in lines.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let mut d = format!("M{:.1},{:.1}", x_of(0), y_of(0.0));
        let mut last = 0.0;
        for &(t, v) in &l.steps {
            let x = x_of(t.min(end));
            let _ = write!(d, " L{x:.1},{:.1} L{x:.1},{:.1}", y_of(last), y_of(v));
            last = v;
        }
        let _ = write!(d, " L{:.1},{:.1}", x_of(end), y_of(last));
        let _ = writeln!(
            s,
            r#"<path d="{d}" fill="none" stroke="{colour}" stroke-width="1.8"/>"#
        );
        let ly = TOP + 10 + i * 20;
        let lx = LEFT + PLOT_W + 12;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="3"/><text x="{}" y="{}" font-size="11">{}</text>"#,
            lx + 20,
            lx + 24,
            ly + 4,
            esc(&l.label)
        );
    }
    let ly = TOP + 10 + lines.len() * 20;
    let lx = LEFT + PLOT_W + 12;
    let full = if full_shown {
        "capacity (100 %)"
    } else {
        "capacity (100 %, off the scale)"
    };
    let _ = writeln!(
        s,
        r##"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="#444" stroke-dasharray="6 4"/><text x="{}" y="{}" font-size="11">{full}</text>"##,
        lx + 20,
        lx + 24,
        ly + 4
    );
    s.push_str("</svg>\n");
    s
}
