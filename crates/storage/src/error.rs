//! Configuration errors: which field of which configuration is wrong, the value it has and
//! what was expected.
//!
//! Each configuration struct has an enum of its checked fields ([`SsdField`], [`FtlField`],
//! [`BbServerField`], [`DrainField`], [`PfsField`], [`StripeField`], [`DataWarpField`]); a
//! configuration that holds another wraps the inner field (`BbServerField::Ssd(SsdField::
//! Channels)`), so a caller that names fields in its own terms matches every case. Fields print
//! as this crate's dotted names (`ssd.write_bandwidth`).

use std::fmt;

/// A rejected configuration value: the field (`F`, one of this crate's field enums), the value
/// it has and what was expected of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError<F> {
    /// The bad setting.
    pub field: F,
    /// Its value as given (for example `0`), or the combination of values that conflict.
    pub got: String,
    /// What is expected of it (for example `must be > 0`).
    pub expected: String,
}

impl<F> ConfigError<F> {
    /// An error for `field`, whose value `got` is not what `expected` says.
    pub fn new(field: F, got: impl fmt::Display, expected: impl Into<String>) -> Self {
        ConfigError {
            field,
            got: got.to_string(),
            expected: expected.into(),
        }
    }

    /// The same error on the field of an enclosing configuration (`BbServerField::Ssd` wraps
    /// an [`SsdField`]).
    pub fn within<G>(self, wrap: impl FnOnce(F) -> G) -> ConfigError<G> {
        ConfigError {
            field: wrap(self.field),
            got: self.got,
            expected: self.expected,
        }
    }

    /// What is wrong, without the field's name: `must be > 0, got 0`.
    pub fn message(&self) -> String {
        format!("{}, got {}", self.expected, self.got)
    }
}

impl<F: fmt::Display> fmt::Display for ConfigError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}, got {}", self.field, self.expected, self.got)
    }
}

impl<F: fmt::Display + fmt::Debug> std::error::Error for ConfigError<F> {}

/// Checks that `value` is positive, naming `field` otherwise.
pub(crate) fn positive<F>(field: F, value: u64) -> Result<(), ConfigError<F>> {
    if value == 0 {
        Err(ConfigError::new(field, value, "must be > 0"))
    } else {
        Ok(())
    }
}

/// A checked field of an [`SsdConfig`](crate::SsdConfig).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsdField {
    /// User capacity (bytes).
    Capacity,
    /// Sequential read bandwidth (bytes/s).
    ReadBandwidth,
    /// Sequential write bandwidth (bytes/s).
    WriteBandwidth,
    /// Parallel service slots.
    Channels,
    /// Drives pooled into one device (an SSD array).
    Drives,
    /// A field of the size bin with this index.
    SizeBin(usize, SizeBinField),
    /// A field of the FTL.
    Ftl(FtlField),
}

/// A checked field of one of an SSD's size bins ([`SizeBin`](crate::ssd::SizeBin)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeBinField {
    /// Largest request of the bin (bytes).
    MaxSize,
    /// Read bandwidth of the bin (bytes/s).
    ReadBandwidth,
    /// Write bandwidth of the bin (bytes/s).
    WriteBandwidth,
}

/// A checked field of an [`FtlConfig`](crate::ssd::FtlConfig).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FtlField {
    /// Mapping unit (bytes).
    PageSize,
    /// Pages per erase block.
    PagesPerBlock,
    /// Fraction of physical pages kept spare.
    SpareFactor,
    /// Free blocks below which garbage collection runs.
    GcFreeBlocks,
    /// Most open streams in multi-stream placement.
    MaxStreams,
}

/// A checked field of a [`BbServerConfig`](crate::BbServerConfig).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbServerField {
    /// A field of each SSD.
    Ssd(SsdField),
    /// SSDs per server.
    Ssds,
    /// Striping unit (bytes).
    Unit,
    /// Stripe units per SSD chunk.
    ChunkUnits,
    /// How the SSDs are simulated (per SSD or as one array).
    SsdModel,
    /// Request threads.
    Threads,
    /// DRAM staging buffer size (bytes).
    StagingCapacity,
    /// DRAM staging buffer copy bandwidth (bytes/s).
    StagingBandwidth,
    /// A field of the drain.
    Drain(DrainField),
    /// The PFS I/O nodes the server drains to.
    PfsTargets,
}

/// A checked field of a [`DrainConfig`](crate::DrainConfig).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrainField {
    /// Data mover bandwidth (bytes/s).
    Bandwidth,
    /// Drain transfers in flight.
    MaxOutstanding,
    /// Fill fraction that starts the drain.
    Threshold,
    /// Whether drained data may be evicted.
    Evict,
}

/// A checked field of a [`PfsConfig`](crate::PfsConfig).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PfsField {
    /// Storage servers.
    Servers,
    /// Bandwidth of each server (bytes/s).
    ServerBandwidth,
    /// Aggregate bandwidth (bytes/s).
    AggregateBandwidth,
    /// Stripe size (bytes).
    StripeSize,
    /// Servers per file.
    StripeCount,
    /// Servers per file for ranges of file ids (a job's own stripe count).
    FileStripeCounts,
    /// Service time of one metadata operation (ps).
    MetadataLatency,
    /// Metadata operations served at once.
    MetadataThreads,
}

