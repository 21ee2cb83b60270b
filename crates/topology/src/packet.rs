//! Packets, network events and delivered messages.

use bbsim_engine::Time;

/// Marker for "not chosen yet" in [`Packet::slot`] and [`Packet::aux`].
pub const NONE: u16 = u16::MAX;

/// Flag: the packet is routed non-minimally (through an intermediate dragonfly group).
pub const FLAG_NONMINIMAL: u8 = 1;
/// Flag: the source router has made its minimal / non-minimal decision.
pub const FLAG_DECIDED: u8 = 2;
/// Flag: the header stands for a whole message assembled at the destination's router
/// ([`Packet::whole`]); its routing fields carry the packets' sums.
pub const FLAG_WHOLE: u8 = 4;

/// Identifies a message: the sending terminal and its per-terminal sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageId {
    /// Sending terminal.
    pub src: u32,
    /// Sequence number of the message at its sender (0, 1, 2, ...).
    pub seq: u32,
}

/// One packet (or one unit of packets) in flight: a small `Copy` header of 40 bytes (the
/// payload travels beside it in the event; fields ordered by alignment). A router derives when the
/// packet's tail arrives from its size and the input link's bandwidth, so the header carries no
/// serialisation time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Source terminal.
    pub src: u32,
    /// Destination terminal.
    pub dst: u32,
    /// Message sequence number at the source.
    pub seq: u32,
    /// Packets in the whole message.
    pub packets: u32,
    /// Time (ps) the message was handed to the source NIC.
    pub injected: Time,
    /// Bytes in this packet (`packet_size`, or the remainder for the last packet; at most
    /// [`crate::MAX_PACKET_SIZE`]), or in this unit (`span` packets' worth).
    pub bytes: u32,
    /// Dragonfly: the intermediate group of a non-minimal route ([`NONE`] otherwise).
    pub aux: u16,
    /// Dragonfly: the global slot chosen for the current phase ([`NONE`] until chosen).
    pub slot: u16,
    /// Input port at the receiving router.
    pub in_port: u16,
    /// Packets of the message this header carries: 1 for a packet; a unit of several packets
    /// ([`crate::NetworkConfig::unit_size`]) carries all of its packets (0 in a whole-message
    /// header).
    pub span: u16,
    /// Routers traversed so far.
    pub hops: u8,
    /// Virtual channel the packet travels on (on arrival: the input VC).
    pub vc: u8,
    /// Dragonfly: global links taken so far.
    pub ghops: u8,
    /// [`FLAG_NONMINIMAL`], [`FLAG_DECIDED`].
    pub flags: u8,
}

impl Packet {
    /// The header that carries whole message `m` from the destination's router to its
    /// terminal. Past the last router the routing fields are spent, so they hold the sums:
    /// `bytes` the extra bytes (two's complement), `aux` and `slot` the low and high halves of
    /// the hop sum, `in_port`, `vc` and `ghops` the non-minimal packet count (bits 0-15,
    /// 16-23, 24-31); `hops` is the most hops of one packet.
    pub fn whole(m: &Assembled) -> Packet {
        let n = m.nonminimal_packets;
        Packet {
            src: m.src,
            dst: m.dst,
            seq: m.seq,
            packets: m.packets,
            injected: m.injected,
            bytes: m.extra_bytes as u32,
            aux: m.hop_sum as u16,
            slot: (m.hop_sum >> 16) as u16,
            in_port: n as u16,
            span: 0,
            hops: m.hops,
            vc: (n >> 16) as u8,
            ghops: (n >> 24) as u8,
            flags: FLAG_WHOLE | if n > 0 { FLAG_NONMINIMAL } else { 0 },
        }
    }

    /// The whole message this header carries, if it is one ([`Packet::whole`]).
    pub fn as_whole(&self) -> Option<Assembled> {
        (self.flags & FLAG_WHOLE != 0).then(|| Assembled {
            src: self.src,
            dst: self.dst,
            seq: self.seq,
            packets: self.packets,
            injected: self.injected,
            extra_bytes: self.bytes as i32,
            hop_sum: u32::from(self.aux) | u32::from(self.slot) << 16,
            nonminimal_packets: u32::from(self.in_port)
                | u32::from(self.vc) << 16
                | u32::from(self.ghops) << 24,
            hops: self.hops,
        })
    }

    /// Whether the packet is routed non-minimally.
    #[inline]
    pub fn nonminimal(&self) -> bool {
        self.flags & FLAG_NONMINIMAL != 0
    }

    /// Buffer space (bytes) the packet occupies and the credits it consumes: its size, at
    /// least 1 so that empty messages still use a buffer slot.
    #[inline]
    pub fn cost(&self) -> u32 {
        self.bytes.max(1)
    }
}

