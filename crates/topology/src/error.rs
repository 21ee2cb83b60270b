//! Configuration and run errors of the network model.
//!
//! A bad parameter is named by a typed [`NetParam`] (the configuration that holds it and the
//! field), so a caller that names parameters in its own terms matches every case; parameters
//! print as this crate's dotted names (`fat_tree.radix`, `extra.bb.routers`).

use std::fmt;

/// An error from building or running a network: a bad parameter (named, with what was expected)
/// or an engine failure during a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    /// A configuration parameter is out of range or inconsistent with the others.
    Invalid {
        /// The parameter.
        param: NetParam,
        /// What was expected, e.g. `an even number >= 4`.
        expected: String,
        /// What was given.
        got: String,
    },
    /// The engine stopped the run with an error (a model contract violation).
    Engine(String),
}

impl NetError {
    /// Builds an [`NetError::Invalid`] from its parts.
    pub fn invalid(param: NetParam, expected: impl Into<String>, got: impl fmt::Display) -> Self {
        NetError::Invalid {
            param,
            expected: expected.into(),
            got: got.to_string(),
        }
    }
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Invalid {
                param,
                expected,
                got,
            } => write!(f, "invalid {param}: expected {expected}, got {got}"),
            NetError::Engine(e) => write!(f, "network simulation failed: {e}"),
        }
    }
}

impl std::error::Error for NetError {}

impl From<bbsim_engine::EngineError> for NetError {
    fn from(e: bbsim_engine::EngineError) -> Self {
        NetError::Engine(e.to_string())
    }
}

/// Checks `value >= min`, naming `param` otherwise.
pub(crate) fn at_least(param: NetParam, value: u64, min: u64) -> Result<(), NetError> {
    if value < min {
        Err(NetError::invalid(param, format!("at least {min}"), value))
    } else {
        Ok(())
    }
}

/// A parameter of a [`NetworkConfig`](crate::network::NetworkConfig), of its topology or of
/// synthetic traffic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetParam {
    /// A field of a fat-tree.
    FatTree(FatTreeParam),
    /// A field of a canonical dragonfly.
    Dragonfly(GroupParam),
    /// A field of a Cray Cascade/Aries dragonfly.
    Aries(GroupParam),
    /// A field of a torus.
    Torus(TorusParam),
    /// A field of the extra terminal set with this name (BB servers, PFS I/O nodes).
    Extra(String, ExtraParam),
    /// The routing algorithm.
    Routing,
    /// Packet size (bytes).
    PacketSize,
    /// Input buffer of each virtual channel (packets).
    BufferPackets,
    /// Input buffer of each virtual channel (bytes).
    VcBuffer,
    /// Unit size (bytes).
    UnitSize,
    /// Bytes of a message per routing decision (the diagnostic variant).
    RoutingBlock,
    /// Bytes of a message per burst of grants (the diagnostic variant).
    GrantBlock,
    /// Bytes of a message per lane choice (the diagnostic variant).
    LaneBlock,
    /// The smallest part a unit is sent as when credit is short (bytes).
    MinPart,
    /// Virtual channels per port.
    Vcs,
    /// The flow model's packets in flight per terminal.
    FlowWindow,
    /// The flow model's jitter (parts per million).
    FlowJitterPpm,
    /// The slowest link's bandwidth (a full packet must serialise on it in at most an hour).
    LinkBandwidth,
    /// A field of synthetic traffic.
    Traffic(TrafficParam),
}

/// A field of a link class ([`LinkParams`](crate::link::LinkParams)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkField {
    /// Bandwidth (bytes/s).
    Bandwidth,
    /// Latency (ps).
    Latency,
}

/// A field of a [`FatTreeConfig`](crate::fattree::FatTreeConfig).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FatTreeParam {
    /// Levels (2 or 3).
    Levels,
    /// Switch radix.
    Radix,
    /// Taper of the edge switches' up-links.
    Taper,
    /// Compute terminals.
    Terminals,
    /// The terminal links.
    TerminalLink(LinkField),
    /// The switch-to-switch links.
    Link(LinkField),
}

