//! The files of `bbsim size`: `sizing.csv` (one row per design run) and `sizing.svg` (cost
//! against the first target's metric, with the Pareto front and the chosen design).

use super::metrics::{fmt_value, Target};
use super::{Dim, Tried};
use crate::output::bars::nice_ceiling;
use crate::output::chart::{
    axes, draw_legend, left_text, legend_rows, render, right_text, text_at, trim_float,
    LegendEntry, CAPTION_FONT, LABEL_FONT, LEGEND_ROW,
};
use crate::output::report::csv_field;
use plotters::prelude::*;
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

const WIDTH: u32 = 1000;
const PLOT_H: u32 = 520;
/// Height in px of the line naming the chosen design.
const CHOSEN_H: u32 = 28;
/// Colour of the designs.
const DESIGN: RGBColor = RGBColor(31, 119, 180);
/// Colour of the Pareto front.
const FRONT: RGBColor = RGBColor(44, 160, 44);
/// Colour of the target and the chosen design.
const CHOSEN: RGBColor = RGBColor(214, 39, 40);

/// `sizing.svg`: every design run with a value of the first target's metric, cost (US$)
/// against that metric (bytes in GB); feasible designs filled, infeasible hollow, the Pareto
/// front of (metric, cost) as a line, the target as a dashed vertical line, and the chosen
/// design circled, labelled and named above the plot. `labels` are the designs' short
/// labels.
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
    let x_max = nice_ceiling(pts.iter().map(|p| p.1).fold(limit, f64::max) * 1.05);
    let y_max = nice_ceiling(pts.iter().map(|p| p.2).fold(0.0, f64::max) * 1.05);
    let xy: Vec<(f64, f64)> = pts.iter().map(|p| (p.1, p.2)).collect();
    let front = pareto(&xy);
    let chosen = chosen.and_then(|c| pts.iter().find(|p| p.0 == c)).copied();
    let chosen_line = chosen.map(|(i, x, _)| {
        format!(
            "chosen: {} ({}, {} {unit_label})",
            labels[i],
            dollars_exact(tried[i].cost),
            fmt_value(x)
        )
    });
    let legend = vec![
        LegendEntry::dot("meets every target", DESIGN),
        LegendEntry::ring("misses a target", DESIGN),
        LegendEntry::line("Pareto front", FRONT, false),
        LegendEntry::line(format!("target {}", target.label(jobs)), CHOSEN, true),
        LegendEntry::ring("chosen", CHOSEN),
    ];
    let legend_h = legend_rows(&legend, WIDTH - 40) * LEGEND_ROW + 8;
    let chosen_h = if chosen_line.is_some() { CHOSEN_H } else { 0 };
    let height = 50 + legend_h + chosen_h + PLOT_H + 10;
    let x_desc = format!("{} ({unit_label})", target.column_name(jobs));
    let dollar_label = |v: &f64| dollars(*v);
    render(WIDTH, height, title, |area| {
        let (legend_area, rest) = area.split_vertically(legend_h);
        draw_legend(&legend_area.margin(0, 0, 20, 20), &legend)?;
        let (line_area, rest) = rest.split_vertically(chosen_h);
        if let Some(line) = &chosen_line {
            line_area.draw(&Text::new(
                line.clone(),
                (20, (CHOSEN_H / 2) as i32),
                left_text(CAPTION_FONT).color(&CHOSEN),
            ))?;
        }
        let mut chart = ChartBuilder::on(&rest.margin(6, 10, 10, 30))
            .x_label_area_size(50)
            .y_label_area_size(90)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
        axes(&mut chart, &x_desc, "total cost (US$)")
            .x_labels(8)
            .y_labels(8)
            .y_label_formatter(&dollar_label)
            .draw()?;
        chart.draw_series(DashedLineSeries::new(
            [(limit, 0.0), (limit, y_max)],
            8,
            5,
            CHOSEN.stroke_width(2),
        ))?;
        if front.len() > 1 {
            chart.draw_series(LineSeries::new(
                front.iter().map(|&i| xy[i]),
                FRONT.stroke_width(2),
            ))?;
        }
        chart.draw_series(pts.iter().map(|&(i, x, y)| {
            let style = if tried[i].verdict.feasible {
                DESIGN.filled()
            } else {
                DESIGN.stroke_width(2)
            };
            Circle::new((x, y), 5, style)
        }))?;
        if let Some((_, x, y)) = chosen {
            chart.draw_series([Circle::new((x, y), 11, CHOSEN.stroke_width(3))])?;
            let at = chart.backend_coord(&(x, y));
            let (style, dx) = if x > x_max * 0.6 {
                (right_text(LABEL_FONT), -16)
            } else {
                (left_text(LABEL_FONT), 16)
            };
            text_at(&rest, "chosen".into(), at, (dx, -16), style.color(&CHOSEN))?;
        }
        Ok(())
    })
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
