//! `timeline.svg`: each rank's I/O over time, one panel per job, coloured by where the I/O
//! went and which way (burst buffer, PFS, node-local SSD, read cache; writes dark, reads
//! light), with the times writes waited for room on a full device ("stall") drawn over them.
//!
//! Each panel has its own time axis, from the job's first I/O to its last, so a job whose
//! I/O is a few milliseconds of a long run is still visible: in simulated time where its
//! tick labels stay short, otherwise in time since the job's first I/O (the caption gives
//! when that was). Panels are laid out in up to
//! four columns and at most [`MAX_PANELS`] are drawn, so the picture stays bounded for many
//! jobs. Each panel is rasterised to its plot's pixels before drawing (one rectangle per run
//! of pixels of one kind in a row of ranks), so the file size is bounded by the picture's
//! resolution, not by the number of ranks or operations.

use super::chart::{
    axes, draw_legend, font, legend_rows, render, time_unit, trim_float, Area, DrawResult, IoKind,
    LegendEntry, CAPTION_FONT, LEGEND_ROW,
};
use bbsim_engine::Time;
use plotters::prelude::*;

/// One I/O busy interval of a rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoSpan {
    /// Rank within the job.
    pub rank: u32,
    /// Start (ps).
    pub start: Time,
    /// End (ps).
    pub end: Time,
    /// Where the I/O went and which way.
    pub kind: IoKind,
}

/// One job's I/O intervals, for the timeline plot.
#[derive(Clone, Debug, Default)]
pub struct JobTimeline {
    /// Job name shown as the panel title.
    pub name: String,
    /// Number of ranks (the vertical axis, rank 0 at the bottom).
    pub ranks: u32,
    /// Every I/O interval of its ranks.
    pub intervals: Vec<IoSpan>,
}

/// The most job panels drawn; later jobs are left out and the title says so.
pub const MAX_PANELS: usize = 32;

/// Renders per-rank I/O for each job, one panel per job on its own time axis. `offset` (ps)
/// is the simulated time of the intervals' time 0 (the panels name each job's first I/O in
/// simulated time).
pub fn timeline_svg(title: &str, jobs: &[JobTimeline], offset: Time) -> String {
    let shown = &jobs[..jobs.len().min(MAX_PANELS)];
    let n = shown.len().max(1);
    let cols = match n {
        1..=3 => 1,
        4..=8 => 2,
        _ => 4,
    };
    let rows = n.div_ceil(cols) as u32;
    let width: u32 = match cols {
        1 => 1000,
        2 => 1300,
        _ => 1600,
    };
    let panel_h: u32 = match (n, rows) {
        (1..=3, _) => 280,
        (_, 0..=4) => 240,
        _ => 190,
    };
    let mut kinds: Vec<IoKind> = shown
        .iter()
        .flat_map(|j| j.intervals.iter().map(|i| i.kind))
        .collect();
    kinds.sort();
    kinds.dedup();
    let legend: Vec<LegendEntry> = kinds
        .iter()
        .map(|k| LegendEntry::square(k.label(), k.colour()))
        .collect();
    let legend_h = legend_rows(&legend, width - 40).max(1) * LEGEND_ROW;
    let height = 50 + legend_h + 10 + rows * panel_h + 10;
    let title = if jobs.len() > shown.len() {
        format!("{title} (first {} of {} jobs)", shown.len(), jobs.len())
    } else {
        title.to_string()
    };
    render(width, height, &title, |area| {
        let (legend_area, rest) = area.split_vertically(legend_h + 10);
        draw_legend(&legend_area.margin(0, 0, 20, 20), &legend)?;
        let panels = rest.margin(0, 10, 0, 0).split_evenly((rows as usize, cols));
        for (job, panel) in shown.iter().zip(&panels) {
            job_panel(panel, job, offset)?;
        }
        Ok(())
    })
}

