//! The asynchronous conservative executor: threads that wait only for the threads they hear
//! from, not for a global barrier every lookahead window.
//!
//! Each worker thread owns a set of clusters (their LPs and one pending-event set for all of
//! them) and publishes a *clock*: a lower bound on the time of every event it will still
//! handle. Every event sent across clusters carries at least the window width `L` (the smallest
//! declared lookahead), so a thread may handle every pending event earlier than the smallest
//! clock of the other threads plus `L`; nothing it will ever receive is earlier. A thread reads
//! the others' clocks, then takes in the events they sent it, then publishes
//! `min(its earliest pending event, smallest other clock + L)` and handles what it may. Events
//! for another thread are handed over after each batch and before the next clock, so a clock
//! read is never ahead of the events sent under it. This is the Chandy-Misra-Bryant protocol
//! with the clocks in shared memory instead of null messages.
//!
//! Where every thread is blocked (an idle stretch of simulated time: clocks would only creep
//! forward by `L` per exchange), the last thread to find nothing to do *jumps*: each blocked
//! thread marks itself idle once it has taken its mail and published its earliest pending
//! event (its head), and neither handles nor takes mail until it leaves the idle spell, so a
//! look that finds every other thread in the same idle spell before and after reading their
//! heads and inboxes has seen a consistent cut. The earliest of those events, `G`, is then a
//! lower bound on everything any thread will handle, and the look raises every thread's clock
//! to `min(its head, its earliest mail, G + L)`, which lets the holder of `G` go on, with no
//! barrier and without waking the others. Where a run ends, fails or is cancelled, every
//! 20 ms of wall time for housekeeping, and where an idle stretch outlasts a nap with no
//! consistent look (a thread off its core), the threads meet at a *sync*: two barriers with
//! nothing in flight, which reduce the earliest pending event anywhere and move every clock to
//! it. At a
//! housekeeping sync the clusters may be dealt out again by the events each handled since the
//! last one (longest first, to the least loaded thread), so a hot cluster, such as the pod
//! that holds the burst-buffer servers, does not leave the other threads waiting.
//!
//! Results are those of every other executor: each LP handles its events in key order, and
//! neither the clusters' owners nor the order in which threads reach their events changes
//! what any LP sees. A stop request at time `s` ends the run after every event before
//! `s + L` ([`super::stop_end`]); a lookahead error reports the failure with the smallest event
//! key, after every thread has handled its events below that key.

use super::adaptive::DENSE_WINDOW_EVENTS;
use super::barrier::{SpinBarrier, WindowReduction, FLAG_CANCEL};
use super::core_wait::CoreWaitMeter;
use super::workers::{
    deal_into_clusters, lock, on_threads, return_to_lp_order, unpoisoned, ClusterLps,
};
use super::{stop_end, Failure, Segment, Tally, Until};
use crate::error::EngineError;
use crate::event::{Event, EventKey};
use crate::lp::LogicalProcess;
use crate::pending::{BucketRing, HeapSet, PendingKind, PendingSet, WindowSet};
use crate::sim::{dispatch, Channels, Executor, RunInput};
use crate::stats::{Progress, RunStats, StopReason, ThreadStats};
use crate::time::Time;
use crossbeam::utils::CachePadded;
use std::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Wall time between two housekeeping syncs (load balance, the adaptive executor's question).
pub const HOUSEKEEPING: Duration = Duration::from_millis(20);

/// Events handled since the last look below which the clusters are not dealt out again.
const REBALANCE_MIN_EVENTS: u64 = 100_000;

/// Events a thread handles before it adds its events per cluster to the run's loads, at its
/// next sync. When every idle stretch was a sync (cori-ior: 1.6 M times for 4.3 M events),
/// adding a count per cluster at every sync cost more than the events where regions were
/// split into hundreds of clusters, and syncs may still come often where jumps fail (threads
/// off their cores); a look at the loads misses at most this many of each thread's events,
/// which the next look counts.
const FLUSH_EVENTS: u64 = 4096;

/// How much the busiest thread's share must shrink (as a fraction of the mean load) for the
/// clusters to be dealt out again: moving a cluster costs its LPs' cache lines.
const REBALANCE_GAIN: f64 = 0.05;

/// The most events a thread handles between two looks at the other threads' clocks. Its own
/// clock moves on only between batches, so a long batch holds the others back; a short one
/// costs a look at every clock. 8 was fastest of 2-64 on the study's GTC at 4 MB per rank.
const TURN_EVENTS: u64 = 8;

/// How long a blocked thread spins before it sleeps until another thread's clock, mail or a
/// sync request wakes it: long next to the usual wait for a neighbour's batch (microseconds),
/// short next to a scheduler time slice (milliseconds), which is what a descheduled neighbour
/// costs a spinning thread on a machine with more threads than free cores.
const SPIN_BEFORE_SLEEP: Duration = Duration::from_micros(50);

/// The shortest spin before sleeping: a thread whose waits keep ending in sleep (its
/// neighbours are not on a core) spins a quarter as long after each such wait, down to this;
/// a wait that ends while spinning doubles the spin again, up to [`SPIN_BEFORE_SLEEP`].
const SPIN_MIN: Duration = Duration::from_micros(2);

/// Pause instructions between two looks of a blocked thread at the clocks, its mail and the
/// sync request: a pause takes 28 ns on the AMD EPYC machine of docs/performance.md (and up to
/// about 40 ns on other x86 parts), so a look comes every 100-200 ns, about the time a cache
/// line takes to move between cores. Fewer looks delay the thread a neighbour's clock or mail
/// has released; 32 pauses added about a microsecond to every hand-over in sparse runs.
const PAUSES_PER_SPIN: u32 = 4;

/// Spins of a blocked thread between two looks at the wall clock (whether to stop spinning
/// and sleep): a look at the clock costs about as much as the spin itself.
const SPINS_PER_CLOCK_LOOK: u32 = 16;

/// The longest a blocked thread sleeps before it looks again without being woken (a
/// cancellation from outside does not wake it).
const NAP_MAX: Duration = Duration::from_millis(1);

/// Loop turns of thread 0 between two looks at the wall clock.
const CLOCK_LOOK_EVERY: u32 = 64;

/// Events a thread handles between two additions to the run's progress counter, which every
/// thread shares.
const PROGRESS_EVERY: u64 = 4096;

/// Flag of a sync: the thread holds an event below the earliest failure's key.
const FLAG_BELOW_FAILURE: u32 = 8;

/// Runs clusters of LPs on `threads` worker threads that synchronise through published clocks
/// (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub struct Asynchronous {
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Pending-event structure of each thread. The bucket ring (the default) or the heap: the
    /// window set sorts a lookahead window's events at once, and this executor's limits are
    /// not windows (PHOLD runs 2-4 times slower on it than on the ring).
    pub pending: PendingKind,
}

