//! Packets up to 64 MiB: the zero-load closed form still holds exactly (virtual cut-through),
//! many senders share a receiver link at its full bandwidth, buffers holding more than 4 GiB
//! are counted without overflow, and `packet_size` is validated against 1 B ..= 64 MiB.

use crate::common::{self, build, link, message_serialisation, net, run, Lp, Msg};
use bbsim_engine::time::{NS, SEC};
use bbsim_engine::Time;
use bbsim_topology::link::serialisation;
use bbsim_topology::{
    DragonflyConfig, FatTreeConfig, LinkParams, Network, NetworkConfig, Routing, TopologyConfig,
    TorusConfig, MAX_HEADER_BYTES, MAX_PACKET_SIZE,
};

const D: Time = 90 * NS;
const L: Time = 100 * NS;
const BW: u64 = 12_500_000_000;
const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

fn fat_tree(levels: u8, radix: u32, terminals: u32) -> TopologyConfig {
    TopologyConfig::FatTree(FatTreeConfig {
        levels,
        radix,
        terminals,
        taper: 1,
        terminal: link(),
        link: link(),
    })
}

/// `common::net` with another packet size.
fn net_with(topology: TopologyConfig, routing: Routing, packet: u64) -> Network {
    let mut c = net(topology, routing);
    c.packet_size = u32::try_from(packet).unwrap();
    c.build().expect("builds")
}

/// The zero-load closed form of `zero_load` (latency = hops x (L + D) + L + the
/// message's serialisation) on `net`, after checking each pair's hop count.
fn check_zero_load(net: &Network, pairs: &[(u32, u32, u32)], sizes: &[u64]) {
    for &(src, dst, hops) in pairs {
        assert_eq!(net.hop_distance(src, dst), Some(hops), "{src}->{dst}");
    }
    let pairs: Vec<(u32, u32)> = pairs.iter().map(|&(s, d, _)| (s, d)).collect();
    common::check_zero_load(net, (BW, L, D), &pairs, sizes);
}

#[test]
fn zero_load_one_mib_as_one_packet_or_sixteen() {
    // 1 MiB at 12.5 GB/s: 83,886,080 ps exactly, whether as one packet or 16 x 64 KiB.
    assert_eq!(serialisation(MIB, BW), 16 * serialisation(64 * KIB, BW));
    let ft = fat_tree(3, 8, 128);
    let pairs = [(0, 1, 1), (0, 5, 3), (0, 127, 5), (77, 3, 5)];
    for packet in [MIB, 64 * KIB] {
        for routing in [Routing::Deterministic, Routing::Adaptive] {
            let net = net_with(ft.clone(), routing, packet);
            // One MiB, plus sizes that leave a remainder packet, a small and an empty message.
            check_zero_load(&net, &pairs, &[MIB, MIB + 1_000, 3 * MIB / 2, 700, 0]);
        }
        // Spelled out for one 5-hop message: 5 x (100 + 90 ns) + 100 ns + 83,886,080 ps, the
        // same as one packet or as sixteen.
        let net = net_with(ft.clone(), Routing::Adaptive, packet);
        let script = vec![Msg {
            at: 0,
            dst: 127,
            bytes: MIB,
            payload: 1,
        }];
        let mut sim = build(&net, vec![script], 2);
        let got = run(&mut sim, 1);
        assert_eq!(
            (got[0].route.hops, got[0].route.packets),
            (5, (MIB / packet) as u32)
        );
        assert_eq!(got[0].latency, 1_050_000 + 83_886_080);
        assert_eq!(message_serialisation(MIB, packet, BW), 83_886_080);
    }
}

#[test]
fn zero_load_large_packets_dragonfly_and_torus() {
    let df = TopologyConfig::Dragonfly(DragonflyConfig {
        a: 4,
        p: 2,
        h: 2,
        g: 9,
        terminals: None,
        terminal: link(),
        local: link(),
        global: link(),
    });
    let pairs = [(0, 1, 1), (0, 3, 2), (0, 71, 4)];
    for packet in [MIB, 4 * MIB] {
        check_zero_load(
            &net_with(df.clone(), Routing::Minimal, packet),
            &pairs,
            &[MIB, 5 * MIB + 3],
        );
    }
    let torus = TopologyConfig::Torus(TorusConfig {
        dims: vec![5, 4, 3],
        terminals_per_router: 2,
        terminals: None,
        terminal: link(),
        link: link(),
    });
    check_zero_load(
        &net_with(torus, Routing::DimensionOrder, 2 * MIB),
        &[(0, 2, 2), (3, 70, 4), (0, 64, 6)],
        &[MIB, 7 * MIB + 1],
    );
}

