#![allow(missing_docs)] // criterion_group!/criterion_main! generate undocumented items
//! Network benchmarks (bbsim-topology):
//!
//! - `network/fattree128_uniform_5ms`: a 128-node 3-level fat-tree (k = 8, 12.5 GB/s links,
//!   100 ns link latency, 90 ns router delay, 512 B packets, adaptive routing) with uniform
//!   random 512 B messages every 1 us per node for 5 ms of simulated time (640,000 messages,
//!   about 7.4 M events), built and run on one core. Target: under 1 s.
//! - `network/dragonfly1056_ready`: building the 1,056-node 1-D dragonfly (a = 8, p = 4, h = 4,
//!   33 groups, UGAL) with its routers and traffic hosts, ready to run. Target: under 0.5 s.
//! - `network/build/*`: building the Edison-like Aries dragonfly (5,760 terminals) and the
//!   Summit-like fat-trees (4,860 terminals, full and 2:1) with router LPs and NICs. Target:
//!   under 2 s each.
//!
//! Run with `cargo bench --bench network`.

use bbsim_engine::time::{MS, NS, US};
use bbsim_topology::{
    AriesConfig, DragonflyConfig, FatTreeConfig, LinkParams, LpLayout, NetworkConfig, Pattern,
    Routing, TopologyConfig, TrafficConfig, TrafficSim,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::time::Duration;

/// The 128-node fat-tree benchmark configuration.
fn fattree128() -> TrafficConfig {
    let link = LinkParams::new(12_500_000_000, 100 * NS);
    let mut network = NetworkConfig::new(
        TopologyConfig::FatTree(FatTreeConfig {
            levels: 3,
            radix: 8,
            terminals: 128,
            taper: 1,
            terminal: link,
            link,
        }),
        Routing::Adaptive,
    );
    network.packet_size = 512;
    network.router_delay = 90 * NS;
    TrafficConfig {
        network,
        pattern: Pattern::UniformRandom,
        hot_spot: 0,
        shift: 0,
        victim: None,
        message_bytes: 512,
        interval: US,
        messages_per_node: None,
        end: 5 * MS,
        seed: 1,
        drain: true,
    }
}

fn bench_fattree(c: &mut Criterion) {
    let cfg = fattree128();
    let mut g = c.benchmark_group("network");
    g.throughput(Throughput::Elements(128 * 5_000));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(15));
    g.bench_function("fattree128_uniform_5ms", |b| {
        b.iter(|| {
            let mut sim = TrafficSim::build(&cfg).expect("builds");
            let run = sim.run(1).expect("runs");
            assert_eq!(sim.report(&run).messages_delivered, 640_000);
            run.events
        })
    });
    g.finish();
}

fn bench_dragonfly_ready(c: &mut Criterion) {
    let cfg = TrafficConfig {
        network: NetworkConfig::new(
            TopologyConfig::Dragonfly(DragonflyConfig::kim_1056()),
            Routing::Ugal,
        ),
        pattern: Pattern::UniformRandom,
        hot_spot: 0,
        shift: 0,
        victim: None,
        message_bytes: 512,
        interval: US,
        messages_per_node: None,
        end: MS,
        seed: 1,
        drain: true,
    };
    let mut g = c.benchmark_group("network");
    g.sample_size(20);
    g.bench_function("dragonfly1056_ready", |b| {
        b.iter(|| TrafficSim::build(&cfg).expect("builds").sim.nlp())
    });
    g.finish();
}

fn bench_large_builds(c: &mut Criterion) {
    let systems = [
        (
            "edison_aries_5760",
            TopologyConfig::Aries(AriesConfig::edison()),
            Routing::Ugal,
        ),
        (
            "summit_fattree_4860",
            TopologyConfig::FatTree(FatTreeConfig::summit()),
            Routing::Adaptive,
        ),
        (
            "summit_fattree_4860_tapered",
            TopologyConfig::FatTree(FatTreeConfig::summit_tapered()),
            Routing::Adaptive,
        ),
    ];
    let mut g = c.benchmark_group("network/build");
    g.sample_size(10);
    for (name, topology, routing) in systems {
        let cfg = NetworkConfig::new(topology, routing);
        g.bench_function(name, |b| {
            b.iter(|| {
                let net = cfg.build().expect("builds");
                let layout = LpLayout::routers_then_terminals(net.routers(), net.terminals());
                let routers = net.build_routers::<()>(&layout, 0);
                let nics: Vec<_> = (0..net.terminals())
                    .map(|t| net.nic::<()>(t, &layout).expect("terminal exists"))
                    .collect();
                (routers.len(), nics.len())
            })
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    bench_fattree,
    bench_dragonfly_ready,
    bench_large_builds
);
criterion_main!(benches);
