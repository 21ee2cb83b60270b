//! The events at a NIC. Injection: a NIC that holds the credits streams a whole message from
//! the event that queued it (no wake-up per packet), at exactly the zero-load latency, and
//! packets that would start at or after the run's end time stay queued. Ejection: in a run
//! without an end time the destination's router hands a message of several packets to its
//! terminal in one event, and the terminal receives and counts exactly what it would have
//! packet by packet.

use crate::common::{
    self, build, build_until, fat_tree_16, message_serialisation, net, run, sample_topologies, Lp,
    Msg,
};
use bbsim_engine::time::NS;
use bbsim_engine::{LpId, PartitionSpec, Time};
use bbsim_topology::link::serialisation;
use bbsim_topology::{Delivered, Network, NicStats, Routing};

const BW: u64 = 12_500_000_000;
const L: Time = 100 * NS;
const D: Time = 90 * NS;
const PACKET: u64 = 512;

/// A 3-level fat-tree of radix 4 (16 terminals, 20 routers) with 512 B packets and buffers of
/// `buffer_packets` packets.
fn fat_tree(buffer_packets: u32) -> Network {
    let mut cfg = net(fat_tree_16(), Routing::Adaptive);
    cfg.buffer_packets = buffer_packets;
    cfg.build().expect("builds")
}

/// Terminal 0 sends one message of `packets` full packets to terminal 15 at time 0.
fn one_message(packets: u64) -> Vec<Vec<Msg>> {
    vec![vec![Msg {
        at: 0,
        dst: 15,
        bytes: packets * PACKET,
        payload: 7,
    }]]
}

fn host(lp: &Lp) -> &common::Host {
    match lp {
        Lp::Host(h) => h,
        _ => panic!("not a host"),
    }
}

#[test]
fn a_nic_with_credits_streams_a_message_from_one_event() {
    // 10 packets, 16 packets of buffer at the first router: the credits never run short.
    let net = fat_tree(16);
    let mut sim = build(&net, one_message(10), 1);
    let got = run(&mut sim, 1);
    assert_eq!(got.len(), 1);
    // 5 routers up and down (terminal 0 and 15 are in different pods): zero-load latency.
    assert_eq!(got[0].route.hops, 5);
    assert_eq!(
        got[0].latency,
        5 * (L + D) + L + message_serialisation(10 * PACKET, PACKET, BW)
    );
    // The sending host handled the send and the ten credits coming back, nothing else: no
    // wake-up per packet on its link.
    let src = LpId(net.topology().routers());
    assert!(matches!(sim.lp(src), Some(Lp::Host(_))));
    let slot = &sim.slots()[src.index()];
    assert_eq!(slot.handled, 1 + 10, "one send and ten credits");
    assert_eq!(host(&slot.lp).nic.stats().injection.packets, 10);
}

#[test]
fn short_credits_hold_the_rest_until_they_return() {
    // Two packets of buffer: the NIC sends two, then one more per credit. The message still
    // arrives whole, no earlier than the zero-load latency.
    let net = fat_tree(2);
    let mut sim = build(&net, one_message(10), 1);
    let got = run(&mut sim, 1);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].payload, 7);
    assert!(got[0].latency >= 5 * (L + D) + L + message_serialisation(10 * PACKET, PACKET, BW));
    let src = LpId(net.topology().routers());
    let slot = &sim.slots()[src.index()];
    assert_eq!(host(&slot.lp).nic.stats().injection.packets, 10);
    assert_eq!(slot.handled, 1 + 10);
}

