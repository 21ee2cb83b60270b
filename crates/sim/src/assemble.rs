//! Assembly: a validated scenario, its machine and its workload become one simulation.
//!
//! LP order: routers (or the path model's one fabric LP), then one host per terminal (compute nodes, BB servers, PFS I/O nodes, in
//! terminal order), then the PFS backend, then one job controller per job.

use crate::diag::{Diagnostic, SourceMap};
use crate::machine::{Machine, PFS_FORWARD_LATENCY};
use crate::model::files::{CacheSpec, Inputs, JobFiles};
use crate::model::hosts::STAGE_FILE_BASE;
use crate::model::local_drain::{LocalDrainConfig, LocalDrainPolicy};
use crate::model::node::NodeShared;
use crate::model::{
    BbHost, IoHost, JobCtl, NodeLp, ResCtl, SimLp, BB, CLASS_NAMES, CTL, CTL_LATENCY, IO, NODE,
    PFS, ROUTER,
};
use crate::scenario::{AccessMode, DrainPolicyKind, Placement, Scenario};
use bbsim_engine::{LookaheadTable, LpId, PartitionSpec, SimConfig, Simulation, Time};
use bbsim_storage::datawarp::{allocate, DataWarpConfig, DwAllocation, DwMode};
use bbsim_storage::placement::{stripe_set, Layout};
use bbsim_storage::{BbServer, Endpoint, IoNode, PfsBackend, Ssd};
use bbsim_topology::network::{LpLayout, NetModel};
use bbsim_workload::alloc::allocate_workload;
use bbsim_workload::{CommId, Op, Workload};
use std::collections::BTreeMap;
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

/// The persistent reservations' DataWarp allocations, and each job's scratch allocation.
type DwAllocations = (Vec<Arc<DwAllocation>>, Vec<Option<Arc<DwAllocation>>>);

/// DataWarp allocations of the persistent reservations and of the jobs' scratch
/// reservations, granted in scenario order (reservations first), each on the next
/// `ceil(capacity / grain)` servers of a rotating cursor over the BB servers.
fn datawarp_allocations(
    s: &Scenario,
    map: &SourceMap,
    servers: usize,
) -> Result<DwAllocations, Diagnostic> {
    let jobs = s.jobs.len();
    if s.burst_buffer.placement == Placement::None {
        // The PFS-only baseline: BB requests are not granted; every job uses the PFS.
        return Ok((Vec::new(), vec![None; jobs]));
    }
    let Some(grain) = s.burst_buffer.grain else {
        if !s.reservations.is_empty() {
            return Err(map.error_at(
                "reservations",
                "persistent reservations need DataWarp grains: set burst_buffer.grain",
            ));
        }
        if let Some(i) = s.jobs.iter().position(|j| j.reservation.is_some()) {
            return Err(map.error_at(
                &format!("jobs[{i}].reservation"),
                "`reservation` needs DataWarp grains: set burst_buffer.grain",
            ));
        }
        return Ok((Vec::new(), vec![None; jobs]));
    };
    if !matches!(
        s.burst_buffer.placement,
        Placement::Grouped | Placement::Global
    ) {
        return Err(map.error_at(
            "burst_buffer.grain",
            "DataWarp grains need BB servers: placement = \"grouped\" or \"global\"",
        ));
    }
    let cfg = DataWarpConfig {
        grain: grain.0,
        stripe_size: s.burst_buffer.stripe_size.0,
    };
    let mode = match s.burst_buffer.access_mode {
        AccessMode::Striped => DwMode::Striped,
        AccessMode::Private => DwMode::Private,
    };
    let mut cursor = 0usize;
    let mut grant = |cap: u64, key: &str| -> Result<Arc<DwAllocation>, Diagnostic> {
        let cands: Vec<usize> = (0..servers).map(|i| (cursor + i) % servers).collect();
        let a = allocate(&cfg, cap, mode, &cands).map_err(|e| {
            let k = if e.key == "grain" {
                "burst_buffer.grain".to_string()
            } else {
                key.to_string()
            };
            map.error_at(&k, e.message)
        })?;
        cursor = (cursor + a.servers.len()) % servers.max(1);
        Ok(Arc::new(a))
    };
    let mut res = Vec::with_capacity(s.reservations.len());
    for (r, sec) in s.reservations.iter().enumerate() {
        if s.reservations[..r].iter().any(|o| o.name == sec.name) {
            return Err(map.error_at(
                &format!("reservations[{r}].name"),
                format!("two reservations are named `{}`", sec.name),
            ));
        }
        res.push(grant(
            sec.capacity.0,
            &format!("reservations[{r}].capacity"),
        )?);
    }
    let mut per_job = Vec::with_capacity(jobs);
    for (i, j) in s.jobs.iter().enumerate() {
        if j.reservation.is_some() && j.bb_capacity.is_some() {
            return Err(map.error_at(
                &format!("jobs[{i}].bb_capacity"),
                "a job uses either its own reservation (`bb_capacity`) or a persistent one (`reservation`), not both",
            ));
        }
        per_job.push(match j.bb_capacity {
            Some(cap) => Some(grant(cap.0, &format!("jobs[{i}].bb_capacity"))?),
            None => None,
        });
    }
    Ok((res, per_job))
}

