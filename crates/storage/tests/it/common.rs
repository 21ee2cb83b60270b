//! Shared helpers for the integration tests.

use bbsim_engine::time::US;
use bbsim_engine::{run_with_threads, LpId, SimConfig, Simulation};
use bbsim_storage::capacity::FullPolicy;
use bbsim_storage::drain::{DrainConfig, DrainPolicy};
use bbsim_storage::pfs::PfsConfig;
use bbsim_storage::placement::StripeSpec;
use bbsim_storage::ssd::SsdConfig;
use bbsim_storage::standalone::{
    ClientLp, ClientOp, ClientSpec, HarnessEvent, HarnessLp, IdealNet, Scenario, Target,
};
use bbsim_storage::units::KIB;
use bbsim_storage::{BbLedger, BbServer, BbServerConfig, DeviceStats, IoOp};
use std::sync::Arc;

/// An ideal network with `latency` ps and hops = |a - b| between endpoint indices.
pub fn line_net(latency: u64) -> IdealNet {
    IdealNet {
        latency,
        hops: Arc::new(|a: u32, b: u32| a.abs_diff(b)),
    }
}

/// `n` sequential writes of `size` bytes to `file`.
pub fn writes(file: u64, n: u64, size: u64) -> Vec<ClientOp> {
    (0..n)
        .map(|i| ClientOp {
            op: IoOp::Write,
            file,
            offset: i * size,
            len: size,
        })
        .collect()
}

/// Builds and runs a scenario to completion with `threads` threads.
pub fn run(s: &Scenario, threads: usize) -> Simulation<HarnessLp> {
    run_until(s, threads, u64::MAX)
}

/// Builds and runs a scenario until `end` ps.
pub fn run_until(s: &Scenario, threads: usize, end: u64) -> Simulation<HarnessLp> {
    let mut sim = s
        .build(SimConfig {
            end_time: end,
            ..SimConfig::default()
        })
        .expect("valid scenario");
    run_with_threads(&mut sim, threads).expect("runs");
    sim
}

/// Schedules the event `ev()` at time 0 on every BB server of `sim` (settings a test gives
/// the servers before any request arrives).
pub fn tell_servers(sim: &mut Simulation<HarnessLp>, ev: impl Fn() -> HarnessEvent) {
    let bbs: Vec<LpId> = sim
        .lps()
        .enumerate()
        .filter(|(_, l)| matches!(l, HarnessLp::Bb(_)))
        .map(|(i, _)| LpId(i as u32))
        .collect();
    for id in bbs {
        sim.schedule(id, 0, ev()).expect("schedules");
    }
}

/// The client LPs.
pub fn clients(sim: &Simulation<HarnessLp>) -> Vec<&ClientLp> {
    sim.lps()
        .filter_map(|l| match l {
            HarnessLp::Client(c) => Some(&**c),
            _ => None,
        })
        .collect()
}

/// A PFS of four 4 GB/s servers (16 GB/s in all), 10 µs per request, 128 KiB stripes.
pub fn pfs() -> PfsConfig {
    PfsConfig {
        servers: 4,
        server_bandwidth: 4_000_000_000,
        aggregate_bandwidth: 16_000_000_000,
        request_latency: 10 * US,
        stripe_size: 128 * KIB,
        stripe_count: 1,
        file_stripe_counts: Vec::new(),
        forward_latency: US,
        metadata: None,
    }
}

/// Striping over `count` BB servers in `stripe`-byte units.
pub fn target(count: u32, stripe: u64) -> Target {
    Target::Bb(StripeSpec {
        stripe_count: count,
        stripe_size: stripe,
    })
}

/// A client of allocation (and stream) `alloc` running `ops` with `depth` in flight.
pub fn client(ops: Vec<ClientOp>, depth: u32, target: Target, alloc: u32) -> ClientSpec {
    ClientSpec {
        ops,
        depth,
        target,
        alloc,
        stream: alloc,
        start: 0,
        train: 1,
    }
}

/// `servers` BB servers `bb`, two PFS I/O nodes of [`pfs`], on a 1 µs line network.
pub fn scenario(bb: BbServerConfig, servers: usize, clients: Vec<ClientSpec>) -> Scenario {
    Scenario {
        net: line_net(US),
        bb: Some((bb, servers)),
        reservations: vec![],
        pfs: Some((pfs(), 2)),
        clients,
    }
}

/// The BB servers in LP order.
pub fn servers(sim: &Simulation<HarnessLp>) -> Vec<&BbServer> {
    sim.lps()
        .filter_map(|l| match l {
            HarnessLp::Bb(b) => Some(&b.server),
            _ => None,
        })
        .collect()
}

/// Every simulated device's statistics (time integrals closed at `end`), server by server.
pub fn ssd_stats(sim: &Simulation<HarnessLp>, end: u64) -> Vec<DeviceStats> {
    servers(sim)
        .iter()
        .flat_map(|b| b.ssds().iter().map(move |d| d.stats_at(end)))
        .collect()
}

/// Every BB server's byte counters, in LP order.
pub fn ledgers(sim: &Simulation<HarnessLp>) -> Vec<BbLedger> {
    servers(sim).iter().map(|b| b.ledger()).collect()
}

/// A BB server of `ssds` SSDs with `channels` channels each: the given read and write
/// bandwidths (bytes/s) and per-operation overhead (ps), 64 GiB per SSD, 128 KiB units, one
/// unit per chunk, per-SSD devices, 4,096 threads, no staging, stall when full, and a data
/// mover (4 GB/s, 4 outstanding, evicting) that drains only under pressure.
pub fn bb_config(
    ssds: u32,
    channels: u32,
    read_bandwidth: u64,
    write_bandwidth: u64,
    op_overhead: u64,
) -> BbServerConfig {
    BbServerConfig {
        ssd: SsdConfig {
            capacity: 1 << 36,
            read_bandwidth,
            write_bandwidth,
            op_overhead,
            access_latency: 0,
            channels,
            ..SsdConfig::default()
        },
        ssds,
        unit: 128 * KIB,
        chunk_units: 1,
        ssd_model: Default::default(),
        threads: 4096,
        request_overhead: 0,
        staging: None,
        full_policy: FullPolicy::Stall,
        drain: DrainConfig {
            policy: DrainPolicy::None,
            threshold: 0.8,
            bandwidth: 4_000_000_000,
            max_outstanding: 4,
            evict: true,
        },
    }
}
