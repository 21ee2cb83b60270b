//! The SSD device model: timing (bandwidth, per-operation overhead, access latency, internal
//! parallelism, optional per-size rate table) on top of an optional flash translation layer
//! whose garbage-collection copies consume write bandwidth.
//!
//! An [`Ssd`] is a component embedded in a host LP (a compute node for a node-local SSD, a BB
//! server). The host calls [`Ssd::submit`] and routes the device's self-events
//! ([`crate::StorageEvent::Ssd`]) back to [`Ssd::handle`], which returns completions.
//!
//! Service of one request: it waits (FIFO) for one of `channels` service slots, spends a setup
//! phase of `op_overhead` (+ `access_latency` if it does not start where the previous request
//! ended) holding the slot but no bandwidth, then transfers: the device's time is shared
//! equally among all requests transferring (processor sharing). A request needs
//! `bytes / bandwidth` of exclusive device time plus `gc_copies · page_size / write_bandwidth +
//! erases · erase_time` for the collection it triggered. A lone request on an idle device
//! therefore takes exactly `op_overhead [+ access_latency] + ceil(bytes · 10¹² / bandwidth)` ps.

pub mod ftl;
mod gc;
pub mod stream;
pub mod timing;

pub use ftl::{Ftl, FtlConfig, FtlCounters, FtlGeometry, GcWork, Precondition};
pub use stream::StreamMode;

use crate::error::{positive, ConfigError};
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
        }
    }
}

