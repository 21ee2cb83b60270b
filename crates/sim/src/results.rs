//! Reduction of the final LP states into results: the per-operation timeline, per-rank and
//! per-job summaries, device, server and link statistics. Everything is reduced in LP order,
//! so results are identical for any thread count.

use crate::assemble::Placed;
use crate::model::{SimLp, Target};
use bbsim_engine::{Simulation, Time};
use bbsim_storage::pfs::PfsTotals;
use bbsim_storage::BbLedger;
use bbsim_topology::stats::NetworkStats;
use bbsim_topology::topology::Topology;
use bbsim_workload::Workload;
use serde::Serialize;

/// Picoseconds as exact decimal seconds ("1.500000000000").
pub fn secs(ps: Time) -> String {
    format!("{}.{:012}", ps / 1_000_000_000_000, ps % 1_000_000_000_000)
}

/// Picoseconds as seconds (float, for JSON and tables).
pub fn secs_f(ps: Time) -> f64 {
    ps as f64 / 1e12
}

/// One row of `timeline.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimelineRow {
    /// Job index.
    pub job: u32,
    /// Rank within the job.
    pub rank: u32,
    /// Compute node.
    pub node: u32,
    /// `write` or `read`.
    pub write: bool,
    /// File name.
    pub file: String,
    /// Offset (bytes).
    pub offset: u64,
    /// Size (bytes).
    pub bytes: u64,
    /// Issue time (ps).
    pub start: Time,
    /// Completion time (ps).
    pub end: Time,
    /// `local-ssd`, `bb:<servers>`, `bb:<servers>+pfs-spill`, `pfs` or `none`.
    pub target: String,
    /// Request-path router hops (largest over the operation's parts).
    pub hops: u16,
}

/// One row of `ranks.csv`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RankRow {
    /// Job index.
    pub job: u32,
    /// Rank.
    pub rank: u32,
    /// Compute node.
    pub node: u32,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// I/O operations.
    pub io_ops: u64,
    /// Time spent in I/O (ps): the sum of its blocking operations' durations.
    pub time_in_io: Time,
    /// First I/O start (ps), if any.
    pub first_io_start: Option<Time>,
    /// Last I/O end (ps), if any.
    pub last_io_end: Option<Time>,
    /// When the rank finished all operations (ps), if it did.
    pub finished: Option<Time>,
}

/// Per-job results in `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct JobSummary {
    /// Job name.
    pub name: String,
    /// Ranks.
    pub ranks: u32,
    /// Compute nodes.
    pub nodes: u32,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// I/O operations.
    pub io_ops: u64,
    /// First I/O start (s).
    pub io_start_s: f64,
    /// Last I/O end (s).
    pub io_end_s: f64,
    /// I/O phase length: first start to last end (s).
    pub io_phase_s: f64,
    /// The job's I/O phases: the union of its ranks' I/O busy intervals, split wherever no
    /// rank of the job had I/O in progress for longer than `outputs.phase_gap`. In time
    /// order; the first starts at `io_start_s` and the last ends at `io_end_s`.
    pub io_phases: Vec<IoPhase>,
    /// Mean time in I/O per rank (s).
    pub time_in_io_mean_s: f64,
    /// Median time in I/O per rank (s).
    pub time_in_io_median_s: f64,
    /// 99th percentile time in I/O per rank (s).
    pub time_in_io_p99_s: f64,
    /// Largest time in I/O of any rank (s).
    pub time_in_io_max_s: f64,
    /// Bytes moved divided by the I/O phase length (bytes per second).
    pub effective_bandwidth: f64,
    /// Mean request-path router hops per I/O operation that crossed the network.
    pub avg_hops: f64,
    /// Fraction of the job's storage messages (requests and replies) routed non-minimally.
    pub nonminimal_fraction: f64,
    /// When the job's ranks started (s): its `start`, or when its last parent finished.
    pub start_s: Option<f64>,
    /// When the job finished (s), if it did.
    pub end_s: Option<f64>,
    /// Run time: end minus start (s), if it finished.
    pub run_time_s: Option<f64>,
    /// Time from the job's requested start to its actual start (s): waiting for parents and
    /// stage-in.
    pub queue_wait_s: Option<f64>,
    /// Duration of the job's stage-in (s), if it had one.
    pub stage_in_s: Option<f64>,
    /// Stage-out: from the job's end until every BB server had moved what the job left in
    /// it to the PFS (s); 0 when it left nothing (or wrote into a persistent reservation).
    pub stage_out_s: Option<f64>,
    /// When the stage-out finished (s).
    pub stage_out_end_s: Option<f64>,
    /// Reads served entirely by the ranks' read caches (0 without a cache).
    pub read_cache_hits: u64,
    /// Reads that fetched from storage through the read cache.
    pub read_cache_misses: u64,
    /// Bytes the read caches fetched from storage.
    pub read_cache_fetched: u64,
    /// Barriers completed.
    pub barriers: u64,
    /// Transfer trains of two operations or more the job's ranks sent
    /// (`simulation.train_ops`; 0 without trains).
    pub trains: u64,
    /// Operations those trains carried (their mean length is `train_ops / trains`).
    pub train_ops: u64,
}

