//! A test model: routers (or the path model's fabric) plus scripted hosts whose messages carry a `u64` payload, assembled
//! the way the simulator crate assembles its LPs (own event enum, own LP enum).

use bbsim_engine::time::{NS, US};
use bbsim_engine::{
    run_with_threads, Ctx, LogicalProcess, LookaheadTable, PartitionSpec, SimConfig, Simulation,
    Time,
};
use bbsim_topology::link::serialisation;
use bbsim_topology::{AriesConfig, DragonflyConfig, FatTreeConfig, TorusConfig};
use bbsim_topology::{
    Delivered, FlowFabric, LinkParams, LpLayout, NetEvent, NetModel, Network, NetworkConfig, Nic,
    PathFabric, Router, Routing, TopologyConfig,
};

/// The simulation's event type: network events plus a host timer.
#[derive(Clone, Debug)]
pub enum Ev {
    Net(NetEvent<u64>),
    Send(usize),
}

impl From<NetEvent<u64>> for Ev {
    fn from(e: NetEvent<u64>) -> Self {
        Ev::Net(e)
    }
}

/// One scripted message: send time (ps), destination, bytes, payload.
#[derive(Clone, Copy, Debug)]
pub struct Msg {
    pub at: Time,
    pub dst: u32,
    pub bytes: u64,
    pub payload: u64,
}

pub struct Host {
    pub nic: Nic<u64>,
    pub script: Vec<Msg>,
    pub got: Vec<Delivered<u64>>,
    cluster: u32,
    /// Header bytes added to every message ([`Nic::send_framed`]).
    pub header: u32,
}

#[allow(clippy::large_enum_variant)]
pub enum Lp {
    Router(Router<u64>),
    Fabric(PathFabric<u64>),
    Flows(FlowFabric<u64>),
    Host(Host),
}

impl LogicalProcess for Lp {
    type Event = Ev;

    fn init(&mut self, ctx: &mut Ctx<'_, Ev>) {
        if let Lp::Host(h) = self {
            for (i, m) in h.script.iter().enumerate() {
                ctx.send_self(m.at, Ev::Send(i));
            }
        }
    }

    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, Ev>) {
        match (self, ev) {
            (Lp::Router(r), Ev::Net(e)) => r.handle(e, ctx),
            (Lp::Fabric(f), Ev::Net(e)) => f.handle(e, ctx),
            (Lp::Flows(f), Ev::Net(e)) => f.handle(e, ctx),
            (Lp::Host(h), Ev::Net(e)) => {
                if let Some(d) = h.nic.handle(e, ctx) {
                    h.got.push(d);
                }
            }
            (Lp::Host(h), Ev::Send(i)) => {
                let m = h.script[i];
                h.nic.send_framed(ctx, m.dst, m.bytes, h.header, m.payload);
            }
            (Lp::Router(_) | Lp::Fabric(_) | Lp::Flows(_), Ev::Send(_)) => {
                unreachable!("routers have no timers")
            }
        }
    }

    fn class(&self) -> u16 {
        match self {
            Lp::Router(_) | Lp::Fabric(_) | Lp::Flows(_) => 0,
            Lp::Host(_) => 1,
        }
    }

    fn cluster_hint(&self) -> Option<u32> {
        Some(match self {
            Lp::Router(r) => r.cluster_hint(),
            Lp::Fabric(_) | Lp::Flows(_) => 0,
            Lp::Host(h) => h.cluster,
        })
    }
}

/// Builds routers (LPs `0..R`) and one scripted host per terminal, with `scripts[t]` for
/// terminal `t` (missing scripts are empty).
pub fn build(net: &Network, scripts: Vec<Vec<Msg>>, seed: u64) -> Simulation<Lp> {
    build_partitioned(net, scripts, seed, PartitionSpec::Auto)
}

/// As [`build`], with an explicit partitioning.
pub fn build_partitioned(
    net: &Network,
    scripts: Vec<Vec<Msg>>,
    seed: u64,
    partition: PartitionSpec,
) -> Simulation<Lp> {
    build_with(net, scripts, seed, partition, 0)
}

