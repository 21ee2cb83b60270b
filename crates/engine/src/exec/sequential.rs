//! Sequential executors: the global-key-order reference, and the windowed cluster order that is
//! the fast default on one core.

use super::{Failure, Segment, Until};
use crate::error::EngineError;
use crate::event::{Event, EventKey, LpId};
use crate::lp::LogicalProcess;
use crate::pending::{BucketRing, HeapSet, PendingKind, PendingSet, WindowSet};
use crate::sim::{dispatch, Executor, RunInput};
use crate::stats::{RunStats, StopReason, ThreadStats};
use crate::time::Time;
use std::time::Instant;

/// The order in which a sequential executor handles events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SequentialOrder {
    /// Every event in global key order from one pending-event set: the reference executor,
    /// simplest to trust.
    Global,
    /// Lookahead windows, one cluster at a time (the parallel algorithm on the calling thread).
    /// Each cluster's events and LPs stay in cache, so this is the fast default.
    #[default]
    Windowed,
}

/// Runs a simulation on the calling thread.
///
/// Both orders give identical results. The global order counts the same lookahead windows as
/// the parallel executor (a window opens at the first event at or after the previous window's
/// end), for statistics and for the points where the adaptive executor may hand over. A stop
/// request by an event at time `s` ends the run after every event earlier than `s` plus the
/// window width, on every executor ([`crate::lp::Ctx::request_stop`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential {
    /// Pending-event structure.
    pub pending: PendingKind,
    /// Event order.
    pub order: SequentialOrder,
}

impl Sequential {
    /// The global-key-order reference executor with the given pending-event structure.
    pub fn reference(pending: PendingKind) -> Self {
        Sequential {
            pending,
            order: SequentialOrder::Global,
        }
    }
}

impl Executor for Sequential {
    fn execute<L: LogicalProcess>(&self, input: RunInput<'_, L>) -> Result<RunStats, EngineError> {
        match (self.order, self.pending) {
            (SequentialOrder::Global, PendingKind::Heap) => run::<L, HeapSet<L::Event>>(input),
            (SequentialOrder::Global, PendingKind::Ring) => run::<L, BucketRing<L::Event>>(input),
            (SequentialOrder::Windowed, PendingKind::Heap) => {
                super::parallel::run::<L, HeapSet<L::Event>>(1, input)
            }
            (SequentialOrder::Windowed, PendingKind::Ring) => {
                super::parallel::run::<L, BucketRing<L::Event>>(1, input)
            }
            (SequentialOrder::Global, PendingKind::Window) => run::<L, WindowSet<L::Event>>(input),
            (SequentialOrder::Windowed, PendingKind::Window) => {
                super::parallel::run::<L, WindowSet<L::Event>>(1, input)
            }
        }
    }
}

fn run<L: LogicalProcess, P: PendingSet<L::Event>>(
    input: RunInput<'_, L>,
) -> Result<RunStats, EngineError> {
    run_segment::<L, P>(input, None).map(|s| s.stats)
}

/// Sees, in global key order, every event the reference executor handles and every event that
/// event sends (for measurements of the run itself, such as its critical path).
pub(crate) trait Observer {
    /// The event with key `key` is about to be handled by `dst`.
    fn handling(&mut self, key: &EventKey, dst: LpId);
    /// The event being handled sent an event with key `key`.
    fn sent(&mut self, key: &EventKey);
}

/// No observer: the loop as the executors run it.
pub(crate) struct Unobserved;

impl Observer for Unobserved {
    #[inline(always)]
    fn handling(&mut self, _: &EventKey, _: LpId) {}
    #[inline(always)]
    fn sent(&mut self, _: &EventKey) {}
}

/// Runs in global key order until the run ends or, at a window boundary after at least one
/// window, `until` asks to hand the pending events over to another executor.
pub(crate) fn run_segment<L: LogicalProcess, P: PendingSet<L::Event>>(
    input: RunInput<'_, L>,
    until: Option<Until<'_>>,
) -> Result<Segment<L::Event>, EngineError> {
    run_observed::<L, P, Unobserved>(input, until, &mut Unobserved)
}

/// [`run_segment`], telling `observer` of every event handled and sent.
pub(crate) fn run_observed<L: LogicalProcess, P: PendingSet<L::Event>, O: Observer>(
    input: RunInput<'_, L>,
    until: Option<Until<'_>>,
    observer: &mut O,
) -> Result<Segment<L::Event>, EngineError> {
    let started = Instant::now();
    let RunInput {
        slots,
        initial,
        channels,
        end_time,
        progress,
    } = input;
    let window = channels.window().max(1);
    let mut pending = P::new(window);
    for ev in initial {
        pending.push(ev);
    }
    let mut out = Vec::new();
    // Events at or after `limit` are not handled: the end time, or earlier after a stop request.
    let mut limit = end_time;
    // Set by the first stop request and never cleared.
    let mut stop_requested = false;
    let mut window_end: Time = 0;
    let mut windows = 0u64;
    let mut events = 0u64;
    let mut last = 0;
    let mut failure: Option<Failure> = None;
    let mut left: Vec<Event<L::Event>> = Vec::new();
    let reason = loop {
        let Some(ev) = pending.pop_before(limit) else {
            break Some(if stop_requested {
                StopReason::Requested
            } else if pending.is_empty() {
                StopReason::Drained
            } else {
                StopReason::EndTime
            });
        };
        let t = ev.time();
        if t >= window_end {
            if progress.is_cancelled() {
                break Some(StopReason::Cancelled);
            }
            if windows > 0
                && !stop_requested
                && until.is_some_and(|u| {
                    u.now(super::Tally {
                        windows,
                        events,
                        core_wait: None,
                    })
                })
            {
                pending.push(ev);
                while let Some(e) = pending.pop_before(Time::MAX) {
                    left.push(e);
                }
                break None;
            }
            windows += 1;
            window_end = t.saturating_add(window).min(limit);
        }
        let key = ev.key;
        let me = ev.dst;
        if let Some(next) = pending.next_dst().and_then(|d| slots.get(d.index())) {
            crate::hint::prefetch(next);
            next.lp.prefetch();
        }
        last = t;
        events += 1;
        if events & 0xFFFF == 0 {
            progress.set_now(t);
            progress.add_events(0x10000);
        }
        let asked_before = stop_requested;
        observer.handling(&key, me);
        dispatch(
            &mut slots[me.index()],
            ev,
            &mut out,
            &mut stop_requested,
            end_time,
        );
        if stop_requested && !asked_before {
            // The first request in key order is the earliest in time.
            limit = limit.min(super::stop_end(t, window));
        }
        for sent in out.drain(..) {
            observer.sent(&sent.key);
            if failure.is_none() {
                if let Err(error) = channels.check(me, t, &sent) {
                    failure = Some(Failure { at: key, error });
                }
            }
            pending.push(sent);
        }
        if let Some(f) = failure.take() {
            return Err(f.error);
        }
    };
    progress.set_now(last);
    progress.add_events(events & 0xFFFF);
    let stats = RunStats {
        events,
        windows,
        last_event_time: last,
        window,
        threads: 1,
        parallel_events: 0,
        clusters: channels.clusters(),
        per_thread: vec![ThreadStats {
            events,
            cluster_windows: windows,
            ..ThreadStats::default()
        }],
        wall: started.elapsed(),
        // A segment handed over ends at a window boundary; its reason is the next one's.
        stop: reason.unwrap_or(StopReason::Drained),
    };
    Ok(Segment {
        stats,
        left,
        handed_over: reason.is_none(),
        loads: Vec::new(),
    })
}
