//! The simulation model: one LP enum and one event enum over the network, storage and
//! workload models.
//!
//! LPs, in LP-id order: the routers, one host per terminal (compute nodes first, then BB
//! servers, then PFS I/O nodes), the PFS backend, and one job controller per job.

pub mod cache;
pub mod files;
pub mod hosts;
pub mod jobctl;
pub mod local_drain;
pub mod local_store;
pub mod node;
pub mod op_log;
pub mod rank_io;
pub mod resctl;

use bbsim_engine::time::US;
use bbsim_engine::{Ctx, LogicalProcess, LpId, Time};
use bbsim_storage::{PfsBackend, StorageEvent, StorageMsg};
use bbsim_topology::flow::FlowFabric;
use bbsim_topology::packet::NetEvent;
use bbsim_topology::path::PathFabric;
use bbsim_topology::router::Router;
use bbsim_topology::Nic;

pub use hosts::{BbHost, IoHost};
pub use jobctl::JobCtl;
pub use node::{NodeLp, Target};
pub use op_log::{OpLog, OpRecord, TargetTable};
pub use resctl::ResCtl;

/// Where a host LP (compute node, BB server, PFS I/O node) sits for partitioning: the pod or
/// group of its router (its cluster hint) and the router itself (its split hint).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostPlace {
    /// The router's pod, group or torus slab.
    pub cluster: u32,
    /// The router the host hangs off.
    pub router: u32,
}

impl HostPlace {
    /// The place of terminal `t` in `topo` (router 0 for a terminal the topology lacks, which
    /// lowering rules out).
    pub fn of(topo: &bbsim_topology::Topology, t: u32) -> Self {
        HostPlace {
            cluster: topo.terminal_cluster(t),
            router: topo.router_of(t).unwrap_or(0),
        }
    }
}

/// Latency of job-control messages (barrier arrival and release, rank and job completion):
/// the modelled cost of a barrier is two of these. Also the lookahead of those channels.
pub const CTL_LATENCY: Time = US;

/// Lookahead class of routers.
pub const ROUTER: u16 = 0;
/// Lookahead class of compute-node hosts.
pub const NODE: u16 = 1;
/// Lookahead class of BB-server hosts.
pub const BB: u16 = 2;
/// Lookahead class of PFS I/O-node hosts.
pub const IO: u16 = 3;
/// Lookahead class of the PFS backend.
pub const PFS: u16 = 4;
/// Lookahead class of job controllers.
pub const CTL: u16 = 5;
/// Class names, indexed by class.
pub const CLASS_NAMES: [&str; 6] = [
    "router",
    "node",
    "bb-server",
    "io-node",
    "pfs",
    "job-control",
];

/// What rides on the network: storage messages, and file deletions (TRIM) sent to BB servers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Payload {
    /// A storage request or reply (boxed: only a message's last packet carries it).
    Storage(Box<StorageMsg>),
    /// A file was deleted: free (TRIM) its data on the receiving BB server.
    Delete {
        /// Job (capacity account).
        alloc: u32,
        /// Global file id.
        file: u64,
    },
    /// A point-to-point message between two ranks of the job running on both compute nodes
    /// ([`bbsim_workload::Op::Send`]); its bytes are the network message's data.
    Rank {
        /// Sending rank (job-local).
        from: u32,
        /// Receiving rank (job-local).
        to: u32,
        /// Bytes carried.
        bytes: u64,
    },
}

/// Sends storage message `msg` from `nic` to terminal `to`: its data in packets, its
/// [`bbsim_storage::request::HEADER_BYTES`] header riding in the first one.
pub(crate) fn send_storage(
    nic: &mut Nic<Payload>,
    ctx: &mut Ctx<'_, SimEvent>,
    to: u32,
    msg: StorageMsg,
) {
    let data = msg.data_bytes();
    let header = bbsim_storage::request::HEADER_BYTES as u32;
    nic.send_framed(ctx, to, data, header, Payload::Storage(Box::new(msg)));
}

