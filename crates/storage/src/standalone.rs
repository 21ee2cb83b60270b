//! A standalone assembly for tests and benchmarks: client LPs, BB-server LPs, PFS I/O-node LPs
//! and a PFS backend LP, connected by an ideal network (fixed latency, hop counts from a
//! function, no contention). It also shows how the simulator embeds the components.
//!
//! LP order: clients, BB servers, I/O nodes, then the PFS backend. An LP's endpoint is its LP
//! index. Lookahead: every network channel carries `net_latency`; the I/O node ↔ backend
//! channel carries the PFS `forward_latency`.

use crate::bb_server::{BbAction, BbServer, BbServerConfig};
use crate::client::{AppRequest, IoRecord, IoTracker};
use crate::error::{BbServerField, ConfigError, PfsField, Reservation, SsdField, StripeField};
use crate::event::StorageEvent;
use crate::pfs::{IoNode, PfsBackend, PfsConfig};
use crate::placement::{stripe_set, Layout, StripeSpec};
use crate::request::{Endpoint, IoOp, StorageMsg};
use crate::ssd::{Ssd, SsdCompletion, SsdConfig, SsdRequest};
use bbsim_engine::{Ctx, LogicalProcess, LookaheadTable, LpId, SimConfig, Simulation, Time};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Lookahead class of client LPs.
pub const CLIENT: u16 = 0;
/// Lookahead class of BB-server LPs.
pub const BB: u16 = 1;
/// Lookahead class of PFS I/O-node LPs.
pub const IO_NODE: u16 = 2;
/// Lookahead class of the PFS backend LP.
pub const PFS: u16 = 3;

/// Hop count between two terminals.
pub type HopsFn = Arc<dyn Fn(u32, u32) -> u32 + Send + Sync>;

/// The ideal network: every message takes `latency` ps and `hops(src, dst)` hops.
#[derive(Clone)]
pub struct IdealNet {
    /// One-way latency of every message (ps); the lookahead of network channels.
    pub latency: Time,
    /// Hops between terminals.
    pub hops: HopsFn,
}

impl std::fmt::Debug for IdealNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IdealNet {{ latency: {} }}", self.latency)
    }
}

impl IdealNet {
    fn send(&self, ctx: &mut Ctx<'_, HarnessEvent>, to: Endpoint, mut msg: StorageMsg) {
        msg.add_hops((self.hops)(ctx.me().0, to.0));
        ctx.send(LpId(to.0), self.latency, HarnessEvent::Msg(msg));
    }
}

/// The harness's global event type (the simulator's would also carry network events).
#[derive(Clone, Debug)]
pub enum HarnessEvent {
    /// A storage component's event.
    Storage(StorageEvent),
    /// A message delivered by the ideal network.
    Msg(StorageMsg),
    /// A client starts its workload.
    Start,
    /// A client of allocation `.0` finished (sent to BB servers).
    JobEnd(u32),
    /// Ask a BB server to stage `bytes` of `file` in for `alloc` (scheduled by the test).
    StageIn {
        /// Allocation.
        alloc: u32,
        /// File.
        file: u64,
        /// Bytes.
        bytes: u64,
    },
    /// Turn a BB server's batching of SSD pieces on or off ([`BbServer::set_batching`];
    /// scheduled by the test before any request arrives).
    SetBatching(bool),
    /// Tell a BB server the most allocation units the run will allocate on it
    /// ([`BbServer::bound_allocations`]; scheduled by the test before any request arrives).
    BoundAllocations(u64),
}

impl From<StorageEvent> for HarnessEvent {
    fn from(e: StorageEvent) -> Self {
        HarnessEvent::Storage(e)
    }
}

/// One operation of a client's workload.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClientOp {
    /// Read or write.
    pub op: IoOp,
    /// File.
    pub file: u64,
    /// Offset in the file (bytes).
    pub offset: u64,
    /// Bytes.
    pub len: u64,
}

/// Where a client's I/O goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// BB servers, striped nearest-first ([`stripe_set`]).
    Bb(StripeSpec),
    /// BB servers with an explicit layout (indices into the BB server list), e.g. DataWarp.
    BbLayout(Layout),
    /// The PFS, through I/O node `client index mod I/O nodes`.
    Pfs,
    /// A node-local SSD inside the client LP (no network).
    Local(SsdConfig),
}

