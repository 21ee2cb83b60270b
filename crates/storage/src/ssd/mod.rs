//! The SSD device model: timing (bandwidth, per-operation overhead, access latency, internal
//! parallelism, optional per-size rate table) on top of an optional flash translation layer
//! whose garbage-collection copies consume write bandwidth.
//!
//! An [`Ssd`] is a component embedded in a host LP (a compute node for a node-local SSD, a BB
//! server). The host calls [`Ssd::submit`] (one operation) or [`Ssd::submit_batch`] (several
//! stripe-unit pieces of one host request served as one device request) and routes the
//! device's self-events ([`crate::StorageEvent::Ssd`]) back to [`Ssd::handle`], which returns
//! completions.
//!
//! Service of one request: it waits (FIFO) for one of `channels` service slots, spends a setup
//! phase of `op_overhead` (+ `access_latency` if it does not start where the previous request
//! ended) holding the slot but no bandwidth, then transfers: the device's time is shared
//! equally among all requests transferring (processor sharing). A request needs
//! `bytes / bandwidth` of exclusive device time plus `gc_copies · page_size / write_bandwidth +
//! erases · erase_time` for the collection it triggered. A lone request on an idle device
//! therefore takes exactly `op_overhead [+ access_latency] + ceil(bytes · 10¹² / bandwidth)` ps.
//!
//! A batch of `k` pieces is charged what its pieces would have been charged as `k` requests
//! submitted back to back: one `op_overhead` per piece, `access_latency` for every piece that
//! does not start where the previous one ended, `ceil(len · 10¹² / bw(op, len))` per piece, the
//! FTL writes of every piece at its own address. It waits FIFO like any request and, when it
//! starts, takes `w = min(k, channels, free slots)` slots, spends `ceil(k/w) · op_overhead +
//! ceil(seeks/w) · access_latency` in setup (its pieces' setups `w` at a time) and transfers
//! with weight `w` (the share `w` pieces would have). Slots freed later go first to batches in
//! service that hold fewer than `min(k, channels)` (oldest first, as the remaining pieces of an
//! earlier request would take them before a later request's), raising their weight without
//! further setup. A lone batch of equal pieces on an idle device therefore finishes exactly
//! when its pieces would have: `ceil(k/c) · op_overhead + Σ ceil(len · 10¹² / bw)` with `c`
//! channels (`k · op_overhead + ...` with one channel). A plain request is a batch of one.
//!
//! A **serial** batch ([`SsdBatch::serial`]: a transfer train, the consecutive operations of one
//! rank that waits for each before issuing the next) is charged the same but never holds more
//! than one slot: its `k` setups and transfers run one at a time, `k · op_overhead + Σ D` on an
//! idle device whatever the channels, and it counts as one operation in the queue length, as
//! the rank's one outstanding operation would.

pub mod ftl;
mod gc;
pub mod preset;
pub mod stream;
pub mod timing;

pub use ftl::{Ftl, FtlConfig, FtlCounters, FtlGeometry, GcWork, Precondition};
pub use stream::StreamMode;

use crate::error::{positive, ConfigError, SizeBinField, SsdField};
use crate::event::StorageEvent;
use crate::request::IoOp;
use crate::stats::DeviceStats;
use crate::units::transfer_ps;
use bbsim_engine::{Ctx, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use timing::Sharing;

/// Bandwidths for requests up to a size, from a measured device table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeBin {
    /// Largest request size (bytes) this bin applies to.
    pub max_size: u64,
    /// Read bandwidth for such requests (bytes/s).
    pub read_bandwidth: u64,
    /// Write bandwidth for such requests (bytes/s).
    pub write_bandwidth: u64,
}

