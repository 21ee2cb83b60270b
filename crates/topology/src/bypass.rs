//! Small-message bypass: messages of at most `bypass_max` wire bytes (storage acknowledgements,
//! read requests) skip the packet model and arrive after the zero-load latency of their minimal
//! route, without occupying links, buffers or credits.
//!
//! Why: a storage transfer is a large data message plus a small control message going the other
//! way. In the packet model the control message costs as many events as the data (one arrival
//! and one credit per hop), so half the network's events carry 64 bytes. With large packets it
//! is also less faithful than it looks: a 64-byte acknowledgement queued behind a 1 MiB packet
//! waits for its whole serialisation, where a real flit-level network interleaves it. The bypass
//! trades that queueing for a closed form.
//!
//! Latency of a bypassed message of `b` bytes between terminals whose minimal route traverses
//! `h` routers: `L_src + L_dst + (h - 1) (L + D) + max(D + ser_t, ser)`, with `L_src`, `L_dst`
//! the terminal links' latencies, `ser_t` the serialisation of `b` on the slower terminal link,
//! `L` and `ser` those of the router links (`ser = 0` when `h = 1`) and `D` the router delay.
//! That is the packet model's zero-load latency of a one-packet message (docs/network.md)
//! whenever all router links share one latency and bandwidth, as scenario files make them;
//! otherwise `L` is the smallest router-link latency and `ser` that of the slowest router link.

use crate::graph::Peer;
use crate::link::{serialisation, LinkClass};
use crate::topology::Topology;
use bbsim_engine::{LpId, Time};
use std::sync::Arc;

/// What a NIC needs to deliver bypassed messages: shared by all NICs of a network.
#[derive(Debug)]
pub struct Bypass {
    topo: Arc<Topology>,
    /// LP of the host owning terminal `t`.
    terminal_lps: Arc<[LpId]>,
    /// Largest message (wire bytes) that bypasses the packet model.
    max_bytes: u64,
    /// Smallest router-to-router link latency (ps).
    router_latency: Time,
    /// Slowest router-to-router link (bytes/s).
    router_bandwidth: u64,
    /// Router delay (ps).
    router_delay: Time,
}

impl Bypass {
    /// The bypass of `topo` for messages of at most `max_bytes`, delivering to `terminal_lps`.
    pub(crate) fn new(
        topo: Arc<Topology>,
        terminal_lps: Arc<[LpId]>,
        max_bytes: u64,
        router_delay: Time,
    ) -> Self {
        let router_links = || {
            topo.wiring()
                .ports
                .iter()
                .filter(|p| p.peer != Peer::None && p.class != LinkClass::Terminal)
                .map(|p| p.link)
        };
        let router_latency = router_links().map(|l| l.latency).min().unwrap_or(0);
        let router_bandwidth = router_links()
            .map(|l| l.bandwidth)
            .min()
            .unwrap_or(u64::MAX);
        Bypass {
            topo,
            terminal_lps,
            max_bytes,
            router_latency,
            router_bandwidth,
            router_delay,
        }
    }

    /// Whether a message of `bytes` wire bytes bypasses the packet model.
    #[inline]
    pub fn applies(&self, bytes: u64) -> bool {
        bytes <= self.max_bytes
    }

    /// Whether this bypass delivers to exactly these host LPs (indexed by terminal).
    pub(crate) fn delivers_to(&self, terminal_lps: &[LpId]) -> bool {
        *self.terminal_lps == *terminal_lps
    }

    /// The host LP of terminal `t`.
    #[inline]
    pub fn host(&self, t: u32) -> LpId {
        self.terminal_lps[t as usize]
    }

    /// Routers traversed and zero-load latency (ps) of a `bytes`-byte message from terminal
    /// `src` to terminal `dst` over its minimal route.
    pub fn route(&self, src: u32, dst: u32, bytes: u64) -> (u32, Time) {
        let (Some(a), Some(b)) = (self.topo.attachment(src), self.topo.attachment(dst)) else {
            return (0, 0);
        };
        let h = self.topo.router_hops(a.router, b.router).max(1);
        let ser_t = serialisation(bytes, a.link.bandwidth.min(b.link.bandwidth));
        let ser = if h > 1 {
            serialisation(bytes, self.router_bandwidth)
        } else {
            0
        };
        let latency = a.link.latency
            + b.link.latency
            + Time::from(h - 1) * (self.router_latency + self.router_delay)
            + (self.router_delay + ser_t).max(ser);
        (h, latency)
    }

    /// Smallest latency (ps) of any bypassed message: both terminal links of one router and its
    /// router delay. The lookahead between host LPs when the bypass is on.
    pub fn lookahead(topo: &Topology, router_delay: Time) -> Time {
        let t = topo
            .wiring()
            .ports
            .iter()
            .filter(|p| p.peer != Peer::None && p.class == LinkClass::Terminal)
            .map(|p| p.link.latency)
            .min()
            .unwrap_or(1);
        2 * t + router_delay
    }
}
