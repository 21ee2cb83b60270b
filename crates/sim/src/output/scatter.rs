//! A scatter of one value against another (for example each design's cost against its I/O
//! time) with the Pareto front marked: the points that no other point beats on both axes
//! (lower is better on both), joined by the staircase that bounds what is attainable, and
//! labelled.

use super::bars::nice_ceiling;
use super::chart::{
    axes, draw_legend, left_text, legend_rows, render, series_colour, text_at, LegendEntry,
    LABEL_FONT, LEGEND_ROW,
};
use crate::sizing::report::pareto;
use plotters::prelude::*;

/// A scatter's points and labels.
#[derive(Clone, Debug, Default)]
pub struct Scatter {
    /// Picture title.
    pub title: String,
    /// Horizontal axis title with its unit.
    pub x_axis: String,
    /// Vertical axis title with its unit.
    pub y_axis: String,
    /// (label, x, y) of every point.
    pub points: Vec<(String, f64, f64)>,
}

const WIDTH: u32 = 1000;
const PLOT_H: u32 = 520;
/// Colour of the Pareto front.
const FRONT: RGBColor = RGBColor(214, 39, 40);

impl Scatter {
    /// The indices of the points on the Pareto front, by increasing x.
    pub fn front(&self) -> Vec<usize> {
        let xy: Vec<(f64, f64)> = self.points.iter().map(|p| (p.1, p.2)).collect();
        pareto(&xy)
    }

    /// The SVG picture.
    pub fn svg(&self) -> String {
        let front = self.front();
        let legend = vec![
            LegendEntry::square(format!("{} points", self.points.len()), series_colour(0)),
            LegendEntry::line(
                format!(
                    "Pareto front ({} points: none is beaten on both axes)",
                    front.len()
                ),
                FRONT,
                false,
            ),
        ];
        let legend_h = legend_rows(&legend, WIDTH - 40) * LEGEND_ROW + 8;
        let height = 50 + legend_h + PLOT_H + 10;
        let max = |f: fn(&(String, f64, f64)) -> f64| {
            nice_ceiling(self.points.iter().map(f).fold(0.0, f64::max) * 1.05)
        };
        let (x_max, y_max) = (max(|p| p.1), max(|p| p.2));
        render(WIDTH, height, &self.title, |area| {
            let (legend_area, rest) = area.split_vertically(legend_h);
            draw_legend(&legend_area.margin(0, 0, 20, 20), &legend)?;
            let mut chart = ChartBuilder::on(&rest.margin(6, 10, 10, 30))
                .x_label_area_size(50)
                .y_label_area_size(90)
                .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
            axes(&mut chart, &self.x_axis, &self.y_axis)
                .x_labels(8)
                .y_labels(8)
                .draw()?;
            chart.draw_series(
                self.points
                    .iter()
                    .map(|p| Circle::new((p.1, p.2), 5, series_colour(0).filled())),
            )?;
            // The staircase: from each front point right to the next one's x, then down.
            let mut stairs = Vec::with_capacity(front.len() * 2 + 1);
            for (k, &i) in front.iter().enumerate() {
                let (x, y) = (self.points[i].1, self.points[i].2);
                if k > 0 {
                    stairs.push((x, stairs.last().map_or(y, |p: &(f64, f64)| p.1)));
                }
                stairs.push((x, y));
            }
            if let Some(&(_, y)) = stairs.last() {
                stairs.push((x_max, y));
            }
            chart.draw_series(LineSeries::new(stairs, FRONT.stroke_width(2)))?;
            for &i in &front {
                let p = &self.points[i];
                chart.draw_series([Circle::new((p.1, p.2), 6, FRONT.filled())])?;
                let at = chart.backend_coord(&(p.1, p.2));
                text_at(
                    &rest,
                    p.0.clone(),
                    at,
                    (9, -10),
                    left_text(LABEL_FONT - 1.0),
                )?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::chart::svg_texts;

    #[test]
    fn the_front_is_marked_and_labelled() {
        let s = Scatter {
            title: "cost against I/O time".into(),
            x_axis: "io_time_s (s)".into(),
            y_axis: "cost_total_usd (US$)".into(),
            points: vec![
                ("cheap slow".into(), 4.0, 100.0),
                ("dear fast".into(), 1.0, 300.0),
                ("beaten".into(), 5.0, 400.0),
                ("middle".into(), 2.0, 200.0),
            ],
        };
        assert_eq!(s.front(), vec![1, 3, 0]);
        let texts = svg_texts(&s.svg());
        for text in [
            "io_time_s (s)",
            "cost_total_usd (US$)",
            "Pareto front (3 points: none is beaten on both axes)",
            "dear fast",
            "cheap slow",
            "middle",
        ] {
            assert!(texts.iter().any(|t| t == text), "{text}: {texts:?}");
        }
        assert!(!texts.iter().any(|t| t == "beaten"), "{texts:?}");
    }
}
