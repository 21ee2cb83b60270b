//! Scenario benchmark: `scenarios/cori-ior.toml` (Cori's DataWarp under IOR) with
//! all 4,480 processes but 64 MiB per process instead of 8 GiB (573,440 1 MiB transfers), one
//! thread: as the scenario ships (packet model, transfer trains of 8 in 8 MiB packets), and
//! with every transfer on its own (1 MiB packets) under the packet and the path network
//! models. It tracks the per-transfer cost that decides whether the full-scale run (73.4 M
//! transfers) fits in 5 minutes; the full-scale wall times themselves are recorded in
//! docs/performance.md.
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
    let per_op = ["simulation.train_ops=1", "simulation.packet_size=1MiB"];
    let variants: [(&str, &[&str]); 3] = [
        ("scenario", &[]),
        ("per_transfer_packet_model", &per_op),
        (
            "per_transfer_path_model",
            &[per_op[0], per_op[1], "network.model=path"],
        ),
    ];
    for (name, extra) in variants {
        let mut overrides = vec![r#"jobs.0.ior="-a POSIX -F -b 64m -t 1m -w -r""#.to_string()];
        overrides.extend(extra.iter().map(|s| s.to_string()));
        let loaded = load_scenario(&path, &overrides).expect("cori-ior loads");
        g.bench_function(format!("64MiB_per_process_{name}"), |b| {
            b.iter(|| bbsim_benches::run_scenario_once(&loaded))
        });
    }
    g.finish();
}

criterion_group!(benches, cori_ior);
criterion_main!(benches);