/// Where every job's files live, from the scenario's reservations and `inputs`.
fn job_files(
    s: &Scenario,
    map: &SourceMap,
    w: &Workload,
    res: &[Arc<DwAllocation>],
    scratch: &[Option<Arc<DwAllocation>>],
) -> Result<Vec<JobFiles>, Diagnostic> {
    let jobs = s.jobs.len() as u32;
    let names: Vec<&str> = w.jobs.iter().map(|j| j.name.as_str()).collect();
    let mut files: Vec<JobFiles> = (0..jobs).map(JobFiles::plain).collect();
    let pfs_only = s.burst_buffer.placement == Placement::None;
    for (i, j) in s.jobs.iter().enumerate() {
        let f = &mut files[i];
        if pfs_only {
            f.uses_bb = false;
            if let Some(c) = j.read_cache.filter(|c| c.0 > 0) {
                f.cache = Some(CacheSpec {
                    capacity: c.0,
                    block: j.read_cache_block.0,
                });
            }
            continue;
        }
        f.uses_bb =
            s.burst_buffer.grain.is_none() || j.bb_capacity.is_some() || j.reservation.is_some();
        if let Some(dw) = &scratch[i] {
            f.dw = Some(Arc::clone(dw));
        }
        if let Some(name) = &j.reservation {
            let Some(r) = s.reservations.iter().position(|r| &r.name == name) else {
                let hint =
                    crate::diag::suggest(name, s.reservations.iter().map(|r| r.name.as_str()))
                        .map(|s| format!("; did you mean `{s}`?"))
                        .unwrap_or_default();
                return Err(map.error_at(
                    &format!("jobs[{i}].reservation"),
                    format!("no [[reservations]] entry is named `{name}`{hint}"),
                ));
            };
            f.alloc = jobs + r as u32;
            f.dw = Some(Arc::clone(&res[r]));
            f.persistent = true;
        }
        if let Some(c) = j.read_cache.filter(|c| c.0 > 0) {
            f.cache = Some(CacheSpec {
                capacity: c.0,
                block: j.read_cache_block.0,
            });
        }
    }
    for (i, j) in s.jobs.iter().enumerate() {
        let Some(name) = &j.inputs else { continue };
        let key = format!("jobs[{i}].inputs");
        let Some(p) = names.iter().position(|n| n == name) else {
            return Err(map.error_at(&key, format!("no job is named `{name}`")));
        };
        if p >= i {
            return Err(map.error_at(
                &key,
                format!("`inputs` must name an earlier job (`{name}` is not before this one)"),
            ));
        }
        let placement = s.burst_buffer.placement;
        if placement == Placement::NodeLocal {
            return Err(map.error_at(
                &key,
                "another job's files cannot be read from node-local SSDs: use grouped or global BBs, or none (PFS)",
            ));
        }
        if matches!(placement, Placement::Grouped | Placement::Global) {
            let prod = &files[p];
            if prod.dw.is_none() && prod.uses_bb {
                return Err(map.error_at(
                    &key,
                    format!("job `{name}` writes through per-node stripe sets that another job cannot find: set burst_buffer.grain and give `{name}` a reservation (`bb_capacity` or `reservation`)"),
                ));
            }
            if s.burst_buffer.access_mode == AccessMode::Private && prod.dw.is_some() {
                return Err(map.error_at(
                    &key,
                    "another job's files cannot be found in a private-mode reservation: use burst_buffer.access_mode = \"striped\"",
                ));
            }
        }
        files[i].inputs = Some(Inputs {
            producer: p as u32,
            count: w.jobs[p].files.len() as u32,
            in_transit: j.in_transit,
        });
        if j.in_transit {
            files[p].watched = true;
        }
    }
    Ok(files)
}