impl Asynchronous {
    /// An asynchronous executor on `threads` workers with the default pending-event structure.
    pub fn new(threads: usize) -> Self {
        Asynchronous {
            threads: threads.max(1),
            pending: PendingKind::default(),
        }
    }
}

impl Executor for Asynchronous {
    fn execute<L: LogicalProcess>(&self, input: RunInput<'_, L>) -> Result<RunStats, EngineError> {
        let run = match self.pending {
            PendingKind::Heap => run_segment::<L, HeapSet<L::Event>>,
            PendingKind::Ring => run_segment::<L, BucketRing<L::Event>>,
            PendingKind::Window => run_segment::<L, WindowSet<L::Event>>,
        };
        run(self.threads, input, None, None).map(|s| s.stats)
    }
}

/// What the threads do after a sync; every thread computes the same from the same inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decision {
    /// Go on; the earliest pending event anywhere is at this time.
    Continue(Time),
    /// Hand the pending events over to another executor.
    HandOver,
    /// The run is over.
    Exit(StopReason),
    /// The run failed (the earliest failure is in `Shared::failure`).
    Fail,
}

/// Events sent to one thread by the others, taken in at its next turn.
type Inbox<E> = Mutex<Vec<Event<E>>>;

/// State shared by all workers of one run.
struct Shared<'a, L: LogicalProcess> {
    lps: Vec<Mutex<ClusterLps<L>>>,
    local_index: Vec<u32>,
    channels: Channels<'a>,
    window: Time,
    end_time: Time,
    progress: &'a Progress,
    until: Option<Until<'a>>,
    events_before: u64,
    /// Per thread: no event the thread handles from now on is earlier.
    clocks: Vec<CachePadded<AtomicU64>>,
    /// Per thread: its earliest pending event when it last looked (a hint for syncs only).
    heads: Vec<CachePadded<AtomicU64>>,
    /// Per thread: events sent to it by the others, and the earliest of their times
    /// (`Time::MAX`: none), written under the inbox's lock and read without it.
    inbox: Vec<CachePadded<Inbox<L::Event>>>,
    mail_min: Vec<CachePadded<AtomicU64>>,
    /// Per thread: the number of its current idle spell (0: not idle). While a thread is idle
    /// it neither handles events nor takes mail, so its published head and its inbox stand
    /// still; a look that finds every other thread idle in the same spell before and after
    /// reading their heads and inboxes has seen a consistent cut ([`Worker::jump`]).
    idle: Vec<CachePadded<AtomicU64>>,
    /// Some thread asked for a sync.
    sync_wanted: CachePadded<AtomicBool>,
    barrier: SpinBarrier,
    /// Set by the last thread into a sync when `until` asked to hand over.
    handover: AtomicBool,
    /// Set by the last thread into a sync when the clusters were dealt out again.
    moved: AtomicBool,
    /// The cluster each thread owns, by cluster; rewritten only inside a sync.
    owner: Mutex<Vec<u16>>,
    /// Events per cluster since the last look, added up at syncs.
    load: Vec<AtomicU64>,
    /// Their sum, so that a sync with too few events to judge by reads one number.
    load_events: CachePadded<AtomicU64>,
    /// The loads the last look judged by.
    last_loads: Vec<AtomicU64>,
    /// Per thread: the windows of its own events it had seen at its last sync (the most of
    /// them is `until`'s count), and at the last look that judged the loads.
    windows_seen: Vec<AtomicU64>,
    windows_judged: Vec<AtomicU64>,
    /// Time of the earliest stop request (`Time::MAX`: none).
    stop_at: AtomicU64,
    /// The failure with the smallest key so far, and its time for a cheap look.
    failure: Mutex<Option<Failure>>,
    fail_time: AtomicU64,
    /// Per thread: its wait for a core since the segment began, in ns, as of its last sync
    /// (`u64::MAX`: not reported); read by `until`.
    core_wait: Vec<AtomicU64>,
    /// Threads asleep, or about to sleep, on `wake`.
    sleepers: CachePadded<AtomicUsize>,
    nap: Mutex<()>,
    wake: Condvar,
}

impl<L: LogicalProcess> Shared<'_, L> {
    /// Wakes the sleeping threads after a clock, a mailbox or the sync request changed. The
    /// change and a sleeper's registration are each followed by a full fence before the other
    /// is read, so either the sleeper's recheck sees the change or this sees the sleeper.
    fn nudge(&self) {
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            let _guard = lock(&self.nap);
            self.wake.notify_all();
        }
    }

    /// The time no event may reach: the end time, or earlier after a stop request at
    /// `stop_at` (`Time::MAX`: none, and `stop_end` saturates there).
    fn limit(&self, stop_at: Time) -> Time {
        self.end_time.min(stop_end(stop_at, self.window))
    }

    /// Asks every thread to meet at a sync.
    fn want_sync(&self) {
        self.sync_wanted.store(true, Ordering::Release);
        self.nudge();
    }
}

/// What one worker returns.
struct WorkerResult<E> {
    stats: ThreadStats,
    last: Time,
    decision: Decision,
    /// Pending events after a handover.
    left: Vec<Event<E>>,
}

/// Regions split, at most, per thread when [`deal_out`] looks for a better balance.
const SPLITS_PER_THREAD: usize = 4;

/// How much a split must even the threads' loads (as a fraction of the mean) to be kept.
const SPLIT_GAIN: f64 = 0.01;

/// Deals clusters out to `threads` threads by weight, keeping regions whole where that
/// balances as well: a region's clusters talk to each other most, so they are best on one
/// thread. It deals the regions whole, then splits the heaviest region into its clusters, then
/// the next, and keeps the first dealing that evens the loads by more than [`SPLIT_GAIN`]
/// over every dealing with fewer splits. Each dealing goes heaviest first, each region or
/// cluster to the thread with the least weight so far (ties to the lower thread, and between
/// equal weights to the lower cluster). `region_of` gives each cluster's region. Returns each
/// cluster's thread. With `may_split` false every region is dealt whole.
pub(crate) fn deal_out(
    weights: &[u64],
    region_of: &[u32],
    threads: usize,
    may_split: bool,
) -> Vec<u16> {
    let threads = threads.max(1);
    if threads == 1 {
        return vec![0; weights.len()];
    }
    let nregions = region_of.iter().max().map_or(0, |&r| r as usize + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); nregions];
    let mut region_weight = vec![0u64; nregions];
    for (c, &r) in region_of.iter().enumerate().take(weights.len()) {
        members[r as usize].push(c);
        region_weight[r as usize] += weights[c];
    }
    let mut heaviest: Vec<usize> = (0..nregions).filter(|&r| members[r].len() > 1).collect();
    heaviest.sort_by(|&a, &b| region_weight[b].cmp(&region_weight[a]).then(a.cmp(&b)));
    let mut split = vec![false; nregions];
    let mut best = deal_split(weights, &members, &region_weight, &split, threads);
    let mut best_imbalance = imbalance(weights, &best, threads);
    let splits = if may_split {
        SPLITS_PER_THREAD * threads
    } else {
        0
    };
    for &r in heaviest.iter().take(splits) {
        split[r] = true;
        let dealt = deal_split(weights, &members, &region_weight, &split, threads);
        let now = imbalance(weights, &dealt, threads);
        if now + SPLIT_GAIN < best_imbalance {
            best = dealt;
            best_imbalance = now;
        }
    }
    best
}

