//! The top-level API used by the CLI: load a scenario, describe its machine, run it, write
//! its outputs.

use crate::assemble::{assemble, Placed};
use crate::diag::{load_edited, Diagnostic, SourceMap};
use crate::lower::machine::MachineSummary;
use crate::lower::unused::split_unused;
use crate::lower::{lower, Design};
use crate::model::SimLp;
use crate::output::cost::{cost, Cost};
use crate::output::{reduce, render, Rendered, Results};
use crate::scenario::resolved::{resolved_toml, RESOLVED_FILE};
use crate::scenario::Scenario;
use bbsim_engine::{
    EngineError, Executor, PendingKind, Progress, RunStats, Simulation, StopReason, Threads,
    ThreadsExecutor, Time,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A loaded and validated scenario.
pub struct Loaded {
    /// The scenario as run: every default filled in, and the keys its placement does not read
    /// (see [`Loaded::unused`]) back at their defaults.
    pub scenario: Scenario,
    /// The scenario as written (every default filled in), echoed in `summary.json`.
    pub written: Scenario,
    /// Keys the scenario sets that its burst-buffer placement does not read: each names the key,
    /// where it was set and why it is unused. Warnings, not errors.
    pub unused: Vec<Diagnostic>,
    /// Where each key came from (for messages).
    pub map: SourceMap,
    /// The validated design: machine, workload, where the jobs run.
    pub design: Design,
    /// The scenario file.
    pub path: PathBuf,
}

/// Loads `path` with `--set` overrides, and validates everything that can be checked before
/// running (schema, units, machine, jobs, allocation, reservations) without building the
/// simulation.
pub fn load_scenario(path: &Path, overrides: &[String]) -> Result<Loaded, Diagnostic> {
    load_scenario_edited(path, &[], overrides)
}

/// Like [`load_scenario`], first removing the keys `unset` (`--unset`: their defaults apply),
/// then applying `set` (`--set`). Both apply after the file's includes.
pub fn load_scenario_edited(
    path: &Path,
    unset: &[String],
    set: &[String],
) -> Result<Loaded, Diagnostic> {
    let (mut scenario, map): (Scenario, SourceMap) = load_edited(path, unset, set)?;
    // Fill in defaults that depend on other keys, so the echo in summary.json shows them.
    let vc = scenario.network.effective_vc_buffer();
    scenario.network.vc_buffer = Some(vc);
    let (unused, effective) = split_unused(&scenario, &map);
    let parsed = Parsed {
        scenario: effective,
        written: scenario,
        map,
        path: path.to_path_buf(),
    };
    let mut loaded = parsed.lower()?;
    loaded.unused = unused;
    Ok(loaded)
}

/// A scenario as parsed and checked, without its lowered design: what a [`Loaded`] keeps of
/// its inputs. A design can hold hundreds of MB of generated workload, so a caller that holds
/// many scenarios before running them (`bbsim sweep`) keeps them in this form and lowers each
/// when it runs.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The scenario as run ([`Loaded::scenario`]).
    pub scenario: Scenario,
    /// The scenario as written ([`Loaded::written`]).
    pub written: Scenario,
    /// Where each key came from.
    pub map: SourceMap,
    /// The scenario file.
    pub path: PathBuf,
}

impl Parsed {
    /// Lowers the scenario into its design (reading the traces and node lists it names,
    /// relative to the scenario's directory). The result's `unused` warnings are left empty:
    /// they were given when the scenario was loaded.
    pub fn lower(&self) -> Result<Loaded, Diagnostic> {
        let base = self.path.parent().unwrap_or_else(|| Path::new("."));
        let design = lower(&self.scenario, &self.map, base)?;
        Ok(Loaded {
            scenario: self.scenario.clone(),
            written: self.written.clone(),
            unused: Vec::new(),
            map: self.map.clone(),
            design,
            path: self.path.clone(),
        })
    }
}

