//! Burst-buffer servers, PFS, drain, capacity, placement and determinism, assembled with the
//! standalone harness. The conservation identity is checked in every test.

use crate::common::*;
use bbsim_engine::time::{MS, US};
use bbsim_engine::LpId;
use bbsim_engine::Simulation;
use bbsim_storage::capacity::FullPolicy;
use bbsim_storage::datawarp::{allocate, DataWarpConfig, DwMode};
use bbsim_storage::drain::{DrainConfig, DrainPolicy};
use bbsim_storage::pfs::PfsConfig;
use bbsim_storage::placement::StripeSpec;
use bbsim_storage::ssd::SsdConfig;
use bbsim_storage::standalone::{
    ClientSpec, Conservation, HarnessEvent, HarnessLp, Scenario, ScenarioField, Target,
};
use bbsim_storage::units::{transfer_ps, MIB};
use bbsim_storage::{BbServerConfig, StagingConfig};

const GBS: u64 = 1_000_000_000;

fn bb_cfg(ssd_capacity: u64) -> BbServerConfig {
    BbServerConfig {
        ssd: SsdConfig {
            capacity: ssd_capacity,
            read_bandwidth: 2 * GBS,
            write_bandwidth: GBS,
            op_overhead: 0,
            access_latency: 0,
            channels: 8,
            ..SsdConfig::default()
        },
        ssds: 1,
        unit: MIB,
        chunk_units: 1,
        ssd_model: Default::default(),
        threads: 16,
        request_overhead: 0,
        staging: None,
        full_policy: FullPolicy::Stall,
        drain: DrainConfig {
            policy: DrainPolicy::None,
            threshold: 0.8,
            bandwidth: 2 * GBS,
            max_outstanding: 4,
            evict: true,
        },
    }
}

fn pfs_cfg() -> PfsConfig {
    PfsConfig {
        servers: 4,
        server_bandwidth: 4 * GBS,
        aggregate_bandwidth: 16 * GBS,
        request_latency: 10 * US,
        stripe_size: MIB,
        stripe_count: 1,
        file_stripe_counts: Vec::new(),
        forward_latency: US,
        metadata: None,
    }
}

fn scenario(bb: BbServerConfig, servers: usize, clients: Vec<ClientSpec>) -> Scenario {
    Scenario {
        net: line_net(US),
        bb: Some((bb, servers)),
        reservations: vec![],
        pfs: Some((pfs_cfg(), 2)),
        clients,
    }
}

fn client(ops: Vec<bbsim_storage::standalone::ClientOp>, depth: u32, target: Target) -> ClientSpec {
    ClientSpec {
        ops,
        depth,
        target,
        alloc: 1,
        stream: 1,
        start: 0,
        train: 1,
    }
}

fn last_end(sim: &Simulation<HarnessLp>) -> u64 {
    clients(sim)
        .iter()
        .flat_map(|c| c.records.iter().map(|r| r.end))
        .max()
        .unwrap_or(0)
}

fn check(sim: &Simulation<HarnessLp>) -> Conservation {
    let c = Conservation::of(sim);
    assert!(c.holds(), "conservation broken: {c:?}");
    c
}

fn bb_servers(sim: &Simulation<HarnessLp>) -> Vec<&bbsim_storage::BbServer> {
    sim.lps()
        .filter_map(|l| match l {
            HarnessLp::Bb(b) => Some(&b.server),
            _ => None,
        })
        .collect()
}

#[test]
fn striping_over_four_servers_quadruples_bandwidth() {
    let time = |count: u32| {
        let t = Target::Bb(StripeSpec {
            stripe_count: count,
            stripe_size: MIB,
        });
        let s = scenario(bb_cfg(1 << 40), 4, vec![client(writes(0, 256, MIB), 16, t)]);
        let sim = run(&s, 1);
        let c = check(&sim);
        assert_eq!(c.written, 256 * MIB);
        assert_eq!(
            c.in_bb,
            256 * MIB,
            "drain policy never: everything stays in the BB"
        );
        let recs = &clients(&sim)[0].records;
        let touched: std::collections::BTreeSet<_> =
            recs.iter().flat_map(|r| r.servers.clone()).collect();
        assert_eq!(touched.len(), count as usize);
        last_end(&sim)
    };
    let one = time(1);
    let four = time(4);
    let ideal_one = transfer_ps(256 * MIB, GBS);
    assert!(
        one >= ideal_one && (one as f64) < ideal_one as f64 * 1.01,
        "{one} vs {ideal_one}"
    );
    let ratio = one as f64 / four as f64;
    assert!((ratio - 4.0).abs() < 0.08, "speed-up {ratio}");
}

