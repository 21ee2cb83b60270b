//! Reduction of the final LP states into results: the per-operation timeline, per-rank and
//! per-job summaries, device, server and link statistics, and byte conservation. Everything
//! is reduced in LP order, so results are identical for any thread count.
//!
//! [`reduce`] takes the compute nodes' operation logs out as the timeline
//! ([`super::timeline`]), visits the LPs once, each kind with its own collector (compute
//! nodes, BB servers, I/O nodes, job and reservation controllers, routers), then derives the
//! per-job summaries, the link rows and the conservation check from what was gathered. Times are
//! picoseconds in the rows and seconds (`_s`) in the `summary.json` types.

use super::capacity::{CapacityRow, CapacityTally, JobSizing};
use super::phases::{io_phases, percentile, BusyInterval, IoPhase, PhaseSpan, PhaseSplit};
use super::timeline::Timeline;
use crate::assemble::Placed;
use crate::model::hosts::RouteCount;
use crate::model::rank_io::WrittenTo;
use crate::model::{BbHost, JobCtl, NodeLp, ResCtl, SimLp};
use bbsim_engine::{Simulation, Time};
use bbsim_storage::pfs::PfsTotals;
use bbsim_storage::{BbLedger, Ssd, SsdModel};
use bbsim_topology::stats::NetworkStats;
use bbsim_topology::topology::Topology;
use bbsim_topology::{NicStats, RouterStats};
use bbsim_workload::{JobSpec, Workload};
use serde::Serialize;

/// Picoseconds as exact decimal seconds ("1.500000000000").
pub fn secs(ps: Time) -> String {
    format!("{}.{:012}", ps / 1_000_000_000_000, ps % 1_000_000_000_000)
}

/// Picoseconds as seconds (float, for JSON and tables).
pub fn secs_f(ps: Time) -> f64 {
    ps as f64 / 1e12
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
    /// Time its writes waited for space on a full device (ps; part of `time_in_io`).
    pub time_stalled: Time,
}

/// Per-job results in `summary.json`.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
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
    /// I/O span: first start to last end (s), computation between phases included.
    pub io_phase_s: f64,
    /// The job's I/O phases: the union of its ranks' I/O busy intervals, split wherever no
    /// rank of the job had I/O in progress for longer than `io_phase_gap_s`. In time order;
    /// the first starts at `io_start_s` and the last ends at `io_end_s`.
    pub io_phases: Vec<IoPhase>,
    /// The idle time that split the phases (s): `outputs.phase_gap`, or found from the
    /// job's bursts when it is left out (see [`super::phases`]).
    pub io_phase_gap_s: f64,
    /// Time in I/O phases: the sum of the phases' lengths (s), computation between them
    /// left out.
    pub io_time_s: f64,
    /// Mean time in I/O per rank (s).
    pub time_in_io_mean_s: f64,
    /// Median time in I/O per rank (s).
    pub time_in_io_median_s: f64,
    /// 99th percentile time in I/O per rank (s).
    pub time_in_io_p99_s: f64,
    /// Largest time in I/O of any rank (s).
    pub time_in_io_max_s: f64,
    /// Bytes moved (written and read) over the time in I/O phases, `io_time_s` (bytes per
    /// second; 0 without I/O).
    pub effective_bandwidth: f64,
    /// Mean request-path router hops per I/O operation that crossed the network.
    pub avg_hops: f64,
    /// Fraction of the job's storage messages (requests and replies) routed non-minimally
    /// (a message counts once any of its packets does).
    pub nonminimal_fraction: f64,
    /// Mean routers traversed per packet of the job's storage messages (requests and replies,
    /// its drains' included; a unit counts as the packets it carries): the per-packet counterpart of `avg_hops`,
    /// counting both directions.
    pub packet_hops: f64,
    /// Share of the packets of the job's storage messages routed non-minimally (0 to 1).
    pub packet_nonminimal_share: f64,
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
    /// Most bytes held at once (whole allocation units on a BB server's SSD).
    pub peak_bytes: u64,
    /// The peak as a percentage of the device's capacity.
    pub peak_pct: f64,
    /// When the peak was first reached (s).
    pub peak_at_s: f64,
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
    /// Input-buffer heads that waited for an output port of the class while it was busy
    /// (serialising, or granted to another input first) and the downstream buffer had room.
    pub heads_behind_busy_port: u64,
    /// Their waits, summed (s).
    pub head_wait_busy_port_s: f64,
    /// Heads that waited for the downstream buffer's credit.
    pub heads_behind_credit: u64,
    /// Their waits, summed (s).
    pub head_wait_credit_s: f64,
}

