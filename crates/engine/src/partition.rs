//! Partitioning of LPs into clusters, the unit of work the parallel executor hands to threads.
//!
//! Partitioning never changes results: every LP handles its events in total key order however
//! the LPs are grouped. It only decides which sends cross clusters (and so must respect the
//! lookahead) and how work spreads over threads.
//!
//! Clusters come in *regions*: the LPs' cluster hints (a fat-tree pod, a dragonfly group)
//! name the region and, with [`PartitionSpec::Split`], their split hints (a router with the
//! hosts behind it) the cluster within it. The asynchronous executor deals a region out whole
//! unless splitting it into its clusters evens the threads' loads, so traffic inside a pod
//! stays on one thread where it can (docs/engine.md). The windowed executor works on whole
//! regions.

/// How to group LPs into clusters.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum PartitionSpec {
    /// Use the LPs' cluster hints when every LP gives one, each hinted region one cluster;
    /// otherwise contiguous blocks ([`DEFAULT_CLUSTERS`] of them, fewer if there are fewer
    /// LPs).
    #[default]
    Auto,
    /// As [`PartitionSpec::Auto`], with each hinted region split into clusters by the LPs'
    /// split hints.
    Split,
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
    /// An explicit region for every LP, split into clusters by an explicit split id (as the
    /// LPs' hints do under [`PartitionSpec::Split`]).
    Regions {
        /// The region of every LP.
        regions: Vec<u32>,
        /// The split id of every LP within its region.
        splits: Vec<Option<u32>>,
    },
}

/// Default number of clusters for [`PartitionSpec::Auto`]: more than any thread count this
/// machine class runs, so threads can balance load dynamically.
pub const DEFAULT_CLUSTERS: usize = 64;

/// A resolved partition: the cluster of every LP and the region of every cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    cluster_of: Vec<u32>,
    clusters: usize,
    /// The region of each cluster (regions numbered densely from 0).
    region_of: Vec<u32>,
    /// The region of each LP.
    region_of_lp: Vec<u32>,
    regions: usize,
}

impl Partition {
    /// `clusters` contiguous blocks over `nlp` LPs.
    pub fn contiguous(nlp: usize, clusters: usize) -> Self {
        let clusters = clusters.clamp(1, nlp.max(1));
        let cluster_of = (0..nlp)
            .map(|i| (i * clusters / nlp.max(1)) as u32)
            .collect();
        Self::one_region_per_cluster(cluster_of, clusters)
    }

    /// Round-robin assignment of `nlp` LPs to `clusters` clusters.
    pub fn round_robin(nlp: usize, clusters: usize) -> Self {
        let clusters = clusters.clamp(1, nlp.max(1));
        let cluster_of = (0..nlp).map(|i| (i % clusters) as u32).collect();
        Self::one_region_per_cluster(cluster_of, clusters)
    }

    fn one_region_per_cluster(cluster_of: Vec<u32>, clusters: usize) -> Self {
        Partition {
            region_of_lp: cluster_of.clone(),
            cluster_of,
            clusters,
            region_of: (0..clusters as u32).collect(),
            regions: clusters,
        }
    }

    /// An explicit assignment, each cluster its own region; cluster ids are renumbered densely
    /// in order of first use.
    pub fn explicit(ids: &[u32]) -> Self {
        let (cluster_of, clusters) = dense(ids.iter().copied());
        Self::one_region_per_cluster(cluster_of, clusters)
    }

    /// Regions split into clusters: LP `i` is in region `regions[i]` and, within it, in the
    /// cluster of the LPs with the same `splits[i]` (`None`, or no entry, is a cluster of its
    /// own kind: the region's LPs without a split hint). Ids are renumbered densely in order of
    /// first use.
    pub fn split_regions(regions: &[u32], splits: &[Option<u32>]) -> Self {
        let (region_of_lp, nregions) = dense(regions.iter().copied());
        let keys = regions.iter().enumerate().map(|(i, &r)| {
            let split = splits.get(i).copied().flatten();
            (r, split.map_or(0, |s| u64::from(s) + 1))
        });
        let (cluster_of, clusters) = dense(keys);
        let mut region_of = vec![0u32; clusters];
        for (&c, &r) in cluster_of.iter().zip(&region_of_lp) {
            region_of[c as usize] = r;
        }
        Partition {
            cluster_of,
            clusters,
            region_of,
            region_of_lp,
            regions: nregions,
        }
    }

