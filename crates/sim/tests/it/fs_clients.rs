//! The compute nodes' file-system clients (`burst_buffer.client_bandwidth`,
//! `burst_buffer.client_requests`, `pfs.client_bandwidth`, `pfs.client_requests`): closed
//! forms on one node, results independent of the thread count, and bad values refused
//! naming their key.

use crate::common::{file, load, run, scenario, scratch, small_quickstart, summary, Scratch};
use bbsim_sim::run::load_scenario;

/// Four ranks on one node each writing one 1 MiB transfer to one BB server with a fast SSD
/// (grouped placement, one server per edge switch, each file on one server), or to the PFS
/// (`placement = "none"`).
fn one_node(placement: &str, ranks: u32) -> String {
    format!(
        r#"
name = "client-gate"

[network]
topology = "fat-tree"
levels = 2
radix = 8
link_bandwidth = "12.5GB/s"

[burst_buffer]
placement = "{placement}"
stripe_count = 1
stripe_size = "1MiB"

[burst_buffer.ssd]
write_bandwidth = "100GB/s"
read_bandwidth = "100GB/s"
op_overhead = "0us"
channels = 64
capacity = "64GB"

[pfs]
io_nodes = 1
servers = 4
server_bandwidth = "100GB/s"
latency = "50us"
stripe_size = "1MiB"
stripe_count = 1

[[jobs]]
name = "ior"
source = "ior"
ranks = {ranks}
ranks_per_node = {ranks}
block_size = "1MiB"
transfer_size = "1MiB"
write = true
read = false
allocation = "contiguous"
"#
    )
}

fn write(name: &str, text: &str) -> Scratch {
    let p = scratch(name).with("scenario.toml");
    std::fs::write(&p, text).expect("writes the scenario");
    p
}

/// The longest time in I/O of a rank (ps) of `text` with `sets`.
fn time_in_io(name: &str, text: &str, sets: &[&str]) -> u64 {
    let p = write(name, text);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = summary(&run(&load(&p, &sets), 1));
    let t = s["jobs"][0]["time_in_io_max_s"]
        .as_f64()
        .expect("time in I/O");
    (t * 1e12).round() as u64
}

const MIB: u64 = 1 << 20;

#[test]
fn a_node_client_passes_its_ranks_bytes_at_its_bandwidth() {
    for (placement, prefix) in [("grouped", "burst_buffer"), ("none", "pfs")] {
        let alone = time_in_io("gate-bw-1", &one_node(placement, 1), &[]);
        let set = format!("{prefix}.client_bandwidth=1GB/s");
        // 4 MiB through a 1 GB/s client: 4 · 2^20 · 10^12 / 10^9 ps; the last request then
        // travels as a lone one does.
        let four = time_in_io("gate-bw-4", &one_node(placement, 4), &[&set]);
        assert_eq!(
            four,
            4 * MIB * 1000 + alone,
            "{placement}: lone request {alone} ps"
        );
        // The other client's limit does not touch this traffic.
        let other = if prefix == "pfs" {
            "burst_buffer"
        } else {
            "pfs"
        };
        let free = time_in_io("gate-bw-other", &one_node(placement, 4), &[]);
        let set = format!("{other}.client_bandwidth=1GB/s");
        let untouched = time_in_io("gate-bw-other", &one_node(placement, 4), &[&set]);
        assert_eq!(untouched, free, "{placement}");
    }
}

#[test]
fn one_request_in_flight_serialises_the_nodes_requests() {
    for (placement, prefix) in [("grouped", "burst_buffer"), ("none", "pfs")] {
        let alone = time_in_io("gate-req-1", &one_node(placement, 1), &[]);
        let set = format!("{prefix}.client_requests=1");
        let four = time_in_io("gate-req-4", &one_node(placement, 4), &[&set]);
        assert_eq!(four, 4 * alone, "{placement}: lone request {alone} ps");
        // Without the limit the four overlap.
        let free = time_in_io("gate-req-free", &one_node(placement, 4), &[]);
        assert!(
            free < four,
            "{placement}: {free} ps unlimited, {four} ps serialised"
        );
    }
}

#[test]
fn a_client_that_never_binds_changes_nothing() {
    // A request limit above every request the nodes have: the same outputs as no limit.
    let base = load(&scenario("quickstart.toml"), &small_quickstart(&[]));
    let limited = load(
        &scenario("quickstart.toml"),
        &small_quickstart(&[
            "burst_buffer.client_requests=1000000",
            "pfs.client_requests=1000000",
        ]),
    );
    let (a, b) = (run(&base, 1), run(&limited, 1));
    for f in ["timeline.csv", "ranks.csv"] {
        assert!(file(&a, f) == file(&b, f), "{f} differs");
    }
}

#[test]
fn client_limits_give_the_same_results_on_any_thread_count() {
    let l = load(
        &scenario("quickstart.toml"),
        &small_quickstart(&[
            "burst_buffer.client_bandwidth=3GB/s",
            "burst_buffer.client_requests=3",
            "pfs.client_bandwidth=2GB/s",
            "pfs.client_requests=2",
        ]),
    );
    let one = run(&l, 1);
    for threads in [2, 3] {
        let other = run(&l, threads);
        for f in ["timeline.csv", "ranks.csv", "occupancy.csv"] {
            assert!(
                file(&one, f) == file(&other, f),
                "{f} differs on {threads} threads"
            );
        }
    }
}

#[test]
fn bad_client_limits_name_their_key() {
    for (set, key) in [
        (
            "burst_buffer.client_bandwidth=0GB/s",
            "burst_buffer.client_bandwidth",
        ),
        (
            "burst_buffer.client_requests=0",
            "burst_buffer.client_requests",
        ),
        ("pfs.client_bandwidth=0GB/s", "pfs.client_bandwidth"),
        ("pfs.client_requests=0", "pfs.client_requests"),
    ] {
        match load_scenario(&scenario("quickstart.toml"), &small_quickstart(&[set])) {
            Ok(_) => panic!("{set} was accepted"),
            Err(d) => {
                assert_eq!(d.key.as_deref(), Some(key), "{set}: {}", d.message);
                assert!(d.message.contains("positive"), "{set}: {}", d.message);
            }
        }
    }
}
