//! Topology construction: counts, diameter and bisection against closed forms, hop distances,
//! extra-terminal placement, the reference systems, and configuration errors.

use crate::common::link;
use bbsim_engine::time::NS;
use bbsim_topology::metrics::max_flow;
use bbsim_topology::{
    AriesConfig, DragonflyConfig, ExtraTerminals, FatTreeConfig, LinkClass, LinkParams,
    NetworkConfig, Placement, Routing, Topology, TopologyConfig, TorusConfig,
};

fn fat_tree(levels: u8, radix: u32, terminals: u32, taper: u32) -> TopologyConfig {
    TopologyConfig::FatTree(FatTreeConfig {
        levels,
        radix,
        terminals,
        taper,
        terminal: link(),
        link: link(),
    })
}

fn dragonfly(a: u32, p: u32, h: u32, g: u32) -> TopologyConfig {
    TopologyConfig::Dragonfly(DragonflyConfig {
        a,
        p,
        h,
        g,
        terminals: None,
        terminal: link(),
        local: link(),
        global: LinkParams::new(5_000_000_000, 200 * NS),
    })
}

fn aries(rows: u32, cols: u32, h: u32, groups: u32) -> TopologyConfig {
    TopologyConfig::Aries(AriesConfig {
        rows,
        cols,
        terminals_per_router: 4,
        h,
        groups,
        terminals: None,
        terminal: link(),
        local: link(),
        global: LinkParams::new(5_000_000_000, 200 * NS),
    })
}

fn torus(dims: &[u32], p: u32) -> TopologyConfig {
    TopologyConfig::Torus(TorusConfig {
        dims: dims.to_vec(),
        terminals_per_router: p,
        terminals: None,
        terminal: link(),
        link: link(),
    })
}

fn build(cfg: &TopologyConfig) -> Topology {
    Topology::build(cfg, &[]).expect("valid topology")
}

/// Max-flow between the routers hosting the first and the second half of the terminals.
fn measured_bisection(t: &Topology) -> u64 {
    let n = t.compute_terminals().end;
    let mut a: Vec<u32> = (0..n / 2).filter_map(|x| t.router_of(x)).collect();
    let mut b: Vec<u32> = (n / 2..n).filter_map(|x| t.router_of(x)).collect();
    a.dedup();
    b.dedup();
    assert!(
        a.iter().all(|r| !b.contains(r)),
        "halves must not share a router"
    );
    max_flow(t.wiring(), &a, &b)
}

const B: f64 = 12.5e9;

#[test]
fn full_three_level_fat_trees_match_closed_forms() {
    for k in [4u32, 6, 8] {
        let t = build(&fat_tree(3, k, k * k * k / 4, 1));
        let s = t.summary();
        assert_eq!(s.routers, 5 * k * k / 4, "k={k}: 5k^2/4 switches");
        assert_eq!(s.terminals, k * k * k / 4);
        assert_eq!(
            s.router_links,
            u64::from(k * k * k / 2),
            "k^3/4 edge-agg + k^3/4 agg-core"
        );
        assert_eq!(
            t.wiring().links_of(LinkClass::EdgeAgg),
            u64::from(k * k * k / 4)
        );
        assert_eq!(s.diameter, 4);
        let closed = f64::from(k * k * k / 8) * B; // terminals / 2 x B
        assert_eq!(s.bisection_bandwidth, closed, "k={k}");
        assert_eq!(
            measured_bisection(&t) as f64,
            closed,
            "k={k}: max-flow agrees"
        );
        // Every switch uses exactly k ports in a full tree.
        for r in 0..t.routers() {
            assert_eq!(t.ports(r).len() as u32, k, "router {r}");
        }
    }
}

