//! `bbsim sweep` as a long job: progress lines in completion order, finished points kept
//! and skipped when the same sweep runs again (after an interruption, a lost result or a
//! kill), points of a changed scenario run again, `sweep.csv` valid while the sweep runs,
//! and lists as varied values.

use crate::common::{data, run_err, run_ok, scratch};
use crate::slurm::without_wall_time;
use std::path::Path;

/// The scenario of most tests here.
const TINY_FATTREE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tiny-fattree.toml");

/// The sweep of these tests: 4 points of the tiny fat-tree, into `out`, with `extra`.
fn sweep_args<'a>(out: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "sweep",
        TINY_FATTREE,
        "--vary",
        "burst_buffer.placement=node-local,grouped",
        "--vary",
        "burst_buffer.ssd.op_overhead=0us,45us",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    args
}

/// The `[k/N] <point> ...` lines of a sweep's stderr: (k, N, point).
fn point_lines(stderr: &[u8]) -> Vec<(usize, usize, String)> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix('[')?;
            let (count, rest) = rest.split_once("] ")?;
            let (k, n) = count.split_once('/')?;
            let point = rest.split_whitespace().next()?.to_string();
            Some((k.parse().ok()?, n.parse().ok()?, point))
        })
        .collect()
}

fn csv(out: &Path) -> String {
    std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv")
}

/// The point directories of a sweep.csv's rows.
fn rows(csv: &str) -> Vec<String> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).expect("dir").to_string())
        .collect()
}