#[test]
fn cut_through_with_a_faster_terminal_link_up_to_64_mib() {
    // Terminal links 25 GB/s, 50 ns; switch links 12.5 GB/s, 100 ns; one packet through 5
    // routers. The first 4 routers forward the head D after it arrives (their output is no
    // faster than their input). The last router's output (25 GB/s) must not finish before the
    // tail has arrived on the slower link: it ends at head + max(D + ser_fast, ser_slow). For
    // 512 B that is the existing 5 D + ser_fast; for large packets the switch links bound it.
    let cfg = TopologyConfig::FatTree(FatTreeConfig {
        levels: 3,
        radix: 4,
        terminals: 16,
        taper: 1,
        terminal: LinkParams::new(25_000_000_000, 50 * NS),
        link: link(),
    });
    for bytes in [512, 64 * KIB, MIB, 64 * MIB] {
        let mut c = net(cfg.clone(), Routing::Deterministic);
        c.packet_size = bytes as u32;
        let net = c.build().unwrap();
        let scripts = vec![vec![Msg {
            at: 0,
            dst: 15,
            bytes,
            payload: bytes,
        }]];
        let mut sim = build(&net, scripts, 1);
        let got = run(&mut sim, 1);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].route.hops, got[0].route.packets), (5, 1));
        let fast = serialisation(bytes, 25_000_000_000);
        let slow = serialisation(bytes, BW);
        let expected = 2 * 50 * NS + 4 * 100 * NS + 4 * D + (D + fast).max(slow);
        assert_eq!(got[0].latency, expected, "{bytes} B");
        if bytes == 512 {
            assert_eq!(expected, 2 * 50 * NS + 4 * 100 * NS + 5 * D + fast);
        } else {
            assert_eq!(expected, 2 * 50 * NS + 4 * 100 * NS + 4 * D + slow);
        }
    }
}

#[test]
fn many_senders_share_the_receiver_link_at_its_bandwidth() {
    // Four senders (one on the receiver's edge switch, one in its pod, two in other pods) each
    // queue 32 messages of one 4 MiB packet for terminal 15. The receiver's link is the
    // bottleneck: from the first delivery to the last it carries the other 127 packets at
    // 12.5 GB/s.
    let packet = 4 * MIB;
    let net = net_with(fat_tree(3, 4, 16), Routing::Adaptive, packet);
    let senders = [14u32, 12, 0, 6];
    let per_sender = 32u64;
    let mut scripts = vec![Vec::new(); 16];
    for &s in &senders {
        scripts[s as usize] = (0..per_sender)
            .map(|i| Msg {
                at: 0,
                dst: 15,
                bytes: packet,
                payload: u64::from(s) << 32 | i,
            })
            .collect();
    }
    let mut sim = build(&net, scripts, 5);
    let mut got = run(&mut sim, 1);
    let n = per_sender * senders.len() as u64;
    assert_eq!(got.len() as u64, n);
    got.sort_by_key(|d| d.delivered);
    let first = got[0].delivered;
    let last = got.last().unwrap().delivered;
    let rate = ((n - 1) * packet) as f64 / ((last - first) as f64 * 1e-12);
    assert!(
        rate <= BW as f64 * 1.000_001,
        "cannot beat the link: {rate}"
    );
    assert!(
        rate >= BW as f64 * 0.99,
        "the receiver link stays busy: {rate}"
    );
    // Every sender's messages arrive (adaptive routing may reorder them).
    for &s in &senders {
        let mut mine: Vec<u64> = got
            .iter()
            .filter(|d| d.src == s)
            .map(|d| d.payload & 0xffff_ffff)
            .collect();
        mine.sort_unstable();
        assert_eq!(mine, (0..per_sender).collect::<Vec<_>>(), "sender {s}");
    }
}

