//! Scenario benchmark: `scenarios/cori-ior.toml` (Cori-like DataWarp under IOR, issue 8) with
//! all 4,480 processes but 64 MiB per process instead of 8 GiB (573,440 1 MiB transfers), one
//! thread, with the path network model and with the packet model the scenario ships with. It
//! tracks the per-transfer cost that decides whether the full-scale run (73.4 M transfers)
//! fits in 5 minutes; the full-scale wall times themselves are recorded in
//! docs/performance.md ("cori-ior speed-ups of session 6").
//!
//! Run with `cargo bench -p bbsim-benches --bench cori_ior`. Each iteration assembles the
//! model, runs it and reduces the results (loading and validating the TOML is done once).

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use bbsim_sim::run::load_scenario;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;
use std::time::Duration;

/// Transfers per run: 4,480 processes x 64 MiB written and read in 1 MiB transfers.
const TRANSFERS: u64 = 4_480 * 64 * 2;

fn cori_ior(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/cori-ior.toml");
    let mut g = c.benchmark_group("cori_ior");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(40));
    g.warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Elements(TRANSFERS));
    for model in ["path", "packet"] {
        let overrides = [
            "jobs.0.block_size=64MiB".to_string(),
            format!("network.model={model}"),
        ];
        let loaded = load_scenario(&path, &overrides).expect("cori-ior loads");
        g.bench_function(format!("64MiB_per_process_{model}_model"), |b| {
            b.iter(|| {
                let f = loaded.run(1, |_| {}).expect("cori-ior runs");
                assert_eq!(f.stats.stop, bbsim_engine::StopReason::Drained);
                f.stats.events
            })
        });
    }
    g.finish();
}

criterion_group!(benches, cori_ior);
criterion_main!(benches);
