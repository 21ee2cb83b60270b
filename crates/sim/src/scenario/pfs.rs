//! `[pfs]`: the parallel file system behind the I/O nodes.

use super::*;

/// `[pfs]`: the parallel file system behind I/O nodes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfsSection {
    /// I/O (router/LNet) nodes on the network forwarding to the storage servers.
    #[serde(default = "default_io_nodes")]
    pub io_nodes: u32,
    /// Storage servers (OSSs).
    #[serde(default = "default_pfs_servers")]
    pub servers: u32,
    /// Bandwidth of each storage server.
    #[serde(default = "default_pfs_server_bw")]
    pub server_bandwidth: Bandwidth,
    /// Cap on the aggregate bandwidth (default: servers x server_bandwidth).
    #[serde(default)]
    pub aggregate_bandwidth: Option<Bandwidth>,
    /// Per-request latency.
    #[serde(default = "default_pfs_latency")]
    pub latency: Duration,
    /// Stripe unit on the PFS.
    #[serde(default = "default_pfs_stripe")]
    pub stripe_size: Bytes,
    /// Storage servers (OSTs) each file is striped over (default: all `servers`; Lustre's
    /// own default is 1). A job's `pfs_stripe_count` overrides it for its files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe_count: Option<u32>,
    /// Lustre-style extent locks per stripe at the I/O nodes: a client writing a stripe last
    /// held by another client waits for the lock's revocation (`storage::extent_lock`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub extent_locks: bool,
    /// With `extent_locks`: the time to revoke another client's lock and grant it (default
    /// 50 us).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_revocation: Option<Duration>,
    /// Each compute node's Lustre client: bandwidth of its PFS I/O (unset: only the NIC
    /// limits it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_bandwidth: Option<Bandwidth>,
    /// Each compute node's Lustre client: most PFS requests in flight at once, over all of
    /// its ranks (unset: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_requests: Option<u32>,
    /// Service time of one metadata operation (open, close, delete of a PFS file) at the
    /// metadata server (unset: metadata costs nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_latency: Option<Duration>,
    /// With `metadata_latency`: metadata operations the metadata server serves at once
    /// (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_threads: Option<u32>,
}

fn default_io_nodes() -> u32 {
    4
}
fn default_pfs_servers() -> u32 {
    8
}
fn default_pfs_server_bw() -> Bandwidth {
    Bandwidth(5_000_000_000)
}
fn default_pfs_latency() -> Duration {
    Duration(100_000_000)
}
fn default_pfs_stripe() -> Bytes {
    Bytes(1 << 20)
}

impl Default for PfsSection {
    fn default() -> Self {
        PfsSection {
            io_nodes: default_io_nodes(),
            servers: default_pfs_servers(),
            server_bandwidth: default_pfs_server_bw(),
            aggregate_bandwidth: None,
            latency: default_pfs_latency(),
            stripe_size: default_pfs_stripe(),
            stripe_count: None,
            extent_locks: false,
            lock_revocation: None,
            client_bandwidth: None,
            client_requests: None,
            metadata_latency: None,
            metadata_threads: None,
        }
    }
}
