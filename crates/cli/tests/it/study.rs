//! The placement study's inputs stay runnable: every `scenarios/study/*.toml` validates, the
//! three placements of each system have the same aggregate BB bandwidth, and
//! `study/reproduce-study.sh` runs one mix end to end at smoke scale.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::common::*;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Fails the test with the command's stderr unless it exited successfully.
fn assert_ok(done: &std::process::Output) {
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// Runs `study/reproduce-study.sh OUT` at smoke scale on the Summit-like system with this
/// build's bbsim and the given `STUDY_*` settings; fails the test if the script fails.
fn smoke_study(out: &Path, env: &[(&str, &str)]) {
    let mut c = std::process::Command::new("bash");
    c.arg(repo().join("study/reproduce-study.sh"))
        .arg(out)
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .env("STUDY_SCALE", "smoke")
        .env("STUDY_SYSTEMS", "summit");
    for (k, v) in env {
        c.env(k, v);
    }
    let done = c.output().expect("bash runs the script");
    assert!(
        done.status.success(),
        "reproduce-study.sh failed:\n{}\n{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
}

/// The eleven workload mixes of the study's Table III.
const MIXES: [&str; 11] = [
    "gtc",
    "gtc-ior",
    "gtc-s3d",
    "gtc-s3d-hacc",
    "hacc",
    "hacc-ior",
    "lammps",
    "lammps-ior",
    "s3d",
    "s3d-ior",
    "s3d-lammps",
];

/// The study's rank counts and bytes per rank (Table II), as `bbsim validate` prints them.
const APPS: [(&str, &str, &str); 5] = [
    ("gtc", "7680 ranks on 1280 nodes", "writes 5.140TB"),
    ("lammps", "21600 ranks on 3600 nodes", "writes 427.248GB"),
    ("s3d", "6000 ranks on 1000 nodes", "writes 926.940GB"),
    ("hacc", "8192 ranks on 1366 nodes", "writes 3.165TB"),
    ("ior", "768 ranks on 128 nodes", "writes 824.634GB"),
];

#[test]
fn every_study_scenario_validates_with_the_study_s_applications() {
    let dir = repo().join("scenarios/study");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("scenarios/study")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for mix in MIXES {
        assert!(
            files.iter().any(|f| f.ends_with(format!("{mix}.toml"))),
            "scenarios/study/{mix}.toml is missing"
        );
    }
    for f in &files {
        let out = run_ok(&["validate", f.to_str().expect("utf-8")]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(text.contains(": valid"), "{}: {text}", f.display());
        let stem = f.file_stem().and_then(|s| s.to_str()).expect("name");
        if !MIXES.contains(&stem) {
            continue;
        }
        for app in stem.split('-') {
            let (_, ranks, bytes) = APPS.iter().find(|(a, ..)| *a == app).expect("known app");
            assert!(
                text.lines().any(|l| l.trim_start().starts_with(app)
                    && l.contains(ranks)
                    && l.contains(bytes)),
                "{stem}: {app} should have {ranks} and {bytes}:\n{text}"
            );
        }
    }
}

fn bb_bandwidth(file: &str) -> (f64, f64) {
    let f = repo().join("scenarios").join(file);
    let out = run_ok(&["validate", f.to_str().expect("utf-8"), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    (
        v["bb_write_bandwidth"].as_f64().expect("write"),
        v["bb_read_bandwidth"].as_f64().expect("read"),
    )
}

#[test]
fn placements_have_equal_aggregate_bb_bandwidth() {
    for system in ["summit", "summit-tapered", "edison"] {
        let bw: Vec<(f64, f64)> = ["node-local", "grouped", "global"]
            .iter()
            .map(|p| bb_bandwidth(&format!("{system}-{p}.toml")))
            .collect();
        for (w, r) in &bw[1..] {
            let (w0, r0) = bw[0];
            assert!(
                (w / w0 - 1.0).abs() < 0.01 && (r / r0 - 1.0).abs() < 0.01,
                "{system}: {bw:?}"
            );
        }
    }
}

/// The script passes its network and SSD model settings and its VC buffer to every run, and
/// rejects unknown ones.
#[test]
fn reproduce_script_passes_the_model_settings_on() {
    let out = scratch("study-models");
    let run_with = |net: &str, ssd: &str, dir: &std::path::Path, extra: &[(&str, &str)]| {
        let mut c = std::process::Command::new("bash");
        c.arg(repo().join("study/reproduce-study.sh"))
            .arg(dir)
            .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
            .env("STUDY_SCALE", "smoke")
            .env("STUDY_SYSTEMS", "summit")
            .env("STUDY_PLACEMENTS", "global")
            .env("STUDY_MIXES", "gtc")
            .env("STUDY_OVERHEADS_FATTREE", "20us")
            .env("STUDY_NETWORK_MODEL", net)
            .env("STUDY_SSD_MODEL", ssd)
            .env_remove("STUDY_VC_BUFFER")
            .env_remove("STUDY_PACKET_SIZE")
            .env_remove("STUDY_UNIT_SIZE");
        for (k, v) in extra {
            c.env(k, v);
        }
        c.output().expect("bash runs the script")
    };
    let run = |net: &str, ssd: &str, dir: &std::path::Path| run_with(net, ssd, dir, &[]);
    let done = run("path", "array", &out);
    assert_ok(&done);
    let summary = out.join("runs/summit-global-gtc/run-000_op_overhead=20us/summary.json");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).expect("summary.json"))
            .expect("JSON");
    assert_eq!(s["scenario"]["network"]["model"], "path");
    // The path model keeps its 64 KiB packets, without units.
    assert_eq!(s["scenario"]["simulation"]["packet_size"], "64KiB");
    assert!(s["scenario"]["simulation"]["unit_size"].is_null(), "{s}");
    assert_eq!(s["scenario"]["burst_buffer"]["ssd_model"], "array");
    assert_eq!(s["devices"][0]["kind"], "bb-array");
    let flow = out.join("flow");
    assert_ok(&run("flow", "per-ssd", &flow));
    let summary = flow.join("runs/summit-global-gtc/run-000_op_overhead=20us/summary.json");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).expect("summary.json"))
            .expect("JSON");
    assert_eq!(s["scenario"]["network"]["model"], "flow");
    // Whole-message packets unless STUDY_PACKET_SIZE says otherwise.
    assert_eq!(s["scenario"]["simulation"]["packet_size"], "4MiB");
    // A VC buffer held while the packet size changes, and units, in the runs and in the
    // composed file.
    let vc = out.join("vc");
    let archive = out.join("vc-archive");
    let held = [
        ("STUDY_VC_BUFFER", "256KiB"),
        ("STUDY_PACKET_SIZE", "16KiB"),
        ("STUDY_UNIT_SIZE", "32KiB"),
        ("STUDY_ARCHIVE", archive.to_str().expect("utf-8")),
    ];
    assert_ok(&run_with("packet", "per-ssd", &vc, &held));
    let summary = vc.join("runs/summit-global-gtc/run-000_op_overhead=20us/summary.json");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).expect("summary.json"))
            .expect("JSON");
    assert_eq!(s["scenario"]["network"]["vc_buffer"], "256KiB");
    assert_eq!(s["scenario"]["simulation"]["packet_size"], "16KiB");
    assert_eq!(s["scenario"]["simulation"]["unit_size"], "32KiB");
    let composed = std::fs::read_to_string(vc.join("scenarios/summit-global-gtc.toml"))
        .expect("composed scenario");
    assert!(
        composed.contains("\n[network]\nvc_buffer = \"256KiB\"\n")
            && composed.contains("packet_size = \"16KiB\"\nunit_size = \"32KiB\"\n"),
        "{composed}"
    );
    let prov = std::fs::read_to_string(archive.join("provenance.txt")).expect("provenance");
    assert!(
        prov.contains("packet size: 16KiB; VC buffer: 256KiB; unit size: 32KiB"),
        "{prov}"
    );
    // A packet size given alone moves its packets one at a time; `none` turns the default
    // units off.
    for (i, (extra, packet)) in [
        (("STUDY_PACKET_SIZE", "16KiB"), "16KiB"),
        (("STUDY_UNIT_SIZE", "none"), "4KiB"),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = out.join(format!("one-at-a-time-{i}"));
        assert_ok(&run_with("packet", "per-ssd", &dir, &[extra]));
        let composed = std::fs::read_to_string(dir.join("scenarios/summit-global-gtc.toml"))
            .expect("composed scenario");
        assert!(
            composed.contains(&format!("packet_size = \"{packet}\"\n"))
                && !composed.contains("unit_size"),
            "{composed}"
        );
    }
    let bad = run("fluid", "per-ssd", &out.join("bad"));
    assert!(!bad.status.success());
    let e = String::from_utf8_lossy(&bad.stderr);
    assert!(
        e.contains("STUDY_NETWORK_MODEL=fluid: expected packet, path or flow"),
        "{e}"
    );
    for (i, (var, net, value, want)) in [
        (
            "STUDY_VC_BUFFER",
            "packet",
            "big",
            "STUDY_VC_BUFFER=big: expected a size with a unit, such as 128KiB",
        ),
        (
            "STUDY_VC_BUFFER",
            "flow",
            "128KiB",
            "STUDY_VC_BUFFER=128KiB: router buffers exist only in the packet model (STUDY_NETWORK_MODEL=flow)",
        ),
        (
            "STUDY_UNIT_SIZE",
            "packet",
            "wide",
            "STUDY_UNIT_SIZE=wide: expected a size with a unit, such as 64KiB",
        ),
        (
            "STUDY_UNIT_SIZE",
            "path",
            "64KiB",
            "STUDY_UNIT_SIZE=64KiB: units exist only in the packet model (STUDY_NETWORK_MODEL=path)",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = out.join(format!("bad-{i}"));
        let bad = run_with(net, "per-ssd", &dir, &[(var, value)]);
        assert!(!bad.status.success());
        let e = String::from_utf8_lossy(&bad.stderr);
        assert!(e.contains(want), "{e}");
        assert!(!dir.exists(), "nothing written for a bad setting");
    }
    let _ = std::fs::remove_dir_all(out);
}

