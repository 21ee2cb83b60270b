//! `--heartbeat`: progress lines on stderr for long runs in batch jobs and logs.

use crate::common::{bin, data, read_json, run_err, run_ok, scratch};

/// The heartbeat lines of `stderr` that name `label`, as (simulated seconds, events) and
/// whether the line is the closing one.
fn beats(stderr: &str, label: &str) -> Vec<(String, u64, bool)> {
    stderr
        .lines()
        .filter_map(|l| l.split_once(&format!("] {label}: ")).map(|(_, rest)| rest))
        .map(|rest| {
            let closing = rest.starts_with("finished: ");
            let sim = rest
                .split("simulated ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .expect("simulated time")
                .to_string();
            let events = rest
                .split(", ")
                .find_map(|f| f.strip_suffix(" events"))
                .and_then(|n| n.parse().ok())
                .expect("event count");
            (sim, events, closing)
        })
        .collect()
}

#[test]
fn a_heartbeat_ends_with_the_runs_simulated_time_and_events_and_changes_no_output() {
    let scn = data("tiny-fattree.toml");
    let (plain, beating) = (scratch("plain"), scratch("beating"));
    for (out, extra) in [(&plain, None), (&beating, Some("1ms"))] {
        let mut args = vec![
            "run",
            scn.to_str().expect("utf-8"),
            "--quiet",
            "--out",
            out.to_str().expect("utf-8"),
        ];
        if let Some(every) = extra {
            args.extend(["--heartbeat", every]);
        }
        let o = run_ok(&args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        let b = beats(&err, "beating");
        if extra.is_none() {
            assert!(b.is_empty(), "no heartbeat unless asked: {err}");
            continue;
        }
        let s = read_json(&out.join("summary.json"));
        let events = s["run"]["events"].as_u64().expect("run.events");
        let sim = format!("{:.6}", s["simulated_time_s"].as_f64().expect("sim time"));
        let (last, periodic) = b.split_last().expect("a closing heartbeat line");
        assert_eq!(last, &(sim, events, true), "{err}");
        // Lines while the run goes on (as many as the run's length allows) count up.
        assert!(periodic.iter().all(|p| !p.2 && p.1 <= events), "{err}");
        assert!(periodic.windows(2).all(|w| w[0].1 <= w[1].1), "{err}");
    }
    for f in ["ranks.csv", "timeline.csv"] {
        assert_eq!(
            std::fs::read(plain.join(f)).expect(f),
            std::fs::read(beating.join(f)).expect(f),
            "{f} differs with a heartbeat"
        );
    }
}

#[test]
fn a_sweep_beats_for_each_run_under_its_directory_name() {
    let out = scratch("sweep");
    let o = run_ok(&[
        "sweep",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
        "--vary",
        "burst_buffer.ssd.op_overhead=0us,45us",
        "--quiet",
        "--heartbeat",
        "10min",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let csv = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let header: Vec<&str> = csv.lines().next().expect("header").split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).expect(n);
    for row in csv.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let b = beats(&err, f[col("dir")]);
        let events: u64 = f[col("events")].parse().expect("events");
        assert_eq!(b.len(), 1, "one closing line per run, none periodic: {err}");
        assert_eq!((b[0].1, b[0].2), (events, true), "{err}");
    }
}

#[test]
fn a_heartbeat_period_needs_a_unit_and_at_least_a_millisecond() {
    let scn = data("tiny-fattree.toml");
    let scn = scn.to_str().expect("utf-8");
    for (every, why) in [("10", "needs a unit"), ("5us", "at least 1ms")] {
        let err = run_err(&["run", scn, "--quiet", "--heartbeat", every]);
        assert!(err.contains("--heartbeat") && err.contains(why), "{err}");
    }
    // Refused before anything runs: no output directory appears.
    let out = scratch("refused");
    let o = bin()
        .args(["run", scn, "--heartbeat", "0s", "--out"])
        .arg(&*out)
        .output()
        .expect("bbsim starts");
    assert!(!o.status.success() && !out.exists());
}
