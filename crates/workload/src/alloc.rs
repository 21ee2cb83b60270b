//! Node allocation: which compute nodes each job runs on.
//!
//! Node ids are `0..nodes_total` (the simulator maps them to network terminals).
//! All policies are deterministic for a given seed.

use crate::rng::Rng;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};

/// Distribution of the sizes (in nodes) of the free chunks a fragmented machine offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ChunkSizes {
    /// Every chunk has this many nodes.
    Fixed(u32),
    /// Chunk sizes uniform in `[min, max]` nodes.
    Uniform {
        /// Smallest chunk, in nodes (at least 1).
        min: u32,
        /// Largest chunk, in nodes.
        max: u32,
    },
    /// Chunk sizes geometric with the given mean (in nodes, at least 1): many small chunks,
    /// a few large ones, as left behind by a busy batch system.
    Geometric {
        /// Mean chunk size in nodes.
        mean: f64,
    },
}

impl ChunkSizes {
    fn draw(&self, rng: &mut Rng) -> u32 {
        match *self {
            ChunkSizes::Fixed(n) => n.max(1),
            ChunkSizes::Uniform { min, max } => {
                rng.range_inclusive(u64::from(min.max(1)), u64::from(max.max(min).max(1))) as u32
            }
            ChunkSizes::Geometric { mean } => {
                let mean = if mean.is_finite() { mean.max(1.0) } else { 1.0 };
                if mean <= 1.0 {
                    return 1;
                }
                // P(k) = (1-p)^(k-1) p, mean 1/p; inverse transform sampling.
                let p = 1.0 / mean;
                let u = 1.0 - rng.uniform(); // (0, 1]
                let k = 1.0 + (u.ln() / (1.0 - p).ln()).floor();
                if k.is_finite() && k < f64::from(u32::MAX) {
                    k.max(1.0) as u32
                } else {
                    u32::MAX
                }
            }
        }
    }
}

/// How a job's nodes are chosen among the free nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AllocationPolicy {
    /// The lowest-numbered run of consecutive free nodes large enough for the job
    /// (first fit); if no single run is large enough, the lowest-numbered free nodes.
    Contiguous,
    /// Free nodes drawn uniformly at random.
    Random,
    /// Free nodes taken in chunks of consecutive nodes whose sizes follow `chunks`, each chunk
    /// starting at a random free node, as on a busy batch system.
    Fragmented {
        /// Chunk-size distribution.
        chunks: ChunkSizes,
    },
    /// Exactly these nodes (for example one line of a CODES allocation file).
    Explicit(Vec<u32>),
    /// The free nodes nearest in node id to any node of the listed earlier jobs, as when a
    /// batch system backfills a job into the gaps next to a running one (node ids follow edge
    /// switches, routers and groups, so near ids share network paths). A free node's distance
    /// is `min |n - a|` over every node `a` of those jobs, in node ids; ties go to the lower
    /// id. The nodes are returned sorted ascending and do not depend on the seed. Only
    /// [`allocate_workload`] knows earlier jobs' nodes; [`allocate`] rejects this policy.
    NextTo {
        /// Indices (in workload order) of the earlier jobs to sit next to; at least one.
        jobs: Vec<usize>,
    },
}

