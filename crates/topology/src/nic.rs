//! The network interface of a terminal: an embeddable component that a host LP (compute node,
//! BB server, I/O node) owns. It splits messages into packets, injects them at the terminal
//! link's bandwidth as credits from the first router allow, and reassembles arriving packets
//! into delivered messages (or takes a message its router assembled, [`Packet::whole`]). Messages no larger than the network's `bypass_max` skip the packet
//! model (see [`crate::bypass`]). In the path model ([`crate::path`]) the NIC serialises a
//! whole message on its injection link and hands it to the fabric LP in one event; in the flow
//! model ([`crate::flow`]) it hands the packets over at once and the fabric moves them one
//! after another at the rate the network allows.

use crate::bypass::Bypass;
use crate::link::{serialisation, LinkStats};
use crate::packet::{
    packet_bytes, Assembled, Delivered, MessageId, MessageRoute, NetEvent, Packet, NONE,
};
use bbsim_engine::{Ctx, LpId, Time};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// A message waiting in (or being injected from) the NIC's send queue.
#[derive(Clone, Debug)]
struct Outgoing<P> {
    seq: u32,
    dst: u32,
    /// Data bytes not yet injected.
    left: u64,
    /// Header bytes not yet injected (they ride in the first packet).
    header: u32,
    packets: u32,
    injected: Time,
    payload: Option<P>,
}

/// A fresh header for a unit of `span` packets and `bytes` bytes of message (destination,
/// sequence number, packets, time handed to the NIC) from terminal `src`, entering its first
/// router on port `in_port`.
fn packet_header(
    src: u32,
    in_port: u16,
    (dst, seq, packets, injected): (u32, u32, u32, Time),
    bytes: u32,
    span: u16,
) -> Packet {
    Packet {
        src,
        dst,
        seq,
        bytes,
        packets,
        injected,
        aux: NONE,
        slot: NONE,
        hops: 0,
        in_port,
        span,
        vc: 0,
        ghops: 0,
        flags: 0,
    }
}

/// A message whose packets are still arriving.
#[derive(Clone, Debug)]
struct Partial<P> {
    remaining: u32,
    bytes: u64,
    payload: Option<P>,
    /// How the packets received so far were routed.
    route: MessageRoute,
}

/// What a NIC sent and received.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NicStats {
    /// Messages handed to `send_message`.
    pub sent_messages: u64,
    /// Bytes handed to `send_message`.
    pub sent_bytes: u64,
    /// The injection link (bytes, packets, busy time).
    pub injection: LinkStats,
    /// Messages delivered to this terminal.
    pub received_messages: u64,
    /// Packets delivered to this terminal.
    pub received_packets: u64,
    /// Bytes delivered to this terminal.
    pub received_bytes: u64,
    /// Sum of delivered message latencies (ps).
    pub latency_sum: u128,
    /// Largest delivered message latency (ps).
    pub latency_max: Time,
    /// Sum over delivered packets of routers traversed.
    pub packet_hops: u64,
    /// Delivered packets that took a non-minimal route.
    pub nonminimal_packets: u64,
    /// Messages sent that bypassed the packet model (counted in `sent_*`, not in `injection`).
    pub bypassed_messages: u64,
}

/// A terminal's network interface. `P` is the payload type carried by messages.
#[derive(Clone, Debug)]
pub struct Nic<P> {
    terminal: u32,
    terminals: u32,
    router_lp: LpId,
    router_port: u16,
    latency: Time,
    bandwidth: u64,
    ser_full: Time,
    packet_size: u32,
    /// Largest unit (bytes), a whole number of packets.
    unit_size: u32,
    /// Smallest part (bytes) a unit is sent as when credits fall short ([`crate::min_part`]).
    min_part: u32,
    router_delay: Time,
    credits: u32,
    busy_until: Time,
    next_seq: u32,
    queue: VecDeque<Outgoing<P>>,
    partial: HashMap<MessageId, Partial<P>>,
    bypass: Option<Arc<Bypass>>,
    /// Path or flow model: `router_lp` is the fabric LP and messages go to it whole.
    path: bool,
    /// Flow model: the fabric, not the NIC, paces the packets on the injection link.
    flow: bool,
    stats: NicStats,
}

/// What a NIC needs to know about its terminal link (built by [`crate::Network::nic`]).
#[derive(Clone, Debug)]
pub(crate) struct NicSetup {
    pub terminal: u32,
    pub terminals: u32,
    pub router_lp: LpId,
    pub router_port: u16,
    pub latency: Time,
    pub bandwidth: u64,
    pub packet_size: u32,
    pub unit_size: u32,
    pub router_delay: Time,
    pub buffer_bytes: u32,
    pub min_part: u32,
    pub bypass: Option<Arc<Bypass>>,
    /// Path or flow model: `router_lp` is the fabric LP.
    pub path: bool,
    /// Flow model: hand packets to the fabric unpaced.
    pub flow: bool,
}

