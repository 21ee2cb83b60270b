//! Storage benchmark: one BB server (6 SSDs with FTL, 1 MiB mapping units) absorbing 1 TiB of
//! 1 MiB writes from 64 clients over an ideal network. See docs/performance.md (## Storage).
//!
//! Run with `cargo bench -p bbsim-benches --bench storage`; `benches/Cargo.toml`
//! lists it with the `bbsim-storage` dependency.

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use bbsim_engine::{run_with_threads, SimConfig};
use bbsim_storage::standalone::absorb_scenario;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::time::Duration;

fn absorb(c: &mut Criterion) {
    let mut g = c.benchmark_group("storage");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(60));
    g.warm_up_time(Duration::from_secs(1));
    // 64 clients × 16,384 writes × 1 MiB = 1 TiB. Build (FTL allocation) is excluded by
    // iter_batched; the `absorb` example times build + run together.
    g.bench_function("bb_absorb_1TiB_1MiB_64_clients", |b| {
        b.iter_batched(
            || {
                absorb_scenario(64, 16_384, 1 << 20)
                    .build(SimConfig::default())
                    .expect("valid benchmark scenario")
            },
            |mut sim| run_with_threads(&mut sim, 1).expect("runs"),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(benches, absorb);
criterion_main!(benches);
