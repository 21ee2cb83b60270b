//! Helpers shared by the test modules: the shipped scenarios, scratch files, runs through
//! `load_scenario`, `run` and `render`.

use bbsim_sim::output::Rendered;
use bbsim_sim::run::{load_scenario, Loaded};
use std::path::{Path, PathBuf};

/// A scenario shipped in the repository's `scenarios/` folder.
pub fn scenario(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(name)
}

/// Overrides that shrink the quickstart to a few MiB per rank (a run of well under a second
/// in the dev profile), plus `extra`.
pub fn small_quickstart(extra: &[&str]) -> Vec<String> {
    [
        "jobs.0.ranks=12",
        "jobs.0.block_size=2MiB",
        "jobs.1.ranks=12",
        "jobs.1.bytes_per_rank=2MiB",
        "jobs.1.checkpoints=1",
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect()
}

/// A path inside a scratch directory that is removed when this value is dropped (it derefs
/// to the path, so it goes wherever a `&Path` does); or a path outside any, kept.
pub struct Scratch {
    path: PathBuf,
    _root: Option<tempfile::TempDir>,
}

/// A path that is not in a scratch directory (a shipped scenario): nothing is removed.
impl From<PathBuf> for Scratch {
    fn from(path: PathBuf) -> Self {
        Scratch { path, _root: None }
    }
}

impl Scratch {
    /// `rel` inside the same scratch directory, which stays alive with the result.
    pub fn with(self, rel: &str) -> Scratch {
        Scratch {
            path: self.path.join(rel),
            _root: self._root,
        }
    }
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

/// A fresh scratch directory for one test (named `bbsim-sim-it-<name>-*`), removed when the
/// returned value is dropped.
pub fn scratch(name: &str) -> Scratch {
    let root = tempfile::Builder::new()
        .prefix(&format!("bbsim-sim-it-{name}-"))
        .tempdir()
        .expect("scratch directory");
    Scratch {
        path: root.path().to_path_buf(),
        _root: Some(root),
    }
}

/// Writes a scenario on a small fat-tree (3 levels, radix 4: 16 nodes; 100 GB/s links, 50 ns
/// link latency, 90 ns router delay; seed 1, one thread) with the sections `rest` below it,
/// into a fresh scratch directory `name`, and returns its path.
pub fn small_fat_tree(name: &str, rest: &str) -> Scratch {
    let path = scratch(name).with("s.toml");
    let text = format!(
        r#"
name = "{name}"
[simulation]
seed = 1
threads = 1
[network]
topology = "fat-tree"
levels = 3
radix = 4
link_bandwidth = "100GB/s"
link_latency = "50ns"
router_delay = "90ns"
{rest}"#
    );
    std::fs::write(&path, text).expect("scenario written");
    path
}

/// Loads `path` with `overrides`, panicking with the diagnostic if it is invalid.
pub fn load(path: &Path, overrides: &[String]) -> Loaded {
    load_scenario(path, overrides).unwrap_or_else(|d| panic!("{d}"))
}

/// Runs a loaded scenario on `threads` threads and renders its outputs. A count above one runs
/// the asynchronous executor itself: the executor of a thread setting steps down to one thread
/// while another process holds a core, as a test run's neighbours may, and these runs are
/// there to compare the threads' results with one thread's.
pub fn run(loaded: &Loaded, threads: impl Into<bbsim_engine::Threads>) -> Rendered {
    let threads = threads.into();
    let finished = match threads {
        bbsim_engine::Threads::Count(n) if n > 1 => loaded.run_on(
            &bbsim_engine::Asynchronous {
                threads: n,
                pending: bbsim_engine::PendingKind::Ring,
            },
            |_| {},
        ),
        _ => loaded.run(threads, |_| {}),
    }
    .unwrap_or_else(|e| panic!("run on {threads} threads: {e}"));
    loaded.render(&finished)
}

/// The adaptive executor switching between one thread and `threads` every `windows` windows
/// (results must be those of any other executor).
pub fn switching(threads: usize, windows: u64) -> bbsim_engine::Adaptive {
    bbsim_engine::Adaptive {
        threads,
        pending: bbsim_engine::PendingKind::Ring,
        policy: bbsim_engine::SwitchPolicy::Alternate { windows },
        watch_run_queue: true,
    }
}

/// Runs a loaded scenario on `executor` and renders its outputs.
pub fn run_on(loaded: &Loaded, executor: &impl bbsim_engine::Executor) -> Rendered {
    let finished = loaded
        .run_on(executor, |_| {})
        .unwrap_or_else(|e| panic!("run: {e}"));
    loaded.render(&finished)
}

/// One rendered file's contents.
pub fn file<'a>(r: &'a Rendered, name: &str) -> &'a [u8] {
    r.files
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, b)| b.as_slice())
        .unwrap_or_else(|| panic!("no {name} among the outputs"))
}

/// `summary.json`, parsed.
pub fn summary(r: &Rendered) -> serde_json::Value {
    serde_json::from_slice(file(r, "summary.json")).expect("summary.json is JSON")
}

/// [`small_fat_tree`] with a PFS of one I/O node and one storage server (10 GB/s, 10 us,
/// 1 MiB stripes) and one IOR job `ior` of `ranks` ranks, `rpn` per node, given by IOR's
/// command line `ior`, followed by `more` (further keys or tables of the job).
pub fn pfs_ior(name: &str, ranks: u32, rpn: u32, ior: &str, more: &str) -> Scratch {
    small_fat_tree(
        name,
        &format!(
            r#"[pfs]
io_nodes = 1
servers = 1
server_bandwidth = "10GB/s"
latency = "10us"
stripe_size = "1MiB"
[[jobs]]
name = "ior"
source = "ior"
ranks = {ranks}
ranks_per_node = {rpn}
ior = "{ior}"
{more}"#
        ),
    )
}
