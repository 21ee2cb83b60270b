//! Where every job runs and where its data goes: compute-node allocation, DataWarp
//! reservations, each job's files, stage-in work and per-node stripe sets over the BB
//! servers. Everything here is checked before any LP is built.

use crate::diag::{Diagnostic, SourceMap};
use crate::lower::machine::Machine;
use crate::lower::storage::{datawarp_key, ssd_key, stripe_key};
use crate::model::files::{CacheSpec, Inputs, JobFiles};
use crate::model::hosts::STAGE_FILE_BASE;
use crate::model::local_drain::LocalDrainConfig;
use crate::scenario::{AccessMode, DrainPolicy, Placement, Scenario};
use bbsim_storage::capacity::CapacityLedger;
use bbsim_storage::datawarp::{allocate, DataWarpConfig, DwAllocation, DwMode};
use bbsim_storage::placement::stripe_set;
use bbsim_workload::alloc::allocate_workload;
use bbsim_workload::{JobTotals, Op, Workload};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One piece of stage-in work: (BB server index, global file, bytes).
pub type StageItem = (usize, u64, u64);

/// Where every job runs and where its data goes.
#[derive(Clone, Debug)]
pub struct JobLayout {
    /// Compute nodes of each job, in the job's node order (rank `r` runs on
    /// `nodes[job][r / ranks_per_node]`).
    pub nodes: Vec<Vec<u32>>,
    /// The jobs each job waits for (indices).
    pub parents: Vec<Vec<usize>>,
    /// DataWarp allocations of the persistent reservations, in scenario order.
    pub reservations: Vec<Arc<DwAllocation>>,
    /// Each job's own DataWarp (scratch) allocation.
    pub job_dw: Vec<Option<Arc<DwAllocation>>>,
    /// Where each job's files live.
    pub files: Vec<JobFiles>,
    /// First global file id of each job.
    pub file_base: Vec<u64>,
    /// The largest byte extent of every file, by global file id.
    pub file_extent: Vec<u64>,
    /// Stage-in work of each job.
    pub stage_work: Vec<Vec<StageItem>>,
    /// The BB servers (indices, in stripe order) each compute node stripes its files over,
    /// where it writes through its own stripe set (grouped or global placement, no DataWarp
    /// reservation).
    pub node_stripes: Vec<Option<Vec<usize>>>,
    /// The job and ranks of each compute node (`None`: idle).
    pub node_ranks: Vec<Option<(u32, Vec<u32>)>>,
    /// Each compute node's index within its job's node list.
    pub node_index: Vec<u32>,
    /// BB servers (indices) each job's nodes stripe over.
    pub job_servers: Vec<BTreeSet<usize>>,
    /// The reservations each BB server grants, checked against its capacity: (allocation
    /// id, bytes), in the order it grants them. Allocation ids are job indices, then
    /// `jobs + reservation index`.
    pub server_grants: Vec<Vec<(u32, u64)>>,
    /// The node-local SSDs' background drain.
    pub local_drain: Option<LocalDrainConfig>,
    /// Most operations per transfer train.
    pub train_ops: u32,
}

/// Lays out the workload on the machine, checking every job key that depends on the
/// machine.
pub fn job_layout(
    s: &Scenario,
    map: &SourceMap,
    machine: &Machine,
    workload: &Workload,
) -> Result<JobLayout, Diagnostic> {
    let parents = crate::lower::workload::job_parents(s, map, workload)?;
    let nodes = allocate_nodes(s, map, machine, workload)?;
    let (reservations, job_dw) = datawarp_allocations(s, map, machine.bb_terminals.len())?;
    let files = job_files(s, map, workload, &reservations, &job_dw)?;
    let file_base = file_bases(workload);
    let file_extent = file_extents(workload, &file_base);
    let stage_work = stage_work(s, map, machine, workload, &files, &file_base, &file_extent)?;
    let local_drain = local_drain(s, map)?;
    let train_ops = train_ops(s, map)?;
    let (node_ranks, node_index) = node_ranks(machine, workload, &nodes);
    let (node_stripes, job_servers) = node_stripes(s, map, machine, &node_ranks, &files)?;
    let mut layout = JobLayout {
        nodes,
        parents,
        reservations,
        job_dw,
        files,
        file_base,
        file_extent,
        stage_work,
        node_ranks,
        node_index,
        node_stripes,
        job_servers,
        server_grants: Vec::new(),
        local_drain,
        train_ops,
    };
    layout.server_grants = server_grants(s, map, machine, &layout)?;
    Ok(layout)
}

