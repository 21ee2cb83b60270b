//! Synthetic traffic: no deadlock and no loss under saturation on every topology and routing,
//! throughput of tapered fat-trees and of dragonfly routings, determinism across thread
//! counts, and the report.

use crate::common::{link, net};
use bbsim_engine::time::{NS, US};
use bbsim_topology::{
    run_traffic, AriesConfig, DragonflyConfig, FatTreeConfig, LinkParams, NetModel, NetworkConfig,
    Pattern, Routing, TopologyConfig, TorusConfig, TrafficConfig, TrafficReport, TrafficSim,
    Victim,
};

fn fat_tree(levels: u8, radix: u32, terminals: u32, taper: u32) -> TopologyConfig {
    TopologyConfig::FatTree(FatTreeConfig {
        levels,
        radix,
        terminals,
        taper,
        terminal: link(),
        link: link(),
    })
}

fn dragonfly(global_bw: u64) -> TopologyConfig {
    TopologyConfig::Dragonfly(DragonflyConfig {
        a: 4,
        p: 2,
        h: 2,
        g: 9,
        terminals: None,
        terminal: link(),
        local: link(),
        global: LinkParams::new(global_bw, 200 * NS),
    })
}

fn aries() -> TopologyConfig {
    TopologyConfig::Aries(AriesConfig {
        rows: 2,
        cols: 3,
        terminals_per_router: 2,
        h: 1,
        groups: 7,
        terminals: None,
        terminal: link(),
        local: link(),
        global: link(),
    })
}

fn torus(dims: &[u32], p: u32) -> TopologyConfig {
    TopologyConfig::Torus(TorusConfig {
        dims: dims.to_vec(),
        terminals_per_router: p,
        terminals: None,
        terminal: link(),
        link: link(),
    })
}

/// A burst: every terminal queues `messages` messages of `bytes` at time 0; run until drained.
fn burst(network: NetworkConfig, pattern: Pattern, bytes: u64, messages: u64) -> TrafficConfig {
    TrafficConfig {
        network,
        pattern,
        // The receiver of the hot-spot cases.
        hot_spot: 3,
        shift: 0,
        victim: None,
        message_bytes: bytes,
        interval: 0,
        messages_per_node: Some(messages),
        end: 10 * US,
        seed: 5,
        drain: true,
    }
}

fn assert_all_delivered(r: &TrafficReport, expected: u64, what: &str) {
    assert_eq!(r.messages_sent, expected, "{what}: sent");
    assert_eq!(
        r.messages_delivered, r.messages_sent,
        "{what}: every message delivered\n{r}"
    );
    assert_eq!(
        r.messages_queued + r.messages_partial + r.packets_buffered,
        0,
        "{what}: nothing left\n{r}"
    );
}

