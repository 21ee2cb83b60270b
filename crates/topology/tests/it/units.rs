//! Units ("trains" of packets): a unit of one packet is the packet model; zero-load latency of
//! units follows the closed form; a unit larger than the downstream buffer splits and still
//! delivers every byte; results do not depend on the thread count; and coarse units save
//! events in proportion to their size.

use crate::common::{self, build, fat_tree_16, incast, link, net, run, Lp, Msg, UNIFORM};
use bbsim_engine::time::{NS, US};
use bbsim_engine::{run_with_threads, Time};
use bbsim_topology::link::serialisation;
use bbsim_topology::{
    AriesConfig, Delivered, DragonflyConfig, FatTreeConfig, LinkParams, Network, NetworkConfig,
    RouterStats, Routing, TopologyConfig,
};

const KIB: u32 = 1024;

/// A 4-group dragonfly (a = 4, p = 2, h = 1): 32 terminals, UGAL.
fn dragonfly_32() -> TopologyConfig {
    TopologyConfig::Dragonfly(DragonflyConfig {
        a: 4,
        p: 2,
        h: 1,
        g: 5,
        terminals: None,
        terminal: link(),
        local: link(),
        global: link(),
    })
}

/// An Aries dragonfly with Edison's channel speeds (8 GB/s terminals, 5.25 GB/s local and
/// 1.5 GB/s global channels) on 2 x 4 routers per group, 2 terminals and 2 global channels per
/// router, 5 groups: 80 terminals, every output of a source router slower than its terminal
/// link, so units spread there.
fn slow_global_aries() -> TopologyConfig {
    TopologyConfig::Aries(AriesConfig {
        rows: 2,
        cols: 4,
        terminals_per_router: 2,
        h: 2,
        groups: 5,
        terminals: None,
        terminal: LinkParams::new(8_000_000_000, 100 * NS),
        local: LinkParams::new(5_250_000_000, 100 * NS),
        global: LinkParams::new(1_500_000_000, 100 * NS),
    })
}

/// The adaptive fat-tree, the UGAL dragonfly and the UGAL Aries with slow global channels the
/// tests run on.
fn adaptive_cases() -> [(TopologyConfig, Routing); 3] {
    [
        (fat_tree_16(), Routing::Adaptive),
        (dragonfly_32(), Routing::Ugal),
        (slow_global_aries(), Routing::Ugal),
    ]
}

/// `cfg` with 4 KiB packets, units of `unit` bytes (`None`: off) and a `vc_buffer`.
fn with_units(mut cfg: NetworkConfig, unit: Option<u32>, vc_buffer: u32) -> Network {
    cfg.packet_size = 4 * KIB;
    cfg.unit_size = unit;
    cfg.vc_buffer = Some(vc_buffer);
    cfg.build().expect("builds")
}

/// Heavy mixed traffic: every terminal sends 6 messages of 1 B to 300 KB (some with a
/// remainder) to a hot terminal and to a spread of others, all at once or nearly.
fn heavy(terminals: u32) -> Vec<Vec<Msg>> {
    (0..terminals)
        .map(|s| {
            (0..6u64)
                .map(|k| Msg {
                    at: k * 3 * US + u64::from(s) * 7 * NS,
                    dst: if k % 2 == 0 {
                        (s + 1 + k as u32 * 5) % terminals
                    } else {
                        terminals - 1 - (s == terminals - 1) as u32
                    },
                    bytes: [1, 4_096, 70_000, 300_000, 131_072, 9_999][k as usize],
                    payload: u64::from(s) << 8 | k,
                })
                .collect()
        })
        .collect()
}