/// A client: its workload and target.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientSpec {
    /// Operations, issued in order.
    pub ops: Vec<ClientOp>,
    /// Operations in flight at once.
    pub depth: u32,
    /// Where the I/O goes.
    pub target: Target,
    /// Capacity-accounting key.
    pub alloc: u32,
    /// Multi-stream key.
    pub stream: u32,
    /// Start time (ps).
    pub start: Time,
    /// Operations each BB or PFS request stands for ([`AppRequest::ops`]): 1, or `k` to send
    /// each listed operation as a transfer train of `k` operations of `len / k` bytes.
    pub train: u32,
}

/// The part of a standalone [`Scenario`] that failed its check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScenarioField {
    /// A field of client `.0`'s BB stripe (or of the stripe set drawn for it).
    ClientStripe(usize, StripeField),
    /// Client `.0`'s explicit BB layout.
    ClientLayout(usize),
    /// Client `.0`'s target.
    ClientTarget(usize),
    /// A field of client `.0`'s node-local SSD.
    ClientSsd(usize, SsdField),
    /// A field of the BB servers.
    BurstBuffer(BbServerField),
    /// A reservation on the BB servers.
    Reservation(Reservation),
    /// The PFS itself (missing).
    Pfs,
    /// A field of the PFS.
    PfsField(PfsField),
}

impl fmt::Display for ScenarioField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioField::ClientStripe(i, k) => write!(f, "clients[{i}].{k}"),
            ScenarioField::ClientLayout(i) => write!(f, "clients[{i}].layout"),
            ScenarioField::ClientTarget(i) => write!(f, "clients[{i}].target"),
            ScenarioField::ClientSsd(i, k) => write!(f, "clients[{i}].ssd.{k}"),
            ScenarioField::BurstBuffer(k) => write!(f, "burst_buffer.{k}"),
            ScenarioField::Reservation(r) => write!(f, "reservations: {r}"),
            ScenarioField::Pfs => f.write_str("pfs"),
            ScenarioField::PfsField(k) => write!(f, "pfs.{k}"),
        }
    }
}

/// A whole standalone system.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The network.
    pub net: IdealNet,
    /// BB server configuration and count.
    pub bb: Option<(BbServerConfig, usize)>,
    /// Reservations `(alloc, bytes per server)` made on every BB server.
    pub reservations: Vec<(u32, u64)>,
    /// PFS configuration and I/O-node count (needed by BB servers: drain, spill).
    pub pfs: Option<(PfsConfig, usize)>,
    /// Clients.
    pub clients: Vec<ClientSpec>,
}

/// A client LP.
#[derive(Debug)]
pub struct ClientLp {
    spec: ClientSpec,
    net: IdealNet,
    layout: Layout,
    endpoints: Vec<Endpoint>,
    local: Option<Ssd>,
    bb_servers: Vec<Endpoint>,
    next: usize,
    outstanding: u32,
    tracker: IoTracker,
    local_start: BTreeMap<u64, Time>,
    done_buf: Vec<SsdCompletion>,
    /// Finished requests, in completion order.
    pub records: Vec<IoRecord>,
    /// Write bytes sent over the network.
    pub written_sent: u64,
    /// Write bytes sent to PFS I/O nodes directly.
    pub written_to_pfs: u64,
}

impl ClientLp {
    /// The node-local SSD, if any.
    pub fn local_ssd(&self) -> Option<&Ssd> {
        self.local.as_ref()
    }

