//! Transfer trains (`simulation.train_ops`): a rank's consecutive reads or writes simulated as
//! one message and one serial device request. Closed forms on a node-local SSD, what trains
//! keep (bytes, operations, per-device bytes, the timeline's rows), where they must not form
//! (across a stripe, through a read cache), fewer events, and bad values.

use std::path::Path;

use crate::common::*;

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn set(kv: &str) -> [&str; 2] {
    ["--set", kv]
}

fn run_with(scn: &Path, out: &Path, sets: &[&str]) -> serde_json::Value {
    let args: Vec<&str> = sets.iter().flat_map(|kv| set(kv)).collect();
    run_scenario(scn, out, &args)
}

/// One rank writing then reading 16 x 1 MiB through a node-local SSD with a 20 us
/// per-operation overhead and nothing else on the machine.
const LOCAL: &str = r#"
name = "train-local"

[network]
topology = "fat-tree"
levels = 2
radix = 4

[burst_buffer]
placement = "node-local"

[burst_buffer.ssd]
write_bandwidth = "1.25GB/s"
read_bandwidth = "2.5GB/s"
op_overhead = "20us"
access_latency = "0us"
channels = 8
capacity = "64GB"

[[jobs]]
name = "ior"
source = "ior"
ranks = 1
ranks_per_node = 1
block_size = "16MiB"
transfer_size = "1MiB"
write = true
read = true
allocation = "contiguous"

[outputs]
timeline = true
"#;

fn write_scenario(dir: &Path, text: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).expect("scratch dir");
    let p = dir.join("scenario.toml");
    std::fs::write(&p, text).expect("writes the scenario");
    p
}

#[test]
fn a_lone_rank_on_a_node_local_ssd_takes_the_closed_form_time_whatever_the_train() {
    let dir = scratch("train-local");
    let scn = write_scenario(&dir, LOCAL);
    // 16 writes then 16 reads, each charged its own overhead: 16 (o + D_w) + 16 (o + D_r),
    // D = ceil(2^20 bytes · 10^12 / bandwidth) ps.
    let d_w = (1u64 << 20) * 1_000_000_000_000 / 1_250_000_000;
    let d_r = (1u64 << 20) * 1_000_000_000_000 / 2_500_000_000;
    let o = 20_000_000u64;
    let closed = (16 * (o + d_w) + 16 * (o + d_r)) as f64 * 1e-12;
    let mut reference: Option<String> = None;
    // 3 does not divide 16: trains of 3, 3, 3, 3, 3 and 1.
    for t in ["1", "3", "4", "8", "16"] {
        let out = dir.join(format!("out-{t}"));
        let s = run_with(&scn, &out, &[&format!("simulation.train_ops={t}")]);
        let job = &s["jobs"][0];
        assert!(
            (f(&job["time_in_io_max_s"]) - closed).abs() < 1e-12,
            "train_ops={t}: {} s in I/O, closed form {closed} s",
            job["time_in_io_max_s"]
        );
        assert_eq!(job["io_ops"], 32, "every operation is counted");
        // Trains of two or more: 16 writes and 16 reads each cut into trains of t, the last
        // one shorter (a lone operation is not a train).
        let k: u64 = t.parse().expect("t");
        let full = 16 / k;
        let (trains, carried) = if k == 1 {
            (0, 0)
        } else if 16 % k >= 2 {
            (2 * (full + 1), 32)
        } else {
            (2 * full, 2 * full * k)
        };
        assert_eq!(job["trains"], trains, "train_ops={t}");
        assert_eq!(job["train_ops"], carried, "train_ops={t}");
        // A lone rank on an idle device: the interpolated per-operation times are exact, so
        // the timeline is the one of separate operations, row for row.
        let timeline = std::fs::read_to_string(out.join("timeline.csv")).expect("timeline");
        assert_eq!(timeline.lines().count(), 33, "a header and 32 operations");
        match &reference {
            None => reference = Some(timeline),
            Some(r) => assert_eq!(r, &timeline, "train_ops={t}: timeline differs"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tiny Aries machine with its 16 IOR ranks writing and reading 4 MiB each in 256 KiB
/// transfers (written, then read back) to grouped BB servers with 1 MiB stripes, 1 MiB
/// packets.
fn aries(out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut sets = vec![
        "jobs.0.block_size=4MiB",
        "burst_buffer.stripe_size=1MiB",
        "simulation.packet_size=1MiB",
        "network.vc_buffer=2MiB",
        "jobs.0.read=true",
        "outputs.timeline=true",
    ];
    sets.extend_from_slice(extra);
    run_with(&data("tiny-aries.toml"), out, &sets)
}

fn device_bytes(s: &serde_json::Value) -> Vec<(u64, u64, u64)> {
    s["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .map(|d| {
            (
                d["host_bytes_written"].as_u64().expect("written"),
                d["host_bytes_read"].as_u64().expect("read"),
                d["nand_bytes_written"].as_u64().expect("nand"),
            )
        })
        .collect()
}

/// (rank, write, offset, bytes) of every row of `timeline.csv`, sorted.
fn operations(out: &Path) -> Vec<(u32, String, u64, u64)> {
    let text = std::fs::read_to_string(out.join("timeline.csv")).expect("timeline");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| {
        head.iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name} in {head:?}"))
    };
    let (r, w, o, b) = (col("rank"), col("op"), col("offset"), col("bytes"));
    let mut ops: Vec<(u32, String, u64, u64)> = lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (
                c[r].parse().expect("rank"),
                c[w].to_string(),
                c[o].parse().expect("offset"),
                c[b].parse().expect("bytes"),
            )
        })
        .collect();
    ops.sort();
    ops
}