#[test]
fn packets_that_would_start_at_the_end_time_stay_queued() {
    // Packets leave back to back, packet k at k serialisations. With the run ending just after
    // the fourth one starts, the NIC has put exactly four on its link and the message is still
    // queued, as when each packet left in its own event.
    let ser = serialisation(PACKET, BW);
    for (end, started) in [(3 * ser + 1, 4), (3 * ser, 3), (1, 1), (10 * ser, 10)] {
        let net = fat_tree(16);
        let mut sim = build_until(&net, one_message(10), 1, PartitionSpec::Auto, 0, end);
        let got = run(&mut sim, 1);
        let src = LpId(net.topology().routers());
        let nic = &host(sim.lp(src).expect("host")).nic;
        assert_eq!(nic.stats().injection.packets, started, "end {end} ps");
        assert_eq!(nic.stats().injection.busy, started * ser, "end {end} ps");
        assert_eq!(
            nic.queued_messages(),
            usize::from(started < 10),
            "end {end} ps"
        );
        assert!(got.is_empty(), "nothing is delivered before {end} ps");
    }
}

/// Runs `scripts` with a `header` on every message until `end` and returns the deliveries,
/// each terminal's NIC statistics and events handled.
fn run_scripts(
    net: &Network,
    scripts: Vec<Vec<Msg>>,
    header: u32,
    end: Time,
) -> (Vec<Delivered<u64>>, Vec<(NicStats, u64)>) {
    let mut sim = build_until(net, scripts, 5, PartitionSpec::Auto, header, end);
    let got = run(&mut sim, 1);
    let hosts = sim
        .slots()
        .iter()
        .filter_map(|s| match &s.lp {
            Lp::Host(h) => Some((h.nic.stats().clone(), s.handled)),
            _ => None,
        })
        .collect();
    (got, hosts)
}

#[test]
fn a_router_hands_a_whole_message_to_its_terminal_as_the_packets_would() {
    // Every sample topology (adaptive fat-tree, UGAL dragonfly and Aries, torus): eight
    // terminals each send messages of 1 to 9 packets (some with a remainder) with a 40-byte
    // header to three shared destinations at once, so packets of different messages interleave
    // at the destinations' ports, some take non-minimal routes, and the header and the short
    // last packets change the byte counts. With no end time (assembled at the ejection ports)
    // and with an end time past the run (packet by packet), every delivery and every NIC's
    // statistics are the same; only the destinations handle fewer events.
    for (topology, routing, _) in sample_topologies() {
        let name = topology.describe();
        let net: Network = net(topology, routing).build().expect("builds");
        let terminals = net.topology().terminals();
        let dsts = [0, 1, terminals - 1];
        let mut scripts = vec![Vec::new(); terminals as usize];
        for t in 0..8u32 {
            let src = 2 + t * (terminals - 3) / 8;
            scripts[src as usize] = (0..6u64)
                .map(|k| Msg {
                    at: k * 200 * NS,
                    dst: dsts[(t as usize + k as usize) % 3],
                    bytes: (1 + (u64::from(t) * 7 + k * 3) % 9) * PACKET - k * 37,
                    payload: u64::from(t) * 100 + k,
                })
                .collect();
        }
        let (whole, whole_nics) = run_scripts(&net, scripts.clone(), 40, Time::MAX);
        let (packets, packet_nics) = run_scripts(&net, scripts, 40, Time::MAX - 1);
        assert_eq!(whole.len(), 48);
        assert_eq!(whole, packets, "{name}: deliveries");
        let mut saved = 0;
        for (t, ((a, ea), (b, eb))) in whole_nics.iter().zip(&packet_nics).enumerate() {
            assert_eq!(a, b, "{name}, terminal {t}: NIC statistics");
            assert!(ea <= eb);
            saved += eb - ea;
        }
        // One event per packet but the last of each multi-packet message is gone.
        let expected: u64 = whole
            .iter()
            .map(|d| u64::from(d.route.packets.saturating_sub(1)))
            .sum();
        assert_eq!(saved, expected, "{name}: events saved");
        assert!(expected > 0);
        assert!(
            packet_nics.iter().any(|(s, _)| s.nonminimal_packets > 0)
                || !matches!(routing, Routing::Ugal),
            "UGAL takes some non-minimal routes here"
        );
    }
}
