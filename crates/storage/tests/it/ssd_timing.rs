//! SSD timing: exact closed forms for a lone request, bandwidth sharing, channels, access
//! latency, size bins, and garbage collection slowing the device down.

use crate::common::*;
use bbsim_engine::time::US;
use bbsim_storage::ssd::{FtlConfig, Precondition, SizeBin, SsdConfig};
use bbsim_storage::standalone::{ClientOp, ClientSpec, Scenario, Target};
use bbsim_storage::units::{transfer_ps, MIB};
use bbsim_storage::IoOp;

fn local(ssd: SsdConfig, ops: Vec<ClientOp>, depth: u32) -> Scenario {
    Scenario {
        net: line_net(US),
        bb: None,
        reservations: vec![],
        pfs: None,
        clients: vec![ClientSpec {
            ops,
            depth,
            target: Target::Local(ssd),
            alloc: 0,
            stream: 0,
            start: 0,
            train: 1,
        }],
    }
}

fn ssd() -> SsdConfig {
    SsdConfig {
        capacity: 1 << 40,
        read_bandwidth: 2_300_000_000,
        write_bandwidth: 1_400_000_000,
        op_overhead: 20 * US,
        access_latency: 7 * US,
        channels: 8,
        ..SsdConfig::default()
    }
}

#[test]
fn lone_writer_finishes_in_exactly_size_over_bandwidth_plus_overhead() {
    let size = 1_000_003 * 1000 + 17; // not a round number of anything
    let sim = run(&local(ssd(), writes(0, 1, size), 1), 1);
    let c = clients(&sim);
    let r = &c[0].records[0];
    assert_eq!(r.end - r.start, 20 * US + transfer_ps(size, 1_400_000_000));
    assert!(
        r.servers.is_empty() && r.max_hops == 0,
        "node-local I/O uses no network"
    );
    let s = c[0].local_ssd().unwrap().stats_at(r.end);
    assert_eq!(s.host_bytes_written, size);
    assert_eq!(s.nand_bytes_written, size);
    assert_eq!(s.busy_time, r.end - r.start);
}

#[test]
fn non_sequential_access_pays_the_access_latency_and_reads_use_read_bandwidth() {
    let ops = vec![
        ClientOp {
            op: IoOp::Read,
            file: 0,
            offset: 4096,
            len: MIB,
        },
        ClientOp {
            op: IoOp::Read,
            file: 0,
            offset: 4096 + MIB,
            len: MIB,
        },
    ];
    let sim = run(&local(ssd(), ops, 1), 1);
    let r = &clients(&sim)[0].records;
    let t = transfer_ps(MIB, 2_300_000_000);
    assert_eq!(r[0].end - r[0].start, 20 * US + 7 * US + t);
    assert_eq!(
        r[1].end - r[1].start,
        20 * US + t,
        "sequential: no access latency"
    );
}

#[test]
fn n_writers_share_the_device_bandwidth() {
    for n in [2u64, 4, 8] {
        let sim = run(&local(ssd(), writes(0, n, 64 * MIB), n as u32), 1);
        let r = &clients(&sim)[0].records;
        let expect = 20 * US + n * transfer_ps(64 * MIB, 1_400_000_000);
        for rec in r.iter() {
            let d = (rec.end - rec.start) as i64 - expect as i64;
            assert!(
                d.abs() <= n as i64,
                "n={n}: {} vs {expect}",
                rec.end - rec.start
            );
        }
    }
}

#[test]
fn channels_bound_concurrency() {
    let mut cfg = ssd();
    cfg.channels = 2;
    let sim = run(&local(cfg, writes(0, 4, 64 * MIB), 4), 1);
    let r = &clients(&sim)[0].records;
    let w = transfer_ps(64 * MIB, 1_400_000_000);
    // Two at a time: the first pair ends at overhead + 2W, the second pair one round later.
    let mut ends: Vec<u64> = r.iter().map(|x| x.end).collect();
    ends.sort_unstable();
    assert!(ends[0].abs_diff(20 * US + 2 * w) <= 2);
    assert!(ends[3].abs_diff(2 * (20 * US + 2 * w)) <= 4);
    let s = clients(&sim)[0].local_ssd().unwrap().stats_at(ends[3]);
    assert_eq!(s.max_queue, 4);
}

