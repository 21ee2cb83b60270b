//! Assembly: a validated design becomes one simulation. LP ids, LP construction and the
//! lookahead table; nothing here checks user input (lowering did).
//!
//! LP order: routers (or the path or flow model's one fabric LP), then one host per terminal
//! (compute nodes, BB servers, PFS I/O nodes, in terminal order), then the PFS backend, then
//! one job controller per job, then one controller per persistent reservation.

use crate::lower::allocation::{closes, server_unit_bounds, JobLayout};
use crate::lower::machine::Machine;
use crate::lower::pfs::PFS_FORWARD_LATENCY;
use crate::lower::Design;
use crate::model::hosts::STAGE_FILE_BASE;
use crate::model::node::NodeShared;
use crate::model::{
    BbHost, HostPlace, IoHost, JobCtl, NodeLp, ResCtl, SimLp, BB, CLASS_NAMES, CTL, CTL_LATENCY,
    IO, NODE, PFS, ROUTER,
};
use crate::scenario::{Placement, Scenario};
use bbsim_engine::{LookaheadTable, LpId, SimConfig, Simulation, Time};
use bbsim_storage::client_gate::FsClients;
use bbsim_storage::placement::Layout;
use bbsim_storage::{BbServer, Endpoint, IoNode, PfsBackend, Ssd};
use bbsim_topology::network::{LpLayout, NetModel};
use bbsim_workload::{CommId, Workload};
use std::sync::Arc;

/// Where every job and rank landed.
#[derive(Clone, Debug)]
pub struct Placed {
    /// Compute nodes of each job, in the job's node order (rank `r` runs on
    /// `nodes[job][r / ranks_per_node]`).
    pub nodes: Vec<Vec<u32>>,
    /// LP id of each compute node's host.
    pub node_lp: Vec<LpId>,
    /// LP ids of the BB-server hosts.
    pub bb_lps: Vec<LpId>,
    /// LP ids of the I/O-node hosts.
    pub io_lps: Vec<LpId>,
    /// LP id of each job controller.
    pub jobctl: Vec<LpId>,
    /// Number of network LPs before the first host (LPs `0..routers`): the routers, or 1 (the
    /// fabric) in the path model.
    pub routers: u32,
    /// First global file id of each job.
    pub file_base: Vec<u64>,
    /// LP id of each persistent reservation's controller.
    pub resctl: Vec<LpId>,
    /// BB servers (indices) of each job's DataWarp allocation (empty without one).
    pub job_dw_servers: Vec<Vec<usize>>,
    /// BB servers (indices) and granted bytes of each persistent reservation.
    pub reservations: Vec<(Vec<usize>, u64)>,
}

/// LP ids of everything but the routers.
struct LpIds {
    /// Network LPs before the first host.
    net_lps: u32,
    /// Each terminal's host.
    layout: LpLayout,
    backend: LpId,
    jobctl: Vec<LpId>,
    resctl: Vec<LpId>,
    /// Job controllers, then reservation controllers: by allocation id.
    ctl_by_alloc: Vec<LpId>,
    node_lp: Vec<LpId>,
    bb_lps: Vec<LpId>,
    io_lps: Vec<LpId>,
}

/// Numbers the LPs (see the module docs for the order).
fn lp_ids(machine: &Machine, jobs: u32, reservations: u32) -> LpIds {
    let net = &machine.network;
    let terminals = net.terminals();
    let layout = LpLayout::for_model(net.model(), net.routers(), terminals);
    // Network LPs before the hosts: the routers, or the path or flow model's one fabric.
    let net_lps = match net.model() {
        NetModel::Packet => net.routers(),
        NetModel::Path | NetModel::Flow => 1,
    };
    let first_ctl = net_lps + terminals + 1;
    let jobctl: Vec<LpId> = (0..jobs).map(|j| LpId(first_ctl + j)).collect();
    let resctl: Vec<LpId> = (0..reservations)
        .map(|r| LpId(first_ctl + jobs + r))
        .collect();
    let mut ctl_by_alloc = jobctl.clone();
    ctl_by_alloc.extend(resctl.iter().copied());
    let host = |t: u32| layout.terminals[t as usize];
    LpIds {
        net_lps,
        backend: LpId(net_lps + terminals),
        node_lp: (0..machine.compute_nodes).map(host).collect(),
        bb_lps: machine.bb_terminals.iter().map(|&t| host(t)).collect(),
        io_lps: machine.io_terminals.iter().map(|&t| host(t)).collect(),
        layout,
        jobctl,
        resctl,
        ctl_by_alloc,
    }
}