impl<P> Nic<P> {
    pub(crate) fn new(s: NicSetup) -> Self {
        let bypass = s.bypass.clone();
        Nic {
            terminal: s.terminal,
            terminals: s.terminals,
            router_lp: s.router_lp,
            router_port: s.router_port,
            latency: s.latency,
            bandwidth: s.bandwidth,
            ser_full: serialisation(u64::from(s.packet_size), s.bandwidth),
            packet_size: s.packet_size,
            unit_size: s.unit_size,
            min_part: s.min_part,
            router_delay: s.router_delay,
            credits: s.buffer_bytes,
            busy_until: 0,
            next_seq: 0,
            queue: VecDeque::new(),
            partial: HashMap::new(),
            bypass,
            path: s.path,
            flow: s.flow,
            stats: NicStats::default(),
        }
    }

    /// This NIC's terminal id.
    pub fn terminal(&self) -> u32 {
        self.terminal
    }

    /// Statistics so far.
    pub fn stats(&self) -> &NicStats {
        &self.stats
    }

    /// Messages queued or being injected.
    pub fn queued_messages(&self) -> usize {
        self.queue.len()
    }

    /// Messages partly received (0 after a drained run).
    pub fn partial_messages(&self) -> usize {
        self.partial.len()
    }

    /// Queues a message of `bytes` bytes to terminal `dst` carrying `payload`, starting its
    /// injection now if the link is idle. A message of 0 bytes is one empty packet. The same as
    /// [`Nic::send_framed`] with no header.
    ///
    /// # Panics
    /// If `dst` is not a terminal of the network (a bug in the caller, not a configuration
    /// error), or if the message needs more than 2^32 packets.
    pub fn send_message<E: From<NetEvent<P>>>(
        &mut self,
        ctx: &mut Ctx<'_, E>,
        dst: u32,
        bytes: u64,
        payload: P,
    ) -> MessageId {
        self.send_framed(ctx, dst, bytes, 0, payload)
    }

    /// Queues a message of `data` bytes plus a `header` of at most
    /// [`crate::MAX_HEADER_BYTES`] to terminal `dst`. The data is split into packets of
    /// `packet_size`; the header rides in the first packet (which may so be `packet_size +
    /// header` bytes), so a 1 MiB write with its 64-byte request header is one 1 MiB packet, not
    /// a full packet and a 64-byte one. A message of at most the network's `bypass_max` wire
    /// bytes is delivered at its zero-load latency instead ([`crate::bypass`]).
    ///
    /// # Panics
    /// If `dst` is not a terminal of the network, the header is larger than
    /// [`crate::MAX_HEADER_BYTES`], or the message needs more than 2^32 packets (bugs in the
    /// caller, not configuration errors).
    pub fn send_framed<E: From<NetEvent<P>>>(
        &mut self,
        ctx: &mut Ctx<'_, E>,
        dst: u32,
        data: u64,
        header: u32,
        payload: P,
    ) -> MessageId {
        assert!(
            dst < self.terminals,
            "send_message: destination terminal {dst} does not exist ({} terminals)",
            self.terminals
        );
        assert!(
            header <= crate::MAX_HEADER_BYTES,
            "send_framed: header of {header} bytes exceeds MAX_HEADER_BYTES"
        );
        let bytes = data + u64::from(header);
        let packets = u32::try_from(data.div_ceil(u64::from(self.packet_size)).max(1))
            .expect("send_message: more than 2^32 packets in one message");
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        self.stats.sent_messages += 1;
        self.stats.sent_bytes += bytes;
        let id = MessageId {
            src: self.terminal,
            seq,
        };
        if let Some(b) = self.bypass.as_ref().filter(|b| b.applies(bytes)) {
            self.stats.bypassed_messages += 1;
            let (hops, latency) = b.route(self.terminal, dst, bytes);
            let pkt = Packet {
                src: self.terminal,
                dst,
                seq,
                bytes: bytes as u32,
                packets: 1,
                injected: ctx.now(),
                aux: NONE,
                slot: NONE,
                hops: hops.min(255) as u8,
                in_port: 0,
                span: 1,
                vc: 0,
                ghops: 0,
                flags: 0,
            };
            let ev = NetEvent::Packet {
                pkt,
                payload: Some(payload),
            };
            ctx.send(b.host(dst), latency, E::from(ev));
            return id;
        }
        if self.path {
            self.send_path(ctx, seq, dst, data, header, packets, payload);
            return id;
        }
        self.queue.push_back(Outgoing {
            seq,
            dst,
            left: data,
            header,
            packets,
            injected: ctx.now(),
            payload: Some(payload),
        });
        self.inject(ctx);
        id
    }

