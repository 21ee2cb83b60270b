//! The array device model of a BB server ([`SsdModel::Array`]): the server's `N` SSDs are
//! simulated as one device with `N` times the channels, bandwidths and capacity, and a server
//! request's pieces are one device request of one operation per stripe unit.
//!
//! Checked here: the closed form of a lone request of `k` units (`ceil(k / (N·c))` overheads
//! plus its units' bytes at `N` times the bandwidth); the same completion times as the per-SSD
//! model under perfectly balanced load (every request a multiple of `N` units, one at a time);
//! one device request per server request and fewer engine events; unit placement, drain,
//! eviction and stage-in; and the configuration errors.

use crate::common::*;
use bbsim_engine::time::US;
use bbsim_engine::{run_with_threads, LpId, RunStats, SimConfig, Simulation};
use bbsim_storage::drain::DrainPolicy;
use bbsim_storage::ssd::{FtlConfig, SizeBin};
use bbsim_storage::standalone::{ClientOp, Conservation, HarnessEvent, HarnessLp, Scenario};
use bbsim_storage::units::{transfer_ps, KIB};
use bbsim_storage::{BbServer, BbServerConfig, DeviceStats, Endpoint, IoOp, SsdModel};

const UNIT: u64 = 128 * KIB;
/// 128 KiB at 1.024 GB/s is 128 µs, at 4 × 1.024 GB/s 32 µs: both whole picoseconds, so the
/// per-SSD and array transfer times of balanced load agree exactly.
const WRITE_BW: u64 = 1_024_000_000;
const READ_BW: u64 = 2_048_000_000;
const OVERHEAD: u64 = 20 * US;
/// Network latency of a request and its reply on the ideal line network.
const NET: u64 = 2 * US;

fn bb(ssds: u32, channels: u32, model: SsdModel) -> BbServerConfig {
    BbServerConfig {
        ssd_model: model,
        ..bb_config(ssds, channels, READ_BW, WRITE_BW, OVERHEAD)
    }
}

/// Runs `s` on one thread and checks conservation.
fn run1(s: &Scenario) -> (Simulation<HarnessLp>, RunStats) {
    let mut sim = s.build(SimConfig::default()).expect("valid scenario");
    let stats = run_with_threads(&mut sim, 1).expect("runs");
    let c = Conservation::of(&sim);
    assert!(c.holds(), "conservation broken: {c:?}");
    (sim, stats)
}

/// Every client record as (id, start, end, bytes).
fn records(sim: &Simulation<HarnessLp>) -> Vec<(u64, u64, u64, u64)> {
    clients(sim)
        .iter()
        .flat_map(|c| c.records.iter().map(|r| (r.id, r.start, r.end, r.bytes)))
        .collect()
}

fn last_end(sim: &Simulation<HarnessLp>) -> u64 {
    records(sim).iter().map(|r| r.2).max().unwrap_or(0)
}

fn op(op: IoOp, file: u64, offset: u64, len: u64) -> ClientOp {
    ClientOp {
        op,
        file,
        offset,
        len,
    }
}

/// The time of one lone request on one server's array: `ceil(k / (N·c))` overheads (the
/// setups of its `k` unit pieces, `N·c` at a time) plus its transfer: every piece's bytes at
/// `N` times the SSD bandwidth, rounded per piece, `D`, stretched to `D · max(w, N) / w` when
/// its `w = min(k, N·c)` slots are fewer than the `N` drives (fewer units than drives run at
/// one drive's bandwidth each, as on separate SSDs).
fn array_time(ssds: u64, channels: u64, pieces: &[u64], bw: u64) -> u64 {
    let k = pieces.len() as u64;
    let w = k.min(ssds * channels);
    let d: u64 = pieces.iter().map(|&p| transfer_ps(p, ssds * bw)).sum();
    k.div_ceil(ssds * channels) * OVERHEAD + (d * w.max(ssds)).div_ceil(w)
}

