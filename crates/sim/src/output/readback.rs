//! Reading bbsim's CSV outputs back, for figures made after a run (`bbsim plot`): a run's
//! per-rank I/O intervals from its `timeline.csv` and `ranks.csv`, and the mean of a column
//! per label from any CSV with a header line (such as `sweep.csv`).
//!
//! Parsing uses the `csv` crate, an RFC 4180 reader: quoted fields may hold commas, doubled
//! quotes and line breaks, and rows may have fewer cells than the header (missing cells read
//! as empty).

use super::chart::IoKind;
use super::plot::{IoSpan, JobTimeline};
use bbsim_engine::Time;
use csv::StringRecord;
use std::collections::HashMap;
use std::path::Path;

/// A CSV reader over any input: no header handling (the first record is the header),
/// rows of any length.
fn reader<R: std::io::Read>(input: R) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input)
}

/// The records of a CSV input with the line each starts on, and read errors as messages
/// naming `file` and the line. The `csv` reader counts a record's line from the end of the
/// previous record, so the lines of records that follow blank lines are only exact where
/// `text`, the whole input, is at hand to count them.
fn records<'a, R: std::io::Read + 'a>(
    input: R,
    file: &'a Path,
    text: Option<&'a [u8]>,
) -> impl Iterator<Item = Result<(u64, StringRecord), String>> + 'a {
    let line = move |p: &csv::Position| text.map_or(p.line(), |t| line_at(t, p.byte()));
    reader(input).into_records().map(move |r| {
        r.map(|rec| (rec.position().map_or(0, line), rec))
            .map_err(|e| match e.position() {
                Some(p) => format!("{}:{}: {e}", file.display(), line(p)),
                None => format!("cannot read {}: {e}", file.display()),
            })
    })
}

/// The line (from 1) of the first character at or after byte `at` of `text` that is not a
/// line break.
fn line_at(text: &[u8], at: u64) -> u64 {
    let at = (at as usize).min(text.len());
    let skipped = text[at..]
        .iter()
        .take_while(|&&b| b == b'\n' || b == b'\r')
        .filter(|&&b| b == b'\n')
        .count();
    1 + (text[..at].iter().filter(|&&b| b == b'\n').count() + skipped) as u64
}

/// The header record of a CSV input (error if the input is empty).
fn header(
    records: &mut impl Iterator<Item = Result<(u64, StringRecord), String>>,
    file: &Path,
) -> Result<Vec<String>, String> {
    let (_, head) = records
        .next()
        .ok_or_else(|| format!("{}: the file is empty", file.display()))??;
    Ok(head.iter().map(str::to_string).collect())
}

/// The index of column `name` in `header`.
fn column(header: &[String], name: &str, file: &Path) -> Result<usize, String> {
    header.iter().position(|h| h == name).ok_or_else(|| {
        format!(
            "{}: no column `{name}` (columns: {})",
            file.display(),
            header.join(", ")
        )
    })
}

/// Cell `i` of a record, empty when the record is shorter.
fn cell(rec: &StringRecord, i: usize) -> &str {
    rec.get(i).unwrap_or("")
}

/// A run's per-rank I/O as written in its output directory.
#[derive(Clone, Debug)]
pub struct RunTimeline {
    /// One entry per job in `ranks.csv`'s order, with every operation of `timeline.csv`
    /// (start and end in picoseconds of simulated time); a job found only in
    /// `timeline.csv` is added after them.
    pub jobs: Vec<JobTimeline>,
    /// The first I/O start of the run (ps).
    pub first_io: Time,
}

impl RunTimeline {
    /// Reads `ranks.csv` (the jobs and their rank counts) and `timeline.csv` (every I/O
    /// operation) of the run written in `dir`. Error if either is missing or malformed, or
    /// the run has no I/O operation.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let mut jobs = Jobs::default();
        jobs.count_ranks(&dir.join("ranks.csv"))?;
        let tl_path = dir.join("timeline.csv");
        let file = std::fs::File::open(&tl_path).map_err(|e| {
            format!(
                "cannot read {}: {e} (was the run made with outputs.timeline = false?)",
                tl_path.display()
            )
        })?;
        let first_io = jobs.add_operations(std::io::BufReader::new(file), &tl_path)?;
        Ok(RunTimeline {
            jobs: jobs.list,
            first_io,
        })
    }

    /// The jobs on a time axis that starts at the first I/O: every interval shifted by
    /// [`RunTimeline::first_io`], and with `window` (ps) only the operations that start
    /// within that long of the first I/O.
    pub fn from_first_io(mut self, window: Option<Time>) -> Vec<JobTimeline> {
        let t0 = self.first_io;
        for j in &mut self.jobs {
            if let Some(w) = window {
                j.intervals.retain(|iv| iv.start - t0 <= w);
            }
            for iv in &mut j.intervals {
                iv.start -= t0;
                iv.end -= t0;
            }
        }
        self.jobs
    }
}

/// Jobs by name, in the order they are first met.
#[derive(Default)]
struct Jobs {
    list: Vec<JobTimeline>,
    index: HashMap<String, usize>,
}

