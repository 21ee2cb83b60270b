#![allow(missing_docs)] // criterion_group!/criterion_main! generate undocumented items
//! PHOLD on the PDES engine: the reference configuration (2,048 LPs, 16 start events per
//! LP, remote 0.1, mean 1.0, lookahead 0.5) on every executor and pending-event structure.
//!
//! Run with `cargo bench --bench phold`. Throughput is reported in committed events per second.

use bbsim_engine::phold::PholdParams;
use bbsim_engine::{Executor, Parallel, PartitionSpec, PendingKind, Sequential, SequentialOrder};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use std::time::Duration;

fn params(end: f64) -> PholdParams {
    bbsim_benches::reference_phold(end)
}

fn events_for(p: &PholdParams) -> u64 {
    let mut sim = p.build(PartitionSpec::Auto);
    sim.run(&Sequential::default()).expect("phold runs").events
}

fn bench_executor<X: Executor>(c: &mut Criterion, group: &str, name: &str, x: X) {
    let p = params(600.0);
    let events = events_for(&p);
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(events));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(8));
    // Building the 2,048 LPs is set-up, not executor work: only the run is timed.
    g.bench_function(BenchmarkId::from_parameter(name), |b| {
        b.iter_batched(
            || p.build(PartitionSpec::Auto),
            |mut sim| sim.run(&x).expect("phold runs").events,
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn phold(c: &mut Criterion) {
    for pending in [PendingKind::Ring, PendingKind::Heap, PendingKind::Window] {
        for order in [SequentialOrder::Windowed, SequentialOrder::Global] {
            bench_executor(
                c,
                "phold_sequential",
                &format!("{order:?}-{pending:?}"),
                Sequential { pending, order },
            );
        }
        for threads in [1, 2] {
            bench_executor(
                c,
                "phold_parallel",
                &format!("{threads}thr-{pending:?}"),
                Parallel { threads, pending },
            );
        }
    }
}

criterion_group!(benches, phold);
criterion_main!(benches);
