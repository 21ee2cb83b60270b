//! The flow model (`network.model = "flow"`): one fabric LP moves each packet as a flow at the
//! bottleneck share of its route, a terminal's packets one at a time. Checked here: the packet
//! model's closed-form zero-load latency on every topology; flows into one ejection link share
//! it equally and end together; a flow that is left alone speeds up to the link's bandwidth
//! (closed forms of processor sharing); a sender's next packet waits for its previous one; the
//! fabric drains and keeps the link statistics; results are identical for any thread count.

use crate::common::{self, build, net, run, sample_topologies, Lp, Msg};
use bbsim_engine::time::{NS, US};
use bbsim_engine::Time;
use bbsim_topology::link::serialisation;
use bbsim_topology::{NetModel, Network, Routing, TopologyConfig};

const BW: u64 = 12_500_000_000;

fn flow_net(topology: TopologyConfig, routing: Routing, packet: u32) -> Network {
    let mut c = net(topology, routing);
    c.model = NetModel::Flow;
    c.packet_size = packet;
    c.build().expect("builds")
}

/// Every message arrives at the closed-form zero-load latency of its minimal route (the packet
/// model's, `docs/network.md`), with its hop count and packet count: one-packet messages with
/// adaptive routing, and messages of up to ten packets with minimal routing (a message's
/// packets follow each other at the link's bandwidth, as the packet model pipelines them).
#[test]
fn zero_load_latency_is_the_packet_models_closed_form() {
    for (topology, routing, pairs) in sample_topologies() {
        let adaptive = flow_net(topology.clone(), routing, 512);
        common::check_zero_load(&adaptive, common::UNIFORM, &pairs, &[1, 64, 512]);
        let minimal = flow_net(topology, Routing::Minimal, 512);
        common::check_zero_load(&minimal, common::UNIFORM, &pairs, &[0, 1, 512, 700, 5_000]);
    }
}

/// The sample fat-tree (3 levels, radix 8, 128 terminals).
fn fat_tree() -> TopologyConfig {
    sample_topologies().swap_remove(0).0
}

/// Zero-load latency of a one-packet message over 5 routers (two pods apart) on the sample
/// fat-tree, without its serialisation: 6 links of 100 ns and 5 router delays of 90 ns.
const FIVE_HOPS: Time = 6 * 100 * NS + 5 * 90 * NS;

/// Four senders in other pods each send one 1 MiB packet to terminal 0 at once: their four
/// flows share terminal 0's ejection link equally and all end at four serialisations, so the
/// four deliveries coincide (processor sharing, where the path model sends them back to
/// back). The link's statistics count every byte.
#[test]
fn flows_into_one_link_share_it_and_end_together() {
    for routing in [Routing::Minimal, Routing::Adaptive] {
        let mib = 1 << 20;
        let net = flow_net(fat_tree(), routing, mib);
        let senders = [40u32, 60, 90, 120];
        let mut scripts = vec![Vec::new(); net.terminals() as usize];
        for (s, &t) in senders.iter().enumerate() {
            assert_eq!(net.hop_distance(t, 0), Some(5), "senders in other pods");
            scripts[t as usize] = vec![Msg {
                at: 0,
                dst: 0,
                bytes: u64::from(mib),
                payload: s as u64,
            }];
        }
        let mut sim = build(&net, scripts, 3);
        let got = run(&mut sim, 1);
        assert_eq!(got.len(), 4);
        let ser = serialisation(u64::from(mib), BW);
        for d in &got {
            assert_eq!(d.delivered, 4 * ser + FIVE_HOPS, "{routing:?}: {d:?}");
        }
        let Some(Lp::Flows(fabric)) = sim.lps().next() else {
            panic!("the flow model's LP 0 is the fabric");
        };
        assert_eq!(fabric.waiting_packets(), 0, "the fabric drained");
        let (_, stats) = fabric
            .router_stats()
            .find(|(r, _)| Some(*r) == net.topology().router_of(0))
            .expect("terminal 0's edge switch");
        let port = usize::from(net.topology().attachment(0).expect("attached").port);
        assert_eq!(stats.links[port].bytes, 4 * u64::from(mib));
        assert_eq!(stats.links[port].packets, 4);
        assert_eq!(stats.links[port].busy, 4 * ser);
    }
}

