//! `bbsim size`: the search finds the design `--exhaustive` finds while running fewer, bad
//! targets fail before any run, a target no design meets says how close the best came, and
//! `--unset` gives every design the key's default.

use crate::common::*;
use std::path::PathBuf;

fn quickstart() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/quickstart.toml")
        .to_str()
        .expect("utf-8 path")
        .to_string()
}

/// `bbsim size` on a shrunk quickstart (12-rank jobs, a few milliseconds each) over
/// placement x SSDs per server x SSD write bandwidth (24 designs).
fn size_args(out: &str, targets: &[&str], extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "size",
        &quickstart(),
        "--set",
        "jobs.0.ranks=12",
        "--set",
        "jobs.1.ranks=12",
        "--set",
        "jobs.0.block_size=4MiB",
        "--dim",
        "burst_buffer.placement=none,grouped",
        "--dim",
        "burst_buffer.ssds_per_server=1..8",
        "--dim",
        "burst_buffer.ssd.write_bandwidth=2GB/s,0.5GB/s,1GB/s",
        "--out",
        out,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for t in targets {
        v.push("--target".into());
        v.push(t.to_string());
    }
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn stdout_of(args: &[String]) -> String {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    String::from_utf8_lossy(&run_ok(&a).stdout).to_string()
}

fn line_with<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in:\n{text}"))
}

#[test]
fn search_finds_the_exhaustive_design_with_fewer_runs() {
    let dir = scratch("size-search");
    let targets = ["io_time_max_s[ior]<=5ms", "end_time_s<=1s"];
    let (a, b) = (dir.join("search"), dir.join("all"));
    let search = stdout_of(&size_args(
        a.to_str().expect("utf-8"),
        &targets,
        &["--jobs", "2"],
    ));
    let all = stdout_of(&size_args(
        b.to_str().expect("utf-8"),
        &targets,
        &["--jobs", "2", "--exhaustive"],
    ));
    let chosen = line_with(&search, "chosen: ");
    assert_eq!(chosen, line_with(&all, "chosen: "), "{search}\n{all}");
    assert!(
        chosen.contains("placement=grouped ssds_per_server=1 write_bandwidth=2GB/s"),
        "{chosen}"
    );
    assert!(line_with(&all, "ran ").starts_with("ran 24 of 24 designs (saved 0)"));
    let ran = line_with(&search, "ran ");
    let saved: usize = ran
        .split("(saved ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{ran}"));
    assert!(saved > 0, "{ran}");
    // One CSV row per design run, its columns named with the targets.
    let csv = std::fs::read_to_string(a.join("sizing.csv")).expect("sizing.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "design,dir,burst_buffer.placement,burst_buffer.ssds_per_server,\
             burst_buffer.ssd.write_bandwidth,cost_usd,io_time_max_s[ior],end_time_s,feasible,reason"
        )
    );
    assert_eq!(lines.count(), 24 - saved);
    let svg = std::fs::read_to_string(a.join("sizing.svg")).expect("sizing.svg");
    assert!(svg.contains("chosen: placement=grouped") && svg.contains("total cost (US$)"));
    // Same answer one design at a time.
    let c = dir.join("one");
    let one = stdout_of(&size_args(c.to_str().expect("utf-8"), &targets, &[]));
    assert_eq!(chosen, line_with(&one, "chosen: "));
}

#[test]
fn bad_targets_fail_before_any_run() {
    let dir = scratch("size-bad");
    let out = dir.to_str().expect("utf-8");
    let err_of = |t: &str| {
        let args = size_args(out, &[t], &[]);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        run_err(&a)
    };
    let e = err_of("io_wait_s<=2");
    assert!(e.contains("unknown metric `io_wait_s`"), "{e}");
    assert!(
        e.contains("io_time_max_s") && e.contains("end_time_s"),
        "{e}"
    );
    let e = err_of("io_time_max_s<=-2s");
    assert!(e.contains("can never be met"), "{e}");
    let e = err_of("io_time_max_s=2");
    assert!(
        e.contains("expected METRIC<=VALUE or METRIC[JOB]<=VALUE"),
        "{e}"
    );
    let e = err_of("io_time_max_s[ckpt]<=2");
    assert!(
        e.contains("no job named `ckpt`") && e.contains("ior, checkpoint"),
        "{e}"
    );
    let e = err_of("io_time_max_s<=2 parsecs");
    assert!(e.contains("cannot read `2 parsecs`"), "{e}");
    assert!(
        !dir.exists(),
        "nothing may run before the targets are checked"
    );
}