/// The script backs every run's heap with huge pages (GLIBC_TUNABLES) unless told not to,
/// keeps a caller's own GLIBC_TUNABLES, records the setting in the archive's provenance, and
/// rejects other values of STUDY_HUGE_PAGES.
#[test]
fn reproduce_script_sets_the_huge_page_tunable() {
    let out = scratch("study-huge");
    std::fs::create_dir_all(&out).expect("scratch dir");
    // A bbsim that logs the GLIBC_TUNABLES it was started with, then runs the real one.
    let wrapper = out.join("bbsim-env.sh");
    std::fs::write(
        &wrapper,
        "#!/bin/sh\nprintf '%s\\n' \"${GLIBC_TUNABLES:-(unset)}\" >>\"$ENV_LOG\"\nexec \"$REAL_BBSIM\" \"$@\"\n",
    )
    .expect("wrapper");
    let mut perms = std::fs::metadata(&wrapper).expect("wrapper").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&wrapper, perms).expect("chmod");
    let run = |name: &str, huge: Option<&str>, tunables: Option<&str>| {
        let log = out.join(format!("{name}.log"));
        let mut cmd = std::process::Command::new("bash");
        cmd.arg(repo().join("study/reproduce-study.sh"))
            .arg(out.join(name))
            .env("BBSIM", &wrapper)
            .env("REAL_BBSIM", env!("CARGO_BIN_EXE_bbsim"))
            .env("ENV_LOG", &log)
            .env("STUDY_ARCHIVE", out.join(format!("{name}-archive")))
            .env("STUDY_SCALE", "smoke")
            .env("STUDY_SYSTEMS", "summit")
            .env("STUDY_PLACEMENTS", "global")
            .env("STUDY_MIXES", "gtc")
            .env("STUDY_OVERHEADS_FATTREE", "20us")
            .env_remove("GLIBC_TUNABLES")
            .env_remove("STUDY_HUGE_PAGES");
        if let Some(h) = huge {
            cmd.env("STUDY_HUGE_PAGES", h);
        }
        if let Some(t) = tunables {
            cmd.env("GLIBC_TUNABLES", t);
        }
        let done = cmd.output().expect("bash runs the script");
        let seen = std::fs::read_to_string(&log).unwrap_or_default();
        let prov = std::fs::read_to_string(out.join(format!("{name}-archive/provenance.txt")))
            .unwrap_or_default();
        (done, seen, prov)
    };
    let expect_all = |seen: &str, want: &str| {
        let lines: Vec<&str> = seen.lines().collect();
        // `bbsim --version` and the sweep at least.
        assert!(lines.len() >= 2, "{seen}");
        assert!(lines.iter().all(|l| *l == want), "want {want}: {seen}");
    };
    let (done, seen, prov) = run("default", None, None);
    assert_ok(&done);
    expect_all(&seen, "glibc.malloc.hugetlb=1");
    assert!(
        prov.contains("GLIBC_TUNABLES: glibc.malloc.hugetlb=1"),
        "{prov}"
    );
    let (done, seen, prov) = run("off", Some("0"), None);
    assert_ok(&done);
    expect_all(&seen, "(unset)");
    assert!(prov.contains("GLIBC_TUNABLES: (unset)"), "{prov}");
    let (done, seen, _) = run("caller", Some("1"), Some("glibc.malloc.arena_max=2"));
    assert_ok(&done);
    expect_all(&seen, "glibc.malloc.arena_max=2");
    let (done, seen, _) = run("bad", Some("yes"), None);
    assert!(!done.status.success());
    assert!(seen.is_empty(), "no run with a bad setting: {seen}");
    let e = String::from_utf8_lossy(&done.stderr);
    assert!(e.contains("STUDY_HUGE_PAGES=yes: expected 1 or 0"), "{e}");
    let _ = std::fs::remove_dir_all(out);
}

