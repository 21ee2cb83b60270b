//! Partitioning of LPs into clusters, the unit of work the parallel executor hands to threads.
//!
//! Partitioning never changes results: every LP handles its events in total key order however
//! the LPs are grouped. It only decides which sends cross clusters (and so must respect the
//! lookahead) and how work spreads over threads.

/// How to group LPs into clusters.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum PartitionSpec {
    /// Use the LPs' cluster hints when every LP gives one, otherwise contiguous blocks
    /// ([`DEFAULT_CLUSTERS`] of them, fewer if there are fewer LPs).
    #[default]
    Auto,
    /// `clusters` contiguous blocks of LP ids of (nearly) equal size.
    Contiguous {
        /// Number of clusters.
        clusters: usize,
    },
    /// LP `i` goes to cluster `i % clusters` (mostly for testing partition independence).
    RoundRobin {
        /// Number of clusters.
        clusters: usize,
    },
    /// An explicit cluster id for every LP (ids are compacted to `0..n`).
    Explicit(Vec<u32>),
}

/// Default number of clusters for [`PartitionSpec::Auto`]: more than any thread count this
/// machine class runs, so threads can balance load dynamically.
pub const DEFAULT_CLUSTERS: usize = 64;

/// A resolved partition: the cluster of every LP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    cluster_of: Vec<u32>,
    clusters: usize,
}

impl Partition {
    /// `clusters` contiguous blocks over `nlp` LPs.
    pub fn contiguous(nlp: usize, clusters: usize) -> Self {
        let clusters = clusters.clamp(1, nlp.max(1));
        let cluster_of = (0..nlp)
            .map(|i| (i * clusters / nlp.max(1)) as u32)
            .collect();
        Partition {
            cluster_of,
            clusters,
        }
    }

    /// Round-robin assignment of `nlp` LPs to `clusters` clusters.
    pub fn round_robin(nlp: usize, clusters: usize) -> Self {
        let clusters = clusters.clamp(1, nlp.max(1));
        let cluster_of = (0..nlp).map(|i| (i % clusters) as u32).collect();
        Partition {
            cluster_of,
            clusters,
        }
    }

    /// An explicit assignment; cluster ids are renumbered densely in order of first use.
    pub fn explicit(ids: &[u32]) -> Self {
        let mut map = std::collections::HashMap::new();
        let cluster_of = ids
            .iter()
            .map(|id| {
                let n = map.len() as u32;
                *map.entry(*id).or_insert(n)
            })
            .collect();
        Partition {
            cluster_of,
            clusters: map.len().max(1),
        }
    }

    /// Resolves a spec for `nlp` LPs with the given hints (one per LP).
    pub fn resolve(spec: &PartitionSpec, hints: &[Option<u32>]) -> Self {
        let nlp = hints.len();
        match spec {
            PartitionSpec::Auto => {
                if nlp > 0 && hints.iter().all(Option::is_some) {
                    let ids: Vec<u32> = hints.iter().map(|h| h.unwrap_or(0)).collect();
                    Self::explicit(&ids)
                } else {
                    Self::contiguous(nlp, DEFAULT_CLUSTERS)
                }
            }
            PartitionSpec::Contiguous { clusters } => Self::contiguous(nlp, *clusters),
            PartitionSpec::RoundRobin { clusters } => Self::round_robin(nlp, *clusters),
            PartitionSpec::Explicit(ids) => Self::explicit(ids),
        }
    }

    /// The cluster of LP index `lp`.
    #[inline]
    pub fn cluster_of(&self, lp: usize) -> u32 {
        self.cluster_of[lp]
    }

    /// The whole assignment, indexed by LP.
    pub fn assignment(&self) -> &[u32] {
        &self.cluster_of
    }

    /// The number of clusters.
    pub fn clusters(&self) -> usize {
        self.clusters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_blocks_cover_all() {
        let p = Partition::contiguous(10, 3);
        assert_eq!(p.assignment(), &[0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
        assert_eq!(p.clusters(), 3);
        assert_eq!(Partition::contiguous(2, 64).clusters(), 2);
        assert_eq!(Partition::contiguous(0, 4).clusters(), 1);
    }

    #[test]
    fn explicit_and_hints() {
        let p = Partition::explicit(&[7, 7, 3, 9, 3]);
        assert_eq!(p.assignment(), &[0, 0, 1, 2, 1]);
        let hinted = Partition::resolve(&PartitionSpec::Auto, &[Some(5), Some(5), Some(1)]);
        assert_eq!(hinted.clusters(), 2);
        let partial = Partition::resolve(&PartitionSpec::Auto, &[Some(5), None, Some(1)]);
        assert_eq!(partial.clusters(), 3);
        let rr = Partition::resolve(&PartitionSpec::RoundRobin { clusters: 2 }, &[None; 5]);
        assert_eq!(rr.assignment(), &[0, 1, 0, 1, 0]);
    }
}