#[test]
fn a_design_that_does_not_load_is_named_before_any_run() {
    let dir = scratch("size-bad-design");
    let out = dir.to_str().expect("utf-8");
    // The first design, and a later one (loaded while pricing them all).
    for (bandwidth, design) in [
        ("0GB/s,1GB/s", "burst_buffer.ssd.write_bandwidth=0GB/s"),
        ("1GB/s,0GB/s", "burst_buffer.ssd.write_bandwidth=0GB/s"),
    ] {
        let args = [
            "size",
            &quickstart(),
            "--dim",
            "burst_buffer.ssds_per_server=1,2",
            "--dim",
            &format!("burst_buffer.ssd.write_bandwidth={bandwidth}"),
            "--target",
            "io_time_max_s<=2s",
            "--out",
            out,
        ];
        let e = run_err(&args);
        assert!(e.contains("write_bandwidth"), "{e}");
        assert!(
            e.contains(&format!(
                "(in the design burst_buffer.ssds_per_server=1 {design})"
            )),
            "{e}"
        );
    }
    assert!(!dir.exists(), "nothing may run before every design loads");
}

#[test]
fn an_unmet_target_says_how_close_the_best_came() {
    let dir = scratch("size-unmet");
    let args = size_args(
        dir.to_str().expect("utf-8"),
        &["io_time_max_s[ior]<=1us", "end_time_s<=10s"],
        &["--jobs", "2"],
    );
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let e = run_err(&a);
    assert!(e.contains("no design meets every target"), "{e}");
    assert!(
        e.contains("no design run meets io_time_max_s[ior]<=0.000001 s"),
        "{e}"
    );
    assert!(!e.contains("meets end_time_s"), "{e}");
    let best = line_with(
        e.lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
            .as_str(),
        "io_time_max_s[ior]: ",
    )
    .to_string();
    assert!(
        best.contains("x the target") && best.contains("by design"),
        "{best}"
    );
    assert!(dir.join("sizing.csv").exists());
}

#[test]
fn unset_gives_every_design_the_default() {
    let dir = scratch("size-unset");
    let csv_of = |name: &str, extra: &[&str]| {
        let out = dir.join(name);
        let args = size_args(
            out.to_str().expect("utf-8"),
            &["io_time_max_s<=0.01s"],
            extra,
        );
        stdout_of(&args);
        std::fs::read_to_string(out.join("sizing.csv")).expect("sizing.csv")
    };
    // The quickstart's SSDs take 20 us per operation; the default is none.
    let scenario = csv_of("scenario", &[]);
    let unset = csv_of("unset", &["--unset", "burst_buffer.ssd.op_overhead"]);
    let zero = csv_of("zero", &["--set", "burst_buffer.ssd.op_overhead=0us"]);
    assert_eq!(unset, zero);
    assert_ne!(
        unset, scenario,
        "the unset key must change the designs' times"
    );
    // An unknown key fails before any design runs, naming the key.
    let out = dir.join("bad");
    let args = size_args(
        out.to_str().expect("utf-8"),
        &["io_time_max_s<=0.01s"],
        &["--unset", "burst_buffer.ssd.op_overheads"],
    );
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let e = run_err(&a);
    assert!(
        e.contains("--unset burst_buffer.ssd.op_overheads") && e.contains("unknown key"),
        "{e}"
    );
    assert!(
        !out.exists(),
        "nothing may run before the edits are checked"
    );
}
