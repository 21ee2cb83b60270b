//! Shared helpers for the integration tests.
#![allow(dead_code)]

use bbsim_engine::{run_with_threads, SimConfig, Simulation};
use bbsim_storage::standalone::{ClientLp, ClientOp, HarnessLp, IdealNet, Scenario};
use bbsim_storage::IoOp;
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

/// The client LPs.
pub fn clients(sim: &Simulation<HarnessLp>) -> Vec<&ClientLp> {
    sim.lps()
        .filter_map(|l| match l {
            HarnessLp::Client(c) => Some(&**c),
            _ => None,
        })
        .collect()
}