/// One I/O phase of a job in `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IoPhase {
    /// First I/O start in the phase (s).
    pub start_s: f64,
    /// Last I/O end in the phase (s).
    pub end_s: f64,
    /// End minus start (s).
    pub length_s: f64,
    /// Ranks with I/O in the phase.
    pub ranks: u32,
    /// Largest time in I/O of any rank within the phase (s): the sum of its I/O operations'
    /// durations there.
    pub time_in_io_max_s: f64,
    /// 99th percentile (nearest rank) of the phase's ranks' time in I/O within the phase
    /// (s): steadier than the maximum where a few ranks meet another job's burst.
    pub time_in_io_p99_s: f64,
}

/// One I/O phase in picoseconds (see [`io_phases`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseSpan {
    /// First I/O start (ps).
    pub start: Time,
    /// Last I/O end (ps).
    pub end: Time,
    /// Ranks with I/O in the phase.
    pub ranks: u32,
    /// Largest per-rank sum of I/O durations within the phase (ps).
    pub time_in_io_max: Time,
    /// 99th percentile (nearest rank) of the per-rank sums of I/O durations within the
    /// phase (ps).
    pub time_in_io_p99: Time,
}

impl PhaseSpan {
    /// The phase in seconds, for `summary.json`.
    pub fn to_io_phase(self) -> IoPhase {
        IoPhase {
            start_s: secs_f(self.start),
            end_s: secs_f(self.end),
            length_s: secs_f(self.end - self.start),
            ranks: self.ranks,
            time_in_io_max_s: secs_f(self.time_in_io_max),
            time_in_io_p99_s: secs_f(self.time_in_io_p99),
        }
    }
}

/// A job's I/O phases from its ranks' busy intervals `(rank, start, end)` (any order): the
/// union of the intervals, split wherever no interval is in progress for longer than `gap`
/// (an idle stretch of exactly `gap` does not split). Independent of the input order.
pub fn io_phases(intervals: &[(u32, Time, Time)], gap: Time) -> Vec<PhaseSpan> {
    let mut sorted: Vec<(Time, Time, u32)> = intervals.iter().map(|&(r, a, b)| (a, b, r)).collect();
    sorted.sort_unstable();
    // (phase, rank, duration) of every interval, then folded per phase and rank.
    let mut per_rank: Vec<(usize, u32, Time)> = Vec::with_capacity(sorted.len());
    let mut phases: Vec<PhaseSpan> = Vec::new();
    for &(a, b, r) in &sorted {
        match phases.last_mut() {
            Some(p) if a <= p.end.saturating_add(gap) => p.end = p.end.max(b),
            _ => phases.push(PhaseSpan {
                start: a,
                end: b,
                ranks: 0,
                time_in_io_max: 0,
                time_in_io_p99: 0,
            }),
        }
        per_rank.push((phases.len() - 1, r, b - a));
    }
    per_rank.sort_unstable();
    // Per phase, every rank's sum of I/O durations there (phases come in order).
    let mut sums: Vec<Vec<Time>> = vec![Vec::new(); phases.len()];
    let mut k = 0;
    while k < per_rank.len() {
        let (p, r, _) = per_rank[k];
        let mut sum = 0;
        while k < per_rank.len() && per_rank[k].0 == p && per_rank[k].1 == r {
            sum += per_rank[k].2;
            k += 1;
        }
        sums[p].push(sum);
    }
    for (phase, mut s) in phases.iter_mut().zip(sums) {
        s.sort_unstable();
        phase.ranks = s.len() as u32;
        phase.time_in_io_max = s.last().copied().unwrap_or(0);
        phase.time_in_io_p99 = percentile(&s, 0.99);
    }
    phases
}

