//! `bbsim plot`: figures from files bbsim has already written.
//!
//! - `bbsim plot bars CSV --value COL --label COL,... [--group COL]`: the mean of a numeric
//!   column per label (for example a sweep's average hops per application, topology and
//!   placement) as a horizontal SVG bar chart on a value axis, with one coloured bar per
//!   value of a second varied key (`--group`).
//! - `bbsim plot pareto CSV --label COL,...`: each label's mean cost against its mean I/O
//!   time (any two columns with `--x` and `--y`), with the Pareto front marked.
//! - `bbsim plot timeline RUN_DIR`: each rank's I/O phases from a run's `timeline.csv`, on a
//!   window that starts at the run's first I/O (`--window`), each job on its own time axis.
//!
//! Tables are read with the `csv` crate (`bbsim_sim::output::readback`).

use bbsim_sim::output::bars::BarChart;
use bbsim_sim::output::chart::{column_axis_label, column_unit};
use bbsim_sim::output::plot::timeline_svg;
use bbsim_sim::output::readback::{column_means, LabelMean, MeansQuery, RunTimeline};
use bbsim_sim::output::scatter::Scatter;
use std::path::{Path, PathBuf};

/// `bbsim plot` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum PlotCommand {
    /// Bar chart of the mean of one numeric CSV column per label (rows with an empty value are
    /// skipped). Bars are ordered by the first label column, then the second, ..., each
    /// column's values in the order they first appear in the file.
    Bars(BarsArgs),
    /// Per-rank I/O phases of one run (its timeline.csv and ranks.csv), from its first I/O.
    Timeline(TimelineArgs),
    /// Scatter of one column's mean against another's per label (by default a sweep's cost
    /// against job 0's time in I/O), with the Pareto front (lower is better on both) marked.
    Pareto(ParetoArgs),
}

/// Which rows of a CSV table count and how they are labelled (`bbsim plot bars` and
/// `pareto`).
#[derive(clap::Args, Debug)]
pub struct Rows {
    /// Columns whose values, joined with " | ", label the bars or points.
    #[arg(
        long,
        value_name = "COL1,COL2,...",
        value_delimiter = ',',
        required = true
    )]
    pub label: Vec<String>,
    /// Keep only rows whose column has one of these values (repeatable; all must hold).
    #[arg(long = "where", value_name = "COLUMN=V1,V2,...")]
    pub filters: Vec<String>,
}

