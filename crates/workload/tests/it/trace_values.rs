//! Impossible values in a decoded Darshan log are refused with an error naming the module,
//! the record, the field, the value and what a trace can hold; partial data is reported.
//! Each case starts from `tests/data/sample-dxt-simple.darshan` (a PyDarshan sample log, see
//! `tests/data/README.md`) and changes one decoded value.

use bbsim_workload::darshan::{negative_times, parse_log, posix, stdio, DarshanLog};
use bbsim_workload::replay::{partial_warnings, MAX_TRACE_SECS};
use bbsim_workload::{job_from_log, reconstruct::reconstruct, LogJobOptions, ReplayError};
use std::path::Path;
use std::time::{Duration, Instant};

fn sample() -> DarshanLog {
    let name = "sample-dxt-simple.darshan";
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    parse_log(&std::fs::read(path).expect("fixture"), name).expect("parses")
}

/// The error of importing `log` (DXT replay when `dxt`, else counter reconstruction), which
/// must come within a second.
fn refused(log: &DarshanLog, dxt: bool) -> String {
    let start = Instant::now();
    let r = if dxt {
        job_from_log(log, &LogJobOptions::default())
    } else {
        reconstruct(log, &LogJobOptions::default())
    };
    assert!(start.elapsed() < Duration::from_secs(1));
    r.expect_err("refused").to_string()
}

#[test]
fn dxt_times_and_lengths_that_no_trace_holds_are_refused() {
    let base = sample();
    assert!(!base.dxt_posix.is_empty() && !base.dxt_posix[0].writes.is_empty());
    assert!(job_from_log(&base, &LogJobOptions::default()).is_ok());
    let cases: [(&str, f64, f64, i64, &str); 8] = [
        ("start", 1e300, 1e300, 8, "at most 9e6 s"),
        ("start", f64::INFINITY, f64::INFINITY, 8, "finite"),
        ("end", 0.5, f64::NAN, 8, "finite"),
        ("start", -1.0, 0.5, 8, "non-negative"),
        // 2^64 ps, the end of simulated time
        ("start", 18_446_745.0, 18_446_746.0, 8, "at most 9e6 s"),
        ("end", 2.0, 1.0, 8, "at or after its start, 2"),
        ("length", 0.0, 1.0, -4, "a byte count of 0 or more"),
        ("end", 0.0, MAX_TRACE_SECS * 1.5, 8, "at most"),
    ];
    for (field, start, end, length, expected) in cases {
        let mut log = base.clone();
        let s = &mut log.dxt_posix[0].writes[0];
        (s.start, s.end, s.length) = (start, end, length);
        let msg = refused(&log, true);
        assert!(
            msg.contains("DXT_POSIX record 0 ")
                && msg.contains(&format!("write segment 0 {field} = "))
                && msg.contains(expected),
            "{msg}"
        );
    }
}

#[test]
fn counters_that_no_trace_holds_are_refused() {
    let base = sample();
    assert!(!base.posix.is_empty());
    assert!(reconstruct(&base, &LogJobOptions::default()).is_ok());
    let mut log = base.clone();
    log.posix[0].counters[posix::BYTES_READ] = -5;
    let msg = refused(&log, false);
    assert!(
        msg.contains("POSIX record 0")
            && msg.contains("POSIX_BYTES_READ = -5: expected a count of 0 or more"),
        "{msg}"
    );
    let mut log = base.clone();
    log.posix[0].counters[posix::WRITES] = -1;
    assert!(refused(&log, false).contains("POSIX_WRITES = -1"));
    for (v, expected) in [
        (f64::NAN, "finite"),
        (f64::INFINITY, "finite"),
        (-3.0, "non-negative"),
        (1e300, "at most 9e6 s"),
    ] {
        let mut log = base.clone();
        log.posix[0].fcounters[posix::F_WRITE_START] = v;
        let msg = refused(&log, false);
        assert!(
            msg.contains("POSIX_F_WRITE_START_TIMESTAMP = ") && msg.contains(expected),
            "{msg}"
        );
    }
    let mut log = base.clone();
    log.posix[0].fcounters[posix::F_WRITE_TIME] = f64::INFINITY;
    assert!(refused(&log, false).contains("POSIX_F_WRITE_TIME = inf"));
    let mut log = base.clone();
    log.posix[0].fcounters[posix::F_READ_START] = 5.0;
    log.posix[0].fcounters[posix::F_READ_END] = 4.0;
    let msg = refused(&log, false);
    assert!(
        msg.contains(
            "POSIX_F_READ_END_TIMESTAMP = 4: expected at or after POSIX_F_READ_START_TIMESTAMP, 5"
        ),
        "{msg}"
    );
}

#[test]
fn process_counts_below_one_are_refused() {
    for nprocs in [-4, 0] {
        let mut log = sample();
        log.job.nprocs = nprocs;
        for dxt in [true, false] {
            let msg = refused(&log, dxt);
            assert_eq!(
                msg,
                format!("job record: nprocs = {nprocs}: expected at least 1 process")
            );
        }
    }
    let mut log = sample();
    log.job.nprocs = -4;
    assert_eq!(
        job_from_log(&log, &LogJobOptions::default()).unwrap_err(),
        ReplayError::BadNprocs(-4)
    );
}

#[test]
fn partial_modules_are_reported() {
    let mut log = sample();
    assert!(partial_warnings(&log).is_empty());
    let dxt = log
        .modules
        .iter_mut()
        .find(|m| m.name == "DXT_POSIX")
        .expect("DXT_POSIX module");
    dxt.partial = true;
    let w = partial_warnings(&log);
    assert_eq!(w.len(), 1);
    assert!(
        w[0].starts_with("module DXT_POSIX holds partial data"),
        "{w:?}"
    );
}

#[test]
fn negative_cumulative_times_are_reported_not_silently_zeroed() {
    let mut log = sample();
    assert!(negative_times(&log).is_empty());
    log.posix[0].fcounters[posix::F_WRITE_TIME] = -0.25;
    log.posix[0].fcounters[posix::F_READ_TIME] = -1.5;
    let rank = log.posix[0].rank;
    let found = negative_times(&log);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].counter, "POSIX_F_READ_TIME");
    assert_eq!((found[0].records, found[0].lowest), (1, -1.5));
    assert_eq!(found[1].counter, "POSIX_F_WRITE_TIME");
    assert_eq!(found[1].first, (0, rank));
    let msg = found[1].to_string();
    assert!(
        msg.contains("negative POSIX_F_WRITE_TIME")
            && msg.contains("-0.25 s")
            && msg.contains("read as unknown"),
        "{msg}"
    );
    // Still imported (real logs hold such values), with the time read as unknown.
    reconstruct(&log, &LogJobOptions::default()).expect("a negative time is not refused");
    assert_eq!(
        stdio::FCOUNTER_NAMES[stdio::F_WRITE_TIME],
        "STDIO_F_WRITE_TIME"
    );
}
