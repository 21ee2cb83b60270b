#![allow(missing_docs)] // criterion_group!/criterion_main! generate undocumented items
//! Workload benchmarks: generating the study's LAMMPS pattern at 21,600 ranks and the
//! full-scale Cori IOR job (73.4 M operations, stored as runs), and reading the largest
//! pydarshan sample log (and turning it into a job).
//!
//! Run: `cargo bench -p bbsim-benches --bench workload`

use bbsim_workload::darshan::{parse_log, LogSummary};
use bbsim_workload::synthetic::{IorParams, LammpsParams};
use bbsim_workload::{job_from_log, LogJobOptions};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

const LARGEST_LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../crates/workload/tests/data/sample-badost.darshan"
);
const DXT_LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../crates/workload/tests/data/dxt.darshan"
);

fn workload(c: &mut Criterion) {
    let mut g = c.benchmark_group("workload");
    g.sample_size(10);
    g.bench_function("lammps_21600_ranks_generate", |b| {
        b.iter(|| black_box(LammpsParams::default().job()))
    });
    // scenarios/cori-ior.toml's job: 4,480 ranks x 8 GiB in 1 MiB transfers, written and read
    let cori = IorParams {
        ranks: 4480,
        block_size: 8 << 30,
        transfer_size: 1 << 20,
        read: true,
        ..Default::default()
    };
    g.bench_function("ior_cori_4480_ranks_8GiB_generate", |b| {
        b.iter(|| black_box(cori.job()))
    });
    let big = std::fs::read(LARGEST_LOG).expect("fixture sample-badost.darshan");
    g.bench_function("darshan_parse_sample_badost_450KiB", |b| {
        b.iter(|| black_box(parse_log(black_box(&big), "sample-badost").unwrap()))
    });
    let log = parse_log(&big, "sample-badost").unwrap();
    g.bench_function("darshan_inspect_summary_sample_badost", |b| {
        b.iter(|| black_box(LogSummary::from_log(&log, "sample-badost")))
    });
    g.bench_function("darshan_reconstruct_sample_badost", |b| {
        b.iter(|| black_box(job_from_log(&log, &LogJobOptions::default()).unwrap()))
    });
    let dxt = std::fs::read(DXT_LOG).expect("fixture dxt.darshan");
    g.bench_function("darshan_parse_and_replay_dxt", |b| {
        b.iter(|| {
            let l = parse_log(black_box(&dxt), "dxt").unwrap();
            black_box(job_from_log(&l, &LogJobOptions::default()).unwrap())
        })
    });
    g.finish();
}

criterion_group!(benches, workload);
criterion_main!(benches);
