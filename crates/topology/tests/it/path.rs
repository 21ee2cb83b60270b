//! The path model (`network.model = "path"`): one fabric LP moves packets through free links
//! and queues them at busy ones. Checked here: the packet model's closed-form zero-load latency
//! on every topology (single- and multi-packet messages, minimal and adaptive routing); a
//! saturated link sends back to back, so the bandwidth bound is met exactly; the fabric drains
//! and keeps the link statistics; results are identical for any thread count.

use crate::common::{self, build, net, run, sample_topologies, Lp, Msg};
use bbsim_engine::time::US;
use bbsim_engine::Time;
use bbsim_topology::link::serialisation;
use bbsim_topology::{NetModel, Network, Routing, TopologyConfig};

const BW: u64 = 12_500_000_000;

fn path_net(topology: TopologyConfig, routing: Routing) -> Network {
    let mut c = net(topology, routing);
    c.model = NetModel::Path;
    c.build().expect("builds")
}

/// Every message arrives at the closed-form zero-load latency of its minimal route (the packet
/// model's, `docs/network.md`), with its hop count and packet count.
#[test]
fn zero_load_latency_is_the_packet_models_closed_form() {
    for (topology, routing, pairs) in sample_topologies() {
        // Adaptive routing: one-packet messages (a multi-packet message's earlier packets are
        // load for the routing decision of its later ones, so it is not zero-load).
        let adaptive = path_net(topology.clone(), routing);
        common::check_zero_load(&adaptive, common::UNIFORM, &pairs, &[1, 64, 512]);
        let minimal = path_net(topology, Routing::Minimal);
        common::check_zero_load(&minimal, common::UNIFORM, &pairs, &[0, 1, 512, 700, 5_000]);
    }
}

/// The sample fat-tree (3 levels, radix 8, 128 terminals).
fn fat_tree() -> TopologyConfig {
    sample_topologies().swap_remove(0).0
}

/// Four senders in other pods each send 50 one-packet messages to terminal 0 at once: its
/// ejection link is the bottleneck, so after the first arrival the packets arrive exactly one
/// serialisation apart (the link never idles and never overlaps two packets), and the link
/// carried every byte.
#[test]
fn a_saturated_link_sends_back_to_back() {
    for routing in [Routing::Minimal, Routing::Adaptive] {
        let net = path_net(fat_tree(), routing);
        let packet = u64::from(net.params().packet_size);
        let senders = [40u32, 60, 90, 120];
        let mut scripts = vec![Vec::new(); net.terminals() as usize];
        for (s, &t) in senders.iter().enumerate() {
            assert_eq!(net.hop_distance(t, 0), Some(5), "senders in other pods");
            scripts[t as usize] = (0..50)
                .map(|i| Msg {
                    at: 0,
                    dst: 0,
                    bytes: packet,
                    payload: (s as u64) << 8 | i,
                })
                .collect();
        }
        let mut sim = build(&net, scripts, 3);
        let got = run(&mut sim, 1);
        assert_eq!(got.len(), 200);
        let mut times: Vec<Time> = got.iter().map(|d| d.delivered).collect();
        times.sort_unstable();
        let ser = serialisation(packet, BW);
        for w in times.windows(2) {
            assert_eq!(
                w[1] - w[0],
                ser,
                "{routing:?}: back to back on the ejection link"
            );
        }
        // With one route per pair, each sender's messages arrive in order (FIFO NIC, FIFO link
        // queues); adaptive routing spreads them over paths and may reorder them.
        for s in (0..4u64).filter(|_| routing == Routing::Minimal) {
            let mine: Vec<u64> = {
                let mut m: Vec<_> = got.iter().filter(|d| d.payload >> 8 == s).collect();
                m.sort_by_key(|d| d.delivered);
                m.iter().map(|d| d.payload & 0xff).collect()
            };
            assert_eq!(
                mine,
                (0..50).collect::<Vec<_>>(),
                "{routing:?}: sender {s} in order"
            );
        }
        let Some(Lp::Fabric(fabric)) = sim.lps().next() else {
            panic!("the path model's LP 0 is the fabric");
        };
        assert_eq!(fabric.waiting_packets(), 0, "the fabric drained");
        let (edge, stats) = fabric
            .router_stats()
            .find(|(r, _)| Some(*r) == net.topology().router_of(0))
            .expect("terminal 0's edge switch");
        let port = usize::from(net.topology().attachment(0).expect("attached").port);
        assert_eq!(stats.links[port].bytes, 200 * packet, "router {edge}");
        assert_eq!(stats.links[port].packets, 200);
        assert_eq!(stats.links[port].busy, 200 * ser);
    }
}

