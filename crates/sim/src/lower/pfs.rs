//! The parallel file system behind the I/O nodes (`[pfs]`).

use crate::diag::{Diagnostic, SourceMap};
use crate::lower::storage::pfs_key;
use crate::scenario::Scenario;
use bbsim_engine::time::US;
use bbsim_engine::Time;
use bbsim_storage::metadata::MetadataConfig;
use bbsim_storage::PfsConfig;
use bbsim_workload::Workload;

/// Latency between a PFS I/O node and the storage servers behind it (the I/O node to backend
/// channel; also its lookahead), in ps.
pub const PFS_FORWARD_LATENCY: Time = US;

/// The PFS: servers, their bandwidth (bytes/s) and request latency (ps), striping; the
/// aggregate bandwidth defaults to servers x server bandwidth.
pub fn pfs_config(s: &Scenario, map: &SourceMap) -> Result<PfsConfig, Diagnostic> {
    let pfs = &s.pfs;
    let cfg = PfsConfig {
        servers: pfs.servers,
        server_bandwidth: pfs.server_bandwidth.0,
        aggregate_bandwidth: pfs.aggregate_bandwidth.map_or(
            u64::from(pfs.servers).saturating_mul(pfs.server_bandwidth.0),
            |b| b.0,
        ),
        request_latency: pfs.latency.0,
        stripe_size: pfs.stripe_size.0,
        stripe_count: pfs.stripe_count.unwrap_or(pfs.servers),
        file_stripe_counts: Vec::new(),
        forward_latency: PFS_FORWARD_LATENCY,
        metadata: metadata_config(s, map)?,
    };
    cfg.validate()
        .map_err(|e| map.error_at(pfs_key(e.field), e.message()))?;
    Ok(cfg)
}

/// The metadata server (`pfs.metadata_latency`, `pfs.metadata_threads`, default one thread),
/// or none when `metadata_latency` is unset; `metadata_threads` alone is refused.
fn metadata_config(s: &Scenario, map: &SourceMap) -> Result<Option<MetadataConfig>, Diagnostic> {
    let pfs = &s.pfs;
    match (pfs.metadata_latency, pfs.metadata_threads) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err(map.error_at(
            "pfs.metadata_threads",
            "needs pfs.metadata_latency (the service time of one metadata operation)",
        )),
        (Some(latency), threads) => Ok(Some(MetadataConfig {
            latency: latency.0,
            threads: threads.unwrap_or(1),
        })),
    }
}

/// The stripe counts of the jobs that set `jobs.pfs_stripe_count`, as ranges of the
/// workload's file ids (files are numbered job by job), checked against `cfg.servers`.
pub fn job_stripe_counts(
    s: &Scenario,
    map: &SourceMap,
    workload: &Workload,
    cfg: &PfsConfig,
) -> Result<Vec<(u64, u64, u32)>, Diagnostic> {
    let mut ranges = Vec::new();
    let mut first = 0u64;
    for (j, spec) in workload.jobs.iter().enumerate() {
        let end = first + spec.files.len() as u64;
        if let Some(count) = s.jobs.get(j).and_then(|job| job.pfs_stripe_count) {
            if count == 0 || count > cfg.servers {
                return Err(map.error_at(
                    &format!("jobs[{j}].pfs_stripe_count"),
                    format!(
                        "must be between 1 and the number of PFS servers (pfs.servers = {}), not {count}",
                        cfg.servers
                    ),
                ));
            }
            if end > first {
                ranges.push((first, end, count));
            }
        }
        first = end;
    }
    Ok(ranges)
}
