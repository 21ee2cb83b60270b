//! The burst-buffer server: N SSDs striped internally, a pool of request threads, an optional
//! DRAM staging buffer, capacity accounting per job or reservation, stall-or-spill when full,
//! and an asynchronous data mover for drain (stage-out) and stage-in.
//!
//! A [`BbServer`] is a component of the simulator's BB-server host LP, which also owns the
//! NIC. The host hands every storage message that arrives to [`BbServer::on_message`] and
//! every [`StorageEvent`] addressed to itself to [`BbServer::handle`]; both append
//! [`BbAction`]s: messages to send over the network (replies to clients, drain/spill/stage-in
//! requests to PFS I/O nodes) and stage-in notifications.
//!
//! Data layout: a request's bytes (already striped across servers by the client) are cut into
//! allocation units of `unit` bytes of the file; unit `i` of a file lives on SSD
//! `(first + i / chunk_units) mod ssds` (the next SSD with space if that one is full) at a
//! logical address allocated on first write: runs of `chunk_units` consecutive units (a chunk)
//! share an SSD, and chunks go round robin over the SSDs, from the file's first SSD `first`,
//! which the server hands out round robin over files in arrival order
//! ([`crate::ssd_rotation`]). Capacity is charged per allocated unit.
//!
//! Device requests: the pieces of one request that land on the same SSD are submitted as one
//! batched device request ([`crate::ssd::Ssd::submit_batch`]), charged one operation per piece
//! (one `op_overhead` each, the same transfer time, FTL writes and statistics as separate
//! requests) but served atomically, with one completion. [`BbServer::set_batching`] turns this
//! off (one device request per piece), as a reference for comparisons.
//!
//! Device model ([`SsdModel`]): `PerSsd` (the default) simulates each of the `ssds` SSDs as
//! its own [`Ssd`] with the layout above. `Array` simulates the server's SSDs as one device
//! with `ssds` times the channels, read and write bandwidth and capacity
//! ([`BbServerConfig::device_config`]): every unit lives on that device, so a request's pieces
//! form one device request charged one operation per stripe unit.
//!
//! Transfer trains ([`IoRequest::ops`] `> 1`): a request standing for `k` operations one client
//! issued back to back is cut into the pieces its `k` operations would have had, charged `k`
//! request overheads on its thread, and submitted as serial batches (one slot, one operation
//! after the other; [`SsdBatch::serial`]); it is answered once, when all are done.

use crate::capacity::{CapacityLedger, FullPolicy};
use crate::drain::{DrainConfig, DrainPolicy, Pacer};
use crate::error::{positive, BbServerField as F, ConfigError, DrainField, Reservation};
use crate::event::StorageEvent;
use crate::intervals::Intervals;
use crate::op_table::OpTable;
use crate::request::{Endpoint, IoOp, IoReply, IoRequest, ReplyStatus, RequestKind, StorageMsg};
use crate::ssd::{SizeBin, Ssd, SsdBatch, SsdCompletion, SsdConfig, SsdPiece, SsdRequest};
use crate::ssd_rotation::SsdRotation;
use crate::unit_table::{Unit, UnitFlags, UnitKey, UnitTable};
use crate::units::transfer_ps;
use bbsim_engine::{Ctx, Time};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A DRAM buffer that absorbs writes and acknowledges them before they reach the SSDs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StagingConfig {
    /// Buffer size (bytes).
    pub capacity: u64,
    /// Copy bandwidth into the buffer (bytes/s).
    pub bandwidth: u64,
}

/// How a BB server's SSDs are simulated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SsdModel {
    /// Each SSD is its own device; units are laid out over them in chunks round robin
    /// (the reference model).
    #[default]
    PerSsd,
    /// The server's `ssds` SSDs are one device with `ssds` times the channels, bandwidths and
    /// capacity ([`BbServerConfig::device_config`]); a request's pieces are one device request
    /// of one operation per stripe unit. Pools the SSDs' service slots and bandwidth (more
    /// work-conserving than separate queues) for one device request per server request.
    /// Without an FTL and with `chunk_units = 1` only.
    Array,
}

impl SsdModel {
    /// Whether this is the default per-SSD model.
    pub fn is_per_ssd(&self) -> bool {
        *self == SsdModel::PerSsd
    }
}

/// BB server parameters. Sizes in bytes, bandwidths in bytes/s, times in ps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BbServerConfig {
    /// The SSD model (all SSDs of the server are alike).
    pub ssd: SsdConfig,
    /// SSDs in the server.
    pub ssds: u32,
    /// Allocation unit and internal stripe unit across the SSDs (bytes). Each unit of a
    /// request is one SSD operation (one `op_overhead`).
    pub unit: u64,
    /// Units per chunk: this many consecutive units of a file (`chunk_units · unit` bytes)
    /// stay on one SSD before the layout moves to the next SSD. 1 is plain round robin of
    /// units; more puts a request's consecutive units on one SSD, where they form one batched
    /// device request (still one operation per unit).
    pub chunk_units: u32,
    /// How the SSDs are simulated: each on its own, or as one array device.
    #[serde(default, skip_serializing_if = "SsdModel::is_per_ssd")]
    pub ssd_model: SsdModel,
    /// Request threads: requests processed at once; others wait FIFO.
    pub threads: u32,
    /// Software time per request on its thread before the SSDs see it (ps).
    pub request_overhead: Time,
    /// Optional DRAM staging buffer.
    pub staging: Option<StagingConfig>,
    /// What a write that does not fit does.
    pub full_policy: FullPolicy,
    /// The data mover to and from the PFS.
    pub drain: DrainConfig,
}

impl Default for BbServerConfig {
    fn default() -> Self {
        BbServerConfig {
            ssd: SsdConfig::default(),
            ssds: 4,
            unit: 1 << 20,
            chunk_units: 1,
            ssd_model: SsdModel::PerSsd,
            threads: 16,
            request_overhead: 0,
            staging: None,
            full_policy: FullPolicy::Stall,
            drain: DrainConfig::default(),
        }
    }
}