/// A persistent burst-buffer reservation in `summary.json`.
#[derive(Clone, Debug, Serialize)]
pub struct ReservationRow {
    /// Name in the scenario.
    pub name: String,
    /// Capacity granted (whole grains, bytes).
    pub granted_bytes: u64,
    /// BB servers (indices) holding it.
    pub servers: Vec<usize>,
    /// When its last user ended and it was torn down (s), if that happened.
    pub teardown_s: Option<f64>,
    /// When its data had been staged out after the teardown (s).
    pub staged_out_s: Option<f64>,
}

/// Per-device results (one SSD).
#[derive(Clone, Debug, Serialize)]
pub struct DeviceRow {
    /// `bb-server` (one SSD of a BB server), `bb-array` (all SSDs of a BB server simulated as
    /// one device, `burst_buffer.ssd_model = "array"`: bytes and capacity of the whole server,
    /// busy while any request is in it) or `node-local`.
    pub kind: &'static str,
    /// BB server index or compute node id.
    pub host: u32,
    /// SSD index within the host (0 for a `bb-array`).
    pub ssd: u16,
    /// Host bytes written.
    pub host_bytes_written: u64,
    /// Host bytes read.
    pub host_bytes_read: u64,
    /// NAND bytes written (host writes plus GC copies).
    pub nand_bytes_written: u64,
    /// Write amplification factor (NAND / host bytes written; 1 without GC).
    pub waf: f64,
    /// Drive writes per day over the simulated period.
    pub drive_writes_per_day: f64,
    /// Busy fraction of the simulated period.
    pub utilisation: f64,
    /// Largest queue length.
    pub max_queue: u64,
}

/// Per-BB-server results.
#[derive(Clone, Debug, Serialize)]
pub struct ServerRow {
    /// BB server index.
    pub server: u32,
    /// Network terminal.
    pub terminal: u32,
    /// Client write bytes received.
    pub received: u64,
    /// Dirty bytes still held.
    pub in_bb: u64,
    /// Bytes drained to the PFS (acknowledged).
    pub drained: u64,
    /// Bytes spilled to the PFS because the server was full.
    pub spilled: u64,
    /// Capacity in use at the end (bytes).
    pub occupied: u64,
    /// Mean SSD utilisation.
    pub utilisation: f64,
    /// Bytes the server's NIC received.
    pub nic_bytes_in: u64,
}

/// Per-link-class results.
#[derive(Clone, Debug, Serialize)]
pub struct LinkRow {
    /// Link class.
    pub class: String,
    /// Channels (one direction each).
    pub channels: u64,
    /// Bytes carried.
    pub bytes: u64,
    /// Mean busy fraction.
    pub utilisation: f64,
    /// Busiest channel's busy fraction.
    pub max_utilisation: f64,
}

