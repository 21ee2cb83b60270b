//! # bbsim-topology
//!
//! Interconnect topologies and a packet-level network model on top of the bbsim PDES engine.
//!
//! - Topologies ([`Topology`]): fat-trees ([`fattree`]), canonical and Aries-style dragonflies
//!   ([`dragonfly`], [`aries`]) and n-dimensional tori ([`torus`]), with extra terminals for
//!   burst-buffer servers and PFS I/O nodes placed where a [`Placement`] asks ([`attach`]), and
//!   their metrics ([`metrics`]).
//! - Routing ([`routing`]): fat-tree deterministic / adaptive, dragonfly minimal / Valiant /
//!   UGAL, torus dimension order; virtual channels make each deadlock-free.
//! - The packet model: [`Router`] (a router LP component) and [`Nic`] (a terminal's network
//!   interface, embedded in a host LP), exchanging [`NetEvent`]s generic over a payload `P`.
//! - [`Network`] assembles routers and NICs for a simulation; [`traffic`] runs synthetic
//!   traffic on its own and reports latency, hops and throughput.
//!
//! Units everywhere: time in picoseconds ([`bbsim_engine::Time`]), sizes in bytes,
//! bandwidths in bytes per second. See `docs/network.md`.

pub mod aries;
pub mod attach;
pub mod bypass;
pub mod dragonfly;
mod end_heap;
pub mod error;
mod fabric;
pub mod fattree;
pub mod flow;
pub mod graph;
pub mod link;
pub mod metrics;
pub mod network;
pub mod nic;
pub mod packet;
pub mod path;
pub mod router;
pub mod routing;
pub mod stats;
pub mod topology;
pub mod torus;
pub mod traffic;

pub use aries::AriesConfig;
pub use attach::{ExtraGroup, ExtraTerminals, Placement};
pub use dragonfly::DragonflyConfig;
pub use error::{
    ExtraParam, FatTreeParam, GroupParam, LinkField, NetError, NetParam, TorusParam, TrafficParam,
};
pub use fattree::FatTreeConfig;
pub use flow::{FlowFabric, MAX_FLOW_JITTER_PPM};
pub use link::{LinkClass, LinkParams, LinkStats};
pub use metrics::TopologySummary;
pub use network::{
    min_part, LpLayout, NetModel, Network, NetworkConfig, RouterParams, MAX_FLOW_WINDOW,
    MAX_HEADER_BYTES, MAX_PACKET_SERIALISATION, MAX_PACKET_SIZE, MAX_UNIT_PACKETS,
};
pub use nic::{Nic, NicStats};
pub use packet::{Assembled, Delivered, MessageId, MessageRoute, NetEvent, Packet};
pub use path::PathFabric;
pub use router::{HeadWaits, Router, RouterStats};
pub use routing::Routing;
pub use stats::{ClassUsage, NetworkStats};
pub use topology::{Shape, Topology, TopologyConfig};
pub use torus::TorusConfig;
pub use traffic::{
    run_traffic, run_traffic_threads, Pattern, TrafficConfig, TrafficReport, TrafficSim, Victim,
    VictimReport,
};