/// Arguments of `bbsim plot bars`.
#[derive(clap::Args, Debug)]
pub struct BarsArgs {
    /// CSV file with a header line (for example a sweep.csv).
    pub csv: PathBuf,
    /// Numeric column to plot (the mean over the rows of each label).
    #[arg(long, value_name = "COLUMN")]
    pub value: String,
    /// The labels and the rows they average.
    #[command(flatten)]
    pub rows: Rows,
    /// A column whose values get one bar each within every label, coloured, with a legend
    /// (for example the second varied key of a sweep).
    #[arg(long, value_name = "COLUMN")]
    pub group: Option<String>,
    /// Chart title (default: "<value> by <labels>").
    #[arg(long)]
    pub title: Option<String>,
    /// Unit written after each bar's value and on the value axis (default: the one the
    /// column's name ends in, such as `_s` for seconds).
    #[arg(long, default_value = "")]
    pub unit: String,
    /// Multiply every value by this factor before drawing (e.g. 1000 with `--unit ms` for
    /// values in seconds; bars are labelled with three decimals).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// What the value axis shows, in words (default: "mean <value>"); the unit is appended in
    /// parentheses.
    #[arg(long, value_name = "TEXT")]
    pub axis: Option<String>,
    /// SVG file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `bbsim plot timeline`.
#[derive(clap::Args, Debug)]
pub struct TimelineArgs {
    /// A run's output directory (holding timeline.csv and ranks.csv).
    pub run_dir: PathBuf,
    /// Title (default: the directory's name); the first I/O time is appended.
    #[arg(long)]
    pub title: Option<String>,
    /// Only the operations that start within this many seconds of the first I/O (for example
    /// the first I/O phase of applications that compute for minutes between phases).
    #[arg(long, value_name = "SECONDS")]
    pub window: Option<f64>,
    /// SVG file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of `bbsim plot pareto`.
#[derive(clap::Args, Debug)]
pub struct ParetoArgs {
    /// CSV file with a header line (for example a sweep.csv).
    pub csv: PathBuf,
    /// Column on the horizontal axis (the mean over the rows of each label).
    #[arg(long, value_name = "COLUMN", default_value = "job0_io_time_s")]
    pub x: String,
    /// Column on the vertical axis (the mean over the rows of each label).
    #[arg(long, value_name = "COLUMN", default_value = "cost_total_usd")]
    pub y: String,
    /// The labels and the rows they average.
    #[command(flatten)]
    pub rows: Rows,
    /// Chart title (default: "<y> against <x>").
    #[arg(long)]
    pub title: Option<String>,
    /// SVG file to write.
    #[arg(long)]
    pub out: PathBuf,
}

/// `bbsim plot`.
pub fn run(c: &PlotCommand) -> Result<(), String> {
    match c {
        PlotCommand::Bars(a) => bars(a),
        PlotCommand::Timeline(a) => timeline(a),
        PlotCommand::Pareto(a) => pareto(a),
    }
}

fn write_svg(out: &Path, svg: &str) -> Result<(), String> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(out, svg).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// The `--where COLUMN=V1,V2,...` filters as (column, values).
fn parse_filters(filters: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    filters
        .iter()
        .map(|f| {
            let (k, vals) = f
                .split_once('=')
                .ok_or_else(|| format!("--where {f}: expected COLUMN=V1,V2,..."))?;
            let vals: Vec<String> = vals.split(',').map(|v| v.trim().to_string()).collect();
            Ok((k.to_string(), vals))
        })
        .collect()
}

/// The mean of `value` per label (`labels` joined) over the rows of `csv` that pass
/// `filters`; error if no row has a value.
fn means(
    csv: &Path,
    value: &str,
    labels: &[String],
    filters: &[String],
) -> Result<Vec<LabelMean>, String> {
    let text =
        std::fs::read_to_string(csv).map_err(|e| format!("cannot read {}: {e}", csv.display()))?;
    let query = MeansQuery {
        value: value.to_string(),
        labels: labels.to_vec(),
        filters: parse_filters(filters)?,
    };
    let means = column_means(&text, &query, csv)?;
    if means.is_empty() {
        return Err(format!(
            "{}: no row has a value in `{value}`{}",
            csv.display(),
            if filters.is_empty() {
                String::new()
            } else {
                format!(" and matches --where {}", filters.join(" --where "))
            }
        ));
    }
    Ok(means)
}

/// `items` without repeats, in the order they first appear.
fn first_seen(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

fn bars(a: &BarsArgs) -> Result<(), String> {
    if !(a.scale.is_finite() && a.scale > 0.0) {
        return Err(format!("--scale {}: expected a positive number", a.scale));
    }
    let mut labels = a.rows.label.clone();
    labels.extend(a.group.iter().cloned());
    let means = means(&a.csv, &a.value, &labels, &a.rows.filters)?;
    // With a group column, the label is every part but the last, the group the last.
    let split = |m: &LabelMean| -> (String, String) {
        match a.group {
            Some(_) => (
                m.parts[..m.parts.len() - 1].join(" | "),
                m.parts[m.parts.len() - 1].clone(),
            ),
            None => (m.label.clone(), String::new()),
        }
    };
    let categories = first_seen(means.iter().map(|m| split(m).0));
    let groups = first_seen(means.iter().map(|m| split(m).1));
    let mut values = vec![vec![None; groups.len()]; categories.len()];
    for m in &means {
        let (c, g) = split(m);
        let ci = categories.iter().position(|x| *x == c).unwrap_or(0);
        let gi = groups.iter().position(|x| *x == g).unwrap_or(0);
        values[ci][gi] = Some(m.mean * a.scale);
    }
    // Without --unit, the column's own unit, unless --scale changed it.
    let unit = match (a.unit.as_str(), a.scale == 1.0) {
        ("", true) => column_unit(&a.value).unwrap_or("").to_string(),
        (u, _) => u.to_string(),
    };
    let axis = match (&a.axis, unit.is_empty()) {
        (Some(text), true) => text.clone(),
        (Some(text), false) => format!("{text} ({unit})"),
        (None, true) if a.scale != 1.0 => format!("mean {} x {}", a.value, a.scale),
        (None, _) => format!("mean {}", column_axis_label(&a.value, &unit)),
    };
    let title = a.title.clone().unwrap_or_else(|| {
        let by = a.rows.label.join(", ");
        match &a.group {
            Some(g) => format!("{} by {by} and {g}", a.value),
            None => format!("{} by {by}", a.value),
        }
    });
    let chart = BarChart {
        title,
        axis,
        unit,
        categories,
        groups: if a.group.is_some() {
            groups
        } else {
            Vec::new()
        },
        values,
        range: None,
    };
    write_svg(&a.out, &chart.svg())?;
    let rows: usize = means.iter().map(|b| b.rows).sum();
    println!(
        "wrote {} ({} bars from {rows} rows)",
        a.out.display(),
        means.len()
    );
    Ok(())
}

fn pareto(a: &ParetoArgs) -> Result<(), String> {
    let xs = means(&a.csv, &a.x, &a.rows.label, &a.rows.filters)?;
    let ys = means(&a.csv, &a.y, &a.rows.label, &a.rows.filters)?;
    let points: Vec<(String, f64, f64)> = xs
        .iter()
        .filter_map(|x| {
            let y = ys.iter().find(|y| y.label == x.label)?;
            Some((x.label.clone(), x.mean, y.mean))
        })
        .collect();
    if points.is_empty() {
        return Err(format!(
            "{}: no label has values in both `{}` and `{}`",
            a.csv.display(),
            a.x,
            a.y
        ));
    }
    let scatter = Scatter {
        title: a
            .title
            .clone()
            .unwrap_or_else(|| format!("{} against {}", a.y, a.x)),
        x_axis: column_axis_label(&a.x, ""),
        y_axis: column_axis_label(&a.y, ""),
        points,
    };
    write_svg(&a.out, &scatter.svg())?;
    println!(
        "wrote {} ({} points, {} on the Pareto front)",
        a.out.display(),
        scatter.points.len(),
        scatter.front().len()
    );
    Ok(())
}

fn timeline(a: &TimelineArgs) -> Result<(), String> {
    let window = match a.window {
        Some(w) if !(w.is_finite() && w > 0.0) => {
            return Err(format!(
                "--window {w}: expected a positive number of seconds"
            ))
        }
        Some(w) => Some((w * 1e12).round() as u64),
        None => None,
    };
    let run = RunTimeline::read(&a.run_dir)?;
    let t0 = run.first_io;
    let jobs = run.from_first_io(window);
    let base = a.title.clone().unwrap_or_else(|| {
        a.run_dir
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| a.run_dir.display().to_string())
    });
    let mut title = format!("{base} (from the first I/O at {:.3} s", t0 as f64 / 1e12);
    if let Some(w) = a.window {
        title.push_str(&format!(", the {w} s after it"));
    }
    title.push(')');
    write_svg(&a.out, &timeline_svg(&title, &jobs, t0))?;
    println!(
        "wrote {} ({} jobs, {} I/O operations)",
        a.out.display(),
        jobs.len(),
        jobs.iter().map(|j| j.intervals.len()).sum::<usize>()
    );
    Ok(())
}