/// Why a run produced no results.
#[derive(Debug)]
pub enum RunError {
    /// The scenario is invalid.
    Scenario(Diagnostic),
    /// The engine stopped with an error (a model bug).
    Engine(EngineError),
    /// The run was cancelled (Ctrl-C).
    Cancelled,
    /// The run cannot finish: ranks wait for something that will never happen (e.g. space
    /// on a full burst buffer that nothing drains). The message names the job, the device,
    /// its capacity and what was asked.
    Stuck(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Scenario(d) => write!(f, "{d}"),
            RunError::Engine(e) => write!(f, "simulation failed: {e}"),
            RunError::Cancelled => write!(
                f,
                "interrupted: the run was cancelled and no output files were written"
            ),
            RunError::Stuck(why) => write!(f, "{why}; no output files were written"),
        }
    }
}

impl std::error::Error for RunError {}

/// A finished run.
pub struct Finished {
    /// Reduced results.
    pub results: Results,
    /// Engine statistics.
    pub stats: RunStats,
    /// Where jobs landed.
    pub placed: Placed,
}

impl Loaded {
    /// Its inputs without the design ([`Parsed::lower`] makes the design again).
    pub fn into_parsed(self) -> Parsed {
        Parsed {
            scenario: self.scenario,
            written: self.written,
            map: self.map,
            path: self.path,
        }
    }

    /// Builds the simulation (its LPs; SSDs are preconditioned here).
    pub fn build(&self) -> (Simulation<SimLp>, Placed) {
        assemble(&self.scenario, &self.design)
    }

    /// The machine summary.
    pub fn machine_summary(&self) -> MachineSummary {
        self.design.machine.summary()
    }

    /// The cost of the machine's burst-buffer design (`[cost]` prices).
    pub fn cost(&self) -> Cost {
        cost(&self.scenario.cost, &self.design.machine)
    }

    /// Job names in job order.
    pub fn job_names(&self) -> Vec<String> {
        self.design.workload.job_names()
    }

    /// The lookahead window (ps): the smallest delay of any channel
    /// between LPs.
    pub fn lookahead_window(&self) -> Time {
        crate::assemble::lookahead(&self.design.machine)
            .window()
            .unwrap_or(Time::MAX)
    }

    /// A rough forecast of the events per lookahead window, to say before a run whether
    /// threads can pay: in the packet model every packet of every I/O operation is two events
    /// (arrival, credit) per router on a path as long as the diameter, plus the ends; the other
    /// network models move an operation in a few events. Spread over
    /// [`Self::estimated_io_time`]: windows without events cost nothing (the executors skip
    /// idle time), so what counts is how densely the I/O bursts fill theirs.
    pub fn forecast_events_per_window(&self) -> f64 {
        let packet = self.scenario.simulation.packet_size.0.max(1) as f64;
        let hops = f64::from(self.design.machine.network.topology().diameter()) + 1.0;
        let events: f64 = self
            .design
            .workload
            .jobs
            .iter()
            .map(|j| {
                let t = j.totals();
                let ops = (t.writes + t.reads) as f64;
                match self.scenario.network.model {
                    bbsim_topology::NetModel::Packet => {
                        let packets = (t.bytes_written + t.bytes_read) as f64 / packet;
                        2.0 * (packets + ops) * (hops + 1.0)
                    }
                    _ => 4.0 * ops,
                }
            })
            .sum();
        let windows = self.estimated_io_time() as f64 / self.lookahead_window().max(1) as f64;
        events / windows.max(1.0)
    }

    /// A lower bound of the simulated end time, for the progress bar: the longest rank's start
    /// plus its compute time, or all bytes moved at the machine's aggregate storage bandwidth,
    /// whichever is later.
    pub fn estimated_end(&self) -> Time {
        if let Some(e) = self.scenario.simulation.end_time {
            return e.0;
        }
        let compute = self
            .design
            .workload
            .jobs
            .iter()
            .map(|j| {
                let per_rank = (0..j.ops.num_ranks())
                    .map(|r| j.rank_totals(r).compute_ps)
                    .max()
                    .unwrap_or(0);
                j.start_ps + per_rank
            })
            .max()
            .unwrap_or(0);
        compute.max(self.estimated_io_time()).max(1)
    }

