//! `allocation = "next-to"`: a job on the free nodes nearest to earlier jobs' nodes, and the
//! mistakes in its `next_to` key.

use std::collections::BTreeSet;

use crate::common::*;

/// The distinct nodes of a job, in rank order.
fn nodes_of(ranks: &[u32]) -> Vec<u32> {
    let mut seen = BTreeSet::new();
    ranks.iter().copied().filter(|n| seen.insert(*n)).collect()
}

#[test]
fn a_next_to_job_takes_the_nearest_free_nodes() {
    // 128 nodes (3-level fat-tree of 8-port switches): a fragmented job of 6 nodes, a random
    // one of 2, then 3 nodes next to both (ranks 6 per node, in node order).
    let scn = data("tiny-fattree.toml");
    let jobs = r#"jobs=[
        {name="a", source="ior", ranks=36, block_size="64KiB", transfer_size="64KiB", allocation="fragmented", chunk_mean=1.5},
        {name="b", source="checkpoint", ranks=12, bytes_per_rank="64KiB", transfer_size="64KiB", period="10us", checkpoints=1, allocation="random"},
        {name="c", source="ior", ranks=18, block_size="64KiB", transfer_size="64KiB", allocation="next-to", next_to=["b", "a"]},
        {name="d", source="ior", ranks=6, block_size="64KiB", transfer_size="64KiB", allocation="next-to", next_to="c"},
    ]"#;
    let out = scratch("next-to");
    let s = run_scenario(&scn, &out, &["--set", "network.radix=8", "--set", jobs]);
    assert_eq!(s["machine"]["compute_nodes"], 128);
    let ranks = rank_nodes(&out);
    let (a, b, c, d) = (
        nodes_of(&ranks["a"]),
        nodes_of(&ranks["b"]),
        nodes_of(&ranks["c"]),
        nodes_of(&ranks["d"]),
    );
    assert_eq!((a.len(), b.len(), c.len(), d.len()), (6, 2, 3, 1));
    let ab: Vec<u32> = a.iter().chain(&b).copied().collect();
    assert_eq!(c, nearest_free(&ab, &[], 128, 3), "a {a:?}, b {b:?}");
    let abc: Vec<u32> = ab.iter().chain(&c).copied().collect();
    assert_eq!(d, nearest_free(&c, &abc, 128, 1), "c {c:?}");
    // Rank r of c runs on its (r / 6)-th node, in ascending node order.
    let expect: Vec<u32> = c.iter().flat_map(|&n| [n; 6]).collect();
    assert_eq!(ranks["c"], expect);
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn allocation_key_mistakes_name_the_key() {
    let scn = data("tiny-fattree.toml");
    let scn = scn.to_str().expect("utf-8");
    // Job 0 is `ior`, job 1 `ckpt` (random allocation).
    for (sets, key, want) in [
        (
            &["jobs.1.allocation=next-to"][..],
            "jobs[1].next_to",
            "allocation = \"next-to\" needs `next_to`",
        ),
        (
            &["jobs.1.allocation=next-to", "jobs.1.next_to=iro"],
            "jobs[1].next_to",
            "no earlier job is named `iro`; did you mean `ior`?",
        ),
        (
            &["jobs.0.allocation=next-to", "jobs.0.next_to=ckpt"],
            "jobs[0].next_to",
            "no earlier job is named `ckpt`",
        ),
        (
            &["jobs.1.allocation=next-to", "jobs.1.next_to=ckpt"],
            "jobs[1].next_to",
            "job `ckpt` cannot be allocated next to itself",
        ),
        (
            &[
                "jobs.1.allocation=next-to",
                "jobs.1.next_to=[\"ior\", \"nope\"]",
            ],
            "jobs[1].next_to[1]",
            "no earlier job is named `nope`",
        ),
        (
            &["jobs.1.allocation=next-to", "jobs.1.next_to=[]"],
            "jobs[1].next_to",
            "names no job",
        ),
        (
            &["jobs.1.allocation=next-to", "jobs.1.next_to=3"],
            "jobs[1].next_to",
            "a job name or a list of job names",
        ),
        (
            &["jobs.1.next_to=ior"],
            "jobs[1].next_to",
            "`next_to` applies to allocation = \"next-to\" only",
        ),
        // The allocation file's keys belong to allocation = "file" as strictly.
        (
            &["jobs.1.allocation_file=nodes.alloc"],
            "jobs[1].allocation_file",
            "`allocation_file` applies to allocation = \"file\" only",
        ),
        (
            &["jobs.0.allocation_line=2"],
            "jobs[0].allocation_line",
            "`allocation_line` applies to allocation = \"file\" only",
        ),
        (
            &[
                "jobs.1.allocation=next-to",
                "jobs.1.next_to=ior",
                "jobs.1.ranks=90",
            ],
            "jobs",
            "the jobs need 17 compute nodes but the machine has 16",
        ),
    ] {
        let mut args = vec!["validate", scn];
        for s in sets {
            args.extend(["--set", s]);
        }
        let err = run_err(&args);
        assert!(err.contains(key) && err.contains(want), "{sets:?}: {err}");
    }
}