    fn pump(&mut self, ctx: &mut Ctx<'_, HarnessEvent>) {
        while self.outstanding < self.spec.depth && self.next < self.spec.ops.len() {
            let op = self.spec.ops[self.next];
            let id = self.next as u64;
            self.next += 1;
            self.outstanding += 1;
            if let Some(ssd) = self.local.as_mut() {
                self.local_start.insert(id, ctx.now());
                let r = SsdRequest {
                    tag: id,
                    op: op.op,
                    offset: op.offset,
                    len: op.len,
                    stream: self.spec.stream,
                };
                ssd.submit(r, ctx);
                continue;
            }
            let app = AppRequest {
                id,
                op: op.op,
                alloc: self.spec.alloc,
                stream: self.spec.stream,
                file: op.file,
                offset: op.offset,
                len: op.len,
                ops: self.spec.train.max(1),
            };
            let me = Endpoint(ctx.me().0);
            let parts = self
                .tracker
                .issue(app, &self.layout, &self.endpoints, me, ctx.now());
            for (to, req) in parts {
                if req.op == IoOp::Write {
                    self.written_sent += req.len;
                    if self.spec.target == Target::Pfs {
                        self.written_to_pfs += req.len;
                    }
                }
                self.net.send(ctx, to, StorageMsg::Request(req));
            }
        }
        if self.outstanding == 0 && self.next == self.spec.ops.len() {
            self.next += 1; // announce once
            for &s in &self.bb_servers {
                ctx.send(
                    LpId(s.0),
                    self.net.latency,
                    HarnessEvent::JobEnd(self.spec.alloc),
                );
            }
        }
    }

    fn handle(&mut self, ev: HarnessEvent, ctx: &mut Ctx<'_, HarnessEvent>) {
        match ev {
            HarnessEvent::Start => self.pump(ctx),
            HarnessEvent::Msg(StorageMsg::Reply(r)) => {
                if let Some(rec) = self.tracker.on_reply(&r, ctx.now()) {
                    self.records.push(rec);
                    self.outstanding -= 1;
                    self.pump(ctx);
                }
            }
            HarnessEvent::Storage(StorageEvent::Ssd(se)) => {
                let mut done = std::mem::take(&mut self.done_buf);
                if let Some(ssd) = self.local.as_mut() {
                    ssd.handle(se, ctx, &mut done);
                }
                for c in done.drain(..) {
                    let op = self.spec.ops[c.tag as usize];
                    self.records.push(IoRecord {
                        id: c.tag,
                        op: op.op,
                        bytes: op.len,
                        start: self.local_start.remove(&c.tag).unwrap_or(c.submitted),
                        end: c.finished,
                        servers: Default::default(),
                        max_hops: 0,
                        total_hops: 0,
                        spilled: false,
                        stalled: 0,
                        stall_end: 0,
                    });
                    self.outstanding -= 1;
                }
                self.done_buf = done;
                self.pump(ctx);
            }
            _ => {}
        }
    }
}

/// A BB-server LP: the server component plus the (ideal) NIC.
#[derive(Debug)]
pub struct BbLp {
    /// The server component.
    pub server: BbServer,
    net: IdealNet,
    expected: BTreeMap<u32, u32>,
    actions: Vec<BbAction>,
    /// Completed stage-ins: (stage id, bytes, completion time).
    pub staged: Vec<(u64, u64, Time)>,
    /// Completed stage-outs: (allocation, completion time).
    pub staged_out: Vec<(u32, Time)>,
}

impl BbLp {
    fn handle(&mut self, ev: HarnessEvent, ctx: &mut Ctx<'_, HarnessEvent>) {
        let mut out = std::mem::take(&mut self.actions);
        match ev {
            HarnessEvent::Msg(m) => self.server.on_message(m, ctx, &mut out),
            HarnessEvent::Storage(e) => self.server.handle(e, ctx, &mut out),
            HarnessEvent::JobEnd(alloc) => {
                if let Some(n) = self.expected.get_mut(&alloc) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.server.job_end(alloc, ctx, &mut out);
                    }
                }
            }
            HarnessEvent::StageIn { alloc, file, bytes } => {
                self.server
                    .stage_in(alloc, file, bytes, alloc, ctx, &mut out);
            }
            HarnessEvent::SetBatching(on) => self.server.set_batching(on),
            HarnessEvent::BoundAllocations(units) => {
                self.server.bound_allocations(units);
            }
            HarnessEvent::Start => {}
        }
        for a in out.drain(..) {
            match a {
                BbAction::Send { to, msg } => self.net.send(ctx, to, msg),
                BbAction::StageInDone { stage, bytes, .. } => {
                    self.staged.push((stage, bytes, ctx.now()));
                }
                BbAction::StageOutDone { alloc, .. } => {
                    self.staged_out.push((alloc, ctx.now()));
                }
            }
        }
        self.actions = out;
    }
}

/// A PFS I/O-node LP.
#[derive(Debug)]
pub struct IoNodeLp {
    /// The I/O node component.
    pub node: IoNode,
    net: IdealNet,
    out: Vec<(Endpoint, StorageMsg)>,
}