    /// Resolves a spec for `nlp` LPs with the given cluster hints and split hints (one of each
    /// per LP; missing split hints count as `None`).
    pub fn resolve(spec: &PartitionSpec, hints: &[Option<u32>], splits: &[Option<u32>]) -> Self {
        let nlp = hints.len();
        match spec {
            PartitionSpec::Auto | PartitionSpec::Split => {
                if nlp > 0 && hints.iter().all(Option::is_some) {
                    let ids: Vec<u32> = hints.iter().map(|h| h.unwrap_or(0)).collect();
                    let split = *spec == PartitionSpec::Split;
                    Self::split_regions(&ids, if split { splits } else { &[] })
                } else {
                    Self::contiguous(nlp, DEFAULT_CLUSTERS)
                }
            }
            PartitionSpec::Contiguous { clusters } => Self::contiguous(nlp, *clusters),
            PartitionSpec::RoundRobin { clusters } => Self::round_robin(nlp, *clusters),
            PartitionSpec::Explicit(ids) => Self::explicit(ids),
            PartitionSpec::Regions { regions, splits } => Self::split_regions(regions, splits),
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

    /// The region of every cluster, indexed by cluster.
    pub fn regions_of_clusters(&self) -> &[u32] {
        &self.region_of
    }

    /// The region of every LP, indexed by LP.
    pub fn region_assignment(&self) -> &[u32] {
        &self.region_of_lp
    }

    /// The number of regions.
    pub fn regions(&self) -> usize {
        self.regions
    }
}

/// Renumbers `ids` densely in order of first use; returns the new ids and how many there are
/// (at least 1).
fn dense<K: std::hash::Hash + Eq>(ids: impl Iterator<Item = K>) -> (Vec<u32>, usize) {
    let mut map = std::collections::HashMap::new();
    let out = ids
        .map(|id| {
            let n = map.len() as u32;
            *map.entry(id).or_insert(n)
        })
        .collect();
    (out, map.len().max(1))
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
        assert_eq!(p.regions_of_clusters(), &[0, 1, 2]);
        let hinted = Partition::resolve(&PartitionSpec::Auto, &[Some(5), Some(5), Some(1)], &[]);
        assert_eq!(hinted.clusters(), 2);
        assert_eq!(hinted.regions(), 2);
        let partial = Partition::resolve(&PartitionSpec::Auto, &[Some(5), None, Some(1)], &[]);
        assert_eq!(partial.clusters(), 3);
        let rr = Partition::resolve(&PartitionSpec::RoundRobin { clusters: 2 }, &[None; 5], &[]);
        assert_eq!(rr.assignment(), &[0, 1, 0, 1, 0]);
        assert_eq!(rr.region_assignment(), rr.assignment());
    }

    #[test]
    fn split_hints_cut_regions_into_clusters() {
        // Two pods: pod 7 holds routers 1 and 2 (each with a host), pod 3 router 4 and an LP
        // without a split hint.
        let hints = [Some(7), Some(7), Some(7), Some(7), Some(3), Some(3)];
        let splits = [Some(1), Some(2), Some(1), Some(2), Some(4), None];
        let whole = Partition::resolve(&PartitionSpec::Auto, &hints, &splits);
        assert_eq!(whole.assignment(), &[0, 0, 0, 0, 1, 1]);
        assert_eq!(whole.regions(), 2);
        let p = Partition::resolve(&PartitionSpec::Split, &hints, &splits);
        assert_eq!(p.assignment(), &[0, 1, 0, 1, 2, 3]);
        assert_eq!(p.clusters(), 4);
        assert_eq!(p.regions(), 2);
        assert_eq!(p.regions_of_clusters(), &[0, 0, 1, 1]);
        assert_eq!(p.region_assignment(), &[0, 0, 0, 0, 1, 1]);
        // The same split hint in two regions is two clusters.
        let q = Partition::split_regions(&[1, 2], &[Some(9), Some(9)]);
        assert_eq!(q.clusters(), 2);
        assert_eq!(q.regions_of_clusters(), &[0, 1]);
        // Missing split ids count as none: every LP still has a cluster.
        let short = Partition::split_regions(&[1, 1, 1], &[Some(4)]);
        assert_eq!(short.assignment(), &[0, 1, 1]);
        assert_eq!(short.regions(), 1);
    }
}
