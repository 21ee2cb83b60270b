//! Determinism and contract tests for the executors: identical results for any executor, thread
//! count and partitioning; lookahead violations; edge cases.

use bbsim_engine::digest::Digest;
use bbsim_engine::phold::{state_digest, PholdParams};
use bbsim_engine::{
    Adaptive, Asynchronous, CriticalPath, Ctx, EngineError, Executor, LogicalProcess,
    LookaheadTable, LpId, Parallel, PartitionSpec, PendingKind, Sequential, SequentialOrder,
    SimConfig, Simulation, StopReason, SwitchPolicy, Time,
};

/// Every executor configuration the tests compare.
fn executors() -> Vec<(String, Box<dyn Fn() -> AnyExec>)> {
    let mut v: Vec<(String, Box<dyn Fn() -> AnyExec>)> = Vec::new();
    for order in [SequentialOrder::Global, SequentialOrder::Windowed] {
        for pending in [PendingKind::Heap, PendingKind::Ring, PendingKind::Window] {
            v.push((
                format!("sequential/{order:?}/{pending:?}"),
                Box::new(move || AnyExec::Seq(Sequential { pending, order })),
            ));
        }
    }
    for pending in [PendingKind::Heap, PendingKind::Ring, PendingKind::Window] {
        v.push((
            format!("critical-path/{pending:?}"),
            Box::new(move || AnyExec::CriticalPath(CriticalPath::new(pending))),
        ));
    }
    for threads in 1..=4 {
        for pending in [PendingKind::Heap, PendingKind::Ring, PendingKind::Window] {
            v.push((
                format!("parallel/{threads}/{pending:?}"),
                Box::new(move || AnyExec::Par(Parallel { threads, pending })),
            ));
        }
    }
    for threads in 1..=4 {
        for pending in [PendingKind::Heap, PendingKind::Ring, PendingKind::Window] {
            v.push((
                format!("asynchronous/{threads}/{pending:?}"),
                Box::new(move || AnyExec::Async(Asynchronous { threads, pending })),
            ));
        }
    }
    // The adaptive executor switching executor every window or every few windows (results
    // must not change), and as the product runs it (measured).
    for threads in 2..=4 {
        for policy in [
            SwitchPolicy::Alternate { windows: 1 },
            SwitchPolicy::Alternate { windows: 3 },
            SwitchPolicy::Measured,
        ] {
            v.push((
                format!("adaptive/{threads}/{policy:?}"),
                Box::new(move || {
                    AnyExec::Adaptive(Adaptive {
                        threads,
                        pending: PendingKind::Ring,
                        policy,
                        watch_run_queue: true,
                    })
                }),
            ));
        }
    }
    v
}

enum AnyExec {
    Seq(Sequential),
    Par(Parallel),
    Adaptive(Adaptive),
    Async(Asynchronous),
    CriticalPath(CriticalPath),
}

impl Executor for AnyExec {
    fn execute<L: LogicalProcess>(
        &self,
        input: bbsim_engine::sim::RunInput<'_, L>,
    ) -> Result<bbsim_engine::RunStats, EngineError> {
        match self {
            AnyExec::Seq(s) => s.execute(input),
            AnyExec::Par(p) => p.execute(input),
            AnyExec::Adaptive(a) => a.execute(input),
            AnyExec::Async(a) => a.execute(input),
            AnyExec::CriticalPath(c) => c.execute(input),
        }
    }
}

fn partitionings() -> Vec<PartitionSpec> {
    vec![
        PartitionSpec::Contiguous { clusters: 16 },
        PartitionSpec::RoundRobin { clusters: 7 },
        // One region of 160 LPs, heavier than a share of 2 threads, and three of 32, each
        // split into clusters of 8 LPs.
        PartitionSpec::Regions {
            regions: (0..256u32).map(|lp| lp.saturating_sub(128) / 32).collect(),
            splits: (0..256u32).map(|lp| Some(lp / 8)).collect(),
        },
    ]
}