/// Draws one job's panel: ranks against time since its first I/O.
fn job_panel(area: &Area, job: &JobTimeline, offset: Time) -> DrawResult {
    let t0 = job.intervals.iter().map(|i| i.start).min().unwrap_or(0);
    let t1 = job.intervals.iter().map(|i| i.end).max().unwrap_or(t0);
    let span = t1.saturating_sub(t0).max(1);
    let (unit, div) = time_unit(span);
    // Simulated time on the axis where its tick labels stay short (under 1000 in the span's
    // unit), so that panels of one run line up; otherwise time since the job's first I/O.
    let base = offset + t0;
    let absolute = (base as f64 / div) < 1000.0;
    let x0 = if absolute { base as f64 / div } else { 0.0 };
    let caption = if job.intervals.is_empty() {
        format!("{} ({} ranks): no I/O", job.name, job.ranks)
    } else {
        let (u, d) = if base == 0 {
            ("s", 1e12)
        } else {
            time_unit(base)
        };
        format!(
            "{} ({} ranks), first I/O at {} {u}",
            job.name,
            job.ranks,
            trim_float(base as f64 / d)
        )
    };
    let ranks = job.ranks.max(1);
    let mut chart = ChartBuilder::on(&area.margin(6, 6, 10, 18))
        .caption(caption, font(CAPTION_FONT))
        .x_label_area_size(44)
        .y_label_area_size(62)
        .build_cartesian_2d(x0..x0 + span as f64 / div, -0.5..f64::from(ranks) - 0.5)?;
    let x_desc = if absolute {
        format!("simulated time ({unit})")
    } else {
        format!("time since the job's first I/O ({unit})")
    };
    axes(&mut chart, &x_desc, "rank")
        .disable_y_mesh()
        .x_labels(6)
        .y_labels(5)
        .y_label_formatter(&|v| {
            // Ranks are whole numbers; each rank's row is centred on its tick.
            if (v - v.round()).abs() < 1e-9 && *v >= 0.0 {
                format!("{}", v.round() as u64)
            } else {
                String::new()
            }
        })
        .draw()?;
    let plot = chart.plotting_area().strip_coord_spec();
    let (w, h) = plot.dim_in_pixel();
    let raster = Raster::of(job, t0, span, w as usize, (h as usize).min(ranks as usize));
    raster.draw(&plot, h)
}

/// One job's intervals rasterised to pixels: the kind drawn in each (row, pixel column),
/// ranks folded onto `rows` rows.
struct Raster {
    /// Pixel columns.
    cols: usize,
    /// Rows of ranks (rank 0's row first).
    rows: usize,
    /// `rows * cols` cells, row by row.
    grid: Vec<Option<IoKind>>,
}

impl Raster {
    /// Rasterises `job`'s intervals on a time axis from `t0` to `t0 + span` ps.
    fn of(job: &JobTimeline, t0: Time, span: Time, cols: usize, rows: usize) -> Self {
        let (cols, rows) = (cols.max(1), rows.max(1));
        let ranks = job.ranks.max(1) as usize;
        let mut grid: Vec<Option<IoKind>> = vec![None; rows * cols];
        let px = |t: Time| t.saturating_sub(t0) as f64 / span as f64 * cols as f64;
        for iv in &job.intervals {
            let row = (iv.rank as usize).min(ranks - 1) * rows / ranks;
            let x0 = (px(iv.start) as usize).min(cols - 1);
            let x1 = (px(iv.end).ceil() as usize).clamp(x0 + 1, cols);
            for cell in &mut grid[row * cols + x0..row * cols + x1] {
                // Where kinds share a pixel, the first in legend order shows.
                *cell = Some(cell.map_or(iv.kind, |k| k.min(iv.kind)));
            }
        }
        Raster { cols, rows, grid }
    }