#[test]
fn size_bins_pick_the_rate_of_the_request_size() {
    let mut cfg = ssd();
    cfg.op_overhead = 0;
    cfg.size_bins = vec![
        SizeBin {
            max_size: 64 * 1024,
            read_bandwidth: 500_000_000,
            write_bandwidth: 300_000_000,
        },
        SizeBin {
            max_size: 512 * 1024,
            read_bandwidth: 1_000_000_000,
            write_bandwidth: 900_000_000,
        },
    ];
    let ops = vec![
        ClientOp {
            op: IoOp::Write,
            file: 0,
            offset: 0,
            len: 4096,
        },
        ClientOp {
            op: IoOp::Write,
            file: 0,
            offset: 4096,
            len: 256 * 1024,
        },
        ClientOp {
            op: IoOp::Write,
            file: 0,
            offset: 4096 + 256 * 1024,
            len: MIB,
        },
    ];
    let sim = run(&local(cfg, ops, 1), 1);
    let r = &clients(&sim)[0].records;
    assert_eq!(r[0].end - r[0].start, transfer_ps(4096, 300_000_000));
    assert_eq!(r[1].end - r[1].start, transfer_ps(256 * 1024, 900_000_000));
    assert_eq!(r[2].end - r[2].start, transfer_ps(MIB, 1_400_000_000));
}

#[test]
fn garbage_collection_copies_take_write_bandwidth() {
    // 4096 B pages at 4096 MB/s: a page takes exactly 1 us, so the device time is the NAND
    // page count in microseconds.
    let page = 4096u64;
    let user_pages = 64 * 1024;
    let cfg = |pre: Precondition| SsdConfig {
        capacity: user_pages * page,
        read_bandwidth: 4_096_000_000,
        write_bandwidth: 4_096_000_000,
        op_overhead: 0,
        access_latency: 0,
        channels: 1,
        ftl: Some(FtlConfig {
            page_size: page,
            pages_per_block: 64,
            spare_factor: 0.1,
            gc_free_blocks: 1,
            precondition: pre,
            ..FtlConfig::default()
        }),
        ..SsdConfig::default()
    };
    let mut rng = bbsim_engine::Rng::seed_from_u64(4);
    let n = 20_000u64;
    let ops: Vec<ClientOp> = (0..n)
        .map(|_| ClientOp {
            op: IoOp::Write,
            file: 0,
            offset: rng.below(user_pages) * page,
            len: page,
        })
        .collect();
    let steady = Precondition::Steady {
        overwrite_passes: 3,
        seed: 2,
    };
    let slow = run(&local(cfg(steady), ops.clone(), 1), 1);
    let fast = run(&local(cfg(Precondition::Fresh), ops, 1), 1);
    let end = |sim: &bbsim_engine::Simulation<_>| clients(sim)[0].records.last().unwrap().end;
    let (ts, tf) = (end(&slow), end(&fast));
    assert_eq!(
        tf,
        n * US,
        "fresh device: no collection, one page per microsecond"
    );
    let s = clients(&slow)[0].local_ssd().unwrap().stats_at(ts);
    let copies = s.gc_bytes_copied / page;
    assert_eq!(ts, (n + copies) * US, "each GC copy costs one page time");
    let waf = s.write_amplification();
    assert!(waf > 3.0, "steady state at 10% spare: WAF {waf}");
    assert!(
        (ts as f64 / tf as f64 - waf).abs() < 1e-9,
        "slowdown equals WAF"
    );
    assert!(s.drive_writes_per_day(user_pages * page, ts) > 0.0);
}

#[test]
fn bad_configuration_is_rejected_with_the_key() {
    let mut c = ssd();
    c.write_bandwidth = 0;
    assert_eq!(
        c.validate().unwrap_err().to_string(),
        "write_bandwidth must be > 0, got 0"
    );
    let mut c = ssd();
    c.channels = 0;
    assert_eq!(c.validate().unwrap_err().field.to_string(), "channels");
    let mut c = ssd();
    c.capacity = 1 << 20;
    c.ftl = Some(FtlConfig {
        page_size: 4096,
        pages_per_block: 512,
        ..FtlConfig::default()
    });
    let e = c.validate().unwrap_err();
    assert_eq!(e.field.to_string(), "capacity");
    assert!(e.message().contains("smaller than one erase block"), "{e}");
    let mut c = ssd();
    c.ftl = Some(FtlConfig {
        spare_factor: -0.1,
        ..FtlConfig::default()
    });
    assert_eq!(
        c.validate().unwrap_err().field.to_string(),
        "ftl.spare_factor"
    );
    let mut c = ssd();
    c.size_bins = vec![
        SizeBin {
            max_size: 10,
            read_bandwidth: 1,
            write_bandwidth: 1,
        },
        SizeBin {
            max_size: 10,
            read_bandwidth: 1,
            write_bandwidth: 1,
        },
    ];
    assert_eq!(
        c.validate().unwrap_err().field.to_string(),
        "size_bins[1].max_size"
    );
    // Through the scenario, the key names the client.
    let mut s = local(ssd(), vec![], 1);
    if let Target::Local(c) = &mut s.clients[0].target {
        c.read_bandwidth = 0;
    }
    let e = s
        .build(bbsim_engine::SimConfig::default())
        .err()
        .expect("rejected");
    assert_eq!(
        e.to_string(),
        "clients[0].ssd.read_bandwidth must be > 0, got 0"
    );
}