#[test]
fn phold_is_identical_for_every_executor_thread_count_and_partitioning() {
    let params = PholdParams {
        nlp: 256,
        start_events: 4,
        remote: 0.25,
        mean: 1.0,
        lookahead: 0.5,
        end: 60.0,
        seed: 42,
    };
    let mut reference: Option<(u64, u64)> = None;
    for partition in partitionings() {
        for (name, make) in executors() {
            let mut sim = params.build(partition.clone());
            let stats = sim.run(&make()).expect("phold runs");
            let got = (stats.events, state_digest(&sim));
            assert!(
                stats.events > 10_000,
                "{name}: too few events {}",
                stats.events
            );
            assert_eq!(stats.stop, StopReason::EndTime);
            match reference {
                None => reference = Some(got),
                Some(r) => assert_eq!(r, got, "{name} with {partition:?} differs"),
            }
        }
    }
}

/// The measured policy on a run long and dense enough that it tries threads (its first trial
/// comes after 5 epochs of 40 ms of dense windows; the sequential run takes several times
/// that): the results are the reference's, however the switches fell. The run queue is not
/// watched, so the other tests on the machine's cores do not hold the trial back.
#[test]
fn measured_switching_gives_the_reference_results() {
    let params = PholdParams {
        nlp: 2048,
        start_events: 16,
        remote: 0.25,
        mean: 1.0,
        lookahead: 0.5,
        end: 600.0,
        seed: 7,
    };
    let mut reference = params.build(PartitionSpec::Auto);
    let r = reference
        .run(&Sequential::reference(PendingKind::Ring))
        .expect("runs");
    let mut adaptive = params.build(PartitionSpec::Auto);
    let a = adaptive
        .run(&Adaptive {
            watch_run_queue: false,
            ..Adaptive::new(2)
        })
        .expect("runs");
    assert_eq!(
        (a.events, state_digest(&adaptive)),
        (r.events, state_digest(&reference))
    );
    assert_eq!(a.stop, StopReason::EndTime);
    assert!(
        a.parallel_events > 0 && a.threads == 2,
        "never tried threads: {a:?}"
    );
}

#[test]
fn phold_windows_and_per_thread_load_are_reported() {
    let params = PholdParams {
        nlp: 64,
        start_events: 2,
        lookahead: 0.5,
        end: 50.0,
        ..PholdParams::default()
    };
    let mut seq = params.build(PartitionSpec::Auto);
    let s = seq.run(&Sequential::default()).expect("runs");
    let mut par = params.build(PartitionSpec::Auto);
    let p = par.run(&Parallel::new(2)).expect("runs");
    assert_eq!(s.events, p.events);
    assert_eq!(
        s.windows, p.windows,
        "window sequence is executor-independent"
    );
    assert!(
        p.windows >= 80,
        "50 units / 0.5 lookahead: {} windows",
        p.windows
    );
    assert_eq!(p.per_thread.len(), 2);
    assert_eq!(p.per_thread.iter().map(|t| t.events).sum::<u64>(), p.events);
    assert!(p.events_per_window() > 1.0);
}

/// A model that mixes intra-window self-events (delays below the lookahead, including zero),
/// cross-LP events at exactly the lookahead, priorities and equal receive times.
#[derive(Clone, Debug, Default)]
struct Chatter {
    nlp: u32,
    fold: u64,
    log: Vec<(Time, u8, u32, u64, u32)>,
}

const LA: Time = 1_000;

#[derive(Clone, Copy, Debug)]
struct Msg {
    hops: u32,
}

impl LogicalProcess for Chatter {
    type Event = Msg;

    fn init(&mut self, ctx: &mut Ctx<'_, Msg>) {
        ctx.send_self(0, Msg { hops: 0 });
        ctx.send_with_priority(ctx.me(), 0, 3, Msg { hops: 0 });
    }

    fn handle(&mut self, ev: Msg, ctx: &mut Ctx<'_, Msg>) {
        let k = ctx.current_key();
        self.log
            .push((k.time, k.priority(), k.source().0, k.seq, ev.hops));
        self.fold = Digest::new()
            .word(self.fold)
            .word(k.time)
            .word(k.order)
            .word(k.seq)
            .word(u64::from(ev.hops))
            .finish();
        if ev.hops >= 40 {
            return;
        }
        let r = ctx.rng().below(4);
        let next = Msg { hops: ev.hops + 1 };
        match r {
            // intra-window self-events, including zero delay
            0 => {
                let d = ctx.rng().below(LA / 3);
                ctx.send_self(d, next)
            }
            1 => ctx.send_with_priority(ctx.me(), 0, 1, next),
            // cross-LP at exactly the lookahead: several LPs hit the same receive time
            _ => {
                let dst = LpId((ctx.me().0 + 1 + r as u32) % self.nlp);
                ctx.send(dst, LA, next);
            }
        }
    }
}

