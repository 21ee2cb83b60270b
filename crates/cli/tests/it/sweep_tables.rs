//! The long-form sweep tables (`sweep-points.csv`, `sweep-jobs.csv`, `sweep-phases.csv`):
//! one number or label per cell, units in the column names, and the same figures as the
//! wide `sweep.csv`, which is tidy too: no packed lists, each varied value with a unit also
//! as a number in its base unit.

use crate::common::{data, run_ok, scratch};
use std::collections::BTreeMap;
use std::path::Path;

/// A CSV without quoted cells: its header and rows as maps from column to cell.
fn table(path: &Path) -> (Vec<String>, Vec<BTreeMap<String, String>>) {
    let text = std::fs::read_to_string(path).expect("table");
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split(',')
        .map(str::to_string)
        .collect();
    let rows = lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            assert_eq!(cells.len(), header.len(), "{}: {l}", path.display());
            header
                .iter()
                .cloned()
                .zip(cells.into_iter().map(str::to_string))
                .collect()
        })
        .collect();
    (header, rows)
}

/// Columns holding labels rather than numbers.
const LABELS: [&str; 5] = ["dir", "burst_buffer.placement", "name", "status", "error"];

#[test]
fn long_tables_are_numeric_and_agree_with_sweep_csv() {
    let out = scratch("sweep-tables");
    run_ok(&[
        "sweep",
        data("tiny-phases.toml").to_str().expect("utf-8"),
        "--vary",
        "burst_buffer.placement=none,grouped",
        "--vary",
        "burst_buffer.ssd.op_overhead=0us,45us",
        "--vary",
        "burst_buffer.ssd.capacity=64GB,1TB",
        "--jobs",
        "2",
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let (wide_head, wide) = table(&out.join("sweep.csv"));
    let (points_head, points) = table(&out.join("sweep-points.csv"));
    let (jobs_head, jobs) = table(&out.join("sweep-jobs.csv"));
    let (phases_head, phases) = table(&out.join("sweep-phases.csv"));
    let lead = "run,dir,burst_buffer.placement,burst_buffer.ssd.op_overhead_s,\
                burst_buffer.ssd.capacity_bytes";
    assert!(points_head
        .join(",")
        .starts_with(&format!("{lead},status,simulated_time_s,")));
    assert!(points_head.join(",").ends_with(",stalled_writes,error"));
    assert!(jobs_head
        .join(",")
        .starts_with(&format!("{lead},job,name,ranks,nodes,")));
    assert!(phases_head
        .join(",")
        .starts_with(&format!("{lead},job,name,phase,start_s,")));
    // sweep.csv: each varied value as given, then its numeric twin; no `;` in any cell.
    assert!(wide_head.join(",").starts_with(
        "run,dir,burst_buffer.placement,burst_buffer.ssd.op_overhead,\
         burst_buffer.ssd.op_overhead_s,burst_buffer.ssd.capacity,\
         burst_buffer.ssd.capacity_bytes,status,"
    ));
    for w in &wide {
        assert!(w.values().all(|v| !v.contains(';')), "{w:?}");
        let p = &points[w["run"].parse::<usize>().expect("run")];
        for c in [
            "burst_buffer.ssd.op_overhead_s",
            "burst_buffer.ssd.capacity_bytes",
        ] {
            assert_eq!(w[c], p[c], "{c}");
        }
    }
    // Every varied column whose values carry a unit (a number, then letters) has a twin
    // named with the base unit.
    let status = wide_head
        .iter()
        .position(|c| c == "status")
        .expect("status");
    let with_unit: Vec<&String> = wide_head[2..status]
        .iter()
        .filter(|c| {
            wide.iter().any(|w| {
                w[*c].starts_with(|ch: char| ch.is_ascii_digit()) && w[*c].parse::<f64>().is_err()
            })
        })
        .collect();
    assert_eq!(with_unit.len(), 2, "{wide_head:?}");
    for c in with_unit {
        assert!(
            ["_s", "_bytes", "_Bps"]
                .iter()
                .any(|u| wide_head[2..status].contains(&format!("{c}{u}"))),
            "{c} has no numeric twin"
        );
    }
    const GIVEN: [&str; 2] = ["burst_buffer.ssd.op_overhead", "burst_buffer.ssd.capacity"];
    // Every cell is a number, empty, or one of the label columns' names (sweep.csv also the
    // varied values as given).
    for (head, rows) in [
        (&wide_head, &wide),
        (&points_head, &points),
        (&jobs_head, &jobs),
        (&phases_head, &phases),
    ] {
        let mut names = head.clone();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), head.len(), "unique column names: {head:?}");
        for r in rows.iter() {
            for (c, v) in r {
                let label = c.strip_prefix("job").and_then(|c| c.split_once('_'));
                let label = label.map_or(c.as_str(), |(_, name)| name);
                if LABELS.contains(&label) || GIVEN.contains(&c.as_str()) || v.is_empty() {
                    continue;
                }
                assert!(v.parse::<f64>().is_ok(), "{c} = {v} is not a number");
            }
        }
    }
    assert_eq!(points.len(), 8);
    assert_eq!(
        points[1]["burst_buffer.ssd.capacity_bytes"],
        "1000000000000"
    );
    assert_eq!(points[2]["burst_buffer.ssd.op_overhead_s"], "0.000045");
    for (p, w) in points.iter().zip(&wide) {
        assert_eq!((&p["run"], &p["dir"]), (&w["run"], &w["dir"]));
        for c in [
            "status",
            "simulated_time_s",
            "cost_total_usd",
            "job0_speedup_vs_pfs",
        ] {
            assert_eq!(p[c], w[c], "{c}");
        }
        assert_eq!(p["error"], "");
    }
    // One jobs row per point and job, one phases row per I/O phase, with sweep.csv's
    // figures (its first-phase columns the first phase's).
    let jobs_per_point = wide[0]
        .keys()
        .filter(|k| k.ends_with("_name") && k.starts_with("job"))
        .count();
    assert_eq!(jobs.len(), wide.len() * jobs_per_point);
    for j in &jobs {
        let w = &wide[j["run"].parse::<usize>().expect("run")];
        let col = |c: &str| format!("job{}_{c}", j["job"]);
        for c in [
            "name",
            "io_phase_s",
            "time_in_io_max_s",
            "bandwidth_Bps",
            "io_phases",
            "time_in_io_p99_s",
        ] {
            assert_eq!(j[c], w[&col(c)], "{c}");
        }
        assert_eq!(j["peak_held_bytes"], w[&col("peak_held_bytes")]);
        let mine: Vec<&BTreeMap<String, String>> = phases
            .iter()
            .filter(|p| p["run"] == j["run"] && p["job"] == j["job"])
            .collect();
        assert_eq!(mine.len().to_string(), j["io_phases"]);
        for c in ["time_in_io_max_s", "time_in_io_p99_s"] {
            let first = mine.first().map(|p| p[c].as_str()).unwrap_or("");
            assert_eq!(first, w[&col(&format!("phase1_{c}"))], "{c}");
        }
        let numbers: Vec<String> = (0..mine.len()).map(|k| k.to_string()).collect();
        assert_eq!(
            mine.iter().map(|p| p["phase"].clone()).collect::<Vec<_>>(),
            numbers
        );
    }
    assert!(
        phases.len() > jobs.len(),
        "tiny-phases has several phases per job"
    );
    let _ = std::fs::remove_dir_all(&out);
}
