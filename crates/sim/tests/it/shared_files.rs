//! Shared files against closed forms: extent locks cost nothing to a client on its own
//! stripes (a shared file with one writer per stripe runs exactly like a file per process),
//! and `k` clients writing one stripe at once wait `0, R, 2R, ..., (k - 1)R` for their locks.

use crate::common::{file, load, pfs_ior, run, Scratch};

/// A small fat-tree whose IOR job `ior` (one rank per node) writes to the PFS: one I/O node,
/// one storage server, 1 MiB stripes.
fn scenario(name: &str, ranks: u32, ior: &str) -> Scratch {
    pfs_ior(name, ranks, 1, ior, "")
}

/// `ranks.csv` of a run of `path` with overrides `set`.
fn ranks_csv(path: &std::path::Path, set: &[&str]) -> String {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    let loaded = load(path, &set);
    String::from_utf8(file(&run(&loaded, 1), "ranks.csv").to_vec()).expect("UTF-8")
}

/// The ranks' time in I/O (s), summed.
fn io_time_sum(csv: &str) -> f64 {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = header
        .iter()
        .position(|h| *h == "time_in_io_s")
        .expect("time_in_io_s");
    lines
        .map(|l| {
            l.split(',')
                .nth(col)
                .expect("column")
                .parse::<f64>()
                .expect("number")
        })
        .sum()
}

const LOCKS: &[&str] = &["pfs.extent_locks=true", "pfs.lock_revocation=10ms"];

#[test]
fn one_writer_per_stripe_runs_exactly_like_a_file_per_process() {
    // One rank: the shared file and the file per process are the same operations.
    let shared = scenario("one-writer", 1, "-a MPIIO -w -k -b 4m -t 256k");
    let fpp = scenario("one-writer-fpp", 1, "-a MPIIO -w -k -b 4m -t 256k -F");
    assert_eq!(ranks_csv(&shared, LOCKS), ranks_csv(&fpp, LOCKS));
    assert_eq!(ranks_csv(&shared, LOCKS), ranks_csv(&shared, &[]));
    // Four nodes, each block a whole number of stripes: no stripe has two writers, so the
    // locks cost nothing.
    let aligned = scenario("aligned", 4, "-a MPIIO -w -r -k -b 2m -t 512k -s 2");
    assert_eq!(ranks_csv(&aligned, LOCKS), ranks_csv(&aligned, &[]));
}

#[test]
fn writers_sharing_a_stripe_wait_one_revocation_each_in_turn() {
    // k nodes write one 64 KiB block each into the same 1 MiB stripe at once: the locks are
    // granted at 0, R, ..., (k - 1) R, so the ranks' I/O time grows by R k (k - 1) / 2 in all.
    let r = 10e-3;
    let mut last = 0.0;
    for k in [1u32, 2, 4, 8] {
        let p = scenario(&format!("stripe-{k}"), k, "-a MPIIO -w -k -b 64k -t 64k");
        let extra = io_time_sum(&ranks_csv(&p, LOCKS)) - io_time_sum(&ranks_csv(&p, &[]));
        let expected = r * f64::from(k * (k - 1)) / 2.0;
        assert!(
            (extra - expected).abs() <= 1e-4 * f64::from(k),
            "{k} writers: {extra} s more, closed form {expected} s"
        );
        assert!(k == 1 || extra > last, "grows with the writers per stripe");
        last = extra;
    }
}