fn chatter_sim(nlp: u32, partition: PartitionSpec) -> Simulation<Chatter> {
    let lps = (0..nlp)
        .map(|_| Chatter {
            nlp,
            ..Default::default()
        })
        .collect();
    Simulation::new(
        lps,
        LookaheadTable::uniform(LA),
        SimConfig {
            seed: 9,
            end_time: Time::MAX,
            partition,
        },
    )
}

#[test]
fn intra_window_self_events_are_identical_everywhere() {
    let mut reference = None;
    for partition in partitionings() {
        for (name, make) in executors() {
            let mut sim = chatter_sim(12, partition.clone());
            let stats = sim.run(&make()).expect("runs");
            assert_eq!(stats.stop, StopReason::Drained);
            let mut d = Digest::new();
            for lp in sim.lps() {
                d.word(lp.fold).word(lp.log.len() as u64);
            }
            let got = (stats.events, d.finish());
            match reference {
                None => reference = Some(got),
                Some(r) => assert_eq!(r, got, "{name} with {partition:?} differs"),
            }
        }
    }
}

#[test]
fn each_lp_sees_its_events_in_nondecreasing_time() {
    let mut sim = chatter_sim(5, PartitionSpec::RoundRobin { clusters: 5 });
    sim.run(&Parallel::new(3)).expect("runs");
    for lp in sim.lps() {
        for w in lp.log.windows(2) {
            assert!(
                w[0].0 <= w[1].0,
                "time went backwards: {:?} then {:?}",
                w[0],
                w[1]
            );
        }
        // The two init events at time 0: priority 0 before priority 3.
        assert_eq!((lp.log[0].0, lp.log[0].1), (0, 0));
    }
}

/// Every LP sends several events to LP 0 for the same receive time, with mixed priorities.
#[derive(Clone, Debug, Default)]
struct Converge {
    seen: Vec<(u8, u32, u64)>,
}
impl LogicalProcess for Converge {
    type Event = ();
    fn init(&mut self, ctx: &mut Ctx<'_, ()>) {
        for i in 0..3u8 {
            let prio = (ctx.me().0 as u8 + i) % 3;
            ctx.send_with_priority(LpId(0), 10 * LA, prio, ());
        }
    }
    fn handle(&mut self, _: (), ctx: &mut Ctx<'_, ()>) {
        let k = ctx.current_key();
        assert_eq!(k.time, 10 * LA);
        self.seen.push((k.priority(), k.source().0, k.seq));
    }
}

#[test]
fn events_at_equal_times_follow_priority_source_sequence() {
    let mut reference = None;
    for partition in partitionings() {
        for (name, make) in executors() {
            let mut sim = Simulation::new(
                vec![Converge::default(); 9],
                LookaheadTable::uniform(LA),
                SimConfig {
                    partition: partition.clone(),
                    ..SimConfig::default()
                },
            );
            sim.run(&make()).expect("runs");
            let seen = sim.lp(LpId(0)).expect("lp 0").seen.clone();
            assert_eq!(seen.len(), 27, "{name}");
            let mut sorted = seen.clone();
            sorted.sort();
            assert_eq!(seen, sorted, "{name}");
            assert_eq!(seen[0], (0, 0, 0));
            match &reference {
                None => reference = Some(seen),
                Some(r) => assert_eq!(r, &seen, "{name}"),
            }
        }
    }
}

/// Sends to a neighbour with too little delay.
#[derive(Clone, Debug)]
struct Hasty {
    delay: Time,
}

impl LogicalProcess for Hasty {
    type Event = ();
    fn init(&mut self, ctx: &mut Ctx<'_, ()>) {
        if ctx.me() == LpId(0) {
            ctx.send_self(5_000, ());
        }
    }
    fn handle(&mut self, _ev: (), ctx: &mut Ctx<'_, ()>) {
        if ctx.me() == LpId(0) {
            ctx.send(LpId(1), self.delay, ());
        }
    }
    fn label(&self) -> String {
        "hasty".into()
    }
}