/// The events of the network model. A simulation's global event type embeds them through
/// `From<NetEvent<P>>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetEvent<P> {
    /// A packet: at a router, its head arrived `router_delay` ago and it is ready to be routed;
    /// at a terminal, its tail has arrived. The payload rides with the message's last packet.
    Packet {
        /// The header.
        pkt: Packet,
        /// The message payload (only in the last packet of a message).
        payload: Option<P>,
    },
    /// Buffer space freed downstream: `bytes` of credit for virtual channel `vc` of output
    /// `port` (for a NIC, `port` and `vc` are 0).
    Credit {
        /// The receiver's output port the credit belongs to.
        port: u16,
        /// Virtual channel.
        vc: u8,
        /// Bytes of buffer freed.
        bytes: u32,
    },
    /// A router's output port finished serialising; arbitrate again (router self-event).
    PortFree {
        /// The output port.
        port: u16,
    },
    /// Path model ([`crate::path`]): link `link` (a fabric-wide output-port index) has
    /// finished its reservation; grant it to the next waiting packet (fabric self-event).
    LinkFree {
        /// The fabric's index of the output port.
        link: u32,
    },
    /// Path model: a packet parked by the fabric until its head reaches its next router
    /// (fabric self-event; `slot` indexes the fabric's parked packets).
    Resume {
        /// The fabric's slot of the parked packet.
        slot: u32,
    },
}

/// A message of several packets as its destination terminal receives it from its router's
/// ejection port in one event: the header fields every packet shares, plus the per-packet
/// figures the NIC would have added up packet by packet. It travels as a [`Packet`] header
/// flagged [`FLAG_WHOLE`] ([`Packet::whole`], [`Packet::as_whole`]), so the event is no
/// larger than a packet's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assembled {
    /// Source terminal.
    pub src: u32,
    /// Destination terminal.
    pub dst: u32,
    /// Message sequence number at the source.
    pub seq: u32,
    /// Packets in the message.
    pub packets: u32,
    /// Time (ps) the message was handed to the source NIC.
    pub injected: Time,
    /// Wire bytes of the message minus `packets` full packets: the header riding in the first
    /// packet less what the last one lacks of a full packet (so in `[-packet_size,
    /// MAX_HEADER_BYTES]`).
    pub extra_bytes: i32,
    /// Routers traversed, summed over the packets.
    pub hop_sum: u32,
    /// Packets routed non-minimally.
    pub nonminimal_packets: u32,
    /// Most routers traversed by one packet.
    pub hops: u8,
}

/// Most packets in a message that a router assembles at its ejection port (so that the hop
/// sum, at most 255 per packet, fits in 32 bits); longer messages reach the terminal packet by
/// packet.
pub const MAX_ASSEMBLED_PACKETS: u32 = 1 << 24;

/// Wire bytes of each packet of a message of `data` bytes plus a `header` riding in the first
/// packet, split into packets of `packet_size` (a message of no data is one packet of its
/// header).
pub(crate) fn packet_bytes(data: u64, header: u32, packet_size: u32) -> impl Iterator<Item = u64> {
    let ps = u64::from(packet_size.max(1));
    let packets = data.div_ceil(ps).max(1);
    (0..packets).map(move |k| {
        let body = data.saturating_sub(k * ps).min(ps);
        body + if k == 0 { u64::from(header) } else { 0 }
    })
}

/// How a delivered message was routed, without its payload.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageRoute {
    /// Packets the message was split into.
    pub packets: u32,
    /// Routers traversed (the largest over the message's packets).
    pub hops: u16,
    /// Whether any packet took a non-minimal route.
    pub nonminimal: bool,
    /// Routers traversed, summed over the message's packets (a unit counts as the packets it
    /// carries, each with the unit's route): over `packets`, the mean per packet.
    pub packet_hops: u64,
    /// The message's packets routed non-minimally.
    pub nonminimal_packets: u32,
}

/// A message delivered to its destination terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered<P> {
    /// Message identity (source terminal and sequence number).
    pub id: MessageId,
    /// Source terminal.
    pub src: u32,
    /// Destination terminal.
    pub dst: u32,
    /// Message size in bytes.
    pub bytes: u64,
    /// The payload given to `send_message`.
    pub payload: P,
    /// Time (ps) the message was handed to the source NIC.
    pub injected: Time,
    /// Time (ps) its last packet's tail arrived.
    pub delivered: Time,
    /// `delivered - injected` in ps (includes queueing at the source NIC).
    pub latency: Time,
    /// How the message was routed: its packets, the routers they traversed and how many went
    /// non-minimally.
    pub route: MessageRoute,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_stays_compact() {
        assert_eq!(std::mem::size_of::<Packet>(), 40);
    }

    #[test]
    fn a_whole_message_header_keeps_its_sums() {
        let m = Assembled {
            src: 7,
            dst: 4_000_000,
            seq: 123_456,
            packets: MAX_ASSEMBLED_PACKETS,
            injected: 987_654_321_000,
            extra_bytes: -65_536 + 64,
            hop_sum: 255 * MAX_ASSEMBLED_PACKETS,
            nonminimal_packets: MAX_ASSEMBLED_PACKETS - 3,
            hops: 255,
        };
        let pkt = Packet::whole(&m);
        assert_eq!(pkt.as_whole(), Some(m));
        assert!(pkt.nonminimal());
        let minimal = Assembled {
            nonminimal_packets: 0,
            extra_bytes: 40,
            ..m
        };
        assert_eq!(Packet::whole(&minimal).as_whole(), Some(minimal));
        assert!(!Packet::whole(&minimal).nonminimal());
        // An ordinary packet is not a whole message.
        let ordinary = Packet {
            flags: FLAG_NONMINIMAL | FLAG_DECIDED,
            ..Packet::whole(&m)
        };
        assert_eq!(ordinary.as_whole(), None);
    }
}