#[test]
fn saturation_delivers_every_packet_on_every_topology_and_routing() {
    let cases: Vec<(TopologyConfig, Vec<Routing>, Vec<Pattern>)> = vec![
        (
            fat_tree(3, 4, 16, 1),
            vec![Routing::Deterministic, Routing::Adaptive],
            vec![Pattern::UniformRandom, Pattern::HotSpot],
        ),
        (
            fat_tree(3, 8, 90, 2),
            vec![Routing::Deterministic, Routing::Adaptive],
            vec![Pattern::UniformRandom, Pattern::RandomPermutation],
        ),
        (
            fat_tree(2, 8, 30, 1),
            vec![Routing::Adaptive],
            vec![Pattern::UniformRandom],
        ),
        (
            dragonfly(5_000_000_000),
            vec![Routing::Minimal, Routing::Valiant, Routing::Ugal],
            vec![Pattern::UniformRandom, Pattern::DragonflyWorstCase],
        ),
        (
            aries(),
            vec![Routing::Minimal, Routing::Valiant, Routing::Ugal],
            vec![Pattern::UniformRandom, Pattern::DragonflyWorstCase],
        ),
        (
            torus(&[4, 4], 2),
            vec![Routing::DimensionOrder],
            vec![
                Pattern::UniformRandom,
                Pattern::NearestNeighbour,
                Pattern::RandomPermutation,
            ],
        ),
        (
            torus(&[3, 2, 3], 1),
            vec![Routing::DimensionOrder],
            vec![Pattern::UniformRandom],
        ),
    ];
    for (topology, routings, patterns) in cases {
        for routing in routings {
            for pattern in &patterns {
                // Tiny buffers (one or two packets per VC) make deadlocks likely if the
                // virtual channels did not prevent them.
                for buffer_packets in [1, 2] {
                    let mut n = net(topology.clone(), routing);
                    n.buffer_packets = buffer_packets;
                    let terminals = n.build().unwrap().topology().compute_terminals().end;
                    let cfg = burst(n, *pattern, 1_300, 12);
                    let r = run_traffic(&cfg, 1).expect("runs");
                    let senders = match pattern {
                        Pattern::HotSpot => terminals - 1,
                        _ => terminals,
                    };
                    let what = format!(
                        "{} {routing:?} {pattern:?} buffers {buffer_packets}",
                        topology.describe()
                    );
                    assert_all_delivered(&r, u64::from(senders) * 12, &what);
                    assert_eq!(r.packets_delivered, r.messages_delivered * 3, "{what}");
                }
            }
        }
    }
}

/// Accepted throughput (fraction of injection bandwidth) under uniform random traffic offered
/// at the full injection rate.
fn saturated(
    topology: TopologyConfig,
    routing: Routing,
    pattern: Pattern,
    end_us: u64,
) -> TrafficReport {
    let cfg = TrafficConfig {
        network: net(topology, routing),
        pattern,
        hot_spot: 0,
        shift: 0,
        victim: None,
        message_bytes: 512,
        interval: 41 * NS, // one 512 B packet per 40.96 ns: the injection bandwidth
        messages_per_node: None,
        end: end_us * US,
        seed: 3,
        drain: false,
    };
    run_traffic(&cfg, 1).expect("runs")
}

#[test]
fn tapered_fat_tree_delivers_about_half_the_all_to_all_throughput() {
    let full = saturated(
        fat_tree(3, 8, 128, 1),
        Routing::Adaptive,
        Pattern::UniformRandom,
        30,
    );
    let tapered = saturated(
        fat_tree(3, 8, 128, 2),
        Routing::Adaptive,
        Pattern::UniformRandom,
        30,
    );
    let ratio = tapered.accepted_bytes_per_s / full.accepted_bytes_per_s;
    assert!(
        (0.4..=0.62).contains(&ratio),
        "tapered / full = {ratio:.3}\nfull:\n{full}\ntapered:\n{tapered}"
    );
    // The tapered tree is limited by its edge up-links: 2 per 4 terminals, so at most about
    // half the injection bandwidth leaves an edge switch.
    assert!(tapered.accepted_fraction_of_injection < 0.53, "{tapered}");
    assert!(full.accepted_fraction_of_injection > 0.7, "{full}");
}

#[test]
fn adaptive_routing_beats_minimal_on_the_dragonfly_worst_case() {
    // Global links as fast as the others: minimal routing funnels a whole group (8 terminals)
    // into one global link, about 1/8 of the injection bandwidth per terminal.
    let topo = dragonfly(12_500_000_000);
    let minimal = saturated(
        topo.clone(),
        Routing::Minimal,
        Pattern::DragonflyWorstCase,
        30,
    );
    let ugal = saturated(topo.clone(), Routing::Ugal, Pattern::DragonflyWorstCase, 30);
    let valiant = saturated(topo, Routing::Valiant, Pattern::DragonflyWorstCase, 30);
    assert!(minimal.accepted_fraction_of_injection < 0.14, "{minimal}");
    assert_eq!(minimal.nonminimal_fraction, 0.0);
    assert!(
        ugal.accepted_bytes_per_s > 2.5 * minimal.accepted_bytes_per_s,
        "UGAL {:.3} vs minimal {:.3}\n{ugal}",
        ugal.accepted_fraction_of_injection,
        minimal.accepted_fraction_of_injection
    );
    assert!(ugal.nonminimal_fraction > 0.5, "{ugal}");
    assert!(
        valiant.accepted_bytes_per_s > 2.5 * minimal.accepted_bytes_per_s,
        "{valiant}"
    );
    assert_eq!(valiant.nonminimal_fraction, 1.0);
    assert!(valiant.avg_hops > minimal.avg_hops);
}

