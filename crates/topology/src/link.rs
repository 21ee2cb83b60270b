//! Links: bandwidth and latency of a channel, serialisation times, link classes and statistics.

use crate::error::{LinkField, NetError, NetParam};
use bbsim_engine::Time;
use serde::{Deserialize, Serialize};

/// Picoseconds per second.
const PS_PER_SEC: u128 = 1_000_000_000_000;

/// A unidirectional channel's parameters (both directions of a link use the same values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkParams {
    /// Bandwidth in bytes per second.
    pub bandwidth: u64,
    /// Propagation latency in picoseconds (the time from the first bit leaving the sender to the
    /// first bit arriving). It is also the lookahead of the parallel engine, so it must be > 0.
    pub latency: Time,
}

impl LinkParams {
    /// A link of `bandwidth` bytes per second and `latency` picoseconds.
    pub fn new(bandwidth: u64, latency: Time) -> Self {
        LinkParams { bandwidth, latency }
    }

    /// Picoseconds needed to put `bytes` on the wire (rounded up to a whole picosecond).
    #[inline]
    pub fn serialisation(&self, bytes: u64) -> Time {
        serialisation(bytes, self.bandwidth)
    }

    /// Checks bandwidth and latency, naming the field as `param` gives it (e.g.
    /// `NetParam::Dragonfly(GroupParam::GlobalLink(field))`) on failure.
    pub fn validate(&self, param: impl Fn(LinkField) -> NetParam) -> Result<(), NetError> {
        if self.bandwidth == 0 {
            return Err(NetError::invalid(
                param(LinkField::Bandwidth),
                "a bandwidth > 0 bytes/s",
                0,
            ));
        }
        if self.latency == 0 {
            return Err(NetError::invalid(
                param(LinkField::Latency),
                "a latency > 0 ps (it is the lookahead of the parallel engine)",
                0,
            ));
        }
        Ok(())
    }
}

/// Picoseconds needed to send `bytes` at `bandwidth` bytes per second, rounded up. A zero
/// bandwidth gives `Time::MAX` (configurations reject it before any run).
#[inline]
pub fn serialisation(bytes: u64, bandwidth: u64) -> Time {
    if bandwidth == 0 {
        return Time::MAX;
    }
    // Below 18.4 MB the product fits in 64 bits, where one hardware division does; the same
    // quotient as the 128-bit path.
    match bytes.checked_mul(PS_PER_SEC as u64) {
        Some(ps) => ps.div_ceil(bandwidth),
        None => serialisation_wide(bytes, bandwidth),
    }
}

/// [`serialisation`] in 128-bit arithmetic, for any size (`bandwidth > 0`).
fn serialisation_wide(bytes: u64, bandwidth: u64) -> Time {
    let t = (u128::from(bytes) * PS_PER_SEC).div_ceil(u128::from(bandwidth));
    u64::try_from(t).unwrap_or(Time::MAX)
}

/// What a link connects, for statistics and bisection accounting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkClass {
    /// A terminal (NIC) to its router.
    Terminal,
    /// Fat-tree edge (leaf) switch to aggregation (spine) switch.
    EdgeAgg,
    /// Fat-tree aggregation switch to core switch.
    AggCore,
    /// Dragonfly local channel inside a group (1-D dragonfly all-to-all).
    Local,
    /// Aries row channel (all-to-all inside a row of a group).
    Row,
    /// Aries column channel (all-to-all inside a column of a group).
    Column,
    /// Dragonfly global channel between groups.
    Global,
    /// Torus channel between neighbours in one dimension.
    Torus,
}

impl LinkClass {
    /// Every class, in report order.
    pub const ALL: [LinkClass; 8] = [
        LinkClass::Terminal,
        LinkClass::EdgeAgg,
        LinkClass::AggCore,
        LinkClass::Local,
        LinkClass::Row,
        LinkClass::Column,
        LinkClass::Global,
        LinkClass::Torus,
    ];

