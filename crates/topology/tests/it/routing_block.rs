//! The diagnostic variants of the packet model: routing decided once per block of a message
//! (`NetworkConfig::routing_block`), lanes chosen once per block (`NetworkConfig::lane_block`),
//! and credits returned in batches (`NetworkConfig::credit_batch`); every byte still arrives.
//! (Grant blocks: `arbitration.rs`.)

use crate::common::{build, fat_tree_16, incast, net, Lp, Msg};
use bbsim_engine::{run_with_threads, Simulation};
use bbsim_topology::{Delivered, LinkParams, Network, NetworkConfig, Routing, TopologyConfig};

const KIB: u32 = 1024;

/// The adaptive 16-terminal fat-tree with 4 KiB packets and the given routing block.
fn with_block(block: Option<u32>) -> Network {
    with(|c| c.routing_block = block)
}

/// The adaptive 16-terminal fat-tree with 4 KiB packets and 64 KiB buffers, changed by `f`.
fn with(f: impl FnOnce(&mut NetworkConfig)) -> Network {
    let mut cfg: NetworkConfig = net(fat_tree_16(), Routing::Adaptive);
    cfg.packet_size = 4 * KIB;
    cfg.vc_buffer = Some(64 * KIB);
    f(&mut cfg);
    cfg.build().expect("builds")
}

/// Terminal 0 sends one 1 MiB message (256 packets) to terminal 15, in the other pod, at
/// zero load; returns the packet count of every router output that carried any (the
/// terminal ports carry all 256), and the bytes delivered.
fn one_message(n: &Network) -> (Vec<u64>, u64) {
    let (counts, got, _) = one_message_run(n);
    (counts, got.iter().map(|d| d.bytes).sum())
}

/// Every message delivered in `sim`.
fn deliveries(sim: &Simulation<Lp>) -> Vec<Delivered<u64>> {
    sim.lps()
        .flat_map(|lp| match lp {
            Lp::Host(h) => h.got.clone(),
            _ => Vec::new(),
        })
        .collect()
}

/// [`one_message`]'s run: link packet counts, deliveries and events.
fn one_message_run(n: &Network) -> (Vec<u64>, Vec<Delivered<u64>>, u64) {
    let scripts: Vec<Vec<Msg>> = (0..n.terminals())
        .map(|t| {
            if t == 0 {
                vec![Msg {
                    at: 0,
                    dst: 15,
                    bytes: 1 << 20,
                    payload: 7,
                }]
            } else {
                Vec::new()
            }
        })
        .collect();
    let mut sim = build(n, scripts, 5);
    let events = run_with_threads(&mut sim, 1).expect("runs").events;
    let got = deliveries(&sim);
    let mut counts = Vec::new();
    for lp in sim.lps() {
        if let Lp::Router(r) = lp {
            let links = &r.stats().links;
            counts.extend(links.iter().map(|l| l.packets).filter(|&p| p > 0));
        }
    }
    (counts, got, events)
}

#[test]
fn batched_credits_are_held_only_while_a_buffer_is_busy() {
    // At zero load every buffer empties as soon as a packet leaves, so batched credits go
    // back at once: the run is the per-packet one, event for event. Under an incast (15 x
    // 1 MiB into one terminal) the buffers towards it stay busy, credits go back 64 KiB at a
    // time there, and the credit events of the congested hops mostly vanish: fewer events,
    // every byte delivered, and the incast still bounded by the ejection link.
    let plain = with(|_| {});
    let batched = with(|c| c.credit_batch = Some(64 * KIB));
    let (_, a, events_a) = one_message_run(&plain);
    let (_, b, events_b) = one_message_run(&batched);
    assert_eq!((a, events_a), (b, events_b));
    let scripts = incast();
    let run_incast = |n: &Network| {
        let mut sim = build(n, scripts.clone(), 5);
        let events = run_with_threads(&mut sim, 1).expect("runs").events;
        (deliveries(&sim), events)
    };
    let (a, events_a) = run_incast(&plain);
    let (b, events_b) = run_incast(&batched);
    assert_eq!(b.len(), 15);
    let bytes = |v: &[Delivered<u64>]| v.iter().map(|d| d.bytes).sum::<u64>();
    assert_eq!(bytes(&a), bytes(&b));
    assert!(
        events_b * 5 < events_a * 4,
        "{events_b} events batched, {events_a} per packet"
    );
    let last = |v: &[Delivered<u64>]| v.iter().map(|d| d.delivered).max().unwrap() as f64;
    assert!(
        (last(&b) / last(&a) - 1.0).abs() < 0.02,
        "{} vs {}",
        last(&b),
        last(&a)
    );
}