/// As [`build_partitioned`], every message carrying a `header` of that many bytes on top of
/// its data.
pub fn build_with(
    net: &Network,
    scripts: Vec<Vec<Msg>>,
    seed: u64,
    partition: PartitionSpec,
    header: u32,
) -> Simulation<Lp> {
    build_until(net, scripts, seed, partition, header, Time::MAX)
}

/// As [`build_with`], for a run that stops at `end_time` (ps): events at or after it are not
/// handled.
pub fn build_until(
    net: &Network,
    mut scripts: Vec<Vec<Msg>>,
    seed: u64,
    partition: PartitionSpec,
    header: u32,
    end_time: Time,
) -> Simulation<Lp> {
    let topo = net.topology();
    let layout = LpLayout::for_model(net.model(), topo.routers(), topo.terminals());
    let mut lps: Vec<Lp> = match net.model() {
        NetModel::Packet => net
            .build_routers(&layout, 0)
            .into_iter()
            .map(Lp::Router)
            .collect(),
        NetModel::Path => vec![Lp::Fabric(net.build_path_fabric(&layout, 0))],
        NetModel::Flow => vec![Lp::Flows(net.build_flow_fabric(&layout, 0))],
    };
    scripts.resize(topo.terminals() as usize, Vec::new());
    for (t, script) in scripts.into_iter().enumerate() {
        let t = t as u32;
        lps.push(Lp::Host(Host {
            nic: net.nic(t, &layout).expect("terminal exists"),
            script,
            got: Vec::new(),
            cluster: net.terminal_cluster(t),
            header,
        }));
    }
    let mut table = LookaheadTable::with_classes(["router", "host"]);
    net.declare_lookahead(&mut table, 0, &[1]);
    Simulation::new(
        lps,
        table,
        SimConfig {
            seed,
            end_time,
            partition,
        },
    )
}

/// Runs and returns every delivered message, host by host.
pub fn run(sim: &mut Simulation<Lp>, threads: usize) -> Vec<Delivered<u64>> {
    run_with_threads(sim, threads).expect("runs");
    let mut all = Vec::new();
    for lp in sim.lps() {
        if let Lp::Host(h) = lp {
            all.extend(h.got.iter().cloned());
        }
    }
    all
}

/// A topology, its adaptive (or only) routing, and terminal pairs to try.
pub type Case = (TopologyConfig, Routing, Vec<(u32, u32)>);

pub fn sample_topologies() -> Vec<Case> {
    vec![
        (
            TopologyConfig::FatTree(FatTreeConfig {
                levels: 3,
                radix: 8,
                terminals: 128,
                taper: 1,
                terminal: link(),
                link: link(),
            }),
            Routing::Adaptive,
            vec![(0, 1), (0, 5), (0, 127), (77, 3)],
        ),
        (
            TopologyConfig::Dragonfly(DragonflyConfig {
                a: 4,
                p: 2,
                h: 2,
                g: 9,
                terminals: None,
                terminal: link(),
                local: link(),
                global: link(),
            }),
            Routing::Ugal,
            vec![(0, 1), (0, 3), (0, 8), (0, 71), (13, 50)],
        ),
        (
            TopologyConfig::Aries(AriesConfig {
                rows: 2,
                cols: 3,
                terminals_per_router: 4,
                h: 1,
                groups: 7,
                terminals: None,
                terminal: link(),
                local: link(),
                global: link(),
            }),
            Routing::Ugal,
            vec![(0, 4), (0, 20), (0, 167), (100, 9)],
        ),
        (
            TopologyConfig::Torus(TorusConfig {
                dims: vec![5, 4, 3],
                terminals_per_router: 2,
                terminals: None,
                terminal: link(),
                link: link(),
            }),
            Routing::DimensionOrder,
            vec![(0, 1), (0, 2), (0, 8), (0, 119), (3, 70)],
        ),
    ]
}

/// (bandwidth, link latency, router delay) of [`link`] and [`net`].
pub const UNIFORM: (u64, Time, Time) = (12_500_000_000, 100 * NS, 90 * NS);