impl BbServerConfig {
    /// Checks every setting.
    pub fn validate(&self) -> Result<(), ConfigError<F>> {
        self.ssd.validate().map_err(|e| e.within(F::Ssd))?;
        positive(F::Ssds, u64::from(self.ssds))?;
        if self.ssds > u32::from(u16::MAX) {
            return Err(ConfigError::new(
                F::Ssds,
                self.ssds,
                "must be at most 65535",
            ));
        }
        positive(F::Unit, self.unit)?;
        if self.unit > MAX_UNIT {
            return Err(ConfigError::new(F::Unit, self.unit, "must be at most 2GiB"));
        }
        if self.unit > self.ssd.capacity {
            return Err(ConfigError::new(
                F::Unit,
                self.unit,
                format!("must not exceed ssd.capacity ({})", self.ssd.capacity),
            ));
        }
        if self.ssd.capacity / self.unit > u64::from(u32::MAX) {
            return Err(ConfigError::new(
                F::Unit,
                self.unit,
                "too small: more than 2^32 units per SSD",
            ));
        }
        positive(F::ChunkUnits, u64::from(self.chunk_units))?;
        if self.unit.saturating_mul(u64::from(self.chunk_units)) > self.ssd.capacity {
            return Err(ConfigError::new(
                F::ChunkUnits,
                self.chunk_units,
                format!(
                    "a chunk (chunk_units x unit) must not exceed ssd.capacity ({})",
                    self.ssd.capacity
                ),
            ));
        }
        if self.ssd_model == SsdModel::Array {
            if self.ssd.ftl.is_some() {
                return Err(ConfigError::new(
                    F::SsdModel,
                    "\"array\" with an FTL",
                    "\"array\" has no FTL: one FTL over the pooled capacity would clean across \
                     drives, which N separate drives do not; use ssd_model = \"per-ssd\" or \
                     disable the FTL",
                ));
            }
            if self.chunk_units != 1 {
                return Err(ConfigError::new(
                    F::ChunkUnits,
                    self.chunk_units,
                    "must be one stripe unit (chunk_units = 1) with ssd_model = \"array\": \
                     the array has no per-SSD layout",
                ));
            }
            let units = (self.ssd.capacity / self.unit).saturating_mul(u64::from(self.ssds));
            if units > u64::from(u32::MAX) {
                return Err(ConfigError::new(
                    F::Unit,
                    self.unit,
                    "too small: more than 2^32 units per SSD array (ssd_model = \"array\")",
                ));
            }
        }
        positive(F::Threads, u64::from(self.threads))?;
        if let Some(s) = &self.staging {
            positive(F::StagingCapacity, s.capacity)?;
            positive(F::StagingBandwidth, s.bandwidth)?;
        }
        self.drain.validate().map_err(|e| e.within(F::Drain))?;
        if self.full_policy == FullPolicy::Stall
            && !self.drain.evict
            && self.drain.policy != DrainPolicy::None
        {
            return Err(ConfigError::new(
                F::Drain(DrainField::Evict),
                false,
                "must be true when full_policy is stall (a full BB must be able to make room)",
            ));
        }
        Ok(())
    }

    /// Capacity of the server (bytes): whole units on every SSD.
    pub fn capacity(&self) -> u64 {
        (self.ssd.capacity / self.unit.max(1)) * self.unit * u64::from(self.ssds)
    }

    /// Devices the server simulates: `ssds` per SSD, 1 as an array.
    pub fn devices(&self) -> u32 {
        match self.ssd_model {
            SsdModel::PerSsd => self.ssds,
            SsdModel::Array => 1,
        }
    }

    /// The configuration of each simulated device: `ssd` per SSD; as an array, `ssd` with
    /// `ssds` times the capacity (bytes), read and write bandwidth (bytes/s, size bins
    /// included) and channels, the same `op_overhead` and `access_latency` (ps), no FTL.
    pub fn device_config(&self) -> SsdConfig {
        match self.ssd_model {
            SsdModel::PerSsd => self.ssd.clone(),
            SsdModel::Array => {
                let n = self.ssds.max(1);
                let m = u64::from(n);
                SsdConfig {
                    capacity: self.ssd.capacity.saturating_mul(m),
                    read_bandwidth: self.ssd.read_bandwidth.saturating_mul(m),
                    write_bandwidth: self.ssd.write_bandwidth.saturating_mul(m),
                    channels: self.ssd.channels.saturating_mul(n),
                    size_bins: self
                        .ssd
                        .size_bins
                        .iter()
                        .map(|b| SizeBin {
                            max_size: b.max_size,
                            read_bandwidth: b.read_bandwidth.saturating_mul(m),
                            write_bandwidth: b.write_bandwidth.saturating_mul(m),
                        })
                        .collect(),
                    ftl: None,
                    drives: n,
                    ..self.ssd.clone()
                }
            }
        }
    }
}

/// What the host LP must do on the server's behalf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BbAction {
    /// Send `msg` over the network to `to`.
    Send {
        /// Destination endpoint.
        to: Endpoint,
        /// The message.
        msg: StorageMsg,
    },
    /// A stage-in started with [`BbServer::stage_in`] is complete.
    StageInDone {
        /// The id returned by `stage_in`.
        stage: u64,
        /// Its allocation.
        alloc: u32,
        /// Its file.
        file: u64,
        /// Bytes staged in.
        bytes: u64,
    },
    /// Everything allocation `alloc` left dirty in this server when it ended
    /// ([`BbServer::job_end`]) has reached the PFS (or was deleted): its stage-out is complete.
    /// With [`DrainPolicy::None`] this comes at once and nothing is staged out.
    StageOutDone {
        /// The job or reservation.
        alloc: u32,
        /// Whether anything was staged out (or deleted) after the end: false when nothing of
        /// the allocation was left dirty here, reported at once by [`BbServer::job_end`].
        staged: bool,
    },
}

/// A timer of a BB server, delivered as [`StorageEvent::Bb`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BbEvent(BbTimer);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BbTimer {
    /// The request's software overhead on its thread is over.
    Overhead(u64),
    /// The request's data is in the staging buffer.
    Staged(u64),
    /// The data mover may start its next transfer.
    Mover,
}

/// Byte counters of a BB server, for conservation checks and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BbLedger {
    /// Client write bytes received.
    pub received: u64,
    /// Dirty bytes held (on SSD or in DRAM) and not yet handed to the drain.
    pub in_bb: u64,
    /// Dirty bytes overwritten by later writes before being drained.
    pub superseded: u64,
    /// Dirty bytes dropped by [`BbServer::delete_file`].
    pub deleted: u64,
    /// Bytes of writes waiting for space.
    pub stalled: u64,
    /// Writes that had to wait for space.
    pub stalls: u64,
    /// Time writes waited for space, summed over writes (ps).
    pub stall_time: Time,
    /// When the PFS last acknowledged drained bytes (ps; 0 if nothing was drained).
    pub drain_done_at: Time,
    /// Bytes handed to the drain (read from SSD, then sent to the PFS).
    pub drain_handed: u64,
    /// Drained bytes the PFS has acknowledged.
    pub drain_acked: u64,
    /// Client write bytes forwarded to the PFS because the BB was full.
    pub spilled: u64,
    /// Bytes written into the BB by stage-in.
    pub staged_in: u64,
    /// Capacity in use (bytes, whole units).
    pub occupied: u64,
}

/// The size of a BB server's table of allocated units ([`BbServer::unit_table_size`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnitTableSize {
    /// Units allocated.
    pub units: usize,
    /// Units kept with their whole record: writes or a drain read in flight, deleted while
    /// busy, or partly dirty. The others are settled and take a 7-byte slot each.
    pub active: usize,
    /// Bytes the table takes on the heap, estimated from its capacities (the allocator's own
    /// overhead not counted).
    pub heap_bytes: usize,
}

/// One allocation's (job's or reservation's) figures on one server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocTotals {
    /// Client write bytes forwarded to the PFS because the server was full.
    pub spilled: u64,
    /// Bytes drained to the PFS (acknowledged).
    pub drained: u64,
    /// When the PFS last acknowledged drained bytes (ps; 0 if none).
    pub drain_done_at: Time,
}