#[test]
fn requests_record_servers_and_hops() {
    // Client 0 at endpoint 0; BB servers at endpoints 1..=4; hops = distance.
    let t = Target::Bb(StripeSpec {
        stripe_count: 2,
        stripe_size: MIB,
    });
    let s = scenario(
        bb_cfg(1 << 40),
        4,
        vec![client(writes(0, 4, 2 * MIB), 1, t)],
    );
    let sim = run(&s, 1);
    check(&sim);
    for r in &clients(&sim)[0].records {
        assert_eq!(
            r.servers[..],
            [bbsim_storage::Endpoint(1), bbsim_storage::Endpoint(2)]
        );
        assert_eq!(r.max_hops, 4, "2 hops there and back to the farther server");
        assert_eq!(r.total_hops, 2 + 4);
    }
}

/// A server of 8 MiB whose writers `policy` when full; with `stall` it drains when its
/// clients end, and before that whenever a writer waits for space (with `spill`, never).
fn small_bb(policy: FullPolicy) -> BbServerConfig {
    let mut b = bb_cfg(8 * MIB);
    b.full_policy = policy;
    if policy == FullPolicy::Stall {
        b.drain.policy = DrainPolicy::JobEnd;
    }
    b
}

/// 32 writes of 1 MiB to one server of 8 MiB that stalls writers when full.
fn overflowing_writer() -> Scenario {
    let t = Target::Bb(StripeSpec {
        stripe_count: 1,
        stripe_size: MIB,
    });
    scenario(
        small_bb(FullPolicy::Stall),
        1,
        vec![client(writes(0, 32, MIB), 4, t)],
    )
}

#[test]
fn full_bb_stalls_the_writer_until_space_is_drained() {
    let s = overflowing_writer();
    let sim = run(&s, 1);
    let c = check(&sim);
    assert_eq!(c.written, 32 * MIB);
    assert_eq!(c.in_flight, 0);
    assert_eq!(c.in_bb + c.on_pfs, 32 * MIB);
    assert!(
        c.on_pfs >= 24 * MIB,
        "at least the overflow was drained: {c:?}"
    );
    let recs = &clients(&sim)[0].records;
    assert!(recs.iter().all(|r| !r.spilled));
    let server = bb_servers(&sim)[0];
    assert!(server.capacity().used() <= 8 * MIB);
    // The writer waited for the drain of 24 MiB at 2 GB/s.
    assert!(last_end(&sim) >= transfer_ps(24 * MIB, 2 * GBS));
    // Mid-run the identity holds too, with bytes stalled or in flight.
    let mut saw_in_flight = false;
    for end in [50 * US, 2 * MS, 5 * MS, 9 * MS, 13 * MS] {
        let c = check(&run_until(&s, 1, end));
        saw_in_flight |= c.in_flight > 0;
    }
    assert!(saw_in_flight);
}

#[test]
fn full_bb_spills_to_the_pfs_when_configured() {
    let t = Target::Bb(StripeSpec {
        stripe_count: 1,
        stripe_size: MIB,
    });
    let s = scenario(
        small_bb(FullPolicy::Spill),
        1,
        vec![client(writes(0, 32, MIB), 4, t)],
    );
    let sim = run(&s, 1);
    let c = check(&sim);
    assert_eq!(c.in_bb, 8 * MIB);
    assert_eq!(c.on_pfs, 24 * MIB);
    let spilled = clients(&sim)[0]
        .records
        .iter()
        .filter(|r| r.spilled)
        .count();
    assert_eq!(spilled, 24);
    let via_bb = clients(&sim)[0]
        .records
        .iter()
        .filter(|r| r.spilled)
        .all(|r| r.servers[..] == [bbsim_storage::Endpoint(1)] && r.max_hops == 2);
    assert!(
        via_bb,
        "spilled writes are acknowledged by the BB server that forwarded them"
    );
    for end in [100 * US, 3 * MS, 6 * MS] {
        check(&run_until(&s, 1, end));
    }
}