    /// Handles a network event addressed to this NIC; returns a message when its last packet
    /// arrives.
    pub fn handle<E: From<NetEvent<P>>>(
        &mut self,
        ev: NetEvent<P>,
        ctx: &mut Ctx<'_, E>,
    ) -> Option<Delivered<P>> {
        match ev {
            NetEvent::Credit { bytes, .. } => {
                self.credits += bytes;
                self.inject(ctx);
                None
            }
            NetEvent::Packet { pkt, payload } => self.receive(pkt, payload, ctx.now()),
            NetEvent::PortFree { .. } | NetEvent::LinkFree { .. } | NetEvent::Resume { .. } => None,
        }
    }

    /// Path model: serialises the message's packets back to back on the injection link after
    /// what is already queued there, and hands each to the fabric when its head has been routed
    /// at the first router (`latency + router_delay` after it left), as a router would see it.
    /// There are no credits: the fabric has no buffers. Flow model: hands every packet over
    /// `latency + router_delay` from now; the fabric moves a terminal's packets one at a time.
    #[allow(clippy::too_many_arguments)]
    fn send_path<E: From<NetEvent<P>>>(
        &mut self,
        ctx: &mut Ctx<'_, E>,
        seq: u32,
        dst: u32,
        data: u64,
        header: u32,
        packets: u32,
        payload: P,
    ) {
        let now = ctx.now();
        let mut payload = Some(payload);
        for (k, bytes) in packet_bytes(data, header, self.packet_size).enumerate() {
            let start = if self.flow {
                now
            } else {
                self.busy_until.max(now)
            };
            let ser = if bytes == u64::from(self.packet_size) {
                self.ser_full
            } else {
                serialisation(bytes, self.bandwidth)
            };
            if !self.flow {
                self.busy_until = start + ser;
            }
            self.stats.injection.record(bytes, ser);
            let msg = (dst, seq, packets, now);
            let pkt = packet_header(self.terminal, self.router_port, msg, bytes as u32, 1);
            let last = k + 1 == packets as usize;
            let ev = NetEvent::Packet {
                pkt,
                payload: if last { payload.take() } else { None },
            };
            let delay = start - now + self.latency + self.router_delay;
            ctx.send(self.router_lp, delay, E::from(ev));
        }
    }

    /// Counts a delivered message and builds its record.
    fn deliver(
        &mut self,
        pkt: &Packet,
        bytes: u64,
        payload: P,
        route: MessageRoute,
        now: Time,
    ) -> Option<Delivered<P>> {
        let latency = now - pkt.injected;
        self.stats.received_messages += 1;
        self.stats.received_bytes += bytes;
        self.stats.latency_sum += u128::from(latency);
        self.stats.latency_max = self.stats.latency_max.max(latency);
        Some(Delivered {
            id: MessageId {
                src: pkt.src,
                seq: pkt.seq,
            },
            src: pkt.src,
            dst: pkt.dst,
            bytes,
            payload,
            injected: pkt.injected,
            delivered: now,
            latency,
            route,
        })
    }