/// Conservation of written bytes, cross-checked between three independent ledgers: the
/// ranks' completed writes, the BB servers' byte counters and the PFS servers' totals.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Conservation {
    /// Bytes the ranks wrote (completed writes).
    pub written: u64,
    /// Of which to node-local SSDs.
    pub node_local: u64,
    /// Of which to BB servers (by the ranks' records).
    pub to_bb: u64,
    /// Of which straight to the PFS (by the ranks' records).
    pub to_pfs: u64,
    /// Client write bytes the BB servers received (their ledgers).
    pub bb_received: u64,
    /// Bytes still held dirty in the BBs at the end.
    pub bb_held: u64,
    /// Bytes the BBs overwrote or deleted before draining.
    pub bb_superseded: u64,
    /// Bytes handed to the drain and not yet acknowledged by the PFS (in flight).
    pub in_flight: u64,
    /// Bytes the PFS stored from clients directly.
    pub pfs_direct: u64,
    /// Bytes the PFS stored from BB drains.
    pub pfs_drained: u64,
    /// Bytes the PFS stored from BB spills.
    pub pfs_spilled: u64,
    /// Node-local bytes the compute nodes' drains had the PFS acknowledge.
    pub local_drained: u64,
    /// Node-local bytes the PFS stored from those drains (acknowledged or not yet).
    pub pfs_local_drained: u64,
    /// Node-local bytes not yet acknowledged by the PFS (queued, being read back or in
    /// flight) when the run ended.
    pub local_drain_pending: u64,
    /// Whether every written byte is in exactly one place: `to_bb = bb_received = bb_held +
    /// bb_superseded + in_flight + pfs_drained + pfs_spilled`, `to_pfs = pfs_direct`, and with
    /// node-local drains `node_local = local_drained + local_drain_pending`.
    pub holds: bool,
}

/// Everything reduced from a finished run.
#[derive(Clone, Debug)]
pub struct Results {
    /// Timeline rows, sorted by job, rank, start (empty unless `outputs.timeline`).
    pub timeline: Vec<TimelineRow>,
    /// Per job: (rank, start ps, end ps) of its ranks' I/O busy intervals, operations that
    /// follow each other without a gap merged (for the timeline plot).
    pub busy: Vec<Vec<(u32, Time, Time)>>,
    /// Per-rank rows, sorted by job and rank.
    pub ranks: Vec<RankRow>,
    /// Per-job summaries.
    pub jobs: Vec<JobSummary>,
    /// Per-SSD results.
    pub devices: Vec<DeviceRow>,
    /// Per-BB-server results.
    pub servers: Vec<ServerRow>,
    /// Per-link-class results.
    pub links: Vec<LinkRow>,
    /// Conservation check.
    pub conservation: Conservation,
    /// Simulated time at the end (ps): the last job end or the last event.
    pub sim_end: Time,
    /// Workflow makespan (ps): first job start to last job end, if every job finished.
    pub makespan: Option<Time>,
    /// Time of the last event (ps): includes drains and stage-outs that outlive the jobs.
    pub last_activity: Time,
    /// Persistent reservations.
    pub reservations: Vec<ReservationRow>,
}

fn percentile(sorted: &[Time], p: f64) -> Time {
    if sorted.is_empty() {
        return 0;
    }
    let idx = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[idx]
}