    /// Draws the raster on `plot` (pixel coordinates, `height` px high), highest rank on top,
    /// one rectangle per run of cells of one kind.
    fn draw(&self, plot: &Area, height: u32) -> DrawResult {
        let h = height as usize;
        for row in 0..self.rows {
            let y1 = (h - row * h / self.rows) as i32;
            let y0 = (h - (row + 1) * h / self.rows) as i32;
            let cells = &self.grid[row * self.cols..(row + 1) * self.cols];
            let mut x = 0;
            while x < self.cols {
                let Some(kind) = cells[x] else {
                    x += 1;
                    continue;
                };
                let start = x;
                while x < self.cols && cells[x] == Some(kind) {
                    x += 1;
                }
                plot.draw(&Rectangle::new(
                    [(start as i32, y0), (x as i32, y1.max(y0 + 1))],
                    kind.colour().filled(),
                ))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::chart::svg_texts;

    fn job(name: &str, ranks: u32, spans: &[(u32, Time, Time, IoKind)]) -> JobTimeline {
        JobTimeline {
            name: name.into(),
            ranks,
            intervals: spans
                .iter()
                .map(|&(rank, start, end, kind)| IoSpan {
                    rank,
                    start,
                    end,
                    kind,
                })
                .collect(),
        }
    }

    #[test]
    fn timeline_is_bounded_and_well_formed() {
        let spans: Vec<(u32, Time, Time, IoKind)> = (0..30_000u32)
            .map(|r| {
                let a = u64::from(r) * 1_000_000;
                (r, a, a + 5_000_000_000, IoKind::BbWrite)
            })
            .collect();
        let svg = timeline_svg("test", &[job("GTC <big>", 30_000, &spans)], 0);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("GTC &lt;big&gt; (30000 ranks)"), "{svg}");
        assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
        assert!(svg.matches("<rect").count() > 100);
    }

    /// Each job gets its own axis: a job whose I/O lasts microseconds late in the run is
    /// drawn across its panel, in microseconds since its first I/O; a job whose I/O spans
    /// seconds from the first second on is drawn in simulated time.
    #[test]
    fn panels_have_their_own_time_axis_and_a_legend() {
        let a = job("long", 4, &[(0, 0, 2_000_000_000_000, IoKind::PfsWrite)]);
        let b = job(
            "short",
            2,
            &[
                (0, 5_000_000_000_000, 5_000_004_000_000, IoKind::BbWrite),
                (1, 5_000_000_000_000, 5_000_002_000_000, IoKind::LocalRead),
            ],
        );
        let svg = timeline_svg("t", &[a, b], 1_000_000_000_000);
        let texts = svg_texts(&svg);
        for label in [
            "simulated time (s)",
            "time since the job's first I/O (us)",
            "long (4 ranks), first I/O at 1 s",
            "short (2 ranks), first I/O at 6 s",
            "PFS write",
            "BB write",
            "node-local read",
            "rank",
        ] {
            assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
        }
        assert!(
            !texts.iter().any(|t| t == "BB read"),
            "only the kinds present"
        );
    }

    /// Many jobs stay within a bounded picture and draw at most `MAX_PANELS` panels.
    #[test]
    fn many_jobs_fit_a_bounded_picture() {
        let jobs: Vec<JobTimeline> = (0..40)
            .map(|j| job(&format!("job{j}"), 8, &[(1, 0, 1_000_000, IoKind::BbRead)]))
            .collect();
        let svg = timeline_svg("many", &jobs[..16], 0);
        let height = |svg: &str| -> u32 {
            let i = svg.find("height=\"").expect("height") + 8;
            svg[i..i + svg[i..].find('"').expect("quote")]
                .parse()
                .expect("px")
        };
        assert!(height(&svg) <= 1100, "{}", height(&svg));
        let svg = timeline_svg("many", &jobs, 0);
        let texts = svg_texts(&svg);
        assert_eq!(texts[0], "many (first 32 of 40 jobs)");
        assert!(texts.iter().any(|t| t.starts_with("job31 (8 ranks)")));
        assert!(!texts.iter().any(|t| t.starts_with("job32 ")));
        assert!(height(&svg) <= 1800, "{}", height(&svg));
    }
}
