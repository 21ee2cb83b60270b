//! `source = "preset"`: the study's four applications (GTC, LAMMPS, S3D, HACC) with the job's
//! overrides of their parameters.

use super::keys::{job_key, reject};
use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::JobSection;
use bbsim_workload::synthetic::App;

/// The presets `source = "preset"` accepts.
const PRESETS: [&str; 4] = ["gtc", "lammps", "s3d", "hacc"];

/// The study application named by the `preset` key of job `idx`, with the study's defaults.
fn named_preset(j: &JobSection, idx: usize, map: &SourceMap) -> Result<App, Diagnostic> {
    let name = j.preset.as_deref().ok_or_else(|| {
        map.error_at(
            &job_key(idx, "preset"),
            "source = \"preset\" needs `preset` = \"gtc\", \"lammps\", \"s3d\" or \"hacc\"",
        )
    })?;
    match App::by_name(name) {
        Some(a @ (App::Gtc(_) | App::Lammps(_) | App::S3d(_) | App::Hacc(_))) => Ok(a),
        _ => {
            let hint = crate::diag::suggest(name, PRESETS)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            Err(map.error_at(
                &job_key(idx, "preset"),
                format!("unknown preset `{name}`{hint} (expected gtc, lammps, s3d or hacc)"),
            ))
        }
    }
}

/// Overrides the parameters every study application takes: ranks, ranks per node, bytes
/// written per rank (over the whole run; GTC: per writing rank), compute time before each write
/// phase (ps), and bytes per write call.
macro_rules! override_common {
    ($p:expr, $j:expr) => {{
        let p = $p;
        let j: &JobSection = $j;
        p.ranks = j.ranks.unwrap_or(p.ranks);
        p.ranks_per_node = j.ranks_per_node;
        p.bytes_per_rank = j.bytes_per_rank.map_or(p.bytes_per_rank, |b| b.0);
        p.compute_ps = j.compute.map_or(p.compute_ps, |d| d.0);
        p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
    }};
}

/// The study application of job `idx` (`source = "preset"`) with the job's parameters; `seed`
/// is the scenario's, mixed with the job index for the applications that draw random sizes.
pub(super) fn study_app(
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    seed: u64,
) -> Result<App, Diagnostic> {
    let mut app = named_preset(j, idx, map)?;
    let reject_phases = || {
        reject(
            map,
            &job_key(idx, "phases"),
            j.phases.is_some(),
            "this application has one write phase",
        )
    };
    let reject_files_per_rank = || {
        reject(
            map,
            &job_key(idx, "files_per_rank"),
            j.files_per_rank.is_some(),
            "only LAMMPS takes files_per_rank",
        )
    };
    match &mut app {
        App::Gtc(p) => {
            override_common!(&mut *p, j);
            p.seed = seed ^ idx as u64;
            reject_phases()?;
            reject_files_per_rank()?;
        }
        App::Lammps(p) => {
            override_common!(&mut *p, j);
            p.files_per_rank = j.files_per_rank.unwrap_or(p.files_per_rank);
            reject_phases()?;
        }
        App::S3d(p) => {
            override_common!(&mut *p, j);
            p.phases = j.phases.unwrap_or(p.phases);
            reject_files_per_rank()?;
        }
        App::Hacc(p) => {
            override_common!(&mut *p, j);
            p.phases = j.phases.unwrap_or(p.phases);
            p.seed = seed ^ idx as u64;
            reject_files_per_rank()?;
        }
        App::Ior(_) | App::Checkpoint(_) => {}
    }
    for (key, zero) in [
        ("transfer_size", j.transfer_size.is_some_and(|b| b.0 == 0)),
        ("phases", j.phases == Some(0)),
        ("files_per_rank", j.files_per_rank == Some(0)),
    ] {
        if zero {
            return Err(map.error_at(&job_key(idx, key), format!("{key} must be at least 1")));
        }
    }
    Ok(app)
}