/// The LPs of the harness.
#[derive(Debug)]
pub enum HarnessLp {
    /// A compute-node client.
    Client(Box<ClientLp>),
    /// A BB server.
    Bb(Box<BbLp>),
    /// A PFS I/O node.
    IoNode(Box<IoNodeLp>),
    /// The PFS backend.
    Pfs(Box<PfsBackend>),
}

impl LogicalProcess for HarnessLp {
    type Event = HarnessEvent;

    fn init(&mut self, ctx: &mut Ctx<'_, HarnessEvent>) {
        if let HarnessLp::Client(c) = self {
            ctx.send_self(c.spec.start, HarnessEvent::Start);
        }
    }

    fn handle(&mut self, ev: HarnessEvent, ctx: &mut Ctx<'_, HarnessEvent>) {
        match self {
            HarnessLp::Client(c) => c.handle(ev, ctx),
            HarnessLp::Bb(b) => b.handle(ev, ctx),
            HarnessLp::IoNode(n) => match ev {
                HarnessEvent::Msg(m) => n.node.on_message(m, ctx),
                HarnessEvent::Storage(StorageEvent::Pfs(p)) => {
                    let mut out = std::mem::take(&mut n.out);
                    n.node.handle(p, &mut out);
                    for (to, msg) in out.drain(..) {
                        n.net.send(ctx, to, msg);
                    }
                    n.out = out;
                }
                _ => {}
            },
            HarnessLp::Pfs(p) => {
                if let HarnessEvent::Storage(StorageEvent::Pfs(e)) = ev {
                    p.handle(e, ctx);
                }
            }
        }
    }

    fn class(&self) -> u16 {
        match self {
            HarnessLp::Client(_) => CLIENT,
            HarnessLp::Bb(_) => BB,
            HarnessLp::IoNode(_) => IO_NODE,
            HarnessLp::Pfs(_) => PFS,
        }
    }

    fn label(&self) -> String {
        match self {
            HarnessLp::Client(_) => "client".into(),
            HarnessLp::Bb(_) => "bb-server".into(),
            HarnessLp::IoNode(_) => "io-node".into(),
            HarnessLp::Pfs(_) => "pfs".into(),
        }
    }
}

/// The lookahead table of the harness: network channels `net_latency`, I/O node ↔ backend
/// `forward_latency`.
pub fn lookahead(net_latency: Time, forward_latency: Time) -> LookaheadTable {
    let mut t = LookaheadTable::with_classes(["client", "bb-server", "io-node", "pfs"]);
    for a in [CLIENT, BB, IO_NODE] {
        for b in [CLIENT, BB, IO_NODE] {
            t.declare(a, b, net_latency);
        }
    }
    t.declare_both(IO_NODE, PFS, forward_latency);
    t
}

