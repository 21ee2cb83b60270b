//! Why input-buffer heads wait: behind a busy output port, or for downstream credit.

use crate::common::{build, fat_tree_16, net, run, Lp, Msg};
use bbsim_engine::time::US;
use bbsim_topology::link::{serialisation, LinkClass};
use bbsim_topology::stats::NetworkStats;
use bbsim_topology::{HeadWaits, Network, RouterStats, Routing};

/// Runs `scripts` and sums the routers' head waits.
fn waits(n: &Network, scripts: Vec<Vec<Msg>>) -> HeadWaits {
    let mut sim = build(n, scripts, 5);
    run(&mut sim, 1);
    let mut total = HeadWaits::default();
    for lp in sim.lps() {
        if let Lp::Router(r) = lp {
            for w in &r.stats().head_waits {
                total.add(w);
            }
        }
    }
    total
}

fn msg(dst: u32, bytes: u64) -> Vec<Msg> {
    vec![Msg {
        at: 0,
        dst,
        bytes,
        payload: 0,
    }]
}

#[test]
fn a_packet_behind_another_waits_one_serialisation_for_a_busy_port() {
    // Terminals 0 and 1 share an edge switch; with deterministic routing their one-packet
    // messages to terminal 15 take the same up-port. Both heads are routed at the same time;
    // one leaves, the other waits exactly one 512 B serialisation for the busy port and then
    // follows it back to back, so nothing else waits anywhere.
    let n = net(fat_tree_16(), Routing::Deterministic)
        .build()
        .expect("builds");
    let w = waits(&n, vec![msg(15, 512), msg(15, 512)]);
    let ser = serialisation(512, 12_500_000_000);
    assert_eq!(
        w,
        HeadWaits {
            busy: 1,
            busy_ps: ser,
            no_credit: 0,
            no_credit_ps: 0,
        }
    );
    // One message alone never waits.
    let alone = waits(&n, vec![msg(15, 512)]);
    assert_eq!(alone, HeadWaits::default());
}

#[test]
fn head_waits_are_reported_by_the_class_of_the_port_waited_for() {
    // The same two packets: the one wait is for an edge switch's up-port, so the edge-to-
    // aggregation class carries it and every other class has none.
    let n = net(fat_tree_16(), Routing::Deterministic)
        .build()
        .expect("builds");
    let mut sim = build(&n, vec![msg(15, 512), msg(15, 512)], 5);
    run(&mut sim, 1);
    let routers: Vec<(u32, &RouterStats)> = sim
        .lps()
        .filter_map(|lp| match lp {
            Lp::Router(r) => Some((r.id(), r.stats())),
            _ => None,
        })
        .collect();
    let stats = NetworkStats::collect(n.topology(), routers, [], 1);
    let ser = serialisation(512, 12_500_000_000);
    for c in &stats.classes {
        let expected = if c.class == LinkClass::EdgeAgg {
            HeadWaits {
                busy: 1,
                busy_ps: ser,
                ..HeadWaits::default()
            }
        } else {
            HeadWaits::default()
        };
        assert_eq!(c.head_waits, expected, "{:?}", c.class);
    }
    assert_eq!(stats.head_waits.busy, 1);
}

#[test]
fn an_incast_into_small_buffers_waits_for_credit() {
    // Fifteen terminals send 64 KiB each to terminal 0 through one-packet buffers: the
    // destination's ejection port is the bottleneck and the buffers before it fill, so heads
    // wait for credit as well as behind busy ports, for a good part of the 15 x 64 KiB drain.
    let mut cfg = net(fat_tree_16(), Routing::Adaptive);
    cfg.buffer_packets = 1;
    let n = cfg.build().expect("builds");
    let scripts = (0..16).map(|s| if s == 0 { Vec::new() } else { msg(0, 65_536) });
    let w = waits(&n, scripts.collect());
    assert!(w.busy > 0 && w.no_credit > 0, "{w:?}");
    assert!(w.no_credit_ps > 10 * US, "{w:?}");
}