/// One mix with IOR through the whole script at smoke scale: the sweep, the combined CSVs,
/// the three kinds of figure, and IOR's nodes next to the application's.
#[test]
fn reproduce_script_runs_one_mix_at_smoke_scale() {
    let out = scratch("study-smoke");
    smoke_study(
        &out,
        &[("STUDY_PLACEMENTS", "grouped"), ("STUDY_MIXES", "gtc-ior")],
    );
    // The composed scenario carries the packet and unit sizes the script ran it with (the
    // system files move 4 KiB packets one at a time; the script's default is 4 KiB packets in
    // 64 KiB units), so running it alone does not silently differ.
    let composed = std::fs::read_to_string(out.join("scenarios/summit-grouped-gtc-ior.toml"))
        .expect("composed scenario");
    assert!(
        composed.contains("packet_size = \"4KiB\"\nunit_size = \"64KiB\"\n"),
        "{composed}"
    );
    let sweep = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let mut lines = sweep.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    assert_eq!(&header[..3], ["system", "placement", "mix"]);
    assert!(header.contains(&"op_overhead") && header.contains(&"job2_avg_hops"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3, "{sweep}");
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    for (r, ovh) in rows.iter().zip(["0us", "20us", "45us"]) {
        assert_eq!(r.len(), header.len());
        assert_eq!(&r[..3], ["summit", "grouped", "gtc-ior"]);
        assert_eq!(r[col("op_overhead")], ovh);
        assert_eq!(r[col("status")], "ok");
        assert_eq!(r[col("job0_name")], "gtc");
        assert_eq!(r[col("job1_name")], "ior");
        assert_eq!(r[col("job2_name")], "");
    }
    // 45 us per operation makes GTC's I/O phase longer than none. (Between neighbouring
    // settings the order is not guaranteed: with files rotating over a server's SSDs the
    // queues of neighbouring settings can differ by about 1 % either way.)
    let phase: Vec<f64> = rows
        .iter()
        .map(|r| r[col("job0_io_phase_s")].parse().expect("phase"))
        .collect();
    assert!(phase[0] < phase[2], "{phase:?}");
    // Each run's heartbeat (10 minutes by default) ends in its sweep's log with the run's
    // simulated time and events.
    let log = std::fs::read_to_string(out.join("runs/summit-grouped-gtc-ior.log")).expect("log");
    for r in &rows {
        let closing = format!("] {}: finished: simulated ", r[col("dir")]);
        let events = format!(", {} events, ", r[col("events")]);
        assert!(
            log.lines()
                .any(|l| l.contains(&closing) && l.contains(&events)),
            "{log}"
        );
    }
    let jobs = std::fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    assert_eq!(jobs.lines().count(), 1 + 6, "{jobs}");
    assert!(jobs.contains("summit,grouped,gtc-ior,20us,gtc,with ior,"));
    assert!(jobs.contains("summit,grouped,gtc-ior,20us,ior,with gtc,"));
    for fig in [
        "figures/hops.svg",
        "figures/io-phase-gtc-summit.svg",
        "figures/timelines/gtc-ior-summit-grouped.svg",
    ] {
        let svg = std::fs::read_to_string(out.join(fig)).expect(fig);
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"), "{fig}");
    }
    // Figures (a) and (c) say what their value axis shows in words, with the unit.
    for (fig, axis) in [
        ("figures/hops.svg", "average I/O path length (hops)"),
        (
            "figures/io-phase-gtc-summit.svg",
            "slowest rank's time in I/O, first I/O phase (ms)",
        ),
    ] {
        let svg = std::fs::read_to_string(out.join(fig)).expect(fig);
        let texts = bbsim_sim::output::chart::svg_texts(&svg);
        assert!(texts.iter().any(|t| t == axis), "{fig}: {texts:?}");
    }
    // IOR (2 nodes, allocation = "next-to" in the mix file) sits on the free nodes nearest
    // to GTC's 8, in every run.
    for r in &rows {
        let run = out.join("runs/summit-grouped-gtc-ior").join(r[col("dir")]);
        let ranks = rank_nodes(&run);
        let mut gtc = ranks["gtc"].clone();
        gtc.dedup();
        let mut ior = ranks["ior"].clone();
        ior.dedup();
        assert_eq!((gtc.len(), ior.len()), (8, 2), "{ranks:?}");
        assert_eq!(ior, nearest_free(&gtc, &[], 4860, 2), "GTC on {gtc:?}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn reproduce_script_says_what_is_wrong() {
    let script = repo().join("study/reproduce-study.sh");
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut c = std::process::Command::new("bash");
        c.arg(&script).args(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().expect("bash runs the script");
        assert!(!o.status.success());
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let out = scratch("study-errors");
    let dir = out.to_str().expect("utf-8");
    let e = run(&[("BBSIM", "/nonexistent/bbsim")], &[dir]);
    assert!(
        e.contains("BBSIM=/nonexistent/bbsim is not an executable"),
        "{e}"
    );
    let bin = env!("CARGO_BIN_EXE_bbsim");
    let e = run(&[("BBSIM", bin), ("STUDY_SCALE", "tiny")], &[dir]);
    assert!(
        e.contains("STUDY_SCALE=tiny: expected full or smoke"),
        "{e}"
    );
    for jobs in ["0", "two", "-1"] {
        let e = run(&[("BBSIM", bin), ("STUDY_JOBS", jobs)], &[dir]);
        assert!(
            e.contains(&format!(
                "STUDY_JOBS={jobs}: expected a whole number of runs at once, 1 or more"
            )),
            "{e}"
        );
    }
    let e = run(&[("BBSIM", bin), ("STUDY_CONTROLS", "yes")], &[dir]);
    assert!(
        e.contains("STUDY_CONTROLS=yes: expected 0, 1 or only"),
        "{e}"
    );
    let e = run(&[("BBSIM", bin), ("STUDY_HEARTBEAT", "10")], &[dir]);
    assert!(
        e.contains("STUDY_HEARTBEAT=10: expected a wall-clock period such as 10min"),
        "{e}"
    );
    let e = run(
        &[
            ("BBSIM", bin),
            ("STUDY_CONTROLS", "only"),
            ("STUDY_MIXES", "gtc lammps"),
        ],
        &[dir],
    );
    assert!(
        e.contains("STUDY_CONTROLS=only: none of the mixes (gtc lammps) has two or more jobs"),
        "{e}"
    );
    let e = run(&[("BBSIM", bin), ("STUDY_MIXES", "gtc-lammps")], &[dir]);
    assert!(e.contains("no mix scenarios/study/gtc-lammps.toml"), "{e}");
    let e = run(&[("BBSIM", bin)], &[]);
    assert!(
        e.contains("usage: study/reproduce-study.sh OUTPUT_DIR"),
        "{e}"
    );
    assert!(
        !out.exists(),
        "nothing is written when the arguments are wrong"
    );
}

/// `STUDY_CONTROLS=1` runs each mix again with its jobs apart in time on the mix's nodes and
/// the first job at a token size: every job keeps its mix's nodes, jobs.csv names the setting
/// of the later jobs and leaves the first job's control out (its run alone is its control),
/// and the token size changes nothing for the later jobs.
#[test]
fn reproduce_script_control_runs_keep_the_mix_s_nodes_and_put_the_jobs_apart() {
    let out = scratch("study-controls");
    smoke_study(
        &out,
        &[
            ("STUDY_PLACEMENTS", "global"),
            ("STUDY_MIXES", "gtc gtc-ior"),
            ("STUDY_OVERHEADS_FATTREE", "20us"),
            ("STUDY_CONTROLS", "1"),
            // The two sweeps side by side, the control inside its mix's.
            ("STUDY_JOBS", "2"),
        ],
    );
    let sweep = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let mixes: Vec<&str> = sweep
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).expect("mix"))
        .collect();
    assert_eq!(mixes, ["gtc", "gtc-ior", "gtc-ior+control"], "{sweep}");
    // system,placement,mix,op_overhead,job,setting -> the row's figures.
    let jobs = std::fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    let row = |mix: &str, job: &str, setting: &str| -> Vec<String> {
        let key = format!("summit,global,{mix},20us,{job},{setting},");
        let line = jobs
            .lines()
            .find(|l| l.starts_with(&key))
            .unwrap_or_else(|| panic!("no row {key} in\n{jobs}"));
        line[key.len()..].split(',').map(str::to_string).collect()
    };
    assert_eq!(jobs.lines().count(), 1 + 4, "{jobs}");
    assert!(
        !jobs.contains(",gtc,apart from"),
        "the first job's token control is not a result: {jobs}"
    );
    let alone = row("gtc", "gtc", "alone");
    let with = row("gtc-ior", "gtc", "with ior");
    assert_ne!(alone[..3], with[..3], "IOR next to GTC changes GTC's I/O");
    let ior_apart = row("gtc-ior", "ior", "apart from gtc (same nodes)");
    let ior_with = row("gtc-ior", "ior", "with gtc");
    let mean = |r: &[String]| r[1].parse::<f64>().expect("time_in_io_mean_s");
    assert!(
        mean(&ior_apart) < mean(&ior_with),
        "IOR alone on its nodes is faster than next to GTC's burst: {ior_apart:?} {ior_with:?}"
    );
    // Both runs put every job on the same nodes; in the control IOR starts 10^6 s later and
    // GTC writes 1 MB per rank.
    let mix_run = out.join("runs/summit-global-gtc-ior/run-000_op_overhead=20us");
    let control_run = out.join("runs/summit-global-gtc-ior+control/run-000_op_overhead=20us");
    assert_eq!(rank_nodes(&mix_run), rank_nodes(&control_run));
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(control_run.join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    assert_eq!(summary["scenario"]["jobs"][1]["start"], "1000000s");
    assert_eq!(summary["scenario"]["jobs"][0]["bytes_per_rank"], "1MB");
    let token_bytes = summary["jobs"][0]["bytes_written"]
        .as_u64()
        .expect("bytes_written");
    assert!(
        token_bytes > 0 && token_bytes < 48 * 1_100_000,
        "GTC writes about 1 MB per rank in the control: {token_bytes} B"
    );

    // The same control with GTC at its smoke size gives IOR the same ranks, rank by rank.
    let full_first = out.join("control-with-full-first-job");
    let ran = std::process::Command::new(env!("CARGO_BIN_EXE_bbsim"))
        .arg("run")
        .arg(out.join("scenarios/summit-global-gtc-ior.toml"))
        .arg("--out")
        .arg(&full_first)
        .args(["--set", "burst_buffer.ssd.op_overhead=20us"])
        .args([
            "--set",
            "jobs.0.ranks=48",
            "--set",
            "jobs.0.bytes_per_rank=4MB",
        ])
        .args([
            "--set",
            "jobs.1.ranks=12",
            "--set",
            "jobs.1.block_size=4MiB",
        ])
        .args(["--set", "jobs.1.start=1000000s"])
        .output()
        .expect("bbsim runs");
    assert_ok(&ran);
    let ior_ranks = |run: &Path| -> Vec<String> {
        std::fs::read_to_string(run.join("ranks.csv"))
            .expect("ranks.csv")
            .lines()
            .filter(|l| l.starts_with("ior,"))
            .map(str::to_string)
            .collect()
    };
    let token = ior_ranks(&control_run);
    assert_eq!(token.len(), 12);
    assert_eq!(token, ior_ranks(&full_first));
    let gtc_ranks = |run: &Path| {
        std::fs::read_to_string(run.join("ranks.csv"))
            .expect("ranks.csv")
            .lines()
            .filter(|l| l.starts_with("gtc,"))
            .count()
    };
    assert_eq!(gtc_ranks(&control_run), gtc_ranks(&full_first));

    // STUDY_CONTROLS=only makes just the control runs, with the same results: the mix of one
    // job is skipped and the mix's own run is not made again.
    let only = scratch("study-controls-only");
    smoke_study(
        &only,
        &[
            ("STUDY_PLACEMENTS", "global"),
            ("STUDY_MIXES", "gtc gtc-ior"),
            ("STUDY_OVERHEADS_FATTREE", "20us"),
            ("STUDY_CONTROLS", "only"),
        ],
    );
    let sweep = std::fs::read_to_string(only.join("sweep.csv")).expect("sweep.csv");
    let mixes: Vec<&str> = sweep
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).expect("mix"))
        .collect();
    assert_eq!(mixes, ["gtc-ior+control"], "{sweep}");
    assert!(!only.join("runs/summit-global-gtc-ior").exists());
    assert!(!only.join("runs/summit-global-gtc").exists());
    let only_jobs = std::fs::read_to_string(only.join("jobs.csv")).expect("jobs.csv");
    let controls: Vec<&str> = jobs.lines().filter(|l| l.contains("apart from")).collect();
    assert_eq!(controls.len(), 1, "{jobs}");
    assert_eq!(only_jobs.lines().skip(1).collect::<Vec<_>>(), controls);
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&only);
}

/// Runs `study/merge-study.sh OUT DIRS...` with this build's bbsim at smoke scale; returns
/// (success, stderr).
fn merge_study(out: &Path, dirs: &[&Path]) -> (bool, String) {
    let args: Vec<&OsStr> = dirs.iter().map(|d| d.as_os_str()).collect();
    merge_study_args(out, &args)
}

/// `study/merge-study.sh OUT ARGS...` (slices and options); whether it succeeded, and its
/// standard error.
fn merge_study_args(out: &Path, args: &[&OsStr]) -> (bool, String) {
    let done = std::process::Command::new("bash")
        .arg(repo().join("study/merge-study.sh"))
        .arg(out)
        .args(args)
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .env("STUDY_SCALE", "smoke")
        .output()
        .expect("bash runs the script");
    (
        done.status.success(),
        String::from_utf8_lossy(&done.stderr).to_string(),
    )
}

