//! A compute node: its NIC, the ranks placed on it, and its node-local SSD if the placement has
//! one. Ranks run their operation streams: compute phases are timers, barriers go through the
//! job controller, and reads and writes go to the local SSD, the BB servers or the PFS.

use super::cache::{Lookup, ReadCache, HIT_BANDWIDTH};
use super::files::JobFiles;
use super::hosts::RouteCount;
use super::local_drain::{Extent, LocalDrain, LocalDrainConfig};
use super::local_store::{Admission, LocalStore};
use super::op_log::{OpLog, OpRecord};
use super::rank_io::{RankIo, WrittenTo};
use super::{CtlEvent, Payload, SimEvent, CTL_LATENCY};
use bbsim_engine::{Ctx, LpId, Time};
use bbsim_storage::client::{AppRequest, IoTracker, MAX_PARTS};
use bbsim_storage::client_gate::{ClientGate, FsClients};
use bbsim_storage::placement::Layout;
use bbsim_storage::placement::Placement;
use bbsim_storage::{
    Endpoint, FullPolicy, IoOp, IoReply, IoRequest, ReplyStatus, RequestKind, Ssd, SsdBatch,
    SsdCompletion, SsdPiece, SsdRequest, StorageEvent, StorageMsg,
};
use bbsim_topology::nic::Nic;
use bbsim_workload::{Op, OpCursor, OpRun, Workload};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Where an I/O operation was served.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The node-local SSD.
    Local,
    /// BB servers.
    Bb {
        /// The BB servers (indices in the machine's server list) that served a part, in the
        /// layout's stripe order.
        servers: Vec<u32>,
        /// Whether part of it was spilled to the PFS.
        spilled: bool,
    },
    /// The PFS through I/O nodes.
    Pfs,
    /// The rank's client-side read cache (every block was cached).
    Cache,
    /// Nothing to transfer (a zero-byte operation).
    None,
}

/// What a rank is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    /// Not started (waiting for the job start) or computing.
    Timer,
    /// Waiting for an I/O operation.
    Io,
    /// Waiting for a barrier to complete.
    Barrier { comm: u32, seq: u32 },
    /// Waiting for the producer of an input file to close it.
    File,
    /// Waiting for `bytes` bytes from rank `from` ([`Op::Recv`]).
    Recv { from: u32, bytes: u64 },
    /// All operations done.
    Done,
}

#[derive(Clone, Debug)]
struct RankState {
    rank: u32,
    /// The next operation in the rank's stream (`None`: not started).
    cursor: Option<OpCursor>,
    wait: Wait,
    /// Barriers passed per communicator.
    barriers: BTreeMap<u32, u32>,
    /// The metadata server has answered for the open, close or delete at the cursor.
    metadata_done: bool,
}

#[derive(Clone, Debug)]
struct Inflight {
    local: u32,
    op: Op,
    start: Time,
    target: Target,
    hops: u16,
    /// The layout the parts went to (for the `servers` of [`Target::Bb`]).
    layout: Option<Arc<Layout>>,
    /// A read-cache fetch to record on completion: (global file, offset, bytes).
    fill: Option<(u64, u64, u64)>,
    /// Operations in flight as one transfer train (1: `op` alone; `k`: `op` and the `k - 1`
    /// that follow it at consecutive offsets).
    ops: u32,
    /// Time it waited for room on a full device (ps).
    stalled: Time,
    /// When it waited for room, `[start, end)` in ps (the longest-waiting part's wait for an
    /// operation striped over several servers).
    stall: Option<(Time, Time)>,
}

/// Where one file's data lives, as seen from one compute node.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Home {
    /// The node-local SSD.
    Local,
    /// BB servers: capacity account and layout.
    Bb { alloc: u32, layout: Arc<Layout> },
    /// The PFS.
    Pfs,
}

/// Read-only context shared by every compute node.
#[derive(Debug)]
pub struct NodeShared {
    /// The workload.
    pub workload: Arc<Workload>,
    /// Burst-buffer placement.
    pub placement: Placement,
    /// Storage endpoints (terminal ids) of the BB servers.
    pub bb_endpoints: Vec<Endpoint>,
    /// Storage endpoints (terminal ids) of the PFS I/O nodes.
    pub io_endpoints: Vec<Endpoint>,
    /// Job controller LP of each job.
    pub jobctl: Vec<LpId>,
    /// First global file id of each job.
    pub file_base: Vec<u64>,
    /// Largest byte extent (offset + size) of each global file.
    pub file_extent: Vec<u64>,
    /// Node-local SSD capacity (bytes) for address allocation.
    pub local_capacity: u64,
    /// BB-server LPs (for file deletions).
    pub bb_lps: Vec<LpId>,
    /// Whether each job waits for parent jobs (its controller starts it).
    pub has_parents: Vec<bool>,
    /// Where each job's files live.
    pub files: Vec<JobFiles>,
    /// The node-local SSDs' background drain to the PFS, if configured.
    pub local_drain: Option<LocalDrainConfig>,
    /// What a write that does not fit on a node-local SSD does (`burst_buffer.full_policy`).
    pub local_full_policy: FullPolicy,
    /// Keep an [`OpRecord`] per operation (for `timeline.csv`).
    pub keep_records: bool,
    /// Most operations per transfer train (`simulation.train_ops`; 1: no trains).
    pub train_ops: u32,
    /// The file-system clients' limits: burst buffer (DataWarp/DVS) and PFS (Lustre).
    pub clients: FsClients,
    /// Whether opens, closes and deletes of PFS files wait for the PFS metadata server.
    pub pfs_metadata: bool,
    /// Compute nodes (terminal ids) of each job in the job's node order: rank `r` of job `j`
    /// runs on `job_nodes[j][r / ranks_per_node]` (where [`Op::Send`] messages go).
    pub job_nodes: Vec<Vec<u32>>,
}