#[test]
fn tapered_fat_tree_halves_the_up_links_and_the_bisection() {
    let full = build(&fat_tree(3, 8, 128, 1));
    let tapered = build(&fat_tree(3, 8, 128, 2));
    let s = tapered.summary();
    // 32 edge switches, 8 pods x 2 aggregation switches, 2 x 4 core switches.
    assert_eq!(s.routers, 32 + 16 + 8);
    assert_eq!(tapered.wiring().links_of(LinkClass::EdgeAgg), 32 * 2);
    assert_eq!(tapered.wiring().links_of(LinkClass::AggCore), 16 * 4);
    assert_eq!(s.bisection_bandwidth, full.bisection_bandwidth() / 2.0);
    assert_eq!(measured_bisection(&tapered) as f64, s.bisection_bandwidth);
    assert_eq!(s.diameter, 4);
}

#[test]
fn two_level_and_partial_fat_trees() {
    let t = build(&fat_tree(2, 8, 32, 1));
    let s = t.summary();
    assert_eq!(
        (s.routers, s.terminals, s.router_links, s.diameter),
        (12, 32, 32, 2)
    );
    assert_eq!(s.bisection_bandwidth, 16.0 * B);
    assert_eq!(measured_bisection(&t), 16 * 12_500_000_000);
    // 40 terminals on k = 8: 10 edge switches in 3 pods, 12 aggregation, 16 core switches.
    let t = build(&fat_tree(3, 8, 40, 1));
    assert_eq!(t.routers(), 10 + 12 + 16);
    assert_eq!(t.terminals(), 40);
    assert_eq!(t.hop_distance(0, 3), Some(1));
    assert_eq!(t.hop_distance(0, 4), Some(3));
    assert_eq!(t.hop_distance(0, 39), Some(5));
    assert_eq!(t.diameter(), 4);
    // One pod only: diameter 2.
    assert_eq!(build(&fat_tree(3, 8, 16, 1)).diameter(), 2);
}

#[test]
fn canonical_dragonfly_matches_closed_forms() {
    // Kim's maximal dragonfly: g = a*h + 1, one global link per pair of groups.
    let (a, p, h) = (4u32, 2u32, 2u32);
    let g = a * h + 1;
    let t = build(&dragonfly(a, p, h, g));
    let s = t.summary();
    assert_eq!(s.routers, a * g);
    assert_eq!(s.terminals, a * p * g);
    assert_eq!(
        t.wiring().links_of(LinkClass::Local),
        u64::from(g * a * (a - 1) / 2)
    );
    assert_eq!(
        t.wiring().links_of(LinkClass::Global),
        u64::from(g * (g - 1) / 2)
    );
    assert_eq!(s.diameter, 3, "local, global, local");
    // Every router has p + (a-1) + h ports, all used.
    for r in 0..t.routers() {
        assert_eq!(t.ports(r).len() as u32, p + a - 1 + h);
    }
    // floor(g/2) * ceil(g/2) global links cross the group bisection.
    assert_eq!(
        s.bisection_bandwidth,
        f64::from((g / 2) * g.div_ceil(2)) * 5e9
    );

    // Even g: the group bisection is a terminal bisection; max-flow agrees.
    let t = build(&dragonfly(4, 2, 2, 8));
    assert_eq!(t.bisection_bandwidth(), 16.0 * 5e9);
    assert_eq!(measured_bisection(&t), 16 * 5_000_000_000);

    // The 1,056-node benchmark system.
    let t = build(&TopologyConfig::Dragonfly(DragonflyConfig::kim_1056()));
    let s = t.summary();
    assert_eq!((s.routers, s.terminals), (264, 1056));
    assert_eq!(t.wiring().links_of(LinkClass::Local), 33 * 28);
    assert_eq!(t.wiring().links_of(LinkClass::Global), 33 * 32 / 2);
    assert_eq!(s.diameter, 3);
}

