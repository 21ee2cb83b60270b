//! The per-operation timeline (`timeline.csv`): one row per finished I/O operation of every
//! rank, kept only with `outputs.timeline`.
//!
//! The compute nodes' operation logs ([`OpLog`]) are taken out of the LPs when the run ends
//! and kept as they are, not copied into one table: a full-scale LAMMPS run logs 1.4 million
//! operations. Each log is sorted by rank and time in place and its records renumbered onto
//! one table of distinct targets ([`TargetTable`]); since a rank's operations are all on its
//! node, the timeline's order (job, rank, start, end, offset) is each rank's run of records
//! taken in job and rank order. Files and targets become text only when `timeline.csv` is
//! written.

use super::chart::IoKind;
use super::collect::secs;
use super::csv_text::CsvText;
use crate::model::{OpLog, OpRecord, SimLp, Target, TargetTable};
use bbsim_engine::Simulation;
use bbsim_workload::Workload;

/// One row of the timeline: a finished operation and the job and node of its rank.
#[derive(Clone, Copy, Debug)]
pub struct TimelineRow<'a> {
    /// Job index.
    pub job: u32,
    /// Compute node.
    pub node: u32,
    /// The operation (its `target` indexes [`Timeline::targets`]).
    pub op: &'a OpRecord,
}

/// One node's log in the timeline.
#[derive(Clone, Debug)]
struct NodeOps {
    job: u32,
    node: u32,
    log: OpLog,
}

/// One rank's records: `nodes[node].log.records()[from..to]`.
#[derive(Clone, Copy, Debug)]
struct RankRun {
    job: u32,
    rank: u32,
    node: u32,
    from: u32,
    to: u32,
}

/// Every recorded operation of a run, in job, rank, start, end and offset order.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    nodes: Vec<NodeOps>,
    /// The ranks' runs of records, in job and rank order.
    runs: Vec<RankRun>,
    /// The distinct targets the records name, in order of first appearance in LP order.
    pub targets: Vec<Target>,
}

impl Timeline {
    /// Takes the operation log of every compute node of `sim` that ran a job (leaving it
    /// empty). A run without `outputs.timeline` gives an empty timeline.
    pub fn take(sim: &mut Simulation<SimLp>) -> Timeline {
        let mut t = Timeline::default();
        let mut targets = TargetTable::default();
        for lp in sim.lps_mut() {
            let SimLp::Node(n) = lp else { continue };
            let Some(job) = n.job else { continue };
            if n.ops.is_empty() {
                continue;
            }
            let mut log = std::mem::take(&mut n.ops);
            log.share_targets(&mut targets);
            log.sort();
            let at = t.nodes.len() as u32;
            let records = log.records();
            let mut from = 0;
            while from < records.len() {
                let rank = records[from].rank;
                let to = from + records[from..].partition_point(|r| r.rank == rank);
                t.runs.push(RankRun {
                    job,
                    rank,
                    node: at,
                    from: from as u32,
                    to: to as u32,
                });
                from = to;
            }
            t.nodes.push(NodeOps {
                job,
                node: n.terminal,
                log,
            });
        }
        // Stable: a rank found on two nodes (never, in this model) would keep LP order.
        t.runs.sort_by_key(|r| (r.job, r.rank));
        t.targets = targets.into_targets();
        t
    }