/// Why an allocation cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    /// More nodes requested than are free.
    #[error("job {job}: needs {needed} nodes but only {free} of {total} are free")]
    NotEnoughNodes {
        /// Job index (or name).
        job: String,
        /// Nodes requested.
        needed: u32,
        /// Nodes free.
        free: u32,
        /// Nodes in the machine.
        total: u32,
    },
    /// An explicit node id is not below `nodes_total`.
    #[error("job {job}: node id {node} is out of range (the machine has nodes 0..{total})")]
    OutOfRange {
        /// Job.
        job: String,
        /// Offending id.
        node: u32,
        /// Nodes in the machine.
        total: u32,
    },
    /// An explicit node is already used by another job (or listed twice).
    #[error("job {job}: node {node} is already allocated{other}")]
    Overlap {
        /// Job.
        job: String,
        /// Node used twice.
        node: u32,
        /// Which job holds it, as text (may be empty).
        other: String,
    },
    /// An explicit list has a different length than the job needs.
    #[error("job {job}: the allocation lists {given} nodes but the job needs {needed}")]
    WrongCount {
        /// Job.
        job: String,
        /// Nodes listed.
        given: u32,
        /// Nodes needed.
        needed: u32,
    },
    /// A line of an allocation file is not a list of node ids.
    #[error(
        "allocation file line {line}: `{token}` is not a node id (expected a non-negative integer)"
    )]
    Parse {
        /// 1-based line number.
        line: usize,
        /// Offending token.
        token: String,
    },
    /// A next-to job lists an index that is not an earlier job of the workload (itself, a
    /// later job or no job at all).
    #[error("job {job}: allocation next to job {other}, which is not an earlier job")]
    NotAnEarlierJob {
        /// Job.
        job: String,
        /// Offending index.
        other: usize,
    },
    /// A next-to job lists no jobs to sit next to.
    #[error("job {job}: allocation next to no job (list at least one earlier job)")]
    NextToNothing {
        /// Job.
        job: String,
    },
    /// [`AllocationPolicy::NextTo`] given to [`allocate`], which knows no other job's nodes.
    #[error(
        "job {job}: allocation next to other jobs needs their nodes; allocate the whole workload"
    )]
    NextToWithoutWorkload {
        /// Job.
        job: String,
    },
    /// The allocation file has fewer lines than there are jobs.
    #[error("allocation file has {lines} non-empty lines but the workload has {jobs} jobs")]
    MissingLines {
        /// Lines given.
        lines: usize,
        /// Jobs.
        jobs: usize,
    },
}

/// Parses an allocation file in the CODES format: one line per job, whitespace-separated
/// node ids. Blank lines and lines starting with `#` are ignored.
pub fn parse_allocation_file(text: &str) -> Result<Vec<Vec<u32>>, AllocError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut nodes = Vec::new();
        for tok in t.split_whitespace() {
            let n = tok.parse::<u32>().map_err(|_| AllocError::Parse {
                line: i + 1,
                token: tok.to_string(),
            })?;
            nodes.push(n);
        }
        out.push(nodes);
    }
    Ok(out)
}

/// Chooses `needed` nodes among those with `busy[n] == false` (`busy.len()` is the number of
/// nodes in the machine), following `policy`. The result is sorted for
/// [`AllocationPolicy::Contiguous`] and [`AllocationPolicy::Explicit`] keeps the listed order;
/// the random policies return nodes in the order they were picked (rank placement follows it).
/// [`AllocationPolicy::NextTo`] needs other jobs' nodes: it is an
/// [`AllocError::NextToWithoutWorkload`] here (use [`allocate_workload`]).
pub fn allocate(
    policy: &AllocationPolicy,
    needed: u32,
    busy: &[bool],
    seed: u64,
) -> Result<Vec<u32>, AllocError> {
    allocate_named("0", policy, needed, busy, seed, None)
}

