//! Horizontal bar charts with a value axis: one row of bars per category, one bar per group
//! within a row (coloured by group, with a legend when there is more than one group), each
//! bar's value written after it.

use super::chart::{
    axes, draw_legend, left_text, legend_rows, render, right_text, series_colour, text_at,
    text_width, trim_float, LegendEntry, LABEL_FONT, LEGEND_ROW, TITLE_FONT,
};
use plotters::prelude::*;

/// A bar chart's data and labels.
#[derive(Clone, Debug, Default)]
pub struct BarChart {
    /// Picture title.
    pub title: String,
    /// Value axis title, with its unit (e.g. "utilisation (%)").
    pub axis: String,
    /// Unit written after each bar's value ("" for none).
    pub unit: String,
    /// Category labels, top to bottom.
    pub categories: Vec<String>,
    /// Group names (legend), in bar order within a category; one unnamed group when empty.
    pub groups: Vec<String>,
    /// `values[category][group]`; `None` where a category has no bar for a group.
    pub values: Vec<Vec<Option<f64>>>,
    /// The value axis' range; from 0 to a little past the largest value when `None`.
    pub range: Option<(f64, f64)>,
}

const PLOT_W: u32 = 560;
/// Room right of the plot for the last bar's value label.
const VALUE_ROOM: u32 = 90;

impl BarChart {
    /// The SVG picture.
    pub fn svg(&self) -> String {
        let ngroups = self.groups.len().max(1);
        let bar_px: u32 = if ngroups > 1 { 16 } else { 22 };
        let row_px = bar_px * ngroups as u32 + 10;
        let ncat = self.categories.len().max(1) as u32;
        let label_w = self
            .categories
            .iter()
            .map(|c| text_width(c, LABEL_FONT))
            .max()
            .unwrap_or(0)
            .max(60)
            + 16;
        let width =
            (label_w + PLOT_W + VALUE_ROOM + 20).max(text_width(&self.title, TITLE_FONT) + 40);
        let legend: Vec<LegendEntry> = if self.groups.len() > 1 {
            self.groups
                .iter()
                .enumerate()
                .map(|(i, g)| LegendEntry::square(g.clone(), series_colour(i)))
                .collect()
        } else {
            Vec::new()
        };
        let legend_h = legend_rows(&legend, width - 40) * LEGEND_ROW;
        let plot_h = ncat * row_px;
        let height = 50 + legend_h + 10 + plot_h + 60;
        let max = self
            .values
            .iter()
            .flatten()
            .flatten()
            .fold(0.0f64, |m, &v| m.max(v));
        let (lo, hi) = self.range.unwrap_or((0.0, nice_ceiling(max)));
        render(width, height, &self.title, |area| {
            let (legend_area, rest) = area.split_vertically(legend_h + 10);
            draw_legend(&legend_area.margin(0, 0, 20, 20), &legend)?;
            let mut chart = ChartBuilder::on(&rest)
                .margin_right(VALUE_ROOM)
                .margin_left(10)
                .x_label_area_size(50)
                .y_label_area_size(label_w)
                .build_cartesian_2d(lo..hi, 0f64..f64::from(ncat))?;
            axes(&mut chart, &self.axis, "")
                .disable_y_mesh()
                .y_labels(0)
                .x_labels(8)
                .draw()?;
            let bar_units = bar_px as f64 / row_px as f64;
            // Category c's row spans [ncat - c - 1, ncat - c] (first on top), bars from the
            // row's top, 5 px of space above and below.
            let top_of = |c: usize| f64::from(ncat) - c as f64 - 5.0 / row_px as f64;
            for (g, colour) in (0..ngroups).map(|g| (g, series_colour(g))) {
                let bars = self.values.iter().enumerate().filter_map(|(c, vs)| {
                    let v = vs.get(g).copied().flatten()?;
                    let y1 = top_of(c) - g as f64 * bar_units;
                    let y0 = y1 - bar_units * 0.9;
                    Some(Rectangle::new(
                        [(lo, y0), (v.clamp(lo, hi), y1)],
                        colour.filled(),
                    ))
                });
                chart.draw_series(bars)?;
            }
            // Category labels left of the axis, values after the bars.
            for (c, name) in self.categories.iter().enumerate() {
                let mid = f64::from(ncat) - c as f64 - 0.5;
                let at = chart.backend_coord(&(lo, mid));
                text_at(&rest, name.clone(), at, (-8, 0), right_text(LABEL_FONT))?;
            }
            for (c, vs) in self.values.iter().enumerate() {
                for (g, v) in vs.iter().enumerate() {
                    let Some(v) = v else { continue };
                    let y = top_of(c) - (g as f64 + 0.45) * bar_units;
                    let at = chart.backend_coord(&(v.clamp(lo, hi), y));
                    let text = format!("{} {}", trim_float(*v), self.unit);
                    let text = text.trim_end().to_string();
                    text_at(&rest, text, at, (4, 0), left_text(LABEL_FONT - 1.0))?;
                }
            }
            Ok(())
        })
    }
}

