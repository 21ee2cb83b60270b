//! `source = "darshan"`: replay of a Darshan log.

use super::keys::job_key;
use super::recipe::Recipe;
use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::JobSection;
use bbsim_workload::replay::{job_from_log, LogJobOptions};
use std::path::Path;

/// The job of the Darshan log of job `idx` (`log`, relative to `base_dir`, the scenario
/// file's directory); the recipe weak-scales it to `ranks` when that differs from the log's
/// rank count.
pub(super) fn replay(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    base_dir: &Path,
) -> Result<Recipe, Diagnostic> {
    let rel = j.log.as_ref().ok_or_else(|| {
        map.error_at(
            &job_key(idx, "log"),
            "source = \"darshan\" needs `log` = \"path/to/log.darshan\"",
        )
    })?;
    let path = base_dir.join(rel);
    let log = bbsim_workload::darshan::read_log(&path)
        .map_err(|e| map.error_at(&job_key(idx, "log"), e.to_string()))?;
    let opts = LogJobOptions {
        ranks_per_node: j.ranks_per_node,
        ..LogJobOptions::default()
    };
    let job = job_from_log(&log, &opts)
        .map_err(|e| map.error_at(&job_key(idx, "log"), format!("{}: {e}", path.display())))?;
    for w in bbsim_workload::replay::partial_warnings(&log) {
        eprintln!("warning: {}: {w}", path.display());
    }
    for n in bbsim_workload::darshan::negative_times(&log) {
        eprintln!("warning: {}: {n}", path.display());
    }
    Ok(Recipe::Replay {
        job,
        ranks: j.ranks,
    })
}
