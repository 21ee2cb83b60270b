//! A sweep as a plan: its points run one by one (as Slurm array tasks would) or through a real
//! one-node Slurm cluster give the same `sweep.csv` rows as a local `bbsim sweep`, apart from
//! wall times; a point that never finished is named by `--collect`, with the command that
//! runs only it. The study script planned as one array gives the rows of its local run.

use crate::common::{bin, run_err, run_ok, scratch, Scratch};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The quickstart shrunk to well under a second per run, over two stripe counts and two SSD
/// counts per server: four points.
const SWEEP: [&str; 14] = [
    "--set",
    "jobs.0.ranks=12",
    "--set",
    "jobs.0.block_size=2MiB",
    "--set",
    "jobs.1.ranks=12",
    "--set",
    "jobs.1.bytes_per_rank=2MiB",
    "--set",
    "jobs.1.checkpoints=1",
    "--vary",
    "burst_buffer.stripe_count=2,4",
    "--vary",
    "burst_buffer.ssds_per_server=1,2",
];

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `sweep.csv` without its `wall_s` column (the only one that may differ between two runs).
pub(crate) fn without_wall_time(csv: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let wall = header
        .iter()
        .position(|c| *c == "wall_s")
        .expect("a wall_s column");
    std::iter::once(header.join(","))
        .chain(lines.map(|l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells[wall] = "";
            cells.join(",")
        }))
        .collect()
}

/// The `sweep.csv` of a local sweep of [`SWEEP`].
fn local_sweep(name: &str) -> Vec<String> {
    collected(&local_out(name))
}

/// A local sweep of [`SWEEP`] into a fresh directory.
fn local_out(name: &str) -> Scratch {
    let out = scratch(name);
    let mut args = vec!["sweep", "--quiet", "--out", s(&out)];
    args.extend(SWEEP);
    run_ok(&args);
    out
}

/// The long-form tables in `dir`, `sweep-points.csv` without its wall times.
fn long_tables(dir: &Path) -> Vec<Vec<String>> {
    ["sweep-points.csv", "sweep-jobs.csv", "sweep-phases.csv"]
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(dir.join(f)).expect(f);
            if f.contains("points") {
                without_wall_time(&text)
            } else {
                text.lines().map(str::to_string).collect()
            }
        })
        .collect()
}

/// Writes the plan of [`SWEEP`] into a fresh directory.
fn plan(name: &str) -> Scratch {
    let dir = scratch(name);
    let mut args = vec!["sweep", "--quiet", "--plan", s(&dir)];
    args.extend(SWEEP);
    run_ok(&args);
    assert!(dir.join("plan.json").exists());
    dir
}

fn collected(dir: &Path) -> Vec<String> {
    without_wall_time(&std::fs::read_to_string(dir.join("sweep.csv")).expect("sweep.csv"))
}

#[test]
fn points_run_one_by_one_give_the_local_sweep_and_missing_ones_are_named() {
    let dir = plan("plan-points");
    for n in ["0", "1", "2", "3"] {
        run_ok(&["sweep", "--quiet", "--point", n, s(&dir)]);
    }
    // Running a recorded point again does nothing.
    let again = run_ok(&["sweep", "--point", "2", s(&dir)]);
    assert!(String::from_utf8_lossy(&again.stderr).contains("already done"));
    run_ok(&["sweep", "--quiet", "--collect", s(&dir)]);
    let local = local_out("plan-points-local");
    assert_eq!(collected(&dir), collected(&local));
    assert_eq!(long_tables(&dir), long_tables(&local));

    // A point whose record is gone (its task was killed before it finished) is missing:
    // collect writes the others and names it, with the command that runs only it.
    let rec = std::fs::read_dir(dir.join("points"))
        .expect("points/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains("run-001"))
        .expect("point 1's record");
    std::fs::remove_file(rec).expect("removed");
    let err = run_err(&["sweep", "--quiet", "--collect", s(&dir)]);
    assert!(err.contains("points missing: 1\n"), "{err}");
    assert!(err.contains("sbatch --array=1 "), "{err}");
    assert_eq!(collected(&dir).len(), 1 + 3);
    // An array task runs its points (task 0 of two points per task: 0 and 1).
    let out = bin()
        .args([
            "sweep",
            "--quiet",
            "--array-task",
            "--points-per-task",
            "2",
            s(&dir),
        ])
        .env("SLURM_ARRAY_TASK_ID", "0")
        .output()
        .expect("bbsim starts");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    run_ok(&["sweep", "--quiet", "--collect", s(&dir)]);
    assert_eq!(collected(&dir), local_sweep("plan-points-local2"));
}

#[test]
fn plan_errors_are_clear() {
    let dir = scratch("plan-none");
    let err = run_err(&["sweep", "--point", "0", s(&dir)]);
    assert!(err.contains("plan.json"), "{err}");
    let dir = plan("plan-range");
    let err = run_err(&["sweep", "--point", "9", s(&dir)]);
    assert!(err.contains("the plan has 4 points"), "{err}");
    let err = run_err(&["sweep", "--array-task", s(&dir)]);
    assert!(err.contains("SLURM_ARRAY_TASK_ID"), "{err}");
}

/// Starts a one-node Slurm cluster with `scripts/slurm-local.sh`; its SLURM_CONF.
fn start_slurm(dir: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm-local.sh");
    let out = Command::new("bash")
        .arg(&script)
        .args(["start", s(dir)])
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "a one-node Slurm cluster is needed for this test and could not be started \
         (install it with `scripts/slurm-local.sh install`, as .ci/run does): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn stop_slurm(dir: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm-local.sh");
    let _ = Command::new("bash")
        .arg(&script)
        .args(["stop", s(dir)])
        .status();
}

