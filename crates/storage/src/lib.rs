//! # bbsim-storage
//!
//! Storage models for bbsim, built on the PDES engine (`bbsim-engine`): the SSD (timing plus a
//! flash translation layer with greedy garbage collection), the burst-buffer server, the
//! parallel file system, drain/stage-in, capacity accounting, and the placement and striping
//! rules (including Cray DataWarp allocations). See `docs/storage.md`.
//!
//! Units everywhere: bytes (`u64`), bandwidths in bytes per second (`u64`), times in
//! picoseconds ([`bbsim_engine::Time`]).
//!
//! The models are components embedded in host LPs owned by the simulator: the host calls the
//! component when a request arrives and routes the component's self-events
//! ([`StorageEvent`]) back to it; the component returns what must be sent over the network.
//! [`standalone`] assembles clients and servers over an ideal network for tests and benchmarks.

pub mod analytic;
pub mod bb_server;
pub mod capacity;
pub mod client;
pub mod client_gate;
pub mod datawarp;
pub mod drain;
pub mod error;
pub mod event;
pub mod extent_lock;
pub mod fluid;
pub mod intervals;
pub mod metadata;
pub mod occupancy;
mod op_table;
pub mod pfs;
pub mod placement;
pub mod ranges;
pub mod request;
pub mod ssd;
pub mod ssd_rotation;
pub mod standalone;
pub mod stats;
mod unit_table;
pub mod units;

pub use bb_server::{
    BbAction, BbEvent, BbLedger, BbServer, BbServerConfig, SsdModel, StagingConfig, UnitTableSize,
};
pub use capacity::{CapacityLedger, FullPolicy};
pub use drain::{DrainConfig, DrainPolicy};
pub use error::{
    BbServerField, ConfigError, DataWarpField, DrainField, FtlField, PfsField, Reservation,
    SizeBinField, SsdField, StripeField,
};
pub use event::StorageEvent;
pub use extent_lock::{ExtentLocks, LockConfig, LockStats};
pub use occupancy::OccupancyLog;
pub use pfs::{IoNode, PfsBackend, PfsConfig, PfsEvent};
pub use request::{Endpoint, IoOp, IoReply, IoRequest, ReplyStatus, RequestKind, StorageMsg};
pub use ssd::{Ssd, SsdBatch, SsdCompletion, SsdConfig, SsdEvent, SsdPiece, SsdRequest};
pub use stats::DeviceStats;
