//! The parallel file system behind the I/O nodes (`[pfs]`).

use crate::diag::{Diagnostic, SourceMap};
use crate::lower::storage::pfs_key;
use crate::scenario::Scenario;
use bbsim_engine::time::US;
use bbsim_engine::Time;
use bbsim_storage::PfsConfig;

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
        stripe_count: pfs.servers,
        forward_latency: PFS_FORWARD_LATENCY,
    };
    cfg.validate()
        .map_err(|e| map.error_at(pfs_key(e.field), e.message()))?;
    Ok(cfg)
}
