//! How long a thread has waited for a core: the kernel's run-queue delay, the time the thread
//! was ready to run while other work held every core it may use. A thread that waits on a
//! lock, a condition variable or a sleep is not ready and does not count; a thread that spins
//! does not wait either. So the delay measures exactly what a busy core costs the executors:
//! while one thread of a conservative executor waits for a core, the others soon wait for its
//! clock.
//!
//! Linux reports it per thread in `/proc/thread-self/schedstat` (second field, nanoseconds);
//! elsewhere, or where the file cannot be read, it is unknown.
//!
//! Before a run starts there is no wait to measure yet; [`busy_elsewhere`] counts the threads
//! of other work ready to run at that moment (Linux: `/proc/loadavg`, fourth field).

use std::time::Duration;

/// The calling thread's run-queue delay since it started, if the operating system reports it.
pub(crate) fn this_thread() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    parse_schedstat(&text)
}

/// The run-queue delay in a `schedstat` line: `<on-cpu ns> <run-queue ns> <time slices>`.
fn parse_schedstat(text: &str) -> Option<Duration> {
    let mut fields = text.split_ascii_whitespace();
    fields.next()?.parse::<u64>().ok()?;
    let waited: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_nanos(waited))
}

/// Samples of the run queue taken by [`busy_elsewhere`], and the pause between two.
const RUN_QUEUE_SAMPLES: u32 = 5;
const RUN_QUEUE_PAUSE: Duration = Duration::from_micros(200);

/// Threads of other work ready to run now, if the operating system reports it: the fewest in
/// [`RUN_QUEUE_SAMPLES`] looks over a millisecond at the machine's running threads, less the
/// calling thread. The fewest, because a kernel worker runs for microseconds while another
/// process that computes is ready at every look.
pub(crate) fn busy_elsewhere() -> Option<usize> {
    let mut fewest = usize::MAX;
    for i in 0..RUN_QUEUE_SAMPLES {
        if i > 0 {
            std::thread::sleep(RUN_QUEUE_PAUSE);
        }
        let text = std::fs::read_to_string("/proc/loadavg").ok()?;
        fewest = fewest.min(parse_loadavg_running(&text)?);
    }
    Some(fewest.saturating_sub(1))
}

/// The running threads in a `loadavg` line: `<1 min> <5 min> <15 min> <running>/<all> <pid>`.
fn parse_loadavg_running(text: &str) -> Option<usize> {
    let field = text.split_ascii_whitespace().nth(3)?;
    field.split_once('/')?.0.parse().ok()
}

/// Counts one thread's run-queue delay from the moment it is made.
pub(crate) struct CoreWaitMeter {
    start: Option<Duration>,
}

impl CoreWaitMeter {
    /// Starts counting for the calling thread.
    pub(crate) fn start() -> Self {
        CoreWaitMeter {
            start: this_thread(),
        }
    }

    /// The calling thread's delay since [`CoreWaitMeter::start`] (the same thread), if known.
    pub(crate) fn so_far(&self) -> Option<Duration> {
        let start = self.start?;
        Some(this_thread()?.saturating_sub(start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_schedstat_field_is_the_wait_in_nanoseconds() {
        assert_eq!(
            parse_schedstat("820583 94927 2\n"),
            Some(Duration::from_nanos(94_927))
        );
        assert_eq!(parse_schedstat("820583\n"), None);
        assert_eq!(parse_schedstat("x 5 1"), None);
        assert_eq!(parse_schedstat(""), None);
    }

    #[test]
    fn the_fourth_loadavg_field_counts_the_running_threads() {
        assert_eq!(
            parse_loadavg_running("2.19 2.50 2.30 3/345 25339\n"),
            Some(3)
        );
        assert_eq!(parse_loadavg_running("2.19 2.50 2.30 3 25339"), None);
        assert_eq!(parse_loadavg_running("2.19 2.50"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_reports_the_delay_of_the_calling_thread() {
        let meter = CoreWaitMeter::start();
        assert!(meter.so_far().is_some());
        assert!(busy_elsewhere().is_some());
    }
}
