//! `scripts/paired-run.sh` (two bbsim binaries timed side by side): a run reports both sides
//! with their event counts, and bad arguments or a failing run are named errors with a
//! non-zero exit.

use crate::common::{repo, script, text};
use std::path::Path;
use std::process::Output;

fn paired(args: &[&str]) -> Output {
    script("bash", "scripts/paired-run.sh", args)
}

#[test]
fn both_sides_are_timed_with_equal_event_counts() {
    if !Path::new("/usr/bin/time").exists() {
        eprintln!("skipped: no /usr/bin/time on this machine");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_bbsim");
    let scenario = repo().join("scenarios/quickstart.toml");
    let o = paired(&[
        bin,
        bin,
        scenario.to_str().unwrap(),
        "1",
        "--",
        "--set",
        "jobs.0.ranks=12",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let events: Vec<&str> = out
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(events.len(), 2, "{out}");
    assert!(
        out.contains("round 1 old: wall ") && out.contains("round 1 new: wall "),
        "{out}"
    );
    assert_eq!(events[0], events[1], "{out}");
    assert!(events[0].parse::<u64>().unwrap_or(0) > 0, "{out}");
    // peak memory of each side, in MB (a bbsim run holds at least a few)
    for line in out.lines() {
        let rss = line
            .split("max RSS ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|r| r.parse::<u64>().ok());
        assert!(rss.is_some_and(|mb| mb > 0), "{line}");
    }
}

#[test]
fn bad_arguments_and_failing_runs_are_named() {
    let bin = env!("CARGO_BIN_EXE_bbsim");
    let scenario = repo().join("scenarios/quickstart.toml");
    let sc = scenario.to_str().unwrap();
    let cases: [(&[&str], i32, &str); 4] = [
        (&[bin], 2, "OLD_BBSIM NEW_BBSIM SCENARIO"),
        (
            &["/no/such/bbsim", bin, sc],
            2,
            "/no/such/bbsim: not an executable",
        ),
        (
            &[bin, bin, "/no/such.toml"],
            2,
            "/no/such.toml: no such scenario file",
        ),
        (
            &[bin, bin, sc, "two"],
            2,
            "ROUNDS must be a positive whole number, not 'two'",
        ),
    ];
    for (args, code, message) in cases {
        let o = paired(args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(message), "{args:?}: {}", text(&o));
    }
    if Path::new("/usr/bin/time").exists() {
        // bbsim's own diagnostic (a misspelt key) comes through, and the script fails.
        let o = paired(&[bin, bin, sc, "--", "--set", "jobs.0.rankz=12"]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let t = text(&o);
        assert!(
            t.contains("the old binary failed") && t.contains("rankz"),
            "{t}"
        );
    }
}