#[test]
fn the_array_device_has_n_times_the_channels_bandwidth_and_capacity() {
    let mut b = bb(18, 8, SsdModel::Array);
    b.ssd.size_bins = vec![SizeBin {
        max_size: 4 * KIB,
        read_bandwidth: 1_000,
        write_bandwidth: 500,
    }];
    b.ssd.access_latency = 3 * US;
    let d = b.device_config();
    assert_eq!(d.capacity, 18 << 36);
    assert_eq!(
        (d.read_bandwidth, d.write_bandwidth),
        (18 * READ_BW, 18 * WRITE_BW)
    );
    assert_eq!(d.channels, 144);
    assert_eq!(
        d.size_bins,
        vec![SizeBin {
            max_size: 4 * KIB,
            read_bandwidth: 18_000,
            write_bandwidth: 9_000,
        }]
    );
    assert_eq!((d.op_overhead, d.access_latency), (OVERHEAD, 3 * US));
    assert_eq!(b.devices(), 1);
    // The server's capacity is that of its SSDs either way.
    let per = bb(18, 8, SsdModel::PerSsd);
    assert_eq!(per.device_config(), per.ssd);
    assert_eq!(per.devices(), 18);
    assert_eq!(b.capacity(), per.capacity());
    let server = BbServer::new(b, Endpoint(0), vec![Endpoint(1)]).expect("valid");
    assert_eq!(server.ssds().len(), 1, "one device per server");
    assert_eq!(server.capacity().total(), per.capacity());
}

#[test]
fn a_lone_request_of_k_units_takes_ceil_k_over_nc_overheads_plus_bytes_over_n_bw() {
    // Four SSDs with four channels: the array has 16 slots (weights up to 16 share exactly).
    let (n, c) = (4u64, 4u64);
    for k in [1u64, 3, 16, 17, 40, 64] {
        let s = scenario(
            bb(n as u32, c as u32, SsdModel::Array),
            1,
            vec![client(
                vec![op(IoOp::Write, 0, 0, k * UNIT)],
                1,
                target(1, UNIT),
                1,
            )],
        );
        let (sim, _) = run1(&s);
        let pieces = vec![UNIT; k as usize];
        let t = array_time(n, c, &pieces, WRITE_BW);
        assert_eq!(last_end(&sim), NET + t, "k = {k}");
        let st = ssd_stats(&sim, last_end(&sim));
        assert_eq!(st.len(), 1);
        assert_eq!((st[0].writes, st[0].requests), (k, 1), "k = {k}");
        assert_eq!(st[0].host_bytes_written, k * UNIT);
        assert_eq!(st[0].busy_time, t);
        assert_eq!(st[0].max_queue, k, "the queue counts operations");
    }
    // Unaligned, with partial units at both ends, then a read of it: per-piece rounding at
    // N times the bandwidth, one overhead per piece.
    let (offset, len) = (UNIT / 3, 20 * UNIT + 12_345);
    let s = scenario(
        bb(n as u32, c as u32, SsdModel::Array),
        1,
        vec![client(
            vec![
                op(IoOp::Write, 0, offset, len),
                op(IoOp::Read, 0, offset, len),
            ],
            1,
            target(1, UNIT),
            1,
        )],
    );
    let (sim, _) = run1(&s);
    let first = UNIT - offset;
    let last = len + UNIT - first - 20 * UNIT;
    let mut pieces = vec![first];
    pieces.extend(std::iter::repeat_n(UNIT, 19));
    pieces.push(last);
    assert_eq!(pieces.iter().sum::<u64>(), len);
    let r = records(&sim);
    assert_eq!(r[0].2 - r[0].1, NET + array_time(n, c, &pieces, WRITE_BW));
    assert_eq!(r[1].2 - r[1].1, NET + array_time(n, c, &pieces, READ_BW));

    // The study's server: 18 SSDs with 8 channels (144 slots). Widths 144 and 9 divide the
    // sharing clock's scale, so the closed form is exact to the picosecond.
    for k in [9u64, 144, 200, 300] {
        let s = scenario(
            bb(18, 8, SsdModel::Array),
            1,
            vec![client(
                vec![op(IoOp::Write, 0, 0, k * UNIT)],
                1,
                target(1, UNIT),
                1,
            )],
        );
        let (sim, _) = run1(&s);
        let pieces = vec![UNIT; k as usize];
        assert_eq!(
            last_end(&sim),
            NET + array_time(18, 8, &pieces, WRITE_BW),
            "k = {k}"
        );
    }
}