    /// Injects the queued units as far as the credits allow. A unit is up to `unit_size` bytes
    /// of one message (one packet when units are off), the header riding in the first; when
    /// the credits fall short of a whole unit, the whole packets that fit go as a shorter unit
    /// once they make at least the smallest part ([`crate::min_part`]: half the buffer), else
    /// the unit waits for more credit. Each unit takes the link when the one before it has
    /// left (`busy_until`), and is handed to the router at once, to arrive when its head has
    /// been routed there (`start + latency + router_delay`): so a NIC with credits streams a
    /// whole message from one event, without a wake-up per unit. The credits it spends ahead
    /// are the ones it would hold when each unit starts (credits only grow until the NIC
    /// spends them), so the units and their times are those of injecting each one when the
    /// link frees. Units that would start at or after the run's end stay queued, as they
    /// would have. When credits run short, the returning credit calls again.
    fn inject<E: From<NetEvent<P>>>(&mut self, ctx: &mut Ctx<'_, E>) {
        let now = ctx.now();
        let end = ctx.end_time();
        let ps = self.packet_size;
        while let Some(m) = self.queue.front_mut() {
            let start = self.busy_until.max(now);
            if start >= end {
                return;
            }
            let want = m.left.min(u64::from(self.unit_size)) as u32;
            let data = if (want + m.header).max(1) <= self.credits {
                want
            } else {
                // Short of the whole unit: the whole packets that fit (fewer than `want`), once
                // they make at least the smallest part.
                let fit = self.credits.saturating_sub(m.header) / ps * ps;
                if fit < self.min_part {
                    return; // a credit will call us again
                }
                fit
            };
            let bytes = data + m.header;
            let cost = bytes.max(1);
            let span = data.div_ceil(ps).max(1) as u16;
            m.header = 0;
            self.credits -= cost;
            let ser = if bytes == self.packet_size {
                self.ser_full
            } else {
                serialisation(u64::from(bytes), self.bandwidth)
            };
            self.busy_until = start + ser;
            self.stats
                .injection
                .record_span(u64::from(bytes), ser, span);
            m.left -= u64::from(data);
            let last = m.left == 0;
            let msg = (m.dst, m.seq, m.packets, m.injected);
            let pkt = packet_header(self.terminal, self.router_port, msg, bytes, span);
            let payload = if last { m.payload.take() } else { None };
            if last {
                self.queue.pop_front();
            }
            let ev = NetEvent::Packet { pkt, payload };
            ctx.send(
                self.router_lp,
                start - now + self.latency + self.router_delay,
                E::from(ev),
            );
        }
    }

    /// A message its router assembled (header `pkt`, see [`Packet::whole`]): counted as its
    /// packets would have been, one by one, and delivered.
    fn receive_whole(
        &mut self,
        pkt: &Packet,
        msg: Assembled,
        payload: Option<P>,
        now: Time,
    ) -> Option<Delivered<P>> {
        self.stats.received_packets += u64::from(msg.packets);
        self.stats.packet_hops += u64::from(msg.hop_sum);
        self.stats.nonminimal_packets += u64::from(msg.nonminimal_packets);
        let full = u64::from(msg.packets) * u64::from(self.packet_size);
        let bytes = full.checked_add_signed(i64::from(msg.extra_bytes))?;
        let route = MessageRoute {
            packets: pkt.packets,
            hops: u16::from(msg.hops),
            nonminimal: msg.nonminimal_packets > 0,
            packet_hops: u64::from(msg.hop_sum),
            nonminimal_packets: msg.nonminimal_packets,
        };
        self.deliver(pkt, bytes, payload?, route, now)
    }

    fn receive(&mut self, pkt: Packet, payload: Option<P>, now: Time) -> Option<Delivered<P>> {
        if let Some(msg) = pkt.as_whole() {
            return self.receive_whole(&pkt, msg, payload, now);
        }
        // A unit counts as the packets it carries, each with the unit's route.
        let span = u64::from(pkt.span.max(1));
        self.stats.received_packets += span;
        self.stats.packet_hops += u64::from(pkt.hops) * span;
        self.stats.nonminimal_packets += u64::from(pkt.nonminimal()) * span;
        let id = MessageId {
            src: pkt.src,
            seq: pkt.seq,
        };
        let nonminimal_packets = u32::from(pkt.nonminimal()) * u32::from(pkt.span.max(1));
        let (bytes, payload, route) = if pkt.packets == 1 {
            let route = MessageRoute {
                packets: pkt.packets,
                hops: u16::from(pkt.hops),
                nonminimal: pkt.nonminimal(),
                packet_hops: u64::from(pkt.hops),
                nonminimal_packets,
            };
            (u64::from(pkt.bytes), payload, route)
        } else {
            let entry = self.partial.entry(id).or_insert(Partial {
                remaining: pkt.packets,
                bytes: 0,
                payload: None,
                route: MessageRoute {
                    packets: pkt.packets,
                    ..MessageRoute::default()
                },
            });
            entry.remaining = entry.remaining.saturating_sub(u32::from(pkt.span.max(1)));
            entry.bytes += u64::from(pkt.bytes);
            let route = &mut entry.route;
            route.hops = route.hops.max(u16::from(pkt.hops));
            route.nonminimal |= pkt.nonminimal();
            route.packet_hops += u64::from(pkt.hops) * span;
            route.nonminimal_packets += nonminimal_packets;
            if payload.is_some() {
                entry.payload = payload;
            }
            if entry.remaining > 0 {
                return None;
            }
            let done = self.partial.remove(&id)?;
            (done.bytes, done.payload, done.route)
        };
        self.deliver(&pkt, bytes, payload?, route, now)
    }
}
