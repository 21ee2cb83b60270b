//! Small-message bypass and framed messages: a bypassed message arrives exactly at the packet
//! model's zero-load latency, with the same hop count, without touching routers; larger
//! messages still travel as packets; bypassed runs are identical for any thread count; a
//! message header rides in the first packet instead of a packet of its own.

use crate::common::{self, build_with, fat_tree_16, link, net, run, Lp, Msg};
use bbsim_engine::time::{NS, US};
use bbsim_engine::{PartitionSpec, Time};
use bbsim_topology::link::serialisation;
use bbsim_topology::{FatTreeConfig, Network, Routing, TopologyConfig};

const D: Time = 90 * NS;
const L: Time = 100 * NS;
const BW: u64 = 12_500_000_000;
/// Messages up to this size bypass the packet model in these tests.
const BYPASS: u32 = 512;

fn bypassing(topology: TopologyConfig, routing: Routing) -> Network {
    let mut c = net(topology, routing);
    c.bypass_max = Some(BYPASS);
    c.build().expect("builds")
}

/// Bypassed messages (1 to 512 B) and packet-model ones (700 B and up) all arrive at the
/// closed-form zero-load latency of their minimal route, with its hop count.
#[test]
fn bypassed_messages_arrive_at_the_zero_load_latency() {
    for (topology, routing, pairs) in common::sample_topologies() {
        // Adaptive routing: bypassed messages only (a multi-packet message's earlier packets
        // are queue occupancy for UGAL, so it is not zero-load).
        let adaptive = bypassing(topology.clone(), routing);
        common::check_zero_load(&adaptive, common::UNIFORM, &pairs, &[1, 64, 512]);
        let minimal = bypassing(topology, Routing::Minimal);
        common::check_zero_load(&minimal, common::UNIFORM, &pairs, &[1, 64, 512, 700, 5_000]);
    }
}

/// Only messages above the threshold reach the routers; the NICs count the bypassed ones.
#[test]
fn bypassed_messages_never_touch_a_router() {
    // Minimal routing: every packet of a message takes the same number of hops.
    let (topology, _, _) = common::sample_topologies().swap_remove(1);
    let net = bypassing(topology, Routing::Minimal);
    let small = (0..20).map(|i| Msg {
        at: i * US,
        dst: 50,
        bytes: 64,
        payload: i,
    });
    let big = (0..5).map(|i| Msg {
        at: 100 * US + i * US,
        dst: 50,
        bytes: 4_096,
        payload: 100 + i,
    });
    let mut sim = build_with(
        &net,
        vec![small.chain(big).collect()],
        3,
        PartitionSpec::Auto,
        0,
    );
    let got = run(&mut sim, 1);
    assert_eq!(got.len(), 25);
    let (mut routed, mut bypassed, mut injected) = (0, 0, 0);
    for lp in sim.lps() {
        match lp {
            Lp::Router(r) => routed += r.stats().packets,
            Lp::Fabric(_) | Lp::Flows(_) => unreachable!("these tests use the packet model"),
            Lp::Host(h) => {
                bypassed += h.nic.stats().bypassed_messages;
                injected += h.nic.stats().injection.packets;
            }
        }
    }
    let hops: u64 = got
        .iter()
        .filter(|d| d.bytes > 512)
        .map(|d| u64::from(d.route.hops))
        .sum();
    assert_eq!(bypassed, 20);
    assert_eq!(injected, 5 * 8, "4 KiB in 512 B packets");
    assert_eq!(
        routed,
        hops * 8,
        "only the large messages' packets are routed"
    );
}

