//! Assembly: a validated scenario, its machine and its workload become one simulation.
//!
//! LP order: routers, then one host per terminal (compute nodes, BB servers, PFS I/O nodes, in
//! terminal order), then the PFS backend, then one job controller per job.

use crate::diag::{Diagnostic, SourceMap};
use crate::machine::{Machine, PFS_FORWARD_LATENCY};
use crate::model::node::NodeShared;
use crate::model::{
    BbHost, IoHost, JobCtl, NodeLp, SimLp, BB, CLASS_NAMES, CTL, CTL_LATENCY, IO, NODE, PFS, ROUTER,
};
use crate::scenario::{Placement, Scenario};
use bbsim_engine::{LookaheadTable, LpId, PartitionSpec, SimConfig, Simulation, Time};
use bbsim_storage::placement::{stripe_set, Layout};
use bbsim_storage::{BbServer, Endpoint, IoNode, PfsBackend, Ssd};
use bbsim_topology::network::LpLayout;
use bbsim_workload::alloc::allocate_workload;
use bbsim_workload::{CommId, Op, Workload};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// The routers of two terminals (hop distances depend only on these).
type RouterPair = (Option<u32>, Option<u32>);

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
    /// Number of routers (LPs `0..routers`).
    pub routers: u32,
    /// First global file id of each job.
    pub file_base: Vec<u64>,
}

/// The largest byte extent of every file, indexed by global file id.
fn file_extents(w: &Workload, file_base: &[u64]) -> Vec<u64> {
    let total: u64 = w.jobs.iter().map(|j| j.files.len() as u64).sum();
    let mut ext = vec![0u64; total as usize];
    for (j, job) in w.jobs.iter().enumerate() {
        for op in job.ops.all_ops() {
            if let Op::Write { file, offset, size } | Op::Read { file, offset, size } = *op {
                let g = (file_base[j] + u64::from(file.0)) as usize;
                if let Some(e) = ext.get_mut(g) {
                    *e = (*e).max(offset.saturating_add(size));
                }
            }
        }
    }
    ext
}

