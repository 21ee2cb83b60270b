//! The PFS metadata server (`pfs.metadata_latency`, `pfs.metadata_threads`): every open, close
//! and delete of a PFS file waits for it. Closed forms for one rank and for many ranks at
//! once, unchanged byte results, and bad values refused naming their key.

use crate::common::{load, run, scenario, scratch, small_quickstart, summary};
use bbsim_sim::run::load_scenario;

const MS: u64 = 1_000_000_000;

/// `ranks` ranks, one per node, each writing `repetitions` times one 4 KiB file of its own
/// (IOR file per process: an open, the write and a close per repetition) to the PFS.
fn small_files(ranks: u32, repetitions: u32) -> String {
    format!(
        r#"
name = "pfs-metadata"

[network]
topology = "fat-tree"
levels = 2
radix = 8

[burst_buffer]
placement = "none"

[pfs]
io_nodes = 2
servers = 4
latency = "10us"

[[jobs]]
name = "ior"
source = "ior"
ranks = {ranks}
ranks_per_node = 1
block_size = "4KiB"
transfer_size = "4KiB"
repetitions = {repetitions}
write = true
read = false
allocation = "contiguous"
"#
    )
}

/// The job's run time (ps) of `text` with `sets`.
fn run_time(name: &str, text: &str, sets: &[&str]) -> u64 {
    times(name, text, sets).0
}

/// The job's run time and its longest time in I/O of a rank (ps) of `text` with `sets`.
fn times(name: &str, text: &str, sets: &[&str]) -> (u64, u64) {
    let dir = scratch(name);
    let p = dir.join("scenario.toml");
    std::fs::write(&p, text).expect("writes the scenario");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = summary(&run(&load(&p, &sets), 1));
    let ps = |key: &str| (s["jobs"][0][key].as_f64().expect(key) * 1e12).round() as u64;
    (ps("run_time_s"), ps("time_in_io_max_s"))
}

#[test]
fn one_ranks_metadata_operations_take_one_latency_each() {
    // 5 repetitions: 5 opens and 5 closes, one after another.
    let text = small_files(1, 5);
    let (free, io_free) = times("mds-one-0", &text, &[]);
    let (t1, io1) = times("mds-one-1", &text, &["pfs.metadata_latency=1ms"]);
    let (t3, io3) = times("mds-one-3", &text, &["pfs.metadata_latency=3ms"]);
    // Each operation adds its service time and a round trip to the metadata server, to the
    // run and to the rank's time in I/O.
    assert_eq!(t3 - t1, 10 * 2 * MS, "{t1} ps at 1 ms, {t3} ps at 3 ms");
    assert_eq!(io3 - io1, 10 * 2 * MS, "{io1} ps at 1 ms, {io3} ps at 3 ms");
    assert_eq!(io1 - io_free, t1 - free);
    assert!(
        t1 - free >= 10 * MS,
        "{free} ps without metadata, {t1} ps at 1 ms"
    );
    assert!(
        t1 - free < 10 * MS + 10 * MS / 10,
        "round trips of {} ps",
        t1 - free
    );
    // A single rank never has two operations queued: the threads change nothing.
    let threads = run_time(
        "mds-one-t",
        &text,
        &["pfs.metadata_latency=1ms", "pfs.metadata_threads=4"],
    );
    assert_eq!(threads, t1);
}

#[test]
fn many_ranks_metadata_operations_finish_in_waves_of_threads() {
    // 24 ranks: 48 operations (an open and a close each), all at once at threads c.
    let latency = 10 * MS;
    let text = small_files(24, 1);
    for c in [1u64, 4, 5, 48] {
        let t = run_time(
            "mds-many",
            &text,
            &[
                "pfs.metadata_latency=10ms",
                &format!("pfs.metadata_threads={c}"),
            ],
        );
        // The server is busy from the first open until the last close: ceil(48 / c)
        // latencies, plus round trips and the writes (under 100 us).
        let waves = 48u64.div_ceil(c);
        // Opens and closes cannot share a wave when every rank's open is in the first one.
        let waves = if c >= 24 { 2 } else { waves };
        assert!(
            t >= waves * latency && t < waves * latency + latency / 100,
            "threads {c}: {t} ps, {waves} waves of {latency} ps"
        );
    }
}

#[test]
fn metadata_leaves_the_bytes_of_a_large_file_job_unchanged() {
    let base = ["burst_buffer.placement=none"];
    let plain = summary(&run(
        &load(&scenario("quickstart.toml"), &small_quickstart(&base)),
        1,
    ));
    let with = summary(&run(
        &load(
            &scenario("quickstart.toml"),
            &small_quickstart(&[
                base[0],
                "pfs.metadata_latency=200us",
                "pfs.metadata_threads=2",
            ]),
        ),
        1,
    ));
    for (a, b) in plain["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .zip(with["jobs"].as_array().expect("jobs"))
    {
        for k in ["bytes_written", "bytes_read", "io_ops"] {
            assert_eq!(a[k], b[k], "{k} of {}", a["name"]);
        }
        // The job pays for its opens and closes.
        let (ta, tb) = (a["run_time_s"].as_f64(), b["run_time_s"].as_f64());
        assert!(tb > ta, "{}: {ta:?} s without, {tb:?} s with", a["name"]);
    }
    assert_eq!(plain["conservation"], with["conservation"]);
}

#[test]
fn bad_metadata_settings_name_their_key() {
    for (sets, key) in [
        (&["pfs.metadata_latency=0us"][..], "pfs.metadata_latency"),
        (
            &["pfs.metadata_latency=1ms", "pfs.metadata_threads=0"][..],
            "pfs.metadata_threads",
        ),
        (&["pfs.metadata_threads=4"][..], "pfs.metadata_threads"),
    ] {
        match load_scenario(&scenario("quickstart.toml"), &small_quickstart(sets)) {
            Ok(_) => panic!("{sets:?} was accepted"),
            Err(d) => assert_eq!(d.key.as_deref(), Some(key), "{sets:?}: {}", d.message),
        }
    }
}

#[test]
fn the_metadata_server_gives_the_same_results_on_any_thread_count() {
    let l = load(
        &scenario("quickstart.toml"),
        &small_quickstart(&[
            "burst_buffer.placement=none",
            "pfs.metadata_latency=50us",
            "pfs.metadata_threads=3",
        ]),
    );
    let one = run(&l, 1);
    for threads in [2, 3] {
        let other = run(&l, threads);
        for f in ["timeline.csv", "ranks.csv"] {
            assert!(
                crate::common::file(&one, f) == crate::common::file(&other, f),
                "{f} differs on {threads} threads"
            );
        }
    }
}