/// A uniform link: 12.5 GB/s, 100 ns.
pub fn link() -> LinkParams {
    LinkParams::new(12_500_000_000, 100 * NS)
}

/// The smallest 3-level fat-tree: radix 4, 16 terminals in 4 pods, 20 routers, untapered.
pub fn fat_tree_16() -> TopologyConfig {
    TopologyConfig::FatTree(FatTreeConfig {
        levels: 3,
        radix: 4,
        terminals: 16,
        taper: 1,
        terminal: link(),
        link: link(),
    })
}

/// A network config with 512 B packets, 90 ns router delay, 16-packet buffers.
pub fn net(topology: TopologyConfig, routing: Routing) -> NetworkConfig {
    let mut c = NetworkConfig::new(topology, routing);
    c.packet_size = 512;
    c.router_delay = 90 * NS;
    c.buffer_packets = 16;
    c
}

/// Sum of packet serialisation times of a message (the last packet carries the remainder).
pub fn message_serialisation(bytes: u64, packet: u64, bw: u64) -> Time {
    let full = bytes / packet;
    let rest = bytes % packet;
    let mut t = full * serialisation(packet, bw);
    if rest > 0 || bytes == 0 {
        t += serialisation(rest, bw);
    }
    t
}

/// On a network of uniform links (bandwidth `bw`, latency `l`) and router delay `d`, sends one
/// message at a time from `src` to each `dst` (spaced far apart: 100 us, or more for large
/// messages) and checks latency = hops x (L + D) + L + serialisation, with hops the topology's
/// hop distance and the network's unit size (its packet size unless units are on): on uniform
/// links units pipeline as packets do.
pub fn check_zero_load(
    net: &Network,
    (bw, l, d): (u64, Time, Time),
    pairs: &[(u32, u32)],
    sizes: &[u64],
) {
    let packet = u64::from(net.params().unit_size);
    let longest = sizes
        .iter()
        .max()
        .map_or(0, |&b| message_serialisation(b, packet, bw));
    let gap = (100 * US).max(4 * longest);
    let mut scripts = vec![Vec::new(); net.terminals() as usize];
    let mut expected = Vec::new();
    let mut at = 0;
    for (i, &(src, dst)) in pairs.iter().enumerate() {
        for &bytes in sizes {
            let payload = (i as u64) << 32 | bytes;
            scripts[src as usize].push(Msg {
                at,
                dst,
                bytes,
                payload,
            });
            let hops = net.hop_distance(src, dst).unwrap();
            let latency = Time::from(hops) * (l + d) + l + message_serialisation(bytes, packet, bw);
            expected.push((payload, src, dst, bytes, hops, at, latency));
            at += gap;
        }
    }
    let mut sim = build(net, scripts, 7);
    let mut got = run(&mut sim, 1);
    got.sort_by_key(|d| d.injected);
    assert_eq!(got.len(), expected.len());
    for (d, &(payload, src, dst, bytes, hops, at, latency)) in got.iter().zip(&expected) {
        assert_eq!(d.payload, payload, "payload rides with the message");
        assert_eq!((d.src, d.dst, d.bytes), (src, dst, bytes));
        assert_eq!(d.injected, at);
        assert_eq!(u32::from(d.route.hops), hops, "{src}->{dst}: hop count");
        assert!(!d.route.nonminimal);
        let physical = u64::from(net.params().packet_size);
        assert_eq!(d.route.packets, bytes.div_ceil(physical).max(1) as u32);
        assert_eq!(
            d.latency, latency,
            "{src}->{dst} {bytes} B in {packet} B packets: zero-load latency"
        );
        assert_eq!(d.delivered, at + latency);
    }
}

/// An incast on the 16-terminal fat-tree: terminals 1-15 each send 1 MiB to terminal 0 at once.
pub fn incast() -> Vec<Vec<Msg>> {
    (0..16u32)
        .map(|s| {
            if s == 0 {
                Vec::new()
            } else {
                vec![Msg {
                    at: 0,
                    dst: 0,
                    bytes: 1 << 20,
                    payload: u64::from(s),
                }]
            }
        })
        .collect()
}
