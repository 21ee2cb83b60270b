//! One workload, every placement: keys of other placements are reported as unused, `--unset`
//! removes a key, and the shipped system files compose with `include`.

use crate::common::*;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenario(name: &str) -> String {
    repo()
        .join("scenarios")
        .join(name)
        .to_str()
        .expect("utf-8")
        .to_string()
}

/// The quickstart, shrunk to a few MiB per rank.
const SMALL: &[&str] = &crate::common::SMALL_QUICKSTART;

#[test]
fn the_quickstart_sweeps_over_every_placement() {
    let out = scratch("every-placement");
    let q = scenario("quickstart.toml");
    let mut args = vec![
        "sweep",
        q.as_str(),
        "--vary",
        "burst_buffer.placement=none,node-local,grouped,global",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(SMALL);
    let o = run_ok(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    // Unused keys are warned about, with the combination they belong to.
    assert!(
        err.contains("`burst_buffer.stripe_count`: unused with burst_buffer.placement = \"none\"")
            && err.contains("(in the sweep combination run-000_placement=none)"),
        "{err}"
    );
    assert!(
        err.contains(
            "`burst_buffer.ssds_per_server`: unused with burst_buffer.placement = \"node-local\""
        ),
        "{err}"
    );
    let csv = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{csv}");
    for p in ["none", "node-local", "grouped", "global"] {
        let s = read_json(&out.join(format!(
            "run-{:03}_placement={p}/summary.json",
            ["none", "node-local", "grouped", "global"]
                .iter()
                .position(|x| *x == p)
                .expect("placement")
        )));
        assert_eq!(s["machine"]["placement"], p, "{p}");
        // The echo keeps the keys as written.
        assert_eq!(s["scenario"]["burst_buffer"]["ssds_per_server"], 2, "{p}");
        // Global servers fill the 2 free switches, 4 each.
        if p == "global" {
            assert_eq!(s["machine"]["bb_servers"], 8);
        }
    }
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn validate_lists_keys_unused_by_the_placement() {
    let q = scenario("quickstart.toml");
    let o = run_ok(&[
        "validate",
        &q,
        "--set",
        "burst_buffer.placement=node-local",
        "--set",
        "burst_buffer.routers_per_server=2",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(": valid"), "{text}");
    assert!(
        text.contains("unused with placement = \"node-local\""),
        "{text}"
    );
    for key in [
        "`burst_buffer.routers_per_server`: unused with burst_buffer.placement = \"node-local\": it applies to placement = \"grouped\" only",
        "quickstart.toml:29:1: `burst_buffer.ssds_per_server`",
    ] {
        assert!(text.contains(key), "{key} missing:\n{text}");
    }
    // Nothing unused, nothing listed.
    let o = run_ok(&["validate", &q]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("unused"));
    // `run` warns on stderr and runs.
    let out = scratch("unused-run");
    let mut args = vec![
        "run",
        q.as_str(),
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
        "--set",
        "burst_buffer.placement=node-local",
    ];
    args.extend_from_slice(&SMALL[..10]);
    let o = run_ok(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: ") && err.contains("`burst_buffer.stripe_count`: unused"),
        "{err}"
    );
    assert!(out.join("summary.json").exists());
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn a_study_mix_validates_under_every_placement() {
    let gtc = scenario("study/gtc.toml");
    for p in ["none", "node-local", "grouped", "global"] {
        let o = run_ok(&[
            "validate",
            &gtc,
            "--set",
            &format!("burst_buffer.placement={p}"),
        ]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("7680 ranks on 1280 nodes"), "{p}: {text}");
        assert_eq!(text.contains("unused with"), p != "global", "{p}: {text}");
    }
}

#[test]
fn unset_takes_the_default_and_refuses_unknown_keys() {
    let q = scenario("quickstart.toml");
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["validate", q.as_str(), "--json"];
        args.extend_from_slice(extra);
        serde_json::from_slice(&run_ok(&args).stdout).expect("json")
    };
    // ssds_per_server = 2 in the file; its default is 1.
    assert_eq!(json(&[])["bb_ssds"], 60);
    assert_eq!(
        json(&["--unset", "burst_buffer.ssds_per_server"])["bb_ssds"],
        30
    );
    // Unsetting a key the file does not set changes nothing.
    assert_eq!(json(&["--unset", "burst_buffer.grain"])["bb_ssds"], 60);
    let err = run_err(&["validate", &q, "--unset", "burst_buffer.ssds_per_servr"]);
    assert!(
        err.contains("--unset burst_buffer.ssds_per_servr")
            && err.contains("unknown key `ssds_per_servr`; did you mean `ssds_per_server`?"),
        "{err}"
    );
    let err = run_err(&["run", &q, "--unset", "nope"]);
    assert!(err.contains("unknown key `nope`"), "{err}");
    // In a sweep, --unset applies to every run.
    let out = scratch("unset-sweep");
    let mut args = vec![
        "sweep",
        q.as_str(),
        "--quiet",
        "--vary",
        "burst_buffer.stripe_count=2,4",
        "--unset",
        "burst_buffer.ssds_per_server",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(&SMALL[..10]);
    run_ok(&args);
    for dir in ["run-000_stripe_count=2", "run-001_stripe_count=4"] {
        let s = read_json(&out.join(dir).join("summary.json"));
        assert_eq!(s["machine"]["bb_ssds"], 30, "{dir}");
    }
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn every_system_variant_includes_its_base_and_validates() {
    for sys in ["summit", "summit-tapered", "edison"] {
        for p in ["global", "grouped", "node-local"] {
            let f = scenario(&format!("{sys}-{p}.toml"));
            let text = std::fs::read_to_string(&f).expect("variant");
            assert!(
                text.contains(&format!("include = \"systems/{sys}.toml\"")),
                "{f}"
            );
            let o = run_ok(&["validate", &f]);
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(
                out.contains(": valid") && !out.contains("unused"),
                "{f}: {out}"
            );
        }
    }
    // An error in a key of the shared machine names the system file and its line.
    let f = scenario("summit-grouped.toml");
    let err = run_err(&["validate", &f, "--set", "network.topology=torus"]);
    assert!(err.contains("scenarios/systems/summit.toml:"), "{err}");
}

#[test]
fn a_study_workload_runs_under_every_placement() {
    // The study's GTC file on the Summit-like machine, at 48 ranks of 4 MB: one sweep over
    // the four placements, every run finishing.
    let out = scratch("study-every-placement");
    let gtc = scenario("study/gtc.toml");
    run_ok(&[
        "sweep",
        gtc.as_str(),
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
        "--set",
        "jobs.0.ranks=48",
        "--set",
        "jobs.0.bytes_per_rank=4MB",
        "--vary",
        "burst_buffer.placement=none,node-local,grouped,global",
    ]);
    let csv = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 4);
    for (row, placement) in rows.iter().zip(["none", "node-local", "grouped", "global"]) {
        assert!(row.contains(&format!(",{placement},ok,")), "{row}");
    }
}