#[test]
fn dragonfly_hop_distances() {
    let t = build(&dragonfly(4, 2, 2, 9));
    assert_eq!(t.hop_distance(0, 1), Some(1), "same router");
    assert_eq!(t.hop_distance(0, 2), Some(2), "same group");
    // Router 0 of group 0 owns slots 0, 1: links to groups 1 and 2.
    assert_eq!(t.hop_distance(0, 8), Some(4).min(t.hop_distance(0, 8)));
    let mut max = 0;
    for b in 0..t.terminals() {
        let h = t.hop_distance(0, b).unwrap();
        assert!(
            (1..=4).contains(&h),
            "minimal routes visit at most 4 routers: {h}"
        );
        max = max.max(h);
    }
    assert_eq!(max, 4);
    assert_eq!(t.hop_distance(0, 10_000), None);
}

#[test]
fn dragonfly_hop_table_gives_every_minimal_route_of_the_shape() {
    // The topology looks dragonfly routes up in a table by group offset and local routers;
    // it must give what scanning the global links between the two groups gives, for every
    // pair of routers, on a canonical dragonfly and on Aries shapes with several links per
    // pair of groups, some of them landing on one router, and more rows than columns.
    for cfg in [
        dragonfly(4, 2, 2, 9),
        dragonfly(4, 2, 2, 5),
        aries(2, 3, 1, 7),
        aries(2, 4, 2, 5),
        aries(3, 4, 2, 6),
        aries(4, 3, 3, 4),
    ] {
        let t = build(&cfg);
        let bbsim_topology::Shape::Dragonfly(shape) = t.shape() else {
            panic!("a dragonfly shape");
        };
        let table = bbsim_topology::dragonfly::HopTable::new(shape).expect("a small table");
        let routers = shape.routers();
        for a in 0..routers {
            for b in 0..routers {
                let h = shape.hops(a, b);
                assert_eq!(table.hops(a, b), h, "{cfg:?}: {a} -> {b}");
                assert_eq!(t.router_hops(a, b), h, "{cfg:?}: {a} -> {b}");
            }
        }
    }
}

#[test]
fn aries_dragonfly_matches_closed_forms() {
    // 2 x 3 routers per group, h = 1: 6 slots, g = 7 gives one link per pair of groups.
    let (rows, cols, h, g) = (2u32, 3u32, 1u32, 7u32);
    let t = build(&aries(rows, cols, h, g));
    let s = t.summary();
    assert_eq!(s.routers, rows * cols * g);
    assert_eq!(s.terminals, 4 * rows * cols * g);
    assert_eq!(
        t.wiring().links_of(LinkClass::Row),
        u64::from(g * rows * cols * (cols - 1) / 2)
    );
    assert_eq!(
        t.wiring().links_of(LinkClass::Column),
        u64::from(g * cols * rows * (rows - 1) / 2)
    );
    assert_eq!(
        t.wiring().links_of(LinkClass::Global),
        u64::from(g * (g - 1) / 2)
    );
    // Minimal routes: row, column, global, row, column = at most 5 links, 6 routers.
    let max_hops = (0..t.terminals())
        .map(|b| t.hop_distance(0, b).unwrap())
        .max();
    assert!(max_hops <= Some(6));
    assert!(s.diameter <= 5 && s.diameter >= 3, "{}", s.diameter);
    assert_eq!(
        s.bisection_bandwidth,
        f64::from((g / 2) * g.div_ceil(2)) * 5e9
    );
    assert_eq!(t.hop_distance(0, 4), Some(2), "neighbour in the row");
    assert_eq!(
        t.hop_distance(0, 4 * 4),
        Some(3),
        "other row and column: row then column"
    );
}

#[test]
fn edison_like_aries_builds() {
    let t = build(&TopologyConfig::Aries(AriesConfig::edison()));
    assert_eq!(t.terminals(), 5_760);
    assert_eq!(t.routers(), 1_440);
    // Per group: 6 rows x C(16,2) row links + 16 columns x C(6,2) column links.
    assert_eq!(t.wiring().links_of(LinkClass::Row), 15 * 6 * 120);
    assert_eq!(t.wiring().links_of(LinkClass::Column), 15 * 16 * 15);
    // 960 slots per group over 14 offsets: 68 links per offset, 69 for offsets 7 and 8
    // (whose partner slots also exist): 954 links per group, each counted from both ends.
    assert_eq!(t.wiring().links_of(LinkClass::Global), 15 * 954 / 2);
}

