//! Round-robin output arbitration: many inputs competing for one output port share it packet by
//! packet, whatever their position in the router's input-VC order (more than 64 input VCs, so
//! the port's request mask spans several words and the round-robin pointer wraps).

use crate::common::{build, link, net, run, Msg, UNIFORM};
use bbsim_engine::time::NS;
use bbsim_topology::link::serialisation;
use bbsim_topology::{Delivered, Network, Routing, TopologyConfig, TorusConfig};

/// Terminals on each router of the test ring.
const PER_ROUTER: u32 = 70;

/// Packets per message of the ring's senders.
const K: u64 = 40;
/// The test ring's packet size.
const PACKET: u64 = 512;

/// A ring of 3 routers with [`PER_ROUTER`] terminals each; every other terminal of router 0
/// sends [`K`] packets at once to terminal 0 (same router), so all of them queue for its
/// ejection port. `grant_block`: the grant-block variant. Returns the deliveries.
fn many_into_one(grant_block: Option<u32>) -> Vec<Delivered<u64>> {
    let cfg = TopologyConfig::Torus(TorusConfig {
        dims: vec![3],
        terminals_per_router: PER_ROUTER,
        terminals: None,
        terminal: link(),
        link: link(),
    });
    let mut cfg = net(cfg, Routing::DimensionOrder);
    cfg.grant_block = grant_block;
    let net: Network = cfg.build().expect("builds");
    let mut scripts = vec![Vec::new(); (3 * PER_ROUTER) as usize];
    for s in 1..PER_ROUTER {
        scripts[s as usize] = vec![Msg {
            at: 0,
            dst: 0,
            bytes: K * PACKET,
            payload: u64::from(s),
        }];
    }
    let mut sim = build(&net, scripts, 1);
    run(&mut sim, 1)
}

#[test]
fn one_output_is_shared_packet_by_packet_among_many_inputs() {
    let (k, packet, senders) = (K, PACKET, PER_ROUTER - 1);
    let got = many_into_one(None);
    assert_eq!(got.len() as u32, senders);
    let (bw, latency, _) = UNIFORM;
    let ser = serialisation(packet, bw);
    let first = got.iter().map(|d| d.delivered).min().unwrap();
    let last = got.iter().map(|d| d.delivered).max().unwrap();
    // The ejection link is busy from the first packet to the last: k packets per sender.
    let total = u64::from(senders) * k * ser;
    assert!(
        last >= total && last <= total + 4 * (latency + 90 * NS + ser),
        "the ejection link stays busy: last delivery at {last} ps, {total} ps of packets"
    );
    // Round-robin: every sender's last packet leaves in the last round, so all messages end
    // within one round of each other. A fixed-priority arbiter would spread the ends over the
    // whole burst (sender after sender).
    let round = u64::from(senders) * ser;
    assert!(
        last - first <= round + ser,
        "messages end within one round ({round} ps) of each other: first {first}, last {last}"
    );
    // And in input order within that round, starting where the pointer stood: the ends are
    // one packet apart.
    let mut ends: Vec<u64> = got.iter().map(|d| d.delivered).collect();
    ends.sort_unstable();
    for w in ends.windows(2) {
        assert_eq!(
            w[1] - w[0],
            ser,
            "one packet apart in the last round: {ends:?}"
        );
    }
}

#[test]
fn grant_blocks_serve_a_message_in_bursts() {
    // The grant-block variant with a block of a whole message: the ejection port keeps
    // granting the message it granted while its packets wait, so the messages end one after
    // another, a message's serialisation apart, instead of all within the last round. The
    // port stays as busy: the last delivery is as late as with per-packet round-robin.
    let senders = PER_ROUTER - 1;
    let ser = serialisation(PACKET, UNIFORM.0);
    let per_packet = many_into_one(None);
    let bursts = many_into_one(Some((K * PACKET) as u32));
    assert_eq!(bursts.len() as u32, senders);
    let span = |v: &[Delivered<u64>]| {
        let first = v.iter().map(|d| d.delivered).min().unwrap();
        let last = v.iter().map(|d| d.delivered).max().unwrap();
        (first, last)
    };
    let (first, last) = span(&bursts);
    assert!(
        last - first >= u64::from(senders - 2) * K * ser,
        "messages end one after another: first {first}, last {last}"
    );
    let (_, last_rr) = span(&per_packet);
    assert!(last.abs_diff(last_rr) <= 2 * K * ser, "{last} vs {last_rr}");
    // Bytes and packets are those of the round-robin run.
    let totals = |v: &[Delivered<u64>]| -> (u64, u64) {
        (
            v.iter().map(|d| d.bytes).sum(),
            v.iter().map(|d| u64::from(d.route.packets)).sum(),
        )
    };
    assert_eq!(totals(&bursts), totals(&per_packet));
}