/// The compute nodes of every job, as a busy batch system would place them.
fn allocate_nodes(
    s: &Scenario,
    map: &SourceMap,
    machine: &Machine,
    workload: &Workload,
) -> Result<Vec<Vec<u32>>, Diagnostic> {
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
    allocate_workload(workload, machine.compute_nodes, s.simulation.seed)
        .map_err(|e| map.error_at(&format!("jobs[{}].allocation", e.job), e.to_string()))
}

/// First global file id of each job.
fn file_bases(w: &Workload) -> Vec<u64> {
    let mut file_base = Vec::with_capacity(w.jobs.len());
    let mut next = 0u64;
    for j in &w.jobs {
        file_base.push(next);
        next += j.files.len() as u64;
    }
    file_base
}

/// Stage-in work per job: (server index, global file, bytes): `stage_in` bytes spread over
/// the job's reservation, and the input files it reads (`stage_in_inputs`).
fn stage_work(
    s: &Scenario,
    map: &SourceMap,
    machine: &Machine,
    workload: &Workload,
    files: &[JobFiles],
    file_base: &[u64],
    file_extent: &[u64],
) -> Result<Vec<Vec<StageItem>>, Diagnostic> {
    let mut stage_work: Vec<Vec<StageItem>> = vec![Vec::new(); workload.jobs.len()];
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
            let mut read = BTreeSet::new();
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
    Ok(stage_work)
}

/// The job and ranks of each compute node, and each node's index within its job.
type NodeRanks = (Vec<Option<(u32, Vec<u32>)>>, Vec<u32>);

fn node_ranks(machine: &Machine, workload: &Workload, nodes: &[Vec<u32>]) -> NodeRanks {
    let mut owner: Vec<Option<(u32, Vec<u32>)>> = vec![None; machine.compute_nodes as usize];
    let mut node_index = vec![0u32; machine.compute_nodes as usize];
    for ns in nodes {
        for (k, &n) in ns.iter().enumerate() {
            if let Some(x) = node_index.get_mut(n as usize) {
                *x = k as u32;
            }
        }
    }
    for (j, job) in workload.jobs.iter().enumerate() {
        for rank in 0..job.ranks() {
            let node = nodes[j][job.node_of_rank(rank) as usize];
            let slot = owner[node as usize].get_or_insert_with(|| (j as u32, Vec::new()));
            slot.1.push(rank);
        }
    }
    (owner, node_index)
}

/// Per-node stripe sets (grouped or global placement, for nodes whose job writes through
/// them): each node's `stripe_count` nearest BB servers by hop count; and the servers each
/// job's nodes stripe over.
type NodeStripes = (Vec<Option<Vec<usize>>>, Vec<BTreeSet<usize>>);

fn node_stripes(
    s: &Scenario,
    map: &SourceMap,
    machine: &Machine,
    node_ranks: &[Option<(u32, Vec<u32>)>],
    files: &[JobFiles],
) -> Result<NodeStripes, Diagnostic> {
    let mut job_servers: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); files.len()];
    let mut stripes = vec![None; machine.compute_nodes as usize];
    if !machine.placement.has_servers() {
        return Ok((stripes, job_servers));
    }
    let topo = machine.network.topology();
    for (t, job) in node_ranks.iter().enumerate() {
        let Some((j, _)) = job else { continue };
        let f = &files[*j as usize];
        if f.dw.is_some() || !f.uses_bb {
            continue;
        }
        // Hop distances are the topology's closed forms (a few comparisons each; a table
        // lookup on dragonflies, where the closed form scans the global links of two groups).
        let servers = stripe_set(
            t as u32,
            &machine.bb_terminals,
            s.burst_buffer.stripe_count,
            |a, b| topo.hop_distance(a, b).unwrap_or(u32::MAX),
        )
        .map_err(|e| map.error_at(stripe_key(e.field), e.message()))?;
        job_servers[*j as usize].extend(servers.iter().copied());
        stripes[t] = Some(servers);
    }
    Ok((stripes, job_servers))
}