/// One dealing for [`deal_out`]: the regions marked in `split` cluster by cluster, the others
/// whole.
fn deal_split(
    weights: &[u64],
    members: &[Vec<usize>],
    region_weight: &[u64],
    split: &[bool],
    threads: usize,
) -> Vec<u16> {
    // What is dealt: (weight, first cluster, clusters).
    let mut items: Vec<(u64, usize, &[usize])> = Vec::with_capacity(weights.len());
    for (r, clusters) in members.iter().enumerate() {
        if clusters.is_empty() {
            continue;
        }
        if split[r] {
            items.extend(
                clusters
                    .iter()
                    .map(|c| (weights[*c], *c, std::slice::from_ref(c))),
            );
        } else {
            items.push((region_weight[r], clusters[0], clusters));
        }
    }
    items.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut total = vec![0u64; threads];
    let mut owner = vec![0u16; weights.len()];
    for (w, _, clusters) in items {
        let t = (0..threads).min_by_key(|&t| (total[t], t)).unwrap_or(0);
        total[t] += w;
        for &c in clusters {
            owner[c] = t as u16;
        }
    }
    owner
}

/// The busiest thread's load over the mean (1.0: even) for an assignment.
fn imbalance(weights: &[u64], owner: &[u16], threads: usize) -> f64 {
    let mut total = vec![0u64; threads.max(1)];
    for (&w, &o) in weights.iter().zip(owner) {
        total[usize::from(o)] += w;
    }
    let sum: u64 = total.iter().sum();
    if sum == 0 {
        return 1.0;
    }
    let max = total.iter().copied().max().unwrap_or(0);
    max as f64 * total.len() as f64 / sum as f64
}

/// Runs until the run ends or, at a housekeeping sync, `until` asks to hand the pending events
/// over. `weights` (events per cluster, if known) deals the clusters out at the start; LP counts
/// do otherwise.
pub(crate) fn run_segment<'a, L: LogicalProcess, P: PendingSet<L::Event>>(
    threads: usize,
    input: RunInput<'a, L>,
    until: Option<Until<'a>>,
    weights: Option<&[u64]>,
) -> Result<Segment<L::Event>, EngineError> {
    let started = Instant::now();
    let threads = threads.clamp(1, usize::from(u16::MAX));
    let RunInput {
        slots,
        initial,
        channels,
        end_time,
        progress,
    } = input;
    let window = channels.window();
    if window == 0 {
        return Err(EngineError::ZeroLookahead);
    }
    let nlp = slots.len();
    let nclusters = channels.clusters();
    let (lps, local_index) = deal_into_clusters(slots, channels.cluster_of, nclusters);
    // A thread that owns no LP would only relay clocks.
    let threads = threads.min(lps.iter().filter(|c| !c.slots.is_empty()).count().max(1));
    let owner = match weights.filter(|w| w.len() == nclusters && w.iter().any(|&x| x > 0)) {
        // Measured loads come from a stretch dense enough for threads (the adaptive
        // executor hands over only then), so regions may be split by them; LP counts say
        // nothing about density, so regions stay whole until a stretch has been measured.
        Some(w) => deal_out(w, channels.region_of, threads, true),
        None => {
            let sizes: Vec<u64> = lps.iter().map(|c| c.slots.len() as u64).collect();
            deal_out(&sizes, channels.region_of, threads, false)
        }
    };
    let mut firsts: Vec<Vec<Event<L::Event>>> = (0..threads).map(|_| Vec::new()).collect();
    let mut first_mail = vec![Time::MAX; threads];
    for ev in initial {
        let c = channels.cluster_of(ev.dst) as usize;
        let t = usize::from(owner[c]);
        first_mail[t] = first_mail[t].min(ev.time());
        firsts[t].push(ev);
    }
    let shared = Shared {
        lps: lps.into_iter().map(Mutex::new).collect(),
        local_index,
        channels,
        window,
        end_time,
        progress,
        until,
        events_before: progress.events(),
        clocks: (0..threads)
            .map(|_| CachePadded::new(AtomicU64::new(0)))
            .collect(),
        heads: (0..threads)
            .map(|_| CachePadded::new(AtomicU64::new(0)))
            .collect(),
        inbox: firsts
            .into_iter()
            .map(|v| CachePadded::new(Mutex::new(v)))
            .collect(),
        mail_min: first_mail
            .iter()
            .map(|&t| CachePadded::new(AtomicU64::new(t)))
            .collect(),
        idle: (0..threads)
            .map(|_| CachePadded::new(AtomicU64::new(0)))
            .collect(),
        sync_wanted: CachePadded::new(AtomicBool::new(false)),
        barrier: SpinBarrier::new(threads),
        handover: AtomicBool::new(false),
        moved: AtomicBool::new(false),
        owner: Mutex::new(owner),
        load: (0..nclusters).map(|_| AtomicU64::new(0)).collect(),
        load_events: CachePadded::new(AtomicU64::new(0)),
        last_loads: (0..nclusters).map(|_| AtomicU64::new(0)).collect(),
        windows_seen: (0..threads).map(|_| AtomicU64::new(0)).collect(),
        windows_judged: (0..threads).map(|_| AtomicU64::new(0)).collect(),
        stop_at: AtomicU64::new(Time::MAX),
        failure: Mutex::new(None),
        fail_time: AtomicU64::new(Time::MAX),
        core_wait: (0..threads).map(|_| AtomicU64::new(u64::MAX)).collect(),
        sleepers: CachePadded::new(AtomicUsize::new(0)),
        nap: Mutex::new(()),
        wake: Condvar::new(),
    };

    let results = on_threads(
        threads,
        || {
            shared.barrier.poison();
            shared.nudge();
        },
        |me| worker::<L, P>(&shared, me),
    );

    // The loads of the stretch since the last look, or of the last look when too few events
    // came after it to judge by.
    let since: Vec<u64> = shared
        .load
        .iter()
        .map(|l| l.load(Ordering::Relaxed))
        .collect();
    let loads: Vec<u64> = if since.iter().sum::<u64>() >= REBALANCE_MIN_EVENTS {
        since
    } else {
        shared
            .last_loads
            .iter()
            .map(|l| l.load(Ordering::Relaxed))
            .collect()
    };
    return_to_lp_order(slots, nlp, shared.lps.into_iter().map(unpoisoned));

    let mut per_thread = Vec::with_capacity(threads);
    let mut last = 0;
    let mut decision = Decision::Exit(StopReason::Drained);
    let mut left = Vec::new();
    for r in results {
        let mut r = r?;
        last = last.max(r.last);
        decision = r.decision;
        left.append(&mut r.left);
        per_thread.push(r.stats);
    }
    progress.set_now(last);
    if decision == Decision::Fail {
        if let Some(f) = unpoisoned(shared.failure) {
            return Err(f.error);
        }
    }
    let (stop, handed_over) = match decision {
        Decision::Exit(reason) => (reason, false),
        // The stop reason of a handed-over segment is not used.
        _ => (StopReason::Drained, true),
    };
    if handed_over {
        for inbox in shared.inbox {
            left.append(
                &mut CachePadded::into_inner(inbox)
                    .into_inner()
                    .unwrap_or_default(),
            );
        }
    }
    let events = per_thread.iter().map(|t: &ThreadStats| t.events).sum();
    // The thread that saw the most windows of its own events comes closest to the windows a
    // windowed executor opens over everyone's.
    let stats = RunStats {
        events,
        windows: per_thread
            .iter()
            .map(|t| t.cluster_windows)
            .max()
            .unwrap_or(0),
        last_event_time: last,
        window,
        threads,
        parallel_events: if threads > 1 { events } else { 0 },
        clusters: nclusters,
        per_thread,
        wall: started.elapsed(),
        stop,
    };
    Ok(Segment {
        stats,
        left,
        handed_over,
        loads,
    })
}

