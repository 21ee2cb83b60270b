//! `[jobs.mpi_io]` and IOR's `-c`: a job's collective MPI-IO calls served by ROMIO's two-phase
//! I/O ([`bbsim_workload::collective`]), with the job's collective-buffering hints checked
//! against its nodes.

use super::keys::job_key;
use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::JobSection;
use bbsim_workload::collective::{self, CbError, CbHints, CbMode, DEFAULT_CB_BUFFER_SIZE};
use bbsim_workload::JobSpec;

/// The job with its collective calls as two-phase I/O when `[jobs.mpi_io] collective` is set
/// or its IOR command line has `-c` (`ior_collective`); the job as it is otherwise. Every
/// hint is checked whenever `[jobs.mpi_io]` is given.
pub(super) fn apply(
    job: JobSpec,
    j: &JobSection,
    idx: usize,
    map: &SourceMap,
    ior_collective: bool,
) -> Result<JobSpec, Diagnostic> {
    let collective = ior_collective || j.mpi_io.as_ref().is_some_and(|m| m.collective);
    if j.mpi_io.is_none() && !collective {
        return Ok(job);
    }
    let key = |k: &str| job_key(idx, &format!("mpi_io.{k}"));
    let nodes = job.ranks().div_ceil(job.ranks_per_node.max(1));
    let hints = match &j.mpi_io {
        Some(m) => CbHints {
            cb_nodes: m.cb_nodes.unwrap_or(nodes),
            cb_buffer_size: m.cb_buffer_size.0,
            write: m.romio_cb_write,
            read: m.romio_cb_read,
        },
        None => CbHints {
            cb_nodes: nodes,
            cb_buffer_size: DEFAULT_CB_BUFFER_SIZE,
            write: CbMode::Automatic,
            read: CbMode::Automatic,
        },
    };
    let check = |e: CbError| match e {
        CbError::CbNodes { .. } => map.error_at(&key("cb_nodes"), e.to_string()),
        CbError::BufferSize => map.error_at(&key("cb_buffer_size"), e.to_string()),
        CbError::Mismatch { .. } | CbError::TooManyOps { .. } => {
            map.error_at(&format!("jobs[{idx}]"), e.to_string())
        }
    };
    collective::check_hints(&job, &hints).map_err(check)?;
    if !collective {
        return Ok(job);
    }
    collective::two_phase(&job, &hints).map_err(check)
}