impl Scenario {
    /// Builds the simulation (seed 1, run to completion).
    pub fn build(
        &self,
        config: SimConfig,
    ) -> Result<Simulation<HarnessLp>, ConfigError<ScenarioField>> {
        let nc = self.clients.len();
        let nb = self.bb.as_ref().map_or(0, |b| b.1);
        let ni = self.pfs.as_ref().map_or(0, |p| p.1);
        let bb_eps: Vec<Endpoint> = (0..nb).map(|i| Endpoint((nc + i) as u32)).collect();
        let io_eps: Vec<Endpoint> = (0..ni).map(|i| Endpoint((nc + nb + i) as u32)).collect();
        let backend = LpId((nc + nb + ni) as u32);
        let mut expected: BTreeMap<u32, u32> = BTreeMap::new();
        for c in &self.clients {
            *expected.entry(c.alloc).or_default() += 1;
        }
        let mut lps = Vec::new();
        for (i, c) in self.clients.iter().enumerate() {
            let stripe = |k| ScenarioField::ClientStripe(i, k);
            let (layout, endpoints, local) = match &c.target {
                Target::Bb(spec) => {
                    spec.validate(nb).map_err(|e| e.within(stripe))?;
                    let terms: Vec<u32> = bb_eps.iter().map(|e| e.0).collect();
                    let h = self.net.hops.clone();
                    let set = stripe_set(i as u32, &terms, spec.stripe_count, |a, b| h(a, b))
                        .map_err(|e| e.within(stripe))?;
                    let l = Layout {
                        servers: set,
                        stripe_size: spec.stripe_size,
                    };
                    (l, bb_eps.clone(), None)
                }
                Target::BbLayout(l) => {
                    if l.servers.is_empty() || l.servers.iter().any(|&s| s >= nb) {
                        return Err(ConfigError::new(
                            ScenarioField::ClientLayout(i),
                            format!("{:?}", l.servers),
                            format!("must name BB servers below {nb}"),
                        ));
                    }
                    (l.clone(), bb_eps.clone(), None)
                }
                Target::Pfs => {
                    if ni == 0 {
                        return Err(ConfigError::new(
                            ScenarioField::ClientTarget(i),
                            "pfs",
                            "needs a PFS, and there is none",
                        ));
                    }
                    let l = Layout {
                        servers: vec![i % ni],
                        stripe_size: u64::MAX,
                    };
                    (l, io_eps.clone(), None)
                }
                Target::Local(cfg) => {
                    let ssd = Ssd::new(0, cfg.clone())
                        .map_err(|e| e.within(|k| ScenarioField::ClientSsd(i, k)))?;
                    (
                        Layout {
                            servers: vec![],
                            stripe_size: 1,
                        },
                        vec![],
                        Some(ssd),
                    )
                }
            };
            let bb_servers = if matches!(c.target, Target::Bb(_) | Target::BbLayout(_)) {
                bb_eps.clone()
            } else {
                Vec::new()
            };
            lps.push(HarnessLp::Client(Box::new(ClientLp {
                spec: c.clone(),
                net: self.net.clone(),
                layout,
                endpoints,
                local,
                bb_servers,
                next: 0,
                outstanding: 0,
                tracker: IoTracker::default(),
                local_start: BTreeMap::new(),
                done_buf: Vec::new(),
                records: Vec::new(),
                written_sent: 0,
                written_to_pfs: 0,
            })));
        }
        if let Some((cfg, _)) = &self.bb {
            if io_eps.is_empty() {
                return Err(ConfigError::new(
                    ScenarioField::Pfs,
                    "none",
                    "must exist: BB servers need a PFS to drain to",
                ));
            }
            for &ep in &bb_eps {
                let mut server = BbServer::new(cfg.clone(), ep, io_eps.clone())
                    .map_err(|e| e.within(ScenarioField::BurstBuffer))?;
                for &(alloc, bytes) in &self.reservations {
                    server
                        .reserve(alloc, bytes)
                        .map_err(|e| e.within(ScenarioField::Reservation))?;
                }
                lps.push(HarnessLp::Bb(Box::new(BbLp {
                    server,
                    net: self.net.clone(),
                    expected: expected.clone(),
                    actions: Vec::new(),
                    staged: Vec::new(),
                    staged_out: Vec::new(),
                })));
            }
        }
        let mut forward = 1;
        if let Some((cfg, _)) = &self.pfs {
            forward = cfg.forward_latency.max(1);
            for &ep in &io_eps {
                lps.push(HarnessLp::IoNode(Box::new(IoNodeLp {
                    node: IoNode::new(ep, backend, cfg),
                    net: self.net.clone(),
                    out: Vec::new(),
                })));
            }
            let b = PfsBackend::new(cfg.clone()).map_err(|e| e.within(ScenarioField::PfsField))?;
            lps.push(HarnessLp::Pfs(Box::new(b)));
        }
        Ok(Simulation::new(
            lps,
            lookahead(self.net.latency.max(1), forward),
            config,
        ))
    }
}

/// The byte balance of a harness run: every client write byte is in a BB, on the PFS, in
/// flight, or was overwritten/deleted in a BB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conservation {
    /// Write bytes clients sent over the network.
    pub written: u64,
    /// Dirty bytes held by BB servers.
    pub in_bb: u64,
    /// Bytes persisted by the PFS.
    pub on_pfs: u64,
    /// Bytes on the network, waiting for BB space, or moving from a BB to the PFS.
    pub in_flight: u64,
    /// Bytes overwritten or deleted in a BB before being drained.
    pub superseded: u64,
}

