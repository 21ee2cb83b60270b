//! Packets, network events and delivered messages.

use bbsim_engine::Time;

/// Marker for "not chosen yet" in [`Packet::slot`] and [`Packet::aux`].
pub const NONE: u16 = u16::MAX;

/// Flag: the packet is routed non-minimally (through an intermediate dragonfly group).
pub const FLAG_NONMINIMAL: u8 = 1;
/// Flag: the source router has made its minimal / non-minimal decision.
pub const FLAG_DECIDED: u8 = 2;

/// Identifies a message: the sending terminal and its per-terminal sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageId {
    /// Sending terminal.
    pub src: u32,
    /// Sequence number of the message at its sender (0, 1, 2, ...).
    pub seq: u32,
}

/// One packet in flight: a small `Copy` header of 40 bytes (the payload travels beside it in
/// the event; fields ordered by alignment, 2 bytes of padding). A router derives when the
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
    /// [`crate::MAX_PACKET_SIZE`]).
    pub bytes: u32,
    /// Dragonfly: the intermediate group of a non-minimal route ([`NONE`] otherwise).
    pub aux: u16,
    /// Dragonfly: the global slot chosen for the current phase ([`NONE`] until chosen).
    pub slot: u16,
    /// Input port at the receiving router.
    pub in_port: u16,
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
    /// A NIC's injection link is free again (host self-event).
    NicWake,
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
    /// Packets the message was split into.
    pub packets: u32,
    /// The payload given to `send_message`.
    pub payload: P,
    /// Time (ps) the message was handed to the source NIC.
    pub injected: Time,
    /// Time (ps) its last packet's tail arrived.
    pub delivered: Time,
    /// `delivered - injected` in ps (includes queueing at the source NIC).
    pub latency: Time,
    /// Routers traversed (the largest over the message's packets).
    pub hops: u16,
    /// Whether any packet took a non-minimal route.
    pub nonminimal: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_stays_compact() {
        assert_eq!(std::mem::size_of::<Packet>(), 40);
    }
}