/// Job-control messages between compute nodes and job controllers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CtlEvent {
    /// A rank reached barrier number `seq` of communicator `comm`.
    Arrive {
        /// Communicator (0 = the whole job).
        comm: u32,
        /// Barrier sequence number on that communicator.
        seq: u32,
    },
    /// Every member reached the barrier: continue.
    Release {
        /// Communicator.
        comm: u32,
        /// Barrier sequence number.
        seq: u32,
    },
    /// A rank finished all its operations.
    RankDone,
    /// A job finished (sent to BB servers, which may start draining).
    JobEnd {
        /// The job.
        alloc: u32,
    },
    /// A parent of this controller's job finished (workflow dependency).
    ParentDone,
    /// Stage `bytes` of global file `file` of allocation `alloc` from the PFS into this BB
    /// server (server-local offsets `0..bytes`).
    StageIn {
        /// The job or reservation.
        alloc: u32,
        /// Global file id.
        file: u64,
        /// Bytes for this server.
        bytes: u64,
    },
    /// A BB server has staged out everything the ended job or reservation left in it.
    StageOutDone {
        /// Whether it had anything to stage out (false: nothing was left dirty there).
        staged: bool,
    },
    /// A rank closed global file `file` (to its job's controller, when a consumer waits for
    /// the job's files).
    Closed {
        /// Global file id.
        file: u64,
    },
    /// Rank `local` of compute node `node` wants to open input `file`: answer with
    /// `FileReady` once its producer closed it (to the consumer's controller).
    WaitFile {
        /// Global file id.
        file: u64,
        /// The asking compute node.
        node: LpId,
        /// Rank index on that node.
        local: u32,
    },
    /// Global file `file` is complete (producer controller to consumer controller; consumer
    /// controller to the waiting node, for its rank `local`).
    FileReady {
        /// Global file id.
        file: u64,
        /// Rank index on the receiving node (unused between controllers).
        local: u32,
    },
    /// A job using a persistent reservation ended (to the reservation's controller).
    UserDone,
    /// A BB server finished its share of the job's stage-in.
    StageInDone,
    /// Start the job's ranks on this node (sent by the job controller once its parents are
    /// done).
    Start,
}

/// The events of the whole model.
#[derive(Clone, Debug)]
pub enum SimEvent {
    /// Network (packets, credits, router and NIC timers).
    Net(NetEvent<Payload>),
    /// Storage device and server timers.
    Storage(StorageEvent),
    /// A rank's compute phase ended (or the job starts): continue local rank `local`.
    Wake {
        /// Index of the rank on its node.
        local: u32,
    },
    /// Job control.
    Ctl(CtlEvent),
    /// At a BB server or PFS I/O node: the extent locks of this request (held back since it
    /// arrived) are granted; serve it now.
    LockGranted(Box<StorageMsg>),
}

impl From<NetEvent<Payload>> for SimEvent {
    fn from(e: NetEvent<Payload>) -> Self {
        SimEvent::Net(e)
    }
}

impl From<StorageEvent> for SimEvent {
    fn from(e: StorageEvent) -> Self {
        SimEvent::Storage(e)
    }
}

/// Every LP of the model.
pub enum SimLp {
    /// A network router.
    Router(Box<Router<Payload>>),
    /// The path model's network fabric (all routers' links in one LP).
    Fabric(Box<PathFabric<Payload>>),
    /// The flow model's network fabric (all routers' links in one LP).
    Flows(Box<FlowFabric<Payload>>),
    /// A compute node: its NIC, its ranks, and its node-local SSD if any.
    Node(Box<NodeLp>),
    /// A burst-buffer server: its NIC and the server model.
    Bb(Box<BbHost>),
    /// A PFS I/O node: its NIC and the forwarding model.
    Io(Box<IoHost>),
    /// The PFS storage servers.
    Pfs(Box<PfsBackend>),
    /// A job controller (barriers, completion).
    Job(Box<JobCtl>),
    /// A persistent reservation's controller (teardown, stage-out).
    Res(Box<ResCtl>),
}

impl std::fmt::Debug for SimLp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

impl LogicalProcess for SimLp {
    type Event = SimEvent;

