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
            barriers: 0,
        }
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
                }
            }
            CtlEvent::Release { .. } | CtlEvent::JobEnd { .. } => {}
        }
    }
}
