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
                let u = 1.0 - rng.next_f64(); // (0, 1]
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
pub fn allocate(
    policy: &AllocationPolicy,
    needed: u32,
    busy: &[bool],
    seed: u64,
) -> Result<Vec<u32>, AllocError> {
    allocate_named("0", policy, needed, busy, seed)
}

fn allocate_named(
    job: &str,
    policy: &AllocationPolicy,
    needed: u32,
    busy: &[bool],
    seed: u64,
) -> Result<Vec<u32>, AllocError> {
    let total = busy.len() as u32;
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
    let mut rng = Rng::new(seed);
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
        AllocationPolicy::Explicit(_) => unreachable!("handled above"),
    })
}

/// Allocates every job of `workload` on a machine of `nodes_total` nodes, in job order; nodes
/// given to a job are busy for the jobs after it (the jobs of a workload run together).
/// Job `j` draws from the random stream `Rng::derive(seed, j)`.
pub fn allocate_workload(
    workload: &Workload,
    nodes_total: u32,
    seed: u64,
) -> Result<Vec<Vec<u32>>, AllocError> {
    let mut busy = vec![false; nodes_total as usize];
    let mut owner = vec![usize::MAX; nodes_total as usize];
    let mut out = Vec::with_capacity(workload.jobs.len());
    for (j, job) in workload.jobs.iter().enumerate() {
        let name = format!("{j} (`{}`)", job.name);
        let job_seed = Rng::derive(seed, j as u64).next_u64();
        let nodes = allocate_named(&name, &job.allocation, job.nodes_needed(), &busy, job_seed)
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
            })?;
        for &n in &nodes {
            busy[n as usize] = true;
            owner[n as usize] = j;
        }
        out.push(nodes);
    }
    Ok(out)
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
        let err = allocate_workload(&w, 10, 0).unwrap_err();
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
