//! Runs the network benchmark cases once and prints their reports and timings (used for the
//! figures in `docs/performance.md` and `docs/network.md`).
//!
//! `cargo run --release -p bbsim-topology --example net -- <case> [threads]` with `<case>`:
//! `fattree128` (the 128-node fat-tree benchmark), `dragonfly1056` (build and run 1 ms),
//! `dragonfly1056-ready` (build only, for peak memory), `build-large` (Edison and Summit
//! systems), `study` (saturation throughput table), `sizes` (event sizes), `all`.
//! Environment: `END_US` shortens the simulated time, `UGAL_T` sets the UGAL threshold of the
//! dragonfly case, `EXEC=global-ring|global-heap` picks the engine's reference executor.

use bbsim_engine::time::{MS, NS, US};
use bbsim_topology::{
    AriesConfig, DragonflyConfig, FatTreeConfig, LinkParams, NetworkConfig, Pattern, Routing,
    Topology, TopologyConfig, TrafficConfig, TrafficSim,
};
use std::time::Instant;

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
        end: std::env::var("END_US")
            .ok()
            .and_then(|s| s.parse().ok())
            .map_or(5 * MS, |u: u64| u * US),
        seed: 1,
        drain: true,
    }
}

fn dragonfly1056() -> TrafficConfig {
    let mut network = NetworkConfig::new(
        TopologyConfig::Dragonfly(DragonflyConfig::kim_1056()),
        Routing::Ugal,
    );
    network.packet_size = 512;
    if let Some(t) = std::env::var("UGAL_T").ok().and_then(|s| s.parse().ok()) {
        network.ugal_threshold = t;
    }
    TrafficConfig {
        network,
        pattern: Pattern::UniformRandom,
        hot_spot: 0,
        shift: 0,
        victim: None,
        message_bytes: 512,
        interval: US,
        messages_per_node: None,
        end: std::env::var("END_US")
            .ok()
            .and_then(|s| s.parse().ok())
            .map_or(MS, |u: u64| u * US),
        seed: 1,
        drain: true,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("all", String::as_str);
    if which == "sizes" {
        sizes();
    }
    let threads: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    if which == "fattree128" || which == "all" {
        let t0 = Instant::now();
        let mut sim = TrafficSim::build(&fattree128()).expect("builds");
        let built = t0.elapsed();
        let run = match std::env::var("EXEC").as_deref() {
            Ok("global-ring") => sim
                .sim
                .run(&bbsim_engine::Sequential::reference(
                    bbsim_engine::PendingKind::Ring,
                ))
                .expect("runs"),
            Ok("global-heap") => sim
                .sim
                .run(&bbsim_engine::Sequential::reference(
                    bbsim_engine::PendingKind::Heap,
                ))
                .expect("runs"),
            _ => sim.run(threads).expect("runs"),
        };
        println!("{}", sim.report(&run));
        println!(
            "fattree128: build {:.3} s, run {:.3} s, {:.1} M events/s",
            built.as_secs_f64(),
            run.wall.as_secs_f64(),
            run.events_per_second() / 1e6
        );
    }
    if which == "dragonfly1056" || which == "dragonfly1056-ready" || which == "all" {
        let t0 = Instant::now();
        let sim = TrafficSim::build(&dragonfly1056()).expect("builds");
        println!(
            "dragonfly1056: built and ready in {:.3} s ({} LPs)",
            t0.elapsed().as_secs_f64(),
            sim.sim.nlp()
        );
        if which == "dragonfly1056" {
            let mut sim = sim;
            let run = sim.run(threads).expect("runs");
            println!("{}", sim.report(&run));
        }
    }
    if which == "study" {
        study();
    }
    if which == "build-large" || which == "all" {
        for (name, cfg) in [
            ("edison aries", TopologyConfig::Aries(AriesConfig::edison())),
            (
                "summit fat-tree",
                TopologyConfig::FatTree(FatTreeConfig::summit()),
            ),
            (
                "summit 2:1",
                TopologyConfig::FatTree(FatTreeConfig::summit_tapered()),
            ),
        ] {
            let t0 = Instant::now();
            let routing = if matches!(cfg, TopologyConfig::Aries(_)) {
                Routing::Ugal
            } else {
                Routing::Adaptive
            };
            let net = NetworkConfig::new(cfg, routing).build().expect("builds");
            let layout =
                bbsim_topology::LpLayout::routers_then_terminals(net.routers(), net.terminals());
            let routers = net.build_routers::<()>(&layout, 0);
            let nics: Vec<_> = (0..net.terminals())
                .map(|t| net.nic::<()>(t, &layout))
                .collect();
            println!(
                "{name}: {} routers, {} terminals built in {:.3} s ({} router LPs, {} NICs)",
                net.routers(),
                net.terminals(),
                t0.elapsed().as_secs_f64(),
                routers.len(),
                nics.len()
            );
            let _: &Topology = net.topology();
        }
    }
}

fn sizes() {
    eprintln!(
        "sizes: Packet {} NetEvent<()> {} TrafficEvent {} Event {}",
        std::mem::size_of::<bbsim_topology::Packet>(),
        std::mem::size_of::<bbsim_topology::NetEvent<()>>(),
        std::mem::size_of::<bbsim_topology::traffic::TrafficEvent>(),
        std::mem::size_of::<bbsim_engine::Event<bbsim_topology::traffic::TrafficEvent>>()
    );
}

/// Saturation throughput figures quoted in docs/network.md.
fn study() {
    let link = LinkParams::new(12_500_000_000, 100 * NS);
    let run = |topology: TopologyConfig, routing: Routing, pattern: Pattern| {
        let mut network = NetworkConfig::new(topology, routing);
        network.packet_size = 512;
        let cfg = TrafficConfig {
            network,
            pattern,
            hot_spot: 0,
            shift: 0,
            victim: None,
            message_bytes: 512,
            interval: 41 * NS,
            messages_per_node: None,
            end: 100 * US,
            seed: 3,
            drain: false,
        };
        let r = bbsim_topology::run_traffic(&cfg, 1).expect("runs");
        println!(
            "{:<60} {:<10} {:<22} accepted {:>5.1}% of injection, avg latency {:>8.3} us, hops {:.2}, non-minimal {:>5.1}%",
            r.topology, r.routing, r.pattern, 100.0 * r.accepted_fraction_of_injection, r.avg_latency_ns / 1e3, r.avg_hops, 100.0 * r.nonminimal_fraction
        );
    };
    for taper in [1, 2] {
        for routing in [Routing::Deterministic, Routing::Adaptive] {
            let ft = TopologyConfig::FatTree(FatTreeConfig {
                levels: 3,
                radix: 8,
                terminals: 128,
                taper,
                terminal: link,
                link,
            });
            run(ft, routing, Pattern::UniformRandom);
        }
    }
    let df = TopologyConfig::Dragonfly(DragonflyConfig {
        a: 4,
        p: 2,
        h: 2,
        g: 9,
        terminals: None,
        terminal: link,
        local: link,
        global: link,
    });
    for pattern in [Pattern::UniformRandom, Pattern::DragonflyWorstCase] {
        for routing in [Routing::Minimal, Routing::Valiant, Routing::Ugal] {
            run(df.clone(), routing, pattern);
        }
    }
    let torus = TopologyConfig::Torus(bbsim_topology::TorusConfig {
        dims: vec![8, 8],
        terminals_per_router: 1,
        terminals: None,
        terminal: link,
        link,
    });
    run(
        torus.clone(),
        Routing::DimensionOrder,
        Pattern::UniformRandom,
    );
    run(torus, Routing::DimensionOrder, Pattern::NearestNeighbour);
}