/// What every compute node's LP shares: the workload, where files live, endpoints.
fn node_shared(
    s: &Scenario,
    machine: &Machine,
    workload: &Arc<Workload>,
    jl: &JobLayout,
    ids: &LpIds,
    clients: FsClients,
) -> Arc<NodeShared> {
    Arc::new(NodeShared {
        workload: Arc::clone(workload),
        placement: machine.placement,
        bb_endpoints: machine.bb_terminals.iter().map(|&t| Endpoint(t)).collect(),
        io_endpoints: machine.io_terminals.iter().map(|&t| Endpoint(t)).collect(),
        jobctl: ids.jobctl.clone(),
        file_base: jl.file_base.clone(),
        file_extent: jl.file_extent.clone(),
        local_capacity: machine.local_ssd.as_ref().map_or(0, |c| c.capacity),
        bb_lps: ids.bb_lps.clone(),
        has_parents: jl
            .parents
            .iter()
            .zip(&s.jobs)
            .zip(&jl.stage_work)
            .map(|((p, j), w)| {
                let staged =
                    j.stage_in.is_some_and(|b| b.0 > 0) && machine.placement != Placement::None;
                !p.is_empty() || staged || !w.is_empty()
            })
            .collect(),
        files: jl.files.clone(),
        local_drain: jl.local_drain,
        local_full_policy: s.burst_buffer.full_policy,
        keep_records: s.outputs.timeline,
        train_ops: jl.train_ops,
        clients,
        pfs_metadata: machine.pfs.metadata.is_some(),
        job_nodes: jl.nodes.clone(),
    })
}

/// The network's LPs: routers, or one fabric LP.
fn network_lps(machine: &Machine, ids: &LpIds, lps: &mut Vec<SimLp>) {
    let net = &machine.network;
    match net.model() {
        NetModel::Packet => {
            for r in net.build_routers(&ids.layout, ROUTER) {
                lps.push(SimLp::Router(Box::new(r)));
            }
        }
        NetModel::Path => {
            let fabric = net.build_path_fabric(&ids.layout, ROUTER);
            lps.push(SimLp::Fabric(Box::new(fabric)));
        }
        NetModel::Flow => {
            let fabric = net.build_flow_fabric(&ids.layout, ROUTER);
            lps.push(SimLp::Flows(Box::new(fabric)));
        }
    }
}

/// Everything the terminal hosts need besides their own terminal.
struct HostInputs<'a> {
    s: &'a Scenario,
    machine: &'a Machine,
    jl: &'a JobLayout,
    ids: &'a LpIds,
    shared: Arc<NodeShared>,
    /// Per BB server, the most allocation units the workload can hold on it at once.
    unit_bounds: Vec<u64>,
}

