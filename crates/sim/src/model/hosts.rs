//! Hosts of storage servers on the network: BB servers and PFS I/O nodes, each owning a NIC.

use super::{CtlEvent, Payload, SimEvent, CTL_LATENCY};
use bbsim_engine::{Ctx, LpId};
use bbsim_storage::{
    BbAction, BbServer, Endpoint, ExtentLocks, IoNode, LockConfig, StorageEvent, StorageMsg,
};
use bbsim_topology::nic::Nic;
use bbsim_topology::MessageRoute;

/// Messages and packets received and how they were routed, per job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RouteCount {
    /// Messages received.
    pub messages: u64,
    /// Of which routed non-minimally (any of their packets).
    pub nonminimal: u64,
    /// Packets received (a unit counts as the packets it carries).
    pub packets: u64,
    /// Sum of router hops over the packets.
    pub packet_hops: u64,
    /// Packets routed non-minimally.
    pub nonminimal_packets: u64,
}

impl RouteCount {
    /// Counts one delivered message.
    pub fn add(&mut self, d: MessageRoute) {
        self.messages += 1;
        self.nonminimal += u64::from(d.nonminimal);
        self.packets += u64::from(d.packets);
        self.packet_hops += d.packet_hops;
        self.nonminimal_packets += u64::from(d.nonminimal_packets);
    }

    /// Adds another count.
    pub fn merge(&mut self, o: &RouteCount) {
        self.messages += o.messages;
        self.nonminimal += o.nonminimal;
        self.packets += o.packets;
        self.packet_hops += o.packet_hops;
        self.nonminimal_packets += o.nonminimal_packets;
    }
}

/// Holds a request that arrived at `ctx.now()` until `locks` grant its extent locks: `Some`
/// with the message to serve now, or `None` when it was sent back to this LP as
/// [`SimEvent::LockGranted`] for later. Without locks every message is served at once.
fn after_locks(
    locks: &mut Option<ExtentLocks>,
    msg: Box<StorageMsg>,
    ctx: &mut Ctx<'_, SimEvent>,
) -> Option<Box<StorageMsg>> {
    let (Some(locks), StorageMsg::Request(r)) = (locks.as_mut(), msg.as_ref()) else {
        return Some(msg);
    };
    let now = ctx.now();
    let granted = locks.acquire(r, now);
    if granted > now {
        ctx.send_self(granted - now, SimEvent::LockGranted(msg));
        return None;
    }
    Some(msg)
}

fn count(per_job: &mut Vec<RouteCount>, job: u32, d: MessageRoute) {
    let j = job as usize;
    if per_job.len() <= j {
        per_job.resize(j + 1, RouteCount::default());
    }
    per_job[j].add(d);
}

/// A BB server on the network.
#[derive(Debug)]
pub struct BbHost {
    /// Terminal id (also the server's storage endpoint).
    pub terminal: u32,
    /// Its router's pod or group and the router (its cluster and split hints).
    pub place: super::HostPlace,
    nic: Nic<Payload>,
    /// The server model.
    pub server: BbServer,
    actions: Vec<BbAction>,
    /// Requests received per job (request path routing).
    pub per_job: Vec<RouteCount>,
    /// Controller LPs by capacity account: the job controllers, then the persistent
    /// reservations' controllers (stage-in and stage-out completions go there).
    jobctl: Vec<LpId>,
    /// Extent locks of the files on this server (`burst_buffer.extent_locks`).
    pub locks: Option<ExtentLocks>,
}

/// Global file id of job `alloc`'s staged-in input (beyond every workload file).
pub const STAGE_FILE_BASE: u64 = 1 << 62;

impl BbHost {
    /// A host for `server` behind `nic`; `jobctl` are the job controllers.
    pub fn new(
        terminal: u32,
        place: super::HostPlace,
        nic: Nic<Payload>,
        server: BbServer,
        jobctl: Vec<LpId>,
    ) -> Self {
        BbHost {
            terminal,
            place,
            nic,
            server,
            actions: Vec::new(),
            per_job: Vec::new(),
            jobctl,
            locks: None,
        }
    }

    /// The host with extent locks of configuration `cfg` (none for `None`).
    pub fn with_locks(mut self, cfg: Option<LockConfig>) -> Self {
        self.locks = cfg.map(ExtentLocks::new);
        self
    }

    /// The NIC.
    pub fn nic(&self) -> &Nic<Payload> {
        &self.nic
    }

