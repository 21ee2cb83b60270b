//! The job controller: one LP per job that completes barriers and notices the job's end.

use super::{CtlEvent, SimEvent, CTL_LATENCY};
use bbsim_engine::{Ctx, LpId, Time};
use std::collections::{BTreeMap, BTreeSet};

/// Barrier and completion bookkeeping of one job.
#[derive(Debug)]
pub struct JobCtl {
    /// Job index.
    pub job: u32,
    ranks: u32,
    /// Members of each communicator (index = communicator id).
    comm_size: Vec<u32>,
    /// Compute-node LPs hosting members of each communicator.
    comm_nodes: Vec<Vec<LpId>>,
    arrivals: BTreeMap<(u32, u32), u32>,
    done: u32,
    /// BB-server LPs to tell when the job ends.
    notify: Vec<LpId>,
    /// When the last rank finished (ps).
    pub end: Option<Time>,
    /// When the job's ranks started (ps), once known.
    pub start: Option<Time>,
    /// Parents still running.
    parents_left: u32,
    /// Controllers of the jobs that wait for this one.
    children: Vec<LpId>,
    /// Compute nodes of this job (told to start when the parents are done).
    nodes: Vec<LpId>,
    /// Requested start time (ps).
    start_at: Time,
    /// Stage-in work: (BB-server LP, global file, bytes that server stages).
    stage_items: Vec<(LpId, u64, u64)>,
    stage_left: u32,
    /// Capacity account the stage-in writes into.
    stage_alloc: u32,
    /// Servers still staging out what the job left in the BB.
    stage_out_left: u32,
    /// Whether any server had something of this job to stage out.
    stage_out_staged: bool,
    /// When the job ended and when its stage-out finished (ps).
    pub stage_out: Option<(Time, Time)>,
    /// The persistent reservation's controller, told when this job ends.
    reservation: Option<LpId>,
    /// Producer side: closes still expected per global file before it is complete.
    closes_left: BTreeMap<u64, u32>,
    /// Producer side: controllers of the jobs that consume this job's files in transit.
    consumers: Vec<LpId>,
    /// Consumer side: input files known to be complete.
    ready: BTreeSet<u64>,
    /// Consumer side: ranks waiting to open an input, per global file.
    waiting: BTreeMap<u64, Vec<(LpId, u32)>>,
    /// When the stage-in began and ended (ps).
    pub stage_in: Option<(Time, Time)>,
    /// Barriers completed.
    pub barriers: u64,
}

impl JobCtl {
    /// A controller for job `job` with `ranks` ranks.
    pub fn new(
        job: u32,
        ranks: u32,
        comm_size: Vec<u32>,
        comm_nodes: Vec<Vec<LpId>>,
        notify: Vec<LpId>,
    ) -> Self {
        JobCtl {
            job,
            ranks,
            comm_size,
            comm_nodes,
            arrivals: BTreeMap::new(),
            done: 0,
            notify,
            end: None,
            start: None,
            parents_left: 0,
            children: Vec::new(),
            nodes: Vec::new(),
            start_at: 0,
            stage_items: Vec::new(),
            stage_left: 0,
            stage_alloc: job,
            stage_out_left: 0,
            stage_out_staged: false,
            stage_out: None,
            reservation: None,
            closes_left: BTreeMap::new(),
            consumers: Vec::new(),
            ready: BTreeSet::new(),
            waiting: BTreeMap::new(),
            stage_in: None,
            barriers: 0,
        }
    }

    /// Stages the given (BB-server LP, global file, bytes) items into capacity account
    /// `alloc` before the job starts.
    pub fn with_stage_in(mut self, alloc: u32, items: Vec<(LpId, u64, u64)>) -> Self {
        self.stage_left = items.len() as u32;
        self.stage_items = items;
        self.stage_alloc = alloc;
        if !self.stage_items.is_empty() {
            self.start = None;
        }
        self
    }

    /// Tells the persistent reservation's controller `lp` when this job ends.
    pub fn with_reservation(mut self, lp: LpId) -> Self {
        self.reservation = Some(lp);
        self
    }

    /// Announces each file of `closes` (global file, closes expected) to the `consumers`'
    /// controllers once it has been closed that many times (or when the job ends).
    pub fn with_consumers(mut self, closes: BTreeMap<u64, u32>, consumers: Vec<LpId>) -> Self {
        self.closes_left = closes;
        self.consumers = consumers;
        self
    }

    fn announce(&self, file: u64, ctx: &mut Ctx<'_, SimEvent>) {
        for &lp in &self.consumers {
            ctx.send(
                lp,
                CTL_LATENCY,
                SimEvent::Ctl(CtlEvent::FileReady { file, local: 0 }),
            );
        }
    }

    /// Whether the controller (not the nodes themselves) starts the job.
    pub fn controls_start(&self) -> bool {
        self.parents_left > 0 || !self.stage_items.is_empty()
    }

    /// At time 0: a job without parents but with a stage-in starts staging at its start time.
    pub fn init(&mut self, ctx: &mut Ctx<'_, SimEvent>) {
        if self.parents_left == 0 && !self.stage_items.is_empty() {
            self.release(self.start_at, ctx);
        }
    }