/// A round axis end a little above `max` (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power
/// of ten; 1 for nothing).
pub(crate) fn nice_ceiling(max: f64) -> f64 {
    if !(max.is_finite() && max > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(max.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|&v| v >= max * 1.0001)
        .unwrap_or(10.0 * mag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::chart::svg_texts;

    fn chart(groups: &[&str], values: Vec<Vec<Option<f64>>>) -> BarChart {
        BarChart {
            title: "t".into(),
            axis: "mean hops (hops)".into(),
            unit: "hops".into(),
            categories: (0..values.len()).map(|i| format!("cat {i}")).collect(),
            groups: groups.iter().map(|g| g.to_string()).collect(),
            values,
            range: None,
        }
    }

    /// Bar ends in px: the `rect` elements' widths.
    fn widths(svg: &str) -> Vec<i32> {
        svg.lines()
            .filter(|l| l.contains("<rect") && l.contains("width="))
            .filter_map(|l| {
                let i = l.find("width=\"")? + 7;
                l[i..i + l[i..].find('"')?].parse().ok()
            })
            .collect()
    }

    #[test]
    fn bars_scale_on_a_value_axis() {
        let svg = chart(&[], vec![vec![Some(2.0)], vec![Some(4.0)]]).svg();
        let texts = svg_texts(&svg);
        for t in [
            "cat 0",
            "cat 1",
            "2 hops",
            "4 hops",
            "mean hops (hops)",
            "0",
            "5",
        ] {
            assert!(texts.iter().any(|x| x == t), "{t}: {texts:?}");
        }
        // Axis to 5: the bars are 2/5 and 4/5 of the plot wide.
        let w = widths(&svg);
        let (a, b) = (w[w.len() - 2], w[w.len() - 1]);
        assert!((b - 2 * a).abs() <= 1, "{w:?}");
        assert_eq!(nice_ceiling(4.0), 5.0);
        assert_eq!(nice_ceiling(100.0), 120.0);
        assert_eq!(nice_ceiling(5.25), 6.0);
        assert_eq!(nice_ceiling(0.0), 1.0);
    }

    #[test]
    fn groups_get_a_legend_and_their_own_colours() {
        let svg = chart(
            &["grouped", "global"],
            vec![vec![Some(1.0), Some(3.0)], vec![None, Some(2.0)]],
        )
        .svg();
        let texts = svg_texts(&svg);
        assert!(texts.contains(&"grouped".to_string()), "{texts:?}");
        assert!(texts.contains(&"global".to_string()), "{texts:?}");
        assert!(svg.contains("#1F77B4") && svg.contains("#FF7F0E"), "{svg}");
        assert_eq!(texts.iter().filter(|t| t.ends_with(" hops")).count(), 3);
    }
}