#[test]
fn results_are_identical_for_any_thread_count() {
    let cases = vec![
        (
            fat_tree(3, 8, 128, 1),
            Routing::Adaptive,
            Pattern::UniformRandom,
        ),
        (
            dragonfly(5_000_000_000),
            Routing::Ugal,
            Pattern::DragonflyWorstCase,
        ),
        (aries(), Routing::Valiant, Pattern::UniformRandom),
        (
            torus(&[4, 3, 2], 2),
            Routing::DimensionOrder,
            Pattern::RandomPermutation,
        ),
    ];
    for (topology, routing, pattern) in cases {
        let cfg = TrafficConfig {
            network: net(topology, routing),
            pattern,
            hot_spot: 0,
            shift: 0,
            victim: None,
            message_bytes: 1_200,
            interval: 300 * NS,
            messages_per_node: Some(40),
            end: 15 * US,
            seed: 17,
            drain: true,
        };
        let reference = run_traffic(&cfg, 1).expect("runs");
        assert!(reference.messages_delivered > 1_000);
        assert_eq!(reference.messages_delivered, reference.messages_sent);
        for threads in [2, 3, 4] {
            let r = run_traffic(&cfg, threads).expect("runs");
            assert_eq!(
                r.digest, reference.digest,
                "{threads} threads\n{r}\n{reference}"
            );
            let strip = |x: &TrafficReport| TrafficReport {
                wall_seconds: 0.0,
                threads: 0,
                ..x.clone()
            };
            assert_eq!(strip(&r), strip(&reference));
        }
    }
}

#[test]
fn report_prints_the_headline_figures() {
    let cfg = TrafficConfig {
        network: net(fat_tree(3, 4, 16, 1), Routing::Adaptive),
        pattern: Pattern::UniformRandom,
        hot_spot: 0,
        shift: 0,
        victim: None,
        message_bytes: 512,
        interval: US,
        messages_per_node: None,
        end: 20 * US,
        seed: 1,
        drain: true,
    };
    let r = run_traffic(&cfg, 1).unwrap();
    assert_eq!(r.messages_sent, 16 * 20);
    assert_eq!(r.messages_delivered, 16 * 20);
    assert!((r.offered_bytes_per_s - 16.0 * 512.0 / 1e-6).abs() < 1.0);
    assert!(r.accepted_bytes_per_s <= r.offered_bytes_per_s);
    assert!(r.avg_hops >= 1.0 && r.avg_hops <= 5.0);
    assert!(r.avg_latency_ns > 0.0 && r.max_latency_ns >= r.avg_latency_ns);
    let text = r.to_string();
    for key in [
        "messages",
        "latency",
        "hops",
        "non-minimally",
        "accepted",
        "edge-agg",
        "digest",
    ] {
        assert!(text.contains(key), "missing {key}:\n{text}");
    }
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains("\"accepted_bytes_per_s\""));
}

