//! `scripts/thread-curve.py` (a scenario timed at several thread counts and partitions): a
//! curve prints every run and the table with one digest throughout, a run whose results
//! differ fails the script, and bad arguments are named errors.

use crate::common::{repo, script, text};
use std::process::Output;

fn curve(args: &[&str]) -> Output {
    script("python3", "scripts/thread-curve.py", args)
}

#[test]
fn every_thread_count_and_partition_is_timed_with_one_digest() {
    let bin = env!("CARGO_BIN_EXE_bbsim");
    let scenario = repo().join("scenarios/quickstart.toml");
    let o = curve(&[
        bin,
        scenario.to_str().unwrap(),
        "--threads",
        "1",
        "2",
        "--partitions",
        "regions",
        "routers",
        "--",
        "--set",
        "jobs.0.ranks=12",
        "--set",
        "jobs.1.ranks=12",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let runs: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(runs.len(), 4, "{out}");
    let digest = runs[0][8];
    for r in &runs {
        assert_eq!(r.len(), 9, "{out}");
        assert_eq!(r[8], digest, "{out}");
        assert_eq!(r[4], runs[0][4], "the same events: {out}");
    }
    // The partitions and thread counts all appear, one thread handling everything itself.
    let one = runs
        .iter()
        .find(|r| r[1] == "regions" && r[2] == "1")
        .expect("regions on one thread");
    assert_eq!(one[5], "0", "{out}");
    assert!(
        runs.iter().any(|r| r[1] == "routers" && r[2] == "2"),
        "{out}"
    );
    assert!(
        out.contains("| regions | 1 |") && out.contains("1.00 ×"),
        "{out}"
    );
    assert!(out.contains("| routers | 2"), "{out}");
}

#[test]
fn differing_results_and_bad_arguments_fail() {
    let dir = tempfile::tempdir().expect("a scratch directory");
    // A stand-in for bbsim whose digest depends on the thread count.
    let fake = dir.path().join("fake-bbsim");
    std::fs::write(
        &fake,
        r#"#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift ;;
    --threads) t=$2; shift ;;
  esac
  shift
done
mkdir -p "$out"
printf '{"results_digest": "d%s", "run": {"wall_s": 1.0, "events": 10, "parallel_events": 0, "per_thread_events": [10], "barrier_wait_s": 0.0}}\n' "$t" > "$out/summary.json"
"#,
    )
    .expect("written");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let scenario = repo().join("scenarios/quickstart.toml");
    let sc = scenario.to_str().unwrap();
    let o = curve(&[fake.to_str().unwrap(), sc, "--threads", "1", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("results differ: regions on 2 threads gave digest d2"),
        "{}",
        text(&o)
    );
    let bin = env!("CARGO_BIN_EXE_bbsim");
    let cases: [(&[&str], &str); 4] = [
        (&["/no/such/bbsim", sc], "/no/such/bbsim: not an executable"),
        (
            &[bin, "/no/such.toml"],
            "/no/such.toml: no such scenario file",
        ),
        (&[bin, sc, "--rounds", "0"], "--rounds must be at least 1"),
        (&[bin, sc, "--threads", "0"], "--threads must be positive"),
    ];
    for (args, message) in cases {
        let o = curve(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(message), "{args:?}: {}", text(&o));
    }
    // bbsim's own diagnostic comes through.
    let o = curve(&[bin, sc, "--threads", "1", "--", "--set", "jobs.0.rankz=12"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("rankz"), "{}", text(&o));
}