/// The threads' waits for a core in all (ns each, `u64::MAX` where not reported).
fn total_core_wait(waits: &[AtomicU64]) -> Option<Duration> {
    waits
        .iter()
        .map(|w| match w.load(Ordering::Relaxed) {
            u64::MAX => None,
            ns => Some(Duration::from_nanos(ns)),
        })
        .sum()
}

/// One worker's clusters, pending events and outboxes.
struct Worker<'s, L: LogicalProcess, P> {
    me: usize,
    /// This thread's wait for a core since the segment began, and when it last looked.
    core_meter: CoreWaitMeter,
    core_looked: Instant,
    /// Guards of the clusters this thread owns, by cluster.
    owned: Vec<Option<MutexGuard<'s, ClusterLps<L>>>>,
    /// This thread's copy of the cluster owners.
    owner: Vec<u16>,
    pending: P,
    /// Events for each other thread, handed over after each batch.
    outboxes: Vec<Vec<Event<L::Event>>>,
    /// Events handled per cluster since they were last added to the run's loads.
    counts: Vec<u64>,
    /// Their sum.
    uncounted: u64,
    /// The clock this thread last published.
    clock: Time,
    /// The end of the current window of this thread's events: a window opens at its first
    /// event at or after the last one's end, as the windowed executors open theirs, so the
    /// events per window compare with theirs.
    window_end: Time,
    stats: ThreadStats,
    last: Time,
    /// This thread found a failure and handles nothing more.
    failed: bool,
    /// Events handled and not yet added to the run's progress.
    unreported: u64,
    /// Sends of the event being handled, and their clusters (kept for their capacity).
    sent: Vec<Event<L::Event>>,
    dests: Vec<u32>,
    /// This thread is idle (published in `Shared::idle`), in its `idle_spell`-th spell.
    idle: bool,
    idle_spell: u64,
    /// Scratch of [`Self::jump`]: each other thread's idle spell, and every thread's head and
    /// earliest mail as the look read them.
    seen_spells: Vec<u64>,
    seen_heads: Vec<Time>,
    seen_mail: Vec<Time>,
}

impl<'s, L: LogicalProcess, P: PendingSet<L::Event>> Worker<'s, L, P> {
    /// Adds the events handled since the last report to the run's progress.
    fn report(&mut self, sh: &Shared<'_, L>) {
        sh.progress.add_events(self.unreported);
        self.unreported = 0;
        if self.me == 0 {
            sh.progress.set_now(self.last);
        }
    }

    /// Marks this thread idle: it found nothing to handle, took its mail and published its
    /// head, and will neither handle nor take mail until it leaves the spell.
    fn enter_idle(&mut self, sh: &Shared<'_, L>) {
        if !self.idle {
            self.idle = true;
            self.idle_spell += 1;
            sh.idle[self.me].store(self.idle_spell, Ordering::SeqCst);
        }
    }

    /// Ends an idle spell, before this thread takes mail, handles events or meets at a sync.
    fn leave_idle(&mut self, sh: &Shared<'_, L>) {
        if self.idle {
            self.idle = false;
            sh.idle[self.me].store(0, Ordering::SeqCst);
        }
    }

    /// Moves every thread's clock past an idle stretch without a sync, if every other thread
    /// is idle; called by an idle thread whose earliest pending event is `head`.
    ///
    /// Reading each other thread's idle spell, then every head and inbox, then the spells
    /// again, and finding them the same, is a consistent cut: while idle a thread changes
    /// neither its head nor its inbox, and no thread sends. So `G`, the earliest of those
    /// events, is a lower bound on every event any thread will ever handle, every event sent
    /// across threads from now on is at `G + L` or later, and each thread `v` will handle
    /// nothing before `min(head_v, mail_v, G + L)`. Raising each clock to that (never
    /// lowering it) lets the thread holding the event at `G` handle it. Returns whether the
    /// look was consistent.
    fn jump(&mut self, sh: &Shared<'_, L>, head: Time) -> bool {
        let me = self.me;
        let threads = sh.idle.len();
        for u in (0..threads).filter(|&u| u != me) {
            let spell = sh.idle[u].load(Ordering::SeqCst);
            if spell == 0 {
                return false;
            }
            self.seen_spells[u] = spell;
        }
        for u in 0..threads {
            self.seen_mail[u] = sh.mail_min[u].load(Ordering::SeqCst);
            self.seen_heads[u] = if u == me {
                head
            } else {
                sh.heads[u].load(Ordering::SeqCst)
            };
        }
        if (0..threads)
            .filter(|&u| u != me)
            .any(|u| sh.idle[u].load(Ordering::SeqCst) != self.seen_spells[u])
        {
            return false;
        }
        let earliest = self
            .seen_heads
            .iter()
            .chain(&self.seen_mail)
            .copied()
            .min()
            .unwrap_or(Time::MAX);
        let past = earliest.saturating_add(sh.window);
        for u in 0..threads {
            let clock = self.seen_heads[u].min(self.seen_mail[u]).min(past);
            let before = sh.clocks[u].fetch_max(clock, Ordering::AcqRel);
            if u == me {
                self.clock = self.clock.max(before).max(clock);
            }
        }
        self.stats.jumps += 1;
        sh.nudge();
        true
    }

