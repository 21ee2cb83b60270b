//! Network-wide statistics, reduced from per-router and per-NIC figures in LP order.

use crate::graph::Peer;
use crate::link::{LinkClass, LinkStats};
use crate::nic::NicStats;
use crate::router::{HeadWaits, RouterStats};
use crate::topology::Topology;
use bbsim_engine::digest::Digest;
use bbsim_engine::Time;
use serde::Serialize;

/// Traffic on all channels (link directions) of one class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassUsage {
    /// The link class.
    pub class: LinkClass,
    /// Channels (link directions) of the class.
    pub channels: u64,
    /// Bytes carried.
    pub bytes: u64,
    /// Packets carried.
    pub packets: u64,
    /// Mean utilisation over the channels: busy time / (channels x elapsed time).
    pub utilisation: f64,
    /// Utilisation of the busiest channel of the class.
    pub max_utilisation: f64,
    /// Why input-buffer heads waited for the class's router output ports (none for NIC
    /// injection, which has no input buffer ahead of it).
    pub head_waits: HeadWaits,
}

/// Network-wide figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetworkStats {
    /// Per link class, in [`LinkClass::ALL`] order (classes without channels left out).
    pub classes: Vec<ClassUsage>,
    /// Packets routed by all routers (one per packet and router traversed).
    pub packets_routed: u64,
    /// Mean over routers of the time-averaged bytes held in input buffers.
    pub mean_buffer_occupancy: f64,
    /// Largest number of bytes held in one router's input buffers at once.
    pub max_buffer_occupancy: u64,
    /// Largest number of bytes held in one input port's buffers at once.
    pub max_port_occupancy: u64,
    /// Why input-buffer heads waited for their output ports, summed over all router ports:
    /// a busy port or a downstream buffer without credit (counts and ps).
    pub head_waits: HeadWaits,
    /// Packets delivered to terminals (a unit counts as the packets it carries).
    pub packets_delivered: u64,
    /// Routers traversed, summed over the delivered packets.
    pub packet_hops: u64,
    /// Delivered packets that took a non-minimal route.
    pub nonminimal_packets: u64,
}

impl NetworkStats {
    /// Reduces router statistics (router id and figures, in router order) and NIC statistics
    /// (in terminal order) over `[0, until)` ps.
    pub fn collect<'a>(
        topo: &Topology,
        routers: impl IntoIterator<Item = (u32, &'a RouterStats)>,
        nics: impl IntoIterator<Item = &'a NicStats>,
        until: Time,
    ) -> Self {
        let n = LinkClass::ALL.len();
        let mut sums = vec![LinkStats::default(); n];
        let mut channels = vec![0u64; n];
        let mut max_busy = vec![0 as Time; n];
        let mut class_waits = vec![HeadWaits::default(); n];
        let mut packets_routed = 0;
        let (mut delivered, mut hops, mut nonminimal) = (0u64, 0u64, 0u64);
        let (mut occ_sum, mut max_occ, mut max_port, mut count) = (0.0, 0u64, 0u64, 0u32);
        for (id, s) in routers {
            packets_routed += s.packets;
            occ_sum += s.mean_occupancy(until);
            max_occ = max_occ.max(s.max_occupancy);
            max_port = max_port.max(s.port_max_occupancy().max().unwrap_or(0));
            count += 1;
            let ports = topo.ports(id).iter().zip(&s.links).zip(&s.head_waits);
            for ((port, link), w) in ports {
                if port.peer == Peer::None {
                    continue;
                }
                let c = port.class.index();
                class_waits[c].add(w);
                sums[c].add(link);
                channels[c] += 1;
                max_busy[c] = max_busy[c].max(link.busy);
            }
        }
        for nic in nics {
            let c = LinkClass::Terminal.index();
            sums[c].add(&nic.injection);
            channels[c] += 1;
            max_busy[c] = max_busy[c].max(nic.injection.busy);
            delivered += nic.received_packets;
            hops += nic.packet_hops;
            nonminimal += nic.nonminimal_packets;
        }
        // Only connected ports route packets, so the classes hold every head wait.
        let mut waits = HeadWaits::default();
        for w in &class_waits {
            waits.add(w);
        }
        let span = until.max(1) as f64;
        let classes = LinkClass::ALL
            .iter()
            .filter(|c| channels[c.index()] > 0)
            .map(|&class| {
                let i = class.index();
                ClassUsage {
                    class,
                    channels: channels[i],
                    bytes: sums[i].bytes,
                    packets: sums[i].packets,
                    utilisation: sums[i].busy as f64 / (channels[i] as f64 * span),
                    max_utilisation: max_busy[i] as f64 / span,
                    head_waits: class_waits[i],
                }
            })
            .collect();
        NetworkStats {
            classes,
            packets_routed,
            mean_buffer_occupancy: if count > 0 {
                occ_sum / f64::from(count)
            } else {
                0.0
            },
            max_buffer_occupancy: max_occ,
            max_port_occupancy: max_port,
            head_waits: waits,
            packets_delivered: delivered,
            packet_hops: hops,
            nonminimal_packets: nonminimal,
        }
    }

    /// Mixes the integer figures into a digest (for determinism checks).
    pub fn digest(&self, d: &mut Digest) {
        for c in &self.classes {
            d.word(c.class.index() as u64).word(c.bytes).word(c.packets);
            d.word(c.utilisation.to_bits())
                .word(c.max_utilisation.to_bits());
        }
        d.word(self.packets_routed)
            .word(self.mean_buffer_occupancy.to_bits())
            .word(self.max_buffer_occupancy)
            .word(self.max_port_occupancy)
            .word(self.packets_delivered)
            .word(self.packet_hops)
            .word(self.nonminimal_packets);
    }
}