/// Runs `scripts` on `net` with `threads`: deliveries sorted by message, router statistics,
/// events handled.
fn run_all(
    net: &Network,
    scripts: Vec<Vec<Msg>>,
    threads: usize,
) -> (Vec<Delivered<u64>>, Vec<RouterStats>, u64) {
    let mut sim = build(net, scripts, 11);
    let stats = run_with_threads(&mut sim, threads).expect("runs");
    let mut got = Vec::new();
    let mut routers = Vec::new();
    for lp in sim.lps() {
        match lp {
            Lp::Host(h) => got.extend(h.got.iter().cloned()),
            Lp::Router(r) => routers.push(r.stats().clone()),
            _ => {}
        }
    }
    got.sort_by_key(|d| d.id);
    (got, routers, stats.events)
}

#[test]
fn a_unit_of_one_packet_is_the_packet_model() {
    // unit_size = packet_size takes the same path as no units at all: same deliveries (times,
    // hops, routes), same router statistics, same events, on an adaptive fat-tree and a UGAL
    // dragonfly under heavy traffic with full and short buffers.
    for (topo, routing) in adaptive_cases() {
        for buffer in [4 * KIB, 16 * KIB, 64 * KIB] {
            let cfg = net(topo.clone(), routing);
            let off = with_units(cfg.clone(), None, buffer);
            let one = with_units(cfg, Some(4 * KIB), buffer);
            let scripts = heavy(off.terminals());
            let a = run_all(&off, scripts.clone(), 1);
            let b = run_all(&one, scripts, 1);
            assert_eq!(a.0.len(), 6 * off.terminals() as usize);
            assert!(a.1.iter().all(|r| r.splits == 0));
            assert_eq!(a, b, "buffer {buffer}");
        }
    }
}

#[test]
fn zero_load_latency_of_units_on_uniform_links() {
    // On uniform links a unit cuts through as a packet does: latency = h x (L + D) + L + the
    // serialisation of the message in units (every unit but the last is unit_size bytes).
    // The buffers hold two units, so a unit's credit is back (2L + D after it left) before
    // the NIC has sent the next: nothing waits for credit at zero load.
    for unit in [4 * KIB, 64 * KIB, 256 * KIB] {
        let mut cfg = net(fat_tree_16(), Routing::Adaptive);
        cfg.packet_size = 4 * KIB;
        cfg.unit_size = Some(unit);
        cfg.vc_buffer = Some(2 * unit);
        let n = cfg.build().expect("builds");
        common::check_zero_load(
            &n,
            UNIFORM,
            &[(0, 1), (0, 2), (0, 15), (9, 4)],
            &[1, 4_096, 5_000, 65_536, 200_000, 1 << 20],
        );
    }
}

#[test]
fn a_buffer_of_one_unit_streams_units_back_to_back() {
    // The VC buffers hold one unit (and a header), so a unit can follow the one before it into
    // a buffer only on that unit's credit. The credit of a unit of several packets comes back
    // as the packet model's first packet credit would let the sender start again (one packet
    // after the unit started on the next link, on uniform links), so at zero load the units
    // still stream back to back and the closed form holds: had the credit waited for the whole
    // unit to leave, every unit after the first would wait 2L + D + ser(packet) more.
    for unit in [64 * KIB, 256 * KIB] {
        let mut cfg = net(fat_tree_16(), Routing::Adaptive);
        cfg.packet_size = 4 * KIB;
        cfg.unit_size = Some(unit);
        cfg.vc_buffer = Some(unit);
        let n = cfg.build().expect("builds");
        common::check_zero_load(
            &n,
            UNIFORM,
            &[(0, 1), (0, 2), (0, 15), (9, 4)],
            &[65_536, 200_000, 1 << 20],
        );
    }
}

/// Mean bytes per link transmission over an incast of 15 x 1 MiB in 64 KiB units through
/// 48 KiB buffers, with the smallest part `min_part` (`None`: the default); the parameter the
/// network was built with; and the units split.
fn incast_mean_part(min_part: Option<u32>) -> (u64, u32, u64) {
    let mut cfg = net(fat_tree_16(), Routing::Adaptive);
    cfg.min_part = min_part;
    let n = with_units(cfg, Some(64 * KIB), 48 * KIB);
    let (got, routers, _) = run_all(&n, incast(), 1);
    assert_eq!(got.len(), 15);
    let splits: u64 = routers.iter().map(|r| r.splits).sum();
    let (mut bytes, mut sends) = (0u64, 0u64);
    for r in &routers {
        for l in &r.links {
            bytes += l.bytes;
            sends += l.sends;
        }
    }
    (bytes / sends.max(1), n.params().min_part, splits)
}

