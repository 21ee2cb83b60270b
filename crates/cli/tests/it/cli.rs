//! End-to-end tests: real scenarios through the `bbsim` binary, checking the files it writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;

/// Sums timeline bytes per (job, rank, op).
fn timeline_bytes(out: &Path) -> BTreeMap<(String, u32, String), u64> {
    let text = std::fs::read_to_string(out.join("timeline.csv")).expect("timeline.csv");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("job,rank,node,op,file,offset,bytes,start_s,end_s,target,hops")
    );
    let mut m = BTreeMap::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 11, "{l}");
        let start: f64 = f[7].parse().expect("start");
        let end: f64 = f[8].parse().expect("end");
        assert!(end >= start, "{l}");
        *m.entry((
            f[0].to_string(),
            f[1].parse().expect("rank"),
            f[3].to_string(),
        ))
        .or_insert(0) += f[6].parse::<u64>().expect("bytes");
    }
    m
}

#[test]
fn timelines_carry_exactly_the_bytes_the_workload_issued() {
    let out = scratch("bytes");
    let s = run_scenario(&data("tiny-fattree.toml"), &out, &[]);
    let bytes = timeline_bytes(&out);
    // IOR: 2 MiB written and read back by each of 12 ranks; checkpoint: 2 x 1 MiB per rank.
    for r in 0..12 {
        assert_eq!(
            bytes[&("ior".to_string(), r, "write".to_string())],
            2 << 20,
            "ior rank {r}"
        );
        assert_eq!(
            bytes[&("ior".to_string(), r, "read".to_string())],
            2 << 20,
            "ior rank {r}"
        );
        assert_eq!(
            bytes[&("ckpt".to_string(), r, "write".to_string())],
            2 << 20,
            "ckpt rank {r}"
        );
    }
    assert_eq!(bytes.len(), 36);
    // ranks.csv agrees with the timeline.
    let ranks = std::fs::read_to_string(out.join("ranks.csv")).expect("ranks.csv");
    assert_eq!(ranks.lines().count(), 25);
    for l in ranks.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let key = |op: &str| {
            (
                f[0].to_string(),
                f[1].parse::<u32>().expect("rank"),
                op.to_string(),
            )
        };
        assert_eq!(
            f[3].parse::<u64>().expect("w"),
            bytes.get(&key("write")).copied().unwrap_or(0)
        );
        assert_eq!(
            f[4].parse::<u64>().expect("r"),
            bytes.get(&key("read")).copied().unwrap_or(0)
        );
    }
    let jobs = s["jobs"].as_array().expect("jobs");
    assert_eq!(jobs[0]["bytes_written"], 12 * (2 << 20));
    assert_eq!(jobs[0]["bytes_read"], 12 * (2 << 20));
    assert!(jobs[0]["io_phase_s"].as_f64().expect("f64") > 0.0);
    assert_eq!(s["conservation"]["holds"], true, "{}", s["conservation"]);
    for f in ["timeline.svg", "hops.svg", "utilisation.svg"] {
        let svg = std::fs::read_to_string(out.join(f)).expect(f);
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{f}"
        );
    }
    // The scenario is echoed with defaults filled in.
    assert_eq!(s["scenario"]["burst_buffer"]["stripe_size"], "128KiB");
    assert_eq!(s["scenario"]["network"]["vc_buffer"], "64KiB");
    let _ = std::fs::remove_dir_all(&out);
}

/// Seconds with picosecond resolution ("1.500000000000") as picoseconds.
fn ps(s: &str) -> u128 {
    let (whole, frac) = s.split_once('.').expect("seconds with a fraction");
    whole.parse::<u128>().expect("seconds") * 1_000_000_000_000 + frac.parse::<u128>().expect("ps")
}

#[test]
fn timeline_rows_come_in_job_rank_and_time_order_one_per_operation_on_the_ranks_node() {
    let out = scratch("timeline-order");
    run_scenario(&data("tiny-fattree.toml"), &out, &[]);
    // ranks.csv: (job, rank) -> (node, I/O operations).
    let ranks = std::fs::read_to_string(out.join("ranks.csv")).expect("ranks.csv");
    let mut node_ops: BTreeMap<(String, u32), (String, u64)> = BTreeMap::new();
    for l in ranks.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let key = (f[0].to_string(), f[1].parse().expect("rank"));
        node_ops.insert(key, (f[2].to_string(), f[5].parse().expect("io_ops")));
    }
    let text = std::fs::read_to_string(out.join("timeline.csv")).expect("timeline.csv");
    let job_order = |j: &str| ["ior", "ckpt"].iter().position(|&n| n == j).expect(j);
    let mut prev: Option<(usize, u32, u128, u128, u64)> = None;
    let mut rows: BTreeMap<(String, u32), u64> = BTreeMap::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let rank: u32 = f[1].parse().expect("rank");
        let key = (
            job_order(f[0]),
            rank,
            ps(f[7]),
            ps(f[8]),
            f[5].parse::<u64>().expect("offset"),
        );
        assert!(prev.is_none_or(|p| p <= key), "{l} after {prev:?}");
        prev = Some(key);
        let (node, _) = &node_ops[&(f[0].to_string(), rank)];
        assert_eq!(f[2], node, "{l}: the rank's node in ranks.csv");
        *rows.entry((f[0].to_string(), rank)).or_default() += 1;
    }
    // Every operation once: as many rows per rank as ranks.csv counts operations.
    let counted: BTreeMap<(String, u32), u64> =
        node_ops.into_iter().map(|(k, (_, ops))| (k, ops)).collect();
    assert_eq!(rows, counted);
    let _ = std::fs::remove_dir_all(&out);
}

fn without_run(mut v: serde_json::Value) -> serde_json::Value {
    if let Some(m) = v.as_object_mut() {
        m.remove("run");
    }
    v
}