/// The study's rows without the columns that name a slice's run directory or its wall time.
fn results_of(sweep_csv: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(sweep_csv).expect("sweep.csv");
    let header: Vec<&str> = text.lines().next().expect("header").split(',').collect();
    let skip = |c: &str| matches!(c, "run" | "dir" | "wall_s");
    text.lines()
        .map(|l| {
            l.split(',')
                .zip(&header)
                .filter(|(_, c)| !skip(c))
                .map(|(v, _)| v)
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

/// `study/merge-study.sh` puts slices of the matrix made by separate script runs together:
/// the same sweep.csv results, jobs.csv and hops figure as one run of the whole, the last
/// slice winning where two hold the same run, a failed run never replacing a finished one.
#[test]
fn merge_script_puts_slices_of_the_matrix_together_as_one_run() {
    let base = scratch("study-merge");
    let slice = |name: &str, env: &[(&str, &str)]| {
        let d = base.join(name);
        let mut all = vec![("STUDY_PLACEMENTS", "global")];
        all.extend_from_slice(env);
        smoke_study(&d, &all);
        d
    };
    let a = slice(
        "a",
        &[
            ("STUDY_MIXES", "gtc"),
            ("STUDY_OVERHEADS_FATTREE", "0us,20us"),
        ],
    );
    let b = slice(
        "b",
        &[
            ("STUDY_MIXES", "gtc-ior"),
            ("STUDY_OVERHEADS_FATTREE", "20us"),
            ("STUDY_CONTROLS", "1"),
        ],
    );
    // GTC at 20 us again, with another packet size: a different result for the same run.
    let c = slice(
        "c",
        &[
            ("STUDY_MIXES", "gtc"),
            ("STUDY_OVERHEADS_FATTREE", "20us"),
            ("STUDY_PACKET_SIZE", "16KiB"),
        ],
    );
    let whole = slice(
        "whole",
        &[
            ("STUDY_MIXES", "gtc gtc-ior"),
            ("STUDY_OVERHEADS_FATTREE", "0us,20us"),
            ("STUDY_CONTROLS", "1"),
        ],
    );
    let merged = base.join("merged");
    let (ok, e) = merge_study(&merged, &[&a, &b]);
    assert!(ok, "{e}");
    assert!(
        !e.contains("merge-study.sh:"),
        "no run is in both slices: {e}"
    );
    // The whole has gtc-ior and its control at 0 us too, which the slices do not.
    let expected: Vec<String> = results_of(&whole.join("sweep.csv"))
        .into_iter()
        .filter(|r| !r.contains("gtc-ior,0us") && !r.contains("gtc-ior+control,0us"))
        .collect();
    assert_eq!(results_of(&merged.join("sweep.csv")), expected);
    let jobs = |d: &Path| std::fs::read_to_string(d.join("jobs.csv")).expect("jobs.csv");
    let whole_jobs: Vec<String> = jobs(&whole)
        .lines()
        .filter(|l| !l.starts_with("summit,global,gtc-ior,0us,"))
        .map(str::to_string)
        .collect();
    assert_eq!(
        jobs(&merged)
            .lines()
            .map(str::to_string)
            .collect::<Vec<_>>(),
        whole_jobs
    );
    for f in [
        "figures/io-phase-gtc-summit.svg",
        "figures/timelines/gtc-ior-summit-global.svg",
    ] {
        assert!(merged.join(f).is_file(), "{f}");
    }
    // missing.txt lists what the 297-run matrix still lacks, one sweep per line.
    let missing = std::fs::read_to_string(merged.join("missing.txt")).expect("missing.txt");
    assert!(missing.contains("\nsummit global gtc 45us\n"), "{missing}");
    assert!(
        missing.contains("\nsummit global gtc-ior 0us,45us\n"),
        "{missing}"
    );
    assert!(missing.starts_with("summit node-local gtc 0us,20us,45us\n"));
    let lacking: usize = missing
        .lines()
        .map(|l| l.rsplit(' ').next().expect("overheads").split(',').count())
        .sum();
    assert_eq!(lacking, 297 - 3, "{missing}");
    // Every row's run directory is reachable from the merged output.
    assert!(merged
        .join("runs/summit-global-gtc/run-000_op_overhead=0us/summary.json")
        .is_file());

    // The last slice wins: GTC at 20 us from slice c (16 KiB packets), in either order.
    let gtc20 = |d: &Path| -> String {
        results_of(&d.join("sweep.csv"))
            .into_iter()
            .find(|r| r.starts_with("summit,global,gtc,20us,"))
            .expect("GTC at 20 us")
    };
    let (ok, e) = merge_study(&base.join("ac"), &[&a, &c]);
    assert!(ok, "{e}");
    let canonical = |d: &Path| d.canonicalize().expect("slice").display().to_string();
    // The choice is reported, since the order of a shell glob may not be the order in
    // which the slices were made.
    assert!(
        e.contains(&format!(
            "merge-study.sh: summit-global-gtc at 20us: taking the run of {} (given later), not that of {}",
            canonical(&c),
            canonical(&a)
        )),
        "{e}"
    );
    assert_eq!(e.matches("taking the run of").count(), 1, "{e}");
    let (ok, e) = merge_study(&base.join("ca"), &[&c, &a]);
    assert!(ok, "{e}");
    assert_ne!(gtc20(&a), gtc20(&c), "16 KiB packets change the result");
    assert_eq!(gtc20(&base.join("ac")), gtc20(&c));
    assert_eq!(gtc20(&base.join("ca")), gtc20(&a));
    let sources = std::fs::read_to_string(base.join("ac/sources.txt")).expect("sources.txt");
    assert!(
        sources.contains(&format!(
            "summit-global-gtc,20us,ok,{}",
            c.join("runs/summit-global-gtc")
                .canonicalize()
                .expect("c")
                .display()
        )),
        "{sources}"
    );

    // A failed run does not replace a finished one: slice f is slice c with its run failed.
    let f = base.join("f");
    std::fs::create_dir_all(f.join("runs/summit-global-gtc")).expect("mkdir");
    let csv = std::fs::read_to_string(c.join("runs/summit-global-gtc/sweep.csv")).expect("csv");
    assert!(csv.contains(",20us,0.00002,ok,"), "{csv}");
    std::fs::write(
        f.join("runs/summit-global-gtc/sweep.csv"),
        csv.replace(",20us,0.00002,ok,", ",20us,0.00002,error,"),
    )
    .expect("write");
    let (ok, e) = merge_study(&base.join("af"), &[&a, &f]);
    assert!(ok, "{e}");
    assert!(
        e.contains(&format!(
            "merge-study.sh: summit-global-gtc at 20us: keeping the finished run of {}, not the failed one of {}",
            canonical(&a),
            canonical(&f)
        )),
        "{e}"
    );
    assert_eq!(gtc20(&base.join("af")), gtc20(&a));

    // A failed run as bbsim sweep writes it: its message quoted, commas and all, and its job
    // columns empty. The merge keeps the message in the status column, whole (here as the
    // only run of a GTC+IOR sweep, beside slice a's finished GTC runs).
    let g = base.join("g");
    std::fs::create_dir_all(g.join("runs/summit-global-gtc-ior")).expect("mkdir");
    let header = csv.lines().next().expect("header");
    let cols = header.split(',').count();
    let message = "\"failed: jobs[0].bytes_per_rank: expected a size, got \"\"lots\"\"\"";
    let failed = format!("0,run-000,20us,0.00002,{message}{}", ",".repeat(cols - 5));
    std::fs::write(
        g.join("runs/summit-global-gtc-ior/sweep.csv"),
        format!("{header}\n{failed}\n"),
    )
    .expect("write");
    let (ok, e) = merge_study(&base.join("g-merged"), &[&a, &g]);
    assert!(ok, "{e}");
    let merged_g =
        std::fs::read_to_string(base.join("g-merged/runs/summit-global-gtc-ior/sweep.csv"))
            .expect("merged sweep.csv");
    assert_eq!(merged_g, format!("{header}\n{failed}\n"));
    let whole_g = std::fs::read_to_string(base.join("g-merged/sweep.csv")).expect("sweep.csv");
    let row = whole_g
        .lines()
        .find(|l| l.starts_with("summit,global,gtc-ior,"))
        .expect("the failed run's row");
    assert!(
        row.starts_with(&format!(
            "summit,global,gtc-ior,0,run-000,20us,0.00002,{message},"
        )),
        "{row}"
    );
    assert_eq!(
        row.replace(message, "failed").split(',').count(),
        whole_g.lines().next().expect("header").split(',').count()
    );

    // --skip leaves the matching sweeps out of the slices after it, until --no-skip: slice
    // c's GTC is left out although c comes last, and slice b, after --no-skip, is whole.
    let opt = |o: &'static str| OsStr::new(o);
    let (ok, e) = merge_study_args(
        &base.join("skip"),
        &[
            a.as_os_str(),
            opt("--skip"),
            opt("*-gtc"),
            c.as_os_str(),
            opt("--no-skip"),
            b.as_os_str(),
        ],
    );
    assert!(ok, "{e}");
    assert_eq!(gtc20(&base.join("skip")), gtc20(&a));
    assert_eq!(
        results_of(&base.join("skip/sweep.csv")),
        results_of(&merged.join("sweep.csv")),
        "a and b as merged without c"
    );
    let sources = std::fs::read_to_string(base.join("skip/sources.txt")).expect("sources.txt");
    let c_dir = c.canonicalize().expect("c").display().to_string();
    assert!(!sources.contains(&c_dir), "{sources}");
    // Patterns add up: GTC and GTC+IOR are left out of both slices, and GTC+IOR's control
    // (`summit-global-gtc-ior+control`), which neither pattern matches, stays.
    let (ok, e) = merge_study_args(
        &base.join("skip2"),
        &[
            opt("--skip"),
            opt("*-gtc"),
            opt("--skip"),
            opt("*-gtc-ior"),
            b.as_os_str(),
            a.as_os_str(),
        ],
    );
    assert!(ok, "{e}");
    let mixes: std::collections::BTreeSet<String> = results_of(&base.join("skip2/sweep.csv"))
        .iter()
        .skip(1)
        .map(|r| r.split(',').nth(2).expect("mix").to_string())
        .collect();
    assert_eq!(
        mixes.into_iter().collect::<Vec<_>>(),
        ["gtc-ior+control"],
        "{e}"
    );
    // Options without a slice, a pattern missing, an unknown option, every sweep skipped.
    for (args, expected) in [
        (
            vec![opt("--skip"), opt("*")],
            "no study output directory given",
        ),
        (
            vec![a.as_os_str(), opt("--skip")],
            "--skip: expected a pattern",
        ),
        (
            vec![a.as_os_str(), opt("--every")],
            "--every: unknown option (expected --skip GLOB, --no-skip or a study output directory)",
        ),
        (
            vec![opt("--no-skip"), opt("--no-skip")],
            "no study output directory given",
        ),
        (
            vec![opt("--skip"), opt("summit-*"), a.as_os_str()],
            "every one skipped",
        ),
    ] {
        let out = base.join("skip-bad");
        let (ok, e) = merge_study_args(&out, &args);
        assert!(!ok && e.contains(expected), "{args:?}: {e}");
        assert!(!out.exists(), "nothing is written on bad input");
    }

    // Bad input: a directory that is no study output, a non-empty output, too few arguments.
    let (ok, e) = merge_study(&base.join("bad"), &[&a, &base.join("nowhere")]);
    assert!(!ok);
    assert!(
        e.contains("nowhere: not an output of study/reproduce-study.sh (no runs/ directory)"),
        "{e}"
    );
    let (ok, e) = merge_study(&merged, &[&a]);
    assert!(!ok);
    assert!(e.contains("exists and is not empty"), "{e}");
    let (ok, e) = merge_study(&base.join("bad"), &[]);
    assert!(!ok);
    assert!(
        e.contains(
            "usage: study/merge-study.sh OUTPUT_DIR [--skip GLOB | --no-skip | STUDY_DIR]..."
        ),
        "{e}"
    );
    assert!(
        !base.join("bad").exists(),
        "nothing is written on bad input"
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// A full-scale study runs for hours: replacing the script file meanwhile (a `git pull`, an
/// edit) must not change what the running copy does. bash reads the script's one compound
/// command to the end before it starts the first sweep.
#[test]
fn reproduce_script_keeps_running_when_its_file_is_replaced() {
    let base = scratch("study-replaced");
    let scripts = base.join("repo/study");
    std::fs::create_dir_all(&scripts).expect("mkdir");
    for f in ["reproduce-study.sh", "study-lib.sh"] {
        std::fs::copy(repo().join("study").join(f), scripts.join(f)).expect("copy");
    }
    std::os::unix::fs::symlink(
        repo().join("scenarios").canonicalize().expect("scenarios"),
        base.join("repo/scenarios"),
    )
    .expect("link");
    // A bbsim whose sweeps wait for the test's go-ahead after saying that they started.
    let gate = base.join("bbsim-gate");
    std::fs::write(
        &gate,
        format!(
            "#!/bin/sh\nif [ \"$1\" = sweep ]; then\n  touch '{dir}/started'\n  while [ ! -e '{dir}/go' ]; do sleep 0.05; done\nfi\nexec '{bin}' \"$@\"\n",
            dir = base.display(),
            bin = env!("CARGO_BIN_EXE_bbsim")
        ),
    )
    .expect("write");
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&gate)
        .status()
        .expect("chmod");
    let out = base.join("out");
    let child = std::process::Command::new("bash")
        .arg(scripts.join("reproduce-study.sh"))
        .arg(&out)
        .env("BBSIM", &gate)
        .env("STUDY_SCALE", "smoke")
        .env("STUDY_SYSTEMS", "summit")
        .env("STUDY_PLACEMENTS", "global")
        .env("STUDY_MIXES", "gtc")
        .env("STUDY_OVERHEADS_FATTREE", "20us")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bash starts");
    let start = std::time::Instant::now();
    while !base.join("started").exists() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(300),
            "the first sweep never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Replace the running script in place (same file, truncated and rewritten), as cp does.
    std::fs::write(
        scripts.join("reproduce-study.sh"),
        "echo 'the replaced script ran' >&2\nexit 3\n",
    )
    .expect("overwrite");
    std::fs::write(base.join("go"), "").expect("go");
    let done = child.wait_with_output().expect("script ends");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    assert!(!stderr.contains("the replaced script ran"), "{stderr}");
    let sweep = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    assert_eq!(sweep.lines().count(), 2, "{sweep}");
    assert!(out.join("figures/hops.svg").is_file());
    let _ = std::fs::remove_dir_all(&base);
}

/// `STUDY_RUNS=file` runs exactly the listed sweeps (the form of merge-study.sh's
/// missing.txt), and a bad line is a named error with its line number.
#[test]
fn reproduce_script_runs_the_sweeps_of_a_list() {
    let base = scratch("study-runs-list");
    std::fs::create_dir_all(&base).expect("mkdir");
    let plan = base.join("plan.txt");
    std::fs::write(
        &plan,
        "# two sweeps\nsummit global gtc 20us\n\nsummit grouped gtc-ior 0us,20us\n",
    )
    .expect("write");
    let out = base.join("out");
    let mut c = std::process::Command::new("bash");
    c.arg(repo().join("study/reproduce-study.sh"))
        .arg(&out)
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .env("STUDY_SCALE", "smoke")
        .env("STUDY_RUNS", &plan);
    let done = c.output().expect("bash runs the script");
    assert_ok(&done);
    let sweep = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let keys: Vec<String> = sweep
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            format!("{} {} {} {}", f[0], f[1], f[2], f[5])
        })
        .collect();
    assert_eq!(
        keys,
        [
            "summit global gtc 20us",
            "summit grouped gtc-ior 0us",
            "summit grouped gtc-ior 20us"
        ]
    );
    // Two runs at a time are the two sweeps side by side: the same results, both listed, none
    // failed.
    let out2 = base.join("out2");
    let done = std::process::Command::new("bash")
        .arg(repo().join("study/reproduce-study.sh"))
        .arg(&out2)
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .env("STUDY_SCALE", "smoke")
        .env("STUDY_RUNS", &plan)
        .env("STUDY_JOBS", "2")
        .output()
        .expect("bash runs the script");
    assert_ok(&done);
    assert_eq!(
        results_of(&out2.join("sweep.csv")),
        results_of(&out.join("sweep.csv"))
    );
    let mut started: Vec<String> = std::fs::read_to_string(out2.join("sweeps.txt"))
        .expect("sweeps.txt")
        .lines()
        .map(str::to_string)
        .collect();
    started.sort();
    assert_eq!(started, ["summit global gtc", "summit grouped gtc-ior"]);
    assert_eq!(
        std::fs::read_to_string(out2.join("failed.txt")).expect("failed.txt"),
        ""
    );
    // A sweep side by side with another that stops the script (here: its timeline cannot be
    // drawn) lets the other finish, then the script fails naming it.
    let broken = base.join("bbsim-no-plot");
    std::fs::write(
        &broken,
        format!(
            "#!/bin/sh\ncase \"$1 $2 $3\" in plot*gtc-ior*) echo 'no plot here' >&2; exit 1 ;; esac\nexec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_bbsim")
        ),
    )
    .expect("write");
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&broken)
        .status()
        .expect("chmod");
    let stopped = std::process::Command::new("bash")
        .arg(repo().join("study/reproduce-study.sh"))
        .arg(base.join("out3"))
        .env("BBSIM", &broken)
        .env("STUDY_SCALE", "smoke")
        .env("STUDY_RUNS", &plan)
        .env("STUDY_JOBS", "2")
        .output()
        .expect("bash runs the script");
    assert!(!stopped.status.success());
    let e = String::from_utf8_lossy(&stopped.stderr);
    assert!(e.contains("drawing the timeline of"), "{e}");
    assert!(
        e.contains("stopped by an error in the sweeps of: summit grouped gtc-ior\n"),
        "{e}"
    );
    assert!(
        base.join("out3/runs/summit-global-gtc/sweep.csv").is_file(),
        "the other sweep finished"
    );
    assert!(
        !base.join("out3/sweep.csv").exists(),
        "no results after a stop"
    );
    std::fs::write(&plan, "summit global gtc 20us\nsummit global gtc 0us\n").expect("write");
    let bad = std::process::Command::new("bash")
        .arg(repo().join("study/reproduce-study.sh"))
        .arg(base.join("bad"))
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .env("STUDY_RUNS", &plan)
        .output()
        .expect("bash runs the script");
    assert!(!bad.status.success());
    let e = String::from_utf8_lossy(&bad.stderr);
    assert!(
        e.contains("plan.txt:2: 'summit global gtc' is listed twice (also line 1)"),
        "{e}"
    );
    assert!(!base.join("bad").exists());
    let _ = std::fs::remove_dir_all(&base);
}

