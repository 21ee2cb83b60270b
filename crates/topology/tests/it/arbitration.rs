//! Round-robin output arbitration: many inputs competing for one output port share it packet by
//! packet, whatever their position in the router's input-VC order (more than 64 input VCs, so
//! the port's request mask spans several words and the round-robin pointer wraps).

use crate::common::{build, link, net, run, Msg, UNIFORM};
use bbsim_engine::time::NS;
use bbsim_topology::link::serialisation;
use bbsim_topology::{Network, Routing, TopologyConfig, TorusConfig};

/// Terminals on each router of the test ring.
const PER_ROUTER: u32 = 70;

#[test]
fn one_output_is_shared_packet_by_packet_among_many_inputs() {
    let cfg = TopologyConfig::Torus(TorusConfig {
        dims: vec![3],
        terminals_per_router: PER_ROUTER,
        terminals: None,
        terminal: link(),
        link: link(),
    });
    let net: Network = net(cfg, Routing::DimensionOrder).build().expect("builds");
    // Every other terminal of router 0 sends `k` packets at once to terminal 0 (same router),
    // so all of them queue for its ejection port.
    let k = 40u64;
    let packet = 512u64;
    let senders = PER_ROUTER - 1;
    let mut scripts = vec![Vec::new(); (3 * PER_ROUTER) as usize];
    for s in 1..=senders {
        scripts[s as usize] = vec![Msg {
            at: 0,
            dst: 0,
            bytes: k * packet,
            payload: u64::from(s),
        }];
    }
    let mut sim = build(&net, scripts, 1);
    let got = run(&mut sim, 1);
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
