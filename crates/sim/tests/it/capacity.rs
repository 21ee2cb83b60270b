//! Burst-buffer capacity against closed forms: what a full node-local SSD spills, how long a
//! writer waits for a drain of known bandwidth, that `none` never drains (and a run that can
//! never finish fails, naming the device), and peak occupancy in a two-checkpoint case.

use crate::common::{load, small_fat_tree, summary, Scratch};
use bbsim_sim::run::RunError;
use std::path::Path;

const MIB: u64 = 1 << 20;

/// A small fat-tree with node-local SSDs of `capacity` and one checkpointing job of `ranks`
/// ranks, one per node, each writing `mib` MiB in 1 MiB transfers per checkpoint.
fn scenario(name: &str, capacity: &str, ranks: u32, mib: u64, checkpoints: u32) -> Scratch {
    small_fat_tree(
        name,
        &format!(
            r#"[burst_buffer]
placement = "node-local"
[burst_buffer.ssd]
write_bandwidth = "10GB/s"
read_bandwidth = "10GB/s"
op_overhead = "1us"
capacity = "{capacity}"
[burst_buffer.drain]
policy = "none"
bandwidth = "100MB/s"
[pfs]
io_nodes = 1
servers = 4
server_bandwidth = "20GB/s"
latency = "10us"
[[jobs]]
name = "ckpt"
source = "checkpoint"
ranks = {ranks}
ranks_per_node = 1
bytes_per_rank = "{mib}MiB"
transfer_size = "1MiB"
period = "1ms"
checkpoints = {checkpoints}
"#
        ),
    )
}

fn run(path: &Path, set: &[&str]) -> Result<serde_json::Value, RunError> {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    let loaded = load(path, &set);
    let f = loaded.run(1, |_| {})?;
    Ok(summary(&loaded.render(&f)))
}

fn job(s: &serde_json::Value, key: &str) -> f64 {
    s["sizing"]["jobs"][0][key]
        .as_f64()
        .unwrap_or_else(|| panic!("sizing.jobs[0].{key} in {}", s["sizing"]))
}

#[test]
fn a_full_node_local_ssd_spills_exactly_what_does_not_fit() {
    // Four nodes, each writing B = 24 MiB to an SSD of C = 10 MiB: B - C per node to the PFS.
    let p = scenario("spill", "10MiB", 4, 24, 1);
    let s = run(&p, &["burst_buffer.full_policy=spill"]).expect("runs");
    assert_eq!(job(&s, "spilled_bytes") as u64, 4 * (24 - 10) * MIB);
    assert_eq!(job(&s, "peak_bytes") as u64, 4 * 10 * MIB);
    assert_eq!(job(&s, "time_stalled_sum_s"), 0.0);
    let devices = s["sizing"]["devices"].as_array().expect("devices");
    assert_eq!(devices.len(), 4);
    for d in devices {
        assert_eq!(d["kind"], "node-local");
        assert_eq!(d["peak_bytes"].as_u64(), Some(10 * MIB));
        assert_eq!(d["peak_pct"].as_f64(), Some(100.0));
        assert_eq!(d["spilled_bytes"].as_u64(), Some(14 * MIB));
    }
    for d in s["devices"].as_array().expect("devices") {
        assert_eq!(d["peak_bytes"].as_u64(), Some(10 * MIB), "{d}");
    }
    // Every byte is in one place: on the SSDs or on the PFS.
    assert_eq!(s["conservation"]["holds"], true);
    assert_eq!(s["conservation"]["to_pfs"].as_u64(), Some(4 * 14 * MIB));
}

#[test]
fn a_stalled_writer_waits_for_the_drain_as_the_closed_form_says() {
    // One rank writes n = 20 transfers of s = 1 MiB to an SSD holding m = 5. The drain copies
    // each extent to the PFS as soon as it is written, starting one every s / D; write m + k
    // is admitted once extent k has reached the PFS. Writes to the SSD (0.1 ms each) and the
    // PFS round trip are small beside s / D = 10.5 ms, so the rank waits about
    // (n - m - 1) s / D in all.
    let p = scenario("stall", "5MiB", 1, 20, 1);
    let s = run(&p, &["burst_buffer.drain.policy=immediate"]).expect("runs");
    let d = 100e6;
    let expected = (20.0 - 5.0 - 1.0) * MIB as f64 / d;
    let stalled = job(&s, "time_stalled_max_s");
    assert!(
        (stalled - expected).abs() / expected < 0.03,
        "stalled {stalled} s, closed form {expected} s"
    );
    assert_eq!(job(&s, "time_stalled_sum_s"), stalled, "one rank");
    assert_eq!(job(&s, "spilled_bytes"), 0.0);
    // Everything is drained in the end; the SSD never held more than its capacity.
    assert_eq!(job(&s, "drained_bytes") as u64, 20 * MIB);
    assert_eq!(job(&s, "peak_bytes") as u64, 5 * MIB);
}

#[test]
fn with_no_drain_a_stalled_writer_fails_the_run_naming_the_device() {
    let p = scenario("stuck", "5MiB", 1, 20, 1);
    let err = match run(&p, &[]) {
        Err(RunError::Stuck(why)) => why,
        Err(e) => panic!("expected a stuck run, got {e}"),
        Ok(_) => panic!("a run that cannot finish succeeded"),
    };
    for part in [
        "job 'ckpt'",
        "node-local SSD of compute node",
        "capacity 5.243MB",
        "1.049MB",
        "\"none\" never frees space",
    ] {
        assert!(err.contains(part), "{part:?} missing from: {err}");
    }
}