/// `--critical-path` runs the same events on one thread and prints the run's critical path and
/// the speed-up bounds it sets; the results are the one-thread run's.
#[test]
fn critical_path_measures_without_changing_the_results() {
    for scn in ["tiny-dragonfly.toml", "tiny-phases.toml"] {
        let one = scratch(&format!("cp-one-{scn}"));
        let s1 = run_scenario(&data(scn), &one, &["--threads", "1"]);
        let measured = scratch(&format!("cp-{scn}"));
        let m = measured.to_str().expect("utf-8");
        let out = run_ok(&[
            "run",
            data(scn).to_str().expect("utf-8"),
            "-q",
            "--out",
            m,
            "--critical-path",
        ]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let s2 = read_json(&measured.join("summary.json"));
        assert_eq!(without_run(s1.clone()), without_run(s2.clone()), "{scn}");
        assert_eq!(s1["results_digest"], s2["results_digest"]);
        assert_eq!(s2["run"]["threads"].as_u64(), Some(1));
        let events = s2["run"]["events"].as_u64().expect("events");
        // "critical path: C of E events (parallelism P); ..."
        let line = text
            .lines()
            .find(|l| l.starts_with("critical path: "))
            .unwrap_or_else(|| panic!("{scn}: no critical path line in {text}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        let path: u64 = words[2].parse().expect("critical path");
        assert_eq!(words[4].parse::<u64>().expect("events"), events, "{line}");
        assert!(path > 1 && path < events, "{line}");
        assert!(
            text.contains("speed-up bound over one thread on 2 / 4 / 8 threads: "),
            "{text}"
        );
    }
    let e = run_err(&["run", "--critical-path", "--threads", "2", "-q"]);
    assert!(
        e.contains("--threads") && e.contains("cannot be used with"),
        "{e}"
    );
}

#[test]
fn outputs_are_byte_identical_for_1_2_3_and_4_threads() {
    // Small messages bypass the packet model: host-to-host sends under their own lookahead.
    let bypass: &[&str] = &["--set", "network.bypass_max=64B"];
    let path_bypass: &[&str] = &[
        "--set",
        "network.model=path",
        "--set",
        "network.bypass_max=64B",
    ];
    let flow: &[&str] = &[
        "--set",
        "network.model=flow",
        "--set",
        "simulation.packet_size=1MiB",
    ];
    let flow_bypass: &[&str] = &[
        "--set",
        "network.model=flow",
        "--set",
        "simulation.packet_size=1MiB",
        "--set",
        "network.bypass_max=64B",
        "--set",
        "network.flow_window=4",
        "--set",
        "network.flow_jitter=0.001",
    ];
    let node_local_drain: &[&str] = &[
        "--set",
        "burst_buffer.placement=node-local",
        "--set",
        "burst_buffer.stripe_count=1",
        "--set",
        "burst_buffer.drain.policy=immediate",
    ];
    let trains: &[&str] = &[
        "--set",
        "simulation.train_ops=4",
        "--set",
        "simulation.packet_size=1MiB",
        "--set",
        "network.vc_buffer=2MiB",
        "--set",
        "jobs.0.block_size=2MiB",
        "--set",
        "burst_buffer.stripe_size=1MiB",
    ];
    for (scn, extra) in [
        ("tiny-fattree.toml", &[][..]),
        ("tiny-dragonfly.toml", &[][..]),
        ("tiny-workflow.toml", &[][..]),
        ("tiny-atlas.toml", &[][..]),
        ("tiny-fattree.toml", node_local_drain),
        ("tiny-dragonfly.toml", bypass),
        // The path model: one fabric LP instead of routers (alone, and with the bypass).
        ("tiny-fattree.toml", &["--set", "network.model=path"][..]),
        ("tiny-dragonfly.toml", path_bypass),
        // The flow model: one fabric LP moving whole-message packets as flows.
        ("tiny-fattree.toml", flow),
        ("tiny-dragonfly.toml", flow_bypass),
        // Multi-phase jobs: S3D and HACC presets, and IOR's write and read and the two
        // checkpoints split into phases by a short gap (`io_phases` in summary.json).
        ("tiny-phases.toml", &[][..]),
        ("tiny-fattree.toml", &["--set", "outputs.phase_gap=1us"][..]),
        // Transfer trains: to BB servers over the packet network, and to node-local SSDs.
        ("tiny-aries.toml", trains),
        ("tiny-phases.toml", &["--set", "simulation.train_ops=3"][..]),
    ] {
        let mut reference: Option<(crate::common::Scratch, serde_json::Value)> = None;
        for t in ["1", "2", "3", "4", "auto"] {
            let out = scratch(&format!("det-{scn}-{}-{t}", extra.len()));
            let mut args = vec!["--threads", t];
            args.extend_from_slice(extra);
            let s = run_scenario(&data(scn), &out, &args);
            if t != "auto" {
                assert_eq!(s["run"]["threads"].as_u64(), Some(t.parse().expect("n")));
            }
            if scn == "tiny-phases.toml" || extra.contains(&"outputs.phase_gap=1us") {
                for j in s["jobs"].as_array().expect("jobs") {
                    let n = j["io_phases"].as_array().map_or(0, Vec::len);
                    assert!(n > 1, "{scn}: {} has {n} I/O phases", j["name"]);
                }
            }
            match &reference {
                None => reference = Some((out, s)),
                Some((ref_out, ref_s)) => {
                    for f in [
                        "timeline.csv",
                        "ranks.csv",
                        "timeline.svg",
                        "hops.svg",
                        "utilisation.svg",
                        "occupancy.svg",
                    ] {
                        if f == "occupancy.svg" && !ref_out.join(f).exists() {
                            continue;
                        }
                        assert!(
                            std::fs::read(ref_out.join(f)).expect(f)
                                == std::fs::read(out.join(f)).expect(f),
                            "{scn}: {f} differs between 1 and {t} threads"
                        );
                    }
                    assert_eq!(
                        without_run(ref_s.clone()),
                        without_run(s.clone()),
                        "{scn}: summary differs at {t} threads"
                    );
                    assert_eq!(ref_s["results_digest"], s["results_digest"]);
                    let _ = std::fs::remove_dir_all(&out);
                }
            }
        }
        if let Some((o, _)) = reference {
            let _ = std::fs::remove_dir_all(o);
        }
    }
}

#[test]
fn every_placement_runs_on_every_topology_and_conserves_bytes() {
    let cases: &[(&str, &[&[&str]])] = &[
        (
            "tiny-fattree.toml",
            &[
                &["--set", "burst_buffer.placement=none"],
                &["--set", "burst_buffer.placement=node-local"],
                &["--set", "burst_buffer.placement=grouped"],
                &[
                    "--set",
                    "burst_buffer.placement=global",
                    "--set",
                    "burst_buffer.servers=4",
                    "--set",
                    "network.nodes=12",
                    "--set",
                    "jobs.1.ranks=6",
                ],
            ],
        ),
        (
            "tiny-dragonfly.toml",
            &[
                &["--set", "burst_buffer.placement=none"],
                &["--set", "burst_buffer.placement=node-local"],
                &[
                    "--set",
                    "burst_buffer.placement=global",
                    "--set",
                    "burst_buffer.servers=4",
                ],
                &["--set", "network.routing=minimal"],
                &["--set", "network.routing=valiant"],
            ],
        ),
        (
            "tiny-torus.toml",
            &[&["--set", "burst_buffer.placement=grouped"], &[]],
        ),
        (
            "tiny-aries.toml",
            &[&["--set", "network.routing=minimal"], &[]],
        ),
    ];
    for (scn, variants) in cases {
        for (i, v) in variants.iter().enumerate() {
            let out = scratch(&format!("place-{scn}-{i}"));
            let s = run_scenario(&data(scn), &out, v);
            assert_eq!(
                s["conservation"]["holds"], true,
                "{scn} {v:?}: {}",
                s["conservation"]
            );
            for j in s["jobs"].as_array().expect("jobs") {
                assert!(
                    j["end_s"].as_f64().is_some(),
                    "{scn} {v:?}: job did not finish: {j}"
                );
                assert!(j["bytes_written"].as_u64().expect("u64") > 0);
            }
            let placement = s["scenario"]["burst_buffer"]["placement"]
                .as_str()
                .expect("str")
                .to_string();
            let hops = s["jobs"][0]["avg_hops"].as_f64().expect("f64");
            if placement == "node-local" {
                assert_eq!(
                    hops, 0.0,
                    "{scn}: node-local I/O must not touch the network"
                );
                assert_eq!(
                    s["conservation"]["node_local"],
                    s["conservation"]["written"]
                );
            } else {
                assert!(
                    hops >= 1.0,
                    "{scn} {v:?}: remote I/O crosses at least one router"
                );
            }
            let _ = std::fs::remove_dir_all(&out);
        }
    }
}

#[test]
fn valiant_routes_non_minimally_and_minimal_never_does() {
    let a = scratch("valiant");
    let b = scratch("minimal");
    let sv = run_scenario(
        &data("tiny-dragonfly.toml"),
        &a,
        &["--set", "network.routing=valiant"],
    );
    let sm = run_scenario(
        &data("tiny-dragonfly.toml"),
        &b,
        &["--set", "network.routing=minimal"],
    );
    let fv = sv["jobs"][0]["nonminimal_fraction"].as_f64().expect("f64");
    let fm = sm["jobs"][0]["nonminimal_fraction"].as_f64().expect("f64");
    assert_eq!(fm, 0.0);
    assert!(fv > 0.3, "valiant non-minimal fraction {fv}");
    assert!(sv["jobs"][0]["avg_hops"].as_f64() > sm["jobs"][0]["avg_hops"].as_f64());
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}

/// Writes a scenario variant with `from` replaced by `to` and returns its path.
/// The fixture `tiny-fattree.toml` with `from` replaced by `to`, written as `NAME.toml` in a
/// directory of its own under `root`.
fn variant(root: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(data("tiny-fattree.toml")).expect("fixture");
    assert!(text.contains(from), "fixture lacks {from}");
    let dir = root.join(format!("bad-{name}"));
    std::fs::create_dir_all(&dir).expect("dir");
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    p
}

#[test]
fn bad_input_is_a_clear_error_naming_file_line_and_key() {
    let root = scratch("bad-input");
    let cases: Vec<(PathBuf, Vec<&str>, Vec<&str>)> = vec![
        (
            variant(&root, "misspelt", "stripe_count = 2", "stripe_cont = 2"),
            vec![],
            vec![
                "misspelt.toml:19:",
                "unknown key `stripe_cont`",
                "did you mean `stripe_count`?",
            ],
        ),
        (
            variant(&root, "wrongtype", "radix = 4", "radix = \"four\""),
            vec![],
            vec!["wrongtype.toml:12:", "`network.radix`", "invalid type"],
        ),
        (
            variant(&root, "noTopology", "topology = \"fat-tree\"", ""),
            vec![],
            vec!["missing field `topology`"],
        ),
        (
            variant(
                &root,
                "badunit",
                "link_bandwidth = \"12.5GB/s\"",
                "link_bandwidth = \"12.5GB\"",
            ),
            vec![],
            vec!["badunit.toml:13:", "per-second unit"],
        ),
        (
            variant(
                &root,
                "unitless",
                "link_latency = \"50ns\"",
                "link_latency = 50",
            ),
            vec![],
            vec!["unitless.toml:14:", "has no unit"],
        ),
        (
            variant(
                &root,
                "badvariant",
                "topology = \"fat-tree\"",
                "topology = \"fat-tre\"",
            ),
            vec![],
            vec!["unknown value `fat-tre`", "did you mean `fat-tree`?"],
        ),
        (
            variant(&root, "stripes", "stripe_count = 2", "stripe_count = 99"),
            vec![],
            vec![
                "`burst_buffer.stripe_count`",
                "larger than the 8 BB servers",
            ],
        ),
        (
            variant(
                &root,
                "toomany",
                "ranks = 12\nranks_per_node = 6\nblock_size",
                "ranks = 600\nranks_per_node = 6\nblock_size",
            ),
            vec![],
            vec!["need", "compute nodes but the machine has 16"],
        ),
        (
            variant(&root, "syntax", "[pfs]", "[pfs"),
            vec![],
            vec!["syntax.toml:", "invalid TOML"],
        ),
        (
            variant(&root, "notapplicable", "levels = 3", "levels = 3\nrows = 4"),
            vec![],
            vec![
                "`network.rows`",
                "does not apply to topology = \"fat-tree\"",
            ],
        ),
        (
            variant(
                &root,
                "zerobw",
                "write_bandwidth = \"1.4GB/s\"",
                "write_bandwidth = \"0GB/s\"",
            ),
            vec![],
            vec![
                "zerobw.toml:23:",
                "`burst_buffer.ssd.write_bandwidth`",
                "> 0",
            ],
        ),
        (
            // Offsets within a BB unit are kept in 32 bits.
            data("tiny-fattree.toml"),
            vec!["--set", "burst_buffer.stripe_size=3GiB"],
            vec!["`burst_buffer.stripe_size`", "must be at most 2GiB"],
        ),
        (
            // A VC buffer that cannot hold one packet, written in the scenario file (the
            // packet size and the buffer are both set in it: line 16 is the buffer).
            variant(
                &root,
                "smallvc",
                "router_delay = \"90ns\"",
                "router_delay = \"90ns\"\nvc_buffer = \"2KiB\"",
            ),
            vec![],
            vec![
                "smallvc.toml:16:",
                "`network.vc_buffer`",
                "must hold at least one packet (4KiB), got 2KiB",
            ],
        ),
        (
            // The packet-model variants take whole packets (4 KiB here) and the packet model.
            data("tiny-fattree.toml"),
            vec!["--set", "network.routing_block=6KiB"],
            vec!["`network.routing_block`", "whole number of packets"],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "network.grant_block=1KiB"],
            vec!["`network.grant_block`", "whole number of packets"],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "network.lane_block=5KiB"],
            vec!["`network.lane_block`", "whole number of packets"],
        ),
        (
            // Spreading units is a packet-model switch: a boolean, and not for the path model.
            data("tiny-fattree.toml"),
            vec!["--set", "network.unit_spread=sometimes"],
            vec!["`network.unit_spread`"],
        ),
        (
            // A unit's smallest part: whole packets, no more than the VC buffer.
            data("tiny-fattree.toml"),
            vec!["--set", "network.min_part=6KiB"],
            vec![
                "`network.min_part`",
                "whole number of packets",
                "at most the VC buffer",
            ],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "network.min_part=1GiB"],
            vec!["`network.min_part`", "at most the VC buffer"],
        ),
        (
            data("tiny-fattree.toml"),
            vec![
                "--set",
                "network.credit_batch=64KiB",
                "--set",
                "network.model=path",
            ],
            vec!["`network.credit_batch`", "packet model only"],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "network.radx=8"],
            vec!["--set network.radx=8", "did you mean `radix`"],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "jobs.9.ranks=1"],
            vec!["out of range"],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "nonsense"],
            vec!["expected `key.path=value`"],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "jobs.0.ranks=0"],
            vec!["--set jobs.0.ranks=0", "at least 1"],
        ),
        (
            data("tiny-fattree.toml"),
            vec![
                "--set",
                "burst_buffer.drain.policy=threshold",
                "--set",
                "burst_buffer.drain.threshold=5",
            ],
            vec!["`burst_buffer.drain.threshold`", "must be in [0, 1]"],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "simulation.end_time=\"0s\""],
            vec!["`simulation.end_time`", "must be > 0"],
        ),
        (
            data("tiny-fattree.toml"),
            vec![
                "--set",
                "burst_buffer.ftl.enabled=true",
                "--set",
                "burst_buffer.ftl.page_size=16",
            ],
            vec!["`burst_buffer.ftl.page_size`", "use a larger page_size"],
        ),
        (
            data("tiny-dragonfly.toml"),
            vec!["--set", "network.bypass_max=100MiB"],
            vec!["`network.bypass_max`", "must be at most 64MiB"],
        ),
        (
            data("tiny-dragonfly.toml"),
            vec!["--set", "network.model=fluid"],
            vec!["network.model", "packet", "path", "flow"],
        ),
        (
            data("tiny-dragonfly.toml"),
            vec!["--set", "network.flow_window=2"],
            vec!["`network.flow_window`", "flow model only"],
        ),
        (
            data("tiny-dragonfly.toml"),
            vec![
                "--set",
                "network.model=flow",
                "--set",
                "network.flow_window=0",
            ],
            vec!["`network.flow_window`", "1 to 64"],
        ),
        (
            data("tiny-dragonfly.toml"),
            vec!["--set", "network.flow_jitter=0.001"],
            vec!["`network.flow_jitter`", "flow model only"],
        ),
        (
            data("tiny-dragonfly.toml"),
            vec![
                "--set",
                "network.model=flow",
                "--set",
                "network.flow_jitter=0.5",
            ],
            vec!["`network.flow_jitter`", "from 0 to 0.01", "got 0.5"],
        ),
        (
            data("tiny-dragonfly.toml"),
            vec![
                "--set",
                "network.model=flow",
                "--set",
                "network.flow_jitter=-0.001",
            ],
            vec!["`network.flow_jitter`", "from 0 to 0.01"],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "burst_buffer.ssd_chunk=\"192KiB\""],
            vec![
                "`burst_buffer.ssd_chunk`",
                "whole multiple of the stripe unit",
                "128KiB",
            ],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "burst_buffer.ssd_model=pooled"],
            vec![
                "`burst_buffer.ssd_model`",
                "unknown value `pooled`",
                "`per-ssd`, `array`",
            ],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "simulation.partition=pods"],
            vec![
                "`simulation.partition`",
                "unknown value `pods`",
                "`regions`, `routers`",
            ],
        ),
        (
            data("tiny-fattree.toml"),
            vec!["--set", "cost.years=-1"],
            vec!["`cost.years`", ">= 0"],
        ),
        (
            data("tiny-fattree.toml"),
            vec![
                "--set",
                "burst_buffer.ftl.enabled=true",
                "--set",
                "burst_buffer.ssd.capacity=1MiB",
            ],
            vec![
                "`burst_buffer.ssd.capacity`",
                "smaller than one erase block",
            ],
        ),
        (
            PathBuf::from("/nonexistent/dir/scenario.toml"),
            vec![],
            vec![
                "/nonexistent/dir/scenario.toml",
                "cannot read the scenario file",
            ],
        ),
    ];
    for (path, extra, expect) in cases {
        for cmd in ["run", "validate"] {
            let out = scratch("never-written");
            let mut args = vec![cmd, path.to_str().expect("utf-8")];
            args.extend(extra.iter().copied());
            if cmd == "run" {
                args.extend(["--quiet", "--out", out.to_str().expect("utf-8")]);
            }
            let err = run_err(&args);
            for e in &expect {
                assert!(
                    err.contains(e),
                    "`bbsim {}`: expected `{e}` in:\n{err}",
                    args.join(" ")
                );
            }
            assert!(
                !out.exists(),
                "a failed run must not create its output directory"
            );
        }
    }
}

