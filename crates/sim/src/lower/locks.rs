//! `pfs.extent_locks` and `burst_buffer.extent_locks`: the extent-lock configuration of the PFS
//! I/O nodes and of the BB servers (`storage::extent_lock`).

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::Scenario;
use crate::units::Duration;
use bbsim_engine::time::US;
use bbsim_storage::LockConfig;

/// Default time to revoke a lock held by another client and grant it to the requester: a
/// modelling choice of two RPC round trips through the lock manager (the blocking callback
/// and the holder's cancel, then the grant) at 25 us each, a few microseconds on the wire and
/// the rest the client's and the server's RPC handling. The systems modelled publish no
/// figure for it; set `lock_revocation` to study it.
pub const DEFAULT_REVOCATION: bbsim_engine::Time = 50 * US;

/// The lock configuration of one file system: locks in units of its stripe size, or `None`
/// when `extent_locks` is off (then `lock_revocation` must not be given).
fn config(
    on: bool,
    revocation: Option<Duration>,
    stripe: u64,
    section: &str,
    map: &SourceMap,
) -> Result<Option<LockConfig>, Diagnostic> {
    if !on {
        if revocation.is_some() {
            return Err(map.error_at(
                &format!("{section}.lock_revocation"),
                format!("applies only with {section}.extent_locks = true"),
            ));
        }
        return Ok(None);
    }
    Ok(Some(LockConfig {
        unit: stripe.max(1),
        revocation: revocation.map_or(DEFAULT_REVOCATION, |d| d.0),
    }))
}

/// The PFS I/O nodes' and the BB servers' lock configurations.
pub fn lock_configs(
    s: &Scenario,
    map: &SourceMap,
) -> Result<(Option<LockConfig>, Option<LockConfig>), Diagnostic> {
    let pfs = config(
        s.pfs.extent_locks,
        s.pfs.lock_revocation,
        s.pfs.stripe_size.0,
        "pfs",
        map,
    )?;
    let bb = &s.burst_buffer;
    let bb = config(
        bb.extent_locks,
        bb.lock_revocation,
        bb.stripe_size.0,
        "burst_buffer",
        map,
    )?;
    Ok((pfs, bb))
}
