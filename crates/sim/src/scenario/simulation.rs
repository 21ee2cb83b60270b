//! `[simulation]`: seed, threads, end time, packets, transfer trains.

use super::*;
use bbsim_engine::Threads;

/// `[simulation]`: seed, threads, end time, packet size.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSection {
    /// Seed of every random stream (allocation, routing ties, application jitter).
    #[serde(default = "one")]
    pub seed: u64,
    /// Worker threads: `"auto"` (the default: up to one per core, used only while they are
    /// measured to pay) or a number (results are identical for any value).
    #[serde(default)]
    pub threads: Threads,
    /// Stop the simulation at this simulated time; by default it runs until every job is done.
    #[serde(default)]
    pub end_time: Option<Duration>,
    /// Network packet size (messages are split into packets of this size; the network
    /// model's default, 4 KiB).
    #[serde(default = "default_packet")]
    pub packet_size: Bytes,
    /// Network units ("trains" of packets): the packet model moves up to this many bytes of
    /// one message as one unit, routed, buffered and arbitrated as one and split at packet
    /// boundaries where the downstream buffer is short of credit; a whole number of packets.
    /// Default: one packet (every packet on its own). docs/network.md, "Units".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_size: Option<Bytes>,
    /// Transfer trains: at most this many consecutive reads or writes of one rank (same file,
    /// same size, back to back offsets, within one stripe of a BB layout, or to the node-local
    /// SSD) are simulated as one network message and one serial device request, each operation
    /// still charged its own overheads; 1 (the default) simulates every operation on its own.
    /// A coarser model for speed: docs/architecture.md, "Transfer trains".
    #[serde(default = "one_u32")]
    pub train_ops: u32,
    /// How the machine is cut into the clusters that threads own: `"regions"` (the default:
    /// each fat-tree pod, dragonfly group or torus slab whole) or `"routers"` (each router
    /// with the hosts behind it, so a region heavier than a thread's share, such as the pod of
    /// the global BB servers, can be spread over threads). Results are identical either way.
    #[serde(default, skip_serializing_if = "PartitionChoice::is_regions")]
    pub partition: PartitionChoice,
}

/// `simulation.partition`: the clusters that threads own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartitionChoice {
    /// Each pod, group or torus slab is one cluster.
    #[default]
    Regions,
    /// Each router with its hosts is a cluster; a region is dealt out whole unless splitting
    /// it into its routers evens the threads in a stretch dense enough for threads.
    Routers,
}

impl PartitionChoice {
    fn is_regions(&self) -> bool {
        *self == PartitionChoice::Regions
    }

    /// The engine's partition for this choice.
    pub fn spec(self) -> bbsim_engine::PartitionSpec {
        match self {
            PartitionChoice::Regions => bbsim_engine::PartitionSpec::Auto,
            PartitionChoice::Routers => bbsim_engine::PartitionSpec::Split,
        }
    }
}

fn default_packet() -> Bytes {
    Bytes(u64::from(bbsim_topology::network::DEFAULT_PACKET_SIZE))
}

impl Default for SimulationSection {
    fn default() -> Self {
        SimulationSection {
            seed: 1,
            threads: Threads::Auto,
            end_time: None,
            packet_size: default_packet(),
            unit_size: None,
            train_ops: 1,
            partition: PartitionChoice::Regions,
        }
    }
}
