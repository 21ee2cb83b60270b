//! `bbsim plot`: figures from files bbsim has already written.
//!
//! - `bbsim plot bars CSV --value COL --label COL,...`: the mean of a numeric column per label
//!   (for example a sweep's average hops per application, topology and placement) as a
//!   horizontal SVG bar chart.
//! - `bbsim plot timeline RUN_DIR`: each rank's I/O phases from a run's `timeline.csv`, on a
//!   time axis that starts at the run's first I/O (the run's own `timeline.svg` starts at 0,
//!   which leaves a thin sliver when I/O follows minutes of computation).

use bbsim_sim::output::plot::{bar_svg, timeline_svg};
use bbsim_sim::output::readback::{column_means, MeansQuery, RunTimeline};
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
}

/// Arguments of `bbsim plot bars`.
#[derive(clap::Args, Debug)]
pub struct BarsArgs {
    /// CSV file with a header line (for example a sweep.csv).
    pub csv: PathBuf,
    /// Numeric column to plot (the mean over the rows of each label).
    #[arg(long, value_name = "COLUMN")]
    pub value: String,
    /// Columns whose values, joined with " | ", label the bars.
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
    /// Chart title (default: "<value> by <labels>").
    #[arg(long)]
    pub title: Option<String>,
    /// Unit written after each bar's value.
    #[arg(long, default_value = "")]
    pub unit: String,
    /// Multiply every value by this factor before drawing (e.g. 1000 with `--unit ms` for
    /// values in seconds; bars are labelled with three decimals).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
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

/// `bbsim plot`.
pub fn run(c: &PlotCommand) -> Result<(), String> {
    match c {
        PlotCommand::Bars(a) => bars(a),
        PlotCommand::Timeline(a) => timeline(a),
    }
}

fn write_svg(out: &Path, svg: &str) -> Result<(), String> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(out, svg).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// The query of `bbsim plot bars`: its value, label and `--where` columns.
fn means_query(a: &BarsArgs) -> Result<MeansQuery, String> {
    let filters = a
        .filters
        .iter()
        .map(|f| {
            let (k, vals) = f
                .split_once('=')
                .ok_or_else(|| format!("--where {f}: expected COLUMN=V1,V2,..."))?;
            let vals: Vec<String> = vals.split(',').map(|v| v.trim().to_string()).collect();
            Ok((k.to_string(), vals))
        })
        .collect::<Result<_, String>>()?;
    Ok(MeansQuery {
        value: a.value.clone(),
        labels: a.label.clone(),
        filters,
    })
}

fn bars(a: &BarsArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&a.csv)
        .map_err(|e| format!("cannot read {}: {e}", a.csv.display()))?;
    if !(a.scale.is_finite() && a.scale > 0.0) {
        return Err(format!("--scale {}: expected a positive number", a.scale));
    }
    let bars = column_means(&text, &means_query(a)?, &a.csv)?;
    if bars.is_empty() {
        return Err(format!(
            "{}: no row has a value in `{}`{}",
            a.csv.display(),
            a.value,
            if a.filters.is_empty() {
                String::new()
            } else {
                format!(" and matches --where {}", a.filters.join(" --where "))
            }
        ));
    }
    let title = a
        .title
        .clone()
        .unwrap_or_else(|| format!("{} by {}", a.value, a.label.join(", ")));
    let rows: usize = bars.iter().map(|b| b.rows).sum();
    let data: Vec<(String, f64)> = bars
        .into_iter()
        .map(|b| (b.label, b.mean * a.scale))
        .collect();
    write_svg(&a.out, &bar_svg(&title, &a.unit, &data))?;
    println!(
        "wrote {} ({} bars from {rows} rows)",
        a.out.display(),
        data.len()
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
        title.push_str(&format!(", first {w} s"));
    }
    title.push(')');
    write_svg(&a.out, &timeline_svg(&title, &jobs))?;
    println!(
        "wrote {} ({} jobs, {} I/O operations)",
        a.out.display(),
        jobs.len(),
        jobs.iter().map(|j| j.intervals.len()).sum::<usize>()
    );
    Ok(())
}