/// Which file-system client of a node sends a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Client {
    /// The burst-buffer client (requests to BB servers).
    Bb = 0,
    /// The PFS client (requests to PFS I/O nodes).
    Pfs = 1,
}

/// `Wake` target that means "a client gate has a request due to leave".
const CLIENT_TICK: u32 = u32::MAX - 1;

/// `Wake` target that means "the node-local drain's pacing delay is over".
const DRAIN_TICK: u32 = u32::MAX;
/// SSD tags of drain read-backs (application ids stay below).
const DRAIN_TAG: u64 = 1 << 62;

/// A compute-node LP.
#[derive(Debug)]
pub struct NodeLp {
    /// Terminal id (= compute node id).
    pub terminal: u32,
    /// Its router's pod or group and the router (its cluster and split hints).
    pub place: super::HostPlace,
    nic: Nic<Payload>,
    shared: Arc<NodeShared>,
    /// Job running on this node.
    pub job: Option<u32>,
    ranks: Vec<RankState>,
    bb_layout: Option<Arc<Layout>>,
    pfs_layout: Layout,
    local: Option<Ssd>,
    regions: BTreeMap<u64, u64>,
    next_region: u64,
    tracker: IoTracker,
    inflight: BTreeMap<u64, Inflight>,
    next_app: u64,
    done_buf: Vec<SsdCompletion>,
    /// Finished I/O operations (only with `NodeShared::keep_records`).
    pub ops: OpLog,
    /// Each local rank's I/O totals, indexed like `ranks()`.
    pub rank_io: Vec<RankIo>,
    /// Bytes this node's ranks wrote, by target.
    pub written_to: WrittenTo,
    /// Completion time of each local rank (ps), indexed like `ranks()`.
    pub finished: Vec<Option<Time>>,
    /// Replies received (reply-path routing) for this node's job.
    pub replies: RouteCount,
    /// Bytes written to the local SSD / BB / PFS, and read.
    pub bytes_issued: [u64; 2],
    /// Transfer trains this node's ranks sent (of two operations or more), and the operations
    /// they carried.
    pub trains: (u64, u64),
    /// Index of this node among its job's nodes.
    job_node: u32,
    /// Each local rank's read cache.
    caches: Vec<Option<ReadCache>>,
    /// Input files known to be complete (in-transit consumers).
    ready: BTreeSet<u64>,
    /// The node-local SSD's background drain.
    drain: Option<LocalDrain>,
    next_drain_tag: u64,
    /// The node-local SSD's capacity state.
    store: Option<LocalStore>,
    /// The file-system clients' gates (BB, PFS), where they limit anything.
    gates: [Option<ClientGate>; 2],
    /// The earliest client-gate wake-up scheduled and not yet handled (ps).
    gate_tick: Option<Time>,
    /// Metadata requests in flight: request id to local rank and issue time (ps).
    metadata: BTreeMap<u64, (u32, Time)>,
    /// Bytes arrived from other ranks and not yet received: (local rank, sending rank) to
    /// bytes.
    inbox: BTreeMap<(u32, u32), u64>,
    /// Point-to-point messages this node's ranks sent over the network, and their bytes
    /// (same-node messages are not counted).
    pub sent: (u64, u64),
}