#[test]
fn a_message_is_routed_in_blocks_of_the_routing_block() {
    // With a 64 KiB block (16 packets) every router's adaptive choice holds for 16 packets of
    // the message, so every router output carries a multiple of 16 packets; deciding
    // per packet spreads them (ties broken at random) in counts that are not.
    let (blocked, bytes) = one_message(&with_block(Some(64 * KIB)));
    assert_eq!(bytes, 1 << 20);
    assert!(
        blocked.len() > 2,
        "the blocks spread over the up-links: {blocked:?}"
    );
    assert!(blocked.iter().all(|p| p % 16 == 0), "{blocked:?}");
    let (per_packet, bytes) = one_message(&with_block(None));
    assert_eq!(bytes, 1 << 20);
    assert!(per_packet.iter().any(|p| p % 16 != 0), "{per_packet:?}");
}

#[test]
fn routing_and_lane_blocks_must_be_whole_packets() {
    type Set = fn(&mut NetworkConfig, Option<u32>);
    let keys: [(&str, Set); 2] = [
        ("routing_block", |c, b| c.routing_block = b),
        ("lane_block", |c, b| c.lane_block = b),
    ];
    for (key, set) in keys {
        for bad in [1_000, 4 * KIB + 1, 2 * KIB] {
            let mut cfg = net(fat_tree_16(), Routing::Adaptive);
            cfg.packet_size = 4 * KIB;
            set(&mut cfg, Some(bad));
            let e = cfg.build().unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("whole number"), "{e}");
        }
    }
}

/// The deterministic 16-terminal fat-tree with switch links slow and far (12.5 GB/s, 2 us)
/// behind fast, near terminal links (50 GB/s, 10 ns), with 4 KiB packets, 4 lanes and VC
/// buffers of `buffer` bytes.
fn long_switch_links(buffer: u32, lane_block: Option<u32>) -> Network {
    let TopologyConfig::FatTree(mut tree) = fat_tree_16() else {
        unreachable!("fat_tree_16 is a fat-tree")
    };
    tree.terminal = LinkParams::new(50_000_000_000, 10_000);
    tree.link = LinkParams::new(12_500_000_000, 2_000_000);
    let mut cfg = net(TopologyConfig::FatTree(tree), Routing::Deterministic);
    cfg.packet_size = 4 * KIB;
    cfg.vc_buffer = Some(buffer);
    cfg.lane_block = lane_block;
    cfg.build().expect("builds")
}

#[test]
fn a_lane_block_keeps_a_message_on_one_lane() {
    // A lane's credit loop on the switch links is about 4.4 us (two latencies, the router
    // delay, one packet's serialisation), in which the links carry 54 KiB. With 32 KiB lanes,
    // packets that each take the lane with the most credit fill all four lanes of every hop and
    // deliver a 1 MiB message as fast as unlimited buffers do. Kept on one lane per 64 KiB block,
    // each block runs on one lane's credit loop: over a quarter longer. A block of one
    // packet is the per-packet model, event for event.
    let delivered = |n: &Network| {
        let (_, got, events) = one_message_run(n);
        assert_eq!(got.iter().map(|d| d.bytes).sum::<u64>(), 1 << 20);
        (got[0].delivered, events)
    };
    let (unlimited, _) = delivered(&long_switch_links(1 << 20, None));
    let (per_packet, events) = delivered(&long_switch_links(32 * KIB, None));
    assert_eq!(
        per_packet, unlimited,
        "lanes per packet never wait for credit"
    );
    assert_eq!(
        delivered(&long_switch_links(32 * KIB, Some(4 * KIB))),
        (per_packet, events)
    );
    let (blocked, _) = delivered(&long_switch_links(32 * KIB, Some(64 * KIB)));
    assert!(
        blocked * 4 > per_packet * 5,
        "{blocked} ps in lane blocks, {per_packet} ps per packet"
    );
}

#[test]
fn routing_and_lane_blocks_give_the_same_run_on_one_to_four_threads() {
    // Fifteen 1 MiB messages into one terminal of the adaptive fat-tree, routes and lanes
    // decided per 64 KiB: the blocks are per-router state, so every thread count delivers the
    // same messages at the same times.
    let n = with(|c| {
        c.routing_block = Some(64 * KIB);
        c.lane_block = Some(64 * KIB);
    });
    let scripts = incast();
    let run_on = |threads: usize| {
        let mut sim = build(&n, scripts.clone(), 5);
        let events = run_with_threads(&mut sim, threads).expect("runs").events;
        let mut got = deliveries(&sim);
        got.sort_by_key(|d| (d.delivered, d.payload));
        (got, events)
    };
    let one = run_on(1);
    assert_eq!(one.0.len(), 15);
    for threads in [2, 3, 4] {
        assert_eq!(run_on(threads), one, "{threads} threads");
    }
}
