//! What every figure shares: drawing an SVG picture with `plotters` into a string, fonts,
//! the colours of I/O kinds, axis units for time and bytes, and a legend row.
//!
//! The SVG backend writes text as SVG `<text>` elements (the viewer's sans-serif font) and
//! estimates text widths from the character count, so no font file is read at build or run
//! time. Pictures depend only on their data: the same data gives byte-identical files.

use bbsim_engine::Time;
use plotters::chart::MeshStyle;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The drawing area of a picture being drawn.
pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A drawing step's error (only font layout can fail with the SVG backend).
pub(crate) type DrawResult = Result<(), Box<dyn std::error::Error + 'static>>;

/// Font sizes (plotters' units; the SVG `font-size` is 1/1.24 of these).
pub(crate) const TITLE_FONT: f64 = 22.0;
/// Panel captions.
pub(crate) const CAPTION_FONT: f64 = 17.0;
/// Axis titles.
pub(crate) const AXIS_FONT: f64 = 16.0;
/// Tick labels, legends and value labels.
pub(crate) const LABEL_FONT: f64 = 15.0;

/// Light grey of grid lines.
pub(crate) const GRID: RGBColor = RGBColor(225, 225, 225);
/// Dark grey of reference lines (capacity, Pareto front outline).
pub(crate) const INK: RGBColor = RGBColor(60, 60, 60);

/// A sans-serif font of `size`.
pub(crate) fn font(size: f64) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&BLACK)
}

/// `size` sans-serif text anchored at its left end, vertically centred.
pub(crate) fn left_text(size: f64) -> TextStyle<'static> {
    font(size).pos(Pos::new(HPos::Left, VPos::Center))
}

/// `size` sans-serif text anchored at its right end, vertically centred.
pub(crate) fn right_text(size: f64) -> TextStyle<'static> {
    font(size).pos(Pos::new(HPos::Right, VPos::Center))
}

/// A chart with numbers on both axes.
pub(crate) type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A tick label: the value with at most three decimals.
fn tick_label(v: &f64) -> String {
    trim_float(*v)
}

/// The axes of `chart` in the figures' style, titled `x_desc` and `y_desc` (none where
/// empty): grid lines at the labelled ticks only, numeric tick labels; the caller adds what
/// differs and draws.
pub(crate) fn axes<'a, 'b, 'c>(
    chart: &'c mut Chart<'a, 'b>,
    x_desc: &str,
    y_desc: &str,
) -> MeshStyle<'a, 'c, RangedCoordf64, RangedCoordf64, SVGBackend<'b>> {
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(WHITE)
        .bold_line_style(GRID)
        .x_label_formatter(&tick_label)
        .y_label_formatter(&tick_label)
        .axis_desc_style(font(AXIS_FONT))
        .label_style(font(LABEL_FONT));
    if !x_desc.is_empty() {
        mesh.x_desc(x_desc);
    }
    if !y_desc.is_empty() {
        mesh.y_desc(y_desc);
    }
    mesh
}

/// Draws a `width` x `height` px picture on a white background with `title` on top: `draw`
/// gets the area under the title. A drawing error (which the SVG backend only raises for
/// text layout) is written into the picture instead of failing the run.
pub(crate) fn render(
    width: u32,
    height: u32,
    title: &str,
    draw: impl FnOnce(&Area) -> DrawResult,
) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        let result = (|| -> DrawResult {
            root.fill(&WHITE)?;
            let body = root.titled(title, font(TITLE_FONT))?;
            draw(&body)?;
            Ok(())
        })();
        if let Err(e) = result {
            let _ = root.fill(&WHITE);
            let _ = root.draw(&Text::new(
                format!("{title}: the figure could not be drawn ({e})"),
                (10, 20),
                font(LABEL_FONT),
            ));
        }
        let _ = root.present();
    }
    svg
}

/// Where an I/O operation went and which way, for colours and legends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IoKind {
    /// A write waiting for room on a full burst-buffer device (`full_policy = "stall"`):
    /// part of a write's time, drawn over it (first in legend order).
    Stall,
    /// Write to burst-buffer servers.
    BbWrite,
    /// Read from burst-buffer servers.
    BbRead,
    /// Write that a full burst buffer sent on to the PFS (`full_policy = "spill"`).
    SpillWrite,
    /// Write to the parallel file system.
    PfsWrite,
    /// Read from the parallel file system.
    PfsRead,
    /// Write to the node-local SSD.
    LocalWrite,
    /// Read from the node-local SSD.
    LocalRead,
    /// Read served by the client's read cache.
    CacheRead,
    /// I/O whose target was not recorded (the run kept no per-operation timeline) or is
    /// not one of the above.
    Unrecorded,
}