/// Requests of `N·m` units, one at a time (depth 1), on two servers: each SSD of the per-SSD
/// model gets `m` units of every request, so both models finish every request at the same
/// picosecond: `ceil(m/c)·o + m·D` per-SSD, `ceil(N·m / (N·c))·o + N·m·D/N` as an array.
#[test]
fn balanced_requests_one_at_a_time_finish_as_with_per_ssd_devices() {
    let (n, c) = (4u32, 2u32);
    let stripe = 4 * u64::from(n) * UNIT;
    let mut ops = Vec::new();
    let mut off = 0;
    // Multiples of the two-server stripe: every server request is a multiple of N units.
    for (i, stripes) in [1u64, 2, 3, 5, 1, 4].into_iter().enumerate() {
        let len = stripes * 2 * stripe;
        ops.push(op(IoOp::Write, i as u64 % 3, off, len));
        ops.push(op(IoOp::Read, i as u64 % 3, off, len));
        off += len;
    }
    let run_model = |model| {
        let s = scenario(
            bb(n, c, model),
            2,
            vec![client(ops.clone(), 1, target(2, stripe), 1)],
        );
        run1(&s)
    };
    let (per, per_stats) = run_model(SsdModel::PerSsd);
    let (arr, arr_stats) = run_model(SsdModel::Array);
    assert_eq!(records(&arr), records(&per));
    assert_eq!(ledgers(&arr), ledgers(&per));
    // The first request's closed form, per SSD: m = 4 units on each SSD of each server.
    let first = records(&per)[0];
    let m = 4u64;
    assert_eq!(
        first.2 - first.1,
        NET + m.div_ceil(u64::from(c)) * OVERHEAD + m * transfer_ps(UNIT, WRITE_BW)
    );
    // The same operations and bytes, in one device request per server request instead of N.
    let end = last_end(&per);
    let sum = |st: &[DeviceStats], f: fn(&DeviceStats) -> u64| st.iter().map(f).sum::<u64>();
    let (p, a) = (ssd_stats(&per, end), ssd_stats(&arr, end));
    assert_eq!((p.len(), a.len()), (2 * n as usize, 2));
    for f in [
        |d: &DeviceStats| d.writes,
        |d: &DeviceStats| d.reads,
        |d: &DeviceStats| d.host_bytes_written,
        |d: &DeviceStats| d.host_bytes_read,
    ] {
        assert_eq!(sum(&p, f), sum(&a, f));
    }
    let server_requests = 2 * ops.len() as u64;
    assert_eq!(sum(&a, |d| d.requests), server_requests);
    assert_eq!(sum(&p, |d| d.requests), u64::from(n) * server_requests);
    assert!(
        arr_stats.events < per_stats.events,
        "{} events as an array, {} per SSD",
        arr_stats.events,
        per_stats.events
    );
}

#[test]
fn every_server_request_is_one_device_request_and_events_fall() {
    // 64 concurrent 16-unit server requests over 18-SSD servers: 16 device requests each per
    // SSD, one as an array.
    let run_model = |model| {
        let clients = (0..8)
            .map(|i| {
                client(
                    (0..8)
                        .map(|j| op(IoOp::Write, i, j * 32 * UNIT, 32 * UNIT))
                        .collect(),
                    4,
                    target(2, 16 * UNIT),
                    1,
                )
            })
            .collect();
        run1(&scenario(bb(18, 8, model), 2, clients))
    };
    let (per, per_stats) = run_model(SsdModel::PerSsd);
    let (arr, arr_stats) = run_model(SsdModel::Array);
    let end = last_end(&per).max(last_end(&arr));
    let requests = |sim| ssd_stats(sim, end).iter().map(|d| d.requests).sum::<u64>();
    let writes = |sim| ssd_stats(sim, end).iter().map(|d| d.writes).sum::<u64>();
    assert_eq!(
        requests(&arr),
        2 * 64,
        "one device request per server request"
    );
    assert_eq!(requests(&per), 16 * 2 * 64);
    assert_eq!(writes(&arr), writes(&per));
    assert_eq!(writes(&arr), 8 * 8 * 32);
    // A device request costs about one event (its completion; setups join the sharing without
    // events of their own), so 16 per-SSD requests per server request against one device
    // request leave the array with well under half the events (network events are the same).
    assert!(
        arr_stats.events * 2 < per_stats.events,
        "{} events as an array, {} per SSD",
        arr_stats.events,
        per_stats.events
    );
    // Pooling: no SSD idles while another queues, so the array is never slower here.
    assert!(last_end(&arr) <= last_end(&per));
}