/// SSD parameters. Sizes in bytes, bandwidths in bytes per second, times in picoseconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SsdConfig {
    /// User-visible capacity (bytes).
    pub capacity: u64,
    /// Sequential read bandwidth (bytes/s).
    pub read_bandwidth: u64,
    /// Sequential write bandwidth (bytes/s); also the rate of GC copies.
    pub write_bandwidth: u64,
    /// Fixed cost of every request (ps), holding a service slot but no bandwidth.
    pub op_overhead: Time,
    /// Extra setup time (ps) when a request does not start at the byte where the previous
    /// request submitted to the device ended (seek-like penalty).
    pub access_latency: Time,
    /// Requests served concurrently (internal parallelism); they share the bandwidth.
    pub channels: u32,
    /// Optional per-request-size bandwidths, ascending `max_size`; requests larger than the
    /// last bin use `read_bandwidth` / `write_bandwidth`.
    pub size_bins: Vec<SizeBin>,
    /// Flash translation layer; `None` models an ideal device with write amplification 1.
    pub ftl: Option<FtlConfig>,
    /// Interval of the queue-length trace (ps); 0 disables it.
    pub queue_trace_interval: Time,
    /// Drives pooled in this device: 1 for one SSD; `N` for a BB server's SSD array
    /// ([`crate::bb_server::SsdModel::Array`], whose bandwidths are `N` drives'). Transferring
    /// requests share the bandwidth by their service slots as if at least `drives` slots were
    /// busy, so fewer than `N` units in transfer get one drive's bandwidth each, as they would
    /// on `N` separate drives, instead of the whole array's.
    #[serde(default = "one_drive")]
    pub drives: u32,
}

fn one_drive() -> u32 {
    1
}

impl Default for SsdConfig {
    /// The node-local SSD of the reference study: 1,400 MB/s write, 2,300 MB/s read, 1.6 TB,
    /// no overhead, 4 channels, no FTL.
    fn default() -> Self {
        SsdConfig {
            capacity: 1_600_000_000_000,
            read_bandwidth: 2_300_000_000,
            write_bandwidth: 1_400_000_000,
            op_overhead: 0,
            access_latency: 0,
            channels: 4,
            size_bins: Vec::new(),
            ftl: None,
            queue_trace_interval: 0,
            drives: 1,
        }
    }
}

impl SsdConfig {
    /// Checks every setting.
    pub fn validate(&self) -> Result<(), ConfigError<SsdField>> {
        positive(SsdField::Capacity, self.capacity)?;
        positive(SsdField::ReadBandwidth, self.read_bandwidth)?;
        positive(SsdField::WriteBandwidth, self.write_bandwidth)?;
        positive(SsdField::Channels, u64::from(self.channels))?;
        positive(SsdField::Drives, u64::from(self.drives))?;
        let mut prev = 0;
        for (i, b) in self.size_bins.iter().enumerate() {
            let key = |k: SizeBinField| SsdField::SizeBin(i, k);
            positive(key(SizeBinField::MaxSize), b.max_size)?;
            positive(key(SizeBinField::ReadBandwidth), b.read_bandwidth)?;
            positive(key(SizeBinField::WriteBandwidth), b.write_bandwidth)?;
            if b.max_size <= prev {
                return Err(ConfigError::new(
                    key(SizeBinField::MaxSize),
                    b.max_size,
                    format!("must be larger than the previous bin's max_size ({prev})"),
                ));
            }
            prev = b.max_size;
        }
        if let Some(f) = &self.ftl {
            f.geometry(self.capacity)?;
        }
        Ok(())
    }

    /// Bandwidth (bytes/s) for a request of `len` bytes.
    pub fn bandwidth(&self, op: IoOp, len: u64) -> u64 {
        let bin = self.size_bins.iter().find(|b| len <= b.max_size);
        match (op, bin) {
            (IoOp::Read, Some(b)) => b.read_bandwidth,
            (IoOp::Write, Some(b)) => b.write_bandwidth,
            (IoOp::Read, None) => self.read_bandwidth,
            (IoOp::Write, None) => self.write_bandwidth,
        }
    }
}

/// A request to one SSD: one operation (one `op_overhead`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsdRequest {
    /// Caller's tag, returned in the completion.
    pub tag: u64,
    /// Read or write.
    pub op: IoOp,
    /// Byte offset in the device's logical space.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
    /// Stream key for multi-stream placement (user or job id); ignored by legacy placement.
    pub stream: u32,
}