#[test]
fn an_interrupted_run_leaves_no_partial_outputs() {
    // A larger variant that runs for several seconds in the test profile.
    let out = scratch("interrupt");
    let scn = data("tiny-fattree.toml");
    let child = bin()
        .args([
            "run",
            scn.to_str().expect("utf-8"),
            "--quiet",
            "--out",
            out.to_str().expect("utf-8"),
            "--set",
            "jobs.0.block_size=1GiB",
            "--set",
            "jobs.0.transfer_size=1MiB",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let output = child.wait_with_output().expect("exits");
    assert!(
        !output.status.success(),
        "an interrupted run must exit non-zero"
    );
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("interrupted"), "{err}");
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        leftovers.is_empty(),
        "partial outputs left behind: {leftovers:?}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn validate_describes_the_machine() {
    let out = run_ok(&[
        "validate",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "valid",
        "compute nodes            16",
        "routers                  20",
        "BB servers               8",
        "PFS I/O nodes            2",
        "every I/O operation on its own",
        "ior",
        "ckpt",
    ] {
        assert!(text.contains(want), "missing `{want}` in:\n{text}");
    }
    // The simulation's granularity: packet size and transfer trains.
    let out = run_ok(&[
        "validate",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
        "--set",
        "simulation.train_ops=8",
        "--set",
        "simulation.packet_size=8MiB",
        "--set",
        "network.vc_buffer=16MiB",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("8MiB packets, 16MiB VC buffers, transfer trains of up to 8 operations"),
        "{text}"
    );
    let out = run_ok(&[
        "validate",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
        "--set",
        "simulation.packet_size=4KiB",
        "--set",
        "network.vc_buffer=128KiB",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4KiB packets, 128KiB VC buffers"), "{text}");
    // The flow model has no router buffers.
    let out = run_ok(&[
        "validate",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
        "--set",
        "network.model=flow",
        "--set",
        "simulation.packet_size=4MiB",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("flow network model, 4MiB packets, every I/O operation"),
        "{text}"
    );
    let out = run_ok(&[
        "validate",
        data("tiny-dragonfly.toml").to_str().expect("utf-8"),
        "--json",
    ]);
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(m["compute_nodes"], 32);
    assert_eq!(m["routers"], 20);
    assert_eq!(
        m["bb_servers"], 8,
        "one BB server per two routers of 16 with compute nodes"
    );
}

#[test]
fn sweep_runs_the_cartesian_product_and_writes_sweep_csv() {
    let out = scratch("sweep");
    run_ok(&[
        "sweep",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
        "--vary",
        "burst_buffer.placement=node-local,grouped",
        "--vary",
        "burst_buffer.ssd.op_overhead=0us,45us",
        "--jobs",
        "2",
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let csv = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(lines[0].starts_with(
        "run,dir,burst_buffer.placement,burst_buffer.ssd.op_overhead,\
             burst_buffer.ssd.op_overhead_s,status"
    ));
    assert!(lines[1].contains(",node-local,0us,0,ok,"));
    assert!(lines[4].contains(",grouped,45us,0.000045,ok,"));
    // Each run has its own directory with its own outputs.
    for l in &lines[1..] {
        let dir = l.split(',').nth(1).expect("dir");
        assert!(out.join(dir).join("summary.json").exists(), "{dir}");
    }
    // Per-operation overhead makes the job slower.
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let field = |i: usize, name: &str| lines[i].split(',').nth(col(name)).expect("col").to_string();
    let phase = |i: usize| field(i, "job0_io_phase_s").parse::<f64>().expect("f64");
    assert!(
        phase(2) > phase(1),
        "45us overhead must lengthen the I/O phase: {csv}"
    );
    // Cost columns: node-local buys one SSD per compute node; grouped also buys servers.
    let total = |i: usize| field(i, "cost_total_usd").parse::<f64>().expect("f64");
    assert!(
        total(3) > total(1),
        "grouped BB servers cost more than node-local SSDs: {csv}"
    );
    assert_eq!(
        field(1, "job0_speedup_vs_pfs"),
        "",
        "no PFS-only run in this sweep"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn sweep_reports_speedup_over_pfs_only_per_million_dollars() {
    let out = scratch("sweep-cost");
    run_ok(&[
        "sweep",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
        "--vary",
        "burst_buffer.placement=none,grouped",
        "--quiet",
        "--out",
        out.to_str().expect("utf-8"),
        "--set",
        "cost.ssd_price=1000",
    ]);
    let csv = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    let lines: Vec<&str> = csv.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let get = |i: usize, name: &str| lines[i].split(',').nth(col(name)).expect("col").to_string();
    // The PFS-only run costs nothing extra and is its own baseline (speed-up 1).
    assert_eq!(get(1, "cost_total_usd"), "0.00");
    assert_eq!(get(1, "job0_speedup_vs_pfs"), "1.0000");
    let base: f64 = get(1, "job0_io_phase_s").parse().expect("f64");
    let bb: f64 = get(2, "job0_io_phase_s").parse().expect("f64");
    let speedup: f64 = get(2, "job0_speedup_vs_pfs").parse().expect("f64");
    assert!(
        (speedup - base / bb).abs() < 1e-3,
        "{speedup} vs {base}/{bb}"
    );
    let total: f64 = get(2, "cost_total_usd").parse().expect("f64");
    let per: f64 = get(2, "job0_speedup_per_musd").parse().expect("f64");
    assert!((per - speedup / (total / 1e6)).abs() < 1e-3 * per.max(1.0));
    // 8 grouped servers with one 64 GB SSD each at 1,000 dollars plus 500 dollars per TB,
    // plus 25,000 dollars per server; each server's link adds a 300-dollar cable and a
    // 250-dollar switch port.
    let summary: serde_json::Value = read_json(&out.join(get(2, "dir")).join("summary.json"));
    let cost = &summary["cost"];
    assert_eq!(cost["ssds"], 8);
    let ssds = cost["capital_ssds"].as_f64().expect("f64");
    assert!(
        (ssds - 8.0 * (1000.0 + 500.0 * 0.064)).abs() < 1e-6,
        "{cost}"
    );
    assert_eq!(cost["capital_servers"], 200_000.0);
    assert_eq!(
        (&cost["added_links"], &cost["added_ports"]),
        (&8.into(), &8.into())
    );
    assert_eq!(cost["capital_network"], 8.0 * 300.0 + 8.0 * 250.0);
    // sweep.csv has the same figures in its cost columns.
    assert_eq!(get(2, "cost_ssds_usd"), "8256.00");
    assert_eq!(get(2, "cost_servers_usd"), "200000.00");
    assert_eq!(get(2, "cost_network_usd"), "4400.00");
    let per_tb: f64 = get(2, "usd_per_tb").parse().expect("f64");
    assert!(
        (per_tb - total / 0.512).abs() < 0.01,
        "{per_tb} vs {total} / 0.512 TB"
    );
    assert_eq!(get(1, "cost_ssds_usd"), "0.00");
    assert_eq!(get(1, "usd_per_tb"), "");
    let err = run_err(&[
        "validate",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
        "--set",
        "cost.years=-2",
    ]);
    assert!(err.contains("cost.years"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn help_and_version_are_complete() {
    let v = run_ok(&["--version"]);
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("bbsim "));
    for sub in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["validate", "--help"],
        vec!["sweep", "--help"],
        vec!["trace", "inspect", "--help"],
        vec!["phold", "--help"],
    ] {
        let o = run_ok(&sub);
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("Usage"),
            "{sub:?}"
        );
    }
}

#[test]
fn trace_inspect_reports_the_documented_json_fields() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workload/tests/data");
    let log = std::fs::read_dir(&dir)
        .expect("fixtures")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains("dxt"))
                && p.extension().is_some_and(|e| e == "darshan")
        })
        .expect("a DXT fixture log");
    let out = run_ok(&[
        "trace",
        "inspect",
        log.to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    for k in [
        "darshan_version",
        "nprocs",
        "start_time",
        "end_time",
        "modules",
        "ranks",
        "dxt",
    ] {
        assert!(j.get(k).is_some(), "missing {k}");
    }
    let bad = scratch("notalog");
    std::fs::create_dir_all(&bad).expect("dir");
    let p = bad.join("x.darshan");
    std::fs::write(&p, b"definitely not a darshan log").expect("write");
    let err = run_err(&["trace", "inspect", p.to_str().expect("utf-8")]);
    assert!(err.contains("x.darshan"), "{err}");
}

#[test]
fn phold_prints_committed_events() {
    let out = run_ok(&["phold", "--nlp", "64", "--end", "20", "--threads", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("committed events"), "{text}");
    let err = run_err(&["phold", "--remote", "1.5"]);
    assert!(err.contains("--remote"), "{err}");
}

/// The asynchronous executor on PHOLD ends in the sequential executor's state, and says which
/// executor ran; it cannot be asked for together with the parallel one.
#[test]
fn phold_runs_the_asynchronous_executor_to_the_same_state() {
    let digest = |extra: &[&str]| {
        let mut args = vec!["phold", "--nlp", "64", "--end", "20"];
        args.extend_from_slice(extra);
        let out = run_ok(&args);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text
            .lines()
            .find(|l| l.starts_with("state digest"))
            .unwrap_or_else(|| panic!("no digest in {text}"))
            .to_string();
        (line, text)
    };
    let (reference, _) = digest(&[]);
    for threads in ["1", "2"] {
        let (got, text) = digest(&["--asynchronous", "--threads", threads]);
        assert_eq!(got, reference, "{text}");
        assert!(text.contains("executor            asynchronous"), "{text}");
    }
    let err = run_err(&["phold", "--asynchronous", "--parallel"]);
    assert!(err.contains("--parallel"), "{err}");
}

/// Every bad PHOLD parameter is an error naming its flag and the expected range, never a
/// panic, an engine-internal message or a run that cannot end.
#[test]
fn phold_bad_parameters_name_the_flag() {
    for (args, expected) in [
        (&["--nlp", "0"][..], &["--nlp", "at least 1"][..]),
        (&["--threads", "0"], &["--threads", "at least 1"]),
        (&["--clusters", "0"], &["--clusters", "at least 1"]),
        (&["--remote=-0.1"], &["--remote", "[0, 1]"]),
        (&["--lookahead", "0"], &["--lookahead", "> 0", "got 0.0"]),
        (
            &["--lookahead", "1e-20"],
            &["--lookahead", "one picosecond"],
        ),
        (&["--lookahead", "nan"], &["--lookahead", "got NaN"]),
        (
            &["--mean", "0.2", "--lookahead", "0.5"],
            &["--mean", ">= --lookahead (0.5)"],
        ),
        (&["--mean", "1e30"], &["--mean", "at most"]),
        (&["--end=-1"], &["--end", ">= 0"]),
        (
            &["--end", "1e300"],
            &["--end", "64-bit picosecond clock", "got 1e300"],
        ),
        (&["--end", "inf"], &["--end", "got inf"]),
        (
            &["--nlp", "4000000000"],
            &["--nlp must be at most 67108864", "got 4000000000"],
        ),
        (
            &["--nlp", "1000000", "--start-events", "1000000"],
            &[
                "--start-events (1000000) times --nlp (1000000)",
                "limit of 268435456",
            ],
        ),
    ] {
        let mut a = vec!["phold"];
        a.extend_from_slice(args);
        let err = run_err(&a);
        for e in expected {
            assert!(err.contains(e), "{args:?}: expected {e:?} in {err}");
        }
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `bbsim net --threads` takes `auto` as `run` does, and every setting gives the same traffic.
#[test]
fn net_gives_the_same_traffic_on_auto_and_on_any_thread_count() {
    let scn = data("tiny-dragonfly.toml");
    let s = scn.to_str().expect("utf-8");
    let digest = |threads: &str| {
        let out = run_ok(&[
            "net",
            s,
            "--set",
            "traffic.pattern=dragonfly-worst-case",
            "--set",
            "traffic.end=20us",
            "--threads",
            threads,
            "--json",
        ]);
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert!(r["messages_delivered"].as_u64().expect("u64") > 0);
        r["digest"].as_u64().expect("digest")
    };
    let one = digest("1");
    for threads in ["auto", "2", "3"] {
        assert_eq!(digest(threads), one, "--threads {threads}");
    }
    let err = run_err(&["net", s, "--threads", "many"]);
    assert!(err.contains("expected `auto` or a whole number"), "{err}");
}

/// Under the path model `bbsim net` warns that the unit keys are unused and runs without them,
/// as `bbsim run` does, rather than refusing the scenario.
#[test]
fn net_warns_of_unit_keys_the_path_model_does_not_read() {
    let scn = data("tiny-dragonfly.toml");
    let s = scn.to_str().expect("utf-8");
    let base = [
        "net",
        s,
        "--set",
        "network.model=path",
        "--set",
        "traffic.pattern=uniform-random",
        "--set",
        "traffic.end=10us",
        "--json",
    ];
    let plain = run_ok(&base);
    let mut args = base.to_vec();
    args.extend([
        "--set",
        "simulation.unit_size=64KiB",
        "--set",
        "network.min_part=8KiB",
        "--set",
        "network.unit_spread=false",
    ]);
    let with_units = run_ok(&args);
    let warned = String::from_utf8_lossy(&with_units.stderr);
    for key in [
        "simulation.unit_size",
        "network.min_part",
        "network.unit_spread",
    ] {
        assert!(
            warned.contains("warning:") && warned.contains(key),
            "{key}: {warned}"
        );
    }
    assert!(warned.contains("network.model = \"path\""), "{warned}");
    let digest = |o: &std::process::Output| {
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        r["digest"].as_u64().expect("digest")
    };
    assert_eq!(digest(&with_units), digest(&plain));
    assert!(String::from_utf8_lossy(&plain.stderr).is_empty());
}

#[test]
fn net_runs_synthetic_traffic_and_reports_delivery() {
    let scn = data("tiny-dragonfly.toml");
    let s = scn.to_str().expect("utf-8");
    let out = run_ok(&[
        "net",
        s,
        "--set",
        "traffic.pattern=dragonfly-worst-case",
        "--set",
        "traffic.end=20us",
        "--threads",
        "2",
        "--json",
    ]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let sent = r["messages_sent"].as_u64().expect("u64");
    assert!(sent > 0);
    assert_eq!(
        r["messages_delivered"].as_u64(),
        Some(sent),
        "every message is delivered"
    );
    assert!(r["avg_hops"].as_f64().expect("f64") >= 1.0);
    let text = run_ok(&[
        "net",
        s,
        "--set",
        "traffic.pattern=uniform-random",
        "--set",
        "traffic.end=10us",
    ]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("throughput"));
    let err = run_err(&["net", s]);
    assert!(err.contains("[traffic]"), "{err}");
    let err = run_err(&[
        "net",
        s,
        "--set",
        "traffic.pattern=hot-spot",
        "--set",
        "traffic.hot_spot=999",
        "--set",
        "traffic.end=1us",
    ]);
    assert!(err.contains("traffic.hot_spot"), "{err}");
    let err = run_err(&[
        "net",
        s,
        "--set",
        "traffic.pattern=hot-spot",
        "--set",
        "traffic.victim_from=3",
        "--set",
        "traffic.end=1us",
    ]);
    assert!(
        err.contains("traffic.victim_from") && err.contains("victim_to"),
        "{err}"
    );
    let err = run_err(&[
        "net",
        s,
        "--set",
        "traffic.pattern=shift",
        "--set",
        "traffic.end=1us",
    ]);
    assert!(err.contains("traffic.shift"), "{err}");
    let out = run_ok(&[
        "net",
        s,
        "--set",
        "traffic.pattern=hot-spot",
        "--set",
        "traffic.victim_from=5",
        "--set",
        "traffic.victim_to=1",
        "--set",
        "traffic.end=10us",
    ]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("victim       5 -> 1"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn node_local_validation_matches_the_closed_form() {
    // scenarios/study/node-local-validation.toml: 16 nodes x 6 ranks x 1 GiB to node-local SSDs
    // at 2.1 GB/s write and 3.2 GB/s read: 6 GiB per node per phase.
    let scn = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios/study/node-local-validation.toml");
    let out = scratch("nlv");
    run_scenario(&scn, &out, &[]);
    let text = std::fs::read_to_string(out.join("timeline.csv")).expect("timeline");
    let mut phase = BTreeMap::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let (s, e): (f64, f64) = (f[7].parse().expect("s"), f[8].parse().expect("e"));
        let p = phase
            .entry(f[3].to_string())
            .or_insert((f64::MAX, 0.0f64, 0u64));
        p.0 = p.0.min(s);
        p.1 = p.1.max(e);
        p.2 += f[6].parse::<u64>().expect("bytes");
    }
    let per_node = 6.0 * (1u64 << 30) as f64;
    let (ws, we, wb) = phase["write"];
    let (rs, re, rb) = phase["read"];
    // Each operation rounds up to a whole picosecond: allow 1 us over thousands of them.
    assert!(
        ((we - ws) - per_node / 2.1e9).abs() < 1e-6,
        "write phase {}",
        we - ws
    );
    assert!(
        ((re - rs) - per_node / 3.2e9).abs() < 1e-6,
        "read phase {}",
        re - rs
    );
    assert_eq!(wb, 96 << 30);
    assert_eq!(rb, 96 << 30);
    let aggregate = wb as f64 / (we - ws);
    assert!(
        (aggregate - 16.0 * 2.1e9).abs() < 1e3,
        "aggregate write bandwidth {aggregate}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_two_job_chain_takes_the_sum_of_its_parts() {
    // Node-local I/O: the two jobs cannot interfere, so each job's run time is the same alone,
    // side by side, or chained. The chain adds the dependency hand-off: the parent's
    // controller tells the child's (1 us), which starts the child's nodes (1 us).
    let scn = data("tiny-fattree.toml");
    let common = [
        "--set",
        "burst_buffer.placement=node-local",
        "--set",
        "burst_buffer.stripe_count=1",
    ];
    let side = scratch("side-by-side");
    let s1 = run_scenario(&scn, &side, &common);
    let chain = scratch("chain");
    let mut args = common.to_vec();
    args.extend(["--set", "jobs.1.after=[\"ior\"]"]);
    let s2 = run_scenario(&scn, &chain, &args);
    let run_time =
        |s: &serde_json::Value, j: usize| s["jobs"][j]["run_time_s"].as_f64().expect("run time");
    for j in 0..2 {
        assert!(
            (run_time(&s1, j) - run_time(&s2, j)).abs() < 1e-12,
            "job {j} run time changed"
        );
    }
    let makespan = s2["makespan_s"].as_f64().expect("makespan");
    let parts = run_time(&s1, 0) + run_time(&s1, 1);
    assert!(
        (makespan - (parts + 2e-6)).abs() < 1e-12,
        "makespan {makespan} vs parts {parts} + 2 us"
    );
    // The child starts only after its parent has finished.
    assert!(s2["jobs"][1]["start_s"].as_f64() > s2["jobs"][0]["end_s"].as_f64());
    // Side by side, the makespan is the longer job.
    let longest = run_time(&s1, 0).max(run_time(&s1, 1));
    assert!((s1["makespan_s"].as_f64().expect("makespan") - longest).abs() < 1e-12);
    for (bad, want) in [
        ("jobs.1.after=[\"iorr\"]", "did you mean `ior`?"),
        ("jobs.1.after=[\"ckpt\"]", "cannot wait for itself"),
    ] {
        let err = run_err(&["validate", scn.to_str().expect("utf-8"), "--set", bad]);
        assert!(err.contains(want), "{err}");
    }
    let err = run_err(&[
        "validate",
        scn.to_str().expect("utf-8"),
        "--set",
        "jobs.1.after=[\"ior\"]",
        "--set",
        "jobs.0.after=[\"ckpt\"]",
    ]);
    assert!(err.contains("dependency cycle"), "{err}");
    let _ = std::fs::remove_dir_all(side);
    let _ = std::fs::remove_dir_all(chain);
}

#[test]
fn job_end_drain_stages_out_exactly_what_the_job_left_in_the_bb() {
    let out = scratch("stage-out");
    let s = run_scenario(
        &data("tiny-fattree.toml"),
        &out,
        &[
            "--set",
            "burst_buffer.drain.policy=job-end",
            "--set",
            "burst_buffer.drain.bandwidth=5GB/s",
        ],
    );
    let c = &s["conservation"];
    assert_eq!(c["holds"], true, "{c}");
    let to_bb = c["to_bb"].as_u64().expect("u64");
    assert!(to_bb > 0);
    assert_eq!(
        c["pfs_drained"].as_u64(),
        Some(to_bb),
        "everything left in the BB is staged out: {c}"
    );
    assert_eq!(c["bb_held"], 0);
    for srv in s["servers"].as_array().expect("servers") {
        assert_eq!(srv["drained"], srv["received"], "{srv}");
    }
    // The stage-out runs after the jobs end.
    let last_job_end = s["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .filter_map(|j| j["end_s"].as_f64())
        .fold(0.0, f64::max);
    assert!(s["last_activity_s"].as_f64().expect("f64") > last_job_end);
    // Without a drain the data stays in the BB.
    let kept = scratch("no-drain");
    let s = run_scenario(&data("tiny-fattree.toml"), &kept, &[]);
    assert_eq!(s["conservation"]["pfs_drained"], 0);
    assert_eq!(s["conservation"]["bb_held"].as_u64(), Some(to_bb));
    let _ = std::fs::remove_dir_all(out);
    let _ = std::fs::remove_dir_all(kept);
}

#[test]
fn a_reservation_never_holds_more_than_its_capacity() {
    // Job 0 writes 12 ranks x 2 MiB = 24 MiB into a 4 MiB reservation with the spill policy:
    // exactly 4 MiB stay in the BB and 20 MiB go on to the PFS.
    let out = scratch("reservation");
    let s = run_scenario(
        &data("tiny-fattree.toml"),
        &out,
        &[
            "--set",
            "burst_buffer.full_policy=spill",
            "--set",
            "jobs.0.bb_capacity=4MiB",
        ],
    );
    let c = &s["conservation"];
    assert_eq!(c["holds"], true, "{c}");
    assert_eq!(c["pfs_spilled"].as_u64(), Some(20 << 20), "{c}");
    // Job 1 (24 MiB, no reservation) and job 0's 4 MiB remain.
    assert_eq!(c["bb_held"].as_u64(), Some((24 << 20) + (4 << 20)), "{c}");
    let scn = data("tiny-fattree.toml");
    let scn = scn.to_str().expect("utf-8");
    let err = run_err(&["validate", scn, "--set", "jobs.0.bb_capacity=1PB"]);
    assert!(
        err.contains("jobs[0].bb_capacity") && err.contains("not yet reserved"),
        "{err}"
    );
    let valid = run_ok(&[
        "validate",
        scn,
        "--set",
        "burst_buffer.placement=node-local",
        "--set",
        "jobs.0.bb_capacity=1GB",
    ]);
    // Not read by node-local SSDs: reported as unused, not refused.
    let text = String::from_utf8_lossy(&valid.stdout).to_string();
    assert!(
        text.contains("jobs[0].bb_capacity")
            && text.contains("unused with burst_buffer.placement = \"node-local\""),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn stage_in_delays_the_job_and_fills_its_bb_servers() {
    let out = scratch("stage-in");
    let s = run_scenario(
        &data("tiny-fattree.toml"),
        &out,
        &["--set", "jobs.0.stage_in=64MiB"],
    );
    let ior = &s["jobs"][0];
    let stage = ior["stage_in_s"].as_f64().expect("stage-in time");
    // 64 MiB split over the job's 2 BB servers (stripe_count 2), each moved by its data mover at
    // the default 1 GB/s drain bandwidth: at least 32 MiB / 1 GB/s, plus PFS latencies.
    let lower = (32u64 << 20) as f64 / 1e9;
    assert!(
        stage >= lower && stage < lower * 1.05,
        "stage-in took {stage} s (lower bound {lower})"
    );
    // The job starts only after the stage-in, and waited for it.
    let start = ior["start_s"].as_f64().expect("start");
    assert!(
        start >= stage,
        "start {start} before the stage-in ended ({stage})"
    );
    assert_eq!(ior["queue_wait_s"].as_f64(), Some(start));
    // The other job did not wait.
    assert_eq!(s["jobs"][1]["queue_wait_s"].as_f64(), Some(0.0));
    assert_eq!(s["jobs"][1]["stage_in_s"], serde_json::Value::Null);
    // Staged data occupies the servers on top of what the jobs wrote.
    let occupied: u64 = s["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|x| x["occupied"].as_u64().expect("u64"))
        .sum();
    let received: u64 = s["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|x| x["received"].as_u64().expect("u64"))
        .sum();
    assert_eq!(occupied - received, 64 << 20);
    assert_eq!(s["conservation"]["holds"], true);
    let valid = run_ok(&[
        "validate",
        data("tiny-fattree.toml").to_str().expect("utf-8"),
        "--set",
        "burst_buffer.placement=node-local",
        "--set",
        "jobs.0.stage_in=1GB",
    ]);
    // Not read by node-local SSDs: reported as unused, not refused.
    let text = String::from_utf8_lossy(&valid.stdout).to_string();
    assert!(
        text.contains("jobs[0].stage_in")
            && text.contains("unused with burst_buffer.placement = \"node-local\""),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(out);
}

/// Thread counts are checked before any work: zero, or more than the machine can use (four
/// per core), is an error naming the flag or key and the limit, never a panic spawning
/// threads.
#[test]
fn thread_counts_beyond_the_machine_are_refused_before_any_work() {
    let scenario = data("tiny-phases.toml");
    let scenario = scenario.to_str().expect("utf-8 path");
    for args in [
        &["run", scenario, "--threads", "100000"][..],
        &["run", scenario, "--threads", "4000000000"],
        &["validate", scenario, "--set", "simulation.threads=100000"],
        &["net", "--threads", "100000"],
        &["phold", "--threads", "100000"],
        &[
            "sweep",
            scenario,
            "--vary",
            "simulation.seed=1,2",
            "--threads",
            "0",
        ],
        &[
            "sweep",
            scenario,
            "--vary",
            "simulation.seed=1,2",
            "--threads",
            "100000",
        ],
    ] {
        let err = run_err(args);
        assert!(
            err.contains("threads") && (err.contains("at most") || err.contains("at least 1")),
            "bbsim {args:?}: {err}"
        );
    }
    let err = run_err(&["run", scenario, "--threads", "100000"]);
    assert!(err.contains("per core"), "{err}");
}

/// A key varied twice would run each value of the first list with only the last value of the
/// second: refused, naming the key.
#[test]
fn a_key_varied_twice_is_refused() {
    let scenario = data("tiny-phases.toml");
    let scenario = scenario.to_str().expect("utf-8 path");
    let err = run_err(&[
        "sweep",
        scenario,
        "--vary",
        "simulation.seed=1,2",
        "--vary",
        "simulation.seed=3",
    ]);
    assert!(
        err.contains("--vary simulation.seed is given twice"),
        "{err}"
    );
}

/// A run on several threads whose lookahead windows hold few events says that one thread is
/// expected to be faster; a one-thread run says nothing.
#[test]
fn sparse_windows_on_several_threads_are_noted() {
    let scn = data("tiny-fattree.toml");
    let out = scratch("thread-note");
    let run = |t: &str| {
        let o = run_ok(&[
            "run",
            scn.to_str().expect("utf-8"),
            "--threads",
            t,
            "--out",
            out.to_str().expect("utf-8"),
        ]);
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let two = run("2");
    assert!(
        two.contains("note: 2 threads ran")
            && two.contains("one thread, or `auto` (the default), is expected to be faster"),
        "{two}"
    );
    assert!(!run("1").contains("note:"));
}
