#![allow(missing_docs)] // criterion_group!/criterion_main! generate undocumented items
//! Memory of long PHOLD runs: the configuration (2,048 LPs, 16 start events per LP,
//! remote 0.1, mean 1.0, lookahead 0.5) run to 600 units (19.6 M events) and to 3,050 units
//! (99.9 M events) on the sequential executor and the parallel one with 1 and 2 threads.
//!
//! A counting global allocator records the peak of live heap bytes during each run (above what
//! was live before it, so the LPs built before the run count too). Flat memory means the
//! 100-million-event run peaks no higher than the 20-million-event one: the pending sets,
//! mailboxes and outboxes are recycled, nothing grows with the events processed. After the
//! criterion group the peaks are printed for every executor and run length. Criterion times
//! the 100-million-event run.
//!
//! Run with `cargo bench -p bbsim-benches --bench phold_memory`.

use bbsim_engine::phold::PholdParams;
use bbsim_engine::{Executor, Parallel, PartitionSpec, PendingKind, Sequential, SequentialOrder};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call forwards to the system allocator with the caller's layout; the counters
// only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is forwarded unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (through `alloc`/`realloc`).
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc` is forwarded unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn params(end: f64) -> PholdParams {
    bbsim_benches::reference_phold(end)
}

/// Builds and runs PHOLD to `end`: (events, peak live heap bytes above the start, run time).
fn measured<X: Executor>(x: &X, end: f64) -> (u64, usize, Duration) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let mut sim = params(end).build(PartitionSpec::Auto);
    let started = Instant::now();
    let events = sim.run(x).expect("phold runs").events;
    let wall = started.elapsed();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    drop(sim);
    (events, peak, wall)
}

fn memory(c: &mut Criterion) {
    let sequential = Sequential {
        pending: PendingKind::Window,
        order: SequentialOrder::Windowed,
    };
    let par = |threads| Parallel {
        threads,
        pending: PendingKind::Window,
    };
    let mut report = Vec::new();
    let mut g = c.benchmark_group("phold_memory_100M_events");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(30));
    let mut bench = |name: &str, x: &dyn Fn(f64) -> (u64, usize, Duration)| {
        let short = x(600.0);
        let long = x(3050.0);
        report.push((name.to_string(), short, long));
        g.throughput(Throughput::Elements(long.0));
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| (0..iters).map(|_| x(3050.0).2).sum())
        });
    };
    bench("sequential", &|end| measured(&sequential, end));
    bench("parallel-1thr", &|end| measured(&par(1), end));
    bench("parallel-2thr", &|end| measured(&par(2), end));
    g.finish();
    for (name, short, long) in report {
        println!(
            "phold_memory {name}: peak heap {:.2} MB over {:.1} M events, {:.2} MB over {:.1} M \
             events ({:+.1} %)",
            short.1 as f64 / 1e6,
            short.0 as f64 / 1e6,
            long.1 as f64 / 1e6,
            long.0 as f64 / 1e6,
            (long.1 as f64 / short.1 as f64 - 1.0) * 100.0
        );
    }
}

criterion_group!(benches, memory);
criterion_main!(benches);