/// `anchors`: with [`AllocationPolicy::NextTo`], the nodes of the jobs it lists (sorted).
fn allocate_named(
    job: &str,
    policy: &AllocationPolicy,
    needed: u32,
    busy: &[bool],
    seed: u64,
    anchors: Option<&[u32]>,
) -> Result<Vec<u32>, AllocError> {
    let total = busy.len() as u32;
    if matches!(policy, AllocationPolicy::NextTo { .. }) && anchors.is_none() {
        return Err(AllocError::NextToWithoutWorkload { job: job.into() });
    }
    let free: Vec<u32> = (0..total).filter(|&n| !busy[n as usize]).collect();
    if let AllocationPolicy::Explicit(list) = policy {
        if list.len() as u32 != needed {
            return Err(AllocError::WrongCount {
                job: job.into(),
                given: list.len() as u32,
                needed,
            });
        }
        let mut seen = vec![false; busy.len()];
        for &n in list {
            let i = n as usize;
            if n >= total {
                return Err(AllocError::OutOfRange {
                    job: job.into(),
                    node: n,
                    total,
                });
            }
            if busy[i] || seen[i] {
                return Err(AllocError::Overlap {
                    job: job.into(),
                    node: n,
                    other: if seen[i] {
                        " (listed twice)".into()
                    } else {
                        String::new()
                    },
                });
            }
            seen[i] = true;
        }
        return Ok(list.clone());
    }
    if (free.len() as u32) < needed {
        return Err(AllocError::NotEnoughNodes {
            job: job.into(),
            needed,
            free: free.len() as u32,
            total,
        });
    }
    let needed = needed as usize;
    let mut rng = Rng::seed_from_u64(seed);
    Ok(match policy {
        AllocationPolicy::Contiguous => {
            let mut run_start = 0usize;
            let mut found = None;
            for i in 0..free.len() {
                if i > 0 && free[i] != free[i - 1] + 1 {
                    run_start = i;
                }
                if i + 1 - run_start >= needed {
                    found = Some(run_start);
                    break;
                }
            }
            let s = found.unwrap_or(0);
            free[s..s + needed].to_vec()
        }
        AllocationPolicy::Random => {
            let mut f = free;
            // Partial Fisher-Yates: the first `needed` entries are a uniform sample.
            for i in 0..needed {
                let j = i + rng.below((f.len() - i) as u64) as usize;
                f.swap(i, j);
            }
            f.truncate(needed);
            f
        }
        AllocationPolicy::Fragmented { chunks } => {
            let mut taken = vec![false; busy.len()];
            let mut avail: Vec<u32> = free;
            let mut out = Vec::with_capacity(needed);
            while out.len() < needed {
                let want = (chunks.draw(&mut rng) as usize).min(needed - out.len());
                let pick = rng.below(avail.len() as u64) as usize;
                let mut node = avail[pick];
                let mut got = 0;
                while got < want && (node as usize) < busy.len() {
                    let i = node as usize;
                    if busy[i] || taken[i] {
                        break;
                    }
                    taken[i] = true;
                    out.push(node);
                    got += 1;
                    node += 1;
                }
                avail.retain(|&n| !taken[n as usize]);
            }
            out
        }
        AllocationPolicy::NextTo { .. } => nearest_free(free, anchors.unwrap_or(&[]), needed),
        AllocationPolicy::Explicit(_) => unreachable!("handled above"),
    })
}

/// The `needed` nodes of `free` nearest in id to a node of `anchors` (sorted ascending; ties
/// to the lower id), returned sorted ascending.
fn nearest_free(free: Vec<u32>, anchors: &[u32], needed: usize) -> Vec<u32> {
    let distance = |n: u32| {
        let i = anchors.partition_point(|&a| a < n);
        let above = anchors.get(i).map(|&a| a - n);
        let below = i.checked_sub(1).map(|i| n - anchors[i]);
        above.into_iter().chain(below).min().unwrap_or(u32::MAX)
    };
    let mut by_distance: Vec<(u32, u32)> = free.into_iter().map(|n| (distance(n), n)).collect();
    by_distance.sort_unstable();
    let mut out: Vec<u32> = by_distance[..needed].iter().map(|&(_, n)| n).collect();
    out.sort_unstable();
    out
}

/// An allocation error of one job of a workload: which job (its index) and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{error}")]
pub struct JobAllocError {
    /// Index of the job in the workload.
    pub job: usize,
    /// What went wrong.
    pub error: AllocError,
}

/// Allocates every job of `workload` on a machine of `nodes_total` nodes, in job order; nodes
/// given to a job are busy for the jobs after it (the jobs of a workload run together).
/// Job `j` draws from the random stream `Rng::derive(seed, j)`. A job with
/// [`AllocationPolicy::NextTo`] takes the free nodes nearest to the nodes of the earlier jobs
/// it lists; an index that is not an earlier job is an [`AllocError::NotAnEarlierJob`].
pub fn allocate_workload(
    workload: &Workload,
    nodes_total: u32,
    seed: u64,
) -> Result<Vec<Vec<u32>>, JobAllocError> {
    let mut busy = vec![false; nodes_total as usize];
    let mut owner = vec![usize::MAX; nodes_total as usize];
    let mut out = Vec::with_capacity(workload.jobs.len());
    for (j, job) in workload.jobs.iter().enumerate() {
        let name = format!("{j} (`{}`)", job.name);
        let job_seed = Rng::derive(seed, j as u64).next_u64();
        let in_job = |error| JobAllocError { job: j, error };
        let anchors = match &job.allocation {
            AllocationPolicy::NextTo { jobs } => {
                Some(next_to_anchors(&name, jobs, &out).map_err(in_job)?)
            }
            _ => None,
        };
        let policy = &job.allocation;
        let needed = job.nodes_needed();
        let nodes = allocate_named(&name, policy, needed, &busy, job_seed, anchors.as_deref())
            .map_err(|e| match e {
                AllocError::Overlap { job, node, other } if other.is_empty() => {
                    let o = owner.get(node as usize).copied().unwrap_or(usize::MAX);
                    AllocError::Overlap {
                        job,
                        node,
                        other: format!(" by job {o}"),
                    }
                }
                e => e,
            })
            .map_err(in_job)?;
        for &n in &nodes {
            busy[n as usize] = true;
            owner[n as usize] = j;
        }
        out.push(nodes);
    }
    Ok(out)
}