    /// Raises this thread's clock to `clock`; never lowers it (another thread's
    /// [`Self::jump`] may have raised it further).
    fn publish_clock(&mut self, sh: &Shared<'_, L>, clock: Time) {
        if clock > self.clock {
            let before = sh.clocks[self.me].fetch_max(clock, Ordering::AcqRel);
            self.clock = before.max(clock);
            if before < clock {
                sh.nudge();
            }
        }
    }

    /// The smallest clock of the other threads plus the window: nothing this thread will
    /// receive from now on is earlier.
    fn bound(&self, sh: &Shared<'_, L>) -> Time {
        sh.clocks
            .iter()
            .enumerate()
            .filter(|&(t, _)| t != self.me)
            .map(|(_, c)| c.load(Ordering::Acquire))
            .min()
            .unwrap_or(Time::MAX)
            .saturating_add(sh.window)
    }

    fn has_mail(&self, sh: &Shared<'_, L>) -> bool {
        sh.mail_min[self.me].load(Ordering::Acquire) != Time::MAX
    }

    /// Moves the events in this thread's inbox into its pending set; an idle thread stops
    /// being idle first, so that no look at the idle threads misses these events in between.
    fn take_mail(&mut self, sh: &Shared<'_, L>) {
        if self.has_mail(sh) {
            self.leave_idle(sh);
            let mut inbox = lock(&sh.inbox[self.me]);
            for ev in inbox.drain(..) {
                self.pending.push(ev);
            }
            sh.mail_min[self.me].store(Time::MAX, Ordering::SeqCst);
        }
    }

    fn send_mail(&mut self, sh: &Shared<'_, L>) {
        let mut sent = false;
        for (t, out) in self.outboxes.iter_mut().enumerate() {
            if !out.is_empty() {
                let first = out.iter().map(Event::time).min().unwrap_or(Time::MAX);
                let mut inbox = lock(&sh.inbox[t]);
                inbox.append(out);
                let mail = &sh.mail_min[t];
                if first < mail.load(Ordering::Relaxed) {
                    mail.store(first, Ordering::Release);
                }
                sent = true;
            }
        }
        if sent {
            sh.nudge();
        }
    }

    /// Sleeps until woken or [`NAP_MAX`] has passed, unless a clock, this thread's mailbox or
    /// the sync request changed since the look that found nothing to do (whose bound was
    /// `bound`).
    fn nap(&self, sh: &Shared<'_, L>, bound: Time) {
        sh.sleepers.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        let guard = lock(&sh.nap);
        let quiet = !sh.sync_wanted.load(Ordering::Acquire)
            && !self.has_mail(sh)
            && !sh.barrier.is_poisoned()
            && self.bound(sh) == bound;
        if quiet {
            let _ = sh.wake.wait_timeout(guard, NAP_MAX);
        } else {
            drop(guard);
        }
        sh.sleepers.fetch_sub(1, Ordering::SeqCst);
    }

    fn take_clusters(&mut self, sh: &'s Shared<'_, L>) {
        for (c, &o) in self.owner.iter().enumerate() {
            if usize::from(o) == self.me && self.owned[c].is_none() {
                self.owned[c] = Some(lock(&sh.lps[c]));
            }
        }
    }

    /// Handles every pending event before `limit` (lowered by a stop request), routing sends.
    /// Returns the number of events handled.
    fn batch(&mut self, sh: &Shared<'_, L>, mut limit: Time) -> u64 {
        let me = self.me as u16;
        let fail_time = sh.fail_time.load(Ordering::Acquire);
        let mut sent = std::mem::take(&mut self.sent);
        let mut dests = std::mem::take(&mut self.dests);
        let mut stop_requested = false;
        let mut handled = 0;
        while handled < TURN_EVENTS {
            let Some(ev) = self.pending.pop_before(limit) else {
                break;
            };
            let t = ev.time();
            let key = ev.key;
            if t >= fail_time && !below_failure(sh, key) {
                self.pending.push(ev);
                break;
            }
            let dst = ev.dst;
            let c = sh.channels.cluster_of(dst);
            let Some(lps) = self.owned[c as usize].as_deref_mut() else {
                unreachable!("an event for cluster {c}, which thread {me} does not own");
            };
            let local = lps.local(dst, &sh.local_index);
            self.counts[c as usize] += 1;
            if t >= self.window_end {
                self.stats.cluster_windows += 1;
                self.window_end = t.saturating_add(sh.window);
            }
            self.last = t;
            handled += 1;
            dispatch(
                &mut lps.slots[local],
                ev,
                &mut sent,
                &mut stop_requested,
                sh.end_time,
            );
            if stop_requested {
                stop_requested = false;
                sh.stop_at.fetch_min(t, Ordering::AcqRel);
                limit = limit.min(stop_end(t, sh.window));
            }
            let mut failed = None;
            for out in &sent {
                match sh.channels.destination(dst, c, t, out) {
                    Ok(dc) => dests.push(dc),
                    Err(error) => {
                        failed = Some(error);
                        break;
                    }
                }
            }
            if let Some(error) = failed {
                sent.clear();
                dests.clear();
                let mut f = lock(&sh.failure);
                *f = Failure::earliest(f.take(), Some(Failure { at: key, error }));
                sh.fail_time.fetch_min(t, Ordering::AcqRel);
                self.failed = true;
                break;
            }
            for (out, dc) in sent.drain(..).zip(dests.drain(..)) {
                let o = self.owner[dc as usize];
                if o == me {
                    self.pending.push(out);
                } else {
                    self.outboxes[usize::from(o)].push(out);
                }
            }
        }
        self.sent = sent;
        self.dests = dests;
        self.send_mail(sh);
        self.unreported += handled;
        if self.unreported >= PROGRESS_EVERY {
            self.report(sh);
        }
        self.stats.events += handled;
        self.uncounted += handled;
        handled
    }

    /// Adds the events handled per cluster since the last call to the run's loads.
    fn add_loads(&mut self, sh: &Shared<'_, L>) {
        for (c, n) in self.counts.iter_mut().enumerate() {
            if *n > 0 {
                sh.load[c].fetch_add(*n, Ordering::Relaxed);
                *n = 0;
            }
        }
        sh.load_events.fetch_add(self.uncounted, Ordering::Relaxed);
        self.uncounted = 0;
    }