/// A compute node's host: its NIC, the job and ranks it runs, its stripe sets, its SSD.
fn compute_host(h: &HostInputs, t: u32, job: Option<(u32, Vec<u32>)>, index: u32) -> SimLp {
    let (s, machine) = (h.s, h.machine);
    let net = &machine.network;
    let nic = net
        .nic(t, &h.ids.layout)
        .expect("lowered networks attach every terminal");
    let (job, ranks) = job.map_or((None, Vec::new()), |(j, r)| (Some(j), r));
    let bb_layout = h.jl.node_stripes[t as usize].clone().map(|servers| Layout {
        servers,
        stripe_size: s.burst_buffer.stripe_size.0,
    });
    let n_io = machine.io_terminals.len().max(1);
    let first = t as usize % n_io;
    let pfs_layout = Layout {
        servers: (0..n_io).map(|i| (first + i) % n_io).collect(),
        stripe_size: s.pfs.stripe_size.0,
    };
    let local = match (&machine.local_ssd, job) {
        (Some(cfg), Some(_)) => {
            Some(Ssd::new(0, cfg.clone()).expect("lowering validated the node-local SSD"))
        }
        _ => None,
    };
    SimLp::Node(Box::new(NodeLp::new(
        t,
        HostPlace::of(net.topology(), t),
        nic,
        Arc::clone(&h.shared),
        job,
        ranks,
        bb_layout,
        pfs_layout,
        local,
        index,
    )))
}

/// A BB server's host, with every reservation it grants.
fn bb_host(h: &HostInputs, t: u32, index: usize) -> SimLp {
    let machine = h.machine;
    let cfg = machine
        .bb_server
        .as_ref()
        .expect("BB terminals have a server");
    let io: Vec<Endpoint> = machine.io_terminals.iter().map(|&t| Endpoint(t)).collect();
    let mut server =
        BbServer::new(cfg.clone(), Endpoint(t), io).expect("lowering validated the BB server");
    for &(alloc, bytes) in &h.jl.server_grants[index] {
        server
            .reserve(alloc, bytes)
            .expect("lowering checked every reservation");
    }
    server.bound_allocations(h.unit_bounds[index]);
    let nic = machine
        .network
        .nic(t, &h.ids.layout)
        .expect("lowered networks attach every terminal");
    SimLp::Bb(Box::new(
        BbHost::new(
            t,
            HostPlace::of(machine.network.topology(), t),
            nic,
            server,
            h.ids.ctl_by_alloc.clone(),
        )
        .with_locks(machine.bb_locks),
    ))
}

/// A PFS I/O node's host.
fn io_host(h: &HostInputs, t: u32) -> SimLp {
    let net = &h.machine.network;
    let nic = net
        .nic(t, &h.ids.layout)
        .expect("lowered networks attach every terminal");
    let node = IoNode::new(Endpoint(t), h.ids.backend, &h.machine.pfs);
    SimLp::Io(Box::new(
        IoHost::new(t, HostPlace::of(net.topology(), t), nic, node).with_locks(h.machine.pfs_locks),
    ))
}

/// One host LP per terminal, in terminal order.
fn host_lps(h: &HostInputs, lps: &mut Vec<SimLp>) {
    let machine = h.machine;
    for t in 0..machine.network.terminals() {
        if t < machine.compute_nodes {
            let job = h.jl.node_ranks[t as usize].clone();
            lps.push(compute_host(h, t, job, h.jl.node_index[t as usize]));
        } else if let Some(index) = machine
            .bb_server
            .as_ref()
            .and_then(|_| machine.bb_terminals.iter().position(|&b| b == t))
        {
            lps.push(bb_host(h, t, index));
        } else {
            lps.push(io_host(h, t));
        }
    }
}

