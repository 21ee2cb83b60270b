//! What an installed binary needs on its own: the built-in examples, the version with its
//! commit, and `scenario.resolved.toml` beside every run's outputs.

use std::path::Path;

use crate::common::*;

/// Every file of two output directories, byte for byte, except `summary.json`'s `run` block
/// (wall time, threads).
fn assert_same_outputs(a: &Path, b: &Path) {
    let names = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .expect("output dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(a), names(b));
    for f in names(a) {
        if f == "summary.json" {
            let mut x = read_json(&a.join(&f));
            let mut y = read_json(&b.join(&f));
            x.as_object_mut().expect("object").remove("run");
            y.as_object_mut().expect("object").remove("run");
            assert_eq!(x, y, "summary.json differs");
        } else {
            let x = std::fs::read(a.join(&f)).expect("read");
            let y = std::fs::read(b.join(&f)).expect("read");
            assert!(
                x == y,
                "{f} differs between {} and {}",
                a.display(),
                b.display()
            );
        }
    }
}

#[test]
fn the_resolved_scenario_repeats_the_run() {
    // A scenario built from an include, then edited on the command line.
    let dir = scratch("resolved");
    std::fs::create_dir_all(dir.join("machine")).expect("mkdir");
    std::fs::copy(data("tiny-fattree.toml"), dir.join("machine/base.toml")).expect("copy");
    std::fs::write(
        dir.join("top.toml"),
        "include = \"machine/base.toml\"\nname = \"composed\"\n\n[burst_buffer.ssd]\nop_overhead = \"5us\"\n",
    )
    .expect("write");
    let first = dir.join("first");
    run_scenario(
        &dir.join("top.toml"),
        &first,
        &[
            "--set",
            "burst_buffer.ssds_per_server=2",
            "--unset",
            "burst_buffer.stripe_count",
            "--threads",
            "2",
        ],
    );
    let resolved = first.join("scenario.resolved.toml");
    let text = std::fs::read_to_string(&resolved).expect("scenario.resolved.toml");
    let t: toml::Table = text.parse().expect("valid TOML");
    assert!(t.get("include").is_none(), "includes are merged:\n{text}");
    assert_eq!(t["name"].as_str(), Some("composed"));
    let bb = &t["burst_buffer"];
    assert_eq!(bb["ssds_per_server"].as_integer(), Some(2), "--set applied");
    assert_eq!(
        bb["stripe_count"].as_integer(),
        Some(4),
        "--unset: the default"
    );
    assert_eq!(
        bb["placement"].as_str(),
        Some("grouped"),
        "from the include"
    );
    assert_eq!(bb["ssd"]["op_overhead"].as_str(), Some("5us"));
    assert_eq!(
        bb["ssd"]["capacity"].as_str(),
        Some("64GB"),
        "from the include"
    );
    assert_eq!(t["jobs"].as_array().map(Vec::len), Some(2));
    // The same form as summary.json's echo.
    let echo = &read_json(&first.join("summary.json"))["scenario"];
    assert_eq!(echo["burst_buffer"]["ssds_per_server"], 2);
    assert_eq!(echo["burst_buffer"]["stripe_count"], 4);

    // Run from elsewhere, with another thread count: every output is identical, the
    // resolved scenario included.
    let second = dir.join("second");
    run_scenario(&resolved, &second, &["--threads", "1"]);
    assert_same_outputs(&first, &second);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn relative_trace_paths_become_absolute_in_the_resolved_scenario() {
    let dir = scratch("resolved-paths");
    std::fs::create_dir_all(dir.join("logs")).expect("mkdir");
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../workload/tests/data/pq_app_write_id71296_7-31-5657-2037904274838284930_55623.darshan",
    );
    std::fs::copy(&log, dir.join("logs/app.darshan")).expect("copy log");
    let base = std::fs::read_to_string(data("tiny-fattree.toml")).expect("fixture");
    let jobs_at = base.find("[[jobs]]").expect("jobs");
    let scenario = format!(
        "{}[[jobs]]\nname = \"replay\"\nsource = \"darshan\"\nlog = \"logs/app.darshan\"\nranks_per_node = 1\n",
        &base[..jobs_at]
    );
    std::fs::write(dir.join("s.toml"), scenario).expect("write");
    let out = dir.join("out");
    run_scenario(&dir.join("s.toml"), &out, &[]);
    let resolved = out.join("scenario.resolved.toml");
    let t: toml::Table = std::fs::read_to_string(&resolved)
        .expect("resolved")
        .parse()
        .expect("TOML");
    let written = t["jobs"][0]["log"].as_str().expect("log").to_string();
    assert!(Path::new(&written).is_absolute(), "{written}");
    assert!(
        Path::new(&written).ends_with("logs/app.darshan"),
        "{written}"
    );
    // The resolved file runs from its own directory, and gives the same results.
    let again = dir.join("again");
    run_scenario(&resolved, &again, &[]);
    for f in ["timeline.csv", "ranks.csv"] {
        assert_eq!(
            std::fs::read(out.join(f)).expect("first"),
            std::fs::read(again.join(f)).expect("again"),
            "{f}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn examples_are_listed_and_the_quickstart_runs_from_a_printed_copy() {
    let list = String::from_utf8(run_ok(&["example"]).stdout).expect("utf-8");
    for name in [
        "quickstart",
        "net-fattree-uniform",
        "net-dragonfly-worst-case",
    ] {
        let line = list
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} not listed:\n{list}"));
        assert!(line.len() > name.len() + 10, "no description: {line}");
        // What is printed is the ready scenario of the repository.
        let text = run_ok(&["example", name]).stdout;
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/{name}.toml"));
        assert_eq!(text, std::fs::read(&file).expect("scenario file"), "{name}");
    }
    let err = run_err(&["example", "quikstart"]);
    assert!(
        err.contains("quikstart") && err.contains("quickstart"),
        "{err}"
    );

    let dir = scratch("example");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let q = dir.join("q.toml");
    std::fs::write(&q, run_ok(&["example", "quickstart"]).stdout).expect("write q.toml");
    let s = run_scenario(&q, &dir.join("out"), &[]);
    assert_eq!(s["name"], "quickstart");
    assert!(s["jobs"].as_array().is_some_and(|j| j.len() == 2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn version_and_summary_name_the_same_commit() {
    let v = String::from_utf8(run_ok(&["--version"]).stdout).expect("utf-8");
    // `bbsim 0.1.0 (abc1234)`, `(abc1234-dirty)` or `(unknown)`.
    let commit = v
        .trim()
        .rsplit_once(" (")
        .and_then(|(_, c)| c.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no commit in {v:?}"));
    let hex = commit.strip_suffix("-dirty").unwrap_or(commit);
    assert!(
        commit == "unknown" || (hex.len() >= 7 && hex.chars().all(|c| c.is_ascii_hexdigit())),
        "{v:?}"
    );
    assert!(
        v.starts_with(&format!("bbsim {}", env!("CARGO_PKG_VERSION"))),
        "{v:?}"
    );
    let out = scratch("version");
    let s = run_scenario(&data("tiny-fattree.toml"), &out, &[]);
    assert_eq!(s["bbsim_commit"], commit);
    let _ = std::fs::remove_dir_all(&out);
}
