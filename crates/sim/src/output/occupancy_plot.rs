//! `occupancy.svg`: burst-buffer fill over time per device, one panel per kind of device
//! (BB servers, node-local SSDs), with each kind's device capacity as a dashed line.
//!
//! A panel draws the [`LINES`] devices of its kind that got fullest, each in its own colour;
//! the legend says how many more there are and how full the fullest of them got.

use super::bars::nice_ceiling;
use super::capacity::CapacityRow;
use super::chart::{
    axes, byte_unit, draw_legend, font, legend_rows, render, series_colour, time_unit, trim_float,
    Area, DrawResult, LegendEntry, CAPTION_FONT, INK, LEGEND_ROW,
};
use bbsim_engine::Time;
use plotters::prelude::*;

/// Devices drawn per kind, fullest first.
pub const LINES: usize = 8;

const WIDTH: u32 = 1000;
const PANEL_H: u32 = 330;

/// The kinds of device, in panel order: (kind in [`CapacityRow::kind`], panel name).
const KINDS: [(&str, &str); 2] = [
    ("bb-server", "BB servers"),
    ("node-local", "node-local SSDs"),
];

/// The picture for `rows` over `[0, end]` ps.
pub fn occupancy_svg(title: &str, rows: &[CapacityRow], end: Time) -> String {
    let end = end.max(1);
    let panels: Vec<(&str, Vec<&CapacityRow>)> = KINDS
        .iter()
        .map(|&(kind, name)| (name, fullest_first(rows, kind)))
        .filter(|(_, devs)| !devs.is_empty())
        .collect();
    let legends: Vec<Vec<LegendEntry>> = panels.iter().map(|(_, d)| legend(d)).collect();
    let legend_h: Vec<u32> = legends
        .iter()
        .map(|l| legend_rows(l, WIDTH - 120) * LEGEND_ROW + 8)
        .collect();
    let height = 50
        + legend_h
            .iter()
            .map(|h| h + PANEL_H)
            .sum::<u32>()
            .max(PANEL_H)
        + 10;
    render(WIDTH, height, title, |area| {
        let mut rest = area.clone();
        for (((name, devs), entries), lh) in panels.iter().zip(&legends).zip(&legend_h) {
            let (panel, below) = rest.split_vertically(PANEL_H + lh);
            let (plot, legend_area) = panel.split_vertically(PANEL_H);
            kind_panel(&plot, name, devs, end)?;
            draw_legend(&legend_area.margin(0, 0, 90, 20), entries)?;
            rest = below;
        }
        Ok(())
    })
}

/// The devices of `kind`, fullest (highest peak share of capacity) first; the lower host on
/// a tie.
fn fullest_first<'a>(rows: &'a [CapacityRow], kind: &str) -> Vec<&'a CapacityRow> {
    let mut devs: Vec<&CapacityRow> = rows.iter().filter(|r| r.kind == kind).collect();
    devs.sort_by(|a, b| b.peak_pct.total_cmp(&a.peak_pct).then(a.host.cmp(&b.host)));
    devs
}

/// A device's name: its kind's word and host number.
fn device_name(r: &CapacityRow) -> String {
    match r.kind {
        "bb-server" => format!("BB server {}", r.host),
        _ => format!("node {} SSD", r.host),
    }
}

/// The legend of a panel: the drawn devices (peak, and the writes that waited for space
/// with their summed wait), the rest, the capacity line.
fn legend(devs: &[&CapacityRow]) -> Vec<LegendEntry> {
    let mut out: Vec<LegendEntry> = devs
        .iter()
        .take(LINES)
        .enumerate()
        .map(|(i, r)| {
            let mut label = format!("{} (peak {} %", device_name(r), trim_float(r.peak_pct));
            if r.stalled_writes > 0 {
                label.push_str(&format!(
                    ", {} writes waited {} s for space",
                    r.stalled_writes,
                    trim_float(r.stall_time_s)
                ));
            }
            label.push(')');
            LegendEntry::line(label, series_colour(i), false)
        })
        .collect();
    if let Some(next) = devs.get(LINES) {
        let more = match devs.len() - LINES {
            1 => "1 more device".to_string(),
            n => format!("{n} more devices"),
        };
        out.push(LegendEntry::square(
            format!(
                "{more}, not drawn (peaks at most {} %)",
                trim_float(next.peak_pct)
            ),
            WHITE,
        ));
    }
    let cap = capacity(devs);
    let (u, d) = byte_unit(cap);
    let mut label = format!("capacity per device ({} {u}", trim_float(cap as f64 / d));
    if devs.iter().any(|r| r.capacity_bytes != cap) {
        label.push_str(", the largest");
    }
    if !capacity_shown(devs) {
        label.push_str(", above the axis");
    }
    label.push(')');
    out.push(LegendEntry::line(label, INK, true));
    out
}

/// The largest device capacity of `devs` (bytes).
fn capacity(devs: &[&CapacityRow]) -> u64 {
    devs.iter().map(|r| r.capacity_bytes).max().unwrap_or(0)
}

/// The largest peak of `devs` (bytes).
fn peak(devs: &[&CapacityRow]) -> u64 {
    devs.iter().map(|r| r.peak_bytes).max().unwrap_or(0)
}

/// Whether the axis reaches the capacity: when a device got at least a quarter full;
/// otherwise the axis spans the data, so that fills far from full stay readable.
fn capacity_shown(devs: &[&CapacityRow]) -> bool {
    peak(devs) as f64 >= capacity(devs) as f64 / 4.0
}