impl NodeLp {
    /// A node hosting `ranks` of job `job` (or none).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        terminal: u32,
        place: super::HostPlace,
        nic: Nic<Payload>,
        shared: Arc<NodeShared>,
        job: Option<u32>,
        ranks: Vec<u32>,
        bb_layout: Option<Layout>,
        pfs_layout: Layout,
        local: Option<Ssd>,
        job_node: u32,
    ) -> Self {
        let n = ranks.len();
        let cache = job
            .and_then(|j| shared.files.get(j as usize))
            .and_then(|f| f.cache);
        NodeLp {
            terminal,
            place,
            nic,
            job,
            ranks: ranks
                .into_iter()
                .map(|rank| RankState {
                    rank,
                    cursor: None,
                    wait: Wait::Timer,
                    barriers: BTreeMap::new(),
                    metadata_done: false,
                })
                .collect(),
            bb_layout: bb_layout.map(Arc::new),
            pfs_layout,
            local,
            regions: BTreeMap::new(),
            next_region: 0,
            tracker: IoTracker::default(),
            inflight: BTreeMap::new(),
            next_app: 0,
            done_buf: Vec::new(),
            ops: OpLog::default(),
            rank_io: vec![RankIo::default(); n],
            written_to: WrittenTo::default(),
            finished: vec![None; n],
            replies: RouteCount::default(),
            bytes_issued: [0; 2],
            trains: (0, 0),
            job_node,
            caches: (0..n)
                .map(|_| cache.map(|c| ReadCache::new(c.capacity, c.block)))
                .collect(),
            ready: BTreeSet::new(),
            drain: None,
            next_drain_tag: DRAIN_TAG,
            store: None,
            gates: [shared.clients.burst_buffer, shared.clients.pfs]
                .map(|l| l.is_limited().then(|| ClientGate::new(l))),
            gate_tick: None,
            metadata: BTreeMap::new(),
            inbox: BTreeMap::new(),
            sent: (0, 0),
            shared,
        }
        .with_drain()
    }

    fn with_drain(mut self) -> Self {
        if self.local.is_some() {
            self.drain = self.shared.local_drain.map(LocalDrain::new);
            self.store = Some(LocalStore::new(
                self.shared.local_capacity,
                self.shared.local_full_policy,
            ));
        }
        self
    }

    /// When the node-local drain last had the PFS acknowledge bytes (ps), if it drained any.
    pub fn drain_done_at(&self) -> Option<Time> {
        self.drain
            .as_ref()
            .filter(|d| d.acked > 0)
            .map(|d| d.done_at)
    }

    /// The node-local SSD's capacity state, if the node has one.
    pub fn local_store(&self) -> Option<&LocalStore> {
        self.store.as_ref()
    }

    /// Requests in progress or waiting, metadata requests included (none once every rank
    /// has finished).
    pub fn in_flight(&self) -> usize {
        self.inflight.len() + self.metadata.len()
    }

    /// The node-local drain's totals: (bytes handed to the PFS, bytes acknowledged, bytes not
    /// yet acknowledged including queued ones).
    pub fn drain_totals(&self) -> (u64, u64, u64) {
        self.drain
            .as_ref()
            .map_or((0, 0, 0), |d| (d.handed, d.acked, d.pending()))
    }

    /// Starts the drain's next copies (SSD read-backs), or a pacing wake-up.
    fn pump_drain(&mut self, ctx: &mut Ctx<'_, SimEvent>) {
        loop {
            let Some(d) = self.drain.as_mut() else { return };
            match d.next(ctx.now()) {
                Ok(Some(e)) => {
                    let tag = self.next_drain_tag;
                    self.next_drain_tag += 1;
                    d.reads.insert(tag, e);
                    if let Some(ssd) = self.local.as_mut() {
                        ssd.submit(
                            SsdRequest {
                                tag,
                                op: IoOp::Read,
                                offset: e.3,
                                len: e.2,
                                stream: 0,
                            },
                            ctx,
                        );
                    }
                }
                Ok(None) => return,
                Err(wait) => {
                    if !d.tick {
                        d.tick = true;
                        ctx.send_self(wait, SimEvent::Wake { local: DRAIN_TICK });
                    }
                    return;
                }
            }
        }
    }

    /// A drain read-back finished: write the extent to the PFS.
    fn drain_read_done(&mut self, tag: u64, ctx: &mut Ctx<'_, SimEvent>) {
        let Some(e) = self.drain.as_mut().and_then(|d| d.reads.remove(&tag)) else {
            return;
        };
        let (gfile, offset, len, _) = e;
        let id = self.next_app;
        self.next_app += 1;
        let app = AppRequest {
            id,
            op: IoOp::Write,
            alloc: self.job.unwrap_or(0),
            stream: 0,
            file: gfile,
            offset,
            len,
            ops: 1,
        };
        let me = Endpoint(self.terminal);
        let parts = self.tracker.issue(
            app,
            &self.pfs_layout,
            &self.shared.io_endpoints,
            me,
            ctx.now(),
        );
        let parts = parts.into_iter().map(|(to, mut req)| {
            req.kind = RequestKind::LocalDrain;
            (to, req)
        });
        self.send_parts(Client::Pfs, parts, ctx);
        if let Some(d) = self.drain.as_mut() {
            d.handed += len;
            d.writes.insert(id, e);
        }
    }

    /// The PFS acknowledged a drained extent: it may be released, which may admit writes
    /// waiting for room.
    fn local_drain_acked(&mut self, e: Extent, ctx: &mut Ctx<'_, SimEvent>) {
        if let Some(d) = self.drain.as_mut() {
            d.acked += e.2;
            d.done_at = ctx.now();
        }
        if let (Some(store), Some(j)) = (self.store.as_mut(), self.job) {
            store.drained(j, e.0, e.1, e.2);
        }
        self.admit_waiting(ctx);
        self.pump_drain(ctx);
    }

    /// Writes the node-local writes that now fit to the SSD.
    fn admit_waiting(&mut self, ctx: &mut Ctx<'_, SimEvent>) {
        let Some(store) = self.store.as_mut() else {
            return;
        };
        if store.waiting().is_empty() {
            return;
        }
        let (admitted, released) = store.admit_waiting(ctx.now());
        self.trim_released(&released);
        for (w, waited) in admitted {
            let Some(f) = self.inflight.get_mut(&w.id) else {
                continue;
            };
            f.stalled += waited;
            if waited > 0 {
                f.stall = Some((ctx.now() - waited, ctx.now()));
            }
            let ops = f.ops;
            self.submit_local(w.id, IoOp::Write, w.job, w.file, w.offset, w.len, ops, ctx);
        }
    }

    /// TRIMs extents (file, offset, bytes) released from the node-local SSD.
    fn trim_released(&mut self, released: &[(u64, u64, u64)]) {
        for &(file, offset, len) in released {
            let addr = self.local_address(file, offset, len);
            if let Some(ssd) = self.local.as_mut() {
                ssd.trim(addr, len);
            }
        }
    }

    /// Submits `len` bytes at `offset` of global file `gfile` to the node-local SSD as request
    /// `id` (`ops` operations of equal size: a train).
    #[allow(clippy::too_many_arguments)]
    fn submit_local(
        &mut self,
        id: u64,
        io: IoOp,
        j: u32,
        gfile: u64,
        offset: u64,
        len: u64,
        ops: u32,
        ctx: &mut Ctx<'_, SimEvent>,
    ) {
        let addr = self.local_address(gfile, offset, len);
        let Some(ssd) = self.local.as_mut() else {
            return;
        };
        if ops > 1 {
            let each = len / u64::from(ops);
            let pieces: Vec<SsdPiece> = (0..u64::from(ops))
                .map(|i| SsdPiece {
                    offset: addr + i * each,
                    len: each,
                })
                .collect();
            let batch = SsdBatch {
                tag: id,
                op: io,
                stream: j,
                pieces: &pieces,
                serial: true,
            };
            ssd.submit_batch(batch, ctx);
        } else {
            ssd.submit(
                SsdRequest {
                    tag: id,
                    op: io,
                    offset: addr,
                    len,
                    stream: j,
                },
                ctx,
            );
        }
    }

    /// Read-cache totals over the node's ranks: (hits, misses, bytes fetched).
    pub fn cache_totals(&self) -> (u64, u64, u64) {
        self.caches.iter().flatten().fold((0, 0, 0), |a, c| {
            (a.0 + c.hits, a.1 + c.misses, a.2 + c.fetched)
        })
    }

    /// The global id of job-local `file` of job `j` (inputs map to their producer's files),
    /// and where its data lives.
    fn home(&self, j: u32, file: u32) -> (u64, Home) {
        let sh = &self.shared;
        let mine = &sh.files[j as usize];
        let owner = mine.producer_of(file).unwrap_or(j);
        let gfile = sh.file_base[owner as usize] + u64::from(file);
        let of = &sh.files[owner as usize];
        let home = match sh.placement {
            Placement::NodeLocal if owner == j => Home::Local,
            Placement::Grouped | Placement::Global => match (&of.dw, &self.bb_layout) {
                (Some(dw), _) => {
                    let staged_out =
                        owner != j && !of.persistent && !mine.inputs.is_some_and(|i| i.in_transit);
                    if staged_out {
                        Home::Pfs
                    } else {
                        Home::Bb {
                            alloc: of.alloc,
                            layout: dw.shared_layout(self.job_node, gfile),
                        }
                    }
                }
                (None, Some(layout)) if owner == j && of.uses_bb => Home::Bb {
                    alloc: j,
                    layout: Arc::clone(layout),
                },
                _ => Home::Pfs,
            },
            _ => Home::Pfs,
        };
        (gfile, home)
    }

    /// The job ranks hosted here, in local order.
    pub fn ranks(&self) -> impl Iterator<Item = u32> + '_ {
        self.ranks.iter().map(|r| r.rank)
    }

    /// The NIC.
    pub fn nic(&self) -> &Nic<Payload> {
        &self.nic
    }

    /// The node's BB stripe set (indices into the BB server list), if it uses BB servers.
    pub fn bb_layout(&self) -> Option<&Layout> {
        self.bb_layout.as_deref()
    }

    /// The node-local SSD, if any.
    pub fn local_ssd(&self) -> Option<&Ssd> {
        self.local.as_ref()
    }

    /// Schedules every rank's start at the job's start time, unless the job waits for parent
    /// jobs (then its controller sends `Start`).
    pub fn init(&mut self, ctx: &mut Ctx<'_, SimEvent>) {
        let Some(j) = self.job else { return };
        if self
            .shared
            .has_parents
            .get(j as usize)
            .copied()
            .unwrap_or(false)
        {
            return;
        }
        let start = self.shared.workload.jobs[j as usize].start_ps;
        self.start_ranks(start, ctx);
    }

    fn start_ranks(&mut self, delay: Time, ctx: &mut Ctx<'_, SimEvent>) {
        for local in 0..self.ranks.len() as u32 {
            ctx.send_self(delay, SimEvent::Wake { local });
        }
    }

    /// Handles timers, network deliveries, SSD completions and barrier releases.
    pub fn handle(&mut self, ev: SimEvent, ctx: &mut Ctx<'_, SimEvent>) {
        match ev {
            SimEvent::Wake { local: DRAIN_TICK } => {
                if let Some(d) = self.drain.as_mut() {
                    d.tick = false;
                }
                self.pump_drain(ctx);
            }
            SimEvent::Wake { local: CLIENT_TICK } => {
                if self.gate_tick.is_some_and(|t| t <= ctx.now()) {
                    self.gate_tick = None;
                }
                self.pump_gates(ctx);
            }
            SimEvent::Wake { local } => self.advance(local, ctx),
            SimEvent::Net(e) => {
                if let Some(d) = self.nic.handle(e, ctx) {
                    let route = d.route;
                    if let Payload::Rank { from, to, bytes } = d.payload {
                        self.deliver(from, to, bytes, ctx);
                        return;
                    }
                    if let Payload::Storage(msg) = d.payload {
                        if let StorageMsg::Reply(mut r) = *msg {
                            if r.kind == RequestKind::Metadata {
                                self.metadata_reply(&r, ctx);
                                return;
                            }
                            self.client_reply(r.id, ctx);
                            let app = r.id / MAX_PARTS;
                            if let Some(f) = self.inflight.get_mut(&app) {
                                f.hops = f.hops.max(u16::try_from(r.hops).unwrap_or(u16::MAX));
                            }
                            self.replies.add(route);
                            r.hops += u32::from(route.hops);
                            if let Some(rec) = self.tracker.on_reply(&r, ctx.now()) {
                                if let Some(e) =
                                    self.drain.as_mut().and_then(|d| d.writes.remove(&rec.id))
                                {
                                    self.local_drain_acked(e, ctx);
                                    return;
                                }
                                if let Some(f) = self.inflight.get_mut(&rec.id) {
                                    f.stalled += rec.stalled;
                                    if rec.stalled > 0 {
                                        f.stall =
                                            Some((rec.stall_end - rec.stalled, rec.stall_end));
                                    }
                                }
                                if let Some(f) = self
                                    .inflight
                                    .get_mut(&rec.id)
                                    .filter(|_| self.shared.keep_records)
                                {
                                    let servers: Vec<u32> = f
                                        .layout
                                        .iter()
                                        .flat_map(|l| l.servers.iter())
                                        .copied()
                                        .filter(|&i| {
                                            self.shared
                                                .bb_endpoints
                                                .get(i)
                                                .is_some_and(|e| rec.servers.contains(e))
                                        })
                                        .map(|i| i as u32)
                                        .collect();
                                    if let Target::Bb { .. } = f.target {
                                        f.target = Target::Bb {
                                            servers,
                                            spilled: rec.spilled
                                                || r.status == ReplyStatus::Spilled,
                                        };
                                    }
                                }
                                self.complete(rec.id, ctx);
                            }
                        }
                    }
                }
            }
            SimEvent::Storage(StorageEvent::Ssd(se)) => {
                let mut done = std::mem::take(&mut self.done_buf);
                if let Some(ssd) = self.local.as_mut() {
                    ssd.handle(se, ctx, &mut done);
                }
                for c in done.drain(..) {
                    if c.tag >= DRAIN_TAG {
                        self.drain_read_done(c.tag, ctx);
                        self.pump_drain(ctx);
                    } else {
                        self.complete(c.tag, ctx);
                    }
                }
                self.done_buf = done;
            }
            SimEvent::Ctl(CtlEvent::Start) => self.start_ranks(0, ctx),
            SimEvent::Ctl(CtlEvent::FileReady { file, local }) => {
                self.ready.insert(file);
                if self.ranks.get(local as usize).map(|r| r.wait) == Some(Wait::File) {
                    self.advance(local, ctx);
                }
            }
            SimEvent::Ctl(CtlEvent::Release { comm, seq }) => {
                for local in 0..self.ranks.len() {
                    if self.ranks[local].wait == (Wait::Barrier { comm, seq }) {
                        self.advance(local as u32, ctx);
                    }
                }
            }
            SimEvent::Storage(_) | SimEvent::Ctl(_) | SimEvent::LockGranted(_) => {}
        }
    }

    /// Runs local rank `local` until it blocks (compute timer, I/O, barrier) or finishes.
    fn advance(&mut self, local: u32, ctx: &mut Ctx<'_, SimEvent>) {
        let Some(j) = self.job else { return };
        let shared = Arc::clone(&self.shared);
        let job = &shared.workload.jobs[j as usize];
        let li = local as usize;
        loop {
            let rank = self.ranks[li].rank;
            let cursor = self.ranks[li]
                .cursor
                .get_or_insert_with(|| job.ops.cursor(rank));
            let before = *cursor;
            let Some(op) = job.ops.next_op(cursor) else {
                self.ranks[li].wait = Wait::Done;
                self.finished[li] = Some(ctx.now());
                if self.ranks.iter().all(|r| r.wait == Wait::Done) {
                    if let Some(d) = self.drain.as_mut() {
                        d.open = true;
                    }
                    self.pump_drain(ctx);
                }
                ctx.send(
                    shared.jobctl[j as usize],
                    CTL_LATENCY,
                    SimEvent::Ctl(CtlEvent::RankDone),
                );
                return;
            };
            if let Some(gfile) = self.metadata_file(j, op) {
                // Ask the metadata server first; the operation is taken again when it
                // answers.
                if !std::mem::take(&mut self.ranks[li].metadata_done)
                    && self.send_metadata(local, j, gfile, op, ctx)
                {
                    self.ranks[li].cursor = Some(before);
                    self.ranks[li].wait = Wait::Io;
                    return;
                }
            }
            match op {
                Op::Compute { ps } => {
                    if ps > 0 {
                        self.ranks[li].wait = Wait::Timer;
                        ctx.send_self(ps, SimEvent::Wake { local });
                        return;
                    }
                }
                Op::Open { file } => {
                    let files = &shared.files[j as usize];
                    if files.producer_of(file.0).is_some()
                        && files.inputs.is_some_and(|i| i.in_transit)
                    {
                        let (gfile, _) = self.home(j, file.0);
                        if !self.ready.contains(&gfile) {
                            self.ranks[li].wait = Wait::File;
                            ctx.send(
                                shared.jobctl[j as usize],
                                CTL_LATENCY,
                                SimEvent::Ctl(CtlEvent::WaitFile {
                                    file: gfile,
                                    node: ctx.me(),
                                    local,
                                }),
                            );
                            return;
                        }
                    }
                }
                Op::Close { file } => {
                    let files = &shared.files[j as usize];
                    if files.watched && files.producer_of(file.0).is_none() {
                        let (gfile, _) = self.home(j, file.0);
                        ctx.send(
                            shared.jobctl[j as usize],
                            CTL_LATENCY,
                            SimEvent::Ctl(CtlEvent::Closed { file: gfile }),
                        );
                    }
                }
                Op::Delete { file } => self.delete(j, file.0, ctx),
                Op::Write { size, .. } | Op::Read { size, .. } => {
                    self.ranks[li].wait = Wait::Io;
                    if size == 0 {
                        let now = ctx.now();
                        self.push_record(li, op, now, now, &Target::None, 0);
                        self.ranks[li].wait = Wait::Timer;
                        continue;
                    }
                    if let Op::Read { file, offset, size } = op {
                        let (gfile, _) = self.home(j, file.0);
                        if let Some(cache) = self.caches[li].as_mut() {
                            let extent = shared.file_extent.get(gfile as usize).copied();
                            match cache.lookup(gfile, offset, size, extent.unwrap_or(0)) {
                                Lookup::Hit => {
                                    let now = ctx.now();
                                    let copy =
                                        bbsim_storage::units::transfer_ps(size, HIT_BANDWIDTH);
                                    self.push_record(li, op, now, now + copy, &Target::Cache, 0);
                                    self.ranks[li].wait = Wait::Timer;
                                    ctx.send_self(copy, SimEvent::Wake { local });
                                    return;
                                }
                                Lookup::Fetch { offset: at, len } => {
                                    self.issue(local, j, op, Some((gfile, at, len)), ctx);
                                    return;
                                }
                            }
                        }
                    }
                    self.issue(local, j, op, None, ctx);
                    return;
                }
                Op::Send { to, bytes } => self.send_rank(rank, to, bytes, j, ctx),
                Op::Recv { from, bytes } => {
                    let have = self.inbox.entry((local, from)).or_insert(0);
                    if *have >= bytes {
                        *have -= bytes;
                        if *have == 0 {
                            self.inbox.remove(&(local, from));
                        }
                    } else {
                        self.ranks[li].cursor = Some(before);
                        self.ranks[li].wait = Wait::Recv { from, bytes };
                        return;
                    }
                }
                Op::Barrier { comm } => {
                    let seq = {
                        let c = self.ranks[li].barriers.entry(comm.0).or_insert(0);
                        let s = *c;
                        *c += 1;
                        s
                    };
                    self.ranks[li].wait = Wait::Barrier { comm: comm.0, seq };
                    ctx.send(
                        shared.jobctl[j as usize],
                        CTL_LATENCY,
                        SimEvent::Ctl(CtlEvent::Arrive { comm: comm.0, seq }),
                    );
                    return;
                }
            }
        }
    }

    /// Rank `from` (of this node) sends `bytes` to rank `to` of job `j`: over the network to
    /// the node that runs it, or straight into its inbox when it runs here.
    fn send_rank(&mut self, from: u32, to: u32, bytes: u64, j: u32, ctx: &mut Ctx<'_, SimEvent>) {
        let rpn = self.shared.workload.jobs[j as usize].ranks_per_node.max(1);
        let dst = self.shared.job_nodes[j as usize][(to / rpn) as usize];
        if dst == self.terminal {
            if let Some(local) = self.deliver_local(from, to, bytes) {
                ctx.send_self(0, SimEvent::Wake { local });
            }
            return;
        }
        self.sent.0 += 1;
        self.sent.1 += bytes;
        self.nic
            .send_message(ctx, dst, bytes, Payload::Rank { from, to, bytes });
    }

    /// A message from rank `from` to rank `to` (of this node) has arrived: the receiver goes
    /// on if it was waiting for these bytes.
    fn deliver(&mut self, from: u32, to: u32, bytes: u64, ctx: &mut Ctx<'_, SimEvent>) {
        if let Some(local) = self.deliver_local(from, to, bytes) {
            self.advance(local, ctx);
        }
    }

    /// Adds `bytes` from `from` to the inbox of rank `to`; returns the receiver's local index
    /// when it was waiting in a receive that is now satisfied (its wait is cleared, so it is
    /// woken once).
    fn deliver_local(&mut self, from: u32, to: u32, bytes: u64) -> Option<u32> {
        let local = self.ranks.iter().position(|r| r.rank == to)?;
        let have = self.inbox.entry((local as u32, from)).or_insert(0);
        *have += bytes;
        let have = *have;
        match self.ranks[local].wait {
            Wait::Recv { from: f, bytes: b } if f == from && have >= b => {
                self.ranks[local].wait = Wait::Timer;
                Some(local as u32)
            }
            _ => None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push_record(
        &mut self,
        li: usize,
        op: Op,
        start: Time,
        end: Time,
        target: &Target,
        hops: u16,
    ) {
        let (write, file, offset, bytes) = match op {
            Op::Write { file, offset, size } => (true, file.0, offset, size),
            Op::Read { file, offset, size } => (false, file.0, offset, size),
            _ => (false, 0, 0, 0),
        };
        let net = matches!(target, Target::Bb { .. } | Target::Pfs).then_some(hops);
        self.rank_io[li].add(write, bytes, start, end, net);
        if write {
            match target {
                Target::Local => self.written_to.local += bytes,
                Target::Bb { .. } => self.written_to.bb += bytes,
                Target::Pfs => self.written_to.pfs += bytes,
                Target::Cache | Target::None => {}
            }
        }
        if !self.shared.keep_records {
            return;
        }
        let rank = self.ranks[li].rank;
        let record = OpRecord {
            rank,
            file,
            target: 0,
            hops,
            write,
            offset,
            bytes,
            start,
            end,
        };
        self.ops.push(record, target);
    }

    /// Node-local address of `offset` in global file `gfile` (files get consecutive regions
    /// of the SSD's address space as they are first used, wrapping at the capacity).
    fn local_address(&mut self, gfile: u64, offset: u64, len: u64) -> u64 {
        let cap = self.shared.local_capacity.max(1);
        let extent = self
            .shared
            .file_extent
            .get(gfile as usize)
            .copied()
            .unwrap_or(len);
        let base = match self.regions.get(&gfile) {
            Some(&b) => b,
            None => {
                let b = if self.next_region.saturating_add(extent) > cap {
                    0
                } else {
                    self.next_region
                };
                self.next_region = b.saturating_add(extent);
                self.regions.insert(gfile, b);
                b
            }
        };
        let addr = base.saturating_add(offset);
        let room = cap.saturating_sub(len).max(1);
        if addr.saturating_add(len) > cap {
            addr % room
        } else {
            addr
        }
    }

    /// Issues the I/O of `op` (or, for a read-cache miss, the `fill` range instead).
    fn issue(
        &mut self,
        local: u32,
        j: u32,
        op: Op,
        fill: Option<(u64, u64, u64)>,
        ctx: &mut Ctx<'_, SimEvent>,
    ) {
        let (io, file, mut offset, mut len) = match op {
            Op::Write { file, offset, size } => (IoOp::Write, file.0, offset, size),
            Op::Read { file, offset, size } => (IoOp::Read, file.0, offset, size),
            _ => return,
        };
        if let Some((_, at, n)) = fill {
            (offset, len) = (at, n);
        }
        let (gfile, mut home) = self.home(j, file);
        let ops = match &home {
            _ if fill.is_some() => 1,
            Home::Bb { layout, .. } => self.take_train(local as usize, j, op, layout.stripe_size),
            Home::Local if self.local.is_some() => self.take_train(local as usize, j, op, 0),
            _ => 1,
        };
        len = len.saturating_mul(u64::from(ops));
        if ops > 1 {
            self.trains.0 += 1;
            self.trains.1 += u64::from(ops);
        }
        self.bytes_issued[usize::from(io == IoOp::Read)] += len;
        let id = self.next_app;
        self.next_app += 1;
        let now = ctx.now();
        let mut used_layout = None;
        let mut waits = false;
        if home == Home::Local {
            if let Some(store) = self.store.as_mut() {
                if io == IoOp::Read {
                    if store.read_from_pfs(gfile, offset, len) {
                        home = Home::Pfs;
                    }
                } else {
                    let (admission, released) = store.admit(id, j, gfile, offset, len, now);
                    self.trim_released(&released);
                    match admission {
                        Admission::Write => {}
                        Admission::Spill => home = Home::Pfs,
                        Admission::Wait => waits = true,
                    }
                }
            }
        }
        let target = if home == Home::Local && self.local.is_some() {
            if waits {
                // A write waiting for room drains the SSD whatever the drain's policy.
                if let Some(d) = self.drain.as_mut() {
                    d.open = true;
                }
            } else {
                self.submit_local(id, io, j, gfile, offset, len, ops, ctx);
            }
            Target::Local
        } else {
            let mut app = AppRequest {
                id,
                op: io,
                alloc: j,
                stream: j,
                file: gfile,
                offset,
                len,
                ops,
            };
            let me = Endpoint(self.terminal);
            let (parts, target) = match home {
                Home::Bb { alloc, layout } => {
                    app.alloc = alloc;
                    let parts =
                        self.tracker
                            .issue(app, &layout, &self.shared.bb_endpoints, me, now);
                    used_layout = Some(layout);
                    (
                        parts,
                        Target::Bb {
                            servers: Vec::new(),
                            spilled: false,
                        },
                    )
                }
                _ => (
                    self.tracker
                        .issue(app, &self.pfs_layout, &self.shared.io_endpoints, me, now),
                    Target::Pfs,
                ),
            };
            let client = match target {
                Target::Bb { .. } => Client::Bb,
                _ => Client::Pfs,
            };
            self.send_parts(client, parts, ctx);
            target
        };
        self.inflight.insert(
            id,
            Inflight {
                local,
                op,
                start: now,
                target,
                hops: 0,
                layout: used_layout,
                fill,
                ops,
                stalled: 0,
                stall: None,
            },
        );
        if waits {
            self.pump_drain(ctx);
        }
    }

    /// Sends per-server requests through the node's file-system client `client`: at once
    /// when it limits nothing, otherwise through its gate.
    fn send_parts(
        &mut self,
        client: Client,
        parts: impl IntoIterator<Item = (Endpoint, IoRequest)>,
        ctx: &mut Ctx<'_, SimEvent>,
    ) {
        match self.gates[client as usize].as_mut() {
            None => {
                for (to, req) in parts {
                    super::send_storage(&mut self.nic, ctx, to.0, StorageMsg::Request(req));
                }
            }
            Some(gate) => {
                for (to, req) in parts {
                    gate.submit(to, req);
                }
                self.pump_gates(ctx);
            }
        }
    }

    /// The reply to request `id` arrived: it frees a slot of the client that sent it.
    fn client_reply(&mut self, id: u64, ctx: &mut Ctx<'_, SimEvent>) {
        if self.gates.iter_mut().flatten().any(|g| g.done(id)) {
            self.pump_gates(ctx);
        }
    }

    /// Sends what the client gates let leave now, and schedules a wake-up for the next
    /// departure.
    fn pump_gates(&mut self, ctx: &mut Ctx<'_, SimEvent>) {
        let now = ctx.now();
        let mut out = Vec::new();
        let mut next: Option<Time> = None;
        for gate in self.gates.iter_mut().flatten() {
            if let Some(t) = gate.pump(now, &mut out) {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        }
        for (to, req) in out {
            super::send_storage(&mut self.nic, ctx, to.0, StorageMsg::Request(req));
        }
        if let Some(t) = next {
            if self.gate_tick.is_none_or(|s| t < s) {
                self.gate_tick = Some(t);
                ctx.send_self(t - now, SimEvent::Wake { local: CLIENT_TICK });
            }
        }
    }

    /// The PFS file that operation `op` of job `j` opens, closes or deletes, when it must ask
    /// the PFS metadata server first.
    fn metadata_file(&self, j: u32, op: Op) -> Option<u64> {
        if !self.shared.pfs_metadata {
            return None;
        }
        let file = match op {
            Op::Open { file } | Op::Close { file } | Op::Delete { file } => file.0,
            _ => return None,
        };
        match self.home(j, file) {
            (gfile, Home::Pfs) => Some(gfile),
            _ => None,
        }
    }

    /// Sends local rank `local`'s metadata operation on PFS file `gfile` (`op`) to the
    /// metadata server, through one of the node's I/O nodes; false if it has none.
    fn send_metadata(
        &mut self,
        local: u32,
        j: u32,
        gfile: u64,
        op: Op,
        ctx: &mut Ctx<'_, SimEvent>,
    ) -> bool {
        let servers = &self.pfs_layout.servers;
        let slot = servers.get((gfile % servers.len().max(1) as u64) as usize);
        let Some(&to) = slot.and_then(|&i| self.shared.io_endpoints.get(i)) else {
            return false;
        };
        let id = self.next_app * MAX_PARTS;
        self.next_app += 1;
        self.metadata.insert(id, (local, ctx.now()));
        let req = IoRequest {
            id,
            origin: Endpoint(self.terminal),
            op: if matches!(op, Op::Open { .. }) {
                IoOp::Read
            } else {
                IoOp::Write
            },
            kind: RequestKind::Metadata,
            alloc: j,
            stream: j,
            file: gfile,
            offset: 0,
            len: 0,
            ops: 1,
            hops: 0,
        };
        super::send_storage(&mut self.nic, ctx, to.0, StorageMsg::Request(req));
        true
    }

    /// The metadata server answered: the waiting rank goes on with its open, close or delete.
    fn metadata_reply(&mut self, r: &IoReply, ctx: &mut Ctx<'_, SimEvent>) {
        let Some((local, start)) = self.metadata.remove(&r.id) else {
            return;
        };
        let li = local as usize;
        self.rank_io[li].add_metadata(start, ctx.now());
        self.ranks[li].metadata_done = true;
        self.ranks[li].wait = Wait::Timer;
        self.advance(local, ctx);
    }

    /// Extends the I/O operation `first`, just taken from local rank `li`'s stream, into a
    /// transfer train: takes from the stream the operations that directly follow it with the
    /// same direction, file and size at consecutive offsets, up to `train_ops` in all and
    /// without leaving `first`'s stripe of `stripe` bytes (0: no stripe limit). Returns the
    /// train's length (1: `first` alone).
    fn take_train(&mut self, li: usize, j: u32, first: Op, stripe: u64) -> u32 {
        let max = self.shared.train_ops;
        if max <= 1 || self.caches[li].is_some() {
            return 1;
        }
        let (offset, size) = match first {
            Op::Write { offset, size, .. } | Op::Read { offset, size, .. } => (offset, size),
            _ => return 1,
        };
        if size == 0 {
            return 1;
        }
        let job = &self.shared.workload.jobs[j as usize];
        let Some(cursor) = self.ranks[li].cursor.as_mut() else {
            return 1;
        };
        let stripe_of = |at: u64| at.checked_div(stripe).unwrap_or(0);
        let mut k = 1u32;
        while k < max {
            let at = offset.saturating_add(u64::from(k) * size);
            if stripe_of(at.saturating_add(size - 1)) != stripe_of(offset) {
                break;
            }
            let expected = OpRun {
                op: first,
                count: k + 1,
            }
            .last();
            let mut next = *cursor;
            if job.ops.next_op(&mut next) != Some(expected) {
                break;
            }
            *cursor = next;
            k += 1;
        }
        k
    }

    fn complete(&mut self, id: u64, ctx: &mut Ctx<'_, SimEvent>) {
        let Some(f) = self.inflight.remove(&id) else {
            return;
        };
        if let (Some((gfile, at, n)), Some(cache)) =
            (f.fill, self.caches[f.local as usize].as_mut())
        {
            cache.fill(gfile, at, n);
        }
        let (li, now) = (f.local as usize, ctx.now());
        self.rank_io[li].time_stalled += f.stalled;
        if let Some(stall) = f.stall {
            self.rank_io[li].stalls.push(stall);
        }
        if f.ops <= 1 {
            self.queue_local_drain(&f.target, f.op, ctx);
            self.push_record(li, f.op, f.start, now, &f.target, f.hops);
        } else {
            // A train's operations finish one after another; their times are interpolated
            // over the train by operation (all have the same size).
            let k = f.ops;
            let (start, span) = (f.start, now - f.start);
            let at = |i: u32| start + (u128::from(span) * u128::from(i) / u128::from(k)) as Time;
            let run = OpRun { op: f.op, count: k };
            for i in 0..k {
                let op = run.nth(i);
                self.queue_local_drain(&f.target, op, ctx);
                self.push_record(li, op, at(i), at(i + 1), &f.target, f.hops);
            }
        }
        self.ranks[f.local as usize].wait = Wait::Timer;
        self.advance(f.local, ctx);
    }

    /// A write `op` to the node-local SSD just finished: hand its extent to the background
    /// drain, if there is one.
    fn queue_local_drain(&mut self, target: &Target, op: Op, ctx: &mut Ctx<'_, SimEvent>) {
        let (Target::Local, Op::Write { file, offset, size }, Some(j)) = (target, op, self.job)
        else {
            return;
        };
        if self.drain.is_none() {
            return;
        }
        let (gfile, _) = self.home(j, file.0);
        let addr = self.local_address(gfile, offset, size);
        if let Some(d) = self.drain.as_mut() {
            d.push((gfile, offset, size, addr));
        }
        if let Some(store) = self.store.as_mut() {
            store.drain_queued(gfile, offset, size);
        }
        self.pump_drain(ctx);
    }

    /// A rank deleted a file: TRIM it on the local SSD, or tell the BB servers.
    fn delete(&mut self, j: u32, file: u32, ctx: &mut Ctx<'_, SimEvent>) {
        let (gfile, home) = self.home(j, file);
        if home == Home::Local {
            if let Some(store) = self.store.as_mut() {
                store.delete(j, gfile, ctx.now());
            }
            self.admit_waiting(ctx);
            let Some(ssd) = self.local.as_mut() else {
                return;
            };
            if let Some(base) = self.regions.remove(&gfile) {
                let extent = self
                    .shared
                    .file_extent
                    .get(gfile as usize)
                    .copied()
                    .unwrap_or(0);
                ssd.trim(
                    base,
                    extent.min(self.shared.local_capacity.saturating_sub(base)),
                );
            }
            return;
        }
        if let Home::Bb { alloc, layout } = home {
            let servers: Vec<u32> = layout
                .servers
                .iter()
                .filter_map(|&i| self.shared.bb_endpoints.get(i).map(|e| e.0))
                .collect();
            for t in servers {
                self.nic
                    .send_message(ctx, t, 64, Payload::Delete { alloc, file: gfile });
            }
        }
    }
}