/// Two senders into terminal 0, one with 1 MiB, the other with 2 MiB: both move at half the
/// link until the first ends at two serialisations of 1 MiB; the other then has 1 MiB left at
/// the full bandwidth and ends one serialisation later.
#[test]
fn a_flow_left_alone_speeds_up() {
    let mib: u64 = 1 << 20;
    let net = flow_net(fat_tree(), Routing::Minimal, 4 << 20);
    let mut scripts = vec![Vec::new(); net.terminals() as usize];
    for (t, bytes) in [(40usize, mib), (90, 2 * mib)] {
        scripts[t] = vec![Msg {
            at: 0,
            dst: 0,
            bytes,
            payload: bytes,
        }];
    }
    let mut sim = build(&net, scripts, 3);
    let mut got = run(&mut sim, 1);
    got.sort_by_key(|d| d.delivered);
    let ser = serialisation(mib, BW);
    assert_eq!(got[0].payload, mib);
    assert_eq!(got[0].delivered, 2 * ser + FIVE_HOPS);
    assert_eq!(got[1].payload, 2 * mib);
    assert_eq!(got[1].delivered, 3 * ser + FIVE_HOPS);
}

/// A flow whose end moved earlier leaves no trace once it ends, even when a later flow takes
/// its id: Y (1 MiB, its sender's LP first) and X (2 MiB) share terminal 0's link until Y
/// ends at two serialisations of 1 MiB; X, alone, ends one serialisation later, before the
/// end it was first given (four).
/// W, between two other terminals, ends at 3.5 and keeps that first end out of sight. Z
/// (2 MiB) then starts just after X ended, takes X's flow id and must move alone at the full
/// bandwidth: two serialisations from its start, not at X's superseded end.
#[test]
fn a_reused_flow_id_gets_its_own_end() {
    let mib: u64 = 1 << 20;
    let ser = serialisation(mib, BW);
    let net = flow_net(fat_tree(), Routing::Minimal, 4 << 20);
    assert_eq!(
        net.hop_distance(100, 101),
        Some(1),
        "W stays on one edge switch"
    );
    let z_at = 3 * ser + 1_000;
    let mut scripts = vec![Vec::new(); net.terminals() as usize];
    for (t, at, dst, bytes, name) in [
        (40usize, 0, 0u32, mib, b'Y'),
        (90, 0, 0, 2 * mib, b'X'),
        (100, 0, 101, 7 * mib / 2, b'W'),
        (60, z_at, 0, 2 * mib, b'Z'),
    ] {
        scripts[t] = vec![Msg {
            at,
            dst,
            bytes,
            payload: u64::from(name),
        }];
    }
    let mut sim = build(&net, scripts, 3);
    let got = run(&mut sim, 1);
    let at = |name: u8| {
        got.iter()
            .find(|d| d.payload == u64::from(name))
            .map(|d| d.delivered)
            .expect("delivered")
    };
    assert_eq!(at(b'Y'), 2 * ser + FIVE_HOPS);
    assert_eq!(at(b'X'), 3 * ser + FIVE_HOPS);
    let one_hop = 2 * 100 * NS + 90 * NS;
    assert_eq!(at(b'W'), serialisation(7 * mib / 2, BW) + one_hop);
    assert_eq!(at(b'Z'), z_at + 2 * ser + FIVE_HOPS);
}

/// The flow window: terminal 40 sends m1 (1 MiB) into terminal 0's link, which three other
/// senders' 1 MiB flows also cross, then m2 (1 MiB) to terminal 41 on its own edge switch.
/// One at a time (window 1), m2 waits for m1, which moves at a quarter of the link until all
/// four end at four serialisations, and ends one serialisation later. With a window of 2 both
/// start at once and share the injection link: m1 is still bound to a quarter by terminal 0's
/// link, m2 gets half (its share of the injection link) and ends at two serialisations; m1
/// and the others still end at four.
#[test]
fn a_window_lets_a_terminal_move_on_past_a_congested_flow() {
    let mib: u64 = 1 << 20;
    let ser = serialisation(mib, BW);
    let one_hop = 2 * 100 * NS + 90 * NS;
    for (window, m2_end) in [(1u16, 5 * ser), (2, 2 * ser)] {
        let mut c = net(fat_tree(), Routing::Minimal);
        c.model = NetModel::Flow;
        c.packet_size = 4 << 20;
        c.flow_window = window;
        let net = c.build().expect("builds");
        assert_eq!(net.hop_distance(40, 41), Some(1));
        let mut scripts = vec![Vec::new(); net.terminals() as usize];
        let msg = |dst, payload| Msg {
            at: 0,
            dst,
            bytes: mib,
            payload,
        };
        scripts[40] = vec![msg(0, 1), msg(41, 2)];
        for t in [60usize, 90, 120] {
            scripts[t] = vec![msg(0, t as u64)];
        }
        let mut sim = build(&net, scripts, 3);
        let got = run(&mut sim, 1);
        assert_eq!(got.len(), 5);
        for d in &got {
            let want = if d.payload == 2 {
                m2_end + one_hop
            } else {
                4 * ser + FIVE_HOPS
            };
            assert_eq!(d.delivered, want, "window {window}: {d:?}");
        }
    }
}