#[test]
fn drain_none_never_drains_even_when_full() {
    // Spill instead of stall: the SSD fills, nothing is drained.
    let p = scenario("none", "5MiB", 2, 8, 1);
    let s = run(&p, &["burst_buffer.full_policy=spill"]).expect("runs");
    assert_eq!(job(&s, "drained_bytes"), 0.0);
    assert_eq!(s["conservation"]["local_drained"].as_u64(), Some(0));
    assert_eq!(job(&s, "spilled_bytes") as u64, 2 * 3 * MIB);
}

#[test]
fn peak_occupancy_of_two_checkpoints_is_their_sum_without_a_drain() {
    // Two checkpoints of 3 MiB per rank into new files, nothing drained: the peak is both.
    let p = scenario("peak", "64MiB", 2, 3, 2);
    let s = run(&p, &[]).expect("runs");
    assert_eq!(job(&s, "peak_bytes") as u64, 2 * 2 * 3 * MIB);
    let d = &s["sizing"]["devices"][0];
    assert_eq!(d["peak_bytes"].as_u64(), Some(2 * 3 * MIB));
    let pct = d["peak_pct"].as_f64().expect("pct");
    assert!((pct - 6.0 / 64.0 * 100.0).abs() < 1e-9);
    // The peak is reached when the second checkpoint's last byte lands: after the first
    // period, the first checkpoint, and the second period.
    assert!(d["peak_at_s"].as_f64().expect("when") > 2e-3);
}

/// Two cases whose writers stall, as (scenario, overrides): node-local writers waiting for
/// the drain (scenario `name`), and BB servers that fill and stall.
fn stalling_cases(name: &str) -> [(Scratch, Vec<String>); 2] {
    use crate::common::{scenario as shipped, small_quickstart};
    [
        (
            scenario(name, "5MiB", 2, 20, 1),
            vec!["burst_buffer.drain.policy=immediate".to_string()],
        ),
        (
            shipped("quickstart.toml").into(),
            small_quickstart(&[
                "burst_buffer.ssd.capacity=1MB",
                "burst_buffer.drain.policy=immediate",
            ]),
        ),
    ]
}

#[test]
fn stalls_and_spills_give_identical_outputs_on_one_to_four_threads() {
    use crate::common::run as render;
    for (path, set) in stalling_cases("stall-threads") {
        let loaded = load(&path, &set);
        let reference = render(&loaded, 1);
        let stalled = summary(&reference)["sizing"]["jobs"][0]["time_stalled_sum_s"]
            .as_f64()
            .expect("stall time");
        assert!(stalled > 0.0, "{}: the case must stall", path.display());
        for threads in [2, 4] {
            assert_eq!(
                render(&loaded, threads).digest,
                reference.digest,
                "{} on {threads} threads",
                path.display()
            );
        }
    }
}

/// Each time a rank's write waited for space, as `[start, end)` ps, lies within one of that
/// rank's I/O busy intervals, and the waits add up to the ranks' stall time exactly; the
/// timeline draws them in the stall colour under a "stall" legend entry.
#[test]
fn stalled_writes_are_intervals_on_the_timeline() {
    use crate::common::file;
    use bbsim_sim::output::chart::{svg_texts, IoKind};
    for (path, set) in stalling_cases("stall-timeline") {
        let loaded = load(&path, &set);
        let f = loaded.run(1, |_| {}).expect("runs");
        let r = &f.results;
        let mut waits = 0;
        for (j, stalls) in r.stalls.iter().enumerate() {
            for &(rank, start, end) in stalls {
                assert!(start < end, "job {j} rank {rank}: [{start}, {end})");
                assert!(
                    r.busy[j]
                        .iter()
                        .any(|&(k, a, b, _)| k == rank && a <= start && end <= b),
                    "job {j} rank {rank}: wait [{start}, {end}) outside its I/O"
                );
            }
            for row in r.ranks.iter().filter(|row| row.job as usize == j) {
                let sum: u64 = stalls
                    .iter()
                    .filter(|s| s.0 == row.rank)
                    .map(|s| s.2 - s.1)
                    .sum();
                assert_eq!(sum, row.time_stalled, "job {j} rank {}", row.rank);
            }
            waits += stalls.len();
        }
        assert!(waits > 0, "{}: the case must stall", path.display());
        let svg =
            String::from_utf8(file(&loaded.render(&f), "timeline.svg").to_vec()).expect("utf-8");
        assert!(
            svg_texts(&svg).iter().any(|t| t.starts_with("stall")),
            "{}: no stall legend entry",
            path.display()
        );
        let c = IoKind::Stall.colour();
        let fill = format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        // The legend's swatch and at least one in a panel.
        let stall_rects = svg
            .split("<rect")
            .skip(1)
            .filter(|e| e[..e.find('>').unwrap_or(e.len())].contains(&fill))
            .count();
        assert!(
            stall_rects >= 2,
            "{}: {stall_rects} rectangles with {fill}",
            path.display()
        );
    }
}