#[test]
fn units_short_of_credit_go_in_parts_of_at_least_half_a_buffer() {
    // An incast of 15 x 1 MiB in 64 KiB units through 48 KiB buffers: no unit fits a buffer
    // whole, the buffers towards the hot terminal stay nearly full and credit comes back as
    // parts leave. A unit that finds less than half a buffer (24 KiB) of credit waits for it,
    // so what the links carry averages at least 8 packets a send.
    let (mean, min_part, splits) = incast_mean_part(None);
    assert_eq!(min_part, 24 * KIB);
    assert!(splits > 0, "the incast splits units");
    assert!(mean >= 8 * 4_096, "mean part {mean} B");
}

#[test]
fn a_smallest_part_of_one_packet_sends_whatever_credit_allows() {
    // The same incast with `min_part` set to one packet: a unit leaves with whatever credit
    // there is, and the parts shrink (about 6.5 packets a send), as packets would trickle
    // out on each packet's credit; a whole buffer's worth keeps them larger than the default.
    let (one, p, _) = incast_mean_part(Some(4 * KIB));
    assert_eq!(p, 4 * KIB);
    let (half, _, _) = incast_mean_part(None);
    let (whole, p, _) = incast_mean_part(Some(48 * KIB));
    assert_eq!(p, 48 * KIB);
    assert!(one < 8 * 4_096, "one packet: mean part {one} B");
    assert!(one < half && half <= whole, "{one} < {half} <= {whole}");
}