/// Runs `study/archive-study.sh SRC ARCHIVE`; returns (success, stderr).
fn archive_study(src: &Path, archive: &Path) -> (bool, String) {
    let done = std::process::Command::new("bash")
        .arg(repo().join("study/archive-study.sh"))
        .arg(src)
        .arg(archive)
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .output()
        .expect("bash runs the script");
    (
        done.status.success(),
        String::from_utf8_lossy(&done.stderr).to_string(),
    )
}

/// Every file under `dir`, as paths relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("under dir");
                out.push(rel.display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// `study/archive-study.sh` keeps a slice's sweep.csv files (what the repository can hold),
/// and archives merge exactly as the slices they came from: same sweep.csv results, jobs.csv,
/// missing.txt and figures (a) and (c).
#[test]
fn archived_slices_merge_as_the_slices_themselves() {
    let base = scratch("study-archive");
    let a = base.join("a");
    smoke_study(
        &a,
        &[
            ("STUDY_PLACEMENTS", "global"),
            ("STUDY_MIXES", "gtc"),
            ("STUDY_OVERHEADS_FATTREE", "0us,20us"),
        ],
    );
    let b = base.join("b");
    let live = base.join("live-b");
    smoke_study(
        &b,
        &[
            ("STUDY_PLACEMENTS", "grouped"),
            ("STUDY_MIXES", "gtc-ior"),
            ("STUDY_OVERHEADS_FATTREE", "20us"),
            ("STUDY_CONTROLS", "1"),
            ("STUDY_ARCHIVE", live.to_str().expect("utf-8 path")),
        ],
    );
    let (ok, e) = archive_study(&a, &base.join("arch/a"));
    assert!(ok, "{e}");
    let (ok, e) = archive_study(&b, &base.join("arch/b"));
    assert!(ok, "{e}");
    assert_eq!(
        files_under(&base.join("arch/b")),
        [
            "provenance.txt",
            "runs/summit-grouped-gtc-ior+control/sweep.csv",
            "runs/summit-grouped-gtc-ior/sweep.csv",
        ]
    );
    // STUDY_ARCHIVE kept the same sweeps as the script ran them.
    assert_eq!(files_under(&live), files_under(&base.join("arch/b")));
    for f in [
        "runs/summit-grouped-gtc-ior/sweep.csv",
        "runs/summit-grouped-gtc-ior+control/sweep.csv",
    ] {
        assert_eq!(
            std::fs::read(live.join(f)).expect("live"),
            std::fs::read(base.join("arch/b").join(f)).expect("archived"),
            "{f}"
        );
    }
    let prov = std::fs::read_to_string(live.join("provenance.txt")).expect("provenance");
    assert!(
        prov.contains("scale: smoke; network model: packet"),
        "{prov}"
    );
    let prov = std::fs::read_to_string(base.join("arch/a/provenance.txt")).expect("provenance");
    assert!(prov.contains("sweeps: 1, rows (runs): 2"), "{prov}");
    assert!(prov.contains("bbsim: bbsim "), "{prov}");

    let (ok, e) = merge_study(&base.join("from-slices"), &[&a, &b]);
    assert!(ok, "{e}");
    let (ok, e) = merge_study(
        &base.join("from-archives"),
        &[&base.join("arch/a"), &base.join("arch/b")],
    );
    assert!(ok, "{e}");
    let read = |d: &str, f: &str| std::fs::read_to_string(base.join(d).join(f)).expect(f);
    assert_eq!(
        results_of(&base.join("from-archives/sweep.csv")),
        results_of(&base.join("from-slices/sweep.csv"))
    );
    for f in [
        "jobs.csv",
        "missing.txt",
        "figures/hops.svg",
        "figures/io-phase-gtc-summit.svg",
    ] {
        assert_eq!(read("from-archives", f), read("from-slices", f), "{f}");
    }
    // A merged output archives too, with the slices it came from in its provenance.
    let (ok, e) = archive_study(&base.join("from-slices"), &base.join("arch/merged"));
    assert!(ok, "{e}");
    let prov = read("arch/merged", "provenance.txt");
    assert!(prov.contains("sources.txt of the merged output"), "{prov}");
    assert!(prov.contains("summit-global-gtc,20us,ok,"), "{prov}");

    // Bad input: no study output, a non-empty archive, a sweep.csv of something else.
    let (ok, e) = archive_study(&base.join("nowhere"), &base.join("bad"));
    assert!(!ok);
    assert!(
        e.contains("nowhere: not an output of study/reproduce-study.sh or merge-study.sh (no runs/ directory)"),
        "{e}"
    );
    let (ok, e) = archive_study(&a, &base.join("arch/a"));
    assert!(!ok);
    assert!(e.contains("arch/a exists and is not empty"), "{e}");
    let odd = base.join("odd/runs/summit-global-gtc");
    std::fs::create_dir_all(&odd).expect("mkdir");
    std::fs::write(odd.join("sweep.csv"), "name,value\nx,1\n").expect("write");
    let (ok, e) = archive_study(&base.join("odd"), &base.join("bad"));
    assert!(!ok);
    assert!(
        e.contains("summit-global-gtc/sweep.csv: expected the header of bbsim sweep"),
        "{e}"
    );
    assert!(
        !base.join("bad").exists(),
        "nothing is written on bad input"
    );
    // A non-empty STUDY_ARCHIVE stops the study before any run.
    let refused = std::process::Command::new("bash")
        .arg(repo().join("study/reproduce-study.sh"))
        .arg(base.join("bad"))
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .env("STUDY_SCALE", "smoke")
        .env("STUDY_ARCHIVE", &live)
        .output()
        .expect("bash runs the script");
    assert!(!refused.status.success());
    let e = String::from_utf8_lossy(&refused.stderr);
    assert!(
        e.contains("live-b exists and is not empty; give a new archive directory"),
        "{e}"
    );
    assert!(
        !base.join("bad").exists(),
        "nothing is written on bad input"
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// The archived full-scale runs in study/archive/ (docs/study.md) stay mergeable, and
/// every matrix run is either in them or in the merge's missing.txt.
#[test]
fn the_archived_full_scale_runs_merge() {
    let data = repo().join("study/archive");
    let (out, made) = merge_archive(&data, "study-archived-runs");
    assert!(made > 0);
    // Where an archived run is also one of the figure bars of slices 6-11
    // (study/archive/slices-6-11-figure-c.csv), the two agree within the figures' rounding.
    let (code, table, err) =
        compare_study(&[&out, &data.join("slices-6-11-figure-c.csv")], Some("0"));
    assert_eq!(code, 0, "{table}{err}");
    assert!(table.lines().count() > 100, "{table}{err}");
    let _ = std::fs::remove_dir_all(&out);
}

/// Merges every slice of the archive `data` (`study/archive` or `study/archive-units`) into a
/// scratch output named `name`; returns it and the matrix runs the slices made, after
/// checking that those and the merge's `missing.txt` add up to the 297-run matrix.
fn merge_archive(data: &Path, name: &str) -> (Scratch, usize) {
    let mut slices: Vec<PathBuf> = std::fs::read_dir(data)
        .expect("archive directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("runs").is_dir())
        .collect();
    slices.sort();
    assert!(!slices.is_empty(), "no slice under {}", data.display());
    let out = scratch(name);
    let done = std::process::Command::new("bash")
        .arg(repo().join("study/merge-study.sh"))
        .arg(&*out)
        .args(&slices)
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .output()
        .expect("bash runs the script");
    assert_ok(&done);
    let sources = std::fs::read_to_string(out.join("sources.txt")).expect("sources.txt");
    let made = sources
        .lines()
        .filter(|l| !l.contains("+control,") && l.split(',').nth(2) == Some("ok"))
        .count();
    let missing = std::fs::read_to_string(out.join("missing.txt")).expect("missing.txt");
    let lacking: usize = missing
        .lines()
        .map(|l| l.rsplit(' ').next().expect("overheads").split(',').count())
        .sum();
    assert_eq!(made + lacking, 297, "{sources}\n{missing}");
    (out, made)
}

/// The matrices on units (`study/archive-units`, routed whole, and `study/archive-spread`,
/// spread over slower routes) merge, and every slice of them was made with 4 KiB packets in
/// 64 KiB units, so runs of another model cannot slip in beside them.
#[test]
fn the_units_archives_merge_and_hold_only_unit_runs() {
    for (archive, least) in [("study/archive-units", 12), ("study/archive-spread", 3)] {
        let data = repo().join(archive);
        let (out, made) = merge_archive(&data, "study-archived-unit-runs");
        assert!(made >= least, "{archive}: {made}");
        for e in std::fs::read_dir(&data).expect(archive) {
            let slice = e.expect("entry").path();
            if !slice.join("runs").is_dir() {
                continue;
            }
            let prov = std::fs::read_to_string(slice.join("provenance.txt")).expect("provenance");
            assert!(
                prov.contains("network model: packet;")
                    && prov.contains("packet size: 4KiB;")
                    && prov.contains("unit size: 64KiB"),
                "{}: {prov}",
                slice.display()
            );
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// The matrix on the current model, merged as docs/study.md gives it: every run of the units
/// archive that spreading units over slower routes leaves unchanged, and the Edison-like
/// grouped and global runs only from the spread archive, never from the units archive.
#[test]
fn the_current_model_merges_without_the_runs_spreading_changed() {
    let slices = |archive: &str| -> Vec<std::ffi::OsString> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join(archive))
            .expect("archive directory")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.join("runs").is_dir())
            .collect();
        v.sort();
        v.into_iter().map(PathBuf::into_os_string).collect()
    };
    let mut args: Vec<std::ffi::OsString> =
        ["--skip", "edison-grouped-*", "--skip", "edison-global-*"]
            .iter()
            .map(|a| a.into())
            .collect();
    args.extend(slices("study/archive-units"));
    args.push("--no-skip".into());
    args.extend(slices("study/archive-spread"));
    let out = scratch("study-current-model");
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (ok, e) = merge_study_args(&out, &args);
    assert!(ok, "{e}");
    let sources = std::fs::read_to_string(out.join("sources.txt")).expect("sources.txt");
    let (mut spread, mut units) = (0, 0);
    for line in sources.lines() {
        let name = line.split(',').next().expect("sweep");
        let shared_dragonfly =
            name.starts_with("edison-grouped-") || name.starts_with("edison-global-");
        if shared_dragonfly {
            assert!(line.contains("/study/archive-spread/"), "{line}");
            spread += 1;
        } else {
            assert!(line.contains("/study/archive-units/"), "{line}");
            units += 1;
        }
    }
    // The units archive supplies the Summit-like, tapered and Edison-like node-local runs
    // (over 200 with their control runs), the spread archive at least its single
    // applications.
    assert!(units > 200 && spread >= 20, "{units} {spread}\n{sources}");
    let _ = std::fs::remove_dir_all(&out);
}

/// This build reproduces an archived full-scale run exactly: S3D+IOR on the Summit-like
/// system's node-local BBs at 20 us (the cheapest two-job run of the matrix, a few seconds),
/// every column of its sweep.csv row but the run's index, directory and wall time.
#[test]
fn this_build_reproduces_an_archived_full_scale_run() {
    let dir = scratch("study-reproduces-archive");
    std::fs::create_dir_all(&dir).expect("scratch");
    let list = dir.join("runs.txt");
    std::fs::write(&list, "summit node-local s3d-ior 20us\n").expect("write");
    let out = dir.join("out");
    let done = std::process::Command::new("bash")
        .arg(repo().join("study/reproduce-study.sh"))
        .arg(&out)
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .env("STUDY_RUNS", &list)
        .output()
        .expect("bash runs the script");
    assert_ok(&done);
    // Column name -> value of the 20 us row, without run, dir and wall_s.
    let row = |sweep: &Path| -> std::collections::BTreeMap<String, String> {
        let text = std::fs::read_to_string(sweep).expect("sweep.csv");
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        let line = lines
            .find(|l| l.split(',').nth(2) == Some("20us"))
            .unwrap_or_else(|| panic!("no 20us row in {}", sweep.display()));
        header
            .iter()
            .zip(line.split(','))
            .filter(|(k, _)| !matches!(**k, "run" | "dir" | "wall_s"))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let archived = repo().join(
        "study/archive/2026-11-23-slice13-node-local/runs/summit-node-local-s3d-ior/sweep.csv",
    );
    let now = row(&out.join("runs/summit-node-local-s3d-ior/sweep.csv"));
    // Every column the archive has; this build may add columns (the percentiles, the time
    // in I/O phases). A job's bandwidth is now its bytes over its time in I/O phases, no
    // longer over its first-to-last I/O span: the archive's figure scaled by span / time.
    let then = row(&archived);
    // The archive's build wrote each phase's figures as `;`-separated lists; this build's
    // sweep-phases.csv has one row per phase: (job, column) -> the 20 us run's list.
    let phases = {
        let text =
            std::fs::read_to_string(out.join("runs/summit-node-local-s3d-ior/sweep-phases.csv"))
                .expect("sweep-phases.csv");
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().expect("header").split(',').collect();
        let mut lists = std::collections::BTreeMap::<String, Vec<String>>::new();
        for l in lines {
            let cells: std::collections::BTreeMap<&str, &str> =
                header.iter().copied().zip(l.split(',')).collect();
            if cells["burst_buffer.ssd.op_overhead_s"] != "0.00002" {
                continue;
            }
            for (old, c) in [
                ("io_phase_lengths_s", "length_s"),
                ("io_phase_time_in_io_max_s", "time_in_io_max_s"),
            ] {
                lists
                    .entry(format!("job{}_{old}", cells["job"]))
                    .or_default()
                    .push(cells[c].to_string());
            }
        }
        lists
    };
    let num = |m: &std::collections::BTreeMap<String, String>, k: &str| -> f64 {
        m[k].parse().unwrap_or_else(|_| panic!("{k}: {}", m[k]))
    };
    for (k, v) in &then {
        if let Some(job) = k.strip_suffix("_bandwidth_Bps") {
            let span = num(&now, &format!("{job}_io_phase_s"));
            let io = num(&now, &format!("{job}_io_time_s"));
            let want = num(&then, k) * span / io;
            assert!(
                (num(&now, k) - want).abs() <= 1e-6 * want + 1.0,
                "column {k}"
            );
            continue;
        }
        if let Some(list) = phases.get(k) {
            assert_eq!(&list.join(";"), v, "column {k}");
            continue;
        }
        assert_eq!(now.get(k), Some(v), "column {k}");
    }
    assert_eq!(now["burst_buffer.ssd.op_overhead_s"], "0.00002");
    assert_eq!(now["status"], "ok");
    assert_eq!(now["job1_name"], "ior");
    // The columns the archive's build did not write: IOR's 768 ranks, 6 per node-local SSD,
    // all take about 4.6 s, so its 99th percentile is within a few per cent of its slowest.
    let secs = |k: &str| -> f64 { now[k].parse().unwrap_or_else(|_| panic!("{k}: {}", now[k])) };
    assert!(!then.contains_key("job1_time_in_io_p99_s"));
    let (p99, max) = (secs("job1_time_in_io_p99_s"), secs("job1_time_in_io_max_s"));
    assert!(
        p99 <= max && p99 > 0.95 * max,
        "IOR p99 {p99} s, max {max} s"
    );
    assert_eq!(
        now["job1_phase1_time_in_io_p99_s"], now["job1_time_in_io_p99_s"],
        "IOR writes in one phase"
    );
    assert!(now.values().all(|v| !v.contains(';')), "{now:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `study/compare-study.sh ARGS` with `COMPARE_TOLERANCE` if given; returns (exit
/// code, stdout, stderr).
fn compare_study(args: &[&Path], tolerance: Option<&str>) -> (i32, String, String) {
    let mut c = std::process::Command::new("bash");
    c.arg(repo().join("study/compare-study.sh")).args(args);
    if let Some(t) = tolerance {
        c.env("COMPARE_TOLERANCE", t);
    }
    let done = c.output().expect("bash runs the script");
    (
        done.status.code().expect("exit code"),
        String::from_utf8_lossy(&done.stdout).to_string(),
        String::from_utf8_lossy(&done.stderr).to_string(),
    )
}

/// `compare-study.sh` matches runs by system, placement, job, setting and overhead, takes the
/// last reference where two hold a run, allows for a rounded reference's last digit, and
/// fails outside `COMPARE_TOLERANCE` with exit status 2.
#[test]
fn compare_script_matches_runs_and_checks_a_tolerance() {
    let dir = scratch("study-compare");
    std::fs::create_dir_all(&dir).expect("scratch");
    let write = |name: &str, rows: &str| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(
            &p,
            format!("system,job,setting,placement,op_overhead,phase1_time_in_io_max_s\n{rows}"),
        )
        .expect("write");
        p
    };
    let older = write(
        "older.csv",
        "summit,gtc,alone,global,20us,3.887\nsummit,ior,with gtc,global,20us,2.000\n",
    );
    let newer = write("newer.csv", "summit,ior,with gtc,global,20us,1.000\n");
    let cand = write(
        "candidate.csv",
        "summit,gtc,alone,global,20us,3.8874\nsummit,ior,with gtc,global,20us,1.01\n\
         summit,hacc,alone,global,20us,0.5\n",
    );
    let (code, out, err) = compare_study(&[&cand, &older, &newer], None);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "system,placement,job,setting,op_overhead,reference_s,candidate_s,difference_pct,within\n\
         summit,global,gtc,alone,20us,3.887,3.8874,0.010,-\n\
         summit,global,ior,with gtc,20us,1.000,1.01,1.000,-\n"
    );
    assert!(
        err.contains("2 runs and jobs matched a reference, 1 of the candidate had none"),
        "{err}"
    );
    // GTC's 0.4 ms is within the reference's rounding (3.887 is 3.8865-3.8875); IOR's 1 % is not.
    let (code, out, err) = compare_study(&[&cand, &older, &newer], Some("0"));
    assert_eq!(code, 2, "{err}");
    assert!(
        out.contains("3.8874,0.010,yes\n") && out.contains("1.01,1.000,no\n"),
        "{out}"
    );
    assert!(err.contains("1 outside 0 %"), "{err}");
    let (code, _, err) = compare_study(&[&cand, &older, &newer], Some("1.5"));
    assert_eq!(code, 0, "{err}");

    // A real use: the path model against the packet model at smoke scale. The packet-model
    // study compared with itself matches every row of its jobs.csv exactly.
    let packet = dir.join("packet");
    let path = dir.join("path");
    let settings = [
        ("STUDY_PLACEMENTS", "global"),
        ("STUDY_MIXES", "gtc-ior"),
        ("STUDY_OVERHEADS_FATTREE", "20us"),
    ];
    smoke_study(&packet, &settings);
    let mut with_path = settings.to_vec();
    with_path.push(("STUDY_NETWORK_MODEL", "path"));
    smoke_study(&path, &with_path);
    let (code, out, err) = compare_study(&[&packet, &packet], Some("0"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1 + 2, "{out}");
    assert!(
        out.lines().skip(1).all(|l| l.ends_with(",0.000,yes")),
        "{out}"
    );
    let (code, out, err) = compare_study(&[&path, &packet], Some("0"));
    assert_eq!(
        code, 2,
        "the path model is not the packet model: {out}{err}"
    );
    assert!(
        err.contains("gtc: largest difference") && err.contains("ior: largest difference"),
        "{err}"
    );

    // Bad input: named errors, exit status 1.
    let no_column = dir.join("no-column.csv");
    std::fs::write(
        &no_column,
        "system,job,setting,placement,phase1_time_in_io_max_s\n",
    )
    .expect("write");
    let not_a_time = write(
        "not-a-time.csv",
        "summit,gtc,alone,global,20us,3.887\nsummit,gtc,alone,grouped,20us,fast\n",
    );
    let missing = dir.join("missing.csv");
    let cases: [(&[&Path], Option<&str>, String); 6] = [
        (
            &[&cand],
            None,
            "usage: study/compare-study.sh CANDIDATE REFERENCE...".into(),
        ),
        (
            &[&cand, &no_column],
            None,
            format!(
                "{}: no column op_overhead in the header",
                no_column.display()
            ),
        ),
        (
            &[&cand, &not_a_time],
            None,
            format!(
                "{}:3: phase1_time_in_io_max_s is \"fast\", expected a time in seconds",
                not_a_time.display()
            ),
        ),
        (
            &[&cand, &missing],
            None,
            format!("{}: no such file or directory", missing.display()),
        ),
        (
            &[&dir, &older],
            None,
            format!("{}: no jobs.csv", dir.display()),
        ),
        (
            &[&cand, &older],
            Some("5%"),
            "COMPARE_TOLERANCE=5%: expected a percentage such as 2 or 0.5".into(),
        ),
    ];
    for (args, tolerance, message) in cases {
        let (code, out, err) = compare_study(args, tolerance);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(
            err.contains(&message),
            "{args:?}: expected '{message}' in: {err}"
        );
    }
    let elsewhere = write("elsewhere.csv", "edison,gtc,alone,global,25us,4.0\n");
    let (code, _, err) = compare_study(&[&cand, &elsewhere], None);
    assert_eq!(code, 1);
    assert!(
        err.contains("no run and job of the candidate has a reference"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Slices from builds with and without the percentile columns merge by column name: the
/// older build's rows keep each value under its own column and leave the percentiles empty;
/// this build's rows fill them, and jobs.csv carries them on. The older build's per-phase
/// lists give the first phase's figures; the merged tables hold no list.
#[test]
fn slices_of_older_builds_merge_by_column_name() {
    let out = scratch("study-mixed-builds");
    let new = out.join("new");
    smoke_study(
        &new,
        &[("STUDY_PLACEMENTS", "grouped"), ("STUDY_MIXES", "s3d-ior")],
    );
    // Written before the percentiles: ten columns per job.
    let old = repo().join("study/archive/2026-11-23-slice13-node-local");
    let old_sweep = old.join("runs/summit-node-local-s3d-ior/sweep.csv");
    assert!(!std::fs::read_to_string(&old_sweep)
        .expect("archived sweep.csv")
        .contains("p99"));
    let merged = out.join("merged");
    let done = std::process::Command::new("bash")
        .arg(repo().join("study/merge-study.sh"))
        .arg(&merged)
        .args([&old, &new])
        .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
        .output()
        .expect("bash runs the script");
    assert_ok(&done);
    let table = |p: &Path| -> Vec<std::collections::BTreeMap<String, String>> {
        let text = std::fs::read_to_string(p).expect("csv");
        let mut lines = text.lines();
        let header: Vec<String> = lines
            .next()
            .expect("header")
            .split(',')
            .map(String::from)
            .collect();
        lines
            .map(|l| {
                let v: Vec<&str> = l.split(',').collect();
                assert_eq!(v.len(), header.len(), "{}: {l}", p.display());
                header
                    .iter()
                    .cloned()
                    .zip(v.iter().map(|s| s.to_string()))
                    .collect()
            })
            .collect()
    };
    for f in ["sweep.csv", "jobs.csv"] {
        let text = std::fs::read_to_string(merged.join(f)).expect(f);
        assert!(!text.contains(';'), "{f}: {text}");
    }
    let rows = table(&merged.join("sweep.csv"));
    let archived = table(&old_sweep);
    let mut seen = (0, 0);
    for r in &rows {
        if (r["system"].as_str(), r["mix"].as_str()) != ("summit", "s3d-ior") {
            continue;
        }
        if r["placement"] == "node-local" {
            seen.0 += 1;
            let a = archived
                .iter()
                .find(|a| a["burst_buffer.ssd.op_overhead"] == r["op_overhead"])
                .expect("archived row");
            for c in [
                "events",
                "job0_time_in_io_mean_s",
                "job1_io_phase_s",
                "job1_nonminimal_fraction",
            ] {
                assert_eq!(r[c], a[c], "{c} at {}", r["op_overhead"]);
            }
            // The older build's per-phase lists give the first phase's figure, its
            // overhead as given the overhead in seconds.
            for j in ["job0", "job1"] {
                let list = &a[&format!("{j}_io_phase_time_in_io_max_s")];
                let first = list.split(';').next().expect("a phase");
                assert_eq!(r[&format!("{j}_phase1_time_in_io_max_s")], first);
            }
            let ovh = r["op_overhead"].trim_end_matches("us");
            let secs: f64 = r["op_overhead_s"].parse().expect("op_overhead_s");
            assert!((secs * 1e6 - ovh.parse::<f64>().expect("us")).abs() < 1e-9);
            assert_eq!(r["job0_time_in_io_p99_s"], "");
            assert_eq!(r["job1_phase1_time_in_io_p99_s"], "");
        } else {
            seen.1 += 1;
            for j in ["job0", "job1"] {
                assert!(!r[&format!("{j}_phase1_time_in_io_max_s")].is_empty());
                let p99: f64 = r[&format!("{j}_time_in_io_p99_s")].parse().expect("p99");
                let max: f64 = r[&format!("{j}_time_in_io_max_s")].parse().expect("max");
                assert!(p99 > 0.0 && p99 <= max, "{j}: {p99} > {max}");
            }
        }
    }
    assert_eq!(seen, (3, 3));
    let jobs = table(&merged.join("jobs.csv"));
    let s3d = |pl: &str| {
        jobs.iter()
            .filter(|j| j["system"] == "summit" && j["placement"] == pl && j["job"] == "s3d")
            .filter(|j| j["setting"] == "with ior")
            .collect::<Vec<_>>()
    };
    assert_eq!(s3d("node-local").len(), 3);
    assert!(s3d("node-local").iter().all(|j| {
        j["phase1_time_in_io_p99_s"].is_empty()
            && j["packet_hops"].is_empty()
            && j["packet_nonminimal_share"].is_empty()
            && !j["avg_hops"].is_empty()
    }));
    assert_eq!(s3d("grouped").len(), 3);
    for j in s3d("grouped") {
        let p99: f64 = j["phase1_time_in_io_p99_s"].parse().expect("p99");
        let max: f64 = j["phase1_time_in_io_max_s"].parse().expect("max");
        assert!(p99 > 0.0 && p99 <= max, "{j:?}");
        // Routing per packet: on a fat-tree every route is minimal, and a job on the
        // grouped placement crosses at least its edge switch.
        let hops: f64 = j["packet_hops"].parse().expect("packet_hops");
        assert!(hops >= 1.0, "{j:?}");
        let share: f64 = j["packet_nonminimal_share"].parse().expect("share");
        assert_eq!(share, 0.0, "{j:?}");
        let row = rows
            .iter()
            .find(|r| {
                (
                    r["system"].as_str(),
                    r["placement"].as_str(),
                    r["mix"].as_str(),
                ) == ("summit", "grouped", "s3d-ior")
                    && r["op_overhead"] == j["op_overhead"]
            })
            .expect("the job's sweep row");
        assert_eq!(j["packet_hops"], row["job0_packet_hops"], "{j:?}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