/// The diameter by one breadth-first search per router that hosts terminals, as the
/// definition reads: the largest finite distance between two such routers.
fn diameter_one_source_at_a_time(t: &Topology) -> u32 {
    use bbsim_topology::graph::Node;
    use petgraph::graph::NodeIndex;
    let w = t.wiring();
    let routers = w.routers() as usize;
    let mut hosts = vec![false; routers];
    for a in &w.terminals {
        hosts[a.router as usize] = true;
    }
    let mut best = 0;
    for src in (0..routers).filter(|&r| hosts[r]) {
        let mut dist = vec![u32::MAX; routers];
        dist[src] = 0;
        let mut queue = std::collections::VecDeque::from([src]);
        while let Some(u) = queue.pop_front() {
            for n in w.graph.neighbors(NodeIndex::new(u)) {
                if let Node::Router(v) = w.graph[n] {
                    if dist[v as usize] == u32::MAX {
                        dist[v as usize] = dist[u] + 1;
                        queue.push_back(v as usize);
                    }
                }
            }
        }
        for r in (0..routers).filter(|&r| hosts[r] && dist[r] != u32::MAX) {
            best = best.max(dist[r]);
        }
    }
    best
}

#[test]
fn diameter_is_the_longest_distance_between_routers_with_terminals() {
    // The summary's diameter searches from 64 routers at once; it must equal one search per
    // router on every shape, with more than 64 routers (several batches), with routers
    // without terminals (a fat-tree's upper levels) and with a lone pod.
    for cfg in [
        fat_tree(3, 8, 128, 1),
        fat_tree(3, 8, 128, 2),
        fat_tree(3, 8, 16, 1),
        fat_tree(2, 36, 648, 1),
        dragonfly(4, 2, 2, 9),
        aries(2, 4, 2, 5),
        TopologyConfig::Aries(AriesConfig::edison()),
        torus(&[4, 4, 4], 1),
        torus(&[8, 5, 3], 2),
    ] {
        let t = build(&cfg);
        assert_eq!(t.diameter(), diameter_one_source_at_a_time(&t), "{cfg:?}");
    }
}

#[test]
fn torus_matches_closed_forms() {
    let t = build(&torus(&[4, 4, 4], 1));
    let s = t.summary();
    assert_eq!((s.routers, s.terminals), (64, 64));
    assert_eq!(s.router_links, 64 * 3, "N x n links");
    assert_eq!(s.diameter, 6, "sum of floor(k/2)");
    assert_eq!(s.bisection_bandwidth, 2.0 * 16.0 * B, "2 N / k links");
    assert_eq!(measured_bisection(&t) as f64, s.bisection_bandwidth);
    let t = build(&torus(&[2, 3, 5], 2));
    let s = t.summary();
    assert_eq!((s.routers, s.terminals, s.router_links), (30, 60, 90));
    assert_eq!(s.diameter, 1 + 1 + 2);
    assert_eq!(t.hop_distance(0, 1), Some(1));
    assert_eq!(t.hop_distance(0, 2), Some(2));
    // Router (1, 2, 4) is 1 + 1 + 1 hops from the origin (wrap-around).
    let r = 1 + 2 * 2 + 4 * 6;
    assert_eq!(t.hop_distance(0, 2 * r), Some(4));
}

#[test]
fn summit_like_fat_trees_build() {
    let t = build(&TopologyConfig::FatTree(FatTreeConfig::summit()));
    assert_eq!(t.terminals(), 4_860);
    // 270 edge switches in 15 pods, 15 x 18 aggregation and 18 x 18 core switches.
    assert_eq!(t.routers(), 270 + 270 + 324);
    assert_eq!(t.bisection_bandwidth(), 18.0 * 18.0 * 7.0 * 25e9);
    let tapered = build(&TopologyConfig::FatTree(FatTreeConfig::summit_tapered()));
    assert_eq!(tapered.routers(), 270 + 135 + 162);
    assert_eq!(tapered.wiring().links_of(LinkClass::EdgeAgg), 270 * 9);
    assert_eq!(tapered.bisection_bandwidth(), t.bisection_bandwidth() / 2.0);
}

