//! `bbsim plot`: figures from files bbsim has already written.
//!
//! - `bbsim plot bars CSV --value COL --label COL,...`: the mean of a numeric column per label
//!   (for example a sweep's average hops per application, topology and placement) as a
//!   horizontal SVG bar chart.
//! - `bbsim plot timeline RUN_DIR`: each rank's I/O phases from a run's `timeline.csv`, on a
//!   time axis that starts at the run's first I/O (the run's own `timeline.svg` starts at 0,
//!   which leaves a thin sliver when I/O follows minutes of computation).

use bbsim_sim::plot::{bar_svg, timeline_svg, JobTimeline};
use std::collections::HashMap;
use std::io::BufRead;
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

/// Splits one CSV record into fields (RFC 4180 quoting: `"a,b"`, `""` for a quote). Returns
/// `None` when a quoted field is not closed on this line.
fn split_csv(line: &str) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    cur.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' {
            quoted = true;
        } else if c == ',' {
            fields.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    if quoted {
        return None;
    }
    fields.push(cur);
    Some(fields)
}

/// Splits CSV text into records, keeping line breaks that sit inside quoted fields.
fn csv_records(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending = String::new();
    let mut start_line = 0;
    for (i, line) in text.lines().enumerate() {
        if pending.is_empty() {
            start_line = i + 1;
        } else {
            pending.push('\n');
        }
        pending.push_str(line);
        // An odd number of quotes so far means a quoted field continues on the next line.
        if pending.matches('"').count() % 2 == 0 {
            if !pending.trim().is_empty() {
                out.push((start_line, std::mem::take(&mut pending)));
            } else {
                pending.clear();
            }
        }
    }
    if !pending.is_empty() {
        out.push((start_line, pending));
    }
    out
}

fn column(header: &[String], name: &str, file: &Path) -> Result<usize, String> {
    header.iter().position(|h| h == name).ok_or_else(|| {
        format!(
            "{}: no column `{name}` (columns: {})",
            file.display(),
            header.join(", ")
        )
    })
}

fn write_svg(out: &Path, svg: &str) -> Result<(), String> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(out, svg).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// The bars of `bbsim plot bars`: (label, mean, rows averaged), in display order.
fn bar_values(a: &BarsArgs, text: &str) -> Result<Vec<(String, f64, usize)>, String> {
    let file = &a.csv;
    let mut records = csv_records(text).into_iter();
    let (_, head) = records
        .next()
        .ok_or_else(|| format!("{}: the file is empty", file.display()))?;
    let header = split_csv(&head)
        .ok_or_else(|| format!("{}:1: unterminated quoted field", file.display()))?;
    let value = column(&header, &a.value, file)?;
    let labels: Vec<usize> = a
        .label
        .iter()
        .map(|l| column(&header, l.trim(), file))
        .collect::<Result<_, _>>()?;
    let mut filters = Vec::new();
    for f in &a.filters {
        let (k, vals) = f
            .split_once('=')
            .ok_or_else(|| format!("--where {f}: expected COLUMN=V1,V2,..."))?;
        let vals: Vec<String> = vals.split(',').map(|v| v.trim().to_string()).collect();
        filters.push((column(&header, k.trim(), file)?, vals));
    }
    // Per label column, the order in which its values first appear.
    let mut first_seen: Vec<HashMap<String, usize>> = vec![HashMap::new(); labels.len()];
    let mut sums: HashMap<Vec<String>, (f64, usize)> = HashMap::new();
    for (line, rec) in records {
        let f = split_csv(&rec)
            .ok_or_else(|| format!("{}:{line}: unterminated quoted field", file.display()))?;
        let cell = |i: usize| f.get(i).map(String::as_str).unwrap_or("");
        if !filters
            .iter()
            .all(|(i, vals)| vals.iter().any(|v| v == cell(*i)))
        {
            continue;
        }
        let raw = cell(value).trim();
        if raw.is_empty() {
            continue;
        }
        let v: f64 = raw.parse().map_err(|_| {
            format!(
                "{}:{line}: column `{}`: `{raw}` is not a number",
                file.display(),
                a.value
            )
        })?;
        let key: Vec<String> = labels.iter().map(|&i| cell(i).to_string()).collect();
        for (seen, k) in first_seen.iter_mut().zip(&key) {
            let n = seen.len();
            seen.entry(k.clone()).or_insert(n);
        }
        let e = sums.entry(key).or_insert((0.0, 0));
        e.0 += v;
        e.1 += 1;
    }
    if sums.is_empty() {
        return Err(format!(
            "{}: no row has a value in `{}`{}",
            file.display(),
            a.value,
            if a.filters.is_empty() {
                String::new()
            } else {
                format!(" and matches --where {}", a.filters.join(" --where "))
            }
        ));
    }
    let mut bars: Vec<(Vec<usize>, String, f64, usize)> = sums
        .into_iter()
        .map(|(key, (sum, n))| {
            let order = key
                .iter()
                .zip(&first_seen)
                .map(|(k, seen)| seen[k])
                .collect();
            (order, key.join(" | "), sum / n as f64, n)
        })
        .collect();
    bars.sort_by(|x, y| x.0.cmp(&y.0));
    Ok(bars.into_iter().map(|(_, l, v, n)| (l, v, n)).collect())
}