/// Builds the simulation.
pub fn assemble(
    s: &Scenario,
    map: &SourceMap,
    machine: &Machine,
    workload: Arc<Workload>,
) -> Result<(Simulation<SimLp>, Placed), Diagnostic> {
    let net = &machine.network;
    let topo = net.topology();
    let routers = net.routers();
    let terminals = net.terminals();

    // Allocation.
    let needed: u64 = workload
        .jobs
        .iter()
        .map(|j| u64::from(j.nodes_needed()))
        .sum();
    if needed > u64::from(machine.compute_nodes) {
        let detail: Vec<String> = workload
            .jobs
            .iter()
            .map(|j| {
                format!(
                    "{} needs {} ({} ranks / {} per node)",
                    j.name,
                    j.nodes_needed(),
                    j.ranks(),
                    j.ranks_per_node
                )
            })
            .collect();
        return Err(map.error_at(
            "jobs",
            format!(
                "the jobs need {needed} compute nodes but the machine has {}: {}",
                machine.compute_nodes,
                detail.join("; ")
            ),
        ));
    }
    let nodes =
        allocate_workload(&workload, machine.compute_nodes, s.simulation.seed).map_err(|e| {
            let msg = e.to_string();
            let idx = workload
                .jobs
                .iter()
                .position(|j| msg.contains(&format!("`{}`", j.name)))
                .unwrap_or(0);
            map.error_at(&format!("jobs[{idx}].allocation"), msg)
        })?;

    let parents = crate::jobs::job_parents(s, map, &workload)?;

    // LP ids.
    let layout = LpLayout::routers_then_terminals(routers, terminals);
    let host_lp = |t: u32| layout.terminals[t as usize];
    let backend_lp = LpId(routers + terminals);
    let jobctl: Vec<LpId> = (0..workload.jobs.len() as u32)
        .map(|j| LpId(routers + terminals + 1 + j))
        .collect();
    let node_lp: Vec<LpId> = (0..machine.compute_nodes).map(host_lp).collect();
    let bb_lps: Vec<LpId> = machine.bb_terminals.iter().map(|&t| host_lp(t)).collect();
    let io_lps: Vec<LpId> = machine.io_terminals.iter().map(|&t| host_lp(t)).collect();

    // Files.
    let mut file_base = Vec::with_capacity(workload.jobs.len());
    let mut next = 0u64;
    for j in &workload.jobs {
        file_base.push(next);
        next += j.files.len() as u64;
    }
    let file_extent = file_extents(&workload, &file_base);

    let bb_endpoints: Vec<Endpoint> = machine.bb_terminals.iter().map(|&t| Endpoint(t)).collect();
    let io_endpoints: Vec<Endpoint> = machine.io_terminals.iter().map(|&t| Endpoint(t)).collect();
    let shared = Arc::new(NodeShared {
        workload: Arc::clone(&workload),
        placement: machine.placement,
        bb_endpoints: bb_endpoints.clone(),
        io_endpoints: io_endpoints.clone(),
        jobctl: jobctl.clone(),
        file_base: file_base.clone(),
        file_extent,
        local_capacity: machine.local_ssd.as_ref().map_or(0, |c| c.capacity),
        bb_lps: bb_lps.clone(),
        has_parents: parents
            .iter()
            .zip(&s.jobs)
            .map(|(p, j)| !p.is_empty() || j.stage_in.is_some_and(|b| b.0 > 0))
            .collect(),
    });

    // Which job and ranks each node hosts.
    let mut owner: Vec<Option<(u32, Vec<u32>)>> = vec![None; machine.compute_nodes as usize];
    for (j, job) in workload.jobs.iter().enumerate() {
        for rank in 0..job.ranks() {
            let node = nodes[j][job.node_of_rank(rank) as usize];
            let slot = owner[node as usize].get_or_insert_with(|| (j as u32, Vec::new()));
            slot.1.push(rank);
        }
    }

    // BB servers (indices) each job's nodes stripe over, for reservations.
    let mut job_servers: Vec<std::collections::BTreeSet<usize>> =
        vec![Default::default(); workload.jobs.len()];
    for (i, j) in s.jobs.iter().enumerate() {
        for (key, present) in [
            ("bb_capacity", j.bb_capacity.is_some()),
            ("stage_in", j.stage_in.is_some()),
        ] {
            if present && !matches!(machine.placement, Placement::Grouped | Placement::Global) {
                return Err(map.error_at(
                    &format!("jobs[{i}].{key}"),
                    format!("`{key}` needs BB servers: burst_buffer.placement = \"grouped\" or \"global\""),
                ));
            }
        }
    }
    let mut lps: Vec<SimLp> = Vec::with_capacity((routers + terminals + 1) as usize + jobctl.len());
    for r in net.build_routers(&layout, ROUTER) {
        lps.push(SimLp::Router(Box::new(r)));
    }
    let stripe = s.burst_buffer.stripe_count;
    let distance_cache: RefCell<HashMap<RouterPair, u32>> = RefCell::default();
    let n_io = io_endpoints.len().max(1);
    for t in 0..terminals {
        let nic = net
            .nic(t, &layout)
            .ok_or_else(|| map.error_at("network", format!("terminal {t} is not attached")))?;
        let cluster = topo.terminal_cluster(t);
        if t < machine.compute_nodes {
            let (job, ranks) = owner[t as usize]
                .take()
                .map_or((None, Vec::new()), |(j, r)| (Some(j), r));
            // Only nodes that run a job issue I/O. Hop distances between terminals depend only
            // on their routers, so they are memoised by router pair.
            let bb_layout = match (machine.placement, job) {
                (Placement::Grouped | Placement::Global, Some(_)) => {
                    let servers = stripe_set(t, &machine.bb_terminals, stripe, |a, b| {
                        let key = (topo.router_of(a), topo.router_of(b));
                        *distance_cache
                            .borrow_mut()
                            .entry(key)
                            .or_insert_with(|| topo.hop_distance(a, b).unwrap_or(u32::MAX))
                    })
                    .map_err(|e| map.error_at(&format!("burst_buffer.{}", e.key), e.message))?;
                    if let Some(j) = job {
                        job_servers[j as usize].extend(servers.iter().copied());
                    }
                    Some(Layout {
                        servers,
                        stripe_size: s.burst_buffer.stripe_size.0,
                    })
                }
                _ => None,
            };
            let first = t as usize % n_io;
            let pfs_layout = Layout {
                servers: (0..n_io).map(|i| (first + i) % n_io).collect(),
                stripe_size: s.pfs.stripe_size.0,
            };
            let local = match (&machine.local_ssd, job) {
                (Some(cfg), Some(_)) => Some(
                    Ssd::new(0, cfg.clone())
                        .map_err(|e| map.error_at(&format!("burst_buffer.{}", e.key), e.message))?,
                ),
                _ => None,
            };
            lps.push(SimLp::Node(Box::new(NodeLp::new(
                t,
                cluster,
                nic,
                Arc::clone(&shared),
                job,
                ranks,
                bb_layout,
                pfs_layout,
                local,
            ))));
        } else if let Some(cfg) = machine
            .bb_server
            .as_ref()
            .filter(|_| machine.bb_terminals.contains(&t))
        {
            let mut server = BbServer::new(cfg.clone(), Endpoint(t), io_endpoints.clone())
                .map_err(|e| map.error_at(&format!("burst_buffer.{}", e.key), e.message))?;
            let index = machine
                .bb_terminals
                .iter()
                .position(|&b| b == t)
                .unwrap_or(usize::MAX);
            for (j, servers) in job_servers.iter().enumerate() {
                if let (Some(cap), true) = (s.jobs[j].bb_capacity, servers.contains(&index)) {
                    let share = cap.0.div_ceil(servers.len() as u64);
                    server
                        .reserve(j as u32, share)
                        .map_err(|e| map.error_at(&format!("jobs[{j}].bb_capacity"), e.message))?;
                }
            }
            lps.push(SimLp::Bb(Box::new(BbHost::new(
                t,
                cluster,
                nic,
                server,
                jobctl.clone(),
            ))));
        } else {
            let node = IoNode::new(Endpoint(t), backend_lp, &machine.pfs);
            lps.push(SimLp::Io(Box::new(IoHost::new(t, cluster, nic, node))));
        }
    }
    let backend = PfsBackend::new(machine.pfs.clone())
        .map_err(|e| map.error_at(&format!("pfs.{}", e.key), e.message))?;
    lps.push(SimLp::Pfs(Box::new(backend)));
    for (j, job) in workload.jobs.iter().enumerate() {
        let comms = 1 + job.subcomms.len();
        let mut sizes = Vec::with_capacity(comms);
        let mut comm_nodes = Vec::with_capacity(comms);
        for c in 0..comms as u32 {
            let members = job.comm_members(CommId(c)).unwrap_or_default();
            sizes.push(members.len() as u32);
            let mut lpids: Vec<LpId> = members
                .iter()
                .map(|&r| node_lp[nodes[j][job.node_of_rank(r) as usize] as usize])
                .collect();
            lpids.sort();
            lpids.dedup();
            comm_nodes.push(lpids);
        }
        let children: Vec<LpId> = (0..workload.jobs.len())
            .filter(|&c| parents[c].contains(&j))
            .map(|c| jobctl[c])
            .collect();
        let job_nodes: Vec<LpId> = comm_nodes.first().cloned().unwrap_or_default();
        let mut ctl = JobCtl::new(j as u32, job.ranks(), sizes, comm_nodes, bb_lps.clone())
            .with_dependencies(parents[j].len() as u32, children, job_nodes, job.start_ps);
        if let Some(bytes) = s.jobs[j].stage_in.filter(|b| b.0 > 0) {
            let servers: Vec<LpId> = job_servers[j]
                .iter()
                .filter_map(|&i| bb_lps.get(i).copied())
                .collect();
            let each = bytes.0.div_ceil(servers.len().max(1) as u64);
            ctl = ctl.with_stage_in(servers, each);
        }
        lps.push(SimLp::Job(Box::new(ctl)));
    }

    let mut table = LookaheadTable::with_classes(CLASS_NAMES);
    net.declare_lookahead(&mut table, ROUTER, &[NODE, BB, IO]);
    table.declare_both(IO, PFS, PFS_FORWARD_LATENCY);
    table.declare_both(NODE, CTL, CTL_LATENCY);
    table.declare(CTL, BB, CTL_LATENCY);
    table.declare(CTL, CTL, CTL_LATENCY);
    table.declare(BB, CTL, CTL_LATENCY);
    let end: Time = s.simulation.end_time.map_or(Time::MAX, |d| d.0);
    let sim = Simulation::new(
        lps,
        table,
        SimConfig {
            seed: s.simulation.seed,
            end_time: end,
            partition: PartitionSpec::Auto,
        },
    );
    Ok((
        sim,
        Placed {
            nodes,
            node_lp,
            bb_lps,
            io_lps,
            jobctl,
            routers,
            file_base,
        },
    ))
}