/// A field of a dragonfly ([`DragonflyConfig`](crate::dragonfly::DragonflyConfig) or
/// [`AriesConfig`](crate::aries::AriesConfig)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupParam {
    /// Routers per group (`a`).
    RoutersPerGroup,
    /// Rows of routers per group (Aries).
    Rows,
    /// Columns of routers per group (Aries).
    Cols,
    /// Terminals per router (`p`).
    TerminalsPerRouter,
    /// Global links per router (`h`).
    GlobalLinks,
    /// Groups (`g`).
    Groups,
    /// Compute terminals.
    Terminals,
    /// The whole topology's size (routers, ports per router, groups).
    Size,
    /// The terminal links.
    TerminalLink(LinkField),
    /// The links within a group.
    LocalLink(LinkField),
    /// The links between groups.
    GlobalLink(LinkField),
}

/// A field of a [`TorusConfig`](crate::torus::TorusConfig).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TorusParam {
    /// The dimensions as a whole (count, routers, longest route).
    Dims,
    /// The size of one dimension.
    Dim(usize),
    /// Terminals per router.
    TerminalsPerRouter,
    /// Compute terminals.
    Terminals,
    /// The terminal links.
    TerminalLink(LinkField),
    /// The router-to-router links.
    Link(LinkField),
}

/// A field of an extra terminal set ([`ExtraTerminals`](crate::attach::ExtraTerminals)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtraParam {
    /// Its name (unique among the sets).
    Name,
    /// Where it attaches.
    Placement,
    /// Every how many compute routers it attaches.
    Every,
    /// Terminals per attachment.
    Count,
    /// Routers it attaches to.
    Routers,
    /// Groups it attaches to.
    Groups,
    /// Terminals per router it attaches to.
    PerRouter,
    /// Ports it adds to a router.
    Ports,
    /// Its links.
    Link(LinkField),
}

/// A field of synthetic traffic ([`TrafficConfig`](crate::traffic::TrafficConfig)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrafficParam {
    /// The compute terminals that exchange traffic.
    Terminals,
    /// End time (ps).
    End,
    /// Messages per node.
    MessagesPerNode,
    /// Hot-spot terminal.
    HotSpot,
    /// Traffic pattern.
    Pattern,
    /// A destination terminal.
    Terminal,
    /// The distance of the shift pattern.
    Shift,
    /// The victim flow beside a hot spot.
    Victim,
}

impl fmt::Display for LinkField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LinkField::Bandwidth => "bandwidth",
            LinkField::Latency => "latency",
        })
    }
}