/// The node-local SSDs' background drain, from `[burst_buffer.drain]` (node-local placement).
fn local_drain(s: &Scenario, map: &SourceMap) -> Result<Option<LocalDrainConfig>, Diagnostic> {
    if s.burst_buffer.placement != Placement::NodeLocal {
        return Ok(None);
    }
    let d = &s.burst_buffer.drain;
    let policy = match d.policy {
        DrainPolicyKind::None => return Ok(None),
        DrainPolicyKind::Immediate => LocalDrainPolicy::Immediately,
        DrainPolicyKind::JobEnd => LocalDrainPolicy::AtJobEnd,
        DrainPolicyKind::Threshold => {
            return Err(map.error_at(
                "burst_buffer.drain.policy",
                "node-local SSDs drain with policy \"none\", \"immediate\" or \"job-end\" (\"threshold\" needs BB servers)",
            ))
        }
    };
    if d.bandwidth.0 == 0 {
        return Err(map.error_at("burst_buffer.drain.bandwidth", "must be > 0"));
    }
    Ok(Some(LocalDrainConfig {
        policy,
        bandwidth: d.bandwidth.0,
        max_outstanding: bbsim_storage::DrainConfig::default().max_outstanding,
    }))
}

/// Most operations per transfer train (`simulation.train_ops`, 1 to [`MAX_TRAIN_OPS`]).
fn train_ops(s: &Scenario, map: &SourceMap) -> Result<u32, Diagnostic> {
    let k = s.simulation.train_ops;
    if k == 0 || k > MAX_TRAIN_OPS {
        return Err(map.error_at(
            "simulation.train_ops",
            format!("must be between 1 (every operation on its own) and {MAX_TRAIN_OPS}, got {k}"),
        ));
    }
    Ok(k)
}

/// The largest `simulation.train_ops`: a train's per-operation times are interpolated, and
/// its SSD batch holds one piece per operation.
pub const MAX_TRAIN_OPS: u32 = 4096;

/// Close operations per global file of job `j` (how many closes complete each file).
fn closes(w: &Workload, j: usize, base: u64) -> BTreeMap<u64, u32> {
    let mut m = BTreeMap::new();
    for run in w.jobs[j].ops.runs() {
        if let Op::Close { file } = run.op {
            *m.entry(base + u64::from(file.0)).or_insert(0) += run.count;
        }
    }
    m
}

/// The largest byte extent of every file, indexed by global file id.
fn file_extents(w: &Workload, file_base: &[u64]) -> Vec<u64> {
    let total: u64 = w.jobs.iter().map(|j| j.files.len() as u64).sum();
    let mut ext = vec![0u64; total as usize];
    for (j, job) in w.jobs.iter().enumerate() {
        for run in job.ops.runs() {
            if let Op::Write { file, offset, size } | Op::Read { file, offset, size } = run.last() {
                let g = (file_base[j] + u64::from(file.0)) as usize;
                if let Some(e) = ext.get_mut(g) {
                    *e = (*e).max(offset.saturating_add(size));
                }
            }
        }
    }
    ext
}