    /// The job may go at `at` (its parents are done): stage in first if asked, else start.
    fn release(&mut self, at: Time, ctx: &mut Ctx<'_, SimEvent>) {
        let delay = at.saturating_sub(ctx.now());
        if self.stage_items.is_empty() {
            self.start_nodes(at, ctx);
            return;
        }
        self.stage_in = Some((at, at));
        for &(lp, file, bytes) in &self.stage_items {
            ctx.send(
                lp,
                delay.max(CTL_LATENCY),
                SimEvent::Ctl(CtlEvent::StageIn {
                    alloc: self.stage_alloc,
                    file,
                    bytes,
                }),
            );
        }
    }

    fn start_nodes(&mut self, at: Time, ctx: &mut Ctx<'_, SimEvent>) {
        self.start = Some(at);
        let delay = at.saturating_sub(ctx.now()).max(CTL_LATENCY);
        for &lp in &self.nodes {
            ctx.send(lp, delay, SimEvent::Ctl(CtlEvent::Start));
        }
    }

    /// Makes this job wait for `parents` jobs; when they are done its `nodes` are started at
    /// `start_at` or later. Without parents the nodes start themselves at `start_at`.
    pub fn with_dependencies(
        mut self,
        parents: u32,
        children: Vec<LpId>,
        nodes: Vec<LpId>,
        start_at: Time,
    ) -> Self {
        self.parents_left = parents;
        self.children = children;
        self.nodes = nodes;
        self.start_at = start_at;
        if parents == 0 {
            self.start = Some(start_at);
        }
        self
    }

    /// Handles arrivals and completions.
    pub fn handle(&mut self, ev: SimEvent, ctx: &mut Ctx<'_, SimEvent>) {
        let SimEvent::Ctl(c) = ev else { return };
        match c {
            CtlEvent::Arrive { comm, seq } => {
                let n = self.arrivals.entry((comm, seq)).or_insert(0);
                *n += 1;
                let size = self.comm_size.get(comm as usize).copied().unwrap_or(0);
                if *n >= size {
                    self.arrivals.remove(&(comm, seq));
                    self.barriers += 1;
                    if let Some(nodes) = self.comm_nodes.get(comm as usize) {
                        for &lp in nodes {
                            ctx.send(
                                lp,
                                CTL_LATENCY,
                                SimEvent::Ctl(CtlEvent::Release { comm, seq }),
                            );
                        }
                    }
                }
            }
            CtlEvent::RankDone => {
                self.done += 1;
                if self.done == self.ranks {
                    let now = ctx.now();
                    self.end = Some(now);
                    self.stage_out_left = self.notify.len() as u32;
                    if self.notify.is_empty() {
                        self.stage_out = Some((now, now));
                    }
                    if let Some(lp) = self.reservation {
                        ctx.send(lp, CTL_LATENCY, SimEvent::Ctl(CtlEvent::UserDone));
                    }
                    // Files never closed are complete when their producer ends.
                    for file in std::mem::take(&mut self.closes_left).into_keys() {
                        self.announce(file, ctx);
                    }
                    for &lp in &self.notify {
                        ctx.send(
                            lp,
                            CTL_LATENCY,
                            SimEvent::Ctl(CtlEvent::JobEnd { alloc: self.job }),
                        );
                    }
                    for &lp in &self.children {
                        ctx.send(lp, CTL_LATENCY, SimEvent::Ctl(CtlEvent::ParentDone));
                    }
                }
            }
            CtlEvent::ParentDone => {
                self.parents_left = self.parents_left.saturating_sub(1);
                if self.parents_left == 0 {
                    // The nodes hear about it CTL_LATENCY later; start no earlier than asked.
                    let at = (ctx.now() + CTL_LATENCY).max(self.start_at);
                    self.release(at, ctx);
                }
            }
            CtlEvent::StageInDone => {
                self.stage_left = self.stage_left.saturating_sub(1);
                if self.stage_left == 0 {
                    let now = ctx.now();
                    if let Some((begin, _)) = self.stage_in {
                        self.stage_in = Some((begin, now));
                    }
                    self.start_nodes(now + CTL_LATENCY, ctx);
                }
            }
            CtlEvent::StageOutDone { staged } => {
                self.stage_out_left = self.stage_out_left.saturating_sub(1);
                self.stage_out_staged |= staged;
                if self.stage_out_left == 0 {
                    if let Some(end) = self.end {
                        // Nothing left to stage out anywhere: the stage-out took no time (the
                        // servers' reports only carry the control latency).
                        let done = if self.stage_out_staged {
                            ctx.now()
                        } else {
                            end
                        };
                        self.stage_out = Some((end, done));
                    }
                }
            }
            CtlEvent::Closed { file } => {
                if let Some(n) = self.closes_left.get_mut(&file) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.closes_left.remove(&file);
                        self.announce(file, ctx);
                    }
                }
            }
            CtlEvent::FileReady { file, .. } => {
                self.ready.insert(file);
                for (lp, local) in self.waiting.remove(&file).unwrap_or_default() {
                    ctx.send(
                        lp,
                        CTL_LATENCY,
                        SimEvent::Ctl(CtlEvent::FileReady { file, local }),
                    );
                }
            }
            CtlEvent::WaitFile { file, node, local } => {
                if self.ready.contains(&file) {
                    ctx.send(
                        node,
                        CTL_LATENCY,
                        SimEvent::Ctl(CtlEvent::FileReady { file, local }),
                    );
                } else {
                    self.waiting.entry(file).or_default().push((node, local));
                }
            }
            CtlEvent::Release { .. }
            | CtlEvent::JobEnd { .. }
            | CtlEvent::Start
            | CtlEvent::StageIn { .. }
            | CtlEvent::UserDone => {}
        }
    }
}