fn bars(a: &BarsArgs) -> Result<(), String> {
    let text = std::fs::read_to_string(&a.csv)
        .map_err(|e| format!("cannot read {}: {e}", a.csv.display()))?;
    if !(a.scale.is_finite() && a.scale > 0.0) {
        return Err(format!("--scale {}: expected a positive number", a.scale));
    }
    let bars = bar_values(a, &text)?;
    let title = a
        .title
        .clone()
        .unwrap_or_else(|| format!("{} by {}", a.value, a.label.join(", ")));
    let rows: usize = bars.iter().map(|b| b.2).sum();
    let data: Vec<(String, f64)> = bars.into_iter().map(|(l, v, _)| (l, v * a.scale)).collect();
    write_svg(&a.out, &bar_svg(&title, &a.unit, &data))?;
    println!(
        "wrote {} ({} bars from {rows} rows)",
        a.out.display(),
        data.len()
    );
    Ok(())
}

/// Seconds with up to picosecond resolution (as bbsim writes them) to integer picoseconds.
fn seconds_to_ps(s: &str) -> Option<u64> {
    let v: f64 = s.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then(|| (v * 1e12).round() as u64)
}

/// Reads a run's per-job rank counts (ranks.csv, in job order) and I/O intervals
/// (timeline.csv); returns the jobs and the first I/O start in picoseconds.
fn read_timelines(dir: &Path) -> Result<(Vec<JobTimeline>, u64), String> {
    let mut jobs: Vec<JobTimeline> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let ranks_path = dir.join("ranks.csv");
    let ranks_text = std::fs::read_to_string(&ranks_path)
        .map_err(|e| format!("cannot read {}: {e}", ranks_path.display()))?;
    for (n, line) in ranks_text.lines().enumerate().skip(1) {
        let f = split_csv(line).ok_or_else(|| {
            format!(
                "{}:{}: unterminated quoted field",
                ranks_path.display(),
                n + 1
            )
        })?;
        let job = f.first().cloned().unwrap_or_default();
        let i = *index.entry(job.clone()).or_insert_with(|| {
            jobs.push(JobTimeline {
                name: job,
                ranks: 0,
                intervals: Vec::new(),
            });
            jobs.len() - 1
        });
        jobs[i].ranks += 1;
    }
    let tl_path = dir.join("timeline.csv");
    let file = std::fs::File::open(&tl_path).map_err(|e| {
        format!(
            "cannot read {}: {e} (was the run made with outputs.timeline = false?)",
            tl_path.display()
        )
    })?;
    let mut lines = std::io::BufReader::new(file).lines();
    let head = lines
        .next()
        .ok_or_else(|| format!("{}: the file is empty", tl_path.display()))?
        .map_err(|e| format!("cannot read {}: {e}", tl_path.display()))?;
    let header = split_csv(&head)
        .ok_or_else(|| format!("{}:1: unterminated quoted field", tl_path.display()))?;
    let col = |name: &str| column(&header, name, &tl_path);
    let (c_job, c_rank, c_start, c_end) =
        (col("job")?, col("rank")?, col("start_s")?, col("end_s")?);
    let mut t0 = u64::MAX;
    for (n, line) in lines.enumerate() {
        let line = line.map_err(|e| format!("cannot read {}: {e}", tl_path.display()))?;
        let at = || format!("{}:{}", tl_path.display(), n + 2);
        let f = split_csv(&line).ok_or_else(|| format!("{}: unterminated quoted field", at()))?;
        let get = |i: usize| f.get(i).map(String::as_str).unwrap_or("");
        let rank: u32 = get(c_rank)
            .parse()
            .map_err(|_| format!("{}: bad rank `{}`", at(), get(c_rank)))?;
        let start = seconds_to_ps(get(c_start)).ok_or_else(|| format!("{}: bad start_s", at()))?;
        let end = seconds_to_ps(get(c_end)).ok_or_else(|| format!("{}: bad end_s", at()))?;
        let job = get(c_job);
        let i = match index.get(job) {
            Some(&i) => i,
            None => {
                index.insert(job.to_string(), jobs.len());
                jobs.push(JobTimeline {
                    name: job.to_string(),
                    ranks: 0,
                    intervals: Vec::new(),
                });
                jobs.len() - 1
            }
        };
        let j = &mut jobs[i];
        j.ranks = j.ranks.max(rank + 1);
        j.intervals.push((rank, start, end.max(start)));
        t0 = t0.min(start);
    }
    if t0 == u64::MAX {
        return Err(format!("{}: no I/O operations", tl_path.display()));
    }
    Ok((jobs, t0))
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
    let (mut jobs, t0) = read_timelines(&a.run_dir)?;
    for j in &mut jobs {
        if let Some(w) = window {
            j.intervals.retain(|iv| iv.1 - t0 <= w);
        }
        for iv in &mut j.intervals {
            iv.1 -= t0;
            iv.2 -= t0;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_multiline_records() {
        assert_eq!(
            split_csv(r#"a,"b,c","d ""q""",,e"#).expect("closed"),
            vec!["a", "b,c", "d \"q\"", "", "e"]
        );
        assert!(split_csv(r#"a,"b"#).is_none());
        let r = csv_records("h1,h2\n1,\"x\ny\"\n\n2,z\n");
        assert_eq!(r.len(), 3);
        assert_eq!(r[1], (2, "1,\"x\ny\"".to_string()));
        assert_eq!(r[2].0, 5);
    }

    #[test]
    fn bars_average_per_label_in_first_seen_order() {
        let text = "app,sys,v,skip\nb,s2,1,x\na,s1,2,x\nb,s1,4,x\nb,s1,6,x\na,s1,,x\nb,s2,9,y\n";
        let a = BarsArgs {
            csv: PathBuf::from("t.csv"),
            value: "v".into(),
            label: vec!["app".into(), "sys".into()],
            filters: vec!["skip=x".into()],
            title: None,
            unit: String::new(),
            scale: 1.0,
            out: PathBuf::from("o.svg"),
        };
        let b = bar_values(&a, text).expect("bars");
        assert_eq!(
            b,
            vec![
                ("b | s2".to_string(), 1.0, 1),
                ("b | s1".to_string(), 5.0, 2),
                ("a | s1".to_string(), 2.0, 1)
            ]
        );
        let bad = BarsArgs {
            value: "nope".into(),
            ..a
        };
        let e = bar_values(&bad, text).expect_err("missing column");
        assert!(
            e.contains("no column `nope`") && e.contains("app, sys, v, skip"),
            "{e}"
        );
    }

    #[test]
    fn seconds_parse_to_picoseconds() {
        assert_eq!(seconds_to_ps("0.000210831142"), Some(210_831_142));
        assert_eq!(seconds_to_ps("900.5"), Some(900_500_000_000_000));
        assert_eq!(seconds_to_ps("-1"), None);
        assert_eq!(seconds_to_ps("x"), None);
    }
}
