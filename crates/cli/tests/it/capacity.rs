//! A run that can never finish (a burst buffer too small for what is written, nothing
//! draining it) fails with a message naming the job and the device, writes nothing, and is
//! marked failed in a sweep; a larger one runs and reports its sizing figures.

use crate::common::{bin, read_json, run_err, run_ok, scratch};

/// The built-in quickstart, shrunk to a second of wall time.
const SMALL: [&str; 10] = crate::common::SMALL_QUICKSTART;

#[test]
fn a_burst_buffer_too_small_to_finish_fails_and_writes_nothing() {
    let out = scratch("stuck-run");
    let mut args = vec![
        "run",
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
        "--set",
        "burst_buffer.ssd.capacity=1MB",
    ];
    args.extend(SMALL);
    let err = run_err(&args);
    for part in [
        "cannot finish",
        "job 'ior'",
        "BB server",
        "capacity",
        "\"none\"",
    ] {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
    assert!(!out.join("summary.json").exists(), "no output on failure");
}

#[test]
fn a_sweep_marks_the_run_that_cannot_finish_failed() {
    let out = scratch("stuck-sweep");
    let mut args = vec![
        "sweep",
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
        "--vary",
        "burst_buffer.ssd.capacity=1MB,1.6TB",
    ];
    args.extend(SMALL);
    let err = run_err(&args);
    assert!(err.contains("1 of 2 sweep runs failed"), "{err}");
    let csv = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].contains(",fullest_device_peak_pct,stalled_writes,"));
    assert!(
        rows[1].contains("failed: the run cannot finish"),
        "{}",
        rows[1]
    );
    assert!(rows[2].contains(",ok,"), "{}", rows[2]);
    // The long tables: the failure in its own column, no job rows for the failed run.
    let read = |f: &str| std::fs::read_to_string(out.join(f)).expect(f);
    let points = read("sweep-points.csv");
    let p: Vec<&str> = points.lines().collect();
    assert!(p[0].contains(",burst_buffer.ssd.capacity_bytes,status,") && p[0].ends_with(",error"));
    assert!(p[1].contains(",1000000,failed,") && p[1].contains("the run cannot finish"));
    assert!(
        p[2].contains(",1600000000000,ok,") && p[2].ends_with(','),
        "{}",
        p[2]
    );
    assert!(read("sweep-jobs.csv")
        .lines()
        .skip(1)
        .all(|l| l.starts_with("1,")));
    // Running the sweep again runs only the failed point.
    let loud: Vec<&str> = args.iter().copied().filter(|a| *a != "--quiet").collect();
    let again = bin().args(&loud).output().expect("bbsim starts");
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("[1/1] run-000_capacity=1MB failed after "),
        "{err}"
    );
}

#[test]
fn a_run_reports_its_burst_buffer_sizing() {
    let out = scratch("sizing");
    let mut args = vec!["run", "--out", out.to_str().expect("utf-8")];
    args.extend(SMALL);
    let o = run_ok(&args);
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("peak held"), "{table}");
    assert!(table.contains("fullest device: bb-server"), "{table}");
    let s = read_json(&out.join("summary.json"));
    let jobs = s["sizing"]["jobs"].as_array().expect("sizing.jobs");
    assert_eq!(jobs[0]["name"], "ior");
    // Nothing drains (policy none) and nothing fills: every byte written is held.
    let written = s["jobs"][0]["bytes_written"].as_u64().expect("bytes");
    assert!(jobs[0]["peak_bytes"].as_u64().expect("peak") >= written);
    assert_eq!(jobs[0]["drained_bytes"], 0);
    // Nothing is freed, so each server's SSDs peak at the end, together: their peaks add up
    // to the server's.
    let devices = s["devices"].as_array().expect("devices");
    for server in s["sizing"]["devices"].as_array().expect("sizing.devices") {
        let host = server["host"].as_u64().expect("host");
        let ssds: u64 = devices
            .iter()
            .filter(|d| d["kind"] == "bb-server" && d["host"].as_u64() == Some(host))
            .map(|d| d["peak_bytes"].as_u64().expect("peak_bytes"))
            .sum();
        assert_eq!(Some(ssds), server["peak_bytes"].as_u64(), "server {host}");
    }
    let occ = std::fs::read_to_string(out.join("occupancy.csv")).expect("occupancy.csv");
    assert!(occ.starts_with("kind,host,time_s,occupied_bytes,capacity_bytes,fill_pct\n"));
    assert!(out.join("occupancy.svg").exists());
    let ranks = std::fs::read_to_string(out.join("ranks.csv")).expect("ranks.csv");
    assert!(ranks
        .lines()
        .next()
        .expect("header")
        .ends_with(",time_stalled_s"));
}

#[test]
fn the_tutorial_workload_validates_with_its_machine() {
    let scn =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/tutorial/vpic.toml");
    let o = run_ok(&["validate", scn.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&o.stdout);
    for part in [
        "BB servers               4",
        "vpic                 48 ranks on 8 nodes",
    ] {
        assert!(text.contains(part), "{part:?} missing from:\n{text}");
    }
}