    fn init(&mut self, ctx: &mut Ctx<'_, SimEvent>) {
        match self {
            SimLp::Node(n) => n.init(ctx),
            SimLp::Job(j) => j.init(ctx),
            _ => {}
        }
    }

    fn handle(&mut self, ev: SimEvent, ctx: &mut Ctx<'_, SimEvent>) {
        match self {
            SimLp::Router(r) => {
                if let SimEvent::Net(e) = ev {
                    r.handle(e, ctx);
                }
            }
            SimLp::Fabric(f) => {
                if let SimEvent::Net(e) = ev {
                    f.handle(e, ctx);
                }
            }
            SimLp::Flows(f) => {
                if let SimEvent::Net(e) = ev {
                    f.handle(e, ctx);
                }
            }
            SimLp::Node(n) => n.handle(ev, ctx),
            SimLp::Bb(b) => b.handle(ev, ctx),
            SimLp::Io(i) => i.handle(ev, ctx),
            SimLp::Pfs(p) => {
                if let SimEvent::Storage(StorageEvent::Pfs(e)) = ev {
                    p.handle(e, ctx);
                }
            }
            SimLp::Job(j) => j.handle(ev, ctx),
            SimLp::Res(r) => r.handle(ev, ctx),
        }
    }

    fn class(&self) -> u16 {
        match self {
            SimLp::Router(_) | SimLp::Fabric(_) | SimLp::Flows(_) => ROUTER,
            SimLp::Node(_) => NODE,
            SimLp::Bb(_) => BB,
            SimLp::Io(_) => IO,
            SimLp::Pfs(_) => PFS,
            SimLp::Job(_) | SimLp::Res(_) => CTL,
        }
    }

    fn cluster_hint(&self) -> Option<u32> {
        Some(match self {
            SimLp::Router(r) => r.cluster_hint(),
            SimLp::Fabric(_) | SimLp::Flows(_) => 0,
            SimLp::Node(n) => n.place.cluster,
            SimLp::Bb(b) => b.place.cluster,
            SimLp::Io(i) => i.place.cluster,
            SimLp::Pfs(_) => u32::MAX,
            SimLp::Job(j) => u32::MAX - 1 - j.job,
            SimLp::Res(r) => u32::MAX - 1 - r.alloc,
        })
    }

    /// Within a pod or group, each router with the hosts behind it is a cluster of its own,
    /// so the pod holding the global burst-buffer servers can be spread over threads.
    fn split_hint(&self) -> Option<u32> {
        match self {
            SimLp::Router(r) => Some(r.id()),
            SimLp::Node(n) => Some(n.place.router),
            SimLp::Bb(b) => Some(b.place.router),
            SimLp::Io(i) => Some(i.place.router),
            _ => None,
        }
    }

    #[inline]
    fn prefetch(&self) {
        match self {
            SimLp::Router(r) => bbsim_engine::prefetch(&**r),
            SimLp::Fabric(_) | SimLp::Flows(_) => {} // one LP, always in cache
            SimLp::Node(n) => bbsim_engine::prefetch(&**n),
            SimLp::Bb(b) => bbsim_engine::prefetch(&**b),
            SimLp::Io(i) => bbsim_engine::prefetch(&**i),
            SimLp::Pfs(p) => bbsim_engine::prefetch(&**p),
            SimLp::Job(j) => bbsim_engine::prefetch(&**j),
            SimLp::Res(r) => bbsim_engine::prefetch(&**r),
        }
    }

    fn label(&self) -> String {
        match self {
            SimLp::Router(r) => r.label(),
            SimLp::Fabric(f) => f.label(),
            SimLp::Flows(f) => f.label(),
            SimLp::Node(n) => format!("compute node {}", n.terminal),
            SimLp::Bb(b) => format!("BB server on terminal {}", b.terminal),
            SimLp::Io(i) => format!("PFS I/O node on terminal {}", i.terminal),
            SimLp::Pfs(_) => "PFS servers".into(),
            SimLp::Job(j) => format!("job controller {}", j.job),
            SimLp::Res(r) => format!("reservation controller {}", r.name),
        }
    }
}
