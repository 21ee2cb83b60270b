//! The job controller: one LP per job that completes barriers and notices the job's end.

use super::{CtlEvent, SimEvent, CTL_LATENCY};
use bbsim_engine::{Ctx, LpId, Time};
use std::collections::BTreeMap;

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
    /// BB-server LPs that stage in the job's input, and the bytes each stages.
    stage_servers: Vec<LpId>,
    stage_bytes: u64,
    stage_left: u32,
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
            stage_servers: Vec::new(),
            stage_bytes: 0,
            stage_left: 0,
            stage_in: None,
            barriers: 0,
        }
    }

    /// Stages `bytes_each` into each of `servers` before the job starts.
    pub fn with_stage_in(mut self, servers: Vec<LpId>, bytes_each: u64) -> Self {
        self.stage_left = servers.len() as u32;
        self.stage_servers = servers;
        self.stage_bytes = bytes_each;
        if !self.stage_servers.is_empty() {
            self.start = None;
        }
        self
    }

    /// Whether the controller (not the nodes themselves) starts the job.
    pub fn controls_start(&self) -> bool {
        self.parents_left > 0 || !self.stage_servers.is_empty()
    }

    /// At time 0: a job without parents but with a stage-in starts staging at its start time.
    pub fn init(&mut self, ctx: &mut Ctx<'_, SimEvent>) {
        if self.parents_left == 0 && !self.stage_servers.is_empty() {
            self.release(self.start_at, ctx);
        }
    }

    /// The job may go at `at` (its parents are done): stage in first if asked, else start.
    fn release(&mut self, at: Time, ctx: &mut Ctx<'_, SimEvent>) {
        let delay = at.saturating_sub(ctx.now());
        if self.stage_servers.is_empty() {
            self.start_nodes(at, ctx);
            return;
        }
        self.stage_in = Some((at, at));
        for &lp in &self.stage_servers {
            ctx.send(
                lp,
                delay.max(CTL_LATENCY),
                SimEvent::Ctl(CtlEvent::StageIn {
                    alloc: self.job,
                    bytes: self.stage_bytes,
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
                    self.end = Some(ctx.now());
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
            CtlEvent::Release { .. }
            | CtlEvent::JobEnd { .. }
            | CtlEvent::Start
            | CtlEvent::StageIn { .. } => {}
        }
    }
}
