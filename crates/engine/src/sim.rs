//! A simulation: the LPs, their initial events, the lookahead declaration and the partition.

use crate::error::EngineError;
use crate::event::{Event, EventKey, LpId, ENVIRONMENT};
use crate::lookahead::LookaheadTable;
use crate::lp::{Ctx, LogicalProcess, LpSlot};
use crate::partition::{Partition, PartitionSpec};
use crate::rng::Rng;
use crate::stats::{Progress, RunStats};
use crate::time::Time;
use std::sync::Arc;

/// Run-wide settings that do not depend on the executor.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Scenario seed; each LP's random stream is derived from it and the LP id.
    pub seed: u64,
    /// Events at or after this time (ps) are not handled. `Time::MAX` runs until no events remain.
    pub end_time: Time,
    /// How LPs are grouped into clusters.
    pub partition: PartitionSpec,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 1,
            end_time: Time::MAX,
            partition: PartitionSpec::Auto,
        }
    }
}

/// Everything an executor needs to run a simulation. Built by [`Simulation::run`].
pub struct RunInput<'a, L: LogicalProcess> {
    /// LP states and bookkeeping, in LP order; the executor must return them in the same order.
    pub slots: &'a mut Vec<LpSlot<L>>,
    /// Initial events (from `init` and [`Simulation::schedule`]).
    pub initial: Vec<Event<L::Event>>,
    /// Send validation (clusters, classes, lookahead).
    pub channels: Channels<'a>,
    /// End time (ps, exclusive).
    pub end_time: Time,
    /// Live progress and cancellation.
    pub progress: &'a Progress,
}

/// Validation of sends against the partition and the lookahead table.
#[derive(Clone, Copy)]
pub struct Channels<'a> {
    pub(crate) cluster_of: &'a [u32],
    pub(crate) classes: &'a [u16],
    pub(crate) table: &'a LookaheadTable,
    pub(crate) clusters: usize,
    /// The region of each cluster ([`crate::Partition`]).
    pub(crate) region_of: &'a [u32],
    /// The region of each LP.
    pub(crate) region_of_lp: &'a [u32],
    pub(crate) regions: usize,
}

impl<'a> Channels<'a> {
    /// Checks one send made by `src` at time `now`. Returns whether the event crosses clusters.
    #[inline]
    pub fn check<E>(&self, src: LpId, now: Time, ev: &Event<E>) -> Result<bool, EngineError> {
        let Some(&sc) = self.cluster_of.get(src.index()) else {
            return Err(self.no_such_lp(src, now, ev));
        };
        self.destination(src, sc, now, ev).map(|dc| dc != sc)
    }

    /// Checks one send made at time `now` by `src`, an LP of cluster `src_cluster`, and returns
    /// the destination's cluster.
    #[inline]
    pub(crate) fn destination<E>(
        &self,
        src: LpId,
        src_cluster: u32,
        now: Time,
        ev: &Event<E>,
    ) -> Result<u32, EngineError> {
        if ev.dst == src {
            return Ok(src_cluster);
        }
        let Some(&dc) = self.cluster_of.get(ev.dst.index()) else {
            return Err(self.no_such_lp(src, now, ev));
        };
        if dc != src_cluster {
            let (fc, tc) = (self.classes[src.index()], self.classes[ev.dst.index()]);
            let required = self.table.get(fc, tc);
            if required.is_none_or(|r| ev.time() - now < r) {
                return Err(self.violation(src, now, ev, required));
            }
        }
        Ok(dc)
    }

    #[cold]
    fn no_such_lp<E>(&self, src: LpId, now: Time, ev: &Event<E>) -> EngineError {
        EngineError::NoSuchLp {
            src,
            dst: ev.dst,
            send_time: now,
            nlp: self.cluster_of.len(),
        }
    }