#[test]
fn a_smallest_part_must_be_whole_packets_within_the_buffer() {
    for bad in [0, 2 * KIB, 6 * KIB, 52 * KIB] {
        let mut cfg = net(fat_tree_16(), Routing::Adaptive);
        cfg.packet_size = 4 * KIB;
        cfg.unit_size = Some(64 * KIB);
        cfg.vc_buffer = Some(48 * KIB);
        cfg.min_part = Some(bad);
        let e = cfg.build().unwrap_err().to_string();
        assert!(
            e.contains("min_part") && e.contains("whole number of packets"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn zero_load_latency_of_units_behind_a_slower_terminal_link() {
    // Terminal links at bandwidth Bt, router links at B > Bt; one message of n units of U bytes
    // over h routers. The NIC serialises each unit at Bt, so the unit's tail reaches the first
    // router ser_t(U) after its head. Virtual cut-through: the first router may start the unit
    // on its faster output only so that it does not end before its tail has arrived, i.e.
    // ser_t(U) - ser_b(U) after its head arrived, of which the router delay D has passed when
    // the head is routed (when h >= 2; with h = 1 the output is the terminal link, as slow as
    // the input, and no wait arises). Later routers receive at B and send at B, and the last
    // one sends at Bt, each unit back to back behind the previous one (the NIC spaces heads
    // ser_t(U) apart, no faster than any output drains them). So
    //   latency = h x (L + D) + L + [h >= 2] x max(0, ser_t(U) - ser_b(U) - D) + n x ser_t(U),
    // the packet model's formula with the first unit in place of the first packet.
    let (l, d) = (100 * NS, 90 * NS);
    let (bt, b) = (5_000_000_000u64, 12_500_000_000u64);
    let slow = LinkParams::new(bt, l);
    let fast = LinkParams::new(b, l);
    for unit in [4 * KIB, 64 * KIB] {
        let topo = TopologyConfig::FatTree(FatTreeConfig {
            levels: 3,
            radix: 4,
            terminals: 16,
            taper: 1,
            terminal: slow,
            link: fast,
        });
        let mut cfg = net(topo, Routing::Adaptive);
        cfg.packet_size = 4 * KIB;
        cfg.unit_size = Some(unit);
        cfg.vc_buffer = Some(128 * KIB);
        let n = cfg.build().expect("builds");
        let units = 8u64;
        let bytes = units * u64::from(unit);
        let pairs = [(0u32, 1u32), (0, 2), (0, 15), (6, 9)];
        let scripts: Vec<Vec<Msg>> = (0..n.terminals())
            .map(|t| {
                pairs
                    .iter()
                    .enumerate()
                    .filter(|(_, &(s, _))| s == t)
                    .map(|(i, &(_, dst))| Msg {
                        at: i as Time * 1_000 * US,
                        dst,
                        bytes,
                        payload: i as u64,
                    })
                    .collect()
            })
            .collect();
        let got = run(&mut build(&n, scripts, 3), 1);
        assert_eq!(got.len(), pairs.len());
        for dlv in got {
            let (src, dst) = pairs[dlv.payload as usize];
            let h = Time::from(n.hop_distance(src, dst).unwrap());
            let ser_t = serialisation(u64::from(unit), bt);
            let ser_b = serialisation(u64::from(unit), b);
            let wait = if h >= 2 {
                (ser_t - ser_b).saturating_sub(d)
            } else {
                0
            };
            let expected = h * (l + d) + l + wait + units * ser_t;
            assert_eq!(
                dlv.latency, expected,
                "{src}->{dst} ({h} routers), {unit} B units"
            );
            assert_eq!(dlv.bytes, bytes);
        }
    }
}

#[test]
fn units_larger_than_the_buffer_split_and_deliver_every_byte() {
    // 256 KiB units over 4 KiB packets into 16 KiB VC buffers: no unit fits downstream whole,
    // so NICs and routers send the whole packets that fit and keep the rest at the head.
    // Every message still arrives whole, with its bytes, packets and payload.
    for (topo, routing) in adaptive_cases() {
        let n = with_units(net(topo, routing), Some(256 * KIB), 16 * KIB);
        let scripts = heavy(n.terminals());
        let sent: Vec<(u32, u64, u64)> = scripts
            .iter()
            .enumerate()
            .flat_map(|(s, m)| m.iter().map(move |m| (s as u32, m.payload, m.bytes)))
            .collect();
        let (got, routers, _) = run_all(&n, scripts, 1);
        let mut got: Vec<(u32, u64, u64, u32)> = got
            .iter()
            .map(|d| (d.src, d.payload, d.bytes, d.route.packets))
            .collect();
        got.sort_unstable();
        let mut want: Vec<(u32, u64, u64, u32)> = sent
            .iter()
            .map(|&(s, p, b)| (s, p, b, b.div_ceil(4_096).max(1) as u32))
            .collect();
        want.sort_unstable();
        assert_eq!(got, want);
        assert!(
            routers.iter().map(|r| r.splits).sum::<u64>() > 0,
            "routers split units under contention"
        );
        assert!(routers.iter().all(|r| r.current_occupancy() == 0));
    }
}

#[test]
fn units_give_the_same_results_on_any_thread_count() {
    for (topo, routing) in adaptive_cases() {
        let n = with_units(net(topo, routing), Some(64 * KIB), 32 * KIB);
        let scripts = heavy(n.terminals());
        let one = run_all(&n, scripts.clone(), 1);
        for threads in [2, 3, 4] {
            assert_eq!(
                run_all(&n, scripts.clone(), threads),
                one,
                "{threads} threads"
            );
        }
    }
}

#[test]
fn coarse_units_on_an_incast_take_far_fewer_events() {
    // 15 senders each write 1 MiB to one terminal of the fat-tree. In 4 KiB packets that is
    // 256 packets per message, each costing an arrival and a credit at every hop; in 64 KiB
    // units, 16 units per message (more where credit is short and a unit splits). The
    // events per byte fall by up to the 16 packets per unit; splits at the congested hops
    // give some back, so at least a factor 8 remains.
    let scripts = incast();
    let cfg = net(fat_tree_16(), Routing::Adaptive);
    let packets = with_units(cfg.clone(), None, 64 * KIB);
    let units = with_units(cfg, Some(64 * KIB), 64 * KIB);
    let (a, _, events_packets) = run_all(&packets, scripts.clone(), 1);
    let (b, _, events_units) = run_all(&units, scripts, 1);
    assert_eq!(a.len(), 15);
    assert_eq!(b.len(), 15);
    assert!(
        events_units * 8 < events_packets,
        "units {events_units} events, packets {events_packets}"
    );
    // The incast is bounded by the destination's link either way: the last message arrives
    // after 15 MiB at the link bandwidth, within a few percent of each other.
    let end = |v: &[Delivered<u64>]| v.iter().map(|d| d.delivered).max().unwrap() as f64;
    let (ea, eb) = (end(&a), end(&b));
    assert!((eb / ea - 1.0).abs() < 0.05, "{ea} vs {eb}");
}

/// Latency (ps) of one `bytes` message from terminal 0 to terminal 70 (another group) on an
/// idle [`slow_global_aries`], in 4 KiB packets, or in 64 KiB units spread or routed whole.
fn lone_stream_latency(unit: Option<u32>, spread: bool, bytes: u64) -> Time {
    let mut cfg = net(slow_global_aries(), Routing::Ugal);
    cfg.unit_spread = spread;
    let n = with_units(cfg, unit, 64 * KIB);
    let mut scripts = vec![Vec::new(); n.terminals() as usize];
    scripts[0] = vec![Msg {
        at: 0,
        dst: 70,
        bytes,
        payload: 1,
    }];
    let (got, _, _) = run_all(&n, scripts, 1);
    assert_eq!(got.len(), 1);
    got[0].latency
}

#[test]
fn units_spread_a_lone_stream_over_slow_outputs_as_its_packets_do() {
    // One node writes 1 MB to another group over 1.5 GB/s global channels from an 8 GB/s
    // terminal link. UGAL sends its 4 KiB packets over several paths at once, so the message
    // streams at several global channels' rate. A 64 KiB unit routed whole fills the 64 KiB
    // input buffer and holds it while one path drains it, so whole units stream more than
    // half as slowly again. Spread units part where the packets would have, and come within
    // 10 % of the packets.
    let bytes = 1_000_000;
    let packets = lone_stream_latency(None, true, bytes);
    let spread = lone_stream_latency(Some(64 * KIB), true, bytes);
    let whole = lone_stream_latency(Some(64 * KIB), false, bytes);
    let channel = serialisation(bytes, 1_500_000_000);
    assert!(
        packets * 3 < channel,
        "packets {packets} ps, one channel {channel} ps"
    );
    let diff = (spread as f64 / packets as f64 - 1.0).abs();
    assert!(
        diff < 0.10,
        "spread {spread} ps against packets {packets} ps"
    );
    assert!(
        whole * 2 > packets * 3,
        "whole units {whole} ps against packets {packets} ps"
    );
}

#[test]
fn units_do_not_spread_on_outputs_as_fast_as_their_input() {
    // On uniform links no output is slower than the link a unit came in on: spreading never
    // splits a unit there, and the results are those of units routed whole.
    for (topo, routing) in [
        (fat_tree_16(), Routing::Adaptive),
        (dragonfly_32(), Routing::Ugal),
    ] {
        let mut whole = net(topo, routing);
        whole.unit_spread = false;
        let mut spread = whole.clone();
        spread.unit_spread = true;
        let whole = with_units(whole, Some(64 * KIB), 64 * KIB);
        let spread = with_units(spread, Some(64 * KIB), 64 * KIB);
        let scripts = heavy(whole.terminals());
        assert_eq!(
            run_all(&whole, scripts.clone(), 1),
            run_all(&spread, scripts, 1)
        );
    }
}