    /// A lower bound of the time the jobs spend moving data: all bytes moved at the machine's
    /// aggregate storage bandwidth (ps).
    pub fn estimated_io_time(&self) -> Time {
        let m = self.machine_summary();
        let bytes: u64 = self
            .design
            .workload
            .jobs
            .iter()
            .map(|j| j.totals().bytes_moved())
            .fold(0, u64::saturating_add);
        let bandwidth = if m.bb_write_bandwidth > 0 {
            m.bb_write_bandwidth
        } else {
            m.pfs_bandwidth
        }
        .max(1);
        (bytes as f64 / bandwidth as f64 * 1e12) as Time
    }

    /// Runs on `threads` threads ([`Threads::Auto`]: up to one per core, only while they
    /// pay). `watch` receives the live progress handle before the run starts (for a progress
    /// bar or a Ctrl-C handler).
    pub fn run(
        &self,
        threads: impl Into<Threads>,
        watch: impl FnOnce(Arc<Progress>),
    ) -> Result<Finished, RunError> {
        // One thread: the global-order sequential executor. The storage models are sparse in
        // time (a few events per lookahead window), where per-window work dominates the
        // windowed order; results are identical either way. Its pending set is the bucket
        // ring: on the study's packet-level bursts (thousands of events within a few
        // microseconds) it executes 20 % fewer instructions than the event heap, and it is
        // no slower on the sparse scenarios (docs/performance.md, "Where the study's time goes").
        // An explicit count above one runs the asynchronous executor, and one thread while
        // the threads wait for a core another process holds; `auto` runs the sequential one,
        // and the asynchronous one over the cores only while it is measured to pay
        // (`bbsim_engine::ThreadsExecutor`).
        self.run_on(
            &ThreadsExecutor::new(threads.into(), PendingKind::Ring),
            watch,
        )
    }

    /// Runs on `executor` (results are identical on every executor).
    pub fn run_on<X: Executor>(
        &self,
        executor: &X,
        watch: impl FnOnce(Arc<Progress>),
    ) -> Result<Finished, RunError> {
        let (mut sim, placed) = self.build();
        watch(sim.progress());
        let stats = sim.run(executor).map_err(RunError::Engine)?;
        if stats.stop == StopReason::Cancelled {
            return Err(RunError::Cancelled);
        }
        let results = reduce(
            &mut sim,
            &placed,
            &self.design.workload,
            self.design.machine.network.topology(),
            stats.last_event_time,
            self.scenario.outputs.phase_split(),
        );
        if stats.stop == StopReason::Drained {
            let drain = self.scenario.burst_buffer.drain.policy;
            if let Some(why) = crate::stuck::diagnose(&sim, &results, &self.job_names(), drain) {
                return Err(RunError::Stuck(why));
            }
        }
        Ok(Finished {
            results,
            stats,
            placed,
        })
    }

    /// Renders the outputs of a finished run, with `scenario.resolved.toml` (the scenario as
    /// run; `bbsim run` on it repeats the run) before `summary.json`.
    pub fn render(&self, f: &Finished) -> Rendered {
        let mut r = render(
            &self.written,
            &self.machine_summary(),
            &self.cost(),
            &f.results,
            &f.stats,
            &self.design.workload,
        );
        let base = self.path.parent().unwrap_or_else(|| Path::new("."));
        let resolved = resolved_toml(&self.written, base);
        let at = r.files.len().saturating_sub(1);
        r.files.insert(at, (RESOLVED_FILE, resolved.into_bytes()));
        r
    }
}