    /// Meets every other thread with nothing in flight; returns what to do next.
    fn sync(&mut self, sh: &'s Shared<'_, L>) -> Result<Decision, ()> {
        self.stats.syncs += 1;
        // A sync may move clusters, and so pending events, between threads.
        self.leave_idle(sh);
        self.report(sh);
        // A look costs a few microseconds, and idle stretches may sync far more often than
        // `until` judges.
        if sh.until.is_some() && self.core_looked.elapsed() >= HOUSEKEEPING / 2 {
            self.core_looked = Instant::now();
            let waited = self.core_meter.so_far();
            sh.core_wait[self.me].store(
                waited.map_or(u64::MAX, |d| d.as_nanos() as u64),
                Ordering::Relaxed,
            );
        }
        sh.windows_seen[self.me].store(self.stats.cluster_windows, Ordering::Relaxed);
        if self.uncounted >= FLUSH_EVENTS {
            self.add_loads(sh);
        }
        let quiet = WindowReduction {
            min_time: Time::MAX,
            flags: 0,
        };
        let threads = sh.clocks.len();
        sh.barrier
            .wait(quiet, || {
                sh.sync_wanted.store(false, Ordering::Relaxed);
                sh.moved.store(false, Ordering::Relaxed);
                rebalance(sh, threads);
            })
            .map_err(|_| ())?;
        // Nothing is handled or sent until every thread has left the second barrier, so what
        // is read here is the same for every thread.
        self.take_mail(sh);
        let head = self.pending.next_time().unwrap_or(Time::MAX);
        // The mail taken here may have lowered the head. Published before the second barrier,
        // so that no thread judges the run idle by the head as it was before, and asks for
        // another sync before this thread has handled anything (on a busy machine, over and
        // over while this thread waits for a core).
        sh.heads[self.me].store(head, Ordering::Relaxed);
        let failure_key = lock(&sh.failure).as_ref().map(|f| f.at);
        let stop_at = sh.stop_at.load(Ordering::Acquire);
        let mut flags = 0;
        if sh.progress.is_cancelled() {
            flags |= FLAG_CANCEL;
        }
        if let Some(fk) = failure_key {
            if let Some(ev) = self.pending.pop_before(Time::MAX) {
                if ev.key < fk {
                    flags |= FLAG_BELOW_FAILURE;
                }
                self.pending.push(ev);
            }
        }
        let reduced = sh
            .barrier
            .wait(
                WindowReduction {
                    min_time: head,
                    flags,
                },
                || {
                    // The run's windows: at least those of the thread that saw the most. A
                    // thread that sat idle saw few, and counting only its windows would find a
                    // sparse stretch dense.
                    let windows = sh
                        .windows_seen
                        .iter()
                        .map(|w| w.load(Ordering::Relaxed))
                        .max()
                        .unwrap_or(0);
                    if let Some(until) = sh.until {
                        let tally = Tally {
                            windows,
                            events: sh.progress.events() - sh.events_before,
                            core_wait: total_core_wait(&sh.core_wait),
                        };
                        if (until.ask)(tally) {
                            sh.handover.store(true, Ordering::Release);
                        }
                    }
                },
            )
            .map_err(|_| ())?;
        let gmin = reduced.min_time;
        let limit = sh.limit(stop_at);
        let decision = if reduced.flags & FLAG_CANCEL != 0 {
            Decision::Exit(StopReason::Cancelled)
        } else if failure_key.is_some() {
            if reduced.flags & FLAG_BELOW_FAILURE != 0 {
                Decision::Continue(gmin)
            } else {
                Decision::Fail
            }
        } else if stop_at != Time::MAX && gmin >= limit {
            Decision::Exit(StopReason::Requested)
        } else if gmin == Time::MAX {
            Decision::Exit(StopReason::Drained)
        } else if gmin >= sh.end_time {
            Decision::Exit(StopReason::EndTime)
        } else if stop_at == Time::MAX && sh.handover.load(Ordering::Acquire) {
            Decision::HandOver
        } else {
            Decision::Continue(gmin)
        };
        if let Decision::Continue(gmin) = decision {
            if sh.moved.load(Ordering::Acquire) {
                self.move_clusters(sh, gmin)?;
            } else if !self.failed {
                let c = head.min(gmin.saturating_add(sh.window)).max(self.clock);
                self.publish_clock(sh, c);
            }
        }
        Ok(decision)
    }

    /// Gives up the clusters another thread now owns (with their pending events) and takes
    /// the new ones; every clock restarts at `gmin`, the earliest pending event anywhere.
    fn move_clusters(&mut self, sh: &'s Shared<'_, L>, gmin: Time) -> Result<(), ()> {
        self.owner.clone_from(&lock(&sh.owner));
        let me = self.me as u16;
        for (c, guard) in self.owned.iter_mut().enumerate() {
            if self.owner[c] != me {
                *guard = None;
            }
        }
        let mut keep = Vec::new();
        while let Some(ev) = self.pending.pop_before(Time::MAX) {
            let o = self.owner[sh.channels.cluster_of(ev.dst) as usize];
            if o == me {
                keep.push(ev);
            } else {
                self.outboxes[usize::from(o)].push(ev);
            }
        }
        for ev in keep {
            self.pending.push(ev);
        }
        self.send_mail(sh);
        // A clock may go down here: every pending event is at `gmin` or later, and a thread
        // that went further ahead did so under the bound of the cluster's former owner,
        // which the moved events still keep.
        self.clock = gmin;
        sh.clocks[self.me].store(gmin, Ordering::Release);
        let quiet = WindowReduction {
            min_time: Time::MAX,
            flags: 0,
        };
        sh.barrier.wait(quiet, || {}).map_err(|_| ())?;
        self.take_clusters(sh);
        Ok(())
    }
}

/// Whether `key` is below the earliest failure's key (a failure's time was reached).
fn below_failure<L: LogicalProcess>(sh: &Shared<'_, L>, key: EventKey) -> bool {
    lock(&sh.failure).as_ref().is_none_or(|f| key < f.at)
}

/// Inside a sync, with every thread waiting: deals the clusters out again by the events each
/// handled since the last look, if that evens the threads' loads enough to pay. Regions are
/// split only when the stretch averaged at least [`DENSE_WINDOW_EVENTS`] events per lookahead
/// window: where threads wait on each other about once a window, clusters of one region on
/// different threads would wait on each other at nearly every event. A sync with fewer than
/// [`REBALANCE_MIN_EVENTS`] events counted since the last look reads one number and returns.
fn rebalance<L: LogicalProcess>(sh: &Shared<'_, L>, threads: usize) {
    if threads < 2 || sh.load_events.load(Ordering::Relaxed) < REBALANCE_MIN_EVENTS {
        // Too little to judge by: keep counting.
        return;
    }
    sh.load_events.store(0, Ordering::Relaxed);
    let loads: Vec<u64> = sh
        .load
        .iter()
        .map(|l| l.swap(0, Ordering::Relaxed))
        .collect();
    let events: u64 = loads.iter().sum();
    // The run's windows in the stretch: at least those of the thread that saw the most (a
    // thread that sat idle saw few, and judging by its count alone would find a sparse
    // stretch dense).
    let windows = sh
        .windows_seen
        .iter()
        .zip(&sh.windows_judged)
        .map(|(seen, judged)| {
            let now = seen.load(Ordering::Relaxed);
            now.saturating_sub(judged.swap(now, Ordering::Relaxed))
        })
        .max()
        .unwrap_or(0);
    let dense = events as f64 >= DENSE_WINDOW_EVENTS * windows.max(1) as f64;
    for (last, n) in sh.last_loads.iter().zip(&loads) {
        last.store(*n, Ordering::Relaxed);
    }
    if lock(&sh.failure).is_some() || sh.stop_at.load(Ordering::Acquire) != Time::MAX {
        return;
    }
    let mut owner = lock(&sh.owner);
    if let Some(dealt) = redeal(&loads, &owner, sh.channels.region_of, threads, dense) {
        *owner = dealt;
        sh.moved.store(true, Ordering::Release);
    }
}