#[test]
fn buffers_beyond_4_gib_are_counted_without_overflow() {
    // 64 MiB packets with 16-packet buffers: 1 GiB per VC. Every other terminal of a 2-level
    // fat-tree sends three packets to terminal 0 at once; the receiver's edge switch queues
    // more than 4 GiB for its one terminal port (its occupancy and that port's load would
    // overflow 32 bits).
    let packet = 64 * MIB;
    let net = net_with(fat_tree(2, 8, 32), Routing::Adaptive, packet);
    assert_eq!(net.params().buffer_bytes, (1 << 30) + MAX_HEADER_BYTES);
    let mut scripts = vec![Vec::new(); 32];
    for (s, script) in scripts.iter_mut().enumerate().skip(1) {
        *script = (0..3)
            .map(|i| Msg {
                at: 0,
                dst: 0,
                bytes: packet,
                payload: (s as u64) << 32 | i,
            })
            .collect();
    }
    let mut sim = build(&net, scripts, 9);
    let got = run(&mut sim, 1);
    assert_eq!(got.len(), 31 * 3);
    assert!(got
        .iter()
        .all(|d| d.bytes == packet && d.route.packets == 1));
    // The receiver link ran back to back: the last of 93 packets arrives after 93 of them
    // have been serialised, plus the latency of the first one's path.
    let last = got.iter().map(|d| d.delivered).max().unwrap();
    assert!(last >= 93 * serialisation(packet, BW));
    let mut max_router = 0u64;
    let mut max_port = 0u64;
    for lp in sim.lps() {
        if let Lp::Router(r) = lp {
            let s = r.stats();
            max_router = max_router.max(s.max_occupancy);
            max_port = max_port.max(s.port_max_occupancy().max().unwrap());
            assert_eq!(s.current_occupancy(), 0, "drained");
            assert!(s.mean_occupancy(last) >= 0.0);
        }
    }
    assert!(
        max_router > u64::from(u32::MAX),
        "a router held {max_router} bytes"
    );
    assert!(
        max_port <= 4 * ((1 << 30) + u64::from(MAX_HEADER_BYTES)),
        "4 VCs of 1 GiB (and a header's room) per port: {max_port}"
    );
    assert_eq!(max_router % packet, 0, "whole packets");
}

#[test]
fn packet_size_from_1_byte_to_64_mib() {
    assert_eq!(MAX_PACKET_SIZE, 67_108_864);
    let cfg = |packet: u32| {
        let mut c = NetworkConfig::new(fat_tree(3, 4, 16), Routing::Adaptive);
        c.packet_size = packet;
        c
    };
    for ok in [1, 512, 65_535, 65_536, 64 << 20] {
        let net = cfg(ok).build().expect("accepted");
        assert_eq!(net.params().packet_size, ok);
        assert_eq!(net.params().buffer_bytes, 16 * ok + MAX_HEADER_BYTES);
    }
    for bad in [0, (64 << 20) + 1, u32::MAX] {
        let e = cfg(bad).build().unwrap_err().to_string();
        assert!(
            e.contains("packet_size") && e.contains("1 to 67108864 bytes (64 MiB)"),
            "{e}"
        );
        assert!(e.contains(&format!("got {bad}")), "{e}");
    }
    // The per-VC buffer (buffer_packets x packet_size bytes, plus a header's room) must stay
    // below 2^32 bytes.
    let mut c = cfg(64 << 20);
    c.buffer_packets = 63;
    assert_eq!(
        c.build().unwrap().params().buffer_bytes,
        (63 << 26) + MAX_HEADER_BYTES
    );
    c.buffer_packets = 64;
    let e = c.build().unwrap_err().to_string();
    assert!(e.contains("buffer_packets") && e.contains("2^32"), "{e}");
}

#[test]
fn a_packet_may_take_up_to_an_hour_on_the_slowest_link() {
    // 100 kB/s: a 512 B packet takes 5.12 ms (more than the former 32-bit limit of 4.29 ms).
    let slow = |bandwidth: u64| {
        TopologyConfig::FatTree(FatTreeConfig {
            levels: 2,
            radix: 4,
            terminals: 8,
            taper: 1,
            terminal: link(),
            link: LinkParams::new(bandwidth, 100 * NS),
        })
    };
    let mut c = NetworkConfig::new(slow(100_000), Routing::Deterministic);
    c.packet_size = 512;
    assert!(c.build().is_ok());
    // 64 MiB takes 3,599.87 s at 18,642 bytes/s and 3,600.06 s at 18,641 bytes/s.
    let mut c = NetworkConfig::new(slow(18_642), Routing::Deterministic);
    c.packet_size = 64 << 20;
    assert!(serialisation(64 * MIB, 18_642) <= 3_600 * SEC);
    assert!(c.build().is_ok());
    c.topology = slow(18_641);
    assert!(serialisation(64 * MIB, 18_641) > 3_600 * SEC);
    let e = c.build().unwrap_err().to_string();
    assert!(
        e.contains("link bandwidth")
            && e.contains("packet_size = 67108864")
            && e.contains("1 hour"),
        "{e}"
    );
}