fn extra(name: &str, placement: Placement) -> ExtraTerminals {
    ExtraTerminals {
        name: name.into(),
        placement,
        link: None,
    }
}

#[test]
fn extra_terminals_on_fat_trees() {
    let cfg = TopologyConfig::FatTree(FatTreeConfig::summit());
    // Grouped BB: one server per edge switch.
    let grouped = Topology::build(
        &cfg,
        &[extra("bb", Placement::PerRouter { every: 1, count: 1 })],
    )
    .expect("builds");
    let bb = grouped.extra("bb").expect("named");
    assert_eq!(bb, 4_860..5_130);
    let mut edges: Vec<u32> = bb.clone().map(|t| grouped.router_of(t).unwrap()).collect();
    edges.dedup();
    assert_eq!(edges, (0..270).collect::<Vec<_>>());
    assert_eq!(
        grouped.hop_distance(0, 4_860),
        Some(1),
        "the server on my edge switch"
    );
    // Global BB: 15 dedicated edge switches of 18 servers (a 16th pod), plus PFS I/O nodes.
    let global = Topology::build(
        &cfg,
        &[
            extra(
                "bb",
                Placement::Dedicated {
                    routers: 15,
                    per_router: 18,
                },
            ),
            extra(
                "pfs",
                Placement::DedicatedGroups {
                    groups: 1,
                    per_router: 2,
                },
            ),
        ],
    )
    .expect("builds");
    assert_eq!(global.extra("bb"), Some(4_860..5_130));
    assert_eq!(global.extra("pfs"), Some(5_130..5_130 + 36));
    let r = global.router_of(4_860).unwrap();
    assert_eq!(
        r, 270,
        "first dedicated edge switch follows the compute ones"
    );
    assert_eq!(global.hop_distance(0, 4_860), Some(5));
    // 270 + 15 + 3 padding + 18 edge switches = 17 pods.
    assert_eq!(global.routers(), 306 + 17 * 18 + 324);
    for t in global.extra("bb").unwrap() {
        let r = global.router_of(t).unwrap();
        assert!((270..285).contains(&r));
    }
}

#[test]
fn extra_terminals_on_dragonflies() {
    let mut cfg = AriesConfig::edison();
    cfg.groups = 17;
    cfg.terminals = Some(5_760);
    let cfg = TopologyConfig::Aries(cfg);
    // Grouped BB: one server per 2 blades (routers) that host compute nodes.
    let t = Topology::build(
        &cfg,
        &[extra("bb", Placement::PerRouter { every: 2, count: 1 })],
    )
    .expect("builds");
    assert_eq!(t.extra("bb").map(|r| r.len()), Some(720));
    assert_eq!(t.router_of(5_760), Some(0));
    assert_eq!(t.router_of(5_761), Some(2));
    assert_eq!(t.ports(0).len(), 4 + 15 + 5 + 10 + 1, "one extra port");
    // Global BB: 180 dedicated blades of 4 servers on routers without compute nodes.
    let t = Topology::build(
        &cfg,
        &[extra(
            "bb",
            Placement::Dedicated {
                routers: 180,
                per_router: 4,
            },
        )],
    )
    .expect("builds");
    let bb = t.extra("bb").unwrap();
    assert_eq!(bb.len(), 720);
    assert_eq!(t.router_of(bb.start), Some(1_440));
    assert_eq!(
        t.ports(1_440).len(),
        34,
        "dedicated blades reuse their terminal ports"
    );
    // A dedicated group: the 17th group.
    let t = Topology::build(
        &cfg,
        &[extra(
            "io",
            Placement::DedicatedGroups {
                groups: 1,
                per_router: 1,
            },
        )],
    )
    .expect("builds");
    let io = t.extra("io").unwrap();
    assert_eq!(io.len(), 96);
    assert_eq!(
        t.router_of(io.start),
        Some(15 * 96),
        "groups 0-14 hold compute nodes"
    );
    // Explicit routers, with their own link.
    let mut e = extra(
        "x",
        Placement::Routers {
            routers: vec![3, 5],
            per_router: 2,
        },
    );
    e.link = Some(LinkParams::new(1_000, 1));
    let t = Topology::build(&cfg, &[e]).expect("builds");
    let x = t.extra("x").unwrap();
    assert_eq!(x.len(), 4);
    assert_eq!(t.attachment(x.start).unwrap().link.bandwidth, 1_000);
}