#[test]
fn bad_traffic_configurations_are_named_errors() {
    let base = TrafficConfig {
        network: net(fat_tree(3, 4, 16, 1), Routing::Adaptive),
        pattern: Pattern::HotSpot,
        hot_spot: 16,
        shift: 0,
        victim: None,
        message_bytes: 512,
        interval: US,
        messages_per_node: None,
        end: 20 * US,
        seed: 1,
        drain: true,
    };
    let e = run_traffic(&base, 1).unwrap_err().to_string();
    assert!(
        e.contains("traffic.hot_spot") && e.contains("below 16"),
        "{e}"
    );
    let cfg = TrafficConfig {
        pattern: Pattern::DragonflyWorstCase,
        ..base.clone()
    };
    let e = run_traffic(&cfg, 1).unwrap_err().to_string();
    assert!(e.contains("dragonfly"), "{e}");
    let cfg = TrafficConfig {
        pattern: Pattern::UniformRandom,
        interval: 0,
        ..base.clone()
    };
    let e = run_traffic(&cfg, 1).unwrap_err().to_string();
    assert!(e.contains("traffic.messages_per_node"), "{e}");
    let cfg = TrafficConfig {
        pattern: Pattern::UniformRandom,
        end: 0,
        ..base.clone()
    };
    assert!(run_traffic(&cfg, 1)
        .unwrap_err()
        .to_string()
        .contains("traffic.end"));
    for shift in [0, 16, 40] {
        let cfg = TrafficConfig {
            pattern: Pattern::Shift,
            shift,
            ..base.clone()
        };
        let e = run_traffic(&cfg, 1).unwrap_err().to_string();
        assert!(e.contains("traffic.shift") && e.contains("1 to 15"), "{e}");
    }
    for (pattern, source, destination) in [
        (Pattern::HotSpot, 4, 4),
        (Pattern::HotSpot, 3, 5),
        (Pattern::HotSpot, 5, 3),
        (Pattern::HotSpot, 5, 16),
        (Pattern::UniformRandom, 4, 5),
    ] {
        let cfg = TrafficConfig {
            pattern,
            hot_spot: 3,
            victim: Some(Victim {
                source,
                destination,
            }),
            ..base.clone()
        };
        let e = run_traffic(&cfg, 1).unwrap_err().to_string();
        assert!(
            e.contains("traffic.victim"),
            "{pattern:?} {source} -> {destination}: {e}"
        );
    }
}

#[test]
fn shift_sends_every_terminal_to_the_one_shift_ahead() {
    // Each of the 16 terminals sends 3 messages to terminal t + 6 (mod 16): every terminal
    // receives exactly 3, and the mean hops are those of the 16 pairs' minimal routes.
    let mut cfg = burst(
        net(fat_tree(3, 4, 16, 1), Routing::Adaptive),
        Pattern::Shift,
        10_000,
        3,
    );
    cfg.shift = 6;
    let mut t = TrafficSim::build(&cfg).expect("builds");
    let run = t.run(1).expect("runs");
    let r = t.report(&run);
    assert_all_delivered(&r, 48, "shift");
    assert!(t.hosts().all(|h| h.nic().stats().received_messages == 3));
    let net = cfg.network.build().unwrap();
    let hops: u32 = (0..16u32)
        .map(|s| net.hop_distance(s, (s + 6) % 16).unwrap())
        .sum();
    assert!(
        (r.avg_hops - f64::from(hops) / 16.0).abs() < 1e-9,
        "{}",
        r.avg_hops
    );
    assert_eq!(r.pattern, "shift(by 6)");
}

