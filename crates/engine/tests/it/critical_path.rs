//! The critical-path executor against closed forms: chains of events on independent LPs, a
//! fan-out, and one LP's events in order; and its bounds on the speed-up of any executor.

use bbsim_engine::phold::{state_digest, PholdParams};
use bbsim_engine::{
    CriticalPath, Ctx, Dependencies, LogicalProcess, LookaheadTable, LpId, PartitionSpec,
    PendingKind, Sequential, SimConfig, Simulation,
};

/// `Hop(n)` sends itself `Hop(n - 1)` 10 ps later while `n > 0`; `Fan` sends `Hop(0)` to every
/// LP but itself, 100 ps later.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Hop(u32),
    Fan,
}

#[derive(Clone, Debug)]
struct Node {
    lps: u32,
}

impl LogicalProcess for Node {
    type Event = Ev;
    fn handle(&mut self, ev: Ev, ctx: &mut Ctx<'_, Ev>) {
        match ev {
            Ev::Hop(0) => {}
            Ev::Hop(n) => ctx.send_self(10, Ev::Hop(n - 1)),
            Ev::Fan => {
                let me = ctx.me();
                for lp in (0..self.lps).filter(|&l| LpId(l) != me) {
                    ctx.send(LpId(lp), 100, Ev::Hop(0));
                }
            }
        }
    }
}

/// Runs `lps` LPs in `clusters` contiguous clusters with the given initial events
/// (LP, time, event) and returns what the run measured.
fn measure(lps: u32, clusters: usize, initial: &[(u32, u64, Ev)]) -> Dependencies {
    let mut sim = Simulation::new(
        vec![Node { lps }; lps as usize],
        LookaheadTable::uniform(10),
        SimConfig {
            partition: PartitionSpec::Contiguous { clusters },
            ..SimConfig::default()
        },
    );
    for &(lp, t, ev) in initial {
        sim.schedule(LpId(lp), t, ev).expect("schedules");
    }
    let cp = CriticalPath::new(PendingKind::Ring);
    assert_eq!(cp.measured(), None);
    let stats = sim.run(&cp).expect("runs");
    let d = cp.measured().expect("measured");
    assert_eq!(d.events, stats.events);
    assert_eq!(d.cluster_events.iter().sum::<u64>(), stats.events);
    d
}

#[test]
fn independent_chains_give_one_step_per_event_of_a_chain() {
    // Four LPs, each a chain of 50 events: 200 events, 50 steps, parallelism 4.
    let d = measure(4, 2, &[0, 1, 2, 3].map(|lp| (lp, 0, Ev::Hop(49))));
    assert_eq!(d.events, 200);
    assert_eq!(d.critical_path, 50);
    assert_eq!(d.busiest_lp_events, 50);
    assert_eq!(d.cluster_events, vec![100, 100]);
    assert_eq!(d.parallelism(), 4.0);
    // Two clusters of two chains: 2 threads reach 2, more threads no more than 2.
    assert_eq!(d.bound(2), 2.0);
    assert_eq!(d.bound(4), 2.0);
    // One LP per cluster: 4 threads reach the parallelism, 3 an even share.
    assert_eq!(d.bound_per_lp(4), 4.0);
    assert_eq!(d.bound_per_lp(3), 200.0 / 67.0);
    // Chains of different lengths: the longest is the critical path.
    let d = measure(
        3,
        3,
        &[(0, 0, Ev::Hop(9)), (1, 0, Ev::Hop(29)), (2, 5, Ev::Hop(0))],
    );
    assert_eq!((d.events, d.critical_path), (41, 30));
    assert_eq!(d.cluster_events, vec![10, 30, 1]);
    assert_eq!(d.bound(2), 41.0 / 30.0);
}

#[test]
fn the_bound_follows_how_the_executor_deals_regions_out() {
    // Two regions of two clusters: kept whole they load 2 threads 60 / 40; split, 50 / 50.
    let d = Dependencies {
        events: 100,
        critical_path: 10,
        cluster_events: vec![30, 30, 20, 20],
        cluster_regions: vec![0, 0, 1, 1],
        busiest_lp_events: 30,
    };
    assert_eq!(d.regions(), 2);
    assert_eq!(d.bound(2), 2.0);
    // On 4 threads the busiest cluster, 30 events, sets the bound.
    assert_eq!(d.bound(4), 100.0 / 30.0);
    // One region of one cluster: one thread at a time whatever the count.
    let one = Dependencies {
        cluster_events: vec![100],
        cluster_regions: vec![0],
        ..d.clone()
    };
    assert_eq!(one.bound(8), 1.0);
    assert_eq!(one.regions(), 1);
    assert_eq!(Dependencies::default().regions(), 0);
    // The critical path caps it all.
    let chain = Dependencies {
        critical_path: 80,
        ..d
    };
    assert_eq!(chain.bound(2), 100.0 / 80.0);
}

#[test]
fn a_fan_out_is_two_steps_and_one_lps_events_are_a_chain() {
    // One event sends to 7 LPs: 8 events in 2 steps.
    let d = measure(8, 1, &[(0, 0, Ev::Fan)]);
    assert_eq!((d.events, d.critical_path), (8, 2));
    assert_eq!(d.parallelism(), 4.0);
    assert_eq!(d.bound(2), 1.0, "one cluster: one thread at a time");
    assert_eq!(d.bound_per_lp(2), 2.0);
    // Events on one LP depend on each other although neither sent the other: three
    // initial events on LP 5 and the fan's event there make a chain of 4 (the fan's at 100 ps
    // comes after those at 0 and 50 ps and before the one at 200 ps).
    let d = measure(
        8,
        1,
        &[
            (0, 0, Ev::Fan),
            (5, 0, Ev::Hop(0)),
            (5, 50, Ev::Hop(0)),
            (5, 200, Ev::Hop(0)),
        ],
    );
    assert_eq!((d.events, d.critical_path), (11, 4));
}

#[test]
fn phold_measures_without_changing_the_results() {
    let params = PholdParams {
        nlp: 64,
        start_events: 4,
        remote: 0.5,
        mean: 1.0,
        lookahead: 0.5,
        end: 50.0,
        seed: 3,
    };
    let mut reference = params.build(PartitionSpec::Contiguous { clusters: 4 });
    let r = reference
        .run(&Sequential::reference(PendingKind::Heap))
        .expect("runs");
    let mut sim = params.build(PartitionSpec::Contiguous { clusters: 4 });
    let cp = CriticalPath::new(PendingKind::Heap);
    let s = sim.run(&cp).expect("runs");
    assert_eq!(
        (s.events, state_digest(&sim)),
        (r.events, state_digest(&reference))
    );
    let d = cp.measured().expect("measured");
    // 256 independent starting events over 64 LPs: the chains cross but their events are
    // spread, so the run offers far more than 4 threads' worth of parallelism, and its 4
    // clusters of 16 LPs hold near even shares.
    assert!(d.critical_path < d.events / 8, "{d:?}");
    assert!(d.bound(4) > 3.0 && d.bound(4) <= 4.0, "{d:?}");
    assert!(d.bound_per_lp(64) > d.bound(64), "{d:?}");
}