/// One piece of a batched request ([`SsdBatch`]): an extent of the device's logical space
/// that is charged as one operation (one `op_overhead`, its own transfer time and FTL write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsdPiece {
    /// Byte offset in the device's logical space.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
}

/// Several operations of one host request on one SSD (a BB server's stripe-unit pieces),
/// submitted as one device request with [`Ssd::submit_batch`]: charged one operation per piece
/// (see the module documentation), completed once when the last byte is transferred.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsdBatch<'a> {
    /// Caller's tag, returned in the completion.
    pub tag: u64,
    /// Read or write (all pieces).
    pub op: IoOp,
    /// Stream key for multi-stream placement (user or job id); ignored by legacy placement.
    pub stream: u32,
    /// The pieces in the order the host would have submitted them. An empty list is served as
    /// one zero-byte operation where the previous request ended.
    pub pieces: &'a [SsdPiece],
    /// The pieces are operations one client issues one after another (a transfer train): the
    /// batch holds one service slot and counts as one queued operation (module documentation).
    pub serial: bool,
}

/// A finished SSD request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsdCompletion {
    /// The request's tag.
    pub tag: u64,
    /// Read or write.
    pub op: IoOp,
    /// Bytes (all pieces of a batch).
    pub len: u64,
    /// Submission time (ps).
    pub submitted: Time,
    /// Completion time (ps).
    pub finished: Time,
    /// Garbage collection the request triggered.
    pub gc: GcWork,
}

/// A device timer, delivered to the host LP as [`StorageEvent::Ssd`] and handed back to the
/// device with index [`SsdEvent::dev`] in its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsdEvent {
    dev: u16,
    timer: SsdTimer,
}