/// An upper bound on the allocation units of `unit` bytes the workload can allocate on any
/// one BB server, for [`BbServer::bound_allocations`]: every BB layout stripes in units of
/// `unit`, so a file's stripe unit is one allocation unit on one server, and a write of `len`
/// bytes touches at most `len / unit + 2` of them. `u64::MAX` (no bound) when stage-in also
/// writes into the BB (`staged`).
fn unit_bound(workload: &Workload, unit: u64, staged: bool) -> u64 {
    if staged || unit == 0 {
        return u64::MAX;
    }
    workload.jobs.iter().fold(0u64, |sum, j| {
        let t = j.totals();
        sum.saturating_add(t.bytes_written / unit)
            .saturating_add(t.writes.saturating_mul(2))
    })
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

    let parents = crate::lower::workload::job_parents(s, map, &workload)?;
    let (res_dw, job_dw) = datawarp_allocations(s, map, machine.bb_terminals.len())?;
    let files = job_files(s, map, &workload, &res_dw, &job_dw)?;
    let njobs = workload.jobs.len() as u32;

    // LP ids.
    let layout = LpLayout::for_model(net.model(), routers, terminals);
    let host_lp = |t: u32| layout.terminals[t as usize];
    // Network LPs before the hosts: the routers, or the path or flow model's one fabric.
    let net_lps = match net.model() {
        NetModel::Packet => routers,
        NetModel::Path | NetModel::Flow => 1,
    };
    let backend_lp = LpId(net_lps + terminals);
    let jobctl: Vec<LpId> = (0..workload.jobs.len() as u32)
        .map(|j| LpId(net_lps + terminals + 1 + j))
        .collect();
    let resctl: Vec<LpId> = (0..res_dw.len() as u32)
        .map(|r| LpId(net_lps + terminals + 1 + njobs + r))
        .collect();
    let mut ctl_by_alloc = jobctl.clone();
    ctl_by_alloc.extend(resctl.iter().copied());
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

    // Stage-in work per job: (server index, global file, bytes) and the capacity account.
    let mut stage_work: Vec<Vec<(usize, u64, u64)>> = vec![Vec::new(); workload.jobs.len()];
    for (i, j) in s.jobs.iter().enumerate() {
        let Some(dw) = &files[i].dw else {
            if j.stage_in_inputs && machine.placement != Placement::None {
                return Err(map.error_at(
                    &format!("jobs[{i}].stage_in_inputs"),
                    "staging a job's input files needs a reservation: set burst_buffer.grain and `bb_capacity` or `reservation`",
                ));
            }
            continue;
        };
        if let Some(b) = j.stage_in.filter(|b| b.0 > 0) {
            let each = b.0.div_ceil(dw.servers.len().max(1) as u64);
            for &srv in &dw.servers {
                stage_work[i].push((srv, STAGE_FILE_BASE + i as u64, each));
            }
        }
        if j.stage_in_inputs {
            let mut read = std::collections::BTreeSet::new();
            for run in workload.jobs[i].ops.runs() {
                if let Op::Read { file, .. } = run.op {
                    if files[i].producer_of(file.0).is_none() {
                        read.insert(file.0);
                    }
                }
            }
            for f in read {
                let g = file_base[i] + u64::from(f);
                let layout = dw.layout_for(0, g);
                let ext = file_extent.get(g as usize).copied().unwrap_or(0);
                for c in layout.split(0, ext) {
                    stage_work[i].push((layout.servers[c.slot], g, c.len));
                }
            }
        }
    }

    let staged = stage_work.iter().any(|w| !w.is_empty());
    let unit_bound = machine
        .bb_server
        .as_ref()
        .map_or(u64::MAX, |cfg| unit_bound(&workload, cfg.unit, staged));
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
            .zip(&stage_work)
            .map(|((p, j), w)| {
                let staged =
                    j.stage_in.is_some_and(|b| b.0 > 0) && machine.placement != Placement::None;
                !p.is_empty() || staged || !w.is_empty()
            })
            .collect(),
        files: files.clone(),
        local_drain: local_drain(s, map)?,
        keep_records: s.outputs.timeline,
        train_ops: train_ops(s, map)?,
    });

    // Which job and ranks each node hosts.
    let mut owner: Vec<Option<(u32, Vec<u32>)>> = vec![None; machine.compute_nodes as usize];
    let mut node_index = vec![0u32; machine.compute_nodes as usize];
    for (j, ns) in nodes.iter().enumerate() {
        for (k, &n) in ns.iter().enumerate() {
            if let Some(x) = node_index.get_mut(n as usize) {
                *x = k as u32;
            }
        }
        let _ = j;
    }
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
            if present && machine.placement == Placement::NodeLocal {
                return Err(map.error_at(
                    &format!("jobs[{i}].{key}"),
                    format!("`{key}` needs BB servers: burst_buffer.placement = \"grouped\" or \"global\" (or \"none\" for the PFS-only baseline, which ignores it)"),
                ));
            }
        }
    }
    let mut lps: Vec<SimLp> = Vec::with_capacity((net_lps + terminals + 1) as usize + jobctl.len());
    match net.model() {
        NetModel::Packet => {
            for r in net.build_routers(&layout, ROUTER) {
                lps.push(SimLp::Router(Box::new(r)));
            }
        }
        NetModel::Path => {
            let fabric = net.build_path_fabric(&layout, ROUTER);
            lps.push(SimLp::Fabric(Box::new(fabric)));
        }
        NetModel::Flow => {
            let fabric = net.build_flow_fabric(&layout, ROUTER);
            lps.push(SimLp::Flows(Box::new(fabric)));
        }
    }
    let stripe = s.burst_buffer.stripe_count;
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
            // Only nodes that run a job issue I/O. Hop distances are the topology's closed
            // forms (a few comparisons each), cheaper than a memo.
            let per_node_stripes = job.is_some_and(|j| {
                let f = &files[j as usize];
                f.dw.is_none() && f.uses_bb
            });
            let bb_layout = match (machine.placement, job) {
                (Placement::Grouped | Placement::Global, Some(_)) if per_node_stripes => {
                    let servers = stripe_set(t, &machine.bb_terminals, stripe, |a, b| {
                        topo.hop_distance(a, b).unwrap_or(u32::MAX)
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
                node_index[t as usize],
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
            let dw_allocs = job_dw
                .iter()
                .enumerate()
                .filter_map(|(j, a)| a.as_ref().map(|a| (j as u32, a)))
                .chain(
                    res_dw
                        .iter()
                        .enumerate()
                        .map(|(r, a)| (njobs + r as u32, a)),
                );
            for (alloc, a) in dw_allocs {
                if let Some(k) = a.servers.iter().position(|&x| x == index) {
                    let key = if alloc < njobs {
                        format!("jobs[{alloc}].bb_capacity")
                    } else {
                        format!("reservations[{}].capacity", alloc - njobs)
                    };
                    server
                        .reserve(alloc, a.per_server[k])
                        .map_err(|e| map.error_at(&key, e.message))?;
                }
            }
            for (j, servers) in job_servers.iter().enumerate() {
                if let (Some(cap), true) = (s.jobs[j].bb_capacity, servers.contains(&index)) {
                    let share = cap.0.div_ceil(servers.len() as u64);
                    server
                        .reserve(j as u32, share)
                        .map_err(|e| map.error_at(&format!("jobs[{j}].bb_capacity"), e.message))?;
                }
            }
            server.bound_allocations(unit_bound);
            lps.push(SimLp::Bb(Box::new(BbHost::new(
                t,
                cluster,
                nic,
                server,
                ctl_by_alloc.clone(),
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
        let granted = machine.placement != Placement::None && job_dw[j].is_none();
        if let Some(bytes) = s.jobs[j].stage_in.filter(|b| b.0 > 0 && granted) {
            let servers: Vec<LpId> = job_servers[j]
                .iter()
                .filter_map(|&i| bb_lps.get(i).copied())
                .collect();
            let each = bytes.0.div_ceil(servers.len().max(1) as u64);
            let items = servers
                .into_iter()
                .map(|lp| (lp, STAGE_FILE_BASE + j as u64, each))
                .collect();
            ctl = ctl.with_stage_in(j as u32, items);
        } else if !stage_work[j].is_empty() {
            let items = stage_work[j]
                .iter()
                .filter_map(|&(srv, f, b)| bb_lps.get(srv).map(|&lp| (lp, f, b)))
                .collect();
            ctl = ctl.with_stage_in(files[j].alloc, items);
        }
        if files[j].persistent {
            if let Some(&lp) = ctl_by_alloc.get(files[j].alloc as usize) {
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
                .map(|(c, _)| jobctl[c])
                .collect();
            ctl = ctl.with_consumers(closes(&workload, j, file_base[j]), consumers);
        }
        lps.push(SimLp::Job(Box::new(ctl)));
    }
    let mut reservations = Vec::with_capacity(res_dw.len());
    for (r, a) in res_dw.iter().enumerate() {
        let users = files
            .iter()
            .filter(|f| f.persistent && f.alloc == njobs + r as u32)
            .count() as u32;
        let servers: Vec<LpId> = a
            .servers
            .iter()
            .filter_map(|&i| bb_lps.get(i).copied())
            .collect();
        lps.push(SimLp::Res(Box::new(ResCtl::new(
            njobs + r as u32,
            s.reservations[r].name.clone(),
            users,
            servers,
        ))));
        reservations.push((a.servers.clone(), a.granted));
    }
    let job_dw_servers = job_dw
        .iter()
        .map(|a| a.as_ref().map(|a| a.servers.clone()).unwrap_or_default())
        .collect();

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
            routers: net_lps,
            file_base,
            resctl,
            job_dw_servers,
            reservations,
        },
    ))
}

#[cfg(test)]
mod tests {
    use crate::model::SimLp;
    use crate::run::load_scenario;
    use std::path::Path;

    /// Whether each BB server of `scenarios/summit-global.toml` (IOR, 768 ranks writing
    /// 16 MiB each in 1 MiB transfers: at most 98,304 + 2 x 12,288 units of 128 KiB), with
    /// `overrides`, keeps a drain queue.
    fn queues(overrides: &[&str]) -> Vec<bool> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/summit-global.toml");
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let loaded = load_scenario(&path, &overrides).expect("valid scenario");
        let (sim, _) = loaded.build().expect("assembles");
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
        // 18 SSDs of 0.5 GB hold 68,652 units, fewer than the workload could allocate on one
        // server (122,880): a write could stall, and a stall drains.
        assert!(queues(&["burst_buffer.ssd.capacity=0.5GB"])
            .iter()
            .all(|&k| k));
        // 18 x 1 GB hold 137,322: room for all of them again.
        assert!(queues(&["burst_buffer.ssd.capacity=1GB"])
            .iter()
            .all(|&k| !k));
    }
}