/// Two 1 MiB packets of one terminal to two idle terminals on its edge switch: with a window
/// of 2 they share the injection link and both end at two serialisations (processor sharing);
/// one at a time, the first ends at one.
#[test]
fn a_terminals_moving_flows_share_its_injection_link() {
    let mib: u64 = 1 << 20;
    let ser = serialisation(mib, BW);
    let one_hop = 2 * 100 * NS + 90 * NS;
    for (window, first) in [(1u16, ser), (2, 2 * ser)] {
        let mut c = net(fat_tree(), Routing::Minimal);
        c.model = NetModel::Flow;
        c.packet_size = 4 << 20;
        c.flow_window = window;
        let net = c.build().expect("builds");
        let mut scripts = vec![Vec::new(); net.terminals() as usize];
        scripts[40] = [41u32, 42]
            .iter()
            .map(|&dst| Msg {
                at: 0,
                dst,
                bytes: mib,
                payload: u64::from(dst),
            })
            .collect();
        let mut sim = build(&net, scripts, 3);
        let mut got = run(&mut sim, 1);
        got.sort_by_key(|d| (d.delivered, d.payload));
        assert_eq!(got[0].delivered, first + one_hop, "window {window}");
        assert_eq!(got[1].delivered, 2 * ser + one_hop, "window {window}");
    }
}

/// A window above 1 needs the flow model; 0 and more than 64 are refused.
#[test]
fn flow_window_is_validated() {
    for (model, window) in [
        (NetModel::Packet, 2u16),
        (NetModel::Path, 2),
        (NetModel::Flow, 0),
        (NetModel::Flow, 65),
    ] {
        let mut c = net(fat_tree(), Routing::Minimal);
        c.model = model;
        c.flow_window = window;
        let Err(err) = c.build() else {
            panic!("{model:?} with window {window} must be refused");
        };
        let err = err.to_string();
        assert!(err.contains("flow_window"), "{model:?} {window}: {err}");
    }
    let mut c = net(fat_tree(), Routing::Minimal);
    c.model = NetModel::Flow;
    c.flow_window = 64;
    assert!(c.build().is_ok());
}

/// The flow jitter: a flow that shares its bottleneck falls short of its exact share by at
/// most `flow_jitter_ppm` parts per million, drawn per flow. The four flows of
/// `flows_into_one_link_share_it_and_end_together` then no longer end at one instant: each
/// ends no earlier than the exact processor-sharing end (none gets more than its share) and the
/// last no later than the four packets' bytes at the link's bandwidth less the jitter (the
/// link is never served at less than that); and their ends differ. A lone flow keeps its
/// exact rate, so the zero-load closed forms hold with the jitter on.
#[test]
fn jitter_breaks_the_lockstep_of_flows_that_share_a_link() {
    let mib: u64 = 1 << 20;
    let ppm = 1_000u32;
    let mut c = net(fat_tree(), Routing::Minimal);
    c.model = NetModel::Flow;
    c.packet_size = 1 << 20;
    c.flow_jitter_ppm = ppm;
    let network = c.build().expect("builds");
    let senders = [40u32, 60, 90, 120];
    let mut scripts = vec![Vec::new(); network.terminals() as usize];
    for (s, &t) in senders.iter().enumerate() {
        scripts[t as usize] = vec![Msg {
            at: 0,
            dst: 0,
            bytes: mib,
            payload: s as u64,
        }];
    }
    let mut sim = build(&network, scripts, 3);
    let mut got = run(&mut sim, 1);
    assert_eq!(got.len(), 4);
    got.sort_by_key(|d| d.delivered);
    let ser = serialisation(mib, BW);
    let exact = 4 * ser + FIVE_HOPS;
    // The link moves at least (1 - ppm/10^6) of its bandwidth while busy (plus 1 ps of
    // rounding per rate change, at most a few here).
    let slowest = (4 * ser) * 1_000_000 / u64::from(1_000_000 - ppm) + 10 + FIVE_HOPS;
    for d in &got {
        assert!(
            d.delivered >= exact,
            "{d:?} before the exact share's end {exact}"
        );
        assert!(d.delivered <= slowest, "{d:?} after {slowest}");
    }
    for w in got.windows(2) {
        assert!(w[0].delivered < w[1].delivered, "ends in lockstep: {got:?}");
    }
    // Alone on its links, a flow has its exact share: the closed forms still hold.
    for (topology, routing, pairs) in sample_topologies() {
        let mut c = net(topology, routing);
        c.model = NetModel::Flow;
        c.packet_size = 512;
        c.flow_jitter_ppm = 10_000;
        let n = c.build().expect("builds");
        common::check_zero_load(&n, common::UNIFORM, &pairs, &[1, 64, 512]);
    }
}

