//! End-to-end tests of workflows: in-transit consumers, persistent and per-job (DataWarp)
//! reservations, stage-out timing and the client read cache.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::*;

/// One timeline row.
struct Row {
    job: String,
    op: String,
    file: String,
    offset: u64,
    bytes: u64,
    start: f64,
    end: f64,
    target: String,
}

fn timeline(out: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(out.join("timeline.csv")).expect("timeline.csv");
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Row {
                job: f[0].into(),
                op: f[3].into(),
                file: f[4].into(),
                offset: f[5].parse().expect("offset"),
                bytes: f[6].parse().expect("bytes"),
                start: f[7].parse().expect("start"),
                end: f[8].parse().expect("end"),
                target: f[9].into(),
            }
        })
        .collect()
}

/// For every read of `consumer`'s input `k` (file `analysis/input.k`), the latest end of a
/// write by `producer` to the same bytes of its `k`-th file (files in name order).
fn check_reads_follow_writes(rows: &[Row], producer: &str, consumer: &str) -> usize {
    let mut files: Vec<&str> = rows
        .iter()
        .filter(|r| r.job == producer && r.op == "write")
        .map(|r| r.file.as_str())
        .collect();
    files.sort_unstable();
    files.dedup();
    let mut checked = 0;
    for r in rows.iter().filter(|r| r.job == consumer && r.op == "read") {
        let k: usize = r
            .file
            .strip_prefix("analysis/input.")
            .expect("consumer reads its inputs")
            .parse()
            .expect("input index");
        let (lo, hi) = (r.offset, r.offset + r.bytes);
        let writes: Vec<&Row> = rows
            .iter()
            .filter(|w| {
                w.job == producer
                    && w.op == "write"
                    && w.file == files[k]
                    && w.offset < hi
                    && w.offset + w.bytes > lo
            })
            .collect();
        let written: u64 = writes
            .iter()
            .map(|w| (w.offset + w.bytes).min(hi) - w.offset.max(lo))
            .sum();
        assert_eq!(written, r.bytes, "every byte read was written: {}", r.file);
        let last = writes.iter().map(|w| w.end).fold(0.0, f64::max);
        assert!(
            r.start >= last,
            "{consumer} read {} [{lo}, {hi}) at {} before {producer} finished writing it at {last}",
            r.file,
            r.start
        );
        checked += 1;
    }
    checked
}

#[test]
fn an_in_transit_consumer_never_reads_a_byte_before_its_producer_wrote_it() {
    let out = scratch("in-transit");
    let s = run_scenario(&data("tiny-workflow.toml"), &out, &[]);
    let rows = timeline(&out);
    assert!(check_reads_follow_writes(&rows, "sim", "viz") > 0);
    assert!(check_reads_follow_writes(&rows, "sim", "post") > 0);
    // In transit means side by side: the consumer reads the first step while the producer
    // still writes the last one.
    let first_read = rows
        .iter()
        .filter(|r| r.job == "viz" && r.op == "read")
        .map(|r| r.start)
        .fold(f64::MAX, f64::min);
    let sim_end = s["jobs"][0]["end_s"].as_f64().expect("end");
    assert!(first_read < sim_end, "{first_read} vs {sim_end}");
    assert_eq!(s["jobs"][1]["start_s"].as_f64(), Some(0.0));
    // Post-processing (not in transit) waits for the producer.
    assert!(s["jobs"][2]["start_s"].as_f64().expect("start") > sim_end);
    // Both consumers read every byte the producer wrote, from the persistent reservation.
    for j in [1, 2] {
        assert_eq!(s["jobs"][j]["bytes_read"], s["jobs"][0]["bytes_written"]);
    }
    assert!(rows
        .iter()
        .filter(|r| r.op == "read")
        .all(|r| r.target.starts_with("bb:")));
    assert_eq!(s["conservation"]["holds"], true);
    // Without in transit the consumer starts after the producer instead.
    let after = scratch("not-in-transit");
    let s2 = run_scenario(
        &data("tiny-workflow.toml"),
        &after,
        &["--set", "jobs.1.in_transit=false"],
    );
    assert!(s2["jobs"][1]["start_s"].as_f64() > s2["jobs"][0]["end_s"].as_f64());
    check_reads_follow_writes(&timeline(&after), "sim", "viz");
    let _ = std::fs::remove_dir_all(out);
    let _ = std::fs::remove_dir_all(after);
}

