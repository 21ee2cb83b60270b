//! Collective MPI-IO (IOR `-c`, `[jobs.mpi_io]`) served by ROMIO's two-phase I/O, against
//! closed forms: with every rank's data in its own aggregator's domain nothing is exchanged
//! and the run is the independent run shifted by the offsets' allgather (one barrier, two
//! control latencies); otherwise only the aggregators write, every byte once, and the run's
//! times differ; any thread count gives the same outputs.

use crate::common::{file, load, pfs_ior, run, summary, Scratch};
use bbsim_sim::run::load_scenario;

/// A small fat-tree whose IOR job `ior` writes to the PFS (one I/O node, one server), with
/// `mpi_io` as the job's `[jobs.mpi_io]` table (empty: none).
fn scenario(name: &str, ranks: u32, rpn: u32, ior: &str, mpi_io: &str) -> Scratch {
    let table = if mpi_io.is_empty() {
        String::new()
    } else {
        format!("[jobs.mpi_io]\n{mpi_io}\n")
    };
    pfs_ior(name, ranks, rpn, ior, &table)
}

/// `ranks.csv` as rows of columns (header dropped).
fn ranks(csv: &[u8]) -> Vec<Vec<String>> {
    let text = std::str::from_utf8(csv).expect("UTF-8");
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// Column `k` of `ranks.csv` as numbers: 3 bytes written, 5 I/O operations, 6 time in I/O,
/// 7 first I/O start, 8 last I/O end, 9 finish (s).
fn col(rows: &[Vec<String>], k: usize) -> Vec<f64> {
    rows.iter().map(|r| r[k].parse().unwrap_or(0.0)).collect()
}

#[test]
fn own_domains_cost_only_the_offsets_allgather() {
    // One rank per node, one call of one block per rank (-t = -b): rank r's block is
    // aggregator r's domain, so nothing is exchanged and every rank writes its own block.
    let ior = "-a MPIIO -w -k -b 4m -t 4m";
    let enable = "romio_cb_write = \"enable\"";
    let ind = scenario("cb-own-ind", 4, 1, ior, enable);
    let col_ = scenario("cb-own-coll", 4, 1, &format!("{ior} -c"), enable);
    let a = ranks(file(&run(&load(&ind, &[]), 1), "ranks.csv"));
    let b = ranks(file(&run(&load(&col_, &[]), 1), "ranks.csv"));
    for k in [3, 5, 6] {
        assert_eq!(col(&a, k), col(&b, k), "column {k}");
    }
    // The allgather is one barrier: arrival and release, 1 us each.
    for k in [7, 8, 9] {
        for (x, y) in col(&a, k).iter().zip(col(&b, k)) {
            assert!((y - x - 2e-6).abs() < 1e-9, "column {k}: {x} then {y}");
        }
    }
}

#[test]
fn aggregators_write_everything_and_times_change() {
    // 8 ranks on 8 nodes, 2 segments of 1 MiB blocks in 256 KiB transfers, 4 aggregators
    // (ranks 0-3, on the first 4 nodes). Call k's pieces lie 1 MiB apart over 7.25 MiB, so
    // aggregator a's 1.8125 MiB domain holds the pieces of ranks 2a and 2a + 1 (one of them on
    // another node), each in its own 512 KiB round: it writes both, 2 per call, 16 in all.
    let ior = "-a MPIIO -w -k -b 1m -t 256k -s 2";
    let enable = "romio_cb_write = \"enable\"\ncb_nodes = 4\ncb_buffer_size = \"512KiB\"";
    let ind = scenario("cb-agg-ind", 8, 1, ior, enable);
    let coll = scenario("cb-agg-coll", 8, 1, &format!("{ior} -c"), enable);
    let a = ranks(file(&run(&load(&ind, &[]), 1), "ranks.csv"));
    let loaded = load(&coll, &[]);
    let one = run(&loaded, 1);
    let b = ranks(file(&one, "ranks.csv"));
    let mib = f64::from(1 << 20);
    assert_eq!(col(&a, 3), vec![2.0 * mib; 8]);
    let aggregators = |v: f64| [v, v, v, v, 0.0, 0.0, 0.0, 0.0].to_vec();
    assert_eq!(col(&b, 3), aggregators(4.0 * mib), "bytes written per rank");
    assert_eq!(col(&b, 5), aggregators(16.0), "writes per rank");
    assert_ne!(
        col(&a, 9),
        col(&b, 9),
        "collective buffering changes the times"
    );
    // The path and flow network models carry the messages too: the same bytes land.
    for model in ["path", "flow"] {
        let set = [format!("network.model=\"{model}\"")];
        let other = ranks(file(&run(&load(&coll, &set), 1), "ranks.csv"));
        assert_eq!(col(&other, 3), col(&b, 3), "{model} model");
    }
    for threads in [2, 4] {
        let many = run(&loaded, threads);
        assert!(
            file(&one, "ranks.csv") == file(&many, "ranks.csv"),
            "{threads} threads"
        );
        let digest = |r| summary(r)["results_digest"].clone();
        assert_eq!(digest(&one), digest(&many), "{threads} threads");
    }
}

#[test]
fn bad_hints_name_their_key() {
    let ior = "-a MPIIO -w -k -b 1m -t 1m -c";
    for (hint, key) in [
        ("cb_nodes = 0", "jobs[0].mpi_io.cb_nodes"),
        ("cb_nodes = 5", "jobs[0].mpi_io.cb_nodes"),
        ("cb_buffer_size = \"0B\"", "jobs[0].mpi_io.cb_buffer_size"),
    ] {
        let p = scenario("cb-bad", 8, 2, ior, hint);
        let d = match load_scenario(&p, &[]) {
            Ok(_) => panic!("{hint} was accepted"),
            Err(d) => d,
        };
        assert_eq!(d.key.as_deref(), Some(key), "{d}");
        assert!(d.line.is_some(), "{d}");
    }
}
