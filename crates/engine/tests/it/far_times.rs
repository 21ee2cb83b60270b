//! Events at the far end of the time range (at or near `Time::MAX`, about 1.8e7 s) must be
//! handled or reported, never loop: every executor and pending-set kind terminates.

use bbsim_engine::{
    Ctx, LogicalProcess, LookaheadTable, LpId, Parallel, PendingKind, Sequential, SequentialOrder,
    SimConfig, Simulation, Time,
};
use std::time::{Duration, Instant};

/// Records the times of the events it handles and sends itself one more event.
#[derive(Clone, Debug, Default)]
struct Far(Vec<Time>);

impl LogicalProcess for Far {
    type Event = u8;
    fn handle(&mut self, hops: u8, ctx: &mut Ctx<'_, u8>) {
        self.0.push(ctx.now());
        if hops > 0 {
            ctx.send_self(1, hops - 1);
        }
    }
}

fn run_with(
    times: &[Time],
    lookahead: Time,
    seq: Option<Sequential>,
    threads: usize,
    pending: PendingKind,
) -> Vec<Time> {
    let mut sim = Simulation::new(
        vec![Far::default(), Far::default()],
        LookaheadTable::uniform(lookahead),
        SimConfig::default(),
    );
    for (i, &t) in times.iter().enumerate() {
        sim.schedule(LpId((i % 2) as u32), t, 2).expect("schedules");
    }
    let start = Instant::now();
    let _ = match seq {
        Some(s) => sim.run(&s),
        None => sim.run(&Parallel { threads, pending }),
    };
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    let mut all: Vec<Time> = sim.lps().flat_map(|l| l.0.iter().copied()).collect();
    all.sort_unstable();
    all
}

#[test]
fn events_near_the_end_of_time_terminate_on_every_executor() {
    let near = [
        Time::MAX,
        Time::MAX - 5,
        Time::MAX - 1_000,
        Time::MAX - (1 << 40),
        1 << 63,
        (1 << 63) + 12_345,
    ];
    for lookahead in [1, 1_000, 1 << 20, 1 << 62] {
        for pending in [PendingKind::Heap, PendingKind::Ring, PendingKind::Window] {
            for order in [SequentialOrder::Global, SequentialOrder::Windowed] {
                let got = run_with(
                    &[0, near[0], near[1], near[2], near[3], near[4], near[5]],
                    lookahead,
                    Some(Sequential { pending, order }),
                    1,
                    pending,
                );
                assert!(
                    got.contains(&0),
                    "{pending:?}/{order:?}/{lookahead}: {got:?}"
                );
            }
            for threads in [1, 2] {
                let got = run_with(&near, lookahead, None, threads, pending);
                assert!(
                    got.contains(&(1 << 63)),
                    "{pending:?}/{threads}/{lookahead}: {got:?}"
                );
            }
        }
    }
}
