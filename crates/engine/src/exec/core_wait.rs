//! How long a thread has waited for a core: the kernel's run-queue delay, the time the thread
//! was ready to run while other work held every core it may use. A thread that waits on a
//! lock, a condition variable or a sleep is not ready and does not count; a thread that spins
//! does not wait either. So the delay measures exactly what a busy core costs the executors:
//! while one thread of a conservative executor waits for a core, the others soon wait for its
//! clock.
//!
//! Linux reports it per thread in `/proc/thread-self/schedstat` (second field, nanoseconds);
//! elsewhere, or where the file cannot be read, it is unknown.

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

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_reports_the_delay_of_the_calling_thread() {
        let meter = CoreWaitMeter::start();
        assert!(meter.so_far().is_some());
    }
}
