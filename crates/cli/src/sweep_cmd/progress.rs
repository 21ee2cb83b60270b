//! How a sweep reports finished points: a progress bar (points finished of the total, elapsed
//! time and an ETA) when stderr is a terminal, otherwise one line per finished point,
//! `[k/N] run-003_... done in 1.2 s`, numbered in the order the points finish.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

/// The bar's layout: finished points of the total, elapsed time, ETA, last finished point.
pub const BAR_TEMPLATE: &str = "{bar:30} {pos}/{len} points {elapsed_precise} ETA {eta} {wide_msg}";

/// Reports the points of one sweep as they finish; shared by the sweep's workers.
pub struct SweepProgress {
    /// The number of points this invocation runs.
    total: usize,
    /// Points reported so far (the counter of the next line), behind the lock that also
    /// orders the lines.
    done: Mutex<usize>,
    /// The bar, when stderr is a terminal.
    bar: Option<ProgressBar>,
    /// Nothing is printed (`--quiet`).
    quiet: bool,
}

impl SweepProgress {
    /// A reporter for `total` points: a bar if stderr is a terminal and not `quiet`.
    pub fn new(total: usize, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let pb = ProgressBar::new(total as u64);
            pb.set_style(
                ProgressStyle::with_template(BAR_TEMPLATE)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            pb.enable_steady_tick(Duration::from_millis(500));
            pb
        });
        SweepProgress {
            total,
            done: Mutex::new(0),
            bar,
            quiet,
        }
    }

    /// Reports point `dir` finished after `secs` seconds of wall time, or failed with
    /// `error`. Lines (and the bar) count points in completion order.
    pub fn finished(&self, dir: &str, secs: f64, error: Option<&str>) {
        let Ok(mut done) = self.done.lock() else {
            return;
        };
        *done += 1;
        let line = point_line(*done, self.total, dir, secs, error);
        match &self.bar {
            Some(pb) => {
                if error.is_some() {
                    pb.println(&line);
                }
                pb.set_message(dir.to_string());
                pb.set_position(*done as u64);
            }
            None if !self.quiet => eprintln!("{line}"),
            None => {}
        }
    }

    /// Prints a message above the bar (or as a line).
    pub fn note(&self, text: &str) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(pb) => pb.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(pb) = &self.bar {
            pb.finish_and_clear();
        }
    }
}

/// The line of the `k`-th of `total` finished points: `[k/total] DIR done in X s` or
/// `[k/total] DIR failed after X s: why`.
pub fn point_line(k: usize, total: usize, dir: &str, secs: f64, error: Option<&str>) -> String {
    match error {
        None => format!("[{k}/{total}] {dir} done in {secs:.1} s"),
        Some(e) => format!("[{k}/{total}] {dir} failed after {secs:.1} s: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_layout_is_valid_and_shows_counts_and_eta() {
        assert!(ProgressStyle::with_template(BAR_TEMPLATE).is_ok());
        assert!(BAR_TEMPLATE.contains("{pos}/{len}") && BAR_TEMPLATE.contains("{eta}"));
    }

    #[test]
    fn lines_name_the_point_and_its_wall_time() {
        assert_eq!(
            point_line(2, 9, "run-004_a=1", 1.25, None),
            "[2/9] run-004_a=1 done in 1.2 s"
        );
        assert_eq!(
            point_line(3, 9, "run-000", 0.04, Some("stuck")),
            "[3/9] run-000 failed after 0.0 s: stuck"
        );
    }
}