/// Job `j`'s controller: its communicators, dependencies, stage-in, reservation and
/// in-transit consumers.
fn job_controller(
    s: &Scenario,
    machine: &Machine,
    workload: &Workload,
    jl: &JobLayout,
    ids: &LpIds,
    j: usize,
) -> JobCtl {
    let job = &workload.jobs[j];
    let comms = 1 + job.subcomms.len();
    let mut sizes = Vec::with_capacity(comms);
    let mut comm_nodes = Vec::with_capacity(comms);
    for c in 0..comms as u32 {
        let members = job.comm_members(CommId(c)).unwrap_or_default();
        sizes.push(members.len() as u32);
        let mut lpids: Vec<LpId> = members
            .iter()
            .map(|&r| ids.node_lp[jl.nodes[j][job.node_of_rank(r) as usize] as usize])
            .collect();
        lpids.sort();
        lpids.dedup();
        comm_nodes.push(lpids);
    }
    let children: Vec<LpId> = (0..workload.jobs.len())
        .filter(|&c| jl.parents[c].contains(&j))
        .map(|c| ids.jobctl[c])
        .collect();
    let job_nodes: Vec<LpId> = comm_nodes.first().cloned().unwrap_or_default();
    let mut ctl = JobCtl::new(j as u32, job.ranks(), sizes, comm_nodes, ids.bb_lps.clone())
        .with_dependencies(
            jl.parents[j].len() as u32,
            children,
            job_nodes,
            job.start_ps,
        );
    let granted = machine.placement != Placement::None && jl.job_dw[j].is_none();
    let files = &jl.files;
    if let Some(bytes) = s.jobs[j].stage_in.filter(|b| b.0 > 0 && granted) {
        let servers: Vec<LpId> = jl.job_servers[j]
            .iter()
            .filter_map(|&i| ids.bb_lps.get(i).copied())
            .collect();
        let each = bytes.0.div_ceil(servers.len().max(1) as u64);
        let items = servers
            .into_iter()
            .map(|lp| (lp, STAGE_FILE_BASE + j as u64, each))
            .collect();
        ctl = ctl.with_stage_in(j as u32, items);
    } else if !jl.stage_work[j].is_empty() {
        let items = jl.stage_work[j]
            .iter()
            .filter_map(|&(srv, f, b)| ids.bb_lps.get(srv).map(|&lp| (lp, f, b)))
            .collect();
        ctl = ctl.with_stage_in(files[j].alloc, items);
    }
    if files[j].persistent {
        if let Some(&lp) = ids.ctl_by_alloc.get(files[j].alloc as usize) {
            ctl = ctl.with_reservation(lp);
        }
    }
    if files[j].watched {
        let consumers: Vec<LpId> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.inputs
                    .is_some_and(|i| i.in_transit && i.producer == j as u32)
            })
            .map(|(c, _)| ids.jobctl[c])
            .collect();
        ctl = ctl.with_consumers(closes(workload, j, jl.file_base[j]), consumers);
    }
    ctl
}

/// Persistent reservation `r`'s controller.
fn reservation_controller(s: &Scenario, jl: &JobLayout, ids: &LpIds, r: usize) -> ResCtl {
    let njobs = jl.job_dw.len() as u32;
    let a = &jl.reservations[r];
    let users = jl
        .files
        .iter()
        .filter(|f| f.persistent && f.alloc == njobs + r as u32)
        .count() as u32;
    let servers: Vec<LpId> = a
        .servers
        .iter()
        .filter_map(|&i| ids.bb_lps.get(i).copied())
        .collect();
    ResCtl::new(
        njobs + r as u32,
        s.reservations[r].name.clone(),
        users,
        servers,
    )
}

/// The lookahead between LP classes: the network's link latencies, the I/O node to PFS
/// channel, and the control channels of jobs and reservations.
pub(crate) fn lookahead(machine: &Machine) -> LookaheadTable {
    let mut table = LookaheadTable::with_classes(CLASS_NAMES);
    machine
        .network
        .declare_lookahead(&mut table, ROUTER, &[NODE, BB, IO]);
    table.declare_both(IO, PFS, PFS_FORWARD_LATENCY);
    table.declare_both(NODE, CTL, CTL_LATENCY);
    table.declare(CTL, BB, CTL_LATENCY);
    table.declare(CTL, CTL, CTL_LATENCY);
    table.declare(BB, CTL, CTL_LATENCY);
    table
}

