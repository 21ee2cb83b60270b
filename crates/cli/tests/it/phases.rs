//! Per-phase I/O lengths (`io_phases` in summary.json, `job<N>_io_phases` and
//! `sweep-phases.csv` of a sweep) and the `outputs.phase_gap` key.

use std::path::Path;

use crate::common::*;

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn phases(job: &serde_json::Value) -> &Vec<serde_json::Value> {
    job["io_phases"].as_array().expect("io_phases")
}

/// One phase that is the job's whole first-to-last I/O span.
fn assert_single_phase(job: &serde_json::Value) {
    let p = phases(job);
    assert_eq!(p.len(), 1, "{job}");
    assert_eq!(p[0]["start_s"], job["io_start_s"], "{job}");
    assert_eq!(p[0]["end_s"], job["io_end_s"], "{job}");
    assert_eq!(p[0]["length_s"], job["io_phase_s"], "{job}");
    assert_eq!(p[0]["ranks"], job["ranks"], "{job}");
    assert_eq!(p[0]["time_in_io_max_s"], job["time_in_io_max_s"], "{job}");
    assert_eq!(p[0]["time_in_io_p99_s"], job["time_in_io_p99_s"], "{job}");
}

#[test]
fn multi_phase_presets_report_each_phase() {
    // tests/data/tiny-phases.toml: node-local SSDs at 1.2 GB/s with no overhead or latency.
    let out = scratch("phases");
    let s = run_scenario(&data("tiny-phases.toml"), &out, &[]);
    let jobs = s["jobs"].as_array().expect("jobs");
    let w = 1.2e9;
    // S3D: 3 phases, 100 s of computation apart; in each the 6 ranks of one node write 4 MB
    // each through its SSD: 6 x 4 MB / 1.2 GB/s = 20 ms (plus a picosecond per operation).
    let s3d = &jobs[0];
    assert_eq!(s3d["name"], "s3d");
    let p = phases(s3d);
    assert_eq!(p.len(), 3, "{s3d}");
    let closed = 6.0 * 4e6 / w;
    for (k, ph) in p.iter().enumerate() {
        let len = f(&ph["length_s"]);
        assert!(
            (len - closed).abs() < 1e-9,
            "S3D phase {k}: {len} s, not {closed}"
        );
        assert!((f(&ph["end_s"]) - f(&ph["start_s"]) - len).abs() < 1e-12);
        // The node's 6 ranks share the SSD equally and all write for the whole phase.
        assert!((f(&ph["time_in_io_max_s"]) - closed).abs() < 1e-9, "{ph}");
        // Nearest rank: with at most 100 ranks the 99th percentile is the slowest rank.
        assert_eq!(ph["time_in_io_p99_s"], ph["time_in_io_max_s"], "{ph}");
        assert_eq!(ph["ranks"], 6);
        if k > 0 {
            let idle = f(&ph["start_s"]) - f(&p[k - 1]["end_s"]);
            assert!(
                (idle - 100.0).abs() < 1e-3,
                "S3D computes 100 s between phases: {idle}"
            );
        }
    }
    assert_eq!(p[0]["start_s"], s3d["io_start_s"]);
    assert_eq!(p[2]["end_s"], s3d["io_end_s"]);
    // The per-phase times in I/O add up to the whole run's.
    let sum: f64 = p.iter().map(|ph| f(&ph["time_in_io_max_s"])).sum();
    assert!((sum - f(&s3d["time_in_io_max_s"])).abs() < 1e-9);
    // S3D's gap is found from its 20 ms bursts: 200 ms.
    assert!(
        (f(&s3d["io_phase_gap_s"]) - 10.0 * closed).abs() < 1e-8,
        "{s3d}"
    );
    // HACC: each of the 12 ranks writes its 4 MB (3.3 ms) 1-40 s after the phase's barrier,
    // seconds apart: automatically, each write or group of overlapping writes is a phase at
    // the SSD's bandwidth, and the phases hold every byte.
    let hacc = &jobs[1];
    assert_eq!(hacc["name"], "hacc");
    let p = phases(hacc);
    assert!(p.len() > 2 && p.len() <= 24, "{hacc}");
    let bytes: u64 = p
        .iter()
        .map(|ph| ph["bytes"].as_u64().expect("bytes"))
        .sum();
    assert_eq!(bytes, 12 * 8_000_000);
    for ph in p {
        assert!(f(&ph["length_s"]) >= 4e6 / w - 1e-9, "{ph}");
        assert!(f(&ph["bandwidth_Bps"]) <= w * 1.000_001, "{ph}");
    }
    let io_time: f64 = p.iter().map(|ph| f(&ph["length_s"])).sum();
    assert!((f(&hacc["io_time_s"]) - io_time).abs() < 1e-9);
    assert!((f(&hacc["effective_bandwidth"]) - 96e6 / io_time).abs() < 1.0);
    // The gap is automatic: left out of the scenario's echo.
    assert!(s["scenario"]["outputs"].get("phase_gap").is_none());
    let _ = std::fs::remove_dir_all(&out);
    // With the 60 s gap of the application's phases (longer than the delays, shorter than
    // the 100 s of computation): 2 phases; each lasts at least one rank's write and at most
    // the 39 s delay spread plus a node's 6 writes.
    let s = run_scenario(
        &data("tiny-phases.toml"),
        &out,
        &["--set", "outputs.phase_gap=60s"],
    );
    let hacc = &s["jobs"][1];
    let p = phases(hacc);
    assert_eq!(p.len(), 2, "{hacc}");
    for ph in p {
        let (len, max) = (f(&ph["length_s"]), f(&ph["time_in_io_max_s"]));
        assert!(len >= 4e6 / w && len <= 39.0 + 6.0 * 4e6 / w + 1e-6, "{ph}");
        assert!(max >= 4e6 / w - 1e-9 && max <= 6.0 * 4e6 / w + 1e-9, "{ph}");
        assert_eq!(ph["time_in_io_p99_s"], ph["time_in_io_max_s"], "{ph}");
        assert_eq!(ph["ranks"], 12);
    }
    assert!(f(&p[1]["start_s"]) - f(&p[0]["end_s"]) >= 100.0);
    // An explicit gap is echoed with the scenario.
    assert_eq!(s["scenario"]["outputs"]["phase_gap"], "60s");
    assert_eq!(f(&hacc["io_phase_gap_s"]), 60.0);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn phase_gap_splits_and_merges_as_configured() {
    // Longer than S3D's and HACC's computation: each job is one phase, its io_phase_s.
    let out = scratch("phases-merged");
    let s = run_scenario(
        &data("tiny-phases.toml"),
        &out,
        &["--set", "outputs.phase_gap=200s"],
    );
    for job in s["jobs"].as_array().expect("jobs") {
        assert_single_phase(job);
    }
    let _ = std::fs::remove_dir_all(&out);
    // Shorter than HACC's delays between ranks' writes (1-40 s, 12 ranks): more phases.
    let s = run_scenario(
        &data("tiny-phases.toml"),
        &out,
        &["--set", "outputs.phase_gap=1s"],
    );
    assert_eq!(phases(&s["jobs"][0]).len(), 3);
    assert!(phases(&s["jobs"][1]).len() > 2, "{}", s["jobs"][1]);
    let _ = std::fs::remove_dir_all(&out);

    // IOR writes, then reads after a barrier (a 2 us pause): one phase by default ...
    let nlv = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/study/node-local-validation.toml");
    let quiet = [
        "--set",
        "outputs.timeline=false",
        "--set",
        "outputs.plots=false",
    ];
    let s = run_scenario(&nlv, &out, &quiet);
    assert_single_phase(&s["jobs"][0]);
    let _ = std::fs::remove_dir_all(&out);
    // ... and the write and read phases with a 1 ns gap, each at its closed form: 6 GiB per
    // node through a 2.1 GB/s (write) or 3.2 GB/s (read) SSD (docs/study.md).
    let mut args = quiet.to_vec();
    args.extend(["--set", "outputs.phase_gap=1ns"]);
    let s = run_scenario(&nlv, &out, &args);
    let p = phases(&s["jobs"][0]);
    assert_eq!(p.len(), 2, "{}", s["jobs"][0]);
    let per_node = 6.0 * (1u64 << 30) as f64;
    for (ph, bw) in p.iter().zip([2.1e9, 3.2e9]) {
        let len = f(&ph["length_s"]);
        assert!(
            (len - per_node / bw).abs() < 1e-6,
            "{len} vs {}",
            per_node / bw
        );
        assert_eq!(ph["ranks"], 96);
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn sweep_tables_list_each_jobs_phases() {
    let out = scratch("phases-sweep");
    run_ok(&[
        "sweep",
        data("tiny-phases.toml").to_str().expect("utf-8"),
        "--vary",
        "outputs.phase_gap=1s,200s",
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let csv = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    // The per-job columns keep their names and order; the first phase's follow the count.
    assert!(
        lines[0].contains(
            ",job0_name,job0_io_phase_s,job0_time_in_io_mean_s,job0_time_in_io_max_s,\
             job0_bandwidth_Bps,job0_avg_hops,job0_nonminimal_fraction,job0_io_phases,\
             job0_phase1_time_in_io_max_s,job0_time_in_io_p99_s,\
             job0_phase1_time_in_io_p99_s,job0_io_time_s,job0_packet_hops,\
             job0_packet_nonminimal_share,job1_name,"
        ),
        "{}",
        lines[0]
    );
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let get = |i: usize, name: &str| lines[i].split(',').nth(col(name)).expect("col").to_string();
    for l in &lines[1..] {
        assert_eq!(l.split(',').count(), header.len(), "{l}");
    }
    // Each phase's row in sweep-phases.csv: (run, job) -> [(length_s, time_in_io_max_s,
    // time_in_io_p99_s)].
    let phases_csv = std::fs::read_to_string(out.join("sweep-phases.csv")).expect("phases");
    let ph: Vec<&str> = phases_csv
        .lines()
        .next()
        .expect("header")
        .split(',')
        .collect();
    let pc = |name: &str| ph.iter().position(|h| *h == name).expect(name);
    let phases = |run: &str, job: &str| -> Vec<[String; 3]> {
        phases_csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|c| c[pc("run")] == run && c[pc("job")] == job)
            .map(|c| {
                ["length_s", "time_in_io_max_s", "time_in_io_p99_s"].map(|n| c[pc(n)].to_string())
            })
            .collect()
    };
    // 1 s: S3D's 3 phases of 20 ms each.
    assert_eq!(get(1, "job0_io_phases"), "3");
    let s3d = phases("0", "0");
    assert_eq!(s3d.len(), 3);
    for p in &s3d {
        let l: f64 = p[0].parse().expect("f64");
        assert!((l - 0.02).abs() < 1e-8, "{s3d:?}");
        // 6 ranks per phase: each phase's 99th percentile is its slowest rank.
        assert_eq!(p[2], p[1]);
    }
    assert_eq!(get(1, "job0_phase1_time_in_io_max_s"), s3d[0][1]);
    assert_eq!(get(1, "job0_phase1_time_in_io_p99_s"), s3d[0][2]);
    assert_eq!(
        get(1, "job0_time_in_io_p99_s"),
        get(1, "job0_time_in_io_max_s")
    );
    let hacc: usize = get(1, "job1_io_phases").parse().expect("count");
    assert!(hacc > 2);
    assert_eq!(phases("0", "1").len(), hacc);
    // 200 s: one phase per job, the job's io_phase_s.
    for (j, job) in ["job0", "job1"].iter().enumerate() {
        assert_eq!(get(2, &format!("{job}_io_phases")), "1");
        let one = phases("1", &j.to_string());
        assert_eq!(one.len(), 1);
        assert_eq!(one[0][0], get(2, &format!("{job}_io_phase_s")));
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_bad_phase_gap_is_a_named_error() {
    let scn = data("tiny-phases.toml");
    let scn = scn.to_str().expect("utf-8");
    for (v, says) in [
        ("0s", "must be positive"),
        ("0.4ps", "must be positive"),
        ("-1s", "not negative"),
        ("1", "no unit"),
    ] {
        let set = format!("outputs.phase_gap={v}");
        for cmd in ["validate", "run"] {
            let err = run_err(&[cmd, scn, "--set", &set]);
            assert!(
                err.contains("`outputs.phase_gap`") && err.contains(says),
                "{cmd} {set}: {err}"
            );
        }
    }
    // In the file, the message names the file and line.
    let dir = scratch("phases-bad-file");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let text = std::fs::read_to_string(data("tiny-phases.toml")).expect("read");
    let bad = dir.join("bad-gap.toml");
    std::fs::write(&bad, format!("{text}\n[outputs]\nphase_gap = \"0us\"\n")).expect("write");
    let err = run_err(&["validate", bad.to_str().expect("utf-8")]);
    assert!(
        err.contains("bad-gap.toml:") && err.contains("outputs.phase_gap"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// tests/data/tiny-phases.toml's machine with one checkpointing job: 6 ranks on one node
/// write 400 MB each through its 1.2 GB/s SSD (2 s), 3 times, after 60 s of computation each.
fn checkpoint_scenario(dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let text = std::fs::read_to_string(data("tiny-phases.toml")).expect("read");
    let machine = text.split("[[jobs]]").next().expect("machine");
    let scn = dir.join("checkpoints.toml");
    let job = "[[jobs]]\nname = \"ckpt\"\nsource = \"checkpoint\"\nranks = 6\n\
               ranks_per_node = 6\nperiod = \"60s\"\nbytes_per_rank = \"400MB\"\n\
               transfer_size = \"4MB\"\ncheckpoints = 3\nallocation = \"contiguous\"\n";
    std::fs::write(&scn, format!("{machine}{job}")).expect("write");
    scn
}

#[test]
fn three_checkpoints_a_minute_apart_are_three_phases() {
    let dir = scratch("phases-checkpoints");
    let scn = checkpoint_scenario(&dir);
    let out = dir.join("out");
    let s = run_scenario(&scn, &out, &[]);
    let job = &s["jobs"][0];
    let p = phases(job);
    assert_eq!(p.len(), 3, "{job}");
    // Each checkpoint: 6 x 400 MB / 1.2 GB/s = 2 s, 2.4 GB at 1.2 GB/s.
    for (k, ph) in p.iter().enumerate() {
        let len = f(&ph["length_s"]);
        assert!((len - 2.0).abs() < 1e-6, "checkpoint {k}: {len} s");
        assert_eq!(ph["bytes"], 2_400_000_000u64, "{ph}");
        assert!((f(&ph["bandwidth_Bps"]) - 1.2e9).abs() < 1e3, "{ph}");
        assert_eq!(ph["ranks"], 6);
        if k > 0 {
            let idle = f(&ph["start_s"]) - f(&p[k - 1]["end_s"]);
            assert!((idle - 60.0).abs() < 1e-3, "60 s of computation: {idle}");
        }
    }
    // The gap was found from the 2 s bursts; the headline bandwidth is over the 6 s in I/O,
    // not the 126 s from the first write to the last.
    assert!((f(&job["io_phase_gap_s"]) - 20.0).abs() < 1e-6, "{job}");
    assert!((f(&job["io_time_s"]) - 6.0).abs() < 1e-5, "{job}");
    assert!((f(&job["io_phase_s"]) - 126.0).abs() < 1e-2, "{job}");
    assert!(
        (f(&job["effective_bandwidth"]) - 1.2e9).abs() < 1e3,
        "{job}"
    );
    // The gap is left out of the scenario's echo: automatic.
    assert!(s["scenario"]["outputs"].get("phase_gap").is_none());
    let _ = std::fs::remove_dir_all(&out);
    // An explicit gap longer than the computation merges them into one 126 s phase.
    let s = run_scenario(&scn, &out, &["--set", "outputs.phase_gap=61s"]);
    assert_single_phase(&s["jobs"][0]);
    assert_eq!(f(&s["jobs"][0]["io_phase_gap_s"]), 61.0);
    let _ = std::fs::remove_dir_all(&out);
    // The terminal table lists the three phases.
    let o = run_ok(&[
        "run",
        scn.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        table.contains("3 phases: 2.000 s at 1.20GB/s, 2.000 s at 1.20GB/s, 2.000 s at 1.20GB/s"),
        "{table}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