/// A checked field of a BB stripe: a [`StripeSpec`](crate::placement::StripeSpec) or the
/// servers a stripe set is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StripeField {
    /// BB servers per file.
    StripeCount,
    /// Stripe size (bytes).
    StripeSize,
    /// The BB servers to stripe over.
    Servers,
}

/// A checked field of a DataWarp allocation: its [`DataWarpConfig`](crate::datawarp::DataWarpConfig)
/// or the capacity asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataWarpField {
    /// Allocation granularity (bytes).
    Grain,
    /// Stripe size within an allocation (bytes).
    StripeSize,
    /// Capacity asked for (bytes).
    Capacity,
}

/// The capacity a job or reservation asks a BB server to set aside
/// ([`CapacityLedger::reserve`](crate::capacity::CapacityLedger::reserve)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reservation {
    /// Allocation id (a job or reservation).
    pub alloc: u32,
}

impl fmt::Display for SsdField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SsdField::Capacity => f.write_str("capacity"),
            SsdField::ReadBandwidth => f.write_str("read_bandwidth"),
            SsdField::WriteBandwidth => f.write_str("write_bandwidth"),
            SsdField::Channels => f.write_str("channels"),
            SsdField::Drives => f.write_str("drives"),
            SsdField::SizeBin(i, b) => write!(f, "size_bins[{i}].{b}"),
            SsdField::Ftl(k) => write!(f, "ftl.{k}"),
        }
    }
}

impl fmt::Display for SizeBinField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SizeBinField::MaxSize => "max_size",
            SizeBinField::ReadBandwidth => "read_bandwidth",
            SizeBinField::WriteBandwidth => "write_bandwidth",
        })
    }
}

impl fmt::Display for FtlField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FtlField::PageSize => "page_size",
            FtlField::PagesPerBlock => "pages_per_block",
            FtlField::SpareFactor => "spare_factor",
            FtlField::GcFreeBlocks => "gc_free_blocks",
            FtlField::MaxStreams => "max_streams",
        })
    }
}

impl fmt::Display for BbServerField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BbServerField::Ssd(k) => write!(f, "ssd.{k}"),
            BbServerField::Ssds => f.write_str("ssds"),
            BbServerField::Unit => f.write_str("unit"),
            BbServerField::ChunkUnits => f.write_str("chunk_units"),
            BbServerField::SsdModel => f.write_str("ssd_model"),
            BbServerField::Threads => f.write_str("threads"),
            BbServerField::StagingCapacity => f.write_str("staging.capacity"),
            BbServerField::StagingBandwidth => f.write_str("staging.bandwidth"),
            BbServerField::Drain(k) => write!(f, "drain.{k}"),
            BbServerField::PfsTargets => f.write_str("pfs_targets"),
        }
    }
}

impl fmt::Display for DrainField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DrainField::Bandwidth => "bandwidth",
            DrainField::MaxOutstanding => "max_outstanding",
            DrainField::Threshold => "threshold",
            DrainField::Evict => "evict",
        })
    }
}

impl fmt::Display for PfsField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PfsField::Servers => "servers",
            PfsField::ServerBandwidth => "server_bandwidth",
            PfsField::AggregateBandwidth => "aggregate_bandwidth",
            PfsField::StripeSize => "stripe_size",
            PfsField::FileStripeCounts => "file_stripe_counts",
            PfsField::StripeCount => "stripe_count",
            PfsField::MetadataLatency => "metadata.latency",
            PfsField::MetadataThreads => "metadata.threads",
        })
    }
}

impl fmt::Display for StripeField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StripeField::StripeCount => "stripe_count",
            StripeField::StripeSize => "stripe_size",
            StripeField::Servers => "servers",
        })
    }
}

impl fmt::Display for DataWarpField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DataWarpField::Grain => "grain",
            DataWarpField::StripeSize => "stripe_size",
            DataWarpField::Capacity => "capacity",
        })
    }
}

impl fmt::Display for Reservation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reservation of allocation {}", self.alloc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_fields_print_their_path() {
        let e =
            ConfigError::new(SsdField::WriteBandwidth, 0, "must be > 0").within(BbServerField::Ssd);
        assert_eq!(e.field, BbServerField::Ssd(SsdField::WriteBandwidth));
        assert_eq!(e.to_string(), "ssd.write_bandwidth must be > 0, got 0");
        assert_eq!(e.message(), "must be > 0, got 0");
        let bin = BbServerField::Ssd(SsdField::SizeBin(2, SizeBinField::MaxSize));
        assert_eq!(bin.to_string(), "ssd.size_bins[2].max_size");
        let ftl = BbServerField::Ssd(SsdField::Ftl(FtlField::SpareFactor));
        assert_eq!(ftl.to_string(), "ssd.ftl.spare_factor");
        assert!(positive(PfsField::Servers, 0).is_err());
        assert!(positive(PfsField::Servers, 1).is_ok());
    }
}