#[test]
fn a_victim_flow_beside_a_hot_spot_is_reported_on_its_own() {
    // Terminal 9 sends to terminal 2 (on the hot spot 3's edge switch) while the others send
    // to the hot spot: the victim report counts only the victim flow's messages, and its
    // latency is at least the zero-load latency of its messages.
    let mut cfg = burst(
        net(fat_tree(3, 4, 16, 1), Routing::Adaptive),
        Pattern::HotSpot,
        20_000,
        4,
    );
    cfg.victim = Some(Victim {
        source: 9,
        destination: 2,
    });
    let mut t = TrafficSim::build(&cfg).expect("builds");
    let run = t.run(1).expect("runs");
    let r = t.report(&run);
    assert_all_delivered(&r, 15 * 4, "hot spot with a victim");
    let v = r.victim.clone().expect("a victim report");
    assert_eq!((v.source, v.destination, v.messages_delivered), (9, 2, 4));
    let hot: Vec<u64> = t
        .hosts()
        .map(|h| h.nic().stats().received_messages)
        .collect();
    assert_eq!(hot[3], 14 * 4);
    assert_eq!(hot[2], 4);
    let net = cfg.network.build().unwrap();
    let h = u64::from(net.hop_distance(9, 2).unwrap());
    let zero_load =
        h * (100 * NS + 90 * NS) + 100 * NS + 20_000 * 1_000_000_000_000 / 12_500_000_000;
    assert!(v.avg_latency_ns * 1e3 >= zero_load as f64, "{v:?}");
    assert!(r.to_string().contains("victim       9 -> 2: 4 messages"));
    assert!(serde_json::to_string(&r).unwrap().contains("\"victim\""));
}

/// The path model (`NetModel::Path`) under the same synthetic loads: bursts drain completely on
/// every topology, and the bandwidth bounds that the packet model meets hold too (a 2:1 tapered
/// fat-tree passes about half the all-to-all throughput of a full one; minimal routing funnels
/// a dragonfly group into one global link, which UGAL avoids).
#[test]
fn the_path_model_drains_bursts_and_meets_the_bandwidth_bounds() {
    let path = |topology: TopologyConfig, routing: Routing| {
        let mut n = net(topology, routing);
        n.model = NetModel::Path;
        n
    };
    for (topology, routing) in [
        (fat_tree(3, 8, 90, 2), Routing::Adaptive),
        (dragonfly(5_000_000_000), Routing::Ugal),
        (aries(), Routing::Valiant),
        (torus(&[4, 4], 2), Routing::DimensionOrder),
    ] {
        let n = path(topology.clone(), routing);
        let terminals = n.build().unwrap().topology().compute_terminals().end;
        let r = run_traffic(&burst(n, Pattern::UniformRandom, 1_300, 12), 1).expect("runs");
        let what = format!("path model, {} {routing:?}", topology.describe());
        assert_all_delivered(&r, u64::from(terminals) * 12, &what);
        assert_eq!(r.packets_delivered, r.messages_delivered * 3, "{what}");
    }
    let saturated_path = |topology, routing, pattern| {
        let cfg = TrafficConfig {
            network: path(topology, routing),
            pattern,
            hot_spot: 0,
            shift: 0,
            victim: None,
            message_bytes: 512,
            interval: 41 * NS,
            messages_per_node: None,
            end: 30 * US,
            seed: 3,
            drain: false,
        };
        run_traffic(&cfg, 1).expect("runs")
    };
    let full = saturated_path(
        fat_tree(3, 8, 128, 1),
        Routing::Adaptive,
        Pattern::UniformRandom,
    );
    let tapered = saturated_path(
        fat_tree(3, 8, 128, 2),
        Routing::Adaptive,
        Pattern::UniformRandom,
    );
    let ratio = tapered.accepted_bytes_per_s / full.accepted_bytes_per_s;
    assert!((0.4..=0.62).contains(&ratio), "tapered / full = {ratio:.3}");
    assert!(tapered.accepted_fraction_of_injection < 0.53, "{tapered}");
    assert!(full.accepted_fraction_of_injection > 0.7, "{full}");
    let topo = dragonfly(12_500_000_000);
    let minimal = saturated_path(topo.clone(), Routing::Minimal, Pattern::DragonflyWorstCase);
    let ugal = saturated_path(topo, Routing::Ugal, Pattern::DragonflyWorstCase);
    assert!(minimal.accepted_fraction_of_injection < 0.14, "{minimal}");
    assert!(
        ugal.accepted_bytes_per_s > 2.5 * minimal.accepted_bytes_per_s,
        "{ugal}"
    );
    assert!(ugal.nonminimal_fraction > 0.5, "{ugal}");
}