/// All-to-all small and large messages with the bypass on: identical deliveries on 1 to 4
/// threads (bypassed messages cross partitions host to host under their own lookahead).
#[test]
fn bypass_is_deterministic_across_threads() {
    let (topology, routing, _) = common::sample_topologies().swap_remove(2);
    let net = bypassing(topology, routing);
    let n = net.terminals();
    let scripts: Vec<Vec<Msg>> = (0..n)
        .map(|src| {
            (0..12u64)
                .map(|k| Msg {
                    at: k * 300 * NS + u64::from(src) * 7 * NS,
                    dst: (src * 37 + k as u32 * 11 + 1) % n,
                    bytes: if k % 3 == 0 { 2_000 } else { 64 },
                    payload: u64::from(src) << 16 | k,
                })
                .filter(|m| m.dst != src)
                .collect()
        })
        .collect();
    let deliveries = |threads: usize| {
        let mut sim = build_with(&net, scripts.clone(), 5, PartitionSpec::Auto, 0);
        let mut got: Vec<_> = run(&mut sim, threads)
            .into_iter()
            .map(|d| (d.payload, d.delivered, d.route.hops, d.route.nonminimal))
            .collect();
        got.sort_unstable();
        got
    };
    let one = deliveries(1);
    assert_eq!(one.len(), scripts.iter().map(Vec::len).sum::<usize>());
    for threads in 2..=4 {
        assert_eq!(deliveries(threads), one, "{threads} threads");
    }
}

/// A message of one packet's data plus a 64-byte header is one packet of 576 bytes (not a full
/// packet and a 64-byte one), at the zero-load latency of 576 bytes; two packets' data plus a
/// header is two packets.
#[test]
fn a_header_rides_in_the_first_packet() {
    let cfg = fat_tree_16();
    let net = net(cfg, Routing::Deterministic).build().unwrap();
    let script = vec![
        Msg {
            at: 0,
            dst: 15,
            bytes: 512,
            payload: 1,
        },
        Msg {
            at: 100 * US,
            dst: 15,
            bytes: 1_024,
            payload: 2,
        },
    ];
    let mut sim = build_with(&net, vec![script], 1, PartitionSpec::Auto, 64);
    let mut got = run(&mut sim, 1);
    got.sort_by_key(|d| d.payload);
    let hops = Time::from(net.hop_distance(0, 15).unwrap());
    assert_eq!((got[0].route.packets, got[0].bytes), (1, 576));
    assert_eq!(got[0].latency, hops * (L + D) + L + serialisation(576, BW));
    assert_eq!((got[1].route.packets, got[1].bytes), (2, 1_088));
    assert_eq!(
        got[1].latency,
        hops * (L + D) + L + serialisation(576, BW) + serialisation(512, BW)
    );
}

/// Terminal links faster than the switch links (25 GB/s, 50 ns against 12.5 GB/s, 100 ns): a
/// bypassed message still arrives when the packet model delivers it.
#[test]
fn bypass_matches_the_packet_model_with_distinct_terminal_links() {
    let cfg = TopologyConfig::FatTree(FatTreeConfig {
        levels: 3,
        radix: 4,
        terminals: 16,
        taper: 1,
        terminal: bbsim_topology::LinkParams::new(25_000_000_000, 50 * NS),
        link: link(),
    });
    let script: Vec<Msg> = [(1u32, 64u64), (15, 64), (15, 512), (5, 300)]
        .iter()
        .enumerate()
        .map(|(i, &(dst, bytes))| Msg {
            at: i as u64 * 10 * US,
            dst,
            bytes,
            payload: i as u64,
        })
        .collect();
    let latencies = |bypass: Option<u32>| {
        let mut c = net(cfg.clone(), Routing::Deterministic);
        c.bypass_max = bypass;
        let net = c.build().unwrap();
        let mut sim = build_with(&net, vec![script.clone()], 1, PartitionSpec::Auto, 0);
        let mut got = run(&mut sim, 1);
        got.sort_by_key(|d| d.payload);
        got.iter()
            .map(|d| (d.latency, d.route.hops))
            .collect::<Vec<_>>()
    };
    assert_eq!(latencies(Some(BYPASS)), latencies(None));
}