/// Checks what building the storage LPs would refuse: each BB server's devices, and every
/// reservation against its server's capacity. Returns each server's grants: (allocation id,
/// bytes), in the order it grants them.
fn server_grants(
    s: &Scenario,
    map: &SourceMap,
    machine: &Machine,
    layout: &JobLayout,
) -> Result<Vec<Vec<(u32, u64)>>, Diagnostic> {
    let Some(cfg) = &machine.bb_server else {
        return Ok(Vec::new());
    };
    cfg.device_config()
        .validate()
        .map_err(|e| map.error_at(ssd_key(e.field), e.message()))?;
    let mut grants = Vec::with_capacity(machine.bb_terminals.len());
    for index in 0..machine.bb_terminals.len() {
        let mut ledger = CapacityLedger::new(cfg.capacity());
        let mut granted = Vec::new();
        for (alloc, key, bytes) in server_reservations(s, layout, index) {
            ledger
                .reserve(alloc, bytes)
                .map_err(|e| map.error_at(&key, e.message()))?;
            granted.push((alloc, bytes));
        }
        grants.push(granted);
    }
    Ok(grants)
}

/// The reservations BB server `index` grants, in the order it grants them: (allocation id,
/// the scenario key that asked, bytes). Allocation ids are job indices, then
/// `jobs + reservation index`.
fn server_reservations(s: &Scenario, layout: &JobLayout, index: usize) -> Vec<(u32, String, u64)> {
    let njobs = layout.job_dw.len() as u32;
    let mut out = Vec::new();
    let dw_allocs = layout
        .job_dw
        .iter()
        .enumerate()
        .filter_map(|(j, a)| a.as_ref().map(|a| (j as u32, a)))
        .chain(
            layout
                .reservations
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
            out.push((alloc, key, a.per_server[k]));
        }
    }
    for (j, servers) in layout.job_servers.iter().enumerate() {
        if let (Some(cap), true) = (s.jobs[j].bb_capacity, servers.contains(&index)) {
            let share = cap.0.div_ceil(servers.len() as u64);
            out.push((j as u32, format!("jobs[{j}].bb_capacity"), share));
        }
    }
    out
}

