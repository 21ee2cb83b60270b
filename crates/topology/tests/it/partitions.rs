//! The declared lookaheads hold for any partitioning: with round-robin clusters almost every
//! event crosses clusters, and the results (delivered messages with their times, hops and
//! payloads) stay identical to the sequential reference for every thread count.

use crate::common::{build_partitioned, fat_tree_16, link, net, run, Msg};
use bbsim_engine::time::NS;
use bbsim_engine::{PartitionSpec, Rng};
use bbsim_topology::{AriesConfig, Network, Routing, TopologyConfig, TorusConfig};

fn scripts(net: &Network, per_host: u64, seed: u64) -> Vec<Vec<Msg>> {
    let n = net.topology().compute_terminals().end;
    let mut rng = Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            (0..per_host)
                .map(|i| Msg {
                    at: rng.below(20_000) * NS,
                    dst: rng.below(u64::from(n)) as u32,
                    bytes: 1 + rng.below(3_000),
                    payload: i,
                })
                .collect()
        })
        .collect()
}

#[test]
fn any_partition_and_thread_count_gives_the_same_deliveries() {
    let topologies = [
        (fat_tree_16(), Routing::Adaptive),
        (
            TopologyConfig::Aries(AriesConfig {
                rows: 2,
                cols: 2,
                terminals_per_router: 2,
                h: 1,
                groups: 5,
                terminals: None,
                terminal: link(),
                local: link(),
                global: link(),
            }),
            Routing::Ugal,
        ),
        (
            TopologyConfig::Torus(TorusConfig {
                dims: vec![3, 4],
                terminals_per_router: 1,
                terminals: None,
                terminal: link(),
                link: link(),
            }),
            Routing::DimensionOrder,
        ),
    ];
    for (topology, routing) in topologies {
        let mut cfg = net(topology, routing);
        cfg.buffer_packets = 2;
        let network = cfg.build().unwrap();
        let s = scripts(&network, 30, 9);
        let total: usize = s.iter().map(Vec::len).sum();
        let mut reference = None;
        for partition in [
            PartitionSpec::Auto,
            PartitionSpec::RoundRobin { clusters: 7 },
            PartitionSpec::Contiguous { clusters: 5 },
        ] {
            for threads in [1, 2, 4] {
                let mut sim = build_partitioned(&network, s.clone(), 3, partition.clone());
                let got: Vec<_> = run(&mut sim, threads)
                    .into_iter()
                    .map(|d| {
                        (
                            d.id,
                            d.payload,
                            d.delivered,
                            d.route.hops,
                            d.route.nonminimal,
                            d.bytes,
                        )
                    })
                    .collect();
                assert_eq!(got.len(), total, "every message delivered");
                match &reference {
                    None => reference = Some(got),
                    Some(r) => assert_eq!(r, &got, "{partition:?}, {threads} threads"),
                }
            }
        }
    }
}
