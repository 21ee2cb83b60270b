//! Helpers shared by the end-to-end test files: run the `bbsim` binary on fixtures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bbsim"))
}

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the repository's `script` (relative to its root) with `interpreter` and `args`.
pub fn script(interpreter: &str, script: &str, args: &[&str]) -> Output {
    Command::new(interpreter)
        .arg(repo().join(script))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{interpreter} runs {script}: {e}"))
}

/// A finished command's stdout and stderr, one after the other.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A scratch path for one test: `name` inside a fresh temporary directory that is removed,
/// with everything the test wrote there, when the `Scratch` is dropped (also when the test
/// fails). The path itself does not exist yet.
pub struct Scratch {
    path: PathBuf,
    _root: tempfile::TempDir,
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

pub fn scratch(name: &str) -> Scratch {
    let root = tempfile::Builder::new()
        .prefix("bbsim-e2e-")
        .tempdir()
        .expect("scratch directory");
    Scratch {
        path: root.path().join(name),
        _root: root,
    }
}

pub fn run_ok(args: &[&str]) -> Output {
    let out = bin().args(args).output().expect("bbsim starts");
    assert!(
        out.status.success(),
        "bbsim {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn run_err(args: &[&str]) -> String {
    let out = bin().args(args).output().expect("bbsim starts");
    assert!(!out.status.success(), "bbsim {args:?} should have failed");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!err.contains("panicked"), "bbsim {args:?} panicked: {err}");
    err
}

pub fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("summary.json exists"))
        .expect("valid JSON")
}

pub fn run_scenario(scn: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "run",
        scn.to_str().expect("utf-8 path"),
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    run_ok(&args);
    read_json(&out.join("summary.json"))
}

/// Each job's node per rank (in rank order), from a run's `ranks.csv`.
pub fn rank_nodes(out: &Path) -> std::collections::BTreeMap<String, Vec<u32>> {
    let text = std::fs::read_to_string(out.join("ranks.csv")).expect("ranks.csv");
    let mut jobs = std::collections::BTreeMap::<String, Vec<u32>>::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        jobs.entry(f[0].to_string())
            .or_default()
            .push(f[2].parse().expect("node"));
    }
    jobs
}

/// The `count` nodes of `0..total` not in `busy` nearest in id to a node of `anchors` (ties to
/// the lower id), sorted: what `allocation = "next-to"` should give.
pub fn nearest_free(anchors: &[u32], busy: &[u32], total: u32, count: usize) -> Vec<u32> {
    let mut free: Vec<(u32, u32)> = (0..total)
        .filter(|n| !busy.contains(n) && !anchors.contains(n))
        .map(|n| {
            (
                anchors
                    .iter()
                    .map(|a| a.abs_diff(n))
                    .min()
                    .expect("anchors"),
                n,
            )
        })
        .collect();
    free.sort_unstable();
    let mut out: Vec<u32> = free[..count].iter().map(|&(_, n)| n).collect();
    out.sort_unstable();
    out
}

/// Overrides that shrink the built-in quickstart to about a second of wall time.
pub const SMALL_QUICKSTART: [&str; 10] = [
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
];

/// Writes `dir/s.toml`: the fixture `tiny-fattree.toml` with its IOR job replaced by the replay
/// of the Darshan log `dir/trace.darshan` (which the caller provides). Returns its path.
pub fn darshan_fattree(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(data("tiny-fattree.toml")).expect("fixture");
    let ior_job = "name = \"ior\"\nsource = \"ior\"\nranks = 12\nranks_per_node = 6\n\
                   block_size = \"2MiB\"\ntransfer_size = \"512KiB\"\nread = true\n";
    assert!(text.contains(ior_job), "the fixture's IOR job changed");
    let scn = dir.join("s.toml");
    let text = text.replace(
        ior_job,
        "name = \"ior\"\nsource = \"darshan\"\nlog = \"trace.darshan\"\n",
    );
    std::fs::write(&scn, text).expect("scenario");
    scn
}