impl IoKind {
    /// Every kind, in legend order.
    pub const ALL: [IoKind; 10] = [
        IoKind::Stall,
        IoKind::BbWrite,
        IoKind::BbRead,
        IoKind::SpillWrite,
        IoKind::PfsWrite,
        IoKind::PfsRead,
        IoKind::LocalWrite,
        IoKind::LocalRead,
        IoKind::CacheRead,
        IoKind::Unrecorded,
    ];

    /// The kind of an operation from its direction and its `timeline.csv` target
    /// (`local-ssd`, `bb:<servers>`, `bb:<servers>+pfs-spill`, `pfs`, `cache`); `None` for
    /// `none`, an operation that moved no bytes.
    pub fn of(write: bool, target: &str) -> Option<IoKind> {
        if target == "none" {
            return None;
        }
        Some(match (write, target) {
            (true, t) if t.starts_with("bb:") && t.ends_with("+pfs-spill") => IoKind::SpillWrite,
            (true, t) if t.starts_with("bb:") => IoKind::BbWrite,
            (false, t) if t.starts_with("bb:") => IoKind::BbRead,
            (true, "pfs") => IoKind::PfsWrite,
            (false, "pfs") => IoKind::PfsRead,
            (true, "local-ssd") => IoKind::LocalWrite,
            (false, "local-ssd") => IoKind::LocalRead,
            (false, "cache") => IoKind::CacheRead,
            _ => IoKind::Unrecorded,
        })
    }

    /// Its legend label.
    pub fn label(self) -> &'static str {
        match self {
            IoKind::Stall => "stall (write waiting for space)",
            IoKind::BbWrite => "BB write",
            IoKind::BbRead => "BB read",
            IoKind::SpillWrite => "BB write spilled to PFS",
            IoKind::PfsWrite => "PFS write",
            IoKind::PfsRead => "PFS read",
            IoKind::LocalWrite => "node-local write",
            IoKind::LocalRead => "node-local read",
            IoKind::CacheRead => "read-cache hit",
            IoKind::Unrecorded => "I/O (target not recorded)",
        }
    }

    /// Its colour: a hue per target (BB blue, PFS orange, node-local green, cache purple,
    /// spilled red), dark for writes and light for reads; stalls yellow.
    pub fn colour(self) -> RGBColor {
        match self {
            IoKind::Stall => RGBColor(235, 195, 0),
            IoKind::BbWrite => RGBColor(31, 100, 180),
            IoKind::BbRead => RGBColor(120, 180, 230),
            IoKind::SpillWrite => RGBColor(214, 39, 40),
            IoKind::PfsWrite => RGBColor(220, 110, 10),
            IoKind::PfsRead => RGBColor(250, 185, 110),
            IoKind::LocalWrite => RGBColor(40, 150, 70),
            IoKind::LocalRead => RGBColor(150, 215, 140),
            IoKind::CacheRead => RGBColor(130, 110, 190),
            IoKind::Unrecorded => RGBColor(110, 110, 110),
        }
    }
}

/// Colours of series that are not I/O kinds (groups of bars, devices), in order.
pub(crate) const SERIES: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// The colour of series `i`.
pub(crate) fn series_colour(i: usize) -> RGBColor {
    SERIES[i % SERIES.len()]
}

/// A time unit for an axis spanning `span` ps: the largest of s, ms, us and ns in which the
/// span is at least 1, as (symbol, ps per unit).
pub fn time_unit(span: Time) -> (&'static str, f64) {
    if span >= 1_000_000_000_000 {
        ("s", 1e12)
    } else if span >= 1_000_000_000 {
        ("ms", 1e9)
    } else if span >= 1_000_000 {
        ("us", 1e6)
    } else {
        ("ns", 1e3)
    }
}

/// A decimal byte unit for an axis reaching `max` bytes: (symbol, bytes per unit).
pub fn byte_unit(max: u64) -> (&'static str, f64) {
    [
        ("PB", 1e15),
        ("TB", 1e12),
        ("GB", 1e9),
        ("MB", 1e6),
        ("kB", 1e3),
    ]
    .into_iter()
    .find(|&(_, d)| max as f64 >= d)
    .unwrap_or(("B", 1.0))
}