#[derive(Clone, Debug)]
struct Active {
    req: IoRequest,
    pieces_left: u32,
    acked: bool,
    thread: bool,
    status: ReplyStatus,
    stage: Option<u64>,
    /// When the write began waiting for space (ps), while it waits.
    stalled_at: Option<Time>,
    /// Time it waited for space (ps).
    stalled_for: Time,
    /// When its last wait for space ended (ps; 0 if it never waited).
    stall_end: Time,
}

#[derive(Clone, Debug)]
enum SsdOp {
    /// The write pieces of request `active` on one SSD, one per unit in `keys`; `staged` bytes
    /// of them occupy the DRAM staging buffer until the device request completes.
    Write {
        active: u64,
        keys: UnitKeys,
        staged: u64,
    },
    /// `pieces` read pieces of request `active` on one SSD.
    Read { active: u64, pieces: u32 },
    DrainRead {
        key: UnitKey,
        bytes: u64,
        offset: u64,
    },
}

#[derive(Clone, Copy, Debug)]
enum PfsOp {
    Drain { key: UnitKey, bytes: u64 },
    Spill { active: u64 },
    StageRead { stage: u64, offset: u64, len: u64 },
}

#[derive(Clone, Copy, Debug)]
struct StageIn {
    alloc: u32,
    file: u64,
    stream: u32,
    total: u64,
    written: u64,
}

/// One device request being assembled from a host request's pieces on one SSD.
#[derive(Debug)]
struct Group {
    ssd: usize,
    pieces: SmallVec<[SsdPiece; 2]>,
    keys: UnitKeys,
    staged: u64,
}

/// The units of one device request, inline up to two (a request of at most one stripe unit
/// touches one or two; these are built for every transfer, so they stay off the allocator).
type UnitKeys = SmallVec<[UnitKey; 2]>;

/// The device requests a host request is split into, inline up to two.
type Groups = SmallVec<[Group; 2]>;

/// The largest allocation unit (2 GiB): offsets within a unit, up to and including its end,
/// are kept in 32 bits.
pub const MAX_UNIT: u64 = 1 << 31;

/// Marks an SSD without a group in [`BbServer::group_of`].
const NO_GROUP: u32 = u32::MAX;

/// Per-SSD logical-unit allocator: fresh units in order, recycled units first.
#[derive(Clone, Debug)]
struct LbaAlloc {
    fresh: u32,
    limit: u32,
    recycled: Vec<u32>,
    /// Most units in use at once, and when that was first reached (ps).
    peak: (u32, Time),
}

impl LbaAlloc {
    fn available(&self) -> u64 {
        u64::from(self.limit - self.fresh) + self.recycled.len() as u64
    }
    fn take(&mut self, now: Time) -> Option<u32> {
        let lba = if let Some(l) = self.recycled.pop() {
            Some(l)
        } else if self.fresh < self.limit {
            self.fresh += 1;
            Some(self.fresh - 1)
        } else {
            None
        };
        let in_use = self.fresh - self.recycled.len() as u32;
        if in_use > self.peak.0 {
            self.peak = (in_use, now);
        }
        lba
    }
}

/// One burst-buffer server.
#[derive(Clone, Debug)]
pub struct BbServer {
    cfg: BbServerConfig,
    me: Endpoint,
    pfs_targets: Vec<Endpoint>,
    ssds: Vec<Ssd>,
    lbas: Vec<LbaAlloc>,
    ledger: CapacityLedger,
    /// The allocated units: settled ones in 7 bytes each, the others with their whole record.
    units: UnitTable,
    rotation: SsdRotation,
    actives: FxHashMap<u64, Active>,
    next_id: u64,
    threads_busy: u32,
    thread_queue: VecDeque<u64>,
    stalled: VecDeque<u64>,
    staging_used: u64,
    ssd_ops: OpTable<SsdOp>,
    pfs_ops: FxHashMap<u64, PfsOp>,
    /// Per allocation, its units waiting to drain, oldest first, as (file, unit index): 16
    /// bytes each, as every unit written is queued here while `drain_order` is on.
    drain_fifo: BTreeMap<u32, VecDeque<(u64, u64)>>,
    /// Whether settled units are queued in `drain_fifo` (off only while nothing can drain:
    /// [`BbServer::bound_allocations`]).
    drain_order: bool,
    ended: BTreeSet<u32>,
    /// Per allocation: dirty bytes in the BB plus bytes handed to the data mover and not yet
    /// acknowledged by the PFS.
    unstaged: BTreeMap<u32, u64>,
    /// Ended allocations whose stage-out completion has not been reported yet.
    stage_out_watch: BTreeSet<u32>,
    stage_ins: FxHashMap<u64, StageIn>,
    stage_queue: VecDeque<(u64, u64, u64)>,
    mover_outstanding: u32,
    mover_tick: bool,
    pacer: Pacer,
    counters: BbLedger,
    /// Per allocation: bytes spilled, bytes drained (acknowledged), last drain ack (ps).
    by_alloc: BTreeMap<u32, AllocTotals>,
    done: Vec<SsdCompletion>,
    free_units: u64,
    /// Whether a request's pieces on one SSD form one device request.
    batching: bool,
    /// Scratch while assembling device requests: per SSD, its group's index or [`NO_GROUP`].
    group_of: Vec<u32>,
}

/// Iterator over the allocation-unit pieces of a byte range.
struct Pieces {
    unit: u64,
    pos: u64,
    end: u64,
}

impl Iterator for Pieces {
    type Item = (u64, u64, u64);

    fn next(&mut self) -> Option<(u64, u64, u64)> {
        if self.pos >= self.end {
            return None;
        }
        let idx = self.pos / self.unit;
        let off = self.pos % self.unit;
        let n = (self.unit - off).min(self.end - self.pos);
        self.pos += n;
        Some((idx, off, n))
    }
}

/// Iterator over the allocation-unit pieces of a transfer train's operations, each operation
/// (`step` bytes, the last one shorter) cut on its own.
struct OpPieces {
    step: u64,
    /// Start of the next operation.
    next: u64,
    end: u64,
    /// The pieces of the current operation.
    cur: Pieces,
}

impl Iterator for OpPieces {
    type Item = (u64, u64, u64);

    fn next(&mut self) -> Option<(u64, u64, u64)> {
        loop {
            if let Some(p) = self.cur.next() {
                return Some(p);
            }
            if self.next >= self.end || self.step == 0 {
                return None;
            }
            let to = self.next.saturating_add(self.step).min(self.end);
            self.cur.pos = self.next;
            self.cur.end = to;
            self.next = to;
        }
    }
}

/// A unit `key` whose writes or drain may have finished: if none is left, queues it for
/// draining (once) when it holds dirty data and the server keeps a drain queue (`drain_fifo`
/// is `None` when nothing can ever drain: [`BbServer::bound_allocations`]). Returns whether it
/// must be evicted instead (deleted while busy, or drained and clean when `evict_clean`).
fn settle(
    u: &mut Unit,
    key: UnitKey,
    evict_clean: bool,
    drain_fifo: Option<&mut BTreeMap<u32, VecDeque<(u64, u64)>>>,
) -> bool {
    if u.pending_writes > 0 || u.draining > 0 {
        return false;
    }
    if u.flags.has(UnitFlags::DOOMED)
        || (evict_clean && u.dirty.is_empty() && u.flags.has(UnitFlags::DRAINED))
    {
        return true;
    }
    if let Some(fifo) = drain_fifo {
        if !u.dirty.is_empty() && !u.flags.has(UnitFlags::QUEUED) {
            u.flags.set(UnitFlags::QUEUED, true);
            fifo.entry(key.0).or_default().push_back((key.1, key.2));
        }
    }
    false
}