/// What the network's delivered packets did, over all traffic (writes, reads, replies,
/// drains): the packet-weighted counterparts of a job's message-level `avg_hops` and
/// `nonminimal_fraction`. A unit counts as the packets it carries, each with the unit's route.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Routes {
    /// Packets delivered to terminals.
    pub packets: u64,
    /// Routers traversed per delivered packet (0 without packets).
    pub mean_hops: f64,
    /// Share of the delivered packets routed non-minimally, 0 to 1.
    pub nonminimal_share: f64,
}

impl Routes {
    fn of(net: &NetworkStats) -> Self {
        Routes {
            packets: net.packets_delivered,
            mean_hops: ratio(net.packet_hops, net.packets_delivered),
            nonminimal_share: ratio(net.nonminimal_packets, net.packets_delivered),
        }
    }
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
    /// Every I/O operation, sorted by job, rank, start (empty unless `outputs.timeline`).
    pub timeline: Timeline,
    /// Per job: (rank, start ps, end ps, bytes) of its ranks' I/O busy intervals, operations
    /// that follow each other without a gap merged (for the phases and the timeline plot).
    pub busy: Vec<Vec<BusyInterval>>,
    /// Per job: (rank, start ps, end ps) of each time one of its ranks' writes waited for
    /// room on a full burst-buffer device (for the timeline plot).
    pub stalls: Vec<Vec<(u32, Time, Time)>>,
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
    /// Routers traversed and non-minimal share per delivered packet.
    pub routes: Routes,
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
    /// Per burst-buffer device (BB server or node-local SSD): occupancy, waits, spills and
    /// drains.
    pub capacity: Vec<CapacityRow>,
    /// Per job: the same figures over its devices and ranks.
    pub sizing: Vec<JobSizing>,
}

/// Reduces a finished simulation. `split` is how a job's I/O splits into phases
/// (`outputs.phase_gap`, or automatic).
pub fn reduce(
    sim: &mut Simulation<SimLp>,
    placed: &Placed,
    workload: &Workload,
    topology: &Topology,
    last_event: Time,
    split: PhaseSplit,
) -> Results {
    let timeline = Timeline::take(sim);
    let mut c = Collector::new(workload.jobs.len(), last_event);
    for lp in sim.lps() {
        c.lp(lp, placed);
    }
    c.finish(timeline, placed, workload, topology, last_event, split)
}

/// One job's figures gathered from the LPs (its nodes, the BB servers and I/O nodes that
/// served it, and its controller).
#[derive(Clone, Debug, Default)]
struct JobTally {
    /// I/O operations that crossed the network.
    net_ops: u64,
    /// Their request-path router hops, summed.
    net_hops: u64,
    /// The job's storage messages (requests and replies) and how they were routed.
    routes: RouteCount,
    /// When the job's ranks started (ps).
    start: Option<Time>,
    /// When the job finished (ps).
    end: Option<Time>,
    /// Stage-in (start, end) in ps.
    stage_in: Option<(Time, Time)>,
    /// Stage-out (start, end) in ps.
    stage_out: Option<(Time, Time)>,
    /// Read-cache hits, misses and bytes fetched.
    cache: (u64, u64, u64),
    /// Transfer trains of two operations or more, and the operations they carried.
    trains: (u64, u64),
    /// Barriers completed.
    barriers: u64,
}

/// Node-local drains over all compute nodes (bytes).
#[derive(Clone, Copy, Debug, Default)]
struct LocalDrainTally {
    /// Acknowledged by the PFS.
    acked: u64,
    /// Not yet acknowledged when the run ended.
    pending: u64,
    /// Whether any node drained anything.
    any: bool,
}