/// Builds the simulation of a validated design.
pub fn assemble(s: &Scenario, d: &Design) -> (Simulation<SimLp>, Placed) {
    let (machine, workload, jl) = (&d.machine, &d.workload, &d.jobs);
    let njobs = workload.jobs.len() as u32;
    let ids = lp_ids(machine, njobs, jl.reservations.len() as u32);
    let staged = jl.stage_work.iter().any(|w| !w.is_empty());
    let hosts = HostInputs {
        s,
        machine,
        jl,
        ids: &ids,
        shared: node_shared(s, machine, workload, jl, &ids, d.clients),
        unit_bounds: machine.bb_server.as_ref().map_or_else(Vec::new, |cfg| {
            server_unit_bounds(
                workload,
                jl,
                machine.bb_terminals.len(),
                s.burst_buffer.stripe_count,
                cfg.unit,
                staged,
            )
        }),
    };
    let terminals = machine.network.terminals();
    let mut lps: Vec<SimLp> =
        Vec::with_capacity((ids.net_lps + terminals + 1) as usize + ids.jobctl.len());
    network_lps(machine, &ids, &mut lps);
    host_lps(&hosts, &mut lps);
    let backend = PfsBackend::new(machine.pfs.clone()).expect("lowering validated the PFS");
    lps.push(SimLp::Pfs(Box::new(backend)));
    for j in 0..workload.jobs.len() {
        let ctl = job_controller(s, machine, workload, jl, &ids, j);
        lps.push(SimLp::Job(Box::new(ctl)));
    }
    for r in 0..jl.reservations.len() {
        lps.push(SimLp::Res(Box::new(reservation_controller(s, jl, &ids, r))));
    }
    let end: Time = s.simulation.end_time.map_or(Time::MAX, |d| d.0);
    let sim = Simulation::new(
        lps,
        lookahead(machine),
        SimConfig {
            seed: s.simulation.seed,
            end_time: end,
            partition: s.simulation.partition.spec(),
        },
    );
    let placed = Placed {
        nodes: jl.nodes.clone(),
        node_lp: ids.node_lp,
        bb_lps: ids.bb_lps,
        io_lps: ids.io_lps,
        jobctl: ids.jobctl,
        routers: ids.net_lps,
        file_base: jl.file_base.clone(),
        resctl: ids.resctl,
        job_dw_servers: jl
            .job_dw
            .iter()
            .map(|a| a.as_ref().map(|a| a.servers.clone()).unwrap_or_default())
            .collect(),
        reservations: jl
            .reservations
            .iter()
            .map(|a| (a.servers.clone(), a.granted))
            .collect(),
    };
    (sim, placed)
}

#[cfg(test)]
mod tests {
    use super::server_unit_bounds;
    use crate::model::SimLp;
    use crate::run::{load_scenario, Loaded};
    use std::path::Path;

    /// `scenarios/<name>` with `overrides` (`key=value`).
    fn load(name: &str, overrides: &[&str]) -> Loaded {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../scenarios")
            .join(name);
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        load_scenario(&path, &overrides).expect("valid scenario")
    }