/// The new owner of each cluster after a stretch whose events per cluster were `loads`, or
/// `None` to keep `owner`. A dealing is taken if it lowers the busiest thread's share by more
/// than [`REBALANCE_GAIN`]; and in a sparse stretch (`dense` false) a region split over
/// threads is made whole again even if that balances worse, since there its threads would
/// wait on each other at nearly every event. (Without that rule a split made in a dense burst
/// outlived it: the whole dealing balanced worse, so it was never taken.)
fn redeal(
    loads: &[u64],
    owner: &[u16],
    region_of: &[u32],
    threads: usize,
    dense: bool,
) -> Option<Vec<u16>> {
    let dealt = deal_out(loads, region_of, threads, dense);
    if !dense && splits_a_region(owner, region_of) {
        return Some(dealt);
    }
    (imbalance(loads, &dealt, threads) + REBALANCE_GAIN < imbalance(loads, owner, threads))
        .then_some(dealt)
}

/// Whether two clusters of one region have different owners.
fn splits_a_region(owner: &[u16], region_of: &[u32]) -> bool {
    let mut first: Vec<Option<u16>> = Vec::new();
    for (&o, &r) in owner.iter().zip(region_of) {
        let r = r as usize;
        if r >= first.len() {
            first.resize(r + 1, None);
        }
        match first[r] {
            None => first[r] = Some(o),
            Some(f) if f != o => return true,
            Some(_) => {}
        }
    }
    false
}

/// How long a blocked thread spins before it sleeps, adapted to how its waits end.
struct Spin {
    budget: Duration,
    /// The current wait went to sleep.
    napped: bool,
}

impl Spin {
    fn new(oversubscribed: bool) -> Self {
        Spin {
            budget: if oversubscribed {
                SPIN_MIN
            } else {
                SPIN_BEFORE_SLEEP
            },
            napped: false,
        }
    }

    fn wait_ended(&mut self) {
        self.budget = if self.napped {
            (self.budget / 4).max(SPIN_MIN)
        } else {
            (self.budget * 2).min(SPIN_BEFORE_SLEEP)
        };
        self.napped = false;
    }
}

