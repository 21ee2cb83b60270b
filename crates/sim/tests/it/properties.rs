//! Property tests over random small scenarios, written as scenario text from a few
//! parameters (placement, job kinds, ranks, sizes, striping, seed): every one loads and runs
//! without panicking, conserves bytes (what the jobs ask to write and read is what the ranks
//! completed, and every written byte is in exactly one place at the end), and renders
//! byte-identical outputs on 1, 2 and 4 threads.

use crate::common::switching;
use bbsim_sim::output::RUN_FILES;
use bbsim_sim::run::load_scenario;
use proptest::prelude::*;

/// The parameters of one generated scenario.
#[derive(Debug, Clone)]
struct Params {
    placement: &'static str,
    seed: u64,
    stripe_count: u32,
    /// Per job: (IOR when true, else checkpoint), ranks, transfers per rank, transfer KiB,
    /// IOR reads back.
    jobs: Vec<(bool, u32, u32, u32, bool)>,
}

fn params() -> impl Strategy<Value = Params> {
    let job = (
        any::<bool>(),
        1u32..=8,
        1u32..=4,
        prop::sample::select(vec![4u32, 64, 128, 200]),
        any::<bool>(),
    );
    (
        prop::sample::select(vec!["none", "node-local", "grouped", "global"]),
        0..=i64::MAX as u64, // TOML integers are signed 64-bit
        1u32..=2,
        prop::collection::vec(job, 1..=2),
    )
        .prop_map(|(placement, seed, stripe_count, jobs)| Params {
            placement,
            seed,
            stripe_count,
            jobs,
        })
}

/// The scenario text of `p`: a 12-node three-level fat-tree (4-port switches) with its burst
/// buffer placed as `p.placement`, and IOR or checkpoint jobs of two ranks per node.
fn scenario(p: &Params) -> String {
    let mut s = format!(
        r#"name = "property"
[simulation]
seed = {seed}
packet_size = "64KiB"
[network]
topology = "fat-tree"
levels = 3
radix = 4
nodes = 12
link_bandwidth = "12.5GB/s"
link_latency = "50ns"
router_delay = "90ns"
[burst_buffer]
placement = "{placement}"
stripe_count = {stripes}
stripe_size = "128KiB"
[burst_buffer.ssd]
write_bandwidth = "1.4GB/s"
read_bandwidth = "2.3GB/s"
op_overhead = "20us"
capacity = "64GB"
[pfs]
io_nodes = 2
servers = 4
server_bandwidth = "2GB/s"
latency = "100us"
"#,
        seed = p.seed,
        placement = p.placement,
        stripes = p.stripe_count
    );
    for (i, &(ior, ranks, transfers, kib, read)) in p.jobs.iter().enumerate() {
        let bytes = transfers * kib;
        s.push_str(&format!(
            "[[jobs]]\nname = \"j{i}\"\nranks = {ranks}\nranks_per_node = 2\ntransfer_size = \"{kib}KiB\"\n"
        ));
        if ior {
            s.push_str(&format!(
                "source = \"ior\"\nblock_size = \"{bytes}KiB\"\nread = {read}\n"
            ));
        } else {
            s.push_str(&format!(
                "source = \"checkpoint\"\nbytes_per_rank = \"{bytes}KiB\"\nperiod = \"100us\"\ncheckpoints = 2\n"
            ));
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 6, ..ProptestConfig::default() })]

    #[test]
    fn random_small_scenarios_conserve_bytes_and_do_not_depend_on_threads(p in params()) {
        let dir = tempfile::tempdir().expect("scratch directory");
        let path = dir.path().join("property.toml");
        std::fs::write(&path, scenario(&p)).expect("scenario written");
        let l = load_scenario(&path, &[]).unwrap_or_else(|d| panic!("{d}\n{}", scenario(&p)));

        let requested = l.design.workload.jobs.iter().fold((0u64, 0u64), |(w, r), j| {
            let t = j.totals();
            (w + t.bytes_written, r + t.bytes_read)
        });
        prop_assert!(requested.0 > 0);

        let mut first = None;
        for threads in ["1", "2", "4", "switching"] {
            let f = match threads {
                // Between one thread and two, every 3 windows.
                "switching" => l.run_on(&switching(2, 3), |_| {}),
                n => l.run(n.parse::<usize>().unwrap_or(1), |_| {}),
            }
            .unwrap_or_else(|e| panic!("{threads} threads: {e}"));
            let c = &f.results.conservation;
            let served = f.results.jobs.iter().fold((0u64, 0u64), |(w, r), j| {
                (w + j.bytes_written, r + j.bytes_read)
            });
            prop_assert_eq!(served, requested, "bytes served against bytes requested");
            prop_assert_eq!(c.written, requested.0);
            prop_assert_eq!(c.node_local + c.to_bb + c.to_pfs, c.written, "{:?}", c);
            prop_assert!(c.holds, "conservation: {:?}", c);
            let r = l.render(&f);
            for (name, _) in &r.files {
                prop_assert!(RUN_FILES.contains(name), "{} is not in RUN_FILES", name);
            }
            let deterministic: Vec<(&str, Vec<u8>)> = r
                .files
                .iter()
                .filter(|(n, _)| *n != "summary.json")
                .map(|(n, b)| (*n, b.clone()))
                .collect();
            match &first {
                None => first = Some((r.digest, deterministic)),
                Some((digest, files)) => {
                    prop_assert_eq!(r.digest, *digest, "digest on {} threads", threads);
                    prop_assert!(files == &deterministic, "outputs differ on {} threads", threads);
                }
            }
        }
    }
}