fn hasty(delay: Time, partition: PartitionSpec) -> Simulation<Hasty> {
    Simulation::new(
        vec![Hasty { delay }, Hasty { delay }],
        LookaheadTable::uniform(LA),
        SimConfig {
            partition,
            ..SimConfig::default()
        },
    )
}

#[test]
fn lookahead_violation_names_both_lps_and_times() {
    for (name, make) in executors() {
        let mut sim = hasty(10, PartitionSpec::Contiguous { clusters: 2 });
        let err = sim.run(&make()).expect_err("must fail");
        let msg = err.to_string();
        assert!(
            matches!(err, EngineError::LookaheadViolation { .. }),
            "{name}: {msg}"
        );
        assert!(msg.contains("LP 0 (hasty)"), "{name}: {msg}");
        assert!(msg.contains("LP 1 (hasty)"), "{name}: {msg}");
        assert!(msg.contains("at 5 ns for 5.010000 ns"), "{name}: {msg}");
        assert!(msg.contains("lookahead of 1 ns"), "{name}: {msg}");
    }
    // The same short delay inside one cluster is legal.
    let mut same = hasty(10, PartitionSpec::Contiguous { clusters: 1 });
    assert_eq!(same.run(&Parallel::new(2)).expect("legal").events, 2);
    // And enough delay across clusters is legal.
    let mut ok = hasty(LA, PartitionSpec::Contiguous { clusters: 2 });
    assert_eq!(ok.run(&Parallel::new(2)).expect("legal").events, 2);
}

#[test]
fn undeclared_channel_and_missing_lp_are_errors() {
    let mut t = LookaheadTable::with_classes(["only"]);
    t.declare(0, 0, 0);
    let mut sim = Simulation::new(
        vec![Hasty { delay: LA }, Hasty { delay: LA }],
        t,
        SimConfig {
            partition: PartitionSpec::Contiguous { clusters: 2 },
            ..SimConfig::default()
        },
    );
    assert_eq!(
        sim.run(&Parallel::new(2)).expect_err("zero lookahead"),
        EngineError::ZeroLookahead
    );
    let mut sim = Simulation::new(
        vec![Idle],
        LookaheadTable::uniform(LA),
        SimConfig::default(),
    );
    let err = sim.schedule(LpId(3), 0, ()).expect_err("no LP 3");
    assert!(err.to_string().contains("only 1 LPs"), "{err}");
    assert!(sim.run(&Sequential::default()).is_ok());
    assert_eq!(
        sim.run(&Sequential::default()).expect_err("twice"),
        EngineError::AlreadyRun
    );
}