impl BbServer {
    /// A server at network endpoint `me` that drains, spills and stages in through the PFS
    /// I/O nodes `pfs_targets` (file `f` uses `pfs_targets[f mod len]`).
    pub fn new(
        cfg: BbServerConfig,
        me: Endpoint,
        pfs_targets: Vec<Endpoint>,
    ) -> Result<Self, ConfigError<F>> {
        cfg.validate()?;
        if pfs_targets.is_empty() {
            return Err(ConfigError::new(
                F::PfsTargets,
                "none",
                "needs at least one PFS I/O node",
            ));
        }
        let devices = cfg.devices();
        let dev_cfg = cfg.device_config();
        let ssds = (0..devices)
            .map(|d| Ssd::new(d as u16, dev_cfg.clone()).map_err(|e| e.within(F::Ssd)))
            .collect::<Result<Vec<_>, _>>()?;
        // Whole units of every SSD: an array holds the units of its SSDs.
        let per_ssd = cfg.ssd.capacity / cfg.unit;
        let per = (per_ssd * u64::from(cfg.ssds / devices)) as u32;
        let lbas = (0..devices)
            .map(|_| LbaAlloc {
                fresh: 0,
                limit: per,
                recycled: Vec::new(),
                peak: (0, 0),
            })
            .collect();
        Ok(BbServer {
            rotation: SsdRotation::new(devices as usize, cfg.chunk_units),
            ledger: CapacityLedger::new(cfg.capacity()),
            units: UnitTable::new(cfg.unit),
            cfg,
            me,
            pfs_targets,
            ssds,
            lbas,
            actives: FxHashMap::default(),
            next_id: 0,
            threads_busy: 0,
            thread_queue: VecDeque::new(),
            stalled: VecDeque::new(),
            staging_used: 0,
            ssd_ops: OpTable::default(),
            pfs_ops: FxHashMap::default(),
            drain_fifo: BTreeMap::new(),
            drain_order: true,
            ended: BTreeSet::new(),
            unstaged: BTreeMap::new(),
            stage_out_watch: BTreeSet::new(),
            stage_ins: FxHashMap::default(),
            stage_queue: VecDeque::new(),
            mover_outstanding: 0,
            mover_tick: false,
            pacer: Pacer::default(),
            counters: BbLedger::default(),
            by_alloc: BTreeMap::new(),
            done: Vec::new(),
            free_units: u64::from(per) * u64::from(devices),
            batching: true,
            group_of: vec![NO_GROUP; devices as usize],
        })
    }

    /// The configuration.
    pub fn config(&self) -> &BbServerConfig {
        &self.cfg
    }

    /// This server's endpoint.
    pub fn endpoint(&self) -> Endpoint {
        self.me
    }

    /// Batching on (the default): the pieces of one request on one SSD are one device request,
    /// charged one operation per piece. Off: one device request per piece, as a reference (the
    /// two agree exactly whenever no request has two pieces on one SSD, e.g. requests no larger
    /// than `unit`). Change it only while no request is in progress.
    pub fn set_batching(&mut self, on: bool) {
        self.batching = on;
    }

    /// Tells the server that the run will allocate at most `units` allocation units on it
    /// (an upper bound, e.g. the workload's write bytes / `unit` plus two units per write
    /// operation). With [`DrainPolicy::None`] and room for all of them, on the SSDs and
    /// within every reservation, no write can stall, so nothing can ever drain: the server then
    /// keeps no drain queue, which otherwise takes 16 bytes per unit written (more than the
    /// unit table's own state of a settled unit, docs/performance.md). Results are the same
    /// either way.
    /// Returns whether the queue is off. Call it after [`BbServer::reserve`] and before the
    /// first request. Should a write stall all the same (a bound that was too low), the
    /// server rebuilds the queue from its units in key order, not in the order they were
    /// written, and keeps it from then on.
    pub fn bound_allocations(&mut self, units: u64) -> bool {
        let bytes = units.saturating_mul(self.cfg.unit);
        let room = units <= self.free_units
            && self.ledger.used().saturating_add(bytes) <= self.ledger.total()
            && self.ledger.smallest_limit().is_none_or(|l| bytes <= l);
        let never = self.cfg.drain.policy == DrainPolicy::None
            && self.units.is_empty()
            && self.stage_queue.is_empty();
        self.drain_order = !(room && never);
        !self.drain_order
    }

    /// Whether settled units are queued for draining ([`BbServer::bound_allocations`]).
    pub fn keeps_drain_order(&self) -> bool {
        self.drain_order
    }

    /// A write is about to stall: make sure there is a drain queue to make room from. Without
    /// one ([`BbServer::bound_allocations`] was given too low a bound) the idle dirty units
    /// are queued in key order.
    fn keep_drain_order(&mut self) {
        if self.drain_order {
            return;
        }
        self.drain_order = true;
        for key in self.units.keys() {
            let fifo = &mut self.drain_fifo;
            self.units.update(&key, |u| {
                if u.pending_writes > 0 || u.draining > 0 || u.flags.has(UnitFlags::DOOMED) {
                    return;
                }
                if !u.dirty.is_empty() && !u.flags.has(UnitFlags::QUEUED) {
                    u.flags.set(UnitFlags::QUEUED, true);
                    fifo.entry(key.0).or_default().push_back((key.1, key.2));
                }
            });
        }
    }

    /// Whether batching is on ([`BbServer::set_batching`]).
    pub fn batching(&self) -> bool {
        self.batching
    }

    /// The simulated devices, for statistics: the SSDs, or the one array device with
    /// [`SsdModel::Array`].
    pub fn ssds(&self) -> &[Ssd] {
        &self.ssds
    }

    /// Per simulated device (SSD, or the array): the most bytes it held at once and when that
    /// was first reached (ps).
    pub fn device_peaks(&self) -> Vec<(u64, Time)> {
        self.lbas
            .iter()
            .map(|l| (u64::from(l.peak.0) * self.cfg.unit, l.peak.1))
            .collect()
    }

    /// Capacity accounting.
    pub fn capacity(&self) -> &CapacityLedger {
        &self.ledger
    }

    /// Byte counters.
    pub fn ledger(&self) -> BbLedger {
        let mut l = self.counters;
        l.occupied = self.ledger.used();
        l
    }

    /// Per allocation (job or reservation) that spilled or drained: its totals.
    pub fn alloc_totals(&self) -> &BTreeMap<u32, AllocTotals> {
        &self.by_alloc
    }

    /// The writes waiting for space, oldest first: (allocation, bytes).
    pub fn waiting_writes(&self) -> Vec<(u32, u64)> {
        self.stalled
            .iter()
            .filter_map(|id| self.actives.get(id))
            .map(|a| (a.req.alloc, a.req.len))
            .collect()
    }