impl Jobs {
    /// The index of job `name`, added with no ranks if new.
    fn get(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.index.insert(name.to_string(), self.list.len());
        self.list.push(JobTimeline {
            name: name.to_string(),
            ranks: 0,
            intervals: Vec::new(),
        });
        self.list.len() - 1
    }

    /// Counts each job's ranks: one `ranks.csv` row per rank, the job's name first.
    fn count_ranks(&mut self, path: &Path) -> Result<(), String> {
        let text =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for rec in records(text.as_slice(), path, Some(&text)).skip(1) {
            let (_, rec) = rec?;
            let i = self.get(cell(&rec, 0));
            self.list[i].ranks += 1;
        }
        Ok(())
    }

    /// Adds every operation of a `timeline.csv` (read from `input`, named `path` in
    /// messages) to its job, with its kind from the `op` and `target` columns (not recorded
    /// where the file has none; operations that moved no bytes, target `none`, are left
    /// out); a rank beyond the job's count raises it. Returns the first I/O start (ps).
    fn add_operations<R: std::io::Read>(&mut self, input: R, path: &Path) -> Result<Time, String> {
        let mut recs = records(input, path, None);
        let header = header(&mut recs, path)?;
        let col = |name: &str| column(&header, name, path);
        let (c_job, c_rank, c_start, c_end) =
            (col("job")?, col("rank")?, col("start_s")?, col("end_s")?);
        let (c_op, c_target) = (col("op").ok(), col("target").ok());
        let mut t0 = Time::MAX;
        for rec in recs {
            let (line, rec) = rec?;
            let at = || format!("{}:{line}", path.display());
            let rank: u32 = cell(&rec, c_rank)
                .parse()
                .map_err(|_| format!("{}: bad rank `{}`", at(), cell(&rec, c_rank)))?;
            let start = seconds_to_ps(cell(&rec, c_start))
                .ok_or_else(|| format!("{}: bad start_s", at()))?;
            let end =
                seconds_to_ps(cell(&rec, c_end)).ok_or_else(|| format!("{}: bad end_s", at()))?;
            let i = self.get(cell(&rec, c_job));
            let j = &mut self.list[i];
            j.ranks = j.ranks.max(rank + 1);
            t0 = t0.min(start);
            let kind = match (c_op, c_target) {
                (Some(o), Some(t)) => IoKind::of(cell(&rec, o) == "write", cell(&rec, t)),
                _ => Some(IoKind::Unrecorded),
            };
            // Operations that moved no bytes (target `none`) are not drawn.
            if let Some(kind) = kind {
                j.intervals.push(IoSpan {
                    rank,
                    start,
                    end: end.max(start),
                    kind,
                });
            }
        }
        if t0 == Time::MAX {
            return Err(format!("{}: no I/O operations", path.display()));
        }
        Ok(t0)
    }
}

/// Seconds with up to picosecond resolution (as bbsim writes them) to integer picoseconds.
fn seconds_to_ps(s: &str) -> Option<Time> {
    let v: f64 = s.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then(|| (v * 1e12).round() as Time)
}

/// What [`column_means`] averages: a numeric column per label, over the rows that pass the
/// filters.
#[derive(Clone, Debug)]
pub struct MeansQuery {
    /// The numeric column (rows where it is empty are skipped).
    pub value: String,
    /// The columns whose values, joined with ` | `, label a mean.
    pub labels: Vec<String>,
    /// (column, accepted values): a row counts only if every such column holds one of its
    /// values.
    pub filters: Vec<(String, Vec<String>)>,
}

/// One label's mean.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelMean {
    /// The label columns' values joined with ` | `.
    pub label: String,
    /// The label columns' values, one per column.
    pub parts: Vec<String>,
    /// The mean of the value column over the label's rows.
    pub mean: f64,
    /// How many rows were averaged.
    pub rows: usize,
}