/// Draws one kind's panel: bytes held over time by its fullest devices and the capacity.
fn kind_panel(area: &Area, name: &str, devs: &[&CapacityRow], end: Time) -> DrawResult {
    let (cap, peak) = (capacity(devs), peak(devs));
    let shown = capacity_shown(devs);
    let top = if shown { cap.max(peak) } else { peak }.max(1);
    let (bu, bd) = byte_unit(top);
    let (tu, td) = time_unit(end);
    let y_max = if shown {
        top as f64 / bd * 1.08
    } else {
        nice_ceiling(top as f64 / bd * 1.05)
    };
    let x_max = end as f64 / td;
    let mut chart = ChartBuilder::on(&area.margin(4, 0, 10, 30))
        .caption(
            match devs.len() {
                1 => format!("{name}: 1 device"),
                n => format!("{name}: {n} devices"),
            },
            font(CAPTION_FONT),
        )
        .x_label_area_size(46)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
    let (x_desc, y_desc) = (format!("simulated time ({tu})"), format!("occupied ({bu})"));
    axes(&mut chart, &x_desc, &y_desc)
        .x_labels(8)
        .y_labels(6)
        .draw()?;
    if shown {
        let cap_y = cap as f64 / bd;
        chart.draw_series(DashedLineSeries::new(
            [(0.0, cap_y), (x_max, cap_y)],
            8,
            5,
            INK.stroke_width(2),
        ))?;
    }
    // The fullest device last, so that it is drawn on top.
    for (i, r) in devs.iter().take(LINES).enumerate().rev() {
        let steps = steps(&r.points, end, |t, b| (t as f64 / td, b as f64 / bd));
        chart.draw_series(LineSeries::new(steps, series_colour(i).stroke_width(2)))?;
    }
    Ok(())
}

/// The step function through `points` ((ps, bytes held from then on)) from 0 to `end`, as
/// polyline vertices mapped by `at`.
fn steps(
    points: &[(Time, u64)],
    end: Time,
    at: impl Fn(Time, u64) -> (f64, f64),
) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2 + 2);
    out.push(at(0, 0));
    let mut last = 0;
    for &(t, b) in points {
        let t = t.min(end);
        out.push(at(t, last));
        out.push(at(t, b));
        last = b;
    }
    out.push(at(end, last));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::chart::svg_texts;

    fn row(kind: &'static str, host: u32, cap: u64, points: Vec<(Time, u64)>) -> CapacityRow {
        let peak = points.iter().map(|p| p.1).max().unwrap_or(0);
        CapacityRow {
            kind,
            host,
            capacity_bytes: cap,
            peak_bytes: peak,
            peak_pct: peak as f64 * 100.0 / cap as f64,
            points,
            ..Default::default()
        }
    }

    #[test]
    fn steps_hold_each_value_until_the_next_point() {
        let s = steps(&[(10, 5), (20, 0)], 30, |t, b| (t as f64, b as f64));
        assert_eq!(
            s,
            vec![
                (0.0, 0.0),
                (10.0, 0.0),
                (10.0, 5.0),
                (20.0, 5.0),
                (20.0, 0.0),
                (30.0, 0.0)
            ]
        );
    }

    #[test]
    fn one_panel_per_kind_with_capacity_and_fullest_devices() {
        let mut rows: Vec<CapacityRow> = (0..9)
            .map(|h| {
                let b = 100_000_000_000 * u64::from(h + 1);
                row(
                    "bb-server",
                    h,
                    2_000_000_000_000,
                    vec![(1_000_000_000_000, b)],
                )
            })
            .collect();
        rows[1].stalled_writes = 3;
        rows[1].stall_time_s = 0.25;
        rows.push(row(
            "node-local",
            7,
            800_000_000_000,
            vec![(5, 400_000_000_000)],
        ));
        let texts = svg_texts(&occupancy_svg("occ", &rows, 4_000_000_000_000));
        for text in [
            "BB servers: 9 devices",
            "node-local SSDs: 1 device",
            "BB server 8 (peak 45 %)",
            "BB server 1 (peak 10 %, 3 writes waited 0.25 s for space)",
            "1 more device, not drawn (peaks at most 5 %)",
            "capacity per device (2 TB)",
            "capacity per device (800 GB)",
            "node 7 SSD (peak 50 %)",
            "occupied (TB)",
            "occupied (GB)",
            "simulated time (s)",
        ] {
            assert!(texts.iter().any(|t| t == text), "{text}: {texts:?}");
        }
        assert!(
            !texts.iter().any(|t| t.starts_with("BB server 0 ")),
            "{texts:?}"
        );
    }

    /// Devices far from full get an axis that spans their data; the legend says the
    /// capacity is above it.
    #[test]
    fn capacity_off_the_axis_when_far_from_full() {
        let rows = vec![row(
            "bb-server",
            0,
            3_200_000_000_000,
            vec![(10, 200_000_000)],
        )];
        let svg = occupancy_svg("occ", &rows, 1_000_000_000);
        let texts = svg_texts(&svg);
        for text in [
            "capacity per device (3.2 TB, above the axis)",
            "occupied (MB)",
            "simulated time (ms)",
            "BB servers: 1 device",
        ] {
            assert!(texts.iter().any(|t| t == text), "{text}: {texts:?}");
        }
    }
}