    #[cold]
    fn violation<E>(
        &self,
        src: LpId,
        now: Time,
        ev: &Event<E>,
        required: Option<Time>,
    ) -> EngineError {
        let (fc, tc) = (self.classes[src.index()], self.classes[ev.dst.index()]);
        EngineError::LookaheadViolation {
            src: (src, String::new()),
            dst: (ev.dst, String::new()),
            send_time: now,
            recv_time: ev.time(),
            required,
            channel: format!(
                "{} -> {}",
                self.table.class_name(fc),
                self.table.class_name(tc)
            ),
        }
    }

    /// The cluster of an LP.
    #[inline]
    pub fn cluster_of(&self, lp: LpId) -> u32 {
        self.cluster_of[lp.index()]
    }

    /// The number of clusters.
    pub fn clusters(&self) -> usize {
        self.clusters
    }

    /// The region of every cluster, indexed by cluster.
    pub fn regions_of_clusters(&self) -> &'a [u32] {
        self.region_of
    }

    /// The region of an LP.
    #[inline]
    pub fn region_of(&self, lp: LpId) -> u32 {
        self.region_of_lp[lp.index()]
    }

    /// The number of regions.
    pub fn regions(&self) -> usize {
        self.regions
    }

    /// The window width (ps): the smallest declared lookahead, `Time::MAX` if none.
    pub fn window(&self) -> Time {
        self.table.window().unwrap_or(Time::MAX)
    }
}

/// Handles one event on its LP, collecting the LP's sends into `out`.
#[inline(always)]
pub(crate) fn dispatch<L: LogicalProcess>(
    slot: &mut LpSlot<L>,
    ev: Event<L::Event>,
    out: &mut Vec<Event<L::Event>>,
    stop: &mut bool,
    end: Time,
) {
    let mut ctx = Ctx {
        now: ev.key.time,
        end,
        me: ev.dst,
        current: ev.key,
        rng: &mut slot.rng,
        next_seq: &mut slot.next_seq,
        out,
        stop,
    };
    slot.handled += 1;
    slot.lp.handle(ev.payload, &mut ctx);
}

/// A runner of simulations. The sequential reference executor and the conservative parallel
/// executor implement it; asynchronous or multi-process variants can be added without touching
/// models.
pub trait Executor {
    /// Runs the simulation to completion, returning the LPs in `input.slots` in LP order.
    fn execute<L: LogicalProcess>(&self, input: RunInput<'_, L>) -> Result<RunStats, EngineError>;
}

/// A model instance ready to run: LPs, initial events, lookahead and partition.
pub struct Simulation<L: LogicalProcess> {
    slots: Vec<LpSlot<L>>,
    initial: Vec<Event<L::Event>>,
    env_seq: u64,
    lookahead: LookaheadTable,
    partition: Partition,
    classes: Vec<u16>,
    config: SimConfig,
    ran: bool,
    progress: Arc<Progress>,
}

impl<L: LogicalProcess> Simulation<L> {
    /// Builds a simulation over `lps` (LP `i` is `lps[i]`).
    pub fn new(lps: Vec<L>, lookahead: LookaheadTable, config: SimConfig) -> Self {
        let hints: Vec<Option<u32>> = lps.iter().map(LogicalProcess::cluster_hint).collect();
        let splits: Vec<Option<u32>> = lps.iter().map(LogicalProcess::split_hint).collect();
        let classes = lps.iter().map(LogicalProcess::class).collect();
        let partition = Partition::resolve(&config.partition, &hints, &splits);
        let slots = lps
            .into_iter()
            .enumerate()
            .map(|(i, lp)| LpSlot {
                lp,
                rng: Rng::for_lp(config.seed, i as u32),
                next_seq: 0,
                handled: 0,
            })
            .collect();
        Simulation {
            slots,
            initial: Vec::new(),
            env_seq: 0,
            lookahead,
            partition,
            classes,
            config,
            ran: false,
            progress: Arc::new(Progress::default()),
        }
    }

