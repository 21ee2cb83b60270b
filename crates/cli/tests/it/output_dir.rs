//! A run's output directory is replaced whole or not at all, checked before the run, and
//! nothing is left behind: not by a re-run with fewer outputs, not by a path the outputs
//! cannot take, not by the built-in scenario's temporary copy, not by Ctrl-C while the
//! scenario is loading.

use crate::common::{bin, data, run_err, run_ok, scratch};
use std::path::Path;
use std::time::{Duration, Instant};

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("directory lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_rerun_with_fewer_outputs_leaves_none_of_the_old_ones() {
    let root = scratch("rerun");
    let out = root.join("out");
    let o = out.to_str().expect("utf-8");
    let scn = data("tiny-fattree.toml");
    let s = scn.to_str().expect("utf-8");
    run_ok(&["run", s, "--quiet", "--out", o]);
    let all = names(&out);
    assert!(all.contains(&"timeline.csv".to_string()), "{all:?}");
    assert!(all.contains(&"timeline.svg".to_string()), "{all:?}");
    run_ok(&[
        "run",
        s,
        "--quiet",
        "--out",
        o,
        "--set",
        "outputs.timeline=false",
        "--set",
        "outputs.plots=false",
    ]);
    let fewer = names(&out);
    assert!(
        fewer
            .iter()
            .all(|n| !n.ends_with(".svg") && n != "timeline.csv"),
        "old outputs left beside the new ones: {fewer:?}"
    );
    assert!(fewer.contains(&"summary.json".to_string()), "{fewer:?}");
    assert_eq!(
        names(&root),
        ["out"],
        "no temporaries beside the output directory"
    );
}

#[test]
fn other_files_in_the_output_directory_are_kept() {
    let out = scratch("shared-out");
    std::fs::create_dir_all(&out).expect("dir");
    std::fs::write(out.join("notes.txt"), "mine").expect("write");
    std::fs::write(out.join("timeline.svg"), "old").expect("write");
    let o = out.to_str().expect("utf-8");
    let scn = data("tiny-fattree.toml");
    run_ok(&[
        "run",
        scn.to_str().expect("utf-8"),
        "--quiet",
        "--out",
        o,
        "--set",
        "outputs.plots=false",
    ]);
    let left = names(&out);
    assert!(left.contains(&"notes.txt".to_string()), "{left:?}");
    assert!(!left.contains(&"timeline.svg".to_string()), "{left:?}");
    assert!(
        left.iter().all(|n| !n.starts_with('.')),
        "temporaries left: {left:?}"
    );
}

#[test]
fn an_output_name_taken_by_a_directory_is_refused_before_the_run() {
    let out = scratch("summary-dir");
    std::fs::create_dir_all(out.join("summary.json")).expect("dir");
    std::fs::write(out.join("ranks.csv"), "old").expect("write");
    let o = out.to_str().expect("utf-8");
    let scn = data("tiny-fattree.toml");
    let start = Instant::now();
    let err = run_err(&["run", scn.to_str().expect("utf-8"), "--quiet", "--out", o]);
    assert!(
        err.contains("summary.json") && err.contains("is not a file"),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(
        names(&out),
        ["ranks.csv", "summary.json"],
        "nothing changed"
    );
    assert_eq!(std::fs::read(out.join("ranks.csv")).expect("read"), b"old");
}

#[cfg(unix)]
#[test]
fn an_unwritable_output_location_is_refused_before_the_run() {
    use std::os::unix::fs::PermissionsExt;
    let root = scratch("read-only");
    std::fs::create_dir_all(&*root).expect("dir");
    std::fs::set_permissions(&*root, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    // A superuser writes anyway: then there is nothing to check.
    let probe_writes = std::fs::create_dir(root.join("probe")).is_ok();
    if !probe_writes {
        let out = root.join("out");
        let scn = data("tiny-fattree.toml");
        let err = run_err(&[
            "run",
            scn.to_str().expect("utf-8"),
            "--quiet",
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        assert!(err.contains("read-only"), "{err}");
    }
    std::fs::set_permissions(&*root, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn the_built_in_scenario_leaves_nothing_in_the_temporary_directory() {
    let root = scratch("builtin");
    let tmp = root.join("tmp");
    let cwd = root.join("cwd");
    std::fs::create_dir_all(&tmp).expect("dir");
    std::fs::create_dir_all(&cwd).expect("dir");
    for args in [
        vec!["validate"],
        [&["run", "--quiet"][..], &crate::common::SMALL_QUICKSTART].concat(),
    ] {
        let out = bin()
            .args(&args)
            .current_dir(&cwd)
            .env("TMPDIR", &tmp)
            .output()
            .expect("bbsim starts");
        assert!(
            out.status.success(),
            "bbsim {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            names(&tmp).is_empty(),
            "bbsim {args:?} left {:?}",
            names(&tmp)
        );
    }
    assert_eq!(names(&cwd), ["quickstart-out"]);
    // A failing command cleans up too.
    let out = bin()
        .args(["run", "--quiet", "--set", "jobs.0.ranks=-1"])
        .current_dir(&cwd)
        .env("TMPDIR", &tmp)
        .output()
        .expect("bbsim starts");
    assert!(!out.status.success());
    assert!(names(&tmp).is_empty(), "left {:?}", names(&tmp));
}

#[cfg(unix)]
#[test]
fn ctrl_c_while_the_scenario_loads_stops_at_once_and_leaves_nothing() {
    let root = scratch("interrupt-load");
    std::fs::create_dir_all(&*root).expect("dir");
    // Reading the job's trace blocks on a named pipe nobody writes: loading waits until
    // Ctrl-C.
    let fifo = root.join("trace.darshan");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        return; // no mkfifo on this system
    }
    let scn = crate::common::darshan_fattree(&root);
    let out = root.join("out");
    let mut child = bin()
        .args([
            "run",
            scn.to_str().expect("utf-8"),
            "--quiet",
            "--out",
            out.to_str().expect("utf-8"),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bbsim starts");
    std::thread::sleep(Duration::from_millis(500));
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("bbsim did not stop within 10 s of Ctrl-C while loading");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    let mut err = String::new();
    use std::io::Read;
    let _ = child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err);
    assert!(
        err.contains("interrupted") || err.contains("cancelled"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        names(&root),
        ["s.toml", "trace.darshan"],
        "nothing left behind"
    );
}