impl fmt::Display for NetParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetParam::FatTree(p) => match p {
                FatTreeParam::Levels => f.write_str("fat_tree.levels"),
                FatTreeParam::Radix => f.write_str("fat_tree.radix"),
                FatTreeParam::Taper => f.write_str("fat_tree.taper"),
                FatTreeParam::Terminals => f.write_str("fat_tree.terminals"),
                FatTreeParam::TerminalLink(l) => write!(f, "fat_tree.terminal.{l}"),
                FatTreeParam::Link(l) => write!(f, "fat_tree.link.{l}"),
            },
            NetParam::Dragonfly(p) => group(f, "dragonfly", "a", "p", "g", p),
            NetParam::Aries(p) => group(
                f,
                "aries",
                "routers_per_group",
                "terminals_per_router",
                "groups",
                p,
            ),
            NetParam::Torus(p) => match p {
                TorusParam::Dims => f.write_str("torus.dims"),
                TorusParam::Dim(d) => write!(f, "torus.dims[{d}]"),
                TorusParam::TerminalsPerRouter => f.write_str("torus.terminals_per_router"),
                TorusParam::Terminals => f.write_str("torus.terminals"),
                TorusParam::TerminalLink(l) => write!(f, "torus.terminal.{l}"),
                TorusParam::Link(l) => write!(f, "torus.link.{l}"),
            },
            NetParam::Extra(name, p) => match p {
                ExtraParam::Name => f.write_str("extra.name"),
                ExtraParam::Placement => write!(f, "extra.{name}.placement"),
                ExtraParam::Every => write!(f, "extra.{name}.every"),
                ExtraParam::Count => write!(f, "extra.{name}.count"),
                ExtraParam::Routers => write!(f, "extra.{name}.routers"),
                ExtraParam::Groups => write!(f, "extra.{name}.groups"),
                ExtraParam::PerRouter => write!(f, "extra.{name}.per_router"),
                ExtraParam::Ports => write!(f, "extra.{name}"),
                ExtraParam::Link(l) => write!(f, "extra.{name}.link.{l}"),
            },
            NetParam::Routing => f.write_str("routing"),
            NetParam::PacketSize => f.write_str("packet_size"),
            NetParam::BufferPackets => f.write_str("buffer_packets"),
            NetParam::VcBuffer => f.write_str("vc_buffer"),
            NetParam::UnitSize => f.write_str("unit_size"),
            NetParam::RoutingBlock => f.write_str("routing_block"),
            NetParam::GrantBlock => f.write_str("grant_block"),
            NetParam::LaneBlock => f.write_str("lane_block"),
            NetParam::MinPart => f.write_str("min_part"),
            NetParam::Vcs => f.write_str("vcs"),
            NetParam::FlowWindow => f.write_str("flow_window"),
            NetParam::FlowJitterPpm => f.write_str("flow_jitter_ppm"),
            NetParam::LinkBandwidth => f.write_str("link bandwidth"),
            NetParam::Traffic(p) => f.write_str(match p {
                TrafficParam::Terminals => "traffic",
                TrafficParam::End => "traffic.end",
                TrafficParam::MessagesPerNode => "traffic.messages_per_node",
                TrafficParam::HotSpot => "traffic.hot_spot",
                TrafficParam::Pattern => "traffic.pattern",
                TrafficParam::Terminal => "terminal",
                TrafficParam::Shift => "traffic.shift",
                TrafficParam::Victim => "traffic.victim_from/victim_to",
            }),
        }
    }
}

/// Writes a dragonfly-family field as `family.field`, with the family's names for `a`, `p`
/// and `g`.
fn group(
    f: &mut fmt::Formatter<'_>,
    family: &str,
    a: &str,
    p: &str,
    g: &str,
    param: &GroupParam,
) -> fmt::Result {
    match param {
        GroupParam::RoutersPerGroup => write!(f, "{family}.{a}"),
        GroupParam::Rows => write!(f, "{family}.rows"),
        GroupParam::Cols => write!(f, "{family}.cols"),
        GroupParam::TerminalsPerRouter => write!(f, "{family}.{p}"),
        GroupParam::GlobalLinks => write!(f, "{family}.h"),
        GroupParam::Groups => write!(f, "{family}.{g}"),
        GroupParam::Terminals => write!(f, "{family}.terminals"),
        GroupParam::Size => f.write_str(family),
        GroupParam::TerminalLink(l) => write!(f, "{family}.terminal.{l}"),
        GroupParam::LocalLink(l) => write!(f, "{family}.local.{l}"),
        GroupParam::GlobalLink(l) => write!(f, "{family}.global.{l}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_print_as_the_crate_names_them() {
        let e = NetError::invalid(NetParam::FatTree(FatTreeParam::Radix), "an even number", 5);
        assert_eq!(
            e.to_string(),
            "invalid fat_tree.radix: expected an even number, got 5"
        );
        assert_eq!(
            NetParam::Dragonfly(GroupParam::Groups).to_string(),
            "dragonfly.g"
        );
        assert_eq!(
            NetParam::Aries(GroupParam::Groups).to_string(),
            "aries.groups"
        );
        assert_eq!(
            NetParam::Aries(GroupParam::GlobalLink(LinkField::Latency)).to_string(),
            "aries.global.latency"
        );
        assert_eq!(
            NetParam::Torus(TorusParam::Dim(2)).to_string(),
            "torus.dims[2]"
        );
        let bb = |p| NetParam::Extra("bb".into(), p);
        assert_eq!(bb(ExtraParam::Routers).to_string(), "extra.bb.routers");
        assert_eq!(bb(ExtraParam::Ports).to_string(), "extra.bb");
        assert_eq!(bb(ExtraParam::Name).to_string(), "extra.name");
        assert!(at_least(NetParam::BufferPackets, 0, 1).is_err());
    }
}