#[test]
fn drain_policies() {
    let t = || {
        Target::Bb(StripeSpec {
            stripe_count: 1,
            stripe_size: MIB,
        })
    };
    let with = |policy, threshold| {
        let mut b = bb_cfg(64 * MIB);
        b.drain.policy = policy;
        b.drain.threshold = threshold;
        scenario(b, 1, vec![client(writes(0, 32, MIB), 4, t())])
    };
    // Immediate: everything reaches the PFS and is evicted.
    let sim = run(&with(DrainPolicy::Immediate, 0.0), 1);
    let c = check(&sim);
    assert_eq!((c.in_bb, c.on_pfs), (0, 32 * MIB));
    assert_eq!(bb_servers(&sim)[0].capacity().used(), 0);
    // At job end: nothing reaches the PFS before the writer is done.
    let s = with(DrainPolicy::JobEnd, 0.0);
    let sim = run(&s, 1);
    let c = check(&sim);
    assert_eq!(c.on_pfs, 32 * MIB);
    let job_end = last_end(&sim);
    let before = check(&run_until(&s, 1, job_end));
    assert_eq!(before.on_pfs, 0);
    assert_eq!(before.in_bb, 32 * MIB);
    // Above a fill threshold: drained down to the threshold, the rest stays.
    let sim = run(&with(DrainPolicy::Threshold, 0.25), 1);
    let c = check(&sim);
    let used = bb_servers(&sim)[0].capacity().used();
    assert!(used <= 16 * MIB, "fill after drain: {used}");
    assert!(c.in_bb > 0 && c.on_pfs > 0, "{c:?}");
    // None: the BB keeps everything.
    let c = check(&run(&with(DrainPolicy::None, 0.0), 1));
    assert_eq!((c.in_bb, c.on_pfs), (32 * MIB, 0));
}