/// Reduces a finished simulation. `phase_gap` (ps) is `outputs.phase_gap`: the idle time
/// that separates two I/O phases of a job.
pub fn reduce(
    sim: &Simulation<SimLp>,
    placed: &Placed,
    workload: &Workload,
    topology: &Topology,
    last_event: Time,
    phase_gap: Time,
) -> Results {
    let njobs = workload.jobs.len();
    let mut timeline = Vec::new();
    let mut busy: Vec<Vec<(u32, Time, Time)>> = vec![Vec::new(); njobs];
    let mut net_ops = vec![(0u64, 0u64); njobs];
    let mut written_to = crate::model::rank_io::WrittenTo::default();
    let mut ranks: Vec<RankRow> = Vec::new();
    let mut job_msgs = vec![(0u64, 0u64); njobs];
    let mut job_ends: Vec<Option<Time>> = vec![None; njobs];
    let mut job_starts: Vec<Option<Time>> = vec![None; njobs];
    let mut stage_ins: Vec<Option<(Time, Time)>> = vec![None; njobs];
    let mut stage_outs: Vec<Option<(Time, Time)>> = vec![None; njobs];
    let mut cache = vec![(0u64, 0u64, 0u64); njobs];
    let mut trains = vec![(0u64, 0u64); njobs];
    let mut reservations = Vec::new();
    // Node-local drains: (acknowledged, pending) bytes, and whether any node has one.
    let mut local_drain = (0u64, 0u64, false);
    let mut barriers = vec![0u64; njobs];
    let mut devices = Vec::new();
    let mut servers = Vec::new();
    let mut pfs = PfsTotals::default();
    let mut bb = BbLedger::default();
    let mut routers = Vec::new();
    let mut nics = Vec::new();
    let mut bb_index = 0u32;
    let sim_end = last_event.max(1);
    for lp in sim.lps() {
        match lp {
            SimLp::Router(r) => routers.push((r.id(), r.stats())),
            SimLp::Fabric(f) => routers.extend(f.router_stats()),
            SimLp::Flows(f) => routers.extend(f.router_stats()),
            SimLp::Node(n) => {
                nics.push(n.nic().stats().clone());
                let Some(j) = n.job else { continue };
                let job = &workload.jobs[j as usize];
                let (handed, acked, pending) = n.drain_totals();
                local_drain.0 += acked;
                local_drain.1 += pending;
                local_drain.2 |= handed + pending > 0;
                let (h, m, f) = n.cache_totals();
                let c = &mut cache[j as usize];
                *c = (c.0 + h, c.1 + m, c.2 + f);
                let t = &mut trains[j as usize];
                *t = (t.0 + n.trains.0, t.1 + n.trains.1);
                let (m, nm) = &mut job_msgs[j as usize];
                *m += n.replies.messages;
                *nm += n.replies.nonminimal;
                let w = n.written_to;
                written_to.local += w.local;
                written_to.bb += w.bb;
                written_to.pfs += w.pfs;
                for ((rank, fin), io) in n.ranks().zip(&n.finished).zip(&n.rank_io) {
                    let (ops, hops) = &mut net_ops[j as usize];
                    *ops += io.net_ops;
                    *hops += io.net_hops;
                    busy[j as usize].extend(io.busy().map(|(a, b)| (rank, a, b)));
                    ranks.push(RankRow {
                        job: j,
                        rank,
                        node: n.terminal,
                        bytes_written: io.bytes_written,
                        bytes_read: io.bytes_read,
                        io_ops: io.io_ops,
                        time_in_io: io.time_in_io,
                        first_io_start: io.first_io_start,
                        last_io_end: io.last_io_end,
                        finished: *fin,
                    });
                }
                for rec in &n.records {
                    let target = match &rec.target {
                        Target::Local => "local-ssd".to_string(),
                        Target::Pfs => "pfs".to_string(),
                        Target::Cache => "cache".to_string(),
                        Target::None => "none".to_string(),
                        Target::Bb { servers, spilled } => {
                            let names: Vec<String> =
                                servers.iter().map(|s| s.to_string()).collect();
                            let mut t = format!("bb:{}", names.join("+"));
                            if *spilled {
                                t.push_str("+pfs-spill");
                            }
                            t
                        }
                    };
                    timeline.push(TimelineRow {
                        job: j,
                        rank: rec.rank,
                        node: n.terminal,
                        write: rec.write,
                        file: job
                            .files
                            .get(rec.file as usize)
                            .map_or_else(|| format!("file{}", rec.file), |f| f.name.clone()),
                        offset: rec.offset,
                        bytes: rec.bytes,
                        start: rec.start,
                        end: rec.end,
                        target,
                        hops: rec.hops,
                    });
                }
                if let Some(ssd) = n.local_ssd() {
                    devices.push(device_row("node-local", n.terminal, 0, ssd, sim_end));
                }
            }
            SimLp::Bb(b) => {
                nics.push(b.nic().stats().clone());
                for (j, c) in b.per_job.iter().enumerate() {
                    if let Some(m) = job_msgs.get_mut(j) {
                        m.0 += c.messages;
                        m.1 += c.nonminimal;
                    }
                }
                let ledger = b.server.ledger();
                bb.received += ledger.received;
                bb.in_bb += ledger.in_bb;
                bb.superseded += ledger.superseded;
                bb.deleted += ledger.deleted;
                bb.stalled += ledger.stalled;
                bb.drain_handed += ledger.drain_handed;
                bb.drain_acked += ledger.drain_acked;
                bb.spilled += ledger.spilled;
                let mut util = 0.0;
                let ssds = b.server.ssds();
                // An array model reports its SSDs as one device (`bb-array`).
                let kind = match b.server.config().ssd_model {
                    bbsim_storage::SsdModel::PerSsd => "bb-server",
                    bbsim_storage::SsdModel::Array => "bb-array",
                };
                for (d, ssd) in ssds.iter().enumerate() {
                    let row = device_row(kind, bb_index, d as u16, ssd, sim_end);
                    util += row.utilisation;
                    devices.push(row);
                }
                servers.push(ServerRow {
                    server: bb_index,
                    terminal: b.terminal,
                    received: ledger.received,
                    in_bb: ledger.in_bb,
                    drained: ledger.drain_acked,
                    spilled: ledger.spilled,
                    occupied: ledger.occupied,
                    utilisation: if ssds.is_empty() {
                        0.0
                    } else {
                        util / ssds.len() as f64
                    },
                    nic_bytes_in: b.nic().stats().received_bytes,
                });
                bb_index += 1;
            }
            SimLp::Io(i) => {
                nics.push(i.nic().stats().clone());
                for (j, c) in i.per_job.iter().enumerate() {
                    if let Some(m) = job_msgs.get_mut(j) {
                        m.0 += c.messages;
                        m.1 += c.nonminimal;
                    }
                }
            }
            SimLp::Pfs(p) => pfs = p.totals(),
            SimLp::Job(c) => {
                job_ends[c.job as usize] = c.end;
                job_starts[c.job as usize] = c.start;
                stage_ins[c.job as usize] = c.stage_in;
                stage_outs[c.job as usize] = c.stage_out;
                barriers[c.job as usize] = c.barriers;
            }
            SimLp::Res(r) => {
                let k = reservations.len();
                let (servers, granted) = placed.reservations.get(k).cloned().unwrap_or_default();
                reservations.push(ReservationRow {
                    name: r.name.clone(),
                    granted_bytes: granted,
                    servers,
                    teardown_s: r.teardown.map(secs_f),
                    staged_out_s: r.staged_out.map(secs_f),
                });
            }
        }
    }
    timeline.sort_by(|a, b| {
        (a.job, a.rank, a.start, a.end, a.offset).cmp(&(b.job, b.rank, b.start, b.end, b.offset))
    });
    ranks.sort_by_key(|r| (r.job, r.rank));

    let sim_end = job_ends
        .iter()
        .flatten()
        .copied()
        .max()
        .unwrap_or(last_event)
        .max(1);
    let net = NetworkStats::collect(topology, routers, nics.iter(), sim_end);
    let links = net
        .classes
        .iter()
        .filter(|c| c.channels > 0)
        .map(|c| LinkRow {
            class: format!("{:?}", c.class).to_lowercase(),
            channels: c.channels,
            bytes: c.bytes,
            utilisation: c.utilisation,
            max_utilisation: c.max_utilisation,
        })
        .collect();

    let mut jobs = Vec::with_capacity(njobs);
    for (j, job) in workload.jobs.iter().enumerate() {
        let rows: Vec<&RankRow> = ranks.iter().filter(|r| r.job == j as u32).collect();
        let mut tio: Vec<Time> = rows.iter().map(|r| r.time_in_io).collect();
        tio.sort_unstable();
        let start = rows.iter().filter_map(|r| r.first_io_start).min();
        let end = rows.iter().filter_map(|r| r.last_io_end).max();
        let phase = match (start, end) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        };
        let written: u64 = rows.iter().map(|r| r.bytes_written).sum();
        let read: u64 = rows.iter().map(|r| r.bytes_read).sum();
        let ops: u64 = rows.iter().map(|r| r.io_ops).sum();
        let (net_count, net_hops) = net_ops[j];
        let avg_hops = if net_count == 0 {
            0.0
        } else {
            net_hops as f64 / net_count as f64
        };
        let mean = if tio.is_empty() {
            0.0
        } else {
            tio.iter().map(|&t| secs_f(t)).sum::<f64>() / tio.len() as f64
        };
        let (m, nm) = job_msgs[j];
        jobs.push(JobSummary {
            name: job.name.clone(),
            ranks: job.ranks(),
            nodes: placed.nodes[j].len() as u32,
            bytes_written: written,
            bytes_read: read,
            io_ops: ops,
            io_start_s: start.map_or(0.0, secs_f),
            io_end_s: end.map_or(0.0, secs_f),
            io_phase_s: secs_f(phase),
            io_phases: io_phases(&busy[j], phase_gap)
                .into_iter()
                .map(PhaseSpan::to_io_phase)
                .collect(),
            time_in_io_mean_s: mean,
            time_in_io_median_s: secs_f(percentile(&tio, 0.5)),
            time_in_io_p99_s: secs_f(percentile(&tio, 0.99)),
            time_in_io_max_s: secs_f(tio.last().copied().unwrap_or(0)),
            effective_bandwidth: if phase > 0 {
                (written + read) as f64 / secs_f(phase)
            } else {
                0.0
            },
            avg_hops,
            nonminimal_fraction: if m > 0 { nm as f64 / m as f64 } else { 0.0 },
            start_s: job_starts[j].map(secs_f),
            end_s: job_ends[j].map(secs_f),
            run_time_s: match (job_starts[j], job_ends[j]) {
                (Some(a), Some(b)) => Some(secs_f(b.saturating_sub(a))),
                _ => None,
            },
            queue_wait_s: job_starts[j].map(|s| secs_f(s.saturating_sub(job.start_ps))),
            stage_in_s: stage_ins[j].map(|(a, b)| secs_f(b.saturating_sub(a))),
            stage_out_s: stage_outs[j].map(|(a, b)| secs_f(b.saturating_sub(a))),
            stage_out_end_s: stage_outs[j].map(|(_, b)| secs_f(b)),
            read_cache_hits: cache[j].0,
            read_cache_misses: cache[j].1,
            read_cache_fetched: cache[j].2,
            barriers: barriers[j],
            trains: trains[j].0,
            train_ops: trains[j].1,
        });
    }
    let written: u64 = ranks.iter().map(|r| r.bytes_written).sum();
    let node_local = written_to.local;
    let to_bb = written_to.bb;
    let to_pfs = written_to.pfs;
    let in_flight = bb.drain_handed.saturating_sub(bb.drain_acked);
    let pfs_direct = pfs.stored - pfs.stored_drain - pfs.stored_spill - pfs.stored_local_drain;
    let holds = written == node_local + to_bb + to_pfs
        && to_bb == bb.received
        && bb.received
            == bb.in_bb
                + bb.superseded
                + bb.deleted
                + bb.stalled
                + in_flight
                + pfs.stored_drain
                + pfs.stored_spill
        && to_pfs == pfs_direct
        && (!local_drain.2 || local_drain.0 + local_drain.1 == node_local)
        && pfs.stored_local_drain >= local_drain.0;
    let conservation = Conservation {
        written,
        node_local,
        to_bb,
        to_pfs,
        bb_received: bb.received,
        bb_held: bb.in_bb + bb.stalled,
        bb_superseded: bb.superseded + bb.deleted,
        in_flight,
        pfs_direct,
        pfs_drained: pfs.stored_drain,
        pfs_spilled: pfs.stored_spill,
        local_drained: local_drain.0,
        pfs_local_drained: pfs.stored_local_drain,
        local_drain_pending: local_drain.1,
        holds,
    };
    let makespan = if job_ends.iter().all(Option::is_some) && job_starts.iter().all(Option::is_some)
    {
        let first = job_starts.iter().flatten().copied().min().unwrap_or(0);
        let last = job_ends.iter().flatten().copied().max().unwrap_or(0);
        Some(last.saturating_sub(first))
    } else {
        None
    };
    Results {
        makespan,
        last_activity: last_event,
        reservations,
        timeline,
        busy,
        ranks,
        jobs,
        devices,
        servers,
        links,
        conservation,
        sim_end,
    }
}