    /// Requests accepted and not yet finished (including stalled ones).
    pub fn active_requests(&self) -> usize {
        self.actives.len()
    }

    /// The size of the table of allocated units.
    pub fn unit_table_size(&self) -> UnitTableSize {
        UnitTableSize {
            units: self.units.len(),
            active: self.units.active_len(),
            heap_bytes: self.units.heap_bytes(),
        }
    }

    /// Grants allocation `alloc` at most `bytes` on this server (job or DataWarp reservation).
    pub fn reserve(&mut self, alloc: u32, bytes: u64) -> Result<(), ConfigError<Reservation>> {
        self.ledger.reserve(alloc, bytes)
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The PFS I/O node for bytes at server-local `offset` of `file`: files, allocation units
    /// and servers are spread round-robin over the I/O nodes, so one large file's drain or
    /// stage-in does not funnel through a single I/O node.
    fn target(&self, file: u64, offset: u64) -> Endpoint {
        let n = self.pfs_targets.len() as u64;
        let k = file
            .wrapping_add(u64::from(self.me.0))
            .wrapping_add(offset / self.cfg.unit.max(1));
        self.pfs_targets[(k % n) as usize]
    }

    /// Handles a storage message delivered to this server by the network.
    pub fn on_message<E: From<StorageEvent>>(
        &mut self,
        msg: StorageMsg,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        match msg {
            StorageMsg::Request(req) => self.on_request(req, ctx, out),
            StorageMsg::Reply(rep) => self.on_pfs_reply(rep, ctx, out),
        }
    }

    fn on_request<E: From<StorageEvent>>(
        &mut self,
        req: IoRequest,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        if req.op == IoOp::Write {
            self.counters.received += req.len;
        }
        let id = self.fresh_id();
        self.actives.insert(
            id,
            Active {
                req,
                pieces_left: 0,
                acked: false,
                thread: false,
                status: ReplyStatus::Done,
                stage: None,
                stalled_at: None,
                stalled_for: 0,
                stall_end: 0,
            },
        );
        if self.threads_busy < self.cfg.threads {
            self.start(id, ctx, out);
        } else {
            self.thread_queue.push_back(id);
        }
    }

    fn start<E: From<StorageEvent>>(
        &mut self,
        id: u64,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        self.threads_busy += 1;
        if let Some(a) = self.actives.get_mut(&id) {
            a.thread = true;
        }
        if self.cfg.request_overhead > 0 {
            let ops = self.actives.get(&id).map_or(1, |a| a.req.ops.max(1));
            let ev = StorageEvent::Bb(BbEvent(BbTimer::Overhead(id)));
            let busy = self.cfg.request_overhead.saturating_mul(u64::from(ops));
            ctx.send_self(busy, E::from(ev));
        } else {
            self.run(id, ctx, out);
        }
    }

    fn run<E: From<StorageEvent>>(
        &mut self,
        id: u64,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        let Some(a) = self.actives.get(&id) else {
            return;
        };
        match a.req.op {
            IoOp::Write => self.try_write(id, ctx, out),
            IoOp::Read => self.read(id, ctx, out),
        }
    }

    fn release_thread<E: From<StorageEvent>>(
        &mut self,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        self.threads_busy = self.threads_busy.saturating_sub(1);
        if let Some(next) = self.thread_queue.pop_front() {
            self.start(next, ctx, out);
        }
    }

    /// The unit pieces of request `req`'s operations in order, each operation cut at unit
    /// boundaries on its own: (unit index, offset in unit, length).
    fn op_pieces(&self, req: &IoRequest) -> OpPieces {
        let step = if req.ops <= 1 { req.len } else { req.op_len() };
        OpPieces {
            step,
            next: req.offset,
            end: req.offset.saturating_add(req.len),
            cur: self.pieces(req.offset, 0),
        }
    }

    /// The unit pieces of `[offset, offset + len)`: (unit index, offset in unit, length).
    fn pieces(&self, offset: u64, len: u64) -> Pieces {
        Pieces {
            unit: self.cfg.unit,
            pos: offset,
            end: offset.saturating_add(len),
        }
    }

    /// The index in `groups` of the device request collecting pieces for SSD `ssd`: the
    /// existing one if batching, else a new one with a fresh tag (so tags are taken in the
    /// order of each SSD's first piece, exactly as one request per piece would take them).
    fn group_for(&mut self, groups: &mut Groups, ssd: usize) -> usize {
        if self.batching {
            if let Some(&g) = self.group_of.get(ssd) {
                if g != NO_GROUP {
                    return g as usize;
                }
            }
        }
        // A device request consumes a request id, as it did when ids were its tags: the ids
        // of later requests (and so the PFS requests' ids) keep their numbering.
        self.fresh_id();
        groups.push(Group {
            ssd,
            pieces: SmallVec::new(),
            keys: SmallVec::new(),
            staged: 0,
        });
        let g = groups.len() - 1;
        if self.batching {
            if let Some(slot) = self.group_of.get_mut(ssd) {
                *slot = g as u32;
            }
        }
        g
    }

    /// Hands host request `req`'s assembled device requests to their SSDs as `op`, each
    /// tagged with the bookkeeping `op_of` makes for it, and forgets the groups.
    fn submit_groups<E: From<StorageEvent>>(
        &mut self,
        mut groups: Groups,
        op: IoOp,
        req: &IoRequest,
        ctx: &mut Ctx<'_, E>,
        mut op_of: impl FnMut(&mut Group) -> SsdOp,
    ) {
        for g in &mut groups {
            if let Some(slot) = self.group_of.get_mut(g.ssd) {
                *slot = NO_GROUP;
            }
            let tag = self.ssd_ops.insert(op_of(g));
            let batch = SsdBatch {
                tag,
                op,
                stream: req.stream,
                pieces: &g.pieces,
                serial: req.ops > 1,
            };
            self.ssds[g.ssd].submit_batch(batch, ctx);
        }
    }

    fn new_units(&self, req: &IoRequest) -> u64 {
        self.pieces(req.offset, req.len)
            .filter(|(i, _, _)| !self.units.contains_key(&(req.alloc, req.file, *i)))
            .count() as u64
    }

    fn fits(&self, req: &IoRequest) -> bool {
        let n = self.new_units(req);
        n <= self.free_units && self.ledger.fits(req.alloc, n * self.cfg.unit)
    }

    fn try_write<E: From<StorageEvent>>(
        &mut self,
        id: u64,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        let Some(a) = self.actives.get(&id) else {
            return;
        };
        let req = a.req.clone();
        if self.stalled.is_empty() && self.fits(&req) {
            self.commit_write(id, ctx);
            return;
        }
        if self.cfg.full_policy == FullPolicy::Spill && req.kind == RequestKind::Client {
            let op = self.fresh_id();
            self.pfs_ops.insert(op, PfsOp::Spill { active: id });
            self.counters.spilled += req.len;
            self.by_alloc.entry(req.alloc).or_default().spilled += req.len;
            let fwd = IoRequest {
                id: op,
                origin: self.me,
                kind: RequestKind::Spill,
                hops: 0,
                ..req.clone()
            };
            out.push(BbAction::Send {
                to: self.target(req.file, req.offset),
                msg: StorageMsg::Request(fwd),
            });
            if let Some(a) = self.actives.get_mut(&id) {
                a.thread = false;
                a.status = ReplyStatus::Spilled;
            }
            self.release_thread(ctx, out);
        } else {
            self.stall(id, req.len, ctx.now());
            self.pump(ctx, out);
        }
    }

    /// Write `id` of `len` bytes waits for space from `now` (ps).
    fn stall(&mut self, id: u64, len: u64, now: Time) {
        self.counters.stalled += len;
        self.counters.stalls += 1;
        self.keep_drain_order();
        self.stalled.push_back(id);
        if let Some(a) = self.actives.get_mut(&id) {
            a.stalled_at = Some(now);
        }
    }

    fn retry_stalled<E: From<StorageEvent>>(&mut self, ctx: &mut Ctx<'_, E>) {
        while let Some(&id) = self.stalled.front() {
            let Some(a) = self.actives.get(&id) else {
                self.stalled.pop_front();
                continue;
            };
            if !self.fits(&a.req) {
                break;
            }
            self.counters.stalled -= a.req.len;
            self.stalled.pop_front();
            let now = ctx.now();
            if let Some(a) = self.actives.get_mut(&id) {
                let waited = a.stalled_at.take().map_or(0, |t| now - t);
                a.stalled_for += waited;
                a.stall_end = now;
                self.counters.stall_time += waited;
            }
            self.commit_write(id, ctx);
        }
    }

    fn commit_write<E: From<StorageEvent>>(&mut self, id: u64, ctx: &mut Ctx<'_, E>) {
        let Some(a) = self.actives.get(&id) else {
            return;
        };
        let req = a.req.clone();
        let clean = req.kind == RequestKind::StageIn;
        let staged = match &self.cfg.staging {
            Some(s) if !clean && self.staging_used + req.len <= s.capacity => {
                self.staging_used += req.len;
                let ev = StorageEvent::Bb(BbEvent(BbTimer::Staged(id)));
                ctx.send_self(transfer_ps(req.len, s.bandwidth), E::from(ev));
                true
            }
            _ => false,
        };
        let n = self.ssds.len() as u64;
        let now = ctx.now();
        let mut count = 0;
        let mut groups = Groups::new();
        for (idx, off, len) in self.op_pieces(&req) {
            count += 1;
            let key = (req.alloc, req.file, idx);
            let pref = self.rotation.home(req.alloc, req.file, idx);
            let (lbas, free_units, ledger) =
                (&mut self.lbas, &mut self.free_units, &mut self.ledger);
            let unit_bytes = self.cfg.unit;
            // A unit written for the first time gets an LBA on its home SSD, or the next one
            // with room.
            let unit = self.units.get_or_insert_with(key, || {
                let ssd = (0..n as usize)
                    .map(|k| (pref + k) % n as usize)
                    .find(|&d| lbas[d].available() > 0)
                    .unwrap_or(pref);
                let lba = lbas[ssd].take(now).unwrap_or(0);
                *free_units = free_units.saturating_sub(1);
                ledger.take(req.alloc, unit_bytes, now);
                Unit {
                    dirty: Intervals::default(),
                    lba,
                    pending_writes: 0,
                    draining: 0,
                    ssd: ssd as u16,
                    flags: UnitFlags::default(),
                }
            });
            if clean {
                self.counters.staged_in += len;
            } else {
                let overlap = unit.dirty.insert(off, off + len);
                self.counters.superseded += overlap;
                self.counters.in_bb += len - overlap;
                *self.unstaged.entry(req.alloc).or_insert(0) += len - overlap;
            }
            unit.pending_writes += 1;
            let (ssd, lba) = (unit.ssd, unit.lba);
            let g = self.group_for(&mut groups, usize::from(ssd));
            let group = &mut groups[g];
            group.pieces.push(SsdPiece {
                offset: u64::from(lba) * self.cfg.unit + off,
                len,
            });
            group.keys.push(key);
            if staged {
                group.staged += len;
            }
        }
        self.submit_groups(groups, IoOp::Write, &req, ctx, |g| SsdOp::Write {
            active: id,
            keys: std::mem::take(&mut g.keys),
            staged: g.staged,
        });
        if let Some(a) = self.actives.get_mut(&id) {
            a.pieces_left = count;
        }
    }

    fn read<E: From<StorageEvent>>(
        &mut self,
        id: u64,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        let Some(a) = self.actives.get(&id) else {
            return;
        };
        let req = a.req.clone();
        if req.len == 0 {
            self.finish(id, ctx, out);
            return;
        }
        let mut missing = false;
        let mut count = 0;
        let mut groups = Groups::new();
        for (idx, off, len) in self.op_pieces(&req) {
            count += 1;
            let (ssd, offset) = match self.units.place(&(req.alloc, req.file, idx)) {
                Some((ssd, lba)) => (usize::from(ssd), u64::from(lba) * self.cfg.unit + off),
                None => {
                    missing = true;
                    (self.rotation.peek(req.alloc, req.file, idx), off)
                }
            };
            let g = self.group_for(&mut groups, ssd);
            groups[g].pieces.push(SsdPiece { offset, len });
        }
        self.submit_groups(groups, IoOp::Read, &req, ctx, |g| SsdOp::Read {
            active: id,
            pieces: u32::try_from(g.pieces.len()).unwrap_or(u32::MAX),
        });
        if let Some(a) = self.actives.get_mut(&id) {
            a.pieces_left = count;
            if missing {
                a.status = ReplyStatus::Missing;
            }
        }
    }

    /// Acknowledges request `id` (reply, thread) if it has not been, and forgets it once its
    /// SSD work is done too.
    fn finish<E: From<StorageEvent>>(
        &mut self,
        id: u64,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        let Some(a) = self.actives.get_mut(&id) else {
            return;
        };
        let first = !a.acked;
        a.acked = true;
        let thread = std::mem::replace(&mut a.thread, false);
        let done = a.pieces_left == 0;
        if first {
            let r = &a.req;
            match a.stage {
                Some(stage) => {
                    if let Some(s) = self.stage_ins.get_mut(&stage) {
                        s.written += r.len;
                        if s.written >= s.total {
                            let s = *s;
                            self.stage_ins.remove(&stage);
                            out.push(BbAction::StageInDone {
                                stage,
                                alloc: s.alloc,
                                file: s.file,
                                bytes: s.total,
                            });
                        }
                    }
                }
                None => out.push(BbAction::Send {
                    to: r.origin,
                    msg: StorageMsg::Reply(IoReply {
                        id: r.id,
                        op: r.op,
                        kind: r.kind,
                        len: r.len,
                        server: self.me,
                        status: a.status,
                        hops: r.hops,
                        stalled: a.stalled_for,
                        stall_end: a.stall_end,
                    }),
                }),
            }
        }
        if done {
            self.actives.remove(&id);
        }
        if thread {
            self.release_thread(ctx, out);
        }
    }

    /// Handles a [`StorageEvent`] addressed to this server (its own timers and its SSDs').
    pub fn handle<E: From<StorageEvent>>(
        &mut self,
        ev: StorageEvent,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        match ev {
            StorageEvent::Ssd(se) => {
                let Some(ssd) = self.ssds.get_mut(usize::from(se.dev())) else {
                    return;
                };
                let mut done = std::mem::take(&mut self.done);
                ssd.handle(se, ctx, &mut done);
                for c in done.drain(..) {
                    self.on_ssd_done(c, ctx, out);
                }
                self.done = done;
            }
            StorageEvent::Bb(BbEvent(t)) => match t {
                BbTimer::Overhead(id) => self.run(id, ctx, out),
                BbTimer::Staged(id) => self.finish(id, ctx, out),
                BbTimer::Mover => {
                    self.mover_tick = false;
                    self.pump(ctx, out);
                }
            },
            StorageEvent::Pfs(_) => {}
        }
    }

    fn on_ssd_done<E: From<StorageEvent>>(
        &mut self,
        c: SsdCompletion,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        let Some(op) = self.ssd_ops.remove(c.tag) else {
            return;
        };
        match op {
            SsdOp::Write {
                active,
                keys,
                staged,
            } => {
                self.staging_used -= staged;
                for &key in &keys {
                    let evict_clean = self.cfg.drain.evict;
                    let fifo = self.drain_order.then_some(&mut self.drain_fifo);
                    let evict = self.units.update(&key, |u| {
                        u.pending_writes -= 1;
                        settle(u, key, evict_clean, fifo)
                    });
                    if evict == Some(true) {
                        self.evict(key, ctx);
                    }
                }
                let n = u32::try_from(keys.len()).unwrap_or(u32::MAX);
                self.pieces_done(active, n, ctx, out);
                self.pump(ctx, out);
            }
            SsdOp::Read { active, pieces } => self.pieces_done(active, pieces, ctx, out),
            SsdOp::DrainRead { key, bytes, offset } => {
                let op = self.fresh_id();
                self.pfs_ops.insert(op, PfsOp::Drain { key, bytes });
                let req = IoRequest {
                    id: op,
                    origin: self.me,
                    op: IoOp::Write,
                    kind: RequestKind::Drain,
                    alloc: key.0,
                    stream: 0,
                    file: key.1,
                    offset,
                    len: bytes,
                    ops: 1,
                    hops: 0,
                };
                out.push(BbAction::Send {
                    to: self.target(key.1, offset),
                    msg: StorageMsg::Request(req),
                });
            }
        }
    }

    /// `n` pieces of request `id` finished on an SSD.
    fn pieces_done<E: From<StorageEvent>>(
        &mut self,
        id: u64,
        n: u32,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        let Some(a) = self.actives.get_mut(&id) else {
            return;
        };
        a.pieces_left = a.pieces_left.saturating_sub(n);
        if a.pieces_left == 0 {
            if a.acked {
                self.actives.remove(&id);
            } else {
                self.finish(id, ctx, out);
            }
        }
    }

    /// After a unit's write or drain finished: queue it for draining, or evict it.
    fn unit_settled<E: From<StorageEvent>>(&mut self, key: UnitKey, ctx: &mut Ctx<'_, E>) {
        let evict_clean = self.cfg.drain.evict;
        let fifo = self.drain_order.then_some(&mut self.drain_fifo);
        let evict = self
            .units
            .update(&key, |u| settle(u, key, evict_clean, fifo));
        if evict == Some(true) {
            self.evict(key, ctx);
        }
    }

    fn evict<E: From<StorageEvent>>(&mut self, key: UnitKey, ctx: &mut Ctx<'_, E>) {
        let Some(u) = self.units.remove(&key) else {
            return;
        };
        let unit = self.cfg.unit;
        self.ssds[usize::from(u.ssd)].trim(u64::from(u.lba) * unit, unit);
        self.lbas[usize::from(u.ssd)].recycled.push(u.lba);
        self.free_units += 1;
        self.ledger.release(key.0, unit, ctx.now());
        self.retry_stalled(ctx);
    }

    fn on_pfs_reply<E: From<StorageEvent>>(
        &mut self,
        rep: IoReply,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        let Some(op) = self.pfs_ops.remove(&rep.id) else {
            return;
        };
        match op {
            PfsOp::Drain { key, bytes } => {
                self.mover_outstanding -= 1;
                self.counters.drain_acked += bytes;
                self.counters.drain_done_at = ctx.now();
                let a = self.by_alloc.entry(key.0).or_default();
                a.drained += bytes;
                a.drain_done_at = ctx.now();
                if let Some(u) = self.units.get_mut(&key) {
                    u.draining -= 1;
                    u.flags.set(UnitFlags::DRAINED, true);
                }
                self.staged_out(key.0, bytes, out);
                self.unit_settled(key, ctx);
                self.pump(ctx, out);
            }
            PfsOp::Spill { active } => self.finish(active, ctx, out),
            PfsOp::StageRead { stage, offset, len } => {
                self.mover_outstanding -= 1;
                if let Some(s) = self.stage_ins.get(&stage).copied() {
                    let id = self.fresh_id();
                    let req = IoRequest {
                        id,
                        origin: self.me,
                        op: IoOp::Write,
                        kind: RequestKind::StageIn,
                        alloc: s.alloc,
                        stream: s.stream,
                        file: s.file,
                        offset,
                        len,
                        ops: 1,
                        hops: 0,
                    };
                    self.actives.insert(
                        id,
                        Active {
                            req,
                            pieces_left: 0,
                            acked: false,
                            thread: false,
                            status: ReplyStatus::Done,
                            stage: Some(stage),
                            stalled_at: None,
                            stalled_for: 0,
                            stall_end: 0,
                        },
                    );
                    if self.stalled.is_empty() && self.fits(&self.actives[&id].req) {
                        self.commit_write(id, ctx);
                    } else {
                        self.stall(id, len, ctx.now());
                    }
                }
                self.pump(ctx, out);
            }
        }
    }

    /// Whether any allocation could be eligible for draining now.
    fn may_drain(&self) -> bool {
        if !self.stalled.is_empty() && self.cfg.drain.policy != DrainPolicy::None {
            return true;
        }
        match self.cfg.drain.policy {
            DrainPolicy::None => false,
            DrainPolicy::Immediate => true,
            DrainPolicy::JobEnd => !self.ended.is_empty(),
            DrainPolicy::Threshold => self.ledger.fill() > self.cfg.drain.threshold,
        }
    }

    fn eligible(&self, alloc: u32) -> bool {
        if !self.stalled.is_empty() && self.cfg.drain.policy != DrainPolicy::None {
            return true;
        }
        match self.cfg.drain.policy {
            DrainPolicy::None => false,
            DrainPolicy::Immediate => true,
            DrainPolicy::JobEnd => self.ended.contains(&alloc),
            DrainPolicy::Threshold => self.ledger.fill() > self.cfg.drain.threshold,
        }
    }

    /// Starts data-mover transfers (stage-in first, then drain) within the bandwidth and
    /// outstanding limits.
    fn pump<E: From<StorageEvent>>(&mut self, ctx: &mut Ctx<'_, E>, out: &mut Vec<BbAction>) {
        if self.stage_queue.is_empty() && !self.may_drain() {
            return;
        }
        let now = ctx.now();
        let bw = self.cfg.drain.bandwidth;
        while self.mover_outstanding < self.cfg.drain.max_outstanding {
            let has_stage = !self.stage_queue.is_empty();
            let key = if has_stage {
                None
            } else {
                self.next_drain_unit()
            };
            if !has_stage && key.is_none() {
                return;
            }
            if now < self.pacer.ready_at() {
                if let Some(k) = key {
                    self.units
                        .update(&k, |u| u.flags.set(UnitFlags::QUEUED, true));
                    self.drain_fifo
                        .entry(k.0)
                        .or_default()
                        .push_front((k.1, k.2));
                }
                if !self.mover_tick {
                    self.mover_tick = true;
                    let ev = StorageEvent::Bb(BbEvent(BbTimer::Mover));
                    ctx.send_self(self.pacer.ready_at() - now, E::from(ev));
                }
                return;
            }
            if has_stage {
                let Some((stage, offset, len)) = self.stage_queue.pop_front() else {
                    return;
                };
                let Some(s) = self.stage_ins.get(&stage).copied() else {
                    continue;
                };
                self.pacer.start(now, len, bw);
                self.mover_outstanding += 1;
                let op = self.fresh_id();
                self.pfs_ops
                    .insert(op, PfsOp::StageRead { stage, offset, len });
                let req = IoRequest {
                    id: op,
                    origin: self.me,
                    op: IoOp::Read,
                    kind: RequestKind::StageIn,
                    alloc: s.alloc,
                    stream: s.stream,
                    file: s.file,
                    offset,
                    len,
                    ops: 1,
                    hops: 0,
                };
                out.push(BbAction::Send {
                    to: self.target(s.file, offset),
                    msg: StorageMsg::Request(req),
                });
                continue;
            }
            let Some(k) = key else { return };
            let unit_bytes = self.cfg.unit;
            let Some(u) = self.units.get_mut(&k) else {
                continue;
            };
            let bytes = u.dirty.len();
            let offset = k.2 * unit_bytes + u.dirty.first();
            u.dirty.clear();
            u.draining += 1;
            let (ssd, lba) = (u.ssd, u.lba);
            self.counters.in_bb -= bytes;
            self.counters.drain_handed += bytes;
            self.pacer.start(now, bytes, bw);
            self.mover_outstanding += 1;
            self.fresh_id(); // as when the id was the tag (see `group_for`)
            let tag = self.ssd_ops.insert(SsdOp::DrainRead {
                key: k,
                bytes,
                offset,
            });
            let r = SsdRequest {
                tag,
                op: IoOp::Read,
                offset: u64::from(lba) * unit_bytes + (offset - k.2 * unit_bytes),
                len: bytes,
                stream: 0,
            };
            self.ssds[usize::from(ssd)].submit(r, ctx);
        }
    }

    /// Pops the next unit to drain: the oldest queued unit of the first eligible allocation.
    fn next_drain_unit(&mut self) -> Option<UnitKey> {
        // Allocations in order, each with a non-empty queue (popping only empties queues, so
        // walking on from the last one visited sees what a list made up front would).
        let mut from = Some(0u32);
        while let Some(start) = from {
            let alloc = self
                .drain_fifo
                .range(start..)
                .find(|(_, q)| !q.is_empty())
                .map(|(&a, _)| a)?;
            from = alloc.checked_add(1);
            if !self.eligible(alloc) {
                continue;
            }
            while let Some((file, idx)) = self
                .drain_fifo
                .get_mut(&alloc)
                .and_then(VecDeque::pop_front)
            {
                let k = (alloc, file, idx);
                let idle_dirty = self.units.update(&k, |u| {
                    u.flags.set(UnitFlags::QUEUED, false);
                    !u.dirty.is_empty() && u.pending_writes == 0
                });
                if idle_dirty == Some(true) {
                    return Some(k);
                }
            }
        }
        None
    }

    /// The job or reservation `alloc` ended: with [`DrainPolicy::JobEnd`] its dirty data
    /// becomes eligible for stage-out.
    pub fn job_end<E: From<StorageEvent>>(
        &mut self,
        alloc: u32,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        self.ended.insert(alloc);
        self.stage_out_watch.insert(alloc);
        if self.cfg.drain.policy == DrainPolicy::None {
            self.stage_out_watch.remove(&alloc);
            out.push(BbAction::StageOutDone {
                alloc,
                staged: false,
            });
        } else {
            self.staged_out(alloc, 0, out);
        }
        self.pump(ctx, out);
    }

    /// `bytes` of `alloc` left the BB for good (drained or deleted); reports the allocation's
    /// stage-out as complete when it has ended and nothing of it is left to stage out.
    fn staged_out(&mut self, alloc: u32, bytes: u64, out: &mut Vec<BbAction>) {
        let left = self.unstaged.entry(alloc).or_insert(0);
        *left = left.saturating_sub(bytes);
        if *left == 0 && self.stage_out_watch.remove(&alloc) {
            out.push(BbAction::StageOutDone {
                alloc,
                staged: bytes > 0,
            });
        }
    }

    /// Bytes of `alloc` still to be staged out (dirty in the BB or in flight to the PFS).
    pub fn unstaged(&self, alloc: u32) -> u64 {
        self.unstaged.get(&alloc).copied().unwrap_or(0)
    }

    /// Deletes `file` of `alloc` from the BB: its dirty bytes are dropped (counted in
    /// [`BbLedger::deleted`]), its units trimmed on the SSDs and their capacity released (units
    /// with transfers in flight are released when those finish).
    pub fn delete_file<E: From<StorageEvent>>(
        &mut self,
        alloc: u32,
        file: u64,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) {
        let keys = self.units.file_keys(alloc, file);
        self.rotation.forget(alloc, file);
        for k in keys {
            if let Some(u) = self.units.get_mut(&k) {
                let d = u.dirty.len();
                u.dirty.clear();
                u.flags.set(UnitFlags::DOOMED, true);
                self.counters.deleted += d;
                self.counters.in_bb -= d;
                self.staged_out(alloc, d, out);
            }
            self.unit_settled(k, ctx);
        }
    }

    /// Stages `bytes` of `file` from the PFS into the BB for allocation `alloc` (before its job
    /// starts), through the data mover. Returns the stage-in id that
    /// [`BbAction::StageInDone`] reports. Staged-in data is clean: it is never drained back.
    pub fn stage_in<E: From<StorageEvent>>(
        &mut self,
        alloc: u32,
        file: u64,
        bytes: u64,
        stream: u32,
        ctx: &mut Ctx<'_, E>,
        out: &mut Vec<BbAction>,
    ) -> u64 {
        let stage = self.fresh_id();
        if bytes == 0 {
            out.push(BbAction::StageInDone {
                stage,
                alloc,
                file,
                bytes,
            });
            return stage;
        }
        self.stage_ins.insert(
            stage,
            StageIn {
                alloc,
                file,
                stream,
                total: bytes,
                written: 0,
            },
        );
        let mut off = 0;
        while off < bytes {
            let len = self.cfg.unit.min(bytes - off);
            self.stage_queue.push_back((stage, off, len));
            off += len;
        }
        self.pump(ctx, out);
        stage
    }
}