#[test]
fn persistent_reservations_are_granted_in_grains_shared_and_staged_out_at_teardown() {
    let out = scratch("persistent");
    let s = run_scenario(&data("tiny-workflow.toml"), &out, &[]);
    let r = &s["reservations"][0];
    // 40 MiB in 16 MiB grains: 3 grains on 3 servers.
    assert_eq!(r["granted_bytes"].as_u64(), Some(48 << 20));
    assert_eq!(r["servers"].as_array().map(Vec::len), Some(3));
    // Torn down when its last user (post) ended, then staged out.
    let post_end = s["jobs"][2]["end_s"].as_f64().expect("end");
    let teardown = r["teardown_s"].as_f64().expect("teardown");
    assert!(teardown >= post_end && teardown < post_end + 1e-5);
    assert!(r["staged_out_s"].as_f64().expect("staged out") > teardown);
    // Everything the producer wrote went to the reservation's servers, and on to the PFS.
    let servers: Vec<String> = r["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|v| v.to_string())
        .collect();
    for row in timeline(&out).iter().filter(|r| r.job == "sim") {
        let used = row.target.strip_prefix("bb:").expect("in the BB");
        assert!(used.split('+').all(|x| servers.contains(&x.to_string())));
    }
    let c = &s["conservation"];
    assert_eq!(c["pfs_drained"], c["to_bb"], "{c}");
    // A reservation holds no more than its grant: 48 MiB.
    let err = run_err(&[
        "validate",
        data("tiny-workflow.toml").to_str().expect("utf-8"),
        "--set",
        "reservations.0.capacity=1PB",
    ]);
    assert!(err.contains("reservations[0].capacity"), "{err}");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn per_job_stage_out_time_is_reported() {
    let out = scratch("stage-out-time");
    let s = run_scenario(&data("tiny-workflow.toml"), &out, &[]);
    // viz writes 3 MiB of images into its own 16 MiB scratch reservation (one server): at
    // 2 GB/s the stage-out takes at least 3 MiB / 2 GB/s.
    let viz = &s["jobs"][1];
    let t = viz["stage_out_s"].as_f64().expect("stage-out");
    let floor = (3u64 << 20) as f64 / 2e9;
    assert!(t >= floor && t < floor * 1.2 + 1e-3, "{t} vs {floor}");
    let end = viz["end_s"].as_f64().expect("end");
    assert!((viz["stage_out_end_s"].as_f64().expect("end") - (end + t)).abs() < 1e-9);
    // sim and post left nothing in their own accounts (they write into the reservation):
    // their stage-out takes no time and ends when they do (not the servers' 2 us reply).
    for j in [0, 2] {
        assert_eq!(s["jobs"][j]["stage_out_s"].as_f64(), Some(0.0), "job {j}");
        assert_eq!(
            s["jobs"][j]["stage_out_end_s"], s["jobs"][j]["end_s"],
            "job {j}"
        );
    }
    // Without a drain nothing is staged out: the report comes at once.
    let kept = scratch("stage-out-never");
    let s = run_scenario(
        &data("tiny-workflow.toml"),
        &kept,
        &["--set", "burst_buffer.drain.policy=none"],
    );
    assert_eq!(s["jobs"][1]["stage_out_s"].as_f64(), Some(0.0));
    assert_eq!(s["conservation"]["pfs_drained"], 0);
    let _ = std::fs::remove_dir_all(out);
    let _ = std::fs::remove_dir_all(kept);
}

#[test]
fn a_larger_read_cache_turns_small_reads_into_hits() {
    let scn = data("tiny-atlas.toml");
    let mut results = BTreeMap::new();
    for cache in ["64KiB", "8MiB"] {
        let out = scratch(&format!("cache-{cache}"));
        let s = run_scenario(
            &scn,
            &out,
            &["--set", &format!("jobs.0.read_cache={cache}")],
        );
        let j = &s["jobs"][0];
        let hits = j["read_cache_hits"].as_u64().expect("hits");
        let misses = j["read_cache_misses"].as_u64().expect("misses");
        assert_eq!(hits + misses, 4 * 2000);
        let rows = timeline(&out);
        assert_eq!(
            rows.iter().filter(|r| r.target == "cache").count() as u64,
            hits
        );
        // The input was staged in before the job started; every fetch found it in the BB.
        assert!(j["stage_in_s"].as_f64().expect("stage-in") > 0.0);
        assert!(rows
            .iter()
            .filter(|r| r.target != "cache")
            .all(|r| r.target.starts_with("bb:")));
        results.insert(
            cache,
            (
                hits,
                j["read_cache_fetched"].as_u64(),
                j["time_in_io_mean_s"].as_f64(),
            ),
        );
        let _ = std::fs::remove_dir_all(out);
    }
    let (small, large) = (results["64KiB"], results["8MiB"]);
    // 100 branches of 40 KiB: a 64 KiB cache thrashes, 8 MiB holds the whole 4 MiB input.
    assert!(large.0 > small.0 * 2, "{small:?} {large:?}");
    // Each rank reads its own 4 MiB input: with room for all of it, each byte is fetched once.
    assert!(large.1 <= Some(4 * (4 << 20)), "{large:?}");
    assert!(large.2 < small.2);
}

#[test]
fn placement_none_is_the_pfs_only_baseline_of_a_workflow() {
    let out = scratch("pfs-baseline");
    let s = run_scenario(
        &data("tiny-workflow.toml"),
        &out,
        &["--set", "burst_buffer.placement=none"],
    );
    let rows = timeline(&out);
    assert!(rows.iter().all(|r| r.target == "pfs"));
    assert_eq!(s["reservations"].as_array().map(Vec::len), Some(0));
    assert_eq!(s["conservation"]["to_pfs"], s["conservation"]["written"]);
    // The workflow still holds: in transit and after.
    check_reads_follow_writes(&rows, "sim", "viz");
    check_reads_follow_writes(&rows, "sim", "post");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn workflow_mistakes_are_clear_errors() {
    let scn = data("tiny-workflow.toml");
    let scn = scn.to_str().expect("utf-8");
    for (set, key, want) in [
        (
            "jobs.0.reservation=\"sharde\"",
            "jobs[0].reservation",
            "did you mean `shared`?",
        ),
        ("jobs.1.inputs=\"post\"", "jobs[1].inputs", "no earlier job"),
        ("jobs.0.in_transit=true", "jobs[0].in_transit", "analysis"),
        // The grain and reservations are unused under node-local; reading another job's
        // files is a contradiction.
        (
            "burst_buffer.placement=node-local",
            "jobs[1].inputs",
            "cannot be read from node-local SSDs",
        ),
        (
            "jobs.1.read_cache_block=0",
            "jobs[1].read_cache_block",
            "> 0",
        ),
    ] {
        let err = run_err(&["validate", scn, "--set", set]);
        assert!(err.contains(key) && err.contains(want), "{set}: {err}");
    }
    // Another job's files cannot be found through per-node stripe sets.
    let err = run_err(&["validate", scn, "--set", "burst_buffer.grain=0B"]);
    assert!(err.contains("burst_buffer.grain"), "{err}");
}

#[test]
fn node_local_ssds_drain_to_the_pfs_in_the_background() {
    let scn = data("tiny-fattree.toml");
    let local = [
        "--set",
        "burst_buffer.placement=node-local",
        "--set",
        "burst_buffer.stripe_count=1",
    ];
    let mut runs = Vec::new();
    for policy in ["none", "immediate", "job-end"] {
        let out = scratch(&format!("local-drain-{policy}"));
        let mut args = local.to_vec();
        let set = format!("burst_buffer.drain.policy={policy}");
        args.extend(["--set", &set]);
        let s = run_scenario(&scn, &out, &args);
        let c = s["conservation"].clone();
        assert_eq!(c["holds"], true, "{policy}: {c}");
        runs.push(s);
        let _ = std::fs::remove_dir_all(out);
    }
    let c = |i: usize, k: &str| runs[i]["conservation"][k].as_u64().expect(k);
    let node_local = c(0, "node_local");
    assert!(node_local > 0);
    assert_eq!((c(0, "local_drained"), c(0, "pfs_local_drained")), (0, 0));
    for i in [1, 2] {
        assert_eq!(c(i, "local_drained"), node_local);
        assert_eq!(c(i, "pfs_local_drained"), node_local);
        assert_eq!(c(i, "local_drain_pending"), 0);
        // The copies outlive the jobs.
        let last_end = runs[i]["jobs"]
            .as_array()
            .expect("jobs")
            .iter()
            .filter_map(|j| j["end_s"].as_f64())
            .fold(0.0, f64::max);
        assert!(runs[i]["last_activity_s"].as_f64().expect("f64") > last_end);
    }
    // At job end, nothing reaches the PFS while the ranks still run: the jobs end exactly as
    // without a drain. (Their routing per packet counts the drain's messages too, which take
    // other routes than the ranks' own.)
    let timing = |run: &serde_json::Value| {
        let mut jobs = run["jobs"].clone();
        for j in jobs.as_array_mut().expect("jobs") {
            let j = j.as_object_mut().expect("job");
            j.remove("packet_hops");
            j.remove("packet_nonminimal_share");
        }
        jobs
    };
    assert_eq!(timing(&runs[0]), timing(&runs[2]));
    // Background copies do not block the ranks: with the immediate drain each job ends before
    // a synchronous copy of what the nodes wrote could have finished at the 1 GB/s drain
    // bandwidth.
    let copy = node_local as f64 / 1e9;
    for job in runs[1]["jobs"].as_array().expect("jobs") {
        let t = job["run_time_s"].as_f64().expect("f64");
        assert!(t < copy, "{}: {t} s vs {copy} s", job["name"]);
    }
    let err = run_err(&[
        "validate",
        scn.to_str().expect("utf-8"),
        "--set",
        "burst_buffer.placement=node-local",
        "--set",
        "burst_buffer.drain.policy=threshold",
    ]);
    assert!(err.contains("burst_buffer.drain.policy"), "{err}");
}

#[test]
fn bad_workflow_job_sources_name_the_key() {
    let scn = data("tiny-fattree.toml");
    let scn = scn.to_str().expect("utf-8");
    for (job, key, want) in [
        (
            r#"{source="quota-user", ranks_per_node=1, quota="1GiB", checkpoint_bytes="2GiB"}"#,
            "jobs[0].checkpoint_bytes",
            "must fit under delete_at * quota",
        ),
        (
            r#"{source="small-reads", ranks=2, ranks_per_node=1, dataset_bytes="0B"}"#,
            "jobs[0].dataset_bytes",
            "must be > 0",
        ),
        (
            r#"{source="analysis", ranks=2, ranks_per_node=1}"#,
            "jobs[0].inputs",
            "needs `inputs`",
        ),
        (
            r#"{source="analysis", inputs="nope", ranks=2, ranks_per_node=1}"#,
            "jobs[0].inputs",
            "no earlier job is named `nope`",
        ),
        (
            r#"{source="ior", ranks=2, ranks_per_node=1, output_files=3}"#,
            "jobs[0].output_files",
            "does not apply to source = \"ior\"",
        ),
    ] {
        let set = format!("jobs=[{job}]");
        let err = run_err(&["validate", scn, "--set", &set]);
        assert!(err.contains(key) && err.contains(want), "{job}: {err}");
    }
    let err = run_err(&[
        "validate",
        scn,
        "--set",
        "burst_buffer.access_mode=mirrored",
    ]);
    assert!(
        err.contains("burst_buffer.access_mode") && err.contains("`striped`, `private`"),
        "{err}"
    );
}
