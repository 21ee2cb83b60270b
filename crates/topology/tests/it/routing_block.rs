//! The routing-block variant of the packet model (`NetworkConfig::routing_block`): each router
//! decides the route of a message's packets once per block, the block's first packet deciding
//! for the rest; every byte still arrives.

use crate::common::{build, fat_tree_16, net, run, Lp, Msg};
use bbsim_topology::{Network, NetworkConfig, Routing};

const KIB: u32 = 1024;

/// The adaptive 16-terminal fat-tree with 4 KiB packets and the given routing block.
fn with_block(block: Option<u32>) -> Network {
    let mut cfg: NetworkConfig = net(fat_tree_16(), Routing::Adaptive);
    cfg.packet_size = 4 * KIB;
    cfg.vc_buffer = Some(64 * KIB);
    cfg.routing_block = block;
    cfg.build().expect("builds")
}

/// Terminal 0 sends one 1 MiB message (256 packets) to terminal 15, in the other pod, at
/// zero load; returns the packet count of every router output that carried any (the
/// terminal ports carry all 256), and the bytes delivered.
fn one_message(n: &Network) -> (Vec<u64>, u64) {
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
    let got = run(&mut sim, 1);
    let mut counts = Vec::new();
    for lp in sim.lps() {
        if let Lp::Router(r) = lp {
            let links = &r.stats().links;
            counts.extend(links.iter().map(|l| l.packets).filter(|&p| p > 0));
        }
    }
    (counts, got.iter().map(|d| d.bytes).sum())
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
fn a_routing_block_must_be_whole_packets() {
    for bad in [1_000, 4 * KIB + 1, 2 * KIB] {
        let mut cfg = net(fat_tree_16(), Routing::Adaptive);
        cfg.packet_size = 4 * KIB;
        cfg.routing_block = Some(bad);
        let e = cfg.build().unwrap_err().to_string();
        assert!(
            e.contains("routing_block") && e.contains("whole number"),
            "{e}"
        );
    }
}