impl SsdEvent {
    /// Index of the device within its owner (0 for a lone node-local SSD).
    pub fn dev(&self) -> u16 {
        self.dev
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SsdTimer {
    /// The earliest transfer may have finished (stale unless `gen` is current).
    Transfer(u64),
}

#[derive(Clone, Copy, Debug)]
struct InFlight {
    tag: u64,
    op: IoOp,
    /// Bytes of all pieces.
    len: u64,
    /// Operations charged (pieces; 1 for a plain request).
    ops: u32,
    /// Pieces that did not start where the previous one ended (each pays `access_latency`).
    seeks: u32,
    submitted: Time,
    /// Exclusive device time (ps) of the transfer phase.
    work: Time,
    gc: GcWork,
    /// Service slots held (set when service starts; grows up to `min(ops, channels)`).
    width: u32,
    /// A serial batch: one slot at most, one operation in the queue length.
    serial: bool,
    /// Whether the setup phase is over (the request is in the processor-sharing set).
    transferring: bool,
}

impl InFlight {
    /// Operations this request adds to the queue length: its pieces, or 1 for a serial batch.
    fn queued(&self) -> u32 {
        if self.serial {
            1
        } else {
            self.ops
        }
    }
}

/// One SSD: configuration, FTL, service state and statistics.
#[derive(Clone, Debug)]
pub struct Ssd {
    dev: u16,
    cfg: SsdConfig,
    ftl: Option<Ftl>,
    slab: Vec<Option<InFlight>>,
    free_slots: Vec<u32>,
    waiting: VecDeque<u32>,
    in_service: u32,
    sharing: Sharing,
    /// Requests in their setup phase: (time their transfer starts, slot), in the order they
    /// join the sharing (by time, then by start). Joins are applied when the device next acts
    /// ([`Ssd::settle`]), with the arithmetic of applying them on time.
    joins: Vec<(Time, u32)>,
    /// When the valid completion timer fires, if one is pending.
    armed: Option<Time>,
    /// Scratch: (time, work, weight) of the pending joins, for the completion forecast.
    forecast: Vec<(Time, Time, u32)>,
    gen: u64,
    next_offset: u64,
    stats: DeviceStats,
    finished: Vec<u32>,
    /// Batches in service holding fewer than `min(ops, channels)` slots, oldest first: freed
    /// slots go to them before waiting requests.
    narrow: VecDeque<u32>,
}

impl Ssd {
    /// Builds device number `dev` of its owner (its self-events carry this index), validating
    /// the configuration and preconditioning the FTL.
    pub fn new(dev: u16, cfg: SsdConfig) -> Result<Self, ConfigError<SsdField>> {
        cfg.validate()?;
        let ftl = match &cfg.ftl {
            Some(f) => Some(Ftl::new(cfg.capacity, f)?),
            None => None,
        };
        let sharing = Sharing::with_drives(cfg.drives);
        Ok(Ssd {
            dev,
            stats: DeviceStats::with_trace(cfg.queue_trace_interval),
            cfg,
            ftl,
            slab: Vec::new(),
            free_slots: Vec::new(),
            waiting: VecDeque::new(),
            in_service: 0,
            sharing,
            joins: Vec::new(),
            armed: None,
            forecast: Vec::new(),
            gen: 0,
            next_offset: 0,
            finished: Vec::new(),
            narrow: VecDeque::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &SsdConfig {
        &self.cfg
    }

    /// The FTL, if the device has one.
    pub fn ftl(&self) -> Option<&Ftl> {
        self.ftl.as_ref()
    }

    /// Statistics so far (call [`DeviceStats::settle`] on a copy to close the time integrals).
    pub fn stats(&self) -> &DeviceStats {
        &self.stats
    }

    /// Statistics with the time integrals brought up to `now`.
    pub fn stats_at(&self, now: Time) -> DeviceStats {
        let mut s = self.stats.clone();
        s.settle(now);
        s
    }

    /// Operations in the device (queued or in service): a plain request counts 1, a batch its
    /// number of pieces until it completes.
    pub fn queue_len(&self) -> u64 {
        self.stats.queue_len()
    }

    /// TRIM: the host deleted the data in `[offset, offset + len)`. Takes no device time.
    /// Returns the mapping units unmapped (0 without an FTL).
    pub fn trim(&mut self, offset: u64, len: u64) -> u64 {
        self.ftl.as_mut().map_or(0, |f| f.trim_bytes(offset, len))
    }

    /// Submits a request (one operation) at `ctx.now()`. FTL effects (mapping, collection)
    /// happen now; the completion comes later from [`Ssd::handle`]. Writes past the capacity
    /// are timed but not mapped.
    pub fn submit<E: From<StorageEvent>>(&mut self, req: SsdRequest, ctx: &mut Ctx<'_, E>) {
        let piece = [SsdPiece {
            offset: req.offset,
            len: req.len,
        }];
        self.submit_batch(
            SsdBatch {
                tag: req.tag,
                op: req.op,
                stream: req.stream,
                pieces: &piece,
                serial: false,
            },
            ctx,
        );
    }

    /// Submits a batch of pieces as one device request at `ctx.now()`, charged one operation
    /// per piece (module documentation). FTL effects of every piece happen now, in order, at
    /// the piece's own address; statistics count every piece as an operation
    /// ([`DeviceStats::reads`] / [`DeviceStats::writes`]) and the batch once
    /// ([`DeviceStats::requests`]). One completion, with the batch's tag, comes from
    /// [`Ssd::handle`].
    pub fn submit_batch<E: From<StorageEvent>>(
        &mut self,
        batch: SsdBatch<'_>,
        ctx: &mut Ctx<'_, E>,
    ) {
        let now = ctx.now();
        let empty = [SsdPiece {
            offset: self.next_offset,
            len: 0,
        }];
        let pieces = if batch.pieces.is_empty() {
            &empty[..]
        } else {
            batch.pieces
        };
        let mut gc = GcWork::default();
        let mut work: Time = 0;
        let mut seeks = 0u32;
        let mut len = 0u64;
        let erase = self.cfg.ftl.as_ref().map_or(0, |f| f.erase_time);
        for p in pieces {
            let mut piece_gc = GcWork::default();
            match batch.op {
                IoOp::Write => {
                    let mut nand = p.len;
                    self.stats.host_bytes_written += p.len;
                    self.stats.writes += 1;
                    if let Some(f) = self.ftl.as_mut() {
                        let (pages, w) = f.write_bytes(p.offset, p.len, batch.stream);
                        piece_gc = w;
                        let ps = f.page_size();
                        nand = (pages + w.copies) * ps;
                        self.stats.gc_bytes_copied += w.copies * ps;
                        self.stats.erases += w.erases;
                    }
                    self.stats.nand_bytes_written += nand;
                }
                IoOp::Read => {
                    self.stats.host_bytes_read += p.len;
                    self.stats.reads += 1;
                }
            }
            let mut w = transfer_ps(p.len, self.cfg.bandwidth(batch.op, p.len));
            if piece_gc.copies > 0 || piece_gc.erases > 0 {
                let ps = self.ftl.as_ref().map_or(0, Ftl::page_size);
                w = w
                    .saturating_add(transfer_ps(piece_gc.copies * ps, self.cfg.write_bandwidth))
                    .saturating_add(erase.saturating_mul(piece_gc.erases));
            }
            work = work.saturating_add(w);
            gc.copies += piece_gc.copies;
            gc.erases += piece_gc.erases;
            if p.offset != self.next_offset {
                seeks += 1;
            }
            self.next_offset = p.offset.saturating_add(p.len);
            len = len.saturating_add(p.len);
        }
        let ops = u32::try_from(pieces.len()).unwrap_or(u32::MAX);
        self.stats.requests += 1;
        let entry = InFlight {
            tag: batch.tag,
            op: batch.op,
            len,
            ops,
            seeks,
            submitted: now,
            work,
            gc,
            width: 0,
            serial: batch.serial,
            transferring: false,
        };
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.slab[s as usize] = Some(entry);
                s
            }
            None => {
                self.slab.push(Some(entry));
                (self.slab.len() - 1) as u32
            }
        };
        self.stats.queue_change(now, i64::from(entry.queued()));
        if self.waiting.is_empty() && self.in_service < self.cfg.channels {
            self.settle(now);
            self.start(slot, ctx);
            self.rearm(ctx);
        } else {
            self.waiting.push_back(slot);
        }
    }

    /// Service slots request `e` can use: 1 for a serial batch, else `min(ops, channels)`.
    fn target(&self, e: &InFlight) -> u32 {
        if e.serial {
            1
        } else {
            e.ops.clamp(1, self.cfg.channels.max(1))
        }
    }

    /// Starts service of the request in `slot` (at least one slot is free): it takes
    /// `w = min(ops, channels, free slots)` slots and spends its pieces' setups `w` at a time.
    fn start<E: From<StorageEvent>>(&mut self, slot: u32, ctx: &mut Ctx<'_, E>) {
        let free = self.cfg.channels.saturating_sub(self.in_service).max(1);
        let target = self.slab[slot as usize].map_or(1, |e| self.target(&e));
        let w = target.min(free);
        let mut setup = 0;
        if let Some(e) = self.slab[slot as usize].as_mut() {
            e.width = w;
            self.in_service += w;
            setup = self
                .cfg
                .op_overhead
                .saturating_mul(u64::from(e.ops.max(1).div_ceil(w)))
                .saturating_add(
                    self.cfg
                        .access_latency
                        .saturating_mul(u64::from(e.seeks.div_ceil(w))),
                );
        }
        if w < target {
            self.narrow.push_back(slot);
        }
        let now = ctx.now();
        if setup > 0 {
            let at = now.saturating_add(setup);
            let pos = self.joins.partition_point(|&(t, _)| t <= at);
            self.joins.insert(pos, (at, slot));
        } else {
            self.begin_transfer(slot, now);
        }
    }

    /// Request `slot` starts transferring at `at`.
    fn begin_transfer(&mut self, slot: u32, at: Time) {
        if let Some(e) = self.slab[slot as usize].as_mut() {
            e.transferring = true;
        }
        let (work, width) = self.slab[slot as usize].map_or((0, 1), |e| (e.work, e.width));
        self.sharing.add_weighted(at, slot, work, width);
    }

    /// Applies the joins due by `now`, in order, each at its own time: the device's state is
    /// then what it would be had every setup ended with an event of its own.
    fn settle(&mut self, now: Time) {
        let due = self.joins.partition_point(|&(t, _)| t <= now);
        if due == 0 {
            return;
        }
        for k in 0..due {
            let (at, slot) = self.joins[k];
            self.begin_transfer(slot, at);
        }
        self.joins.drain(..due);
    }

    /// Makes the completion timer fire at the next completion, forecast over the pending joins
    /// ([`Sharing::next_finish_with_joins`]): one event per completion (plus one per forecast a
    /// new request changes) instead of one per setup and one per change of the sharing.
    fn rearm<E: From<StorageEvent>>(&mut self, ctx: &mut Ctx<'_, E>) {
        let mut forecast = std::mem::take(&mut self.forecast);
        forecast.clear();
        forecast.extend(self.joins.iter().map(|&(t, slot)| {
            let (work, width) = self.slab[slot as usize].map_or((0, 1), |e| (e.work, e.width));
            (t, work, width)
        }));
        let next = self.sharing.next_finish_with_joins(&forecast);
        self.forecast = forecast;
        if next == self.armed {
            return;
        }
        self.gen += 1;
        self.armed = next;
        if let Some(t) = next {
            let ev = SsdEvent {
                dev: self.dev,
                timer: SsdTimer::Transfer(self.gen),
            };
            ctx.send_self(t.saturating_sub(ctx.now()), E::from(StorageEvent::Ssd(ev)));
        }
    }

    /// Gives free slots to the batches in service that started with fewer than
    /// `min(ops, channels)`, oldest first (the slots their remaining pieces would have taken
    /// before any later request's): a transferring batch's share grows at once, keeping its
    /// remaining work; one still in setup transfers with its new width. Its setup time is not
    /// changed.
    fn widen(&mut self, now: Time) {
        while let Some(&slot) = self.narrow.front() {
            let free = self.cfg.channels.saturating_sub(self.in_service);
            if free == 0 {
                return;
            }
            let target = self.slab[slot as usize].map_or(0, |e| self.target(&e));
            let Some(e) = self.slab[slot as usize].as_mut() else {
                self.narrow.pop_front();
                continue;
            };
            let add = target.saturating_sub(e.width).min(free);
            e.width += add;
            self.in_service += add;
            let (width, transferring) = (e.width, e.transferring);
            if width >= target {
                self.narrow.pop_front();
            }
            if transferring {
                self.sharing.reweight(now, slot, width);
            }
        }
    }

    /// Handles one of this device's timers, appending finished requests to `done`.
    pub fn handle<E: From<StorageEvent>>(
        &mut self,
        ev: SsdEvent,
        ctx: &mut Ctx<'_, E>,
        done: &mut Vec<SsdCompletion>,
    ) {
        match ev.timer {
            SsdTimer::Transfer(gen) => {
                if gen != self.gen {
                    return;
                }
                self.armed = None;
                let now = ctx.now();
                self.settle(now);
                let mut finished = std::mem::take(&mut self.finished);
                self.sharing.pop_finished(now, &mut finished);
                for &slot in &finished {
                    if let Some(e) = self.slab[slot as usize].take() {
                        done.push(SsdCompletion {
                            tag: e.tag,
                            op: e.op,
                            len: e.len,
                            submitted: e.submitted,
                            finished: now,
                            gc: e.gc,
                        });
                        self.in_service = self.in_service.saturating_sub(e.width);
                        self.stats.queue_change(now, -i64::from(e.queued()));
                        if e.width < self.target(&e) {
                            self.narrow.retain(|&n| n != slot);
                        }
                    }
                    self.free_slots.push(slot);
                }
                finished.clear();
                self.finished = finished;
                self.widen(now);
                while self.in_service < self.cfg.channels {
                    let Some(next) = self.waiting.pop_front() else {
                        break;
                    };
                    self.start(next, ctx);
                }
                self.rearm(ctx);
            }
        }
    }
}