/// A number for a tick or value label: at most three decimals, trailing zeros dropped.
pub fn trim_float(v: f64) -> String {
    let t = format!("{v:.3}");
    let t = t.trim_end_matches('0').trim_end_matches('.');
    if t == "-0" {
        "0".to_string()
    } else {
        t.to_string()
    }
}

/// Draws `text` on `area` at `at`, a position in the picture's own pixels (as
/// `ChartContext::backend_coord` gives) moved by `(dx, dy)`.
pub(crate) fn text_at(
    area: &Area,
    text: String,
    at: (i32, i32),
    (dx, dy): (i32, i32),
    style: TextStyle,
) -> DrawResult {
    let (bx, by) = area.get_base_pixel();
    area.draw(&Text::new(text, (at.0 - bx + dx, at.1 - by + dy), style))?;
    Ok(())
}

/// Approximate width in px of `text` at `size` (the SVG backend's own estimate).
pub(crate) fn text_width(text: &str, size: f64) -> u32 {
    (size / 1.24 / 1.24 * 0.7 * text.chars().count() as f64).round() as u32
}

/// One legend entry: a colour swatch (a filled square, or a line when `line` is set; dashed
/// when `dashed` is set too; a circle when `circle` is set, an outline when `hollow` is set
/// too) and its label.
#[derive(Clone, Debug)]
pub(crate) struct LegendEntry {
    /// The label.
    pub label: String,
    /// The swatch colour.
    pub colour: RGBColor,
    /// A line swatch instead of a square.
    pub line: bool,
    /// A dashed line swatch.
    pub dashed: bool,
    /// A circle swatch (a point marker).
    pub circle: bool,
    /// An outlined circle swatch.
    pub hollow: bool,
}

impl LegendEntry {
    /// A filled-square entry.
    pub fn square(label: impl Into<String>, colour: RGBColor) -> Self {
        LegendEntry {
            label: label.into(),
            colour,
            line: false,
            dashed: false,
            circle: false,
            hollow: false,
        }
    }

    /// A filled-circle entry (a point marker).
    pub fn dot(label: impl Into<String>, colour: RGBColor) -> Self {
        LegendEntry {
            circle: true,
            ..Self::square(label, colour)
        }
    }

    /// An outlined-circle entry (a hollow point marker).
    pub fn ring(label: impl Into<String>, colour: RGBColor) -> Self {
        LegendEntry {
            hollow: true,
            ..Self::dot(label, colour)
        }
    }

    /// A line entry.
    pub fn line(label: impl Into<String>, colour: RGBColor, dashed: bool) -> Self {
        LegendEntry {
            label: label.into(),
            colour,
            line: true,
            dashed,
            circle: false,
            hollow: false,
        }
    }
}

/// Height in px of one legend row.
pub(crate) const LEGEND_ROW: u32 = 22;

/// How many rows `entries` take in a legend `width` px wide.
pub(crate) fn legend_rows(entries: &[LegendEntry], width: u32) -> u32 {
    layout_legend(entries, width).last().map_or(0, |p| p.1 + 1)
}

/// Each entry's (x px, row) in a legend `width` px wide: entries left to right, wrapping.
fn layout_legend(entries: &[LegendEntry], width: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(entries.len());
    let (mut x, mut row) = (0u32, 0u32);
    for e in entries {
        let w = 30 + text_width(&e.label, LABEL_FONT) + 24;
        if x > 0 && x + w > width {
            x = 0;
            row += 1;
        }
        out.push((x, row));
        x += w;
    }
    out
}

/// Draws `entries` in rows across `area`, starting at its top left corner.
pub(crate) fn draw_legend(area: &Area, entries: &[LegendEntry]) -> DrawResult {
    let (width, _) = area.dim_in_pixel();
    for (e, (x, row)) in entries.iter().zip(layout_legend(entries, width)) {
        let (x, y) = (x as i32, (row * LEGEND_ROW + LEGEND_ROW / 2) as i32);
        if e.line {
            let style = e.colour.stroke_width(3);
            if e.dashed {
                for k in 0..3 {
                    area.draw(&PathElement::new(
                        vec![(x + k * 9, y), (x + k * 9 + 5, y)],
                        style,
                    ))?;
                }
            } else {
                area.draw(&PathElement::new(vec![(x, y), (x + 24, y)], style))?;
            }
        } else if e.circle {
            let style = if e.hollow {
                e.colour.stroke_width(2)
            } else {
                e.colour.filled()
            };
            area.draw(&Circle::new((x + 11, y), 6, style))?;
        } else {
            area.draw(&Rectangle::new(
                [(x + 4, y - 7), (x + 18, y + 7)],
                e.colour.filled(),
            ))?;
        }
        area.draw(&Text::new(
            e.label.clone(),
            (x + 30, y),
            left_text(LABEL_FONT),
        ))?;
    }
    Ok(())
}