/// Everything gathered from the LPs, visited in LP order.
struct Collector<'a> {
    /// The period devices are measured over (ps): the last event, at least 1.
    period: Time,
    busy: Vec<Vec<BusyInterval>>,
    stalls: Vec<Vec<(u32, Time, Time)>>,
    ranks: Vec<RankRow>,
    jobs: Vec<JobTally>,
    written_to: WrittenTo,
    local_drain: LocalDrainTally,
    reservations: Vec<ReservationRow>,
    devices: Vec<DeviceRow>,
    servers: Vec<ServerRow>,
    pfs: PfsTotals,
    bb: BbLedger,
    routers: Vec<(u32, &'a RouterStats)>,
    nics: Vec<NicStats>,
    capacity: CapacityTally,
}

impl<'a> Collector<'a> {
    fn new(njobs: usize, last_event: Time) -> Self {
        Collector {
            period: last_event.max(1),
            busy: vec![Vec::new(); njobs],
            stalls: vec![Vec::new(); njobs],
            ranks: Vec::new(),
            jobs: vec![JobTally::default(); njobs],
            written_to: WrittenTo::default(),
            local_drain: LocalDrainTally::default(),
            reservations: Vec::new(),
            devices: Vec::new(),
            servers: Vec::new(),
            pfs: PfsTotals::default(),
            bb: BbLedger::default(),
            routers: Vec::new(),
            nics: Vec::new(),
            capacity: CapacityTally::new(njobs),
        }
    }

    /// Gathers one LP's figures.
    fn lp(&mut self, lp: &'a SimLp, placed: &Placed) {
        match lp {
            SimLp::Router(r) => self.routers.push((r.id(), r.stats())),
            SimLp::Fabric(f) => self.routers.extend(f.router_stats()),
            SimLp::Flows(f) => self.routers.extend(f.router_stats()),
            SimLp::Node(n) => self.node(n),
            SimLp::Bb(b) => self.bb_server(b),
            SimLp::Io(i) => {
                self.nics.push(i.nic().stats().clone());
                self.count_messages(&i.per_job);
            }
            SimLp::Pfs(p) => self.pfs = p.totals(),
            SimLp::Job(c) => self.job_ctl(c),
            SimLp::Res(r) => self.reservation(r, placed),
        }
    }

    /// A compute node: its NIC, and if it ran a job, its ranks, operations, caches, trains,
    /// drains and node-local SSD.
    fn node(&mut self, n: &NodeLp) {
        self.nics.push(n.nic().stats().clone());
        self.capacity.node(n);
        let Some(j) = n.job else { return };
        let (handed, acked, pending) = n.drain_totals();
        self.local_drain.acked += acked;
        self.local_drain.pending += pending;
        self.local_drain.any |= handed + pending > 0;
        let (hits, misses, fetched) = n.cache_totals();
        let t = &mut self.jobs[j as usize];
        t.cache = (t.cache.0 + hits, t.cache.1 + misses, t.cache.2 + fetched);
        t.trains = (t.trains.0 + n.trains.0, t.trains.1 + n.trains.1);
        t.routes.merge(&n.replies);
        self.written_to.local += n.written_to.local;
        self.written_to.bb += n.written_to.bb;
        self.written_to.pfs += n.written_to.pfs;
        self.rank_rows(j, n);
        if let Some(ssd) = n.local_ssd() {
            let row = device_row("node-local", n.terminal, 0, ssd, self.period);
            let row = match n.local_store() {
                Some(st) => {
                    let occ = st.ledger().occupancy();
                    with_peak(row, occ.peak(), occ.peak_at(), st.ledger().total())
                }
                None => row,
            };
            self.devices.push(row);
        }
    }

    /// The per-rank rows and I/O busy intervals of job `j`'s ranks on node `n`.
    fn rank_rows(&mut self, j: u32, n: &NodeLp) {
        for ((rank, fin), io) in n.ranks().zip(&n.finished).zip(&n.rank_io) {
            let t = &mut self.jobs[j as usize];
            t.net_ops += io.net_ops;
            t.net_hops += io.net_hops;
            self.busy[j as usize].extend(io.busy_bytes().map(|(a, b, n)| (rank, a, b, n)));
            self.stalls[j as usize].extend(io.stalls.iter().map(|&(a, b)| (rank, a, b)));
            self.ranks.push(RankRow {
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
                time_stalled: io.time_stalled,
            });
        }
    }

