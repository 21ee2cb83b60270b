//! Zero-load latency equals the closed form exactly, payloads arrive intact, a single flow
//! runs at the link bandwidth, and adaptive fat-tree routing spreads ties at random.

use crate::common::{self, build, fat_tree_16, link, net, run, Lp, Msg};
use bbsim_engine::time::{NS, US};
use bbsim_engine::Time;
use bbsim_topology::link::serialisation;
use bbsim_topology::{
    AriesConfig, DragonflyConfig, FatTreeConfig, LinkParams, Network, Routing, TopologyConfig,
    TorusConfig,
};

const D: Time = 90 * NS;
const L: Time = 100 * NS;
const BW: u64 = 12_500_000_000;

/// Sends one message at a time (spaced far apart) from `src` to each `dst` and checks
/// latency = hops x (L + D) + L + serialisation, with hops the topology's hop distance.
fn check_zero_load(
    topology: TopologyConfig,
    routing: Routing,
    pairs: &[(u32, u32)],
    sizes: &[u64],
) {
    let net: Network = net(topology, routing).build().expect("builds");
    common::check_zero_load(&net, (BW, L, D), pairs, sizes);
}

const SIZES: [u64; 5] = [1, 512, 700, 5_000, 16_384];

#[test]
fn zero_load_latency_fat_tree() {
    let cfg = TopologyConfig::FatTree(FatTreeConfig {
        levels: 3,
        radix: 8,
        terminals: 128,
        taper: 1,
        terminal: link(),
        link: link(),
    });
    let pairs = [(0, 1), (0, 5), (0, 127), (77, 3)];
    check_zero_load(cfg.clone(), Routing::Deterministic, &pairs, &SIZES);
    check_zero_load(cfg, Routing::Adaptive, &pairs, &SIZES);
    let two = TopologyConfig::FatTree(FatTreeConfig {
        levels: 2,
        radix: 8,
        terminals: 32,
        taper: 2,
        terminal: link(),
        link: link(),
    });
    check_zero_load(two, Routing::Adaptive, &[(0, 3), (0, 31)], &SIZES);
}

#[test]
fn zero_load_latency_dragonflies() {
    let df = TopologyConfig::Dragonfly(DragonflyConfig {
        a: 4,
        p: 2,
        h: 2,
        g: 9,
        terminals: None,
        terminal: link(),
        local: link(),
        global: link(),
    });
    let pairs = [(0, 1), (0, 3), (0, 8), (0, 71), (13, 50)];
    check_zero_load(df.clone(), Routing::Minimal, &pairs, &SIZES);
    // With empty queues UGAL keeps every packet on its minimal route. (Within a multi-packet
    // message the earlier packets are queue occupancy, so only one-packet messages are
    // zero-load for UGAL.)
    check_zero_load(df, Routing::Ugal, &pairs, &[1, 300, 512]);
    let aries = TopologyConfig::Aries(AriesConfig {
        rows: 2,
        cols: 3,
        terminals_per_router: 4,
        h: 1,
        groups: 7,
        terminals: None,
        terminal: link(),
        local: link(),
        global: link(),
    });
    let pairs = [(0, 4), (0, 20), (0, 167), (100, 9)];
    check_zero_load(aries.clone(), Routing::Minimal, &pairs, &SIZES);
    check_zero_load(aries, Routing::Adaptive, &pairs, &[1, 512]);
}

#[test]
fn zero_load_latency_torus() {
    let t = TopologyConfig::Torus(TorusConfig {
        dims: vec![5, 4, 3],
        terminals_per_router: 2,
        terminals: None,
        terminal: link(),
        link: link(),
    });
    // Includes wrap-around routes and a 5-hop route.
    check_zero_load(
        t,
        Routing::DimensionOrder,
        &[(0, 1), (0, 2), (0, 8), (0, 119), (3, 70)],
        &SIZES,
    );
}

