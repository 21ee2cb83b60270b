//! Lowering: the one place that knows both vocabularies, the scenario file's and the model
//! crates'. It checks every key and turns a [`Scenario`](crate::scenario::Scenario) into a
//! validated design (network, storage, placement, PFS, workload) without building any LP.
//!
//! - [`network`]: topology, routing, links, packets and buffers;
//! - [`placement`]: where BB servers and PFS I/O nodes attach;
//! - [`storage`]: SSDs, FTL, BB servers, drain;
//! - [`pfs`]: the parallel file system;
//! - [`machine`]: all of the above as one [`machine::Machine`];
//! - [`allocation`]: where every job runs and where its data goes;
//! - [`workload`]: the jobs, from each job source (applications, benchmarks, Darshan logs);
//! - [`traffic`]: synthetic traffic for `bbsim net`;
//! - [`unused`]: keys the chosen placement does not read (reported, not refused).

pub mod allocation;
pub mod locks;
pub mod machine;
pub mod network;
pub mod pfs;
pub mod placement;
pub mod ssd_preset;
pub mod storage;
pub mod traffic;
pub mod unused;
pub mod workload;

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::Scenario;
use allocation::{job_layout, JobLayout};
use bbsim_storage::client_gate::FsClients;
use bbsim_workload::Workload;
use machine::{build_machine, Machine};
use std::path::Path;
use std::sync::Arc;

/// A validated design: the machine, the workload and where the workload runs. Everything a
/// run needs, checked; building its LPs cannot fail on user input.
#[derive(Clone, Debug)]
pub struct Design {
    /// The machine.
    pub machine: Machine,
    /// The workload.
    pub workload: Arc<Workload>,
    /// Where every job runs and where its data goes.
    pub jobs: JobLayout,
    /// The compute nodes' file-system clients' limits.
    pub clients: FsClients,
}

/// Checks the run settings that no model reads: threads (1 to [`bbsim_engine::thread_limit`])
/// and the phase gap of the outputs.
fn check_run_settings(s: &Scenario, map: &SourceMap) -> Result<(), Diagnostic> {
    if let bbsim_engine::Threads::Count(n) = s.simulation.threads {
        if let Err(why) = bbsim_engine::check_threads(n) {
            return Err(map.error_at("simulation.threads", why));
        }
    }
    if s.outputs.phase_gap.is_some_and(|g| g.get() == 0) {
        return Err(map.error_at(
            "outputs.phase_gap",
            "must be positive (at least 1ps): the idle time that separates two I/O phases of a job",
        ));
    }
    Ok(())
}

/// Lowers a scenario, checking every key; relative trace paths are resolved against `base`.
pub fn lower(s: &Scenario, map: &SourceMap, base: &Path) -> Result<Design, Diagnostic> {
    check_run_settings(s, map)?;
    let mut machine = build_machine(s, map)?;
    let workload = Arc::new(workload::build_workload(
        s,
        map,
        base,
        machine.compute_nodes,
    )?);
    machine.pfs.file_stripe_counts = pfs::job_stripe_counts(s, map, &workload, &machine.pfs)?;
    let jobs = job_layout(s, map, &machine, &workload)?;
    let clients = storage::client_limits(s, map)?;
    Ok(Design {
        machine,
        workload,
        jobs,
        clients,
    })
}