/// The nodes (sorted) of the earlier jobs `jobs` of a next-to job, given the nodes of every
/// earlier job.
fn next_to_anchors(
    job: &str,
    jobs: &[usize],
    earlier: &[Vec<u32>],
) -> Result<Vec<u32>, AllocError> {
    if jobs.is_empty() {
        return Err(AllocError::NextToNothing { job: job.into() });
    }
    let mut anchors = Vec::new();
    for &k in jobs {
        let nodes = earlier.get(k).ok_or_else(|| AllocError::NotAnEarlierJob {
            job: job.into(),
            other: k,
        })?;
        anchors.extend_from_slice(nodes);
    }
    anchors.sort_unstable();
    anchors.dedup();
    Ok(anchors)
}

/// Sets each job's policy to [`AllocationPolicy::Explicit`] from the lines of a CODES
/// allocation file (line `j` for job `j`).
pub fn apply_allocation_file(workload: &mut Workload, text: &str) -> Result<(), AllocError> {
    let lines = parse_allocation_file(text)?;
    if lines.len() < workload.jobs.len() {
        return Err(AllocError::MissingLines {
            lines: lines.len(),
            jobs: workload.jobs.len(),
        });
    }
    for (job, nodes) in workload.jobs.iter_mut().zip(lines) {
        job.allocation = AllocationPolicy::Explicit(nodes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::JobSpec;

    fn busy_every_third(n: usize) -> Vec<bool> {
        (0..n).map(|i| i % 3 == 0).collect()
    }

    #[test]
    fn contiguous_first_fit() {
        let mut busy = vec![false; 20];
        busy[2] = true;
        busy[9] = true;
        assert_eq!(
            allocate(&AllocationPolicy::Contiguous, 5, &busy, 1).unwrap(),
            vec![3, 4, 5, 6, 7]
        );
        // no run of 12: lowest free nodes
        let v = allocate(&AllocationPolicy::Contiguous, 12, &busy, 1).unwrap();
        assert_eq!(v.len(), 12);
        assert!(v.iter().all(|&n| !busy[n as usize]));
    }

    #[test]
    fn policies_are_deterministic_distinct_and_free() {
        let busy = busy_every_third(300);
        for policy in [
            AllocationPolicy::Random,
            AllocationPolicy::Fragmented {
                chunks: ChunkSizes::Geometric { mean: 4.0 },
            },
            AllocationPolicy::Fragmented {
                chunks: ChunkSizes::Uniform { min: 2, max: 6 },
            },
            AllocationPolicy::Fragmented {
                chunks: ChunkSizes::Fixed(3),
            },
        ] {
            let a = allocate(&policy, 150, &busy, 42).unwrap();
            let b = allocate(&policy, 150, &busy, 42).unwrap();
            let c = allocate(&policy, 150, &busy, 43).unwrap();
            assert_eq!(a, b, "{policy:?}");
            assert_ne!(a, c, "{policy:?}");
            let mut s = a.clone();
            s.sort_unstable();
            s.dedup();
            assert_eq!(s.len(), 150);
            assert!(a.iter().all(|&n| !busy[n as usize]));
        }
    }

    #[test]
    fn fragmented_takes_runs() {
        let busy = vec![false; 1000];
        let v = allocate(
            &AllocationPolicy::Fragmented {
                chunks: ChunkSizes::Fixed(8),
            },
            64,
            &busy,
            5,
        )
        .unwrap();
        let adjacent = v.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(
            adjacent >= 40,
            "expected mostly consecutive chunks, got {adjacent}"
        );
    }

    #[test]
    fn impossible_requests_are_errors() {
        let busy = busy_every_third(30);
        assert!(matches!(
            allocate(&AllocationPolicy::Random, 25, &busy, 0),
            Err(AllocError::NotEnoughNodes {
                needed: 25,
                free: 20,
                total: 30,
                ..
            })
        ));
        assert!(matches!(
            allocate(&AllocationPolicy::Explicit(vec![1, 31]), 2, &busy, 0),
            Err(AllocError::OutOfRange { node: 31, .. })
        ));
        assert!(matches!(
            allocate(&AllocationPolicy::Explicit(vec![1, 3]), 2, &busy, 0),
            Err(AllocError::Overlap { node: 3, .. })
        ));
        assert!(matches!(
            allocate(&AllocationPolicy::Explicit(vec![1, 1]), 2, &busy, 0),
            Err(AllocError::Overlap { node: 1, .. })
        ));
        assert!(matches!(
            allocate(&AllocationPolicy::Explicit(vec![1]), 2, &busy, 0),
            Err(AllocError::WrongCount { .. })
        ));
    }

    #[test]
    fn allocation_file_and_workload_overlap() {
        let text = "# job 0\n0 1 2 3\n\n3 4\n";
        let lines = parse_allocation_file(text).unwrap();
        assert_eq!(lines, vec![vec![0, 1, 2, 3], vec![3, 4]]);
        let mut w = Workload::new(vec![JobSpec::new("a", 8, 2), JobSpec::new("b", 4, 2)]);
        apply_allocation_file(&mut w, text).unwrap();
        let err = allocate_workload(&w, 10, 0).unwrap_err().error;
        assert!(
            err.to_string()
                .contains("node 3 is already allocated by job 0"),
            "{err}"
        );
        apply_allocation_file(&mut w, "0 1 2 3\n4 5\n").unwrap();
        assert_eq!(
            allocate_workload(&w, 10, 0).unwrap(),
            vec![vec![0, 1, 2, 3], vec![4, 5]]
        );
        assert!(matches!(
            parse_allocation_file("1 x"),
            Err(AllocError::Parse { line: 1, .. })
        ));
        assert!(matches!(
            apply_allocation_file(&mut w, "1 2"),
            Err(AllocError::MissingLines { .. })
        ));
    }

    /// A workload whose job 0 holds exactly `first` (of a 40-node machine) and job 1 `second`,
    /// then a 2-rank-per-node job `next` of `next_nodes` nodes next to `jobs`.
    fn next_to_workload(
        first: &[u32],
        second: &[u32],
        jobs: Vec<usize>,
        next_nodes: u32,
    ) -> Workload {
        let mut a = JobSpec::new("a", first.len() as u32, 1);
        a.allocation = AllocationPolicy::Explicit(first.to_vec());
        let mut b = JobSpec::new("b", second.len() as u32, 1);
        b.allocation = AllocationPolicy::Explicit(second.to_vec());
        let mut c = JobSpec::new("next", next_nodes * 2, 2);
        c.allocation = AllocationPolicy::NextTo { jobs };
        Workload::new(vec![a, b, c])
    }

    #[test]
    fn next_to_takes_the_nearest_free_nodes_sorted() {
        // Job 0 on 10-12 and 30, job 1 on 20-21. Next to job 0: distance 1 are 9, 13, 29 and
        // 31, distance 2 are 8, 14, 28 and 32.
        let w = next_to_workload(&[30, 10, 11, 12], &[20, 21], vec![0], 6);
        let x = allocate_workload(&w, 40, 1).unwrap();
        assert_eq!(x[2], vec![8, 9, 13, 14, 29, 31]);
        // Ties go to the lower ids: of the four at distance 2, 8 comes first.
        let w = next_to_workload(&[30, 10, 11, 12], &[20, 21], vec![0], 5);
        assert_eq!(
            allocate_workload(&w, 40, 1).unwrap()[2],
            vec![8, 9, 13, 29, 31]
        );
        // Next to both jobs: 19 and 22 are at distance 1 too.
        let w = next_to_workload(&[30, 10, 11, 12], &[20, 21], vec![1, 0], 6);
        assert_eq!(
            allocate_workload(&w, 40, 1).unwrap()[2],
            vec![9, 13, 19, 22, 29, 31]
        );
        // Busy nodes of job 1 are skipped even when they are nearest to job 0.
        let w = next_to_workload(&[10], &[9, 11], vec![0], 2);
        assert_eq!(allocate_workload(&w, 40, 1).unwrap()[2], vec![8, 12]);
    }

    #[test]
    fn next_to_does_not_depend_on_the_seed() {
        let mut a = JobSpec::new("a", 64, 4);
        a.allocation = AllocationPolicy::Fragmented {
            chunks: ChunkSizes::Geometric { mean: 3.0 },
        };
        let mut b = JobSpec::new("b", 24, 4);
        b.allocation = AllocationPolicy::NextTo { jobs: vec![0] };
        let mut w = Workload::new(vec![a, b]);
        let x = allocate_workload(&w, 200, 9).unwrap();
        // With job 0's nodes fixed, every seed gives job 1 the same nodes.
        w.jobs[0].allocation = AllocationPolicy::Explicit(x[0].clone());
        for seed in [0, 1, 9, 12345] {
            assert_eq!(allocate_workload(&w, 200, seed).unwrap(), x);
        }
        assert!(x[1].windows(2).all(|p| p[0] < p[1]), "{:?}", x[1]);
        assert!(x[1].iter().all(|n| !x[0].contains(n)));
    }

    #[test]
    fn next_to_mistakes_are_errors() {
        // Itself, a later job and no job at all are not earlier jobs.
        for bad in [2, 3, 7] {
            let w = next_to_workload(&[10], &[20], vec![0, bad], 2);
            let err = allocate_workload(&w, 40, 1).unwrap_err().error;
            assert_eq!(
                err,
                AllocError::NotAnEarlierJob {
                    job: "2 (`next`)".into(),
                    other: bad
                }
            );
            assert!(err.to_string().contains("`next`"), "{err}");
        }
        let w = next_to_workload(&[10], &[20], vec![], 2);
        assert!(matches!(
            allocate_workload(&w, 40, 1).map_err(|e| e.error),
            Err(AllocError::NextToNothing { .. })
        ));
        // 40 nodes, 2 busy: 38 free.
        let w = next_to_workload(&[10], &[20], vec![0], 39);
        assert!(matches!(
            allocate_workload(&w, 40, 1).map_err(|e| e.error),
            Err(AllocError::NotEnoughNodes {
                needed: 39,
                free: 38,
                total: 40,
                ..
            })
        ));
        let w = next_to_workload(&[10], &[20], vec![0], 38);
        assert_eq!(allocate_workload(&w, 40, 1).unwrap()[2].len(), 38);
        // A single job has no earlier jobs to sit next to.
        assert_eq!(
            allocate(
                &AllocationPolicy::NextTo { jobs: vec![0] },
                2,
                &[false; 8],
                0
            ),
            Err(AllocError::NextToWithoutWorkload { job: "0".into() })
        );
    }

    #[test]
    fn workload_allocation_is_disjoint_and_deterministic() {
        let mut a = JobSpec::new("a", 64, 4);
        a.allocation = AllocationPolicy::Random;
        let mut b = JobSpec::new("b", 32, 4);
        b.allocation = AllocationPolicy::Fragmented {
            chunks: ChunkSizes::Geometric { mean: 3.0 },
        };
        let w = Workload::new(vec![a, b, JobSpec::new("c", 8, 4)]);
        let x = allocate_workload(&w, 64, 9).unwrap();
        assert_eq!(x, allocate_workload(&w, 64, 9).unwrap());
        let mut all: Vec<u32> = x.iter().flatten().copied().collect();
        assert_eq!(all.len(), 16 + 8 + 2);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 26);
        assert!(allocate_workload(&w, 20, 9).is_err());
    }
}
