//! `bbsim phold`: the standard PDES benchmark, comparable with ROSS's `phold`.

use bbsim_engine::phold::{state_digest, PholdParams};
use bbsim_engine::{
    Asynchronous, Executor, Parallel, PartitionSpec, PendingKind, Sequential, SequentialOrder,
};

/// Arguments of `bbsim phold` (times in PHOLD units; 1 unit = 1 us of simulated time).
#[derive(clap::Args, Debug)]
pub struct PholdArgs {
    /// Number of logical processes.
    #[arg(long, default_value_t = 2048)]
    nlp: u32,
    /// Initial events per LP.
    #[arg(long, default_value_t = 1)]
    start_events: u32,
    /// Probability that an event is sent to a uniformly random LP instead of itself (0 to 1).
    #[arg(long, default_value_t = 0.25)]
    remote: f64,
    /// Mean delay between an event and the one it schedules (units; at least --lookahead).
    #[arg(long, default_value_t = 1.0)]
    mean: f64,
    /// Minimum delay, declared to the engine as the lookahead (units; > 0: at least 1e-6, one
    /// picosecond).
    #[arg(long, default_value_t = 1.0)]
    lookahead: f64,
    /// Simulated end time (units; 0 to about 1.8e13, the 64-bit picosecond clock).
    #[arg(long, default_value_t = 5000.0)]
    end: f64,
    /// Worker threads: 1 runs the sequential executor, more the parallel executor (or the
    /// asynchronous one with --asynchronous).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Use the parallel executor even with one thread (to measure its own scaling).
    #[arg(long)]
    parallel: bool,
    /// Use the asynchronous executor (threads wait on each other's clocks, no barrier per
    /// window; what `bbsim run` uses for more than one thread), on any thread count. Give it
    /// `--pending ring`: the window set sorts by lookahead windows, which it does not keep.
    #[arg(long, conflicts_with = "parallel")]
    asynchronous: bool,
    /// Pending-event structure (the window-specialised set is the fastest on PHOLD).
    #[arg(long, value_enum, default_value_t = Pending::Window)]
    pending: Pending,
    /// Event order of the one-thread sequential executor: `windowed` (fast, cluster by cluster
    /// in lookahead windows) or `global` (the reference: one global key-ordered set).
    #[arg(long, value_enum, default_value_t = Order::Windowed)]
    order: Order,
    /// Number of contiguous LP clusters (the unit of parallel work: each thread takes the
    /// clusters of its own contiguous range first, then helps the others).
    #[arg(long, default_value_t = 64)]
    clusters: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Pending-event structure choices.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Pending {
    /// Binary heap.
    Heap,
    /// Lazily sorted bucket ring.
    Ring,
    /// Window-specialised set (sorted once per lookahead window).
    Window,
}

/// Sequential event orders.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Order {
    /// Lookahead windows, one cluster at a time.
    Windowed,
    /// Global key order (reference executor).
    Global,
}

/// Runs PHOLD and prints committed events, wall time and events per second.
pub fn run(a: &PholdArgs) -> Result<(), String> {
    let params = PholdParams {
        nlp: a.nlp,
        start_events: a.start_events,
        remote: a.remote,
        mean: a.mean,
        lookahead: a.lookahead,
        end: a.end,
        seed: a.seed,
    };
    params.validate()?;
    bbsim_engine::check_threads(a.threads).map_err(|why| format!("--threads {why}"))?;
    if a.clusters == 0 {
        return Err("--clusters must be at least 1".into());
    }
    let pending = match a.pending {
        Pending::Heap => PendingKind::Heap,
        Pending::Ring => PendingKind::Ring,
        Pending::Window => PendingKind::Window,
    };
    let mut sim = params.build(PartitionSpec::Contiguous {
        clusters: a.clusters,
    });
    let (stats, executor) = if a.asynchronous {
        let x = Asynchronous {
            threads: a.threads,
            pending,
        };
        (run_on(&mut sim, &x)?, "asynchronous")
    } else if a.threads == 1 && !a.parallel {
        let (order, name) = match a.order {
            Order::Windowed => (SequentialOrder::Windowed, "sequential (windowed)"),
            Order::Global => (SequentialOrder::Global, "sequential (global order)"),
        };
        (run_on(&mut sim, &Sequential { pending, order })?, name)
    } else {
        let x = Parallel {
            threads: a.threads,
            pending,
        };
        (run_on(&mut sim, &x)?, "parallel")
    };
    println!(
        "executor            {executor} ({} thread(s), {} clusters)",
        stats.threads, stats.clusters
    );
    println!("committed events    {}", stats.events);
    println!("wall time           {:.3} s", stats.wall.as_secs_f64());
    println!("events per second   {:.0}", stats.events_per_second());
    println!(
        "windows             {} ({:.1} events/window)",
        stats.windows,
        stats.events_per_window()
    );
    println!(
        "barrier wait        {:.3} s (all threads)",
        stats.barrier_wait().as_secs_f64()
    );
    for (i, t) in stats.per_thread.iter().enumerate() {
        println!(
            "thread {i:<2}           {} events, {} cluster-windows",
            t.events, t.cluster_windows
        );
    }
    println!("state digest        {:016x}", state_digest(&sim));
    Ok(())
}

fn run_on<X: Executor>(
    sim: &mut bbsim_engine::Simulation<bbsim_engine::phold::PholdLp>,
    x: &X,
) -> Result<bbsim_engine::RunStats, String> {
    sim.run(x).map_err(|e| e.to_string())
}