impl SsdConfig {
    /// Checks every setting; keys are relative to the SSD section (`write_bandwidth`,
    /// `ftl.spare_factor`, `size_bins[2].max_size`, ...).
    pub fn validate(&self) -> Result<(), ConfigError> {
        positive("capacity", self.capacity)?;
        positive("read_bandwidth", self.read_bandwidth)?;
        positive("write_bandwidth", self.write_bandwidth)?;
        positive("channels", u64::from(self.channels))?;
        let mut prev = 0;
        for (i, b) in self.size_bins.iter().enumerate() {
            let key = |k: &str| format!("size_bins[{i}].{k}");
            positive(&key("max_size"), b.max_size)?;
            positive(&key("read_bandwidth"), b.read_bandwidth)?;
            positive(&key("write_bandwidth"), b.write_bandwidth)?;
            if b.max_size <= prev {
                return Err(ConfigError::new(
                    key("max_size"),
                    "must be larger than the previous bin's max_size",
                ));
            }
            prev = b.max_size;
        }
        if let Some(f) = &self.ftl {
            f.geometry(self.capacity).map_err(|e| {
                if e.key == "capacity" {
                    e
                } else {
                    e.within("ftl")
                }
            })?;
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

/// A request to one SSD.
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

/// A finished SSD request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SsdCompletion {
    /// The request's tag.
    pub tag: u64,
    /// Read or write.
    pub op: IoOp,
    /// Bytes.
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
    /// The setup phase of the request in slab slot `slot` ended.
    Setup(u32),
    /// The earliest transfer may have finished (stale unless `gen` is current).
    Transfer(u64),
}

#[derive(Clone, Copy, Debug)]
struct InFlight {
    req: SsdRequest,
    submitted: Time,
    setup: Time,
    work: Time,
    gc: GcWork,
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
    gen: u64,
    next_offset: u64,
    stats: DeviceStats,
    finished: Vec<u32>,
}

impl Ssd {
    /// Builds device number `dev` of its owner (its self-events carry this index), validating
    /// the configuration and preconditioning the FTL.
    pub fn new(dev: u16, cfg: SsdConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let ftl = match &cfg.ftl {
            Some(f) => Some(Ftl::new(cfg.capacity, f).map_err(|e| e.within("ftl"))?),
            None => None,
        };
        Ok(Ssd {
            dev,
            stats: DeviceStats::with_trace(cfg.queue_trace_interval),
            cfg,
            ftl,
            slab: Vec::new(),
            free_slots: Vec::new(),
            waiting: VecDeque::new(),
            in_service: 0,
            sharing: Sharing::default(),
            gen: 0,
            next_offset: 0,
            finished: Vec::new(),
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

    /// Requests in the device (queued or in service).
    pub fn queue_len(&self) -> u64 {
        self.stats.queue_len()
    }

    /// TRIM: the host deleted the data in `[offset, offset + len)`. Takes no device time.
    /// Returns the mapping units unmapped (0 without an FTL).
    pub fn trim(&mut self, offset: u64, len: u64) -> u64 {
        self.ftl.as_mut().map_or(0, |f| f.trim_bytes(offset, len))
    }

    /// Submits a request at `ctx.now()`. FTL effects (mapping, collection) happen now; the
    /// completion comes later from [`Ssd::handle`]. Writes past the capacity are timed but
    /// not mapped.
    pub fn submit<E: From<StorageEvent>>(&mut self, req: SsdRequest, ctx: &mut Ctx<'_, E>) {
        let now = ctx.now();
        let mut gc = GcWork::default();
        let mut nand = req.len;
        match req.op {
            IoOp::Write => {
                self.stats.host_bytes_written += req.len;
                self.stats.writes += 1;
                if let Some(f) = self.ftl.as_mut() {
                    let (pages, work) = f.write_bytes(req.offset, req.len, req.stream);
                    gc = work;
                    let ps = f.page_size();
                    nand = (pages + work.copies) * ps;
                    self.stats.gc_bytes_copied += work.copies * ps;
                    self.stats.erases += work.erases;
                }
                self.stats.nand_bytes_written += nand;
            }
            IoOp::Read => {
                self.stats.host_bytes_read += req.len;
                self.stats.reads += 1;
            }
        }
        let mut work = transfer_ps(req.len, self.cfg.bandwidth(req.op, req.len));
        if gc.copies > 0 || gc.erases > 0 {
            let ps = self.ftl.as_ref().map_or(0, Ftl::page_size);
            let erase = self.cfg.ftl.as_ref().map_or(0, |f| f.erase_time);
            work = work
                .saturating_add(transfer_ps(gc.copies * ps, self.cfg.write_bandwidth))
                .saturating_add(erase.saturating_mul(gc.erases));
        }
        let mut setup = self.cfg.op_overhead;
        if req.offset != self.next_offset {
            setup = setup.saturating_add(self.cfg.access_latency);
        }
        self.next_offset = req.offset.saturating_add(req.len);
        let entry = InFlight {
            req,
            submitted: now,
            setup,
            work,
            gc,
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
        self.stats.queue_change(now, 1);
        if self.in_service < self.cfg.channels {
            self.start(slot, ctx);
        } else {
            self.waiting.push_back(slot);
        }
    }

    fn start<E: From<StorageEvent>>(&mut self, slot: u32, ctx: &mut Ctx<'_, E>) {
        self.in_service += 1;
        let setup = self.slab[slot as usize].map_or(0, |e| e.setup);
        if setup > 0 {
            let ev = SsdEvent {
                dev: self.dev,
                timer: SsdTimer::Setup(slot),
            };
            ctx.send_self(setup, E::from(StorageEvent::Ssd(ev)));
        } else {
            self.begin_transfer(slot, ctx);
        }
    }

    fn begin_transfer<E: From<StorageEvent>>(&mut self, slot: u32, ctx: &mut Ctx<'_, E>) {
        let work = self.slab[slot as usize].map_or(0, |e| e.work);
        self.sharing.add(ctx.now(), slot, work);
        self.reschedule(ctx);
    }

    fn reschedule<E: From<StorageEvent>>(&mut self, ctx: &mut Ctx<'_, E>) {
        self.gen += 1;
        if let Some(t) = self.sharing.next_finish() {
            let ev = SsdEvent {
                dev: self.dev,
                timer: SsdTimer::Transfer(self.gen),
            };
            ctx.send_self(t.saturating_sub(ctx.now()), E::from(StorageEvent::Ssd(ev)));
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
            SsdTimer::Setup(slot) => self.begin_transfer(slot, ctx),
            SsdTimer::Transfer(gen) => {
                if gen != self.gen {
                    return;
                }
                let now = ctx.now();
                let mut finished = std::mem::take(&mut self.finished);
                self.sharing.pop_finished(now, &mut finished);
                for &slot in &finished {
                    if let Some(e) = self.slab[slot as usize].take() {
                        done.push(SsdCompletion {
                            tag: e.req.tag,
                            op: e.req.op,
                            len: e.req.len,
                            submitted: e.submitted,
                            finished: now,
                            gc: e.gc,
                        });
                    }
                    self.free_slots.push(slot);
                    self.in_service -= 1;
                    self.stats.queue_change(now, -1);
                }
                finished.clear();
                self.finished = finished;
                while self.in_service < self.cfg.channels {
                    let Some(next) = self.waiting.pop_front() else {
                        break;
                    };
                    self.start(next, ctx);
                }
                self.reschedule(ctx);
            }
        }
    }
}