/// The unit a CSV column's name ends in: `_s` seconds, `_usd` US dollars, `_pct` percent,
/// `_Bps` bytes per second, `_bytes` bytes.
pub fn column_unit(col: &str) -> Option<&'static str> {
    [
        ("_s", "s"),
        ("_usd", "US$"),
        ("_pct", "%"),
        ("_Bps", "B/s"),
        ("_bytes", "B"),
    ]
    .into_iter()
    .find(|(suffix, _)| col.ends_with(suffix))
    .map(|(_, u)| u)
}

/// An axis title for CSV column `col`: with `unit`, or else the unit its name ends in
/// ([`column_unit`]).
pub fn column_axis_label(col: &str, unit: &str) -> String {
    match (unit, column_unit(col)) {
        ("", None) => col.to_string(),
        ("", Some(u)) => format!("{col} ({u})"),
        (u, _) => format!("{col} ({u})"),
    }
}

/// The text of every SVG `<text>` element of `svg`, in document order, unescaped (for
/// checking figures: titles, axis labels, legends).
pub fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..t.find("</text>")?];
            Some(
                body.trim()
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&apos;", "'")
                    .replace("&amp;", "&"),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_keep_tick_values_readable() {
        assert_eq!(time_unit(5_000_000_000_000).0, "s");
        assert_eq!(time_unit(1_000_000_000_000).0, "s");
        assert_eq!(time_unit(999_999_999_999).0, "ms");
        assert_eq!(time_unit(2_000_000).0, "us");
        assert_eq!(time_unit(10).0, "ns");
        assert_eq!(byte_unit(3_200_000_000_000), ("TB", 1e12));
        assert_eq!(byte_unit(999), ("B", 1.0));
        assert_eq!(trim_float(4.0), "4");
        assert_eq!(trim_float(4666.6666), "4666.667");
        assert_eq!(trim_float(-0.0001), "0");
    }

    #[test]
    fn targets_map_to_kinds() {
        assert_eq!(IoKind::of(true, "bb:3+4"), Some(IoKind::BbWrite));
        assert_eq!(IoKind::of(true, "bb:3+pfs-spill"), Some(IoKind::SpillWrite));
        assert_eq!(IoKind::of(false, "bb:3"), Some(IoKind::BbRead));
        assert_eq!(IoKind::of(false, "pfs"), Some(IoKind::PfsRead));
        assert_eq!(IoKind::of(true, "local-ssd"), Some(IoKind::LocalWrite));
        assert_eq!(IoKind::of(false, "cache"), Some(IoKind::CacheRead));
        assert_eq!(IoKind::of(true, "none"), None);
        assert_eq!(IoKind::of(true, "tape"), Some(IoKind::Unrecorded));
        let colours: std::collections::BTreeSet<(u8, u8, u8)> = IoKind::ALL
            .iter()
            .map(|k| {
                let c = k.colour();
                (c.0, c.1, c.2)
            })
            .collect();
        assert_eq!(colours.len(), IoKind::ALL.len(), "one colour per kind");
    }

    #[test]
    fn axis_labels_carry_the_column_unit() {
        assert_eq!(column_axis_label("io_time_s", ""), "io_time_s (s)");
        assert_eq!(
            column_axis_label("cost_total_usd", ""),
            "cost_total_usd (US$)"
        );
        assert_eq!(column_axis_label("avg_hops", "hops"), "avg_hops (hops)");
        assert_eq!(column_axis_label("avg_hops", ""), "avg_hops");
    }

    #[test]
    fn text_is_svg_text_without_font_files() {
        let svg = render(200, 100, "a <title>", |area| {
            area.draw(&Text::new("x & y", (10, 50), font(LABEL_FONT)))?;
            Ok(())
        });
        assert!(
            svg.contains("a &lt;title&gt;") && svg.contains("x &amp; y"),
            "{svg}"
        );
        assert_eq!(svg_texts(&svg), ["a <title>", "x & y"]);
    }
}