fn worker<L: LogicalProcess, P: PendingSet<L::Event>>(
    sh: &Shared<'_, L>,
    me: usize,
) -> WorkerResult<L::Event> {
    let threads = sh.clocks.len();
    let nclusters = sh.lps.len();
    let mut w: Worker<'_, L, P> = Worker {
        me,
        core_meter: CoreWaitMeter::start(),
        core_looked: Instant::now(),
        owned: (0..nclusters).map(|_| None).collect(),
        owner: lock(&sh.owner).clone(),
        pending: P::new(sh.window),
        outboxes: (0..threads).map(|_| Vec::new()).collect(),
        counts: vec![0; nclusters],
        uncounted: 0,
        clock: 0,
        window_end: 0,
        stats: ThreadStats::default(),
        last: 0,
        failed: false,
        unreported: 0,
        sent: Vec::new(),
        dests: Vec::new(),
        idle: false,
        idle_spell: 0,
        seen_spells: vec![0; threads],
        seen_heads: vec![Time::MAX; threads],
        seen_mail: vec![Time::MAX; threads],
    };
    w.take_clusters(sh);
    let mut turns = 0u32;
    let mut synced_windows = 0u64;
    let mut last_look = Instant::now();
    let mut blocked_since: Option<Instant> = None;
    let mut spins = 0u32;
    // The bound a blocked thread last saw, and since when (at its look at the wall clock after
    // the bound last moved) it has not moved.
    let mut quiet_bound = 0;
    let mut quiet_since: Option<Instant> = None;
    // With more threads than cores a neighbour is often off its core; spinning then only
    // delays it.
    let oversubscribed = threads > crate::cores();
    let mut spin = Spin::new(oversubscribed);
    let decision = loop {
        if sh.sync_wanted.load(Ordering::Acquire) {
            if let Some(since) = blocked_since.take() {
                w.stats.barrier_wait += since.elapsed();
                spin.wait_ended();
            }
            let wait = Instant::now();
            let decision = w.sync(sh);
            w.stats.barrier_wait += wait.elapsed();
            match decision {
                Err(()) => break Decision::Exit(StopReason::Requested),
                Ok(Decision::Continue(_)) => continue,
                Ok(d) => break d,
            }
        }
        if sh.barrier.is_poisoned() {
            break Decision::Exit(StopReason::Requested);
        }
        if sh.progress.is_cancelled() {
            sh.want_sync();
            continue;
        }
        if me == 0 {
            turns = turns.wrapping_add(1);
            // A segment that may end after any window (a test of switching) meets after each
            // window this thread ends, not every turn: a sync costs every thread a trip through
            // the barrier, and a turn may end no window.
            let window_ended = sh.until.is_some_and(|u| u.every_mask == 0)
                && w.stats.cluster_windows != synced_windows;
            if window_ended
                || (turns % CLOCK_LOOK_EVERY == 0 && last_look.elapsed() >= HOUSEKEEPING)
            {
                last_look = Instant::now();
                synced_windows = w.stats.cluster_windows;
                sh.want_sync();
            }
        }
        // The order matters: the others' clocks first, then their mail (see the module docs).
        let bound = w.bound(sh);
        w.take_mail(sh);
        let head = w.pending.next_time().unwrap_or(Time::MAX);
        if sh.heads[me].load(Ordering::Relaxed) != head {
            sh.heads[me].store(head, Ordering::Relaxed);
        }
        if !w.failed {
            let clock = head.min(bound).max(w.clock);
            w.publish_clock(sh, clock);
        }
        let cap = sh.limit(sh.stop_at.load(Ordering::Acquire));
        let fail_time = sh.fail_time.load(Ordering::Acquire);
        let limit = bound.min(cap).min(fail_time.saturating_add(1));
        if !w.failed && head < limit {
            w.leave_idle(sh);
            if let Some(since) = blocked_since.take() {
                w.stats.barrier_wait += since.elapsed();
                spin.wait_ended();
            }
            quiet_since = None;
            if w.batch(sh, limit) > 0 {
                continue;
            }
        }
        // Nothing to handle now.
        if w.failed {
            w.publish_clock(sh, Time::MAX);
        }
        blocked_since.get_or_insert_with(Instant::now);
        // The earliest event any thread holds or has been sent, as far as their last looks
        // say (mail counts: a thread that sent its last event away has a head past the end
        // before the receiver has taken it).
        let others_head = sh
            .heads
            .iter()
            .chain(&sh.mail_min)
            .map(|h| h.load(Ordering::Relaxed))
            .min()
            .unwrap_or(Time::MAX);
        let reach = cap.min(fail_time.saturating_add(1));
        // Every thread has nothing left before the end (as far as their last looks say).
        let done = others_head.min(head) >= reach;
        if w.failed || done {
            sh.want_sync();
        } else if !w.idle {
            // Where every thread is blocked (an idle stretch of simulated time), the last to
            // become idle moves every clock past it.
            w.enter_idle(sh);
            if w.jump(sh, head) {
                continue;
            }
        }
        // A neighbour whose clock moves is on a core and working: spinning beside it costs it
        // nothing, while sleeping would cost it a wake-up at each of its clocks. So the spin
        // budget counts from the last time the bound moved, not from the start of the wait;
        // except with more threads than cores, where a spinning thread holds a core that
        // another thread may be waiting for.
        if bound != quiet_bound && !oversubscribed {
            quiet_bound = bound;
            quiet_since = None;
        }
        spins = spins.wrapping_add(1);
        if spins % SPINS_PER_CLOCK_LOOK == 0
            && quiet_since.get_or_insert_with(Instant::now).elapsed() > spin.budget
        {
            // Before sleeping: if every thread still looks blocked, an idle stretch may be
            // waiting for a jump that found a neighbour between looks (off its core, say).
            // Look again; if this thread has been blocked for a nap's length and the look is
            // still not consistent, meet at a sync rather than wait for the housekeeping one.
            if w.idle && others_head.min(head) >= bound.saturating_add(sh.window) {
                if w.jump(sh, head) {
                    continue;
                }
                if blocked_since.is_some_and(|s| s.elapsed() >= NAP_MAX) {
                    sh.want_sync();
                    continue;
                }
            }
            spin.napped = true;
            w.nap(sh, bound);
        } else {
            for _ in 0..PAUSES_PER_SPIN {
                std::hint::spin_loop();
            }
        }
    };
    w.report(sh);
    w.add_loads(sh);
    w.stats.core_wait = w.core_meter.so_far().unwrap_or_default();
    let mut left = Vec::new();
    if decision == Decision::HandOver {
        while let Some(ev) = w.pending.pop_before(Time::MAX) {
            left.push(ev);
        }
    }
    WorkerResult {
        stats: w.stats,
        last: w.last,
        decision,
        left,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_are_dealt_heaviest_first_to_the_least_loaded_thread() {
        // Each cluster its own region.
        let own = |n: u32| (0..n).collect::<Vec<u32>>();
        assert_eq!(
            deal_out(&[5, 1, 1, 1, 1, 1], &own(6), 2, true),
            [0, 1, 1, 1, 1, 1]
        );
        assert_eq!(
            deal_out(&[3, 3, 2, 2, 2], &own(5), 2, true),
            [0, 1, 0, 1, 0]
        );
        assert_eq!(deal_out(&[1, 1, 1], &own(3), 1, true), [0, 0, 0]);
        assert_eq!(deal_out(&[], &[], 4, true), Vec::<u16>::new());
        let w = [9, 7, 6, 5, 4, 3, 2, 1];
        let dealt = deal_out(&w, &own(8), 3, true);
        assert!(imbalance(&w, &dealt, 3) < 1.06, "{dealt:?}");
        assert!((imbalance(&[1, 1], &[0, 0], 2) - 2.0).abs() < 1e-12);
        assert!((imbalance(&[0, 0], &[0, 1], 2) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn regions_stay_whole_unless_heavier_than_a_threads_share() {
        // Region 0 (clusters 0-3) carries 60 % of the load: on 2 threads its clusters are
        // dealt one by one; regions 1 and 2 stay whole.
        let w = [20, 20, 10, 10, 15, 5, 10, 10];
        let regions = [0, 0, 0, 0, 1, 1, 2, 2];
        let dealt = deal_out(&w, &regions, 2, true);
        assert_eq!(dealt[4], dealt[5]);
        assert_eq!(dealt[6], dealt[7]);
        assert_ne!(dealt[0], dealt[1]);
        assert!(imbalance(&w, &dealt, 2) < 1.01, "{dealt:?}");
        // Kept whole, the heavy region would hold one thread at 1.2 times the mean.
        let whole = deal_out(&[60, 20, 20], &[0, 1, 2], 2, true);
        assert!((imbalance(&[60, 20, 20], &whole, 2) - 1.2).abs() < 1e-12);
        // On 4 threads (a share of 25) regions 1 and 2 (20 each) still stay whole; the best
        // dealing of 20, 20, 20, 20, 10, 10 leaves two threads at 30.
        let four = deal_out(&w, &regions, 4, true);
        assert_eq!(four[4], four[5]);
        assert_eq!(four[6], four[7]);
        assert!((imbalance(&w, &four, 4) - 1.2).abs() < 1e-12, "{four:?}");
        // One thread takes everything.
        assert_eq!(deal_out(&w, &regions, 1, true), [0; 8]);
        // Not allowed to split, region 0 stays whole: one thread carries 60.
        let whole = deal_out(&w, &regions, 2, false);
        assert!(whole[..4].iter().all(|&t| t == whole[0]), "{whole:?}");
        assert!((imbalance(&w, &whole, 2) - 1.2).abs() < 1e-12);
    }

    #[test]
    fn a_sparse_stretch_makes_split_regions_whole_again() {
        let w = [20, 20, 10, 10, 15, 5, 10, 10];
        let regions = [0, 0, 0, 0, 1, 1, 2, 2];
        let whole = deal_out(&w, &regions, 2, false);
        assert!(!splits_a_region(&whole, &regions));
        // A dense stretch splits region 0: it evens the threads (1.2 to 1.0).
        let split = redeal(&w, &whole, &regions, 2, true).expect("a better balance");
        assert!(splits_a_region(&split, &regions), "{split:?}");
        // The same loads again: nothing better to move to.
        assert_eq!(redeal(&w, &split, &regions, 2, true), None);
        // A sparse stretch with the same loads: region 0 goes back to one thread, although
        // whole it balances worse.
        let merged = redeal(&w, &split, &regions, 2, false).expect("made whole");
        assert!(!splits_a_region(&merged, &regions), "{merged:?}");
        assert_eq!(merged, whole);
        // Whole already, a sparse stretch moves nothing that does not balance better.
        assert_eq!(redeal(&w, &whole, &regions, 2, false), None);
        // Every cluster its own region: nothing is ever split.
        let own: Vec<u32> = (0..8).collect();
        assert!(!splits_a_region(&[0, 1, 0, 1, 0, 1, 0, 1], &own));
    }
}