    /// Whether each BB server of `scenarios/summit-global.toml` (IOR, 768 ranks writing
    /// 16 MiB each in 1 MiB transfers: at most 98,304 + 2 x 12,288 units of 128 KiB), with
    /// `overrides`, keeps a drain queue.
    fn queues(overrides: &[&str]) -> Vec<bool> {
        let (sim, _) = load("summit-global.toml", overrides).build();
        sim.lps()
            .filter_map(|l| match l {
                SimLp::Bb(b) => Some(b.server.keeps_drain_order()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn servers_keep_a_drain_queue_only_where_something_can_drain() {
        // No drain and 28.8 TB per server: no write can stall, so no queue.
        let q = queues(&[]);
        assert_eq!(q.len(), 270);
        assert!(q.iter().all(|&k| !k));
        // A drain policy reads the queue.
        assert!(queues(&["burst_buffer.drain.policy=job-end"])
            .iter()
            .all(|&k| k));
        // A server holds at most a quarter of each file's 128 stripe units (stripe_count 4):
        // 768 x 32 = 24,576 units on each server the nodes stripe over, none elsewhere. 18 SSDs
        // of 0.15 GB hold 18 x 1,144 = 20,592 units: a write could stall there, and a stall
        // drains; the servers no node stripes over keep no queue.
        let q = queues(&["burst_buffer.ssd.capacity=0.15GB"]);
        let used = q.iter().filter(|&&k| k).count();
        assert!(used > 0 && used < q.len(), "{used} of {} queues", q.len());
        // 18 x 0.2 GB hold 27,450: room for all of them again (the bound by bytes written,
        // 98,304 units plus 2 per write, would have kept a queue up to 0.9 GB per SSD).
        assert!(queues(&["burst_buffer.ssd.capacity=0.2GB"])
            .iter()
            .all(|&k| !k));
    }

    /// Runs the quickstart with `overrides`; returns, per BB server, its bound on units held
    /// at once, the most units it held, and the bound by bytes written alone.
    fn bounds_and_peaks(overrides: &[&str]) -> Vec<(u64, u64, u64)> {
        bounds_and_peaks_of(load("quickstart.toml", overrides))
    }

    /// [`bounds_and_peaks`] of a loaded scenario.
    fn bounds_and_peaks_of(loaded: Loaded) -> Vec<(u64, u64, u64)> {
        let d = &loaded.design;
        let unit = d.machine.bb_server.as_ref().expect("BB servers").unit;
        let bounds = server_unit_bounds(
            &d.workload,
            &d.jobs,
            d.machine.bb_terminals.len(),
            loaded.scenario.burst_buffer.stripe_count,
            unit,
            false,
        );
        let by_bytes: u64 = d
            .workload
            .jobs
            .iter()
            .map(|j| j.totals().bytes_written / unit + 2 * j.totals().writes)
            .sum();
        let (mut sim, _) = loaded.build();
        sim.run(&bbsim_engine::Sequential::default())
            .expect("the quickstart runs");
        let peaks: Vec<u64> = sim
            .lps()
            .filter_map(|l| match l {
                SimLp::Bb(b) => Some(b.server.capacity().occupancy().peak() / unit),
                _ => None,
            })
            .collect();
        assert_eq!(peaks.len(), bounds.len());
        bounds
            .into_iter()
            .zip(peaks)
            .map(|(b, p)| (b, p, by_bytes))
            .collect()
    }

    #[test]
    fn no_server_holds_more_units_than_its_bound() {
        for overrides in [
            &[][..],
            &["burst_buffer.placement=global"][..],
            &["burst_buffer.stripe_count=1"][..],
            &[
                "burst_buffer.grain=1GB",
                "jobs.0.bb_capacity=2GB",
                "jobs.1.bb_capacity=1GB",
            ][..],
            &[
                "burst_buffer.grain=1GB",
                "burst_buffer.access_mode=private",
                "jobs.0.bb_capacity=2GB",
                "jobs.1.bb_capacity=1GB",
            ][..],
        ] {
            let servers = bounds_and_peaks(overrides);
            assert!(
                servers.iter().any(|&(_, peak, _)| peak > 0),
                "{overrides:?}"
            );
            for (i, &(bound, peak, by_bytes)) in servers.iter().enumerate() {
                assert!(
                    peak <= bound,
                    "{overrides:?}: server {i} held {peak} > {bound}"
                );
                assert!(bound <= by_bytes, "{overrides:?}: server {i}");
            }
        }
        // With per-node stripe sets the file extents bound each server well below the bytes
        // written: 48 ranks' 16 MiB of IOR and 2 x 8 MiB checkpoints over 4 servers.
        for (bound, _, by_bytes) in bounds_and_peaks(&[]) {
            assert!(bound < by_bytes / 2, "{bound} of {by_bytes}");
        }
        // DataWarp allocations of 2 and 1 grains: only their 2 servers (the second grant
        // starts on the least loaded server) hold anything; the striped IOR files (one
        // stripe set of 2 servers) bound each at about half the bytes written.
        let dw = [
            "burst_buffer.grain=1GB",
            "jobs.0.bb_capacity=2GB",
            "jobs.1.bb_capacity=1GB",
        ];
        let servers = bounds_and_peaks(&dw);
        let holding: Vec<_> = servers.iter().filter(|s| s.0 > 0).collect();
        assert!(
            (2..=3).contains(&holding.len()),
            "{} of {} servers bounded above 0",
            holding.len(),
            servers.len()
        );
        assert!(
            holding
                .iter()
                .any(|&&(bound, _, by_bytes)| bound < by_bytes * 2 / 3),
            "{holding:?}"
        );
    }

    #[test]
    fn writes_into_another_jobs_reservation_count_on_its_servers() {
        // `tiny-workflow`: `sim` writes three checkpoints into the persistent reservation
        // `shared`, `viz` reads them in transit and writes to its own allocation, `post` reads
        // them through `shared`. Every server stays within its bound, and the servers no
        // allocation holds are bounded at 0.
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/data/tiny-workflow.toml");
        let loaded = load_scenario(&path, &[]).expect("valid scenario");
        let granted: std::collections::BTreeSet<usize> = loaded
            .design
            .jobs
            .reservations
            .iter()
            .chain(loaded.design.jobs.job_dw.iter().flatten())
            .flat_map(|a| a.servers.iter().copied())
            .collect();
        let servers = bounds_and_peaks_of(loaded);
        assert!(servers.iter().any(|&(_, peak, _)| peak > 0));
        for (i, &(bound, peak, _)) in servers.iter().enumerate() {
            assert!(peak <= bound, "server {i} held {peak} > {bound}");
            assert_eq!(bound > 0, granted.contains(&i), "server {i}: {bound}");
        }
    }

    #[test]
    fn each_router_and_the_hosts_behind_it_are_a_cluster_of_their_pod() {
        // The Summit-like global placement: 270 BB servers in one pod of a k=36 fat-tree. By
        // default each pod is one cluster.
        let (whole, _) = load("summit-global.toml", &[]).build();
        assert_eq!(whole.partition().clusters(), whole.partition().regions());
        let (sim, _) = load("summit-global.toml", &["simulation.partition=routers"]).build();
        let p = sim.partition();
        assert_eq!(p.regions(), whole.partition().regions());
        let mut router_of_cluster = vec![None; p.clusters()];
        let mut routers = 0;
        for (i, lp) in sim.lps().enumerate() {
            if let SimLp::Router(r) = lp {
                routers += 1;
                let c = p.assignment()[i] as usize;
                assert_eq!(
                    router_of_cluster[c].replace(r.id()),
                    None,
                    "one router each"
                );
            }
        }
        assert_eq!(routers, 897);
        let mut bb_regions = std::collections::BTreeSet::new();
        for (i, lp) in sim.lps().enumerate() {
            let (router, pod) = match lp {
                SimLp::Node(n) => (n.place.router, n.place.cluster),
                SimLp::Bb(b) => (b.place.router, b.place.cluster),
                SimLp::Io(h) => (h.place.router, h.place.cluster),
                _ => continue,
            };
            let c = p.assignment()[i] as usize;
            assert_eq!(
                router_of_cluster[c],
                Some(router),
                "a host is with its router"
            );
            // The region is the router's pod: hosts of one pod share a region.
            assert_eq!(p.region_assignment()[i], p.regions_of_clusters()[c]);
            if matches!(lp, SimLp::Bb(_)) {
                bb_regions.insert((pod, p.region_assignment()[i]));
            }
        }
        // Every BB server sits in one pod, now spread over that pod's edge switches.
        assert_eq!(bb_regions.len(), 1);
        assert!(
            p.clusters() > p.regions() + 800,
            "{} / {}",
            p.clusters(),
            p.regions()
        );
    }
}