/// Waits until the sweep into `out` has finished its first point (its sweep.csv exists).
fn wait_for_first_point(out: &Path) {
    let started = std::time::Instant::now();
    while !out.join("sweep.csv").exists() && started.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
fn sweep_lines_count_finished_points_in_order() {
    let out = scratch("sweep-lines");
    let run = run_ok(&sweep_args(&out, &["--jobs", "2"]));
    let lines = point_lines(&run.stderr);
    assert_eq!(lines.len(), 4, "{}", String::from_utf8_lossy(&run.stderr));
    for (n, (k, total, _)) in lines.iter().enumerate() {
        assert_eq!((*k, *total), (n + 1, 4), "{lines:?}");
    }
    let mut points: Vec<String> = lines.iter().map(|l| l.2.clone()).collect();
    points.sort();
    assert_eq!(points, rows(&csv(&out)), "each point once");
    assert!(String::from_utf8_lossy(&run.stderr).contains(" done in "));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_rerun_runs_only_the_points_without_a_valid_result() {
    let whole = scratch("sweep-whole");
    run_ok(&sweep_args(&whole, &["--quiet"]));
    let out = scratch("sweep-resumed");
    run_ok(&sweep_args(&out, &["--jobs", "2", "--quiet"]));
    let points = rows(&csv(&out));
    // Point 1 lost its directory, point 2's record is corrupt, point 3's record is cut
    // short as by a crash while writing it (records are written atomically, but a user or
    // a disk may still damage one).
    std::fs::remove_dir_all(out.join(&points[1])).expect("remove");
    let record = |i: usize| out.join("points").join(format!("{}.json", points[i]));
    std::fs::write(record(2), "not json").expect("corrupt");
    let text = std::fs::read_to_string(record(3)).expect("record");
    std::fs::write(record(3), &text[..text.len() / 2]).expect("truncate");
    let run = run_ok(&sweep_args(&out, &[]));
    let ran: Vec<String> = point_lines(&run.stderr).into_iter().map(|l| l.2).collect();
    let mut sorted = ran.clone();
    sorted.sort();
    assert_eq!(sorted, points[1..].to_vec(), "only the damaged points run");
    assert!(point_lines(&run.stderr).iter().all(|l| l.1 == 3));
    assert!(String::from_utf8_lossy(&run.stderr)
        .contains("1 of 4 points finished in an earlier run of this sweep"));
    assert_eq!(
        without_wall_time(&csv(&out)),
        without_wall_time(&csv(&whole))
    );
    // Nothing left to do: a rerun runs nothing and writes the same table.
    let before = csv(&out);
    let run = run_ok(&sweep_args(&out, &[]));
    assert!(point_lines(&run.stderr).is_empty());
    assert_eq!(csv(&out), before);
    // A changed scenario runs every point again; so does --force.
    let run = run_ok(&sweep_args(
        &out,
        &["--set", "burst_buffer.ssd.write_bandwidth=0.7GB/s"],
    ));
    assert_eq!(point_lines(&run.stderr).len(), 4, "the scenario changed");
    let run = run_ok(&sweep_args(
        &out,
        &[
            "--set",
            "burst_buffer.ssd.write_bandwidth=0.7GB/s",
            "--force",
        ],
    ));
    assert_eq!(point_lines(&run.stderr).len(), 4, "--force");
    assert_ne!(
        without_wall_time(&csv(&out)),
        without_wall_time(&csv(&whole))
    );
    let _ = std::fs::remove_dir_all(&whole);
    let _ = std::fs::remove_dir_all(&out);
}

/// A sweep killed while it runs leaves a valid sweep.csv of the points finished so far;
/// running it again runs only the others and ends with the table of an uninterrupted run.
#[test]
fn a_killed_sweep_finishes_where_it_stopped() {
    let whole = scratch("sweep-unkilled");
    run_ok(&sweep_args(&whole, &["--quiet"]));
    let out = scratch("sweep-killed");
    let mut child = crate::common::bin()
        .args(sweep_args(&out, &["--quiet"]))
        .spawn()
        .expect("bbsim starts");
    wait_for_first_point(&out);
    let _ = child.kill();
    let _ = child.wait();
    let partial = csv(&out);
    let header_cells = partial.lines().next().expect("header").split(',').count();
    let finished = rows(&partial);
    assert!(!finished.is_empty(), "{partial}");
    let expected = rows(&csv(&whole));
    for l in partial.lines().skip(1) {
        assert_eq!(l.split(',').count(), header_cells, "{partial}");
    }
    let mut in_order = finished.clone();
    in_order.sort();
    assert_eq!(finished, in_order, "rows in point order");
    let run = run_ok(&sweep_args(&out, &[]));
    let ran: Vec<String> = point_lines(&run.stderr).into_iter().map(|l| l.2).collect();
    assert_eq!(
        ran.len() + finished.len(),
        expected.len(),
        "{ran:?} after {finished:?}"
    );
    assert!(ran.iter().all(|p| !finished.contains(p)));
    assert_eq!(
        without_wall_time(&csv(&out)),
        without_wall_time(&csv(&whole))
    );
    let _ = std::fs::remove_dir_all(&whole);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn lists_can_be_varied_and_bad_lists_name_vary() {
    let out = scratch("sweep-lists");
    let scn = data("tiny-torus.toml");
    run_ok(&[
        "sweep",
        scn.to_str().expect("utf-8"),
        "--vary",
        "network.dims=[4, 4, 2],[2,4,4]",
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let text = csv(&out);
    assert!(text.starts_with("run,dir,network.dims,status,"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].contains(",\"[4, 4, 2]\",ok,"), "{text}");
    assert!(lines[2].contains(",\"[2,4,4]\",ok,"), "{text}");
    let dir = rows(&text)[0].clone();
    let summary = crate::common::read_json(&out.join(dir).join("summary.json"));
    assert_eq!(
        summary["scenario"]["network"]["dims"],
        serde_json::json!([4, 4, 2])
    );
    let e = run_err(&[
        "sweep",
        scn.to_str().expect("utf-8"),
        "--vary",
        "network.dims=[4,4,2],[2,4",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert!(
        e.contains(
            "--vary network.dims=[4,4,2],[2,4: the `[` at offset 8 of the values is not closed"
        ),
        "{e}"
    );
    let e = run_err(&[
        "sweep",
        scn.to_str().expect("utf-8"),
        "--vary",
        "network.dims=[4,4],[4,x]",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert!(e.contains("--vary network.dims=[4,x]"), "{e}");
    let _ = std::fs::remove_dir_all(&out);
}

/// On a terminal (here the pseudo-terminal of util-linux's `script`) the sweep shows a bar
/// with the points finished of the total and an ETA instead of the lines.
#[test]
fn a_terminal_gets_a_progress_bar() {
    let out = scratch("sweep-bar");
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_bbsim"))
        .chain(sweep_args(&out, &[]))
        .map(|a| format!("'{a}'"))
        .collect();
    let run = std::process::Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .output()
        .expect("util-linux's `script` runs (it gives the sweep a terminal)");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let screen = String::from_utf8_lossy(&run.stdout);
    assert!(
        screen.contains("/4 points") && screen.contains("ETA"),
        "{screen}"
    );
    assert!(
        point_lines(screen.as_bytes()).is_empty(),
        "no lines on a terminal: {screen}"
    );
    assert_eq!(rows(&csv(&out)).len(), 4);
    let _ = std::fs::remove_dir_all(&out);
}

/// Ctrl-C (SIGINT) stops the sweep after the running point is cancelled: it exits non-zero
/// naming the points finished, sweep.csv holds them, and the same command finishes the rest.
#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_sweep_that_the_same_command_finishes() {
    let out = scratch("sweep-ctrl-c");
    let scn = data("tiny-phases.toml");
    let args = [
        "sweep",
        scn.to_str().expect("utf-8"),
        "--vary",
        "burst_buffer.ssd.op_overhead=0us,10us,20us,30us,40us,50us,60us,70us",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    let child = crate::common::bin()
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bbsim starts");
    wait_for_first_point(&out);
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let stopped = child.wait_with_output().expect("bbsim ends");
    let finished = rows(&csv(&out)).len();
    let err = String::from_utf8_lossy(&stopped.stderr);
    if finished < 8 {
        assert!(!stopped.status.success(), "{err}");
        assert!(
            err.contains(&format!(
                "interrupted: {finished} of 8 points finished (in sweep.csv)"
            )),
            "{err}"
        );
    }
    let run = run_ok(&args);
    assert_eq!(point_lines(&run.stderr).len(), 8 - finished);
    assert_eq!(rows(&csv(&out)).len(), 8);
    let _ = std::fs::remove_dir_all(&out);
}

/// A point's record names the bytes of the traces its jobs replay: after the Darshan log
/// changes, running the same sweep again runs every point again instead of keeping results
/// of the old trace.
#[test]
fn a_changed_trace_runs_every_point_again() {
    let root = scratch("sweep-trace-digest");
    std::fs::create_dir_all(&*root).expect("dir");
    let logs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workload/tests/data");
    let write = "pq_app_write_id71296_7-31-5657-2037904274838284930_55623.darshan";
    let other = "pq_app_write_id71303_7-31-5657-2037904274838284930_55623.darshan";
    let log = root.join("trace.darshan");
    std::fs::copy(logs.join(write), &log).expect("log");
    let scn = crate::common::darshan_fattree(&root);
    let out = root.join("out");
    let args = [
        "sweep",
        scn.to_str().expect("utf-8"),
        "--vary",
        "burst_buffer.ssd.op_overhead=0us,45us",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    assert_eq!(point_lines(&run_ok(&args).stderr).len(), 2);
    assert_eq!(
        point_lines(&run_ok(&args).stderr).len(),
        0,
        "same trace: kept"
    );
    std::fs::copy(logs.join(other), &log).expect("log");
    assert_eq!(
        point_lines(&run_ok(&args).stderr).len(),
        2,
        "changed trace: every point runs again"
    );
}
