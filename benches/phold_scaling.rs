#![allow(missing_docs)] // criterion_group!/criterion_main! generate undocumented items
//! Parallel speed-up on PHOLD, measured in interleaved pairs.
//!
//! The configuration (2,048 LPs, 16 start events per LP, remote 0.1, mean 1.0,
//! lookahead 0.5, end 600: 19.7 M events) runs on the parallel executor with 1 and with 2
//! threads, alternately, in every criterion iteration: the `1thr` benchmark times the 1-thread
//! run of each pair, `2thr` the 2-thread run. Running both sides back to back cancels the slow
//! drift of a shared virtual machine that separate criterion groups (minutes apart) pick up.
//! After the group the 2-thread / 1-thread speed-up of every pair is printed (median, min, max).
//!
//! Run with `cargo bench -p bbsim-benches --bench phold_scaling`.

use bbsim_engine::{Parallel, PartitionSpec, PendingKind};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::cell::RefCell;
use std::time::Duration;

thread_local! {
    /// (1-thread wall, 2-thread wall) of every pair run so far.
    static PAIRS: RefCell<Vec<(Duration, Duration)>> = const { RefCell::new(Vec::new()) };
}

/// One run on `threads` workers; only the executor's run is timed (as `bbsim phold` reports it).
fn one_run(threads: usize, pending: PendingKind) -> (u64, Duration) {
    let mut sim = bbsim_benches::reference_phold(600.0).build(PartitionSpec::Auto);
    let stats = sim.run(&Parallel { threads, pending }).expect("phold runs");
    (stats.events, stats.wall)
}

/// A 1-thread and a 2-thread run, in alternating order so neither always goes first.
fn pair(flip: bool, pending: PendingKind) -> (Duration, Duration) {
    let (one, two) = if flip {
        let two = one_run(2, pending).1;
        (one_run(1, pending).1, two)
    } else {
        let one = one_run(1, pending).1;
        (one, one_run(2, pending).1)
    };
    PAIRS.with(|p| p.borrow_mut().push((one, two)));
    (one, two)
}

fn scaling(c: &mut Criterion) {
    let events = one_run(1, PendingKind::Window).0;
    for pending in [PendingKind::Window, PendingKind::Heap] {
        PAIRS.with(|p| p.borrow_mut().clear());
        let mut g = c.benchmark_group(format!("phold_scaling_{pending:?}"));
        g.throughput(Throughput::Elements(events));
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(20));
        for (name, take_two) in [("1thr", false), ("2thr", true)] {
            g.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|i| {
                            let (one, two) = pair(i % 2 == 1, pending);
                            if take_two {
                                two
                            } else {
                                one
                            }
                        })
                        .sum()
                })
            });
        }
        g.finish();
        let mut ratios: Vec<f64> = PAIRS.with(|p| {
            p.borrow()
                .iter()
                .map(|(one, two)| one.as_secs_f64() / two.as_secs_f64())
                .collect()
        });
        ratios.sort_by(f64::total_cmp);
        if let (Some(lo), Some(hi)) = (ratios.first(), ratios.last()) {
            println!(
                "phold_scaling_{pending:?}: 2-thread / 1-thread speed-up over {} interleaved pairs: \
                 median {:.2}x, min {lo:.2}x, max {hi:.2}x",
                ratios.len(),
                ratios[ratios.len() / 2],
            );
        }
    }
}

criterion_group!(benches, scaling);
criterion_main!(benches);