    /// A short lower-case name (`terminal`, `global`, ...).
    pub fn name(self) -> &'static str {
        match self {
            LinkClass::Terminal => "terminal",
            LinkClass::EdgeAgg => "edge-agg",
            LinkClass::AggCore => "agg-core",
            LinkClass::Local => "local",
            LinkClass::Row => "row",
            LinkClass::Column => "column",
            LinkClass::Global => "global",
            LinkClass::Torus => "torus",
        }
    }

    /// Index into [`LinkClass::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Traffic carried by one direction of one link (a router output port or a NIC's injection).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkStats {
    /// Bytes sent.
    pub bytes: u64,
    /// Packets sent.
    pub packets: u64,
    /// Picoseconds the channel spent serialising packets.
    pub busy: Time,
    /// Transmissions: packets, units and parts of units sent, each counted once (`bytes /
    /// sends` is the mean size on the wire; not part of any digest).
    pub sends: u64,
}

impl LinkStats {
    /// Records one packet of `bytes` bytes occupying the channel for `busy` ps.
    #[inline]
    pub fn record(&mut self, bytes: u64, busy: Time) {
        self.record_span(bytes, busy, 1);
    }

    /// Records a unit of `packets` packets and `bytes` bytes occupying the channel for `busy`
    /// ps.
    #[inline]
    pub fn record_span(&mut self, bytes: u64, busy: Time, packets: u16) {
        self.bytes += bytes;
        self.packets += u64::from(packets);
        self.busy += busy;
        self.sends += 1;
    }

    /// Adds another link's figures.
    pub fn add(&mut self, o: &LinkStats) {
        self.bytes += o.bytes;
        self.packets += o.packets;
        self.busy += o.busy;
        self.sends += o.sends;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_is_the_128_bit_quotient_on_both_sides_of_the_fast_path() {
        let wide = serialisation_wide;
        let edge = u64::MAX / PS_PER_SEC as u64;
        let mut rng = bbsim_engine::Rng::seed_from_u64(3);
        for bytes in [
            0,
            1,
            4096,
            65_536,
            8 << 20,
            edge - 1,
            edge,
            edge + 1,
            u64::MAX,
        ] {
            for bw in [1, 7, 1_500_000_000, 12_500_000_000, u64::MAX] {
                assert_eq!(
                    serialisation(bytes, bw),
                    wide(bytes, bw),
                    "{bytes} B at {bw} B/s"
                );
            }
        }
        for _ in 0..10_000 {
            let bytes = rng.below(2 * edge);
            let bw = 1 + rng.below(50_000_000_000);
            assert_eq!(
                serialisation(bytes, bw),
                wide(bytes, bw),
                "{bytes} B at {bw} B/s"
            );
        }
    }

    #[test]
    fn serialisation_is_exact_and_rounds_up() {
        // 512 B at 12.5 GB/s = 40.96 ns.
        assert_eq!(serialisation(512, 12_500_000_000), 40_960);
        assert_eq!(serialisation(1, 3_000_000_000_000), 1);
        assert_eq!(serialisation(0, 1), 0);
        assert_eq!(serialisation(1, 0), Time::MAX);
        assert_eq!(LinkParams::new(1_000_000_000, 5).serialisation(3), 3_000);
    }

    #[test]
    fn validation_names_the_parameter() {
        use crate::error::{FatTreeParam, TorusParam};
        let torus = |l| NetParam::Torus(TorusParam::Link(l));
        let e = LinkParams::new(0, 5).validate(torus).unwrap_err();
        assert!(e.to_string().contains("torus.link.bandwidth"), "{e}");
        let e = LinkParams::new(5, 0)
            .validate(|l| NetParam::FatTree(FatTreeParam::TerminalLink(l)))
            .unwrap_err();
        assert!(e.to_string().contains("fat_tree.terminal.latency"), "{e}");
        assert!(LinkParams::new(1, 1).validate(torus).is_ok());
    }
}