    /// The rows in order.
    pub fn rows(&self) -> impl Iterator<Item = TimelineRow<'_>> {
        self.runs.iter().flat_map(move |run| {
            let n = &self.nodes[run.node as usize];
            n.log.records()[run.from as usize..run.to as usize]
                .iter()
                .map(move |op| TimelineRow {
                    job: n.job,
                    node: n.node,
                    op,
                })
        })
    }

    /// How many operations it holds.
    pub fn len(&self) -> usize {
        self.nodes.iter().map(|n| n.log.len()).sum()
    }

    /// Whether no operation was recorded.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Where `op` was served.
    pub fn target(&self, op: &OpRecord) -> &Target {
        &self.targets[op.target as usize]
    }

    /// The figure kind of `op`: what it moved and where; `None` for an operation that moved
    /// no bytes.
    pub fn kind(&self, op: &OpRecord) -> Option<IoKind> {
        io_kind(op.write, self.target(op))
    }

    /// Whether `op` crossed the network (went to BB servers or the PFS).
    pub fn crossed_network(&self, op: &OpRecord) -> bool {
        matches!(self.target(op), Target::Bb { .. } | Target::Pfs)
    }

    /// The text of `timeline.csv`: one row per operation, its job and file by name (from
    /// `workload`; `?` for an unknown job, `file<id>` for an unknown file). Times are seconds
    /// with picosecond resolution.
    pub fn csv(&self, workload: &Workload) -> String {
        let labels: Vec<String> = self.targets.iter().map(target_label).collect();
        let job_names = workload.job_names();
        // About 105 bytes a row on the study's runs; room for more keeps the buffer from
        // doubling (untouched capacity costs no memory).
        let mut t = CsvText::with_capacity(self.len() * 128 + 128);
        t.row([
            "job", "rank", "node", "op", "file", "offset", "bytes", "start_s", "end_s", "target",
            "hops",
        ]);
        let mut unknown;
        for row in self.rows() {
            let e = row.op;
            let job = workload.jobs.get(row.job as usize);
            let file = match job.and_then(|j| j.files.get(e.file as usize)) {
                Some(f) => f.name.as_str(),
                None => {
                    unknown = format!("file{}", e.file);
                    unknown.as_str()
                }
            };
            t.field(super::report::job_field(&job_names, row.job))
                .value(e.rank)
                .value(row.node)
                .field(if e.write { "write" } else { "read" })
                .field(file)
                .value(e.offset)
                .value(e.bytes)
                .field(&secs(e.start))
                .field(&secs(e.end))
                .field(&labels[e.target as usize])
                .value(e.hops)
                .end_row();
        }
        t.finish()
    }
}

/// The figure kind of an operation from its direction and target (what [`IoKind::of`] gives
/// for its `timeline.csv` label); `None` for an operation that moved no bytes.
pub fn io_kind(write: bool, target: &Target) -> Option<IoKind> {
    Some(match (write, target) {
        (_, Target::None) => return None,
        (true, Target::Bb { spilled: true, .. }) => IoKind::SpillWrite,
        (true, Target::Bb { .. }) => IoKind::BbWrite,
        (false, Target::Bb { .. }) => IoKind::BbRead,
        (true, Target::Pfs) => IoKind::PfsWrite,
        (false, Target::Pfs) => IoKind::PfsRead,
        (true, Target::Local) => IoKind::LocalWrite,
        (false, Target::Local) => IoKind::LocalRead,
        (false, Target::Cache) => IoKind::CacheRead,
        (true, Target::Cache) => IoKind::Unrecorded,
    })
}

/// How `timeline.csv` names where an operation went: `local-ssd`, `bb:<servers>` (joined by
/// `+`), `bb:<servers>+pfs-spill`, `pfs`, `cache` or `none`.
pub fn target_label(target: &Target) -> String {
    match target {
        Target::Local => "local-ssd".to_string(),
        Target::Pfs => "pfs".to_string(),
        Target::Cache => "cache".to_string(),
        Target::None => "none".to_string(),
        Target::Bb { servers, spilled } => {
            let names: Vec<String> = servers.iter().map(|s| s.to_string()).collect();
            let mut t = format!("bb:{}", names.join("+"));
            if *spilled {
                t.push_str("+pfs-spill");
            }
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_kinds_agree_with_the_labels_the_csv_gives() {
        let targets = [
            Target::Local,
            Target::Pfs,
            Target::Cache,
            Target::None,
            Target::Bb {
                servers: vec![3, 1],
                spilled: false,
            },
            Target::Bb {
                servers: vec![0],
                spilled: true,
            },
        ];
        for t in &targets {
            for write in [true, false] {
                assert_eq!(
                    io_kind(write, t),
                    IoKind::of(write, &target_label(t)),
                    "{t:?} write={write}"
                );
            }
        }
        assert_eq!(target_label(&targets[4]), "bb:3+1");
        assert_eq!(target_label(&targets[5]), "bb:0+pfs-spill");
    }
}