#[derive(Clone, Debug)]
struct Idle;
impl LogicalProcess for Idle {
    type Event = ();
    fn handle(&mut self, _: (), _: &mut Ctx<'_, ()>) {}
}

#[test]
fn zero_events_and_zero_lps() {
    for (name, make) in executors() {
        let mut sim = Simulation::new(
            vec![Idle; 10],
            LookaheadTable::uniform(5),
            SimConfig::default(),
        );
        let stats = sim.run(&make()).expect("runs");
        assert_eq!(stats.events, 0, "{name}");
        assert_eq!(stats.stop, StopReason::Drained, "{name}");
        let mut empty: Simulation<Idle> =
            Simulation::new(vec![], LookaheadTable::uniform(5), SimConfig::default());
        assert_eq!(empty.run(&make()).expect("runs").events, 0, "{name}");
    }
}

#[test]
fn one_lp_runs_on_every_executor() {
    let params = PholdParams {
        nlp: 1,
        start_events: 8,
        lookahead: 0.25,
        end: 100.0,
        ..PholdParams::default()
    };
    let mut reference = None;
    for (name, make) in executors() {
        let mut sim = params.build(PartitionSpec::Auto);
        let stats = sim.run(&make()).expect("runs");
        let got = (stats.events, state_digest(&sim));
        match reference {
            None => reference = Some(got),
            Some(r) => assert_eq!(r, got, "{name}"),
        }
    }
}

/// Counts events and asks to stop at a fixed event count.
#[derive(Clone, Debug, Default)]
struct Stopper {
    n: u32,
    seen: u64,
    last: Time,
    asked_at: Option<Time>,
}
impl LogicalProcess for Stopper {
    type Event = ();
    fn init(&mut self, ctx: &mut Ctx<'_, ()>) {
        ctx.send_self(ctx.me().0 as Time * 7, ());
    }
    fn handle(&mut self, _: (), ctx: &mut Ctx<'_, ()>) {
        self.seen += 1;
        self.last = ctx.now();
        if ctx.me() == LpId(3) && self.seen == 50 {
            self.asked_at = Some(ctx.now());
            ctx.request_stop();
        }
        let dst = LpId((ctx.me().0 + 1) % self.n);
        let d = 100 + ctx.rng().below(300);
        ctx.send(dst, d, ());
    }
}

/// `n` Stopper LPs, each sending to the next of the `n` in a ring, with 100 ps of lookahead
/// everywhere, run with `config`.
fn stoppers(n: u32, config: SimConfig) -> Simulation<Stopper> {
    Simulation::new(
        vec![
            Stopper {
                n,
                ..Stopper::default()
            };
            n as usize
        ],
        LookaheadTable::uniform(100),
        config,
    )
}

/// Two LPs passing an event back and forth (100-399 ps apart) until an end time of 1,000 ps:
/// nine events, most of the run an idle stretch.
fn two_stoppers_until_1000() -> Simulation<Stopper> {
    stoppers(
        2,
        SimConfig {
            end_time: 1_000,
            ..SimConfig::default()
        },
    )
}

#[test]
fn stop_request_and_end_time_are_deterministic() {
    let mut reference = None;
    for (name, make) in executors() {
        let mut sim = stoppers(
            8,
            SimConfig {
                partition: PartitionSpec::RoundRobin { clusters: 4 },
                ..SimConfig::default()
            },
        );
        let stats = sim.run(&make()).expect("runs");
        assert_eq!(stats.stop, StopReason::Requested, "{name}");
        // A request at `s` ends the run after every event before `s` + the window (100).
        let asked = sim.lps().find_map(|l| l.asked_at).expect("LP 3 asked");
        assert!(sim.lps().all(|l| l.last < asked + 100), "{name}");
        assert!(
            sim.lps().any(|l| l.last > asked),
            "{name}: events after the request run"
        );
        let got: Vec<(u64, Time)> = sim.lps().map(|l| (l.seen, l.last)).collect();
        match &reference {
            None => reference = Some(got),
            Some(r) => assert_eq!(r, &got, "{name}"),
        }
    }
    for (name, make) in executors() {
        let mut sim = two_stoppers_until_1000();
        let stats = sim.run(&make()).expect("runs");
        assert_eq!(stats.stop, StopReason::EndTime, "{name}");
        assert!(sim.lps().all(|l| l.last < 1_000), "{name}");
        assert!(stats.last_event_time < 1_000);
    }
}

#[test]
fn scheduled_environment_events_are_ordered_by_schedule_sequence() {
    #[derive(Clone, Debug, Default)]
    struct Rec(Vec<u32>);
    impl LogicalProcess for Rec {
        type Event = u32;
        fn handle(&mut self, ev: u32, _: &mut Ctx<'_, u32>) {
            self.0.push(ev);
        }
    }
    let mut sim = Simulation::new(
        vec![Rec::default()],
        LookaheadTable::uniform(1),
        SimConfig::default(),
    );
    for v in [5, 3, 9] {
        sim.schedule(LpId(0), 10, v).expect("ok");
    }
    sim.schedule(LpId(0), 1, 1).expect("ok");
    sim.run(&Parallel::new(2)).expect("runs");
    assert_eq!(sim.lp(LpId(0)).expect("lp").0, vec![1, 5, 3, 9]);
}

#[test]
fn cancellation_stops_every_executor_and_progress_is_reported() {
    for (name, make) in executors() {
        let params = PholdParams {
            nlp: 32,
            start_events: 2,
            lookahead: 0.5,
            end: 1e9,
            ..PholdParams::default()
        };
        let mut sim = params.build(PartitionSpec::Auto);
        let progress = sim.progress();
        progress.cancel();
        let stats = sim.run(&make()).expect("runs");
        assert_eq!(stats.stop, StopReason::Cancelled, "{name}");
        assert!(stats.windows <= 1, "{name}: {} windows", stats.windows);

        let mut short = PholdParams {
            end: 20.0,
            ..params.clone()
        }
        .build(PartitionSpec::Auto);
        let live = short.progress();
        let s = short.run(&make()).expect("runs");
        assert_eq!(live.events(), s.events, "{name}");
        assert!(
            live.now() > 0 && live.now() <= 20 * bbsim_engine::time::US,
            "{name}"
        );
    }
}

/// After a sync every thread's head is the one it has after taking its mail, so no thread
/// judges the run idle by a head from before the sync and asks for the next one before the
/// thread holding the earliest event has handled it. Such stale looks once cost a thousand
/// syncs in about one run in a hundred of this nine-event model on a quiet machine, and tens of
/// thousands in most runs with one core taken; a sync costs every thread a trip through the
/// barrier. Here each run may sync a few times per event (to end, at the housekeeping look of
/// a slow run, and where an idle stretch outlasts a nap with no consistent look), never
/// hundreds of times.
#[test]
fn idle_stretches_cost_a_few_syncs_not_one_per_stale_look() {
    for run in 0..200 {
        let mut sim = two_stoppers_until_1000();
        let stats = sim
            .run(&Asynchronous {
                threads: 2,
                pending: PendingKind::Ring,
            })
            .expect("runs");
        assert_eq!(stats.threads, 2);
        let syncs = stats.syncs();
        assert!(
            syncs <= 4 * stats.events + 8,
            "run {run}: {syncs} syncs for {} events",
            stats.events
        );
    }
}

/// Relays tokens round a ring of LPs with delays of 10-50 lookaheads: with three tokens among
/// eight LPs most of simulated time is an idle stretch, in which no thread may handle its next
/// event by the clocks alone.
#[derive(Clone, Debug, Default)]
struct Relay {
    n: u32,
    seen: u64,
    /// A running digest of the times this LP handled events at.
    trace: u64,
}
impl LogicalProcess for Relay {
    type Event = u32;
    fn init(&mut self, ctx: &mut Ctx<'_, u32>) {
        if ctx.me().0 % 3 == 0 {
            ctx.send_self(ctx.me().0 as Time * 11, ctx.me().0);
        }
    }
    fn handle(&mut self, token: u32, ctx: &mut Ctx<'_, u32>) {
        self.seen += 1;
        self.trace = (self.trace ^ ctx.now() ^ u64::from(token)).wrapping_mul(0x100_0000_01b3);
        let dst = LpId((ctx.me().0 + 1 + ctx.rng().below(2) as u32) % self.n);
        let delay = 1_000 + ctx.rng().below(4_000);
        ctx.send(dst, delay, token);
    }
}

fn relay_digest(sim: &Simulation<Relay>) -> (u64, u64) {
    sim.lps().fold((0, 0), |(n, d), lp| {
        (n + lp.seen, d.rotate_left(7) ^ lp.trace)
    })
}

/// In an idle stretch the last thread to find nothing to do moves every thread's clock past
/// it from a consistent look at the others' heads and mail (a jump), instead of meeting them
/// at a sync: about 10,000 idle stretches here cost a few syncs (to end, and the housekeeping
/// look every 20 ms of wall time), where they cost one sync each before. The results are the
/// sequential executor's on every thread count and pending-event structure.
#[test]
fn idle_stretches_are_crossed_by_jumps_not_syncs() {
    let build = || {
        Simulation::new(
            vec![
                Relay {
                    n: 8,
                    ..Relay::default()
                };
                8
            ],
            LookaheadTable::uniform(100),
            SimConfig {
                end_time: 10_000_000,
                partition: PartitionSpec::RoundRobin { clusters: 8 },
                ..SimConfig::default()
            },
        )
    };
    let mut reference = build();
    let stats = reference.run(&Sequential::default()).expect("runs");
    assert!(stats.events > 5_000, "{} events", stats.events);
    let want = relay_digest(&reference);
    for threads in 2..=4 {
        for pending in [PendingKind::Heap, PendingKind::Ring] {
            let mut sim = build();
            let stats = sim.run(&Asynchronous { threads, pending }).expect("runs");
            assert_eq!(relay_digest(&sim), want, "{threads} threads, {pending:?}");
            assert_eq!(stats.threads, threads);
            let (syncs, jumps) = (stats.syncs(), stats.jumps());
            assert!(
                syncs * 50 < stats.events,
                "{threads} threads, {pending:?}: {syncs} syncs for {} events",
                stats.events
            );
            assert!(
                jumps * 4 > stats.events,
                "{threads} threads, {pending:?}: {jumps} jumps for {} events",
                stats.events
            );
        }
    }
}
