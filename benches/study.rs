//! Study benchmark: the burst-buffer placement study's most expensive application, GTC
//! (`scenarios/study/gtc.toml`: 7,680 ranks on 1,280 fragmented nodes of the Summit-like
//! fat-tree with the global BB, 4 KiB packets in 64 KiB units, per-SSD model, 20 us
//! per-operation overhead), with 4 MB per rank instead of 669.41 MB (30.7 GB through the
//! network and the BB servers instead of 5.14 TB), one thread. It tracks the per-byte cost of
//! the packet model on the study's machines, which decides how long the 297-run matrix takes
//! (docs/study.md, docs/performance.md); each iteration assembles the model (stripe sets of
//! all 1,280 nodes included), runs it and reduces the results.
//!
//! The file's network model moves 4 KiB packets in 64 KiB units (`simulation.unit_size`,
//! docs/network.md "Units"), the model that matches 4 KiB packets within their seed-to-seed
//! spread on this case at a ninth of their events. A second case runs the same with the
//! experimental flow model (`network.model = "flow"`, 4 MiB packets: one flow per message,
//! docs/network.md §2c), to track what it saves; a third with 64 KiB packets moved one at a
//! time, the setting of the archived study matrix (study/archive/).
//!
//! Run with `cargo bench -p bbsim-benches --bench study`.

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use bbsim_sim::run::load_scenario;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;
use std::time::Duration;

/// Bytes written per run: every GTC rank but rank 0 writes (7,679 x 4 MB).
const BYTES: u64 = 7_679 * 4_000_000;

fn study_gtc(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/study/gtc.toml");
    let mut g = c.benchmark_group("study");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(60));
    g.warm_up_time(Duration::from_secs(1));
    g.throughput(Throughput::Bytes(BYTES));
    let loaded =
        load_scenario(&path, &["jobs.0.bytes_per_rank=4MB".to_string()]).expect("gtc loads");
    g.bench_function("gtc_summit_global_4MB_per_rank", |b| {
        b.iter(|| bbsim_benches::run_scenario_once(&loaded))
    });
    let flow = load_scenario(
        &path,
        &[
            "jobs.0.bytes_per_rank=4MB".to_string(),
            "network.model=flow".to_string(),
            "simulation.packet_size=4MiB".to_string(),
        ],
    )
    .expect("gtc loads with the flow model");
    g.bench_function("gtc_summit_global_4MB_per_rank_flow_model", |b| {
        b.iter(|| bbsim_benches::run_scenario_once(&flow))
    });
    let packets = load_scenario(
        &path,
        &[
            "jobs.0.bytes_per_rank=4MB".to_string(),
            "simulation.packet_size=64KiB".to_string(),
        ],
    )
    .expect("gtc loads with 64 KiB packets");
    g.bench_function("gtc_summit_global_4MB_per_rank_64KiB_packets", |b| {
        b.iter(|| bbsim_benches::run_scenario_once(&packets))
    });
    g.finish();
}

criterion_group!(benches, study_gtc);
criterion_main!(benches);