/// The mean of `q.value` per label over the rows of the CSV text `text` (named `file` in
/// messages) that pass `q.filters`, ordered by the first label column, then the second, ...,
/// each column's values in the order they first appear. Error if a column is missing, a
/// value is not a number, or no row counts.
pub fn column_means(text: &str, q: &MeansQuery, file: &Path) -> Result<Vec<LabelMean>, String> {
    let mut recs = records(text.as_bytes(), file, Some(text.as_bytes()));
    let header = header(&mut recs, file)?;
    let value = column(&header, &q.value, file)?;
    let labels: Vec<usize> = q
        .labels
        .iter()
        .map(|l| column(&header, l.trim(), file))
        .collect::<Result<_, _>>()?;
    let filters: Vec<(usize, &[String])> = q
        .filters
        .iter()
        .map(|(k, vals)| Ok((column(&header, k.trim(), file)?, vals.as_slice())))
        .collect::<Result<_, String>>()?;
    // Per label column, the order in which its values first appear.
    let mut first_seen: Vec<HashMap<String, usize>> = vec![HashMap::new(); labels.len()];
    let mut sums: HashMap<Vec<String>, (f64, usize)> = HashMap::new();
    for rec in recs {
        let (line, rec) = rec?;
        if !filters
            .iter()
            .all(|(i, vals)| vals.iter().any(|v| v == cell(&rec, *i)))
        {
            continue;
        }
        let raw = cell(&rec, value).trim();
        if raw.is_empty() {
            continue;
        }
        let v: f64 = raw.parse().map_err(|_| {
            format!(
                "{}:{line}: column `{}`: `{raw}` is not a number",
                file.display(),
                q.value
            )
        })?;
        let key: Vec<String> = labels.iter().map(|&i| cell(&rec, i).to_string()).collect();
        for (seen, k) in first_seen.iter_mut().zip(&key) {
            let n = seen.len();
            seen.entry(k.clone()).or_insert(n);
        }
        let e = sums.entry(key).or_insert((0.0, 0));
        e.0 += v;
        e.1 += 1;
    }
    let mut means: Vec<(Vec<usize>, LabelMean)> = sums
        .into_iter()
        .map(|(key, (sum, rows))| {
            let order = key
                .iter()
                .zip(&first_seen)
                .map(|(k, seen)| seen[k])
                .collect();
            let label = key.join(" | ");
            (
                order,
                LabelMean {
                    label,
                    parts: key,
                    mean: sum / rows as f64,
                    rows,
                },
            )
        })
        .collect();
    means.sort_by(|x, y| x.0.cmp(&y.0));
    Ok(means.into_iter().map(|(_, m)| m).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_and_line_breaks_read_back() {
        let text = "h1,h2,h3\n1,\"x,\"\"q\"\"\ny\"\n\n2\n";
        let recs: Vec<(u64, StringRecord)> =
            records(text.as_bytes(), Path::new("t.csv"), Some(text.as_bytes()))
                .collect::<Result<_, _>>()
                .expect("records");
        assert_eq!(recs.len(), 3);
        assert_eq!(cell(&recs[1].1, 1), "x,\"q\"\ny");
        assert_eq!(recs[1].0, 2);
        assert_eq!(
            (recs[2].0, cell(&recs[2].1, 0), cell(&recs[2].1, 2)),
            (5, "2", "")
        );
    }

    #[test]
    fn means_per_label_in_first_seen_order() {
        let text = "app,sys,v,skip\nb,s2,1,x\na,s1,2,x\nb,s1,4,x\nb,s1,6,x\na,s1,,x\nb,s2,9,y\n";
        let q = MeansQuery {
            value: "v".into(),
            labels: vec!["app".into(), "sys".into()],
            filters: vec![("skip".into(), vec!["x".into()])],
        };
        let file = Path::new("t.csv");
        let m = column_means(text, &q, file).expect("means");
        let got: Vec<(&str, f64, usize)> = m
            .iter()
            .map(|b| (b.label.as_str(), b.mean, b.rows))
            .collect();
        assert_eq!(
            got,
            vec![("b | s2", 1.0, 1), ("b | s1", 5.0, 2), ("a | s1", 2.0, 1)]
        );
        let bad = MeansQuery {
            value: "nope".into(),
            ..q
        };
        let e = column_means(text, &bad, file).expect_err("missing column");
        assert!(
            e.contains("no column `nope`") && e.contains("app, sys, v, skip"),
            "{e}"
        );
        let e = column_means("", &bad, file).expect_err("empty");
        assert!(e.contains("the file is empty"), "{e}");
    }

    #[test]
    fn timelines_read_back_per_job() {
        let mut jobs = Jobs::default();
        let text = "job,rank,node,op,file,offset,bytes,start_s,end_s,target,hops\n\
                    \"a,b\",1,0,write,f,0,1,2.000000000000,3.5,pfs,0\n\
                    c,0,1,read,f,0,1,1.5,1.25,pfs,0\n";
        let t0 = jobs
            .add_operations(text.as_bytes(), Path::new("timeline.csv"))
            .expect("read");
        assert_eq!(t0, 1_500_000_000_000);
        assert_eq!(jobs.list.len(), 2);
        assert_eq!((jobs.list[0].name.as_str(), jobs.list[0].ranks), ("a,b", 2));
        assert_eq!(
            jobs.list[0].intervals,
            vec![IoSpan {
                rank: 1,
                start: 2_000_000_000_000,
                end: 3_500_000_000_000,
                kind: IoKind::PfsWrite
            }]
        );
        // An end before the start reads as the start.
        assert_eq!(jobs.list[1].intervals[0].end, 1_500_000_000_000);
        assert_eq!(jobs.list[1].intervals[0].kind, IoKind::PfsRead);
        let e = jobs
            .add_operations(
                "job,rank,start_s,end_s\nx,r,1,2\n".as_bytes(),
                Path::new("t"),
            )
            .expect_err("bad rank");
        assert_eq!(e, "t:2: bad rank `r`");
    }

    #[test]
    fn seconds_parse_to_picoseconds() {
        assert_eq!(seconds_to_ps("0.000210831142"), Some(210_831_142));
        assert_eq!(seconds_to_ps("900.5"), Some(900_500_000_000_000));
        assert_eq!(seconds_to_ps("-1"), None);
        assert_eq!(seconds_to_ps("x"), None);
    }
}