/// Close operations per global file of job `j` (how many closes complete each file).
pub fn closes(w: &Workload, j: usize, base: u64) -> BTreeMap<u64, u32> {
    let mut m = BTreeMap::new();
    for run in w.jobs[j].ops.runs() {
        if let Op::Close { file } = run.op {
            *m.entry(base + u64::from(file.0)).or_insert(0) += run.count;
        }
    }
    m
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
        let a = allocate(&cfg, cap, mode, &cands)
            .map_err(|e| map.error_at(datawarp_key(e.field, key), e.message()))?;
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
        DrainPolicy::None => return Ok(None),
        DrainPolicy::Immediate | DrainPolicy::JobEnd => d.policy,
        DrainPolicy::Threshold => {
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

/// The largest byte extent of every file, indexed by global file id.
pub fn file_extents(w: &Workload, file_base: &[u64]) -> Vec<u64> {
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

/// Upper bounds, one per BB server (indexed like the machine's BB terminals), on the
/// allocation units of `unit` bytes the workload can hold at once on that server, for
/// [`BbServer::bound_allocations`]. A BB layout's chunk on one server is contiguous in that
/// server's packed view of the file (`Layout::split`), so three bounds hold:
///
/// - **Bytes written**: a write of `len` bytes touches at most `len / unit + 2` units on any
///   server, so writes of `b` bytes in `w` operations hold at most `b / unit + 2 w` units on
///   any one server, whatever the layout.
/// - **File extents through per-node stripe sets** (grouped or global placement without
///   DataWarp): a server keeps a file's stripe units packed back to back, so of a file of
///   `e` stripe units (its largest byte extent over `unit`, rounded up) a server holds at most
///   `ceil(e / stripe_count)`, whichever client wrote them, and only the servers the job's
///   nodes stripe over hold any.
/// - **File extents in a striped DataWarp allocation**: a file of `s` stripes of
///   `stripe_size` bytes round-robin over the allocation's `n` servers leaves at most
///   `ceil(s / n)` stripes on each, so at most `ceil(ceil(s / n) * stripe_size / unit)` units.
///
/// A unit key is allocated once, so rewriting or deleting and writing again never holds more.
/// A job with a DataWarp allocation adds the smaller of its bounds to that allocation's
/// servers only (private mode: the bytes bound); a job writing through per-node stripe sets
/// adds the smaller of its two to the servers its nodes stripe over; writes into another
/// job's files (`inputs`) land in that job's allocation and add their bytes bound to its
/// servers. The bounds are exact enough to tell that a large run with room on its servers
/// never stalls, so its servers keep no drain queue. `u64::MAX` everywhere (no bound) when
/// stage-in also writes into the BB (`staged`).
///
/// [`BbServer::bound_allocations`]: bbsim_storage::BbServer::bound_allocations
pub fn server_unit_bounds(
    workload: &Workload,
    layout: &JobLayout,
    servers: usize,
    stripe_count: u32,
    unit: u64,
    staged: bool,
) -> Vec<u64> {
    if staged || unit == 0 {
        return vec![u64::MAX; servers];
    }
    let mut bounds = vec![0u64; servers];
    let mut add = |on: &mut dyn Iterator<Item = usize>, units: u64| {
        for s in on {
            if let Some(b) = bounds.get_mut(s) {
                *b = b.saturating_add(units);
            }
        }
    };
    for (j, job) in workload.jobs.iter().enumerate() {
        let files = &layout.files[j];
        let (own, into_inputs) = totals_by_owner(job, files);
        if let Some(p) = files.inputs.map(|i| i.producer as usize) {
            if let Some(dw) = &layout.files[p].dw {
                add(
                    &mut dw.servers.iter().copied(),
                    write_units(&into_inputs, unit),
                );
            }
        }
        let by_bytes = write_units(&own, unit);
        let first = layout.file_base[j] as usize;
        // Every job's files have extents; were they missing, the bound by bytes stands.
        let extents = layout.file_extent.get(first..first + job.files.len());
        let striped = &layout.job_servers[j];
        if let Some(dw) = &files.dw {
            let units = match dw.mode {
                DwMode::Striped => {
                    let width = dw.servers.len() as u64;
                    let by_extent =
                        extents.map_or(u64::MAX, |e| striped_units(e, dw.stripe_size, width, unit));
                    by_bytes.min(by_extent)
                }
                DwMode::Private => by_bytes,
            };
            add(&mut dw.servers.iter().copied(), units);
        } else if files.uses_bb && !striped.is_empty() {
            // Per-node stripe sets stripe in allocation units.
            let width = u64::from(stripe_count);
            let by_extent = extents.map_or(u64::MAX, |e| striped_units(e, unit, width, unit));
            add(&mut striped.iter().copied(), by_bytes.min(by_extent));
        } else if files.uses_bb {
            add(&mut (0..servers), by_bytes);
        }
    }
    bounds
}

/// The most allocation units of `unit` bytes the writes totalled in `t` can hold on one
/// server: a write of `len` bytes touches at most `len / unit + 2` of them.
fn write_units(t: &JobTotals, unit: u64) -> u64 {
    (t.bytes_written / unit).saturating_add(t.writes.saturating_mul(2))
}

/// A job's totals split by whose files its writes go to: its own, and the files of the job
/// whose outputs it reads (`inputs`), which live where that job put them. Every other
/// operation counts as its own.
fn totals_by_owner(job: &bbsim_workload::JobSpec, files: &JobFiles) -> (JobTotals, JobTotals) {
    let (mut own, mut inputs) = (JobTotals::default(), JobTotals::default());
    for run in job.ops.runs() {
        match run.op {
            Op::Write { file, .. } if files.producer_of(file.0).is_some() => inputs.add_run(run),
            _ => own.add_run(run),
        }
    }
    (own, inputs)
}

/// The most units of `unit` bytes files of these byte `extents` can hold on any one server
/// of a layout that deals stripes of `stripe` bytes round robin over `width` servers: a file
/// of `s` stripes leaves at most `ceil(s / width)` of them, packed back to back, on each.
fn striped_units(extents: &[u64], stripe: u64, width: u64, unit: u64) -> u64 {
    let (stripe, width) = (stripe.max(1), width.max(1));
    extents.iter().fold(0u64, |sum, &ext| {
        let per_server = ext.div_ceil(stripe).div_ceil(width).saturating_mul(stripe);
        sum.saturating_add(per_server.div_ceil(unit))
    })
}

#[cfg(test)]
mod tests {
    use super::{server_unit_bounds, totals_by_owner, write_units};
    use crate::model::files::Inputs;
    use crate::run::load_scenario;
    use std::path::Path;

    #[test]
    fn writes_into_another_jobs_files_count_on_that_jobs_servers() {
        // `tiny-workflow`: `viz` (job 1, an analysis) reads `sim`'s checkpoints, which live in
        // the persistent reservation `shared`, and writes its outputs to its own allocation.
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/tests/data/tiny-workflow.toml");
        let loaded = load_scenario(&path, &[]).expect("valid scenario");
        let (w, layout) = (&loaded.design.workload, &loaded.design.jobs);
        let unit = loaded.design.machine.bb_server.as_ref().expect("BB").unit;
        let servers = loaded.design.machine.bb_terminals.len();
        let bounds =
            |layout: &super::JobLayout| server_unit_bounds(w, layout, servers, 1, unit, false);
        let viz = &w.jobs[1];
        let written = viz.totals();
        let (own, into_inputs) = totals_by_owner(viz, &layout.files[1]);
        assert_eq!(
            (into_inputs.bytes_written, into_inputs.writes),
            (0, 0),
            "an analysis writes its own outputs"
        );
        assert_eq!(own.bytes_written, written.bytes_written);
        assert_eq!(own.writes, written.writes);
        let before = bounds(layout);
        // Were every file of `viz` one of `sim`'s, its writes would land in `shared`: its
        // bytes bound moves from its own allocation's servers to the reservation's.
        let mut moved = layout.clone();
        let count = viz.files.len() as u32;
        moved.files[1].inputs = Some(Inputs {
            count,
            ..moved.files[1].inputs.expect("viz reads sim")
        });
        let (own, into_inputs) = totals_by_owner(viz, &moved.files[1]);
        assert_eq!((own.bytes_written, own.writes), (0, 0));
        assert_eq!(into_inputs.bytes_written, written.bytes_written);
        let after = bounds(&moved);
        let shared = &layout.reservations[0].servers;
        let scratch = &layout.job_dw[1].as_ref().expect("viz's allocation").servers;
        let mut emptied = 0;
        for s in 0..servers {
            let (b, a) = (before[s], after[s]);
            let gained = if shared.contains(&s) {
                write_units(&into_inputs, unit)
            } else {
                0
            };
            if scratch.contains(&s) {
                if !shared.contains(&s) {
                    assert!(a < b, "server {s}: {b} -> {a}");
                    emptied += 1;
                }
            } else {
                assert_eq!(a, b + gained, "server {s}: {b} -> {a}");
            }
        }
        assert!(emptied > 0, "viz's allocation is on servers of its own");
    }
}