#[test]
fn trains_keep_bytes_operations_and_placement_with_fewer_events() {
    let dir = scratch("train-aries");
    let (o1, o4) = (dir.join("t1"), dir.join("t4"));
    let one = aries(&o1, &[]);
    let four = aries(&o4, &["simulation.train_ops=4"]);
    let (j1, j4) = (&one["jobs"][0], &four["jobs"][0]);
    for k in ["bytes_written", "bytes_read", "io_ops", "ranks"] {
        assert_eq!(j1[k], j4[k], "{k}");
    }
    assert_eq!(one["conservation"], four["conservation"]);
    // The same bytes on the same devices: trains change timing, not placement.
    assert_eq!(device_bytes(&one), device_bytes(&four));
    // Every operation is in the timeline once, with its own offset and size.
    assert_eq!(operations(&o1), operations(&o4));
    // A 256 KiB transfer is one message and one device request; four of them in a 1 MiB
    // stripe are one train: far fewer events for the same work.
    // Each rank's 16 writes and 16 reads are 4 + 4 trains of 4 (four 256 KiB transfers per
    // 1 MiB stripe).
    assert_eq!(
        (j1["trains"].as_u64(), j1["train_ops"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(j4["trains"], 16 * 8);
    assert_eq!(j4["train_ops"], 16 * 32);
    let (e1, e4) = (
        one["run"]["events"].as_u64().expect("events"),
        four["run"]["events"].as_u64().expect("events"),
    );
    assert!(
        4 * e4 < 2 * e1,
        "events: {e4} with trains of 4, {e1} without"
    );
    // Each SSD is charged the same operations: its busy time cannot fall below what its
    // bytes and overheads need, so the I/O phase stays above the busiest device's share.
    for s in [&one, &four] {
        assert!(f(&s["jobs"][0]["io_phase_s"]) > 0.0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A summary without what names the run rather than its results: the scenario's echo (which
/// holds `train_ops`), the digest over it, and the wall-time block.
fn results(s: &serde_json::Value) -> serde_json::Value {
    let mut v = s.clone();
    if let Some(m) = v.as_object_mut() {
        for k in ["scenario", "results_digest", "run"] {
            m.remove(k);
        }
    }
    v
}

#[test]
fn trains_never_cross_a_stripe_or_pass_through_a_read_cache() {
    let dir = scratch("train-never");
    // 3 MiB transfers in 4 MiB stripes: no two consecutive transfers share a stripe, so no
    // train forms and the results are those without trains, digest for digest.
    let stripes = [
        "burst_buffer.stripe_size=4MiB",
        "jobs.0.transfer_size=3MiB",
        "jobs.0.block_size=12MiB",
    ];
    let a = aries(&dir.join("a"), &stripes);
    let b = aries(
        &dir.join("b"),
        &[stripes[0], stripes[1], stripes[2], "simulation.train_ops=8"],
    );
    assert_eq!(results(&a), results(&b));
    assert_eq!(a["run"]["events"], b["run"]["events"]);
    assert_eq!(b["jobs"][0]["trains"], 0);
    for f in ["timeline.csv", "ranks.csv"] {
        assert_eq!(
            std::fs::read(dir.join("a").join(f)).expect(f),
            std::fs::read(dir.join("b").join(f)).expect(f),
            "{f}"
        );
    }
    // Ranks with a client-side read cache look every read up on its own: no trains.
    let cache = ["jobs.0.read_cache=1MiB", "jobs.0.read=true"];
    let c = aries(&dir.join("c"), &cache);
    let d = aries(
        &dir.join("d"),
        &[cache[0], cache[1], "simulation.train_ops=8"],
    );
    assert!(
        c["jobs"][0]["read_cache_misses"].as_u64().expect("misses") > 0,
        "{}",
        c["jobs"][0]
    );
    assert_eq!(results(&c), results(&d));
    assert_eq!(c["run"]["events"], d["run"]["events"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_train_lengths_name_the_key() {
    let scn = data("tiny-aries.toml");
    let scn = scn.to_str().expect("utf-8");
    for (value, expect) in [
        ("0", "between 1"),
        ("4097", "between 1"),
        ("\"eight\"", "train_ops"),
        ("-2", "train_ops"),
    ] {
        let kv = format!("simulation.train_ops={value}");
        let err = run_err(&["run", scn, "--quiet", "--set", &kv]);
        assert!(
            err.contains("simulation.train_ops") && err.contains(expect),
            "{kv}: {err}"
        );
    }
}

#[test]
fn a_bad_train_length_in_a_file_names_file_line_and_key_and_writes_nothing() {
    let dir = scratch("train-bad-file");
    let text = LOCAL.replace(
        "name = \"train-local\"\n",
        "name = \"train-local\"\n\n[simulation]\ntrain_ops = 0\n",
    );
    let scn = write_scenario(&dir, &text);
    let out = dir.join("out");
    let err = run_err(&[
        "run",
        scn.to_str().expect("utf-8"),
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    // [simulation] is on line 4 and train_ops on line 5 of the file.
    assert!(
        err.contains("scenario.toml:5:") && err.contains("simulation.train_ops"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written for a bad scenario");
    let _ = std::fs::remove_dir_all(&dir);
}
