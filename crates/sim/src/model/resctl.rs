//! The controller of a persistent burst-buffer reservation: created before any job starts,
//! torn down when the last job using it ends; the teardown stages its data out.

use super::{CtlEvent, SimEvent, CTL_LATENCY};
use bbsim_engine::{Ctx, LpId, Time};

/// Teardown and stage-out bookkeeping of one persistent reservation.
#[derive(Debug)]
pub struct ResCtl {
    /// Capacity account at the BB servers (`jobs + reservation index`).
    pub alloc: u32,
    /// Name in the scenario.
    pub name: String,
    users_left: u32,
    servers: Vec<LpId>,
    stage_out_left: u32,
    /// Whether any server had something of the reservation to stage out.
    stage_out_staged: bool,
    /// When the last user ended and the teardown began (ps).
    pub teardown: Option<Time>,
    /// When every server had staged out the reservation's data (ps).
    pub staged_out: Option<Time>,
}

impl ResCtl {
    /// A reservation used by `users` jobs, held on the BB-server LPs `servers`.
    pub fn new(alloc: u32, name: String, users: u32, servers: Vec<LpId>) -> Self {
        ResCtl {
            alloc,
            name,
            users_left: users,
            stage_out_left: servers.len() as u32,
            stage_out_staged: false,
            servers,
            teardown: None,
            staged_out: None,
        }
    }

    /// Handles user-job ends and the servers' stage-out reports.
    pub fn handle(&mut self, ev: SimEvent, ctx: &mut Ctx<'_, SimEvent>) {
        match ev {
            SimEvent::Ctl(CtlEvent::UserDone) => {
                self.users_left = self.users_left.saturating_sub(1);
                if self.users_left == 0 && self.teardown.is_none() {
                    self.teardown = Some(ctx.now());
                    for &lp in &self.servers {
                        ctx.send(
                            lp,
                            CTL_LATENCY,
                            SimEvent::Ctl(CtlEvent::JobEnd { alloc: self.alloc }),
                        );
                    }
                }
            }
            SimEvent::Ctl(CtlEvent::StageOutDone { staged }) => {
                self.stage_out_left = self.stage_out_left.saturating_sub(1);
                self.stage_out_staged |= staged;
                if self.stage_out_left == 0 {
                    // Nothing was left to stage out: done when the teardown began.
                    self.staged_out = match (self.stage_out_staged, self.teardown) {
                        (false, Some(t)) => Some(t),
                        _ => Some(ctx.now()),
                    };
                }
            }
            _ => {}
        }
    }
}