    /// A burst-buffer server: its NIC, messages, ledger, SSDs and server row.
    fn bb_server(&mut self, b: &BbHost) {
        self.nics.push(b.nic().stats().clone());
        self.count_messages(&b.per_job);
        let ledger = b.server.ledger();
        add_ledger(&mut self.bb, &ledger);
        let server = self.servers.len() as u32;
        self.capacity.bb_server(server, b);
        // An array model reports its SSDs as one device (`bb-array`).
        let kind = match b.server.config().ssd_model {
            SsdModel::PerSsd => "bb-server",
            SsdModel::Array => "bb-array",
        };
        let ssds = b.server.ssds();
        let peaks = b.server.device_peaks();
        let mut util = 0.0;
        for (d, ssd) in ssds.iter().enumerate() {
            let row = device_row(kind, server, d as u16, ssd, self.period);
            let (peak, at) = peaks.get(d).copied().unwrap_or_default();
            let row = with_peak(row, peak, at, ssd.config().capacity);
            util += row.utilisation;
            self.devices.push(row);
        }
        self.servers.push(ServerRow {
            server,
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
    }

    /// Adds a storage host's per-job message and packet counts.
    fn count_messages(&mut self, per_job: &[RouteCount]) {
        for (t, c) in self.jobs.iter_mut().zip(per_job) {
            t.routes.merge(c);
        }
    }

    /// A job controller: start, end, stage-in, stage-out and barriers.
    fn job_ctl(&mut self, c: &JobCtl) {
        let t = &mut self.jobs[c.job as usize];
        t.end = c.end;
        t.start = c.start;
        t.stage_in = c.stage_in;
        t.stage_out = c.stage_out;
        t.barriers = c.barriers;
    }

    /// A persistent reservation's controller (reservations come in scenario order).
    fn reservation(&mut self, r: &ResCtl, placed: &Placed) {
        let k = self.reservations.len();
        let (servers, granted) = placed.reservations.get(k).cloned().unwrap_or_default();
        self.reservations.push(ReservationRow {
            name: r.name.clone(),
            granted_bytes: granted,
            servers,
            teardown_s: r.teardown.map(secs_f),
            staged_out_s: r.staged_out.map(secs_f),
        });
    }

    /// Sorts the rows and derives the per-job, link and conservation results.
    fn finish(
        mut self,
        timeline: Timeline,
        placed: &Placed,
        workload: &Workload,
        topology: &Topology,
        last_event: Time,
        split: PhaseSplit,
    ) -> Results {
        self.ranks.sort_by_key(|r| (r.job, r.rank));
        let sim_end = simulated_end(&self.jobs, last_event);
        let net = NetworkStats::collect(topology, self.routers, self.nics.iter(), sim_end);
        let jobs = workload
            .jobs
            .iter()
            .enumerate()
            .map(|(j, job)| {
                let io = RankIo::of_job(&self.ranks, j as u32);
                let nodes = placed.nodes[j].len() as u32;
                job_summary(job, nodes, &io, &self.jobs[j], &self.busy[j], split)
            })
            .collect();
        let conservation = conservation(
            &self.ranks,
            &self.written_to,
            &self.bb,
            &self.pfs,
            self.local_drain,
        );
        let (capacity, sizing) = self.capacity.finish();
        Results {
            capacity,
            sizing,
            makespan: makespan(&self.jobs),
            last_activity: last_event,
            reservations: self.reservations,
            timeline,
            busy: self.busy,
            stalls: self.stalls,
            ranks: self.ranks,
            jobs,
            devices: self.devices,
            servers: self.servers,
            links: link_rows(&net),
            routes: Routes::of(&net),
            conservation,
            sim_end,
        }
    }
}

/// Adds one BB server's byte ledger to the machine's.
fn add_ledger(total: &mut BbLedger, l: &BbLedger) {
    total.received += l.received;
    total.in_bb += l.in_bb;
    total.superseded += l.superseded;
    total.deleted += l.deleted;
    total.stalled += l.stalled;
    total.drain_handed += l.drain_handed;
    total.drain_acked += l.drain_acked;
    total.spilled += l.spilled;
}

/// The simulated end (ps): the last job end, or the last event if no job finished; at
/// least 1.
fn simulated_end(jobs: &[JobTally], last_event: Time) -> Time {
    jobs.iter()
        .filter_map(|t| t.end)
        .max()
        .unwrap_or(last_event)
        .max(1)
}

/// The workflow makespan (ps): first job start to last job end, if every job started and
/// finished.
fn makespan(jobs: &[JobTally]) -> Option<Time> {
    if !jobs.iter().all(|t| t.end.is_some() && t.start.is_some()) {
        return None;
    }
    let first = jobs.iter().filter_map(|t| t.start).min().unwrap_or(0);
    let last = jobs.iter().filter_map(|t| t.end).max().unwrap_or(0);
    Some(last.saturating_sub(first))
}

/// One row per link class that has channels.
fn link_rows(net: &NetworkStats) -> Vec<LinkRow> {
    net.classes
        .iter()
        .filter(|c| c.channels > 0)
        .map(|c| LinkRow {
            class: c.class.name().to_string(),
            channels: c.channels,
            bytes: c.bytes,
            utilisation: c.utilisation,
            max_utilisation: c.max_utilisation,
            heads_behind_busy_port: c.head_waits.busy,
            head_wait_busy_port_s: secs_f(c.head_waits.busy_ps),
            heads_behind_credit: c.head_waits.no_credit,
            head_wait_credit_s: secs_f(c.head_waits.no_credit_ps),
        })
        .collect()
}

/// A job's I/O over its ranks' rows.
struct RankIo {
    /// Per-rank time in I/O (ps), ascending.
    time_in_io: Vec<Time>,
    /// First I/O start of any rank (ps).
    start: Option<Time>,
    /// Last I/O end of any rank (ps).
    end: Option<Time>,
    /// Bytes written.
    written: u64,
    /// Bytes read.
    read: u64,
    /// I/O operations.
    ops: u64,
}

impl RankIo {
    /// Job `job`'s figures from the per-rank rows.
    fn of_job(ranks: &[RankRow], job: u32) -> Self {
        let rows: Vec<&RankRow> = ranks.iter().filter(|r| r.job == job).collect();
        let mut time_in_io: Vec<Time> = rows.iter().map(|r| r.time_in_io).collect();
        time_in_io.sort_unstable();
        RankIo {
            time_in_io,
            start: rows.iter().filter_map(|r| r.first_io_start).min(),
            end: rows.iter().filter_map(|r| r.last_io_end).max(),
            written: rows.iter().map(|r| r.bytes_written).sum(),
            read: rows.iter().map(|r| r.bytes_read).sum(),
            ops: rows.iter().map(|r| r.io_ops).sum(),
        }
    }

    /// First I/O start to last I/O end (ps); 0 without I/O.
    fn phase(&self) -> Time {
        match (self.start, self.end) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        }
    }

    /// Mean time in I/O per rank (s).
    fn mean_s(&self) -> f64 {
        let tio = &self.time_in_io;
        if tio.is_empty() {
            0.0
        } else {
            tio.iter().map(|&t| secs_f(t)).sum::<f64>() / tio.len() as f64
        }
    }
}

/// A job's `summary.json` entry. `nodes` is how many compute nodes it was placed on.
fn job_summary(
    job: &JobSpec,
    nodes: u32,
    io: &RankIo,
    t: &JobTally,
    busy: &[BusyInterval],
    split: PhaseSplit,
) -> JobSummary {
    let phase = io.phase();
    let tio = &io.time_in_io;
    let (spans, gap) = io_phases(busy, split);
    let in_phases: Time = spans.iter().map(|p| p.end - p.start).sum();
    JobSummary {
        name: job.name.clone(),
        ranks: job.ranks(),
        nodes,
        bytes_written: io.written,
        bytes_read: io.read,
        io_ops: io.ops,
        io_start_s: io.start.map_or(0.0, secs_f),
        io_end_s: io.end.map_or(0.0, secs_f),
        io_phase_s: secs_f(phase),
        io_phases: spans.into_iter().map(PhaseSpan::to_io_phase).collect(),
        io_phase_gap_s: secs_f(gap),
        io_time_s: secs_f(in_phases),
        time_in_io_mean_s: io.mean_s(),
        time_in_io_median_s: secs_f(percentile(tio, 0.5)),
        time_in_io_p99_s: secs_f(percentile(tio, 0.99)),
        time_in_io_max_s: secs_f(tio.last().copied().unwrap_or(0)),
        effective_bandwidth: if in_phases > 0 {
            (io.written + io.read) as f64 / secs_f(in_phases)
        } else {
            0.0
        },
        avg_hops: ratio(t.net_hops, t.net_ops),
        nonminimal_fraction: ratio(t.routes.nonminimal, t.routes.messages),
        packet_hops: ratio(t.routes.packet_hops, t.routes.packets),
        packet_nonminimal_share: ratio(t.routes.nonminimal_packets, t.routes.packets),
        start_s: t.start.map(secs_f),
        end_s: t.end.map(secs_f),
        run_time_s: match (t.start, t.end) {
            (Some(a), Some(b)) => Some(secs_f(b.saturating_sub(a))),
            _ => None,
        },
        queue_wait_s: t.start.map(|s| secs_f(s.saturating_sub(job.start_ps))),
        stage_in_s: t.stage_in.map(|(a, b)| secs_f(b.saturating_sub(a))),
        stage_out_s: t.stage_out.map(|(a, b)| secs_f(b.saturating_sub(a))),
        stage_out_end_s: t.stage_out.map(|(_, b)| secs_f(b)),
        read_cache_hits: t.cache.0,
        read_cache_misses: t.cache.1,
        read_cache_fetched: t.cache.2,
        barriers: t.barriers,
        trains: t.trains.0,
        train_ops: t.trains.1,
    }
}

/// `part / whole`, 0 when `whole` is 0.
fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// Cross-checks the written bytes between the ranks' records, the BB servers' ledgers and
/// the PFS totals (see [`Conservation::holds`]).
fn conservation(
    ranks: &[RankRow],
    to: &WrittenTo,
    bb: &BbLedger,
    pfs: &PfsTotals,
    local: LocalDrainTally,
) -> Conservation {
    let written: u64 = ranks.iter().map(|r| r.bytes_written).sum();
    let in_flight = bb.drain_handed.saturating_sub(bb.drain_acked);
    let pfs_direct = pfs.stored - pfs.stored_drain - pfs.stored_spill - pfs.stored_local_drain;
    let holds = written == to.local + to.bb + to.pfs
        && to.bb == bb.received
        && bb.received
            == bb.in_bb
                + bb.superseded
                + bb.deleted
                + bb.stalled
                + in_flight
                + pfs.stored_drain
                + pfs.stored_spill
        && to.pfs == pfs_direct
        && (!local.any || local.acked + local.pending == to.local)
        && pfs.stored_local_drain >= local.acked;
    Conservation {
        written,
        node_local: to.local,
        to_bb: to.bb,
        to_pfs: to.pfs,
        bb_received: bb.received,
        bb_held: bb.in_bb + bb.stalled,
        bb_superseded: bb.superseded + bb.deleted,
        in_flight,
        pfs_direct,
        pfs_drained: pfs.stored_drain,
        pfs_spilled: pfs.stored_spill,
        local_drained: local.acked,
        pfs_local_drained: pfs.stored_local_drain,
        local_drain_pending: local.pending,
        holds,
    }
}

/// One SSD's row, measured over `period` ps.
fn device_row(kind: &'static str, host: u32, index: u16, ssd: &Ssd, period: Time) -> DeviceRow {
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
        peak_bytes: 0,
        peak_pct: 0.0,
        peak_at_s: 0.0,
    }
}

/// Sets a device row's peak occupancy: `peak` bytes first reached at `at` ps, of `capacity`.
fn with_peak(mut row: DeviceRow, peak: u64, at: Time, capacity: u64) -> DeviceRow {
    row.peak_bytes = peak;
    row.peak_pct = super::capacity::pct(peak, capacity);
    row.peak_at_s = secs_f(at);
    row
}