#[test]
fn a_sweep_through_slurm_gives_the_local_rows() {
    let cluster = scratch("slurm-cluster");
    let conf = start_slurm(&cluster);
    let dir = plan("plan-slurm");
    let out = bin()
        .args([
            "sweep",
            "--slurm",
            "--submit",
            "--points-per-task",
            "2",
            s(&dir),
        ])
        .env("SLURM_CONF", &conf)
        .output()
        .expect("bbsim starts");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    if !out.status.success() {
        stop_slurm(&cluster);
        panic!("--submit failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let job = text
        .split_whitespace()
        .last()
        .expect("a job id")
        .to_string();
    // Wait for the array to leave the queue (two tasks of two short runs).
    wait_for(&job, &conf, &cluster);
    run_ok(&["sweep", "--quiet", "--collect", s(&dir)]);
    assert_eq!(collected(&dir), local_sweep("plan-slurm-local"));
    assert!(dir.join("logs").is_dir());

    // The study script: one sweep at smoke scale planned as one array, submitted, collected,
    // against the same sweep run here.
    let runs = scratch("study-runs");
    std::fs::create_dir_all(&runs).expect("scratch");
    let list = runs.join("runs.txt");
    std::fs::write(&list, "summit global gtc 0us,45us\n").expect("runs.txt");
    let study = |out: &Path, mode: Option<&str>| {
        let mut c = Command::new("bash");
        c.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../study/reproduce-study.sh"))
            .arg(out)
            .env("BBSIM", env!("CARGO_BIN_EXE_bbsim"))
            .env("STUDY_SCALE", "smoke")
            .env("STUDY_RUNS", &list)
            .env("SLURM_CONF", &conf);
        if let Some(m) = mode {
            c.env("STUDY_SLURM", m).env("STUDY_SLURM_SUBMIT", "1");
        }
        let o = c.output().expect("bash runs");
        assert!(
            o.status.success(),
            "reproduce-study.sh {mode:?} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let local = scratch("study-local");
    study(&local, None);
    let on_slurm = scratch("study-slurm");
    let text = study(&on_slurm, Some("plan"));
    assert!(text.contains("planned 1 sweeps, 2 points"), "{text}");
    let job = text
        .lines()
        .find_map(|l| l.strip_prefix("submitted as Slurm job "))
        .expect("a job id")
        .trim()
        .to_string();
    wait_for(&job, &conf, &cluster);
    stop_slurm(&cluster);
    // Each task's log ends its point with the heartbeat the script asks for by default.
    let logs: String = std::fs::read_dir(on_slurm.join("slurm-logs"))
        .expect("slurm-logs")
        .map(|e| std::fs::read_to_string(e.expect("log").path()).expect("log text"))
        .collect();
    for point in ["run-000_op_overhead=0us", "run-001_op_overhead=45us"] {
        assert!(
            logs.contains(&format!("] {point}: finished: simulated ")),
            "{logs}"
        );
    }
    study(&on_slurm, Some("collect"));
    let read = |d: &Path| {
        without_wall_time(&std::fs::read_to_string(d.join("sweep.csv")).expect("sweep.csv"))
    };
    assert_eq!(read(&on_slurm), read(&local));
}

/// Waits for Slurm job `job` to leave the queue (at most 300 s).
fn wait_for(job: &str, conf: &str, cluster: &Path) {
    let start = Instant::now();
    loop {
        let q = Command::new("squeue")
            .args(["-h", "-j", job])
            .env("SLURM_CONF", conf)
            .output()
            .expect("squeue runs");
        if q.status.success() && q.stdout.is_empty() {
            return;
        }
        if start.elapsed() > Duration::from_secs(300) {
            stop_slurm(cluster);
            panic!("the Slurm array {job} did not finish within 300 s");
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}
