//! Cray DataWarp style allocations: capacity granted in fixed grains, an allocation striped
//! over `ceil(capacity / grain)` BB servers, in `striped` (one namespace shared by the job) or
//! `private` (one namespace per compute node) mode.

use crate::error::{positive, ConfigError, DataWarpField};
use crate::placement::Layout;
use crate::units::div_ceil_u64;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Largest striped allocation (servers) whose rotated layouts are built once up front (their
/// memory grows with the square of the server count).
const MAX_SHARED_LAYOUTS: usize = 1024;

/// DataWarp access mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DwMode {
    /// One namespace for the job; every file is striped over all servers of the allocation.
    Striped,
    /// One namespace per compute node; each file lives on one server of the allocation,
    /// chosen round-robin by node rank and file (modelling assumption, see docs/storage.md).
    Private,
}

/// DataWarp parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataWarpConfig {
    /// Allocation granularity (bytes); Cori used 20 GB grains.
    pub grain: u64,
    /// Stripe size within a striped allocation (bytes).
    pub stripe_size: u64,
}

impl DataWarpConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ConfigError<DataWarpField>> {
        positive(DataWarpField::Grain, self.grain)?;
        positive(DataWarpField::StripeSize, self.stripe_size)
    }
}

/// A granted allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DwAllocation {
    /// Servers (indices into the caller's server list), in stripe order.
    pub servers: Vec<usize>,
    /// Capacity granted (whole grains, bytes).
    pub granted: u64,
    /// Capacity reserved on each server (bytes), aligned with `servers`.
    pub per_server: Vec<u64>,
    /// Access mode.
    pub mode: DwMode,
    /// Stripe size (bytes).
    pub stripe_size: u64,
    /// The layout of each rotation (striped: first server; private: the one server), built
    /// once so that clients share them instead of building one per operation.
    layouts: Vec<Arc<Layout>>,
}

/// Grants `capacity` bytes in whole grains over `candidates` (server indices in preference
/// order, e.g. from [`crate::placement::stripe_set`] or least-loaded first): grain `k` goes to
/// `candidates[k % n]`, so an allocation of `g` grains spans `min(g, n)` servers and a server
/// holds one grain more than another at most. Fails naming `capacity` if it is zero or there
/// are no servers.
pub fn allocate(
    cfg: &DataWarpConfig,
    capacity: u64,
    mode: DwMode,
    candidates: &[usize],
) -> Result<DwAllocation, ConfigError<DataWarpField>> {
    cfg.validate()?;
    positive(DataWarpField::Capacity, capacity)?;
    if candidates.is_empty() {
        return Err(ConfigError::new(
            DataWarpField::Capacity,
            format!("{capacity} bytes"),
            "must be granted on BB servers, and there are none",
        ));
    }
    let grains = div_ceil_u64(capacity, cfg.grain);
    let n = candidates.len() as u64;
    let used = grains.min(n) as usize;
    let servers = candidates[..used].to_vec();
    let per_server = (0..used as u64)
        .map(|k| (grains / n + u64::from(k < grains % n)) * cfg.grain)
        .collect();
    let mut a = DwAllocation {
        per_server,
        granted: grains * cfg.grain,
        servers,
        mode,
        stripe_size: cfg.stripe_size,
        layouts: Vec::new(),
    };
    if mode == DwMode::Private || a.servers.len() <= MAX_SHARED_LAYOUTS {
        a.layouts = (0..a.servers.len())
            .map(|k| Arc::new(a.layout_at(k)))
            .collect();
    }
    Ok(a)
}

impl DwAllocation {
    /// The layout of `file` written by the compute node of rank `node` within the job.
    pub fn layout_for(&self, node: u32, file: u64) -> Layout {
        self.layout_at(self.rotation(node, file))
    }

    /// [`DwAllocation::layout_for`], shared: the same `Arc` for every caller of one rotation
    /// (no allocation per operation).
    pub fn shared_layout(&self, node: u32, file: u64) -> Arc<Layout> {
        let k = self.rotation(node, file);
        match self.layouts.get(k) {
            Some(l) => Arc::clone(l),
            None => Arc::new(self.layout_at(k)),
        }
    }

    /// Striped: each file starts on its own server (rotated by file id), so small files
    /// spread. Private: the file's one server, by node rank and file.
    fn rotation(&self, node: u32, file: u64) -> usize {
        let n = self.servers.len().max(1) as u64;
        match self.mode {
            DwMode::Striped => (file % n) as usize,
            DwMode::Private => ((u64::from(node) + file) % n) as usize,
        }
    }

    fn layout_at(&self, k: usize) -> Layout {
        let n = self.servers.len().max(1);
        let servers = match self.mode {
            DwMode::Striped => (0..n).map(|i| self.servers[(k + i) % n]).collect(),
            DwMode::Private => vec![self.servers[k]],
        };
        Layout {
            servers,
            stripe_size: self.stripe_size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1_000_000_000;

    #[test]
    fn grains_decide_the_server_count() {
        let cfg = DataWarpConfig {
            grain: 20 * GB,
            stripe_size: 8 << 20,
        };
        let cands: Vec<usize> = (10..20).collect();
        let a = allocate(&cfg, 50 * GB, DwMode::Striped, &cands).unwrap();
        assert_eq!(a.servers, vec![10, 11, 12]);
        assert_eq!(a.granted, 60 * GB);
        assert_eq!(a.per_server, vec![20 * GB; 3]);
        assert_eq!(a.layout_for(3, 9).servers, vec![10, 11, 12]);
        assert_eq!(a.layout_for(3, 10).servers, vec![11, 12, 10]);
        let p = allocate(&cfg, 40 * GB, DwMode::Private, &cands).unwrap();
        assert_eq!(p.layout_for(0, 0).servers, vec![10]);
        assert_eq!(p.layout_for(1, 0).servers, vec![11]);
        assert_eq!(p.layout_for(1, 1).servers, vec![10]);
        // More grains than servers: they wrap around, one server at most one grain ahead.
        let big = allocate(&cfg, 201 * GB, DwMode::Striped, &cands).unwrap();
        assert_eq!(big.servers, cands);
        assert_eq!(big.granted, 220 * GB);
        assert_eq!(big.per_server[0], 40 * GB);
        assert_eq!(big.per_server[1], 20 * GB);
        assert_eq!(big.per_server.iter().sum::<u64>(), big.granted);
        let e = allocate(&cfg, GB, DwMode::Striped, &[]).unwrap_err();
        assert_eq!(e.field, DataWarpField::Capacity);
        let bad = DataWarpConfig { grain: 0, ..cfg };
        assert_eq!(
            allocate(&bad, GB, DwMode::Striped, &cands)
                .unwrap_err()
                .field,
            DataWarpField::Grain
        );
    }
}