/// The jitter needs the flow model and is at most 1 % (10,000 parts per million).
#[test]
fn flow_jitter_is_validated() {
    for (model, ppm) in [
        (NetModel::Packet, 1u32),
        (NetModel::Path, 1),
        (NetModel::Flow, bbsim_topology::MAX_FLOW_JITTER_PPM + 1),
    ] {
        let mut c = net(fat_tree(), Routing::Minimal);
        c.model = model;
        c.flow_jitter_ppm = ppm;
        let Err(err) = c.build() else {
            panic!("{model:?} with jitter {ppm} ppm must be refused");
        };
        let err = err.to_string();
        assert!(err.contains("flow_jitter_ppm"), "{model:?} {ppm}: {err}");
    }
    let mut c = net(fat_tree(), Routing::Minimal);
    c.model = NetModel::Flow;
    c.flow_jitter_ppm = bbsim_topology::MAX_FLOW_JITTER_PPM;
    assert!(c.build().is_ok());
}

/// A terminal moves one packet at a time: one sender's three 1 MiB messages to three
/// different terminals, handed to its NIC at once, arrive one serialisation apart in the
/// order they were sent (each at the full bandwidth, none sharing a link with another).
#[test]
fn a_senders_packets_go_one_at_a_time() {
    let mib: u64 = 1 << 20;
    let net = flow_net(fat_tree(), Routing::Minimal, 1 << 20);
    let mut scripts = vec![Vec::new(); net.terminals() as usize];
    scripts[40] = (0..3u64)
        .map(|i| Msg {
            at: 0,
            dst: [0, 1, 2][i as usize],
            bytes: mib,
            payload: i,
        })
        .collect();
    let mut sim = build(&net, scripts, 3);
    let mut got = run(&mut sim, 1);
    got.sort_by_key(|d| d.delivered);
    let ser = serialisation(mib, BW);
    let order: Vec<u64> = got.iter().map(|d| d.payload).collect();
    assert_eq!(order, vec![0, 1, 2]);
    for (k, d) in got.iter().enumerate() {
        assert_eq!(d.delivered, (k as Time + 1) * ser + FIVE_HOPS, "{d:?}");
    }
}

/// Uniform random traffic with contention: the same deliveries on 1, 2, 3 and 4 threads, with
/// exact shares and with the jitter.
#[test]
fn deliveries_are_identical_for_any_thread_count() {
    for jitter in [0, 1_000] {
        deliveries_match_across_threads(jitter);
    }
}

fn deliveries_match_across_threads(jitter: u32) {
    let (topology, routing, _) = sample_topologies().swap_remove(1); // dragonfly, UGAL
    let mut c = net(topology, routing);
    c.model = NetModel::Flow;
    c.packet_size = 2048;
    c.flow_jitter_ppm = jitter;
    let net = c.build().expect("builds");
    let n = net.terminals() as u64;
    let scripts: Vec<Vec<Msg>> = (0..n)
        .map(|t| {
            (0..8)
                .map(|i| Msg {
                    at: i * US / 4,
                    dst: ((t * 7 + i * 13 + 1) % n) as u32,
                    bytes: 300 + 7_000 * (i % 3),
                    payload: t << 8 | i,
                })
                .collect()
        })
        .collect();
    let key = |threads| {
        let mut sim = build(&net, scripts.clone(), 11);
        let mut got: Vec<(u64, Time, u16)> = run(&mut sim, threads)
            .iter()
            .map(|d| (d.payload, d.delivered, d.route.hops))
            .collect();
        got.sort_unstable();
        got
    };
    let one = key(1);
    assert_eq!(one.len() as u64, n * 8);
    for threads in [2, 3, 4] {
        assert_eq!(key(threads), one, "{threads} threads, jitter {jitter} ppm");
    }
}
