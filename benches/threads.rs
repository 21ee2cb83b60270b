//! Thread benchmark: the same scenario on one thread (the sequential executor), with `auto`
//! (the adaptive executor: one thread, and every core while measured to pay) and on two threads
//! (the asynchronous executor throughout), for four kinds of run:
//!
//! - `gtc_ior`: the study's GTC + IOR mix on the Summit-like fat-tree with the global BB
//!   (`scenarios/study/gtc-ior.toml`) at 4 MB per GTC rank and 8 MiB IOR blocks, on the study's
//!   network model (4 KiB packets in 64 KiB units): dense packet bursts, the case threads are
//!   for;
//! - `cori_ior`: Cori's DataWarp under IOR (`scenarios/cori-ior.toml`), all 4,480 processes at
//!   16 MiB each: a few events per lookahead window;
//! - `quickstart`: the built-in scenario, small and sparse;
//! - `ssd_isolation_nyx`: a storage-only run (`scenarios/ssd-isolation/nyx.toml`, one node's
//!   SSD).
//!
//! Results are identical on every executor (checked here on the event counts). Run with
//! `cargo bench -p bbsim-benches --bench threads`; current figures in docs/performance.md,
//! "Threads".

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use bbsim_engine::{StopReason, Threads};
use bbsim_sim::run::{load_scenario, Loaded};
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;
use std::time::Duration;

fn run(loaded: &Loaded, threads: Threads) -> u64 {
    let f = loaded.run(threads, |_| {}).expect("the scenario runs");
    assert_eq!(f.stats.stop, StopReason::Drained);
    f.stats.events
}

fn threads(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            "gtc_ior",
            "scenarios/study/gtc-ior.toml",
            &[
                "jobs.0.bytes_per_rank=4MB",
                "jobs.1.block_size=8MiB",
                "outputs.timeline=false",
            ],
        ),
        (
            "cori_ior",
            "scenarios/cori-ior.toml",
            &[r#"jobs.0.ior="-a POSIX -F -b 16m -t 1m -w -r""#],
        ),
        ("quickstart", "crates/cli/scenarios/quickstart.toml", &[]),
        ("ssd_isolation_nyx", "scenarios/ssd-isolation/nyx.toml", &[]),
    ];
    let mut g = c.benchmark_group("threads");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.warm_up_time(Duration::from_secs(1));
    for (name, file, overrides) in cases {
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let loaded = load_scenario(&root.join(file), &overrides).expect("the scenario loads");
        let events = run(&loaded, Threads::Count(1));
        for (how, threads) in [
            ("1", Threads::Count(1)),
            ("auto", Threads::Auto),
            ("2", Threads::Count(2)),
        ] {
            g.bench_function(format!("{name}/{how}"), |b| {
                b.iter(|| assert_eq!(run(&loaded, threads), events))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, threads);
criterion_main!(benches);