fn err(cfg: &TopologyConfig, extras: &[ExtraTerminals]) -> String {
    Topology::build(cfg, extras)
        .expect_err("must be rejected")
        .to_string()
}

#[test]
fn bad_configurations_are_named_errors() {
    let e = err(&fat_tree(3, 7, 10, 1), &[]);
    assert!(e.contains("fat_tree.radix") && e.contains("even"), "{e}");
    let e = err(&fat_tree(3, 2, 1, 1), &[]);
    assert!(e.contains("fat_tree.radix"), "{e}");
    let e = err(&fat_tree(4, 8, 10, 1), &[]);
    assert!(e.contains("fat_tree.levels"), "{e}");
    let e = err(&fat_tree(3, 8, 129, 1), &[]);
    assert!(e.contains("fat_tree.terminals") && e.contains("128"), "{e}");
    let e = err(&fat_tree(2, 8, 33, 1), &[]);
    assert!(e.contains("at most 32"), "{e}");
    let e = err(&fat_tree(3, 8, 100, 3), &[]);
    assert!(e.contains("fat_tree.taper") && e.contains("divisor"), "{e}");
    let e = err(&fat_tree(3, 8, 0, 1), &[]);
    assert!(e.contains("fat_tree.terminals"), "{e}");
    let mut c = FatTreeConfig::summit();
    c.link.bandwidth = 0;
    let e = err(&TopologyConfig::FatTree(c), &[]);
    assert!(e.contains("fat_tree.link.bandwidth"), "{e}");
    let e = err(&dragonfly(4, 2, 2, 10), &[]);
    assert!(e.contains("dragonfly.g") && e.contains("9"), "{e}");
    let e = err(&dragonfly(0, 2, 2, 1), &[]);
    assert!(e.contains("dragonfly.a"), "{e}");
    let e = err(&dragonfly(4, 2, 0, 3), &[]);
    assert!(e.contains("dragonfly.h"), "{e}");
    let mut c = DragonflyConfig::kim_1056();
    c.terminals = Some(2_000);
    let e = err(&TopologyConfig::Dragonfly(c), &[]);
    assert!(
        e.contains("dragonfly.terminals") && e.contains("1056"),
        "{e}"
    );
    let e = err(&aries(0, 3, 1, 2), &[]);
    assert!(e.contains("aries.rows"), "{e}");
    let e = err(&torus(&[4, 1], 1), &[]);
    assert!(e.contains("torus.dims[1]"), "{e}");
    let e = err(&torus(&[], 1), &[]);
    assert!(e.contains("torus.dims"), "{e}");
    let mut c = TorusConfig {
        dims: vec![4],
        terminals_per_router: 1,
        terminals: None,
        terminal: link(),
        link: link(),
    };
    c.terminal.latency = 0;
    let e = err(&TopologyConfig::Torus(c), &[]);
    assert!(e.contains("torus.terminal.latency"), "{e}");
    // Placements.
    let full = TopologyConfig::Aries(AriesConfig::edison());
    let e = err(
        &full,
        &[extra(
            "bb",
            Placement::Dedicated {
                routers: 180,
                per_router: 4,
            },
        )],
    );
    assert!(
        e.contains("extra.bb.routers") && e.contains("at most 0"),
        "{e}"
    );
    let e = err(
        &full,
        &[extra(
            "bb",
            Placement::DedicatedGroups {
                groups: 1,
                per_router: 1,
            },
        )],
    );
    assert!(e.contains("extra.bb.groups"), "{e}");
    let e = err(
        &torus(&[4], 1),
        &[extra(
            "bb",
            Placement::DedicatedGroups {
                groups: 1,
                per_router: 1,
            },
        )],
    );
    assert!(e.contains("groups"), "{e}");
    let e = err(
        &fat_tree(3, 8, 128, 1),
        &[extra(
            "bb",
            Placement::Dedicated {
                routers: 1,
                per_router: 1,
            },
        )],
    );
    assert!(
        e.contains("extra.bb.placement") && e.contains("32 edge switches"),
        "{e}"
    );
    let e = err(
        &fat_tree(3, 8, 16, 1),
        &[extra(
            "bb",
            Placement::Routers {
                routers: vec![40],
                per_router: 1,
            },
        )],
    );
    assert!(e.contains("extra.bb.routers"), "{e}");
    let e = err(
        &fat_tree(3, 8, 16, 1),
        &[extra("bb", Placement::PerRouter { every: 0, count: 1 })],
    );
    assert!(e.contains("extra.bb.every"), "{e}");
    let twice = [
        extra("bb", Placement::PerRouter { every: 1, count: 1 }),
        extra("bb", Placement::PerRouter { every: 1, count: 1 }),
    ];
    assert!(err(&fat_tree(3, 8, 16, 1), &twice).contains("unique"));
    // Routing must suit the topology; packet parameters must be positive.
    let e = NetworkConfig::new(fat_tree(3, 8, 16, 1), Routing::Valiant)
        .build()
        .unwrap_err();
    assert!(
        e.to_string().contains("routing") && e.to_string().contains("fat-tree"),
        "{e}"
    );
    let e = NetworkConfig::new(torus(&[4], 1), Routing::Ugal)
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("dimension-order"), "{e}");
    let mut c = NetworkConfig::new(torus(&[4], 1), Routing::DimensionOrder);
    c.packet_size = 0;
    assert!(c.build().unwrap_err().to_string().contains("packet_size"));
    let mut c = NetworkConfig::new(torus(&[4], 1), Routing::DimensionOrder);
    c.vcs = Some(3);
    let e = c.build().unwrap_err().to_string();
    assert!(e.contains("vcs") && e.contains("expected 2"), "{e}");
    let mut c = NetworkConfig::new(fat_tree(3, 8, 16, 1), Routing::Adaptive);
    c.vcs = Some(0);
    assert!(c.build().unwrap_err().to_string().contains("vcs"));
    c.vcs = Some(1);
    assert_eq!(c.build().unwrap().params().vcs, 1);
    let mut c = NetworkConfig::new(torus(&[4], 1), Routing::DimensionOrder);
    c.buffer_packets = 0;
    assert!(c
        .build()
        .unwrap_err()
        .to_string()
        .contains("buffer_packets"));
}

#[test]
fn configs_deserialise_from_json() {
    let json = r#"{
        "topology": {"kind": "fat-tree", "levels": 3, "radix": 8, "terminals": 64,
                     "terminal": {"bandwidth": 12500000000, "latency": 100000},
                     "link": {"bandwidth": 12500000000, "latency": 100000}},
        "routing": "adaptive",
        "extras": [{"name": "bb", "placement": {"kind": "per-router"}}]
    }"#;
    let cfg: NetworkConfig = serde_json::from_str(json).expect("parses");
    assert_eq!(
        cfg.packet_size,
        bbsim_topology::network::DEFAULT_PACKET_SIZE
    );
    assert_eq!(cfg.router_delay, 90 * NS);
    let net = cfg.build().expect("builds");
    assert_eq!(net.terminals(), 64 + 16);
    assert_eq!(net.params().vcs, 4, "fat-trees default to 4 lanes");
}