    /// Schedules an event from outside the model (source [`ENVIRONMENT`]) at absolute time `time` (ps).
    pub fn schedule(
        &mut self,
        dst: LpId,
        time: Time,
        payload: L::Event,
    ) -> Result<(), EngineError> {
        if dst.index() >= self.slots.len() {
            return Err(EngineError::NoSuchLp {
                src: ENVIRONMENT,
                dst,
                send_time: 0,
                nlp: self.slots.len(),
            });
        }
        let key = EventKey::new(time, 0, ENVIRONMENT, self.env_seq);
        self.env_seq += 1;
        self.initial.push(Event { key, dst, payload });
        Ok(())
    }

    /// Calls every LP's `init` in LP order, then runs with `executor`.
    pub fn run<X: Executor>(&mut self, executor: &X) -> Result<RunStats, EngineError> {
        if self.ran {
            return Err(EngineError::AlreadyRun);
        }
        self.ran = true;
        let nlp = self.slots.len();
        let mut initial = std::mem::take(&mut self.initial);
        let mut stop = false;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let mut ctx = Ctx {
                now: 0,
                end: self.config.end_time,
                me: LpId(i as u32),
                current: EventKey::new(0, 0, ENVIRONMENT, 0),
                rng: &mut slot.rng,
                next_seq: &mut slot.next_seq,
                out: &mut initial,
                stop: &mut stop,
            };
            slot.lp.init(&mut ctx);
        }
        if let Some(bad) = initial.iter().find(|e| e.dst.index() >= nlp) {
            return Err(EngineError::NoSuchLp {
                src: bad.key.source(),
                dst: bad.dst,
                send_time: 0,
                nlp,
            });
        }
        let input = RunInput {
            slots: &mut self.slots,
            initial,
            channels: Channels {
                cluster_of: self.partition.assignment(),
                classes: &self.classes,
                table: &self.lookahead,
                clusters: self.partition.clusters(),
                region_of: self.partition.regions_of_clusters(),
                region_of_lp: self.partition.region_assignment(),
                regions: self.partition.regions(),
            },
            end_time: self.config.end_time,
            progress: &self.progress,
        };
        let result = executor.execute(input);
        result.map_err(|e| self.label_error(e))
    }

    fn label_error(&self, e: EngineError) -> EngineError {
        let label = |id: LpId| {
            self.slots
                .get(id.index())
                .map(|s| s.lp.label())
                .unwrap_or_default()
        };
        match e {
            EngineError::LookaheadViolation {
                src,
                dst,
                send_time,
                recv_time,
                required,
                channel,
            } => EngineError::LookaheadViolation {
                src: (src.0, label(src.0)),
                dst: (dst.0, label(dst.0)),
                send_time,
                recv_time,
                required,
                channel,
            },
            other => other,
        }
    }

    /// The LPs' model states in LP order.
    pub fn lps(&self) -> impl Iterator<Item = &L> {
        self.slots.iter().map(|s| &s.lp)
    }

    /// The LPs' model states in LP order, to change once a run has ended (for example to take
    /// out what the results need without copying it).
    pub fn lps_mut(&mut self) -> impl Iterator<Item = &mut L> {
        self.slots.iter_mut().map(|s| &mut s.lp)
    }

    /// One LP's model state.
    pub fn lp(&self, id: LpId) -> Option<&L> {
        self.slots.get(id.index()).map(|s| &s.lp)
    }

    /// LP states with engine bookkeeping (handled-event counts, random streams), in LP order.
    pub fn slots(&self) -> &[LpSlot<L>] {
        &self.slots
    }

    /// Consumes the simulation, returning the LP states in LP order.
    pub fn into_lps(self) -> Vec<L> {
        self.slots.into_iter().map(|s| s.lp).collect()
    }

    /// Live progress of the run (simulated time, events) and its cancellation switch; share it
    /// with a progress-bar or signal-handler thread before calling [`Simulation::run`].
    pub fn progress(&self) -> Arc<Progress> {
        Arc::clone(&self.progress)
    }

    /// The resolved partition.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// Number of LPs.
    pub fn nlp(&self) -> usize {
        self.slots.len()
    }

    /// The run-wide settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }
}