impl Conservation {
    /// Computes the balance from the LP states (each quantity from its own counters).
    pub fn of(sim: &Simulation<HarnessLp>) -> Self {
        let mut c = Conservation::default();
        let (mut to_bb, mut to_pfs, mut bb_received) = (0u64, 0u64, 0u64);
        let (mut bb_out, mut pfs_from_bb, mut pfs_client) = (0u64, 0u64, 0u64);
        for lp in sim.lps() {
            match lp {
                HarnessLp::Client(cl) => {
                    c.written += cl.written_sent;
                    to_pfs += cl.written_to_pfs;
                    to_bb += cl.written_sent - cl.written_to_pfs;
                }
                HarnessLp::Bb(b) => {
                    let l = b.server.ledger();
                    bb_received += l.received;
                    c.in_bb += l.in_bb;
                    c.in_flight += l.stalled;
                    c.superseded += l.superseded + l.deleted;
                    bb_out += l.drain_handed + l.spilled;
                }
                HarnessLp::Pfs(p) => {
                    let t = p.totals();
                    c.on_pfs += t.stored;
                    pfs_from_bb += t.stored_drain + t.stored_spill;
                    pfs_client += t.stored - t.stored_drain - t.stored_spill;
                }
                HarnessLp::IoNode(_) => {}
            }
        }
        c.in_flight += (to_bb - bb_received) + (bb_out - pfs_from_bb) + (to_pfs - pfs_client);
        c
    }

    /// Whether `written = in_bb + on_pfs + in_flight + superseded`.
    pub fn holds(&self) -> bool {
        self.written == self.in_bb + self.on_pfs + self.in_flight + self.superseded
    }
}

/// The benchmark system of `benches/storage.rs`: one BB server (6 SSDs of 3.2 TB, 1.4 GB/s
/// write each, FTL with 1 MiB mapping units, 256 units per block, 7% spare, fresh) absorbing
/// `per_client` sequential writes of `size` bytes from each of `clients`
/// clients (4 in flight each), over a 1 µs ideal network; a one-I/O-node PFS exists for
/// completeness but nothing drains.
pub fn absorb_scenario(clients: usize, per_client: u64, size: u64) -> Scenario {
    use crate::capacity::FullPolicy;
    use crate::drain::{DrainConfig, DrainPolicy};
    use crate::ssd::{FtlConfig, Precondition, StreamMode};
    let ssd = SsdConfig {
        capacity: 3_200_000_000_000,
        read_bandwidth: 2_300_000_000,
        write_bandwidth: 1_400_000_000,
        op_overhead: 0,
        access_latency: 0,
        channels: 8,
        size_bins: Vec::new(),
        ftl: Some(FtlConfig {
            page_size: 1 << 20,
            pages_per_block: 256,
            spare_factor: 0.07,
            gc_free_blocks: 2,
            streams: StreamMode::Legacy,
            max_streams: 16,
            erase_time: 0,
            precondition: Precondition::Fresh,
        }),
        queue_trace_interval: bbsim_engine::time::MS,
        drives: 1,
    };
    let bb = BbServerConfig {
        ssd,
        ssds: 6,
        unit: 1 << 20,
        chunk_units: 1,
        ssd_model: crate::bb_server::SsdModel::PerSsd,
        threads: 64,
        request_overhead: 0,
        staging: None,
        full_policy: FullPolicy::Stall,
        drain: DrainConfig {
            policy: DrainPolicy::None,
            threshold: 0.8,
            bandwidth: 1_000_000_000,
            max_outstanding: 4,
            evict: true,
        },
    };
    let clients = (0..clients as u64)
        .map(|i| ClientSpec {
            ops: (0..per_client)
                .map(|k| ClientOp {
                    op: IoOp::Write,
                    file: i,
                    offset: k * size,
                    len: size,
                })
                .collect(),
            depth: 4,
            target: Target::Bb(StripeSpec {
                stripe_count: 1,
                stripe_size: size,
            }),
            alloc: i as u32,
            stream: i as u32,
            start: 0,
            train: 1,
        })
        .collect();
    Scenario {
        net: IdealNet {
            latency: bbsim_engine::time::US,
            hops: Arc::new(|_, _| 2),
        },
        bb: Some((bb, 1)),
        reservations: Vec::new(),
        pfs: Some((PfsConfig::default(), 1)),
        clients,
    }
}