fn stage_outs(sim: &Simulation<HarnessLp>) -> Vec<(u32, u64)> {
    sim.lps()
        .filter_map(|l| match l {
            HarnessLp::Bb(b) => Some(b.staged_out.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn stage_out_completion_is_reported_when_the_last_byte_reaches_the_pfs() {
    let with = |policy, threshold| {
        let mut b = bb_cfg(64 * MIB);
        b.drain.policy = policy;
        b.drain.threshold = threshold;
        let t = Target::Bb(StripeSpec {
            stripe_count: 1,
            stripe_size: MIB,
        });
        scenario(b, 1, vec![client(writes(0, 32, MIB), 4, t)])
    };
    let s = with(DrainPolicy::JobEnd, 0.0);
    let sim = run(&s, 1);
    let outs = stage_outs(&sim);
    assert_eq!(outs.len(), 1, "one report for the one allocation: {outs:?}");
    let (alloc, done) = outs[0];
    assert_eq!(alloc, s.clients[0].alloc);
    assert!(done > last_end(&sim));
    // A picosecond before the report the last acknowledgement from the PFS is still on its
    // way; at the report everything is on the PFS.
    let before = run_until(&s, 1, done - 1);
    assert!(bb_servers(&before)[0].unstaged(alloc) > 0);
    assert!(stage_outs(&before).is_empty());
    let at = check(&run_until(&s, 1, done + 1));
    assert_eq!((at.on_pfs, at.in_bb), (32 * MIB, 0));
    assert_eq!(bb_servers(&sim)[0].unstaged(alloc), 0);
    // None: nothing is staged out and the report comes at the job's end.
    let sim = run(&with(DrainPolicy::None, 0.0), 1);
    let outs = stage_outs(&sim);
    assert_eq!(outs.len(), 1);
    assert_eq!(check(&sim).on_pfs, 0);
    assert_eq!(bb_servers(&sim)[0].unstaged(outs[0].0), 32 * MIB);
}

#[test]
fn overwrites_are_superseded_not_lost() {
    let t = Target::Bb(StripeSpec {
        stripe_count: 1,
        stripe_size: MIB,
    });
    let mut ops = writes(0, 8, MIB);
    ops.extend(writes(0, 4, MIB)); // rewrite the first 4 MiB
    let s = scenario(bb_cfg(1 << 30), 1, vec![client(ops, 1, t)]);
    let c = check(&run(&s, 1));
    assert_eq!(
        (c.written, c.in_bb, c.superseded),
        (12 * MIB, 8 * MIB, 4 * MIB)
    );
}

#[test]
fn dram_staging_acknowledges_before_the_ssd() {
    let t = || {
        Target::Bb(StripeSpec {
            stripe_count: 1,
            stripe_size: MIB,
        })
    };
    let mut b = bb_cfg(1 << 30);
    let plain = run(
        &scenario(b.clone(), 1, vec![client(writes(0, 1, 8 * MIB), 1, t())]),
        1,
    );
    b.staging = Some(StagingConfig {
        capacity: 64 * MIB,
        bandwidth: 20 * GBS,
    });
    let staged = run(
        &scenario(b, 1, vec![client(writes(0, 1, 8 * MIB), 1, t())]),
        1,
    );
    check(&staged);
    let net = 2 * US;
    assert_eq!(last_end(&plain), net + transfer_ps(8 * MIB, GBS));
    assert_eq!(last_end(&staged), net + transfer_ps(8 * MIB, 20 * GBS));
}

#[test]
fn pfs_only_placement_timing_is_exact() {
    let s = Scenario {
        net: line_net(US),
        bb: None,
        reservations: vec![],
        pfs: Some((pfs_cfg(), 1)),
        clients: vec![client(writes(0, 1, 3 * MIB), 1, Target::Pfs)],
    };
    let sim = run(&s, 1);
    check(&sim);
    let p = pfs_cfg();
    // Network both ways, forward both ways, request latency, one server's bandwidth.
    let expect = 2 * US + 2 * p.forward_latency + p.request_latency + transfer_ps(3 * MIB, 4 * GBS);
    assert_eq!(last_end(&sim), expect);
}

#[test]
fn stage_in_fills_the_bb_from_the_pfs() {
    let s = scenario(bb_cfg(1 << 30), 1, vec![]);
    let mut sim = s.build(bbsim_engine::SimConfig::default()).unwrap();
    let bb = LpId(0);
    sim.schedule(
        bb,
        0,
        HarnessEvent::StageIn {
            alloc: 3,
            file: 9,
            bytes: 10 * MIB,
        },
    )
    .unwrap();
    bbsim_engine::run_with_threads(&mut sim, 1).unwrap();
    let HarnessLp::Bb(b) = sim.lp(bb).unwrap() else {
        panic!("LP 0 is the BB server")
    };
    assert_eq!(b.staged.len(), 1);
    assert_eq!(b.staged[0].1, 10 * MIB);
    // Paced at 2 GB/s by the data mover.
    assert!(b.staged[0].2 >= transfer_ps(9 * MIB, 2 * GBS));
    let l = b.server.ledger();
    assert_eq!((l.staged_in, l.in_bb, l.occupied), (10 * MIB, 0, 10 * MIB));
    check(&sim);
}

#[test]
fn datawarp_allocation_stripes_over_its_grains_and_enforces_the_grant() {
    let dw = DataWarpConfig {
        grain: 4 * MIB,
        stripe_size: MIB,
    };
    let a = allocate(&dw, 10 * MIB, DwMode::Striped, &[2, 0, 1, 3]).unwrap();
    assert_eq!(a.servers, vec![2, 0, 1]);
    let mut b = bb_cfg(1 << 30);
    b.full_policy = FullPolicy::Spill;
    let mut s = scenario(
        b,
        4,
        vec![client(
            writes(0, 16, MIB),
            2,
            Target::BbLayout(a.layout_for(0, 0)),
        )],
    );
    s.reservations = vec![(1, dw.grain)];
    let sim = run(&s, 1);
    let c = check(&sim);
    // 12 MiB granted over three servers; 16 MiB written: 4 MiB spill.
    assert_eq!((c.in_bb, c.on_pfs), (12 * MIB, 4 * MIB));
    let used: Vec<u64> = bb_servers(&sim)
        .iter()
        .map(|s| s.capacity().used())
        .collect();
    assert_eq!(used, vec![4 * MIB, 4 * MIB, 4 * MIB, 0]);
}

#[test]
fn bad_configuration_names_the_key() {
    let t = Target::Bb(StripeSpec {
        stripe_count: 5,
        stripe_size: MIB,
    });
    let s = scenario(bb_cfg(1 << 30), 4, vec![client(writes(0, 1, MIB), 1, t)]);
    let e = s.build(bbsim_engine::SimConfig::default()).err().unwrap();
    assert_eq!(e.field.to_string(), "clients[0].stripe_count");
    let mut b = bb_cfg(1 << 30);
    b.ssd.write_bandwidth = 0;
    assert_eq!(
        b.validate()
            .unwrap_err()
            .within(ScenarioField::BurstBuffer)
            .to_string(),
        "burst_buffer.ssd.write_bandwidth must be > 0, got 0"
    );
    let mut b = bb_cfg(1 << 30);
    b.drain.evict = false;
    assert!(b.validate().is_ok(), "nothing to evict when nothing drains");
    b.drain.policy = DrainPolicy::Immediate;
    assert_eq!(b.validate().unwrap_err().field.to_string(), "drain.evict");
    let mut b = bb_cfg(1 << 30);
    b.threads = 0;
    assert_eq!(b.validate().unwrap_err().field.to_string(), "threads");
    let mut b = bb_cfg(1 << 30);
    b.unit = 2 << 30;
    assert_eq!(b.validate().unwrap_err().field.to_string(), "unit");
}

fn mixed() -> Scenario {
    let mut clients_v = Vec::new();
    for i in 0..12u64 {
        let mut c = client(
            writes(i, 24, MIB / 2 + i * 4096),
            3,
            Target::Bb(StripeSpec {
                stripe_count: 2,
                stripe_size: 256 * 1024,
            }),
        );
        c.alloc = (i % 3) as u32;
        c.stream = c.alloc;
        c.start = i * 7 * US;
        clients_v.push(c);
    }
    let mut b = bb_cfg(24 * MIB);
    b.ssds = 2;
    b.drain.policy = DrainPolicy::Threshold;
    b.drain.threshold = 0.5;
    b.request_overhead = 3 * US;
    b.threads = 4;
    scenario(b, 3, clients_v)
}

#[test]
fn results_are_identical_across_thread_counts() {
    let digest = |sim: &Simulation<HarnessLp>| {
        let recs: Vec<_> = clients(sim)
            .iter()
            .flat_map(|c| c.records.clone())
            .collect();
        let ledgers: Vec<_> = bb_servers(sim).iter().map(|s| s.ledger()).collect();
        (recs, ledgers, Conservation::of(sim))
    };
    let s = mixed();
    let reference = run(&s, 1);
    check(&reference);
    let r = digest(&reference);
    assert!(r.0.len() == 12 * 24);
    for threads in [2, 3, 4] {
        let sim = run(&s, threads);
        assert_eq!(digest(&sim), r, "{threads} threads differ");
    }
}

/// Runs `s` on one thread, first telling every BB server that at most `bound` units will be
/// allocated on it ([`bbsim_storage::BbServer::bound_allocations`]).
fn run_bounded(s: &Scenario, bound: u64) -> Simulation<HarnessLp> {
    let mut sim = s.build(bbsim_engine::SimConfig::default()).expect("valid");
    tell_servers(&mut sim, || HarnessEvent::BoundAllocations(bound));
    bbsim_engine::run_with_threads(&mut sim, 1).expect("runs");
    sim
}

/// Everything a run reports about its clients and servers, for comparing two runs.
fn outcome(sim: &Simulation<HarnessLp>) -> String {
    let recs: Vec<_> = clients(sim)
        .iter()
        .flat_map(|c| c.records.iter().map(|r| (r.id, r.start, r.end, r.spilled)))
        .collect();
    let servers: Vec<_> = bb_servers(sim)
        .iter()
        .map(|b| (b.ledger(), b.capacity().used(), b.ssds()[0].stats().clone()))
        .collect();
    format!("{recs:?} {servers:?} {:?}", Conservation::of(sim))
}

#[test]
fn a_server_that_cannot_fill_keeps_no_drain_queue_and_reports_the_same() {
    // 48 writes of 1 MiB, overwriting half of them, on a 64 MiB server that never drains.
    let t = Target::Bb(StripeSpec {
        stripe_count: 2,
        stripe_size: MIB,
    });
    let mut ops = writes(0, 32, MIB);
    ops.extend(writes(0, 16, MIB));
    let s = scenario(bb_cfg(64 * MIB), 2, vec![client(ops, 4, t)]);
    let queued = run(&s, 1);
    // 48 writes of 1 MiB touch at most 48 + 2 * 48 units: within each server's 64.
    let bounded = run_bounded(&s, 48);
    check(&bounded);
    assert!(bb_servers(&queued).iter().all(|b| b.keeps_drain_order()));
    assert!(bb_servers(&bounded).iter().all(|b| !b.keeps_drain_order()));
    assert_eq!(outcome(&queued), outcome(&bounded));
    assert_eq!(check(&bounded).in_bb, 32 * MIB, "the overwrites superseded");
}

#[test]
fn a_full_server_that_never_drains_keeps_its_writers_waiting() {
    // The server holds 8 MiB, drain policy `none`, and is told at most 1 unit will come; 32
    // MiB do: the first 8 are written, the rest wait for ever (nothing drains, nothing is
    // lost), and the run ends with them still waiting.
    let mut s = overflowing_writer();
    if let Some((b, _)) = s.bb.as_mut() {
        b.drain.policy = DrainPolicy::None;
    }
    let sim = run_bounded(&s, 1);
    let server = bb_servers(&sim)[0];
    let l = server.ledger();
    assert_eq!(l.drain_handed, 0, "none never drains: {l:?}");
    assert_eq!(server.capacity().used(), 8 * MIB);
    assert_eq!(l.received - l.stalled, 8 * MIB);
    assert!(!server.waiting_writes().is_empty());
    assert!(clients(&sim)[0].records.len() < 32);
}

#[test]
fn the_drain_queue_is_dropped_only_when_nothing_can_drain() {
    use bbsim_storage::{BbServer, Endpoint};
    let server = |cfg: BbServerConfig| BbServer::new(cfg, Endpoint(0), vec![Endpoint(1)]).unwrap();
    // 64 units of 1 MiB.
    let mut s = server(bb_cfg(64 * MIB));
    assert!(s.keeps_drain_order(), "kept unless told otherwise");
    assert!(s.bound_allocations(64), "room for every unit, never drains");
    assert!(!s.keeps_drain_order());
    assert!(
        !s.bound_allocations(65),
        "one unit too many: a write could stall"
    );
    assert!(s.keeps_drain_order());
    // A reservation below the bound could stall its writer.
    let mut s = server(bb_cfg(64 * MIB));
    s.reserve(3, 16 * MIB).unwrap();
    assert!(!s.bound_allocations(17));
    assert!(s.bound_allocations(16));
    // Any other drain policy reads the queue.
    for policy in [
        DrainPolicy::Immediate,
        DrainPolicy::JobEnd,
        DrainPolicy::Threshold,
    ] {
        let mut cfg = bb_cfg(64 * MIB);
        cfg.drain.policy = policy;
        cfg.drain.threshold = 0.5;
        let mut s = server(cfg);
        assert!(!s.bound_allocations(1));
        assert!(s.keeps_drain_order());
    }
}

#[test]
fn settled_units_keep_only_their_slot() {
    let size = |policy, evict: bool, ops| {
        let mut b = bb_cfg(64 * MIB);
        b.drain.policy = policy;
        b.drain.evict = evict;
        if !evict {
            b.full_policy = FullPolicy::Spill;
        }
        let t = Target::Bb(StripeSpec {
            stripe_count: 1,
            stripe_size: MIB,
        });
        let sim = run(&scenario(b, 1, vec![client(ops, 4, t)]), 1);
        check(&sim);
        bb_servers(&sim)[0].unit_table_size()
    };
    // Never drained: 32 wholly dirty units, then 16 of them overwritten.
    let mut ops = writes(0, 32, MIB);
    ops.extend(writes(0, 16, MIB));
    let s = size(DrainPolicy::None, true, ops);
    assert_eq!((s.units, s.active), (32, 0), "{s:?}");
    // Drained and kept: clean units.
    for policy in [DrainPolicy::JobEnd, DrainPolicy::Immediate] {
        let s = size(policy, false, writes(0, 32, MIB));
        assert_eq!((s.units, s.active), (32, 0), "{policy:?}: {s:?}");
    }
    // Drained and evicted: none left.
    let s = size(DrainPolicy::Immediate, true, writes(0, 32, MIB));
    assert_eq!((s.units, s.active), (0, 0), "{s:?}");
    // Writes of a unit and a half every two units: every second unit is left partly dirty
    // and keeps its whole record.
    let ops = (0..4)
        .map(|i| bbsim_storage::standalone::ClientOp {
            op: bbsim_storage::IoOp::Write,
            file: 0,
            offset: 2 * i * MIB,
            len: 3 * MIB / 2,
        })
        .collect();
    let s = size(DrainPolicy::None, true, ops);
    assert_eq!((s.units, s.active), (8, 4), "{s:?}");
}