#[test]
fn zero_load_with_distinct_terminal_links() {
    // Terminal links 25 GB/s, 50 ns; switch links 12.5 GB/s, 100 ns. One 512 B packet through
    // 5 routers: 2 x 50 + 4 x 100 ns of links, 5 x 90 ns of routers, and the serialisation of
    // the last link (20.48 ns): cut-through, and the router delay (90 ns) exceeds the time the
    // tail lags behind the head on the slower switch links (40.96 ns), so they never stall it.
    let cfg = TopologyConfig::FatTree(FatTreeConfig {
        levels: 3,
        radix: 4,
        terminals: 16,
        taper: 1,
        terminal: LinkParams::new(25_000_000_000, 50 * NS),
        link: link(),
    });
    let net = net(cfg, Routing::Deterministic).build().unwrap();
    let scripts = vec![vec![Msg {
        at: 0,
        dst: 15,
        bytes: 512,
        payload: 9,
    }]];
    let mut sim = build(&net, scripts, 1);
    let got = run(&mut sim, 1);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].route.hops, 5);
    let fast = serialisation(512, 25_000_000_000);
    assert_eq!(got[0].latency, 2 * 50 * NS + 4 * 100 * NS + 5 * D + fast);
}

#[test]
fn single_flow_saturates_at_link_bandwidth() {
    let cfg = fat_tree_16();
    let net = net(cfg, Routing::Adaptive).build().unwrap();
    // 400 messages of 64 KiB (51,200 packets) queued at once from terminal 0 to terminal 15.
    let bytes = 64 * 1024;
    let n = 400u64;
    let script = (0..n)
        .map(|i| Msg {
            at: 0,
            dst: 15,
            bytes,
            payload: i,
        })
        .collect();
    let mut sim = build(&net, vec![script], 3);
    let mut got = run(&mut sim, 1);
    assert_eq!(got.len() as u64, n);
    got.sort_by_key(|d| d.delivered);
    let first = got.iter().map(|d| d.delivered - d.latency).min().unwrap();
    let last = got.last().unwrap().delivered;
    let rate = (n * bytes) as f64 / ((last - first) as f64 * 1e-12);
    assert!(
        rate <= BW as f64 * 1.000_001,
        "cannot beat the link: {rate}"
    );
    assert!(
        rate >= BW as f64 * 0.995,
        "a single flow runs at link speed: {rate}"
    );
    // Messages arrive in order along one flow and the payloads are all there.
    let payloads: Vec<u64> = got.iter().map(|d| d.payload).collect();
    assert_eq!(payloads, (0..n).collect::<Vec<_>>());
}

#[test]
fn adaptive_fat_tree_breaks_ties_at_random() {
    let cfg = TopologyConfig::FatTree(FatTreeConfig {
        levels: 3,
        radix: 8,
        terminals: 128,
        taper: 1,
        terminal: link(),
        link: link(),
    });
    let net = net(cfg, Routing::Adaptive).build().unwrap();
    // Widely spaced messages from terminal 0 to one far destination: every up-port decision
    // is a tie (all queues empty), so a first-port rule would use one port only.
    let script = (0..64)
        .map(|i| Msg {
            at: i * 10 * US,
            dst: 100,
            bytes: 512,
            payload: i,
        })
        .collect();
    let mut sim = build(&net, vec![script], 11);
    run(&mut sim, 1);
    let Some(Lp::Router(edge)) = sim.lps().next() else {
        panic!("router 0 first")
    };
    let up: Vec<u64> = edge.stats().links[4..8].iter().map(|l| l.packets).collect();
    assert_eq!(up.iter().sum::<u64>(), 64);
    assert!(up.iter().all(|&p| p > 0), "every up-port is used: {up:?}");
    // Deterministic routing uses port 4 + 100 mod 4 only.
    let net = common::net(net.config().topology.clone(), Routing::Deterministic)
        .build()
        .unwrap();
    let script = (0..64)
        .map(|i| Msg {
            at: i * 10 * US,
            dst: 100,
            bytes: 512,
            payload: i,
        })
        .collect();
    let mut sim = build(&net, vec![script], 11);
    run(&mut sim, 1);
    let Some(Lp::Router(edge)) = sim.lps().next() else {
        panic!("router 0 first")
    };
    let up: Vec<u64> = edge.stats().links[4..8].iter().map(|l| l.packets).collect();
    assert_eq!(up, vec![64, 0, 0, 0]);
}