/// A BB too small for the data: writes stall, the data mover drains and evicts units (TRIM,
/// recycled addresses), files are rewritten; and a stage-in. Conservation holds,
/// capacity is charged per unit and never exceeded, and every byte reaches the PFS.
#[test]
fn drain_eviction_and_stage_in_work_on_the_array() {
    let mut b = bb(4, 2, SsdModel::Array);
    b.ssd.capacity = 2 << 20; // 16 units per SSD, 64 per server
    b.drain.policy = DrainPolicy::Immediate;
    let per_cap = b.capacity();
    assert_eq!(per_cap, 8 << 20);
    let mut ops = Vec::new();
    for round in 0..3u64 {
        for f in 0..4 {
            ops.push(op(IoOp::Write, f, round * 3 * KIB, 3 << 20));
        }
    }
    let s = scenario(b, 1, vec![client(ops, 2, target(1, UNIT), 1)]);
    let mut sim = s.build(SimConfig::default()).expect("valid scenario");
    let bb_lp = sim
        .lps()
        .position(|l| matches!(l, HarnessLp::Bb(_)))
        .map(|i| LpId(i as u32))
        .expect("a BB server LP");
    sim.schedule(
        bb_lp,
        0,
        HarnessEvent::StageIn {
            alloc: 7,
            file: 99,
            bytes: 5 * UNIT + 100,
        },
    )
    .expect("schedules");
    run_with_threads(&mut sim, 1).expect("runs");
    let c = Conservation::of(&sim);
    assert!(c.holds(), "conservation broken: {c:?}");
    let l = ledgers(&sim)[0];
    assert_eq!(l.received, 12 * (3 << 20));
    assert_eq!(l.drain_acked, l.received - l.superseded);
    assert_eq!((l.in_bb, l.stalled), (0, 0));
    assert_eq!(l.staged_in, 5 * UNIT + 100);
    let b = servers(&sim)[0];
    assert!(b.capacity().used() <= per_cap);
    let HarnessLp::Bb(lp) = sim.lp(bb_lp).expect("the BB LP") else {
        panic!("not the BB server")
    };
    assert_eq!(lp.staged.len(), 1);
    let st = &ssd_stats(&sim, last_end(&sim))[0];
    // 36 MiB written through an 8 MiB array: units were evicted and their addresses reused.
    assert!(st.host_bytes_written > 4 * per_cap);
    assert_eq!(st.host_bytes_written, l.received + l.staged_in);
}

#[test]
fn the_array_rejects_an_ftl_and_chunks_by_name() {
    let mut b = bb(4, 2, SsdModel::Array);
    b.ssd.capacity = 1 << 30;
    b.ssd.ftl = Some(FtlConfig::default());
    let err = b.validate().expect_err("FTL with an array");
    assert_eq!(err.field.to_string(), "ssd_model");
    assert!(err.message().contains("no FTL"), "{}", err.message());
    b.ssd_model = SsdModel::PerSsd;
    b.validate().expect("per-SSD FTL is fine");

    let mut b = bb(4, 2, SsdModel::Array);
    b.chunk_units = 8;
    let err = BbServer::new(b, Endpoint(0), vec![Endpoint(1)]).expect_err("chunks");
    assert_eq!(err.field.to_string(), "chunk_units");
    assert!(err.message().contains("array"), "{}", err.message());

    // Units are addressed with 32 bits across the whole array.
    let mut b = bb(16, 2, SsdModel::Array);
    b.unit = 4096;
    b.ssd.capacity = 4096 << 29;
    let err = b.validate().expect_err("too many units");
    assert_eq!(err.field.to_string(), "unit");
    b.ssd_model = SsdModel::PerSsd;
    b.validate().expect("fits per SSD");
}

#[test]
fn per_ssd_is_the_default_model() {
    assert_eq!(SsdModel::default(), SsdModel::PerSsd);
    assert_eq!(BbServerConfig::default().ssd_model, SsdModel::PerSsd);
    assert!(SsdModel::PerSsd.is_per_ssd());
    assert!(!SsdModel::Array.is_per_ssd());
}
