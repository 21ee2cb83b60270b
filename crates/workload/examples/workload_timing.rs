//! Times the two acceptance figures without criterion: generating the LAMMPS pattern at
//! 21,600 ranks, and parsing the largest pydarshan sample log.
//!
//! Run: `cargo run --release -p bbsim-workload --example workload_timing`

use bbsim_workload::darshan::parse_log;
use bbsim_workload::synthetic::LammpsParams;
use bbsim_workload::{job_from_log, LogJobOptions};
use std::time::Instant;

fn best_of<T>(n: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..n {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(v);
    }
    (best, last.expect("n > 0"))
}

fn main() {
    let (t, job) = best_of(5, || LammpsParams::default().job());
    println!(
        "lammps 21600 ranks: {:.3} s, {} ops in {} runs, {} files, {:.1} MiB of ops",
        t,
        job.ops.total_ops(),
        job.ops.total_runs(),
        job.files.len(),
        job.ops.heap_bytes() as f64 / (1 << 20) as f64
    );
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sample-badost.darshan"
    );
    let bytes = std::fs::read(path).expect("fixture");
    let (t, log) = best_of(10, || parse_log(&bytes, "sample-badost").expect("parses"));
    println!(
        "parse sample-badost.darshan ({} bytes): {:.4} s, {} POSIX records, {} names",
        bytes.len(),
        t,
        log.posix.len(),
        log.names.len()
    );
    let (t, job) = best_of(5, || {
        job_from_log(&log, &LogJobOptions::default()).expect("reconstructs")
    });
    println!(
        "reconstruct sample-badost.darshan: {:.4} s, {} ranks, {} ops",
        t,
        job.ranks(),
        job.ops.total_ops()
    );
}