    /// Handles network deliveries, server timers and job ends.
    pub fn handle(&mut self, ev: SimEvent, ctx: &mut Ctx<'_, SimEvent>) {
        let mut out = std::mem::take(&mut self.actions);
        match ev {
            SimEvent::Net(e) => {
                if let Some(d) = self.nic.handle(e, ctx) {
                    let route = d.route;
                    match d.payload {
                        Payload::Storage(mut msg) => {
                            msg.add_hops(u32::from(route.hops));
                            if let StorageMsg::Request(r) = msg.as_ref() {
                                count(&mut self.per_job, r.alloc, route);
                            }
                            if let Some(msg) = after_locks(&mut self.locks, msg, ctx) {
                                self.server.on_message(*msg, ctx, &mut out);
                            }
                        }
                        Payload::Delete { alloc, file } => {
                            self.server.delete_file(alloc, file, ctx, &mut out)
                        }
                        Payload::Rank { .. } => {}
                    }
                }
            }
            SimEvent::Storage(e) => self.server.handle(e, ctx, &mut out),
            SimEvent::LockGranted(msg) => self.server.on_message(*msg, ctx, &mut out),
            SimEvent::Ctl(CtlEvent::JobEnd { alloc }) => self.server.job_end(alloc, ctx, &mut out),
            SimEvent::Ctl(CtlEvent::StageIn { alloc, file, bytes }) => {
                self.server
                    .stage_in(alloc, file, bytes, alloc, ctx, &mut out);
            }
            SimEvent::Ctl(_) | SimEvent::Wake { .. } => {}
        }
        for a in out.drain(..) {
            match a {
                BbAction::Send { to, msg } => {
                    super::send_storage(&mut self.nic, ctx, to.0, msg);
                }
                BbAction::StageInDone { alloc, .. } => {
                    if let Some(&lp) = self.jobctl.get(alloc as usize) {
                        ctx.send(lp, CTL_LATENCY, SimEvent::Ctl(CtlEvent::StageInDone));
                    }
                }
                BbAction::StageOutDone { alloc, staged } => {
                    if let Some(&lp) = self.jobctl.get(alloc as usize) {
                        let ev = CtlEvent::StageOutDone { staged };
                        ctx.send(lp, CTL_LATENCY, SimEvent::Ctl(ev));
                    }
                }
            }
        }
        self.actions = out;
    }
}

/// A PFS I/O node on the network.
#[derive(Debug)]
pub struct IoHost {
    /// Terminal id (the I/O node's storage endpoint).
    pub terminal: u32,
    /// Its router's pod or group and the router (its cluster and split hints).
    pub place: super::HostPlace,
    nic: Nic<Payload>,
    node: IoNode,
    out: Vec<(Endpoint, StorageMsg)>,
    /// Requests received per job.
    pub per_job: Vec<RouteCount>,
    /// Extent locks of the stripes behind this I/O node (`pfs.extent_locks`).
    pub locks: Option<ExtentLocks>,
}

impl IoHost {
    /// A host for the forwarding model `node` behind `nic`.
    pub fn new(terminal: u32, place: super::HostPlace, nic: Nic<Payload>, node: IoNode) -> Self {
        IoHost {
            terminal,
            place,
            nic,
            node,
            out: Vec::new(),
            per_job: Vec::new(),
            locks: None,
        }
    }

    /// The host with extent locks of configuration `cfg` (none for `None`).
    pub fn with_locks(mut self, cfg: Option<LockConfig>) -> Self {
        self.locks = cfg.map(ExtentLocks::new);
        self
    }

    /// The NIC.
    pub fn nic(&self) -> &Nic<Payload> {
        &self.nic
    }

    /// Handles network deliveries and replies from the storage servers.
    pub fn handle(&mut self, ev: SimEvent, ctx: &mut Ctx<'_, SimEvent>) {
        match ev {
            SimEvent::Net(e) => {
                if let Some(d) = self.nic.handle(e, ctx) {
                    let route = d.route;
                    if let Payload::Storage(mut msg) = d.payload {
                        msg.add_hops(u32::from(route.hops));
                        if let StorageMsg::Request(r) = msg.as_ref() {
                            count(&mut self.per_job, r.alloc, route);
                        }
                        if let Some(msg) = after_locks(&mut self.locks, msg, ctx) {
                            self.node.on_message(*msg, ctx);
                        }
                    }
                }
            }
            SimEvent::Storage(StorageEvent::Pfs(p)) => {
                let mut out = std::mem::take(&mut self.out);
                self.node.handle(p, &mut out);
                for (to, msg) in out.drain(..) {
                    super::send_storage(&mut self.nic, ctx, to.0, msg);
                }
                self.out = out;
            }
            SimEvent::LockGranted(msg) => self.node.on_message(*msg, ctx),
            _ => {}
        }
    }
}