fn device_row(
    kind: &'static str,
    host: u32,
    index: u16,
    ssd: &bbsim_storage::Ssd,
    period: Time,
) -> DeviceRow {
    let st = ssd.stats_at(period);
    let cap = ssd.config().capacity;
    DeviceRow {
        kind,
        host,
        ssd: index,
        host_bytes_written: st.host_bytes_written,
        host_bytes_read: st.host_bytes_read,
        nand_bytes_written: st.nand_bytes_written,
        waf: st.write_amplification(),
        drive_writes_per_day: st.drive_writes_per_day(cap, period),
        utilisation: (st.busy_time as f64 / period as f64).min(1.0),
        max_queue: st.max_queue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_split_only_on_idle_stretches_longer_than_the_gap() {
        // Rank 0: [0,10) [10,20) [50,55); rank 1: [5,30) [60,61); rank 2: [100,100).
        let iv = [
            (0, 0, 10),
            (0, 10, 20),
            (1, 5, 30),
            (0, 50, 55),
            (1, 60, 61),
            (2, 100, 100),
        ];
        let span = |start, end, ranks, max| PhaseSpan {
            start,
            end,
            ranks,
            time_in_io_max: max,
            // With at most 100 ranks the nearest-rank 99th percentile is the maximum.
            time_in_io_p99: max,
        };
        // Idle 30..50 (20 ps) and 61..100 (39 ps).
        assert_eq!(
            io_phases(&iv, 19),
            vec![span(0, 30, 2, 25), span(50, 61, 2, 5), span(100, 100, 1, 0)]
        );
        // An idle stretch of exactly the gap does not split.
        assert_eq!(
            io_phases(&iv, 20),
            vec![span(0, 61, 2, 26), span(100, 100, 1, 0)]
        );
        assert_eq!(io_phases(&iv, 39), vec![span(0, 100, 3, 26)]);
        // The input order does not matter.
        let mut rev = iv.to_vec();
        rev.reverse();
        assert_eq!(io_phases(&rev, 19), io_phases(&iv, 19));
        assert!(io_phases(&[], 1).is_empty());
        let p = span(2_000_000_000_000, 3_500_000_000_000, 4, 1_000_000_000_000).to_io_phase();
        assert_eq!(
            (p.start_s, p.end_s, p.length_s, p.ranks, p.time_in_io_max_s),
            (2.0, 3.5, 1.5, 4, 1.0)
        );
        assert_eq!(p.time_in_io_p99_s, 1.0);
    }

    #[test]
    fn a_phase_p99_leaves_out_the_slowest_hundredth_of_its_ranks() {
        // 1,000 ranks in one phase; rank r spends r + 1 ps in I/O, in two operations for the
        // even ranks. Nearest rank: the 990th smallest sum, 990 ps; the maximum is 1,000.
        let mut iv = Vec::new();
        for r in 0..1000u32 {
            let d = Time::from(r) + 1;
            if r % 2 == 0 {
                iv.push((r, 0, d / 2));
                iv.push((r, 5, 5 + d - d / 2));
            } else {
                iv.push((r, 0, d));
            }
        }
        let p = io_phases(&iv, 10);
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].ranks, p[0].time_in_io_max, p[0].time_in_io_p99),
            (1000, 1000, 990)
        );
        // A second phase far later with one slow rank among 200: its p99 is the 198th sum.
        let mut later: Vec<(u32, Time, Time)> =
            (0..200u32).map(|r| (r, 1_000_000, 1_000_010)).collect();
        later[7].2 = 1_005_000;
        iv.extend(later);
        let p = io_phases(&iv, 10);
        assert_eq!(p.len(), 2);
        assert_eq!(
            (p[1].ranks, p[1].time_in_io_max, p[1].time_in_io_p99),
            (200, 5_000, 10)
        );
        assert_eq!(p[0].time_in_io_p99, 990);
    }
}