/// Uniform random traffic with contention: the same deliveries on 1, 2, 3 and 4 threads.
#[test]
fn deliveries_are_identical_for_any_thread_count() {
    let (topology, routing, _) = sample_topologies().swap_remove(1); // dragonfly, UGAL
    let net = path_net(topology, routing);
    let n = net.terminals() as u64;
    let scripts: Vec<Vec<Msg>> = (0..n)
        .map(|t| {
            (0..8)
                .map(|i| Msg {
                    at: i * US / 4,
                    dst: ((t * 7 + i * 13 + 1) % n) as u32,
                    bytes: 300 + 700 * (i % 3),
                    payload: t << 8 | i,
                })
                .collect()
        })
        .collect();
    let key = |d: &bbsim_topology::Delivered<u64>| {
        (d.payload, d.delivered, d.route.hops, d.route.nonminimal)
    };
    let mut reference: Option<Vec<_>> = None;
    for threads in 1..=4 {
        let mut sim = build(&net, scripts.clone(), 11);
        let mut got: Vec<_> = run(&mut sim, threads).iter().map(key).collect();
        got.sort_unstable();
        assert_eq!(got.len(), (n * 8) as usize);
        match &reference {
            None => reference = Some(got),
            Some(r) => assert_eq!(&got, r, "{threads} threads"),
        }
    }
}

/// A busy link serves its inputs round robin, as a router's arbiter does: two terminals flood
/// terminal 0 through their shared edge switch, and a third sends one packet a little later.
/// FIFO service would make it wait behind every packet queued before it (about four); round
/// robin serves it after at most one packet per other input.
#[test]
fn a_busy_link_serves_its_inputs_round_robin() {
    let net = path_net(fat_tree(), Routing::Minimal);
    let packet = u64::from(net.params().packet_size);
    let ser = serialisation(packet, BW);
    for t in [1u32, 2, 3] {
        assert_eq!(
            net.hop_distance(t, 0),
            Some(1),
            "terminal {t} shares 0's edge switch"
        );
    }
    let flood = |payload: u64| -> Vec<Msg> {
        (0..4)
            .map(|i| Msg {
                at: 0,
                dst: 0,
                bytes: packet,
                payload: payload + i,
            })
            .collect()
    };
    let mut scripts = vec![Vec::new(); net.terminals() as usize];
    scripts[1] = flood(10);
    scripts[3] = flood(30);
    scripts[2] = vec![Msg {
        at: 2 * ser,
        dst: 0,
        bytes: packet,
        payload: 20,
    }];
    let mut sim = build(&net, scripts, 1);
    let got = run(&mut sim, 1);
    assert_eq!(got.len(), 9);
    let late = got.iter().find(|d| d.payload == 20).expect("delivered");
    // One router: terminal link latency twice, one router delay, one serialisation.
    let (l, d) = (common::UNIFORM.1, common::UNIFORM.2);
    let zero_load = 2 * l + d + ser;
    let waited = late.latency - zero_load;
    assert!(
        waited <= 2 * ser,
        "waited {waited} ps, {:.1} packet times: not round robin",
        waited as f64 / ser as f64
    );
}
