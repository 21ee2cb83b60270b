//! `--heartbeat`: one line on stderr every so often while a run goes on, and one when it ends,
//! for runs that last hours in a batch job or a log file, where no progress bar is drawn.
//! `--quiet` silences the progress bar and per-run messages, not the heartbeat asked for.

use bbsim_engine::{Progress, Time};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `--heartbeat DURATION` option of the commands that run scenarios.
#[derive(clap::Args, Debug, Default, Clone, Copy)]
pub struct HeartbeatArg {
    /// Print a line to stderr every DURATION of wall time while a run goes on (e.g. `10min`,
    /// `30s`): simulated time reached, the lower bound of the end, events so far and their
    /// rate, and one line when the run ends. Also with `--quiet`; outputs are unchanged.
    #[arg(long, value_name = "DURATION", value_parser = parse_every)]
    pub heartbeat: Option<Duration>,
}

/// Parses a heartbeat period: a duration with a unit (`ms`, `s`, `min`, `h`; the scenario
/// files' syntax), at least one millisecond.
fn parse_every(text: &str) -> Result<Duration, String> {
    let ps = bbsim_sim::scenario::units::parse_duration(text)?;
    let d = Duration::from_nanos(ps / 1000);
    if d < Duration::from_millis(1) {
        return Err(format!(
            "`{text}`: a heartbeat period is at least 1ms of wall time"
        ));
    }
    Ok(d)
}

/// Formats a wall-clock duration as `hh:mm:ss`.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// Events per second as `1.23 M events/s`.
fn rate(events: u64, wall: Duration) -> String {
    let per_s = events as f64 / wall.as_secs_f64().max(1e-9);
    format!("{:.2} M events/s", per_s / 1e6)
}

/// The line printed while a run goes on: wall time since it started, simulated time reached
/// (`now`, ps) against the lower bound of the simulated end (`at_least`, ps) while below it,
/// events so far and their mean rate.
pub fn beat_line(label: &str, wall: Duration, now: Time, at_least: Time, events: u64) -> String {
    let bound = if now < at_least {
        format!(
            " of at least {:.6} s ({:.0} %)",
            at_least as f64 / 1e12,
            now as f64 / at_least as f64 * 100.0
        )
    } else {
        format!(", past its lower bound of {:.6} s", at_least as f64 / 1e12)
    };
    format!(
        "[{}] {label}: simulated {:.6} s{bound}, {events} events, {}",
        clock(wall),
        now as f64 / 1e12,
        rate(events, wall)
    )
}

/// The line printed when the run ends: how (`finished`, `failed: ...`), simulated time
/// (`end`, ps), events and their mean rate.
pub fn end_line(label: &str, wall: Duration, how: &str, end: Time, events: u64) -> String {
    format!(
        "[{}] {label}: {how}: simulated {:.6} s, {events} events, {}",
        clock(wall),
        end as f64 / 1e12,
        rate(events, wall)
    )
}

/// A running heartbeat: a thread that prints [`beat_line`] every period until [`Self::end`].
pub struct Heartbeat {
    label: String,
    started: Instant,
    progress: Arc<Progress>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Heartbeat {
    /// Starts the heartbeat of run `label` on its live progress `p`, every `every`;
    /// `at_least` is the lower bound of its simulated end (ps).
    pub fn start(label: &str, every: Duration, p: Arc<Progress>, at_least: Time) -> Self {
        let started = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let progress = Arc::clone(&p);
        let thread = {
            let (label, stop) = (label.to_string(), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut next = every;
                // Parked until the next beat; `halt` unparks it to end at once.
                while !stop.load(Ordering::Relaxed) {
                    let wall = started.elapsed();
                    if wall < next {
                        std::thread::park_timeout(next - wall);
                        continue;
                    }
                    eprintln!("{}", beat_line(&label, wall, p.now(), at_least, p.events()));
                    while next <= wall {
                        next += every;
                    }
                }
            })
        };
        Heartbeat {
            label: label.to_string(),
            started,
            progress,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the heartbeat and prints [`end_line`]: the run's simulated end (ps) and events
    /// where it finished, else why it failed with the time and events it had reached.
    pub fn end(mut self, outcome: Result<(Time, u64), &str>) {
        self.halt();
        let wall = self.started.elapsed();
        let line = match outcome {
            Ok((end, events)) => end_line(&self.label, wall, "finished", end, events),
            Err(why) => end_line(
                &self.label,
                wall,
                &format!("failed ({why})"),
                self.progress.now(),
                self.progress.events(),
            ),
        };
        eprintln!("{line}");
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.halt();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_simulated_time_events_and_rate() {
        let l = beat_line(
            "run-000",
            Duration::from_secs(3723),
            1_500_000_000_000,
            6_000_000_000_000,
            7_446_000_000,
        );
        assert_eq!(
            l,
            "[01:02:03] run-000: simulated 1.500000 s of at least 6.000000 s (25 %), \
             7446000000 events, 2.00 M events/s"
        );
        let past = beat_line("r", Duration::from_secs(2), 3_000_000, 2_000_000, 10);
        assert_eq!(
            past,
            "[00:00:02] r: simulated 0.000003 s, past its lower bound of 0.000002 s, 10 events, \
             0.00 M events/s"
        );
        let e = end_line(
            "q-out",
            Duration::from_millis(500),
            "finished",
            2_250_000,
            1_000,
        );
        assert_eq!(
            e,
            "[00:00:00] q-out: finished: simulated 0.000002 s, 1000 events, 0.00 M events/s"
        );
    }

    #[test]
    fn periods_need_a_unit_and_at_least_a_millisecond() {
        assert_eq!(parse_every("10min"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_every("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_every("10").unwrap_err().contains("needs a unit"));
        assert!(parse_every("10us").unwrap_err().contains("at least 1ms"));
        assert!(parse_every("0s").unwrap_err().contains("at least 1ms"));
    }
}
