//! The scenario file schema: what a centre writes to describe a machine and a workload.
//!
//! Every quantity takes a unit (see [`crate::units`]). Every section and key has a default
//! unless noted, and the loaded scenario (with every default filled in) is echoed into
//! `summary.json`. Unknown keys are errors.

use crate::units::{Bandwidth, Bytes, Duration};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub mod diag;
pub mod include;
pub mod resolved;
pub mod units;

mod burst_buffer;
mod cost;
mod jobs;
mod network;
mod outputs;
mod pfs;
mod simulation;
mod traffic;

pub use burst_buffer::*;
pub use cost::*;
pub use jobs::*;
pub use network::*;
pub use outputs::*;
pub use pfs::*;
pub use simulation::*;
pub use traffic::*;

// The enums a scenario selects from belong to the crate that models the concept; the schema
// uses them directly, so a name means the same in a scenario file, in the model and in outputs.
pub use bbsim_storage::placement::Placement;
pub use bbsim_storage::ssd::StreamMode;
pub use bbsim_storage::{DrainPolicy, FullPolicy};
pub use bbsim_topology::routing::Routing;
pub use bbsim_topology::traffic::Pattern;

/// A whole scenario.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A name for reports.
    #[serde(default = "default_name")]
    pub name: String,
    /// Run settings.
    #[serde(default)]
    pub simulation: SimulationSection,
    /// The interconnect.
    pub network: NetworkSection,
    /// Burst buffers: placement, servers, SSDs, striping, FTL, drain.
    #[serde(default)]
    pub burst_buffer: BurstBufferSection,
    /// The parallel file system.
    #[serde(default)]
    pub pfs: PfsSection,
    /// Persistent burst-buffer reservations (`[[reservations]]`).
    #[serde(default)]
    pub reservations: Vec<ReservationSection>,
    /// The jobs (`[[jobs]]`), in submission order (`bbsim run` needs at least one).
    #[serde(default)]
    pub jobs: Vec<JobSection>,
    /// Synthetic network traffic for `bbsim net` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficSection>,
    /// What to write.
    #[serde(default)]
    pub outputs: OutputsSection,
    /// Unit prices and powers for the cost model.
    #[serde(default)]
    pub cost: CostSection,
}

fn default_name() -> String {
    "scenario".into()
}

// Defaults shared by several sections.
fn one() -> u64 {
    1
}
fn one_u32() -> u32 {
    1
}
fn yes() -> bool {
    true
}
