//! Output files and the terminal table.
//!
//! `timeline.csv`, `ranks.csv`, the SVG plots and `summary.json` (except its `run` block,
//! which holds wall time and thread counts) are byte-identical for any thread count;
//! `summary.json`'s `results_digest` is a digest of all of that deterministic content, with
//! the scenario's executor settings (`simulation.threads`, `simulation.partition`) read at
//! their defaults, so that it is the same for any thread count or partition.

use super::capacity::{occupancy_csv, CapacityRow, JobSizing};
use super::collect::{
    secs, secs_f, Conservation, DeviceRow, JobSummary, LinkRow, ReservationRow, Results, Routes,
    ServerRow,
};
use super::cost::Cost;
pub use super::csv_text::csv_field;
use super::csv_text::CsvText;
use super::figures::figures;
use super::files::OutputSet;
use super::phases::phases_line;
use crate::lower::machine::MachineSummary;
use crate::scenario::{PartitionChoice, Scenario};
use crate::units::{human_bandwidth, human_bytes};
use bbsim_engine::digest::Digest;
use bbsim_engine::{RunStats, Threads};
use bbsim_workload::Workload;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

/// A job's name for the CSV files (`?` for an unknown job).
pub(crate) fn job_field(job_names: &[String], job: u32) -> &str {
    job_names.get(job as usize).map_or("?", String::as_str)
}

/// The text of `ranks.csv`: one row per rank. Times are seconds with picosecond resolution,
/// empty where a rank had no I/O or did not finish.
pub fn ranks_csv(r: &Results, job_names: &[String]) -> String {
    let opt = |t: Option<u64>| t.map(secs).unwrap_or_default();
    let mut t = CsvText::with_capacity(r.ranks.len() * 96 + 128);
    t.row([
        "job",
        "rank",
        "node",
        "bytes_written",
        "bytes_read",
        "io_ops",
        "time_in_io_s",
        "first_io_start_s",
        "last_io_end_s",
        "finished_s",
        "time_stalled_s",
    ]);
    for k in &r.ranks {
        t.field(job_field(job_names, k.job))
            .value(k.rank)
            .value(k.node)
            .value(k.bytes_written)
            .value(k.bytes_read)
            .value(k.io_ops)
            .field(&secs(k.time_in_io))
            .field(&opt(k.first_io_start))
            .field(&opt(k.last_io_end))
            .field(&opt(k.finished))
            .field(&secs(k.time_stalled))
            .end_row();
    }
    t.finish()
}

/// Run statistics (not deterministic: wall time, threads).
#[derive(Serialize)]
struct RunBlock {
    events: u64,
    windows: u64,
    events_per_window: f64,
    wall_s: f64,
    events_per_second: f64,
    /// The most threads used at once.
    threads: usize,
    /// Events handled on several threads (the rest ran on one).
    parallel_events: u64,
    clusters: usize,
    barrier_wait_s: f64,
    /// Wall time the threads of the parallel stretches were ready but waited for a core, in
    /// all (zero where the operating system does not report it).
    core_wait_s: f64,
    /// Times the threads of the parallel stretches met with nothing in flight (the
    /// asynchronous executor's syncs).
    syncs: u64,
    /// Times a thread moved every clock past an idle stretch without a sync (the
    /// asynchronous executor's jumps).
    jumps: u64,
    per_thread_events: Vec<u64>,
    stop: String,
}

#[derive(Clone, Serialize)]
struct Summary<'a> {
    bbsim_version: &'static str,
    name: &'a str,
    seed: u64,
    simulated_time_s: f64,
    makespan_s: Option<f64>,
    last_activity_s: f64,
    machine: &'a MachineSummary,
    jobs: &'a [JobSummary],
    reservations: &'a [ReservationRow],
    servers: &'a [ServerRow],
    devices: &'a [DeviceRow],
    links: &'a [LinkRow],
    routes: &'a Routes,
    conservation: &'a Conservation,
    sizing: Sizing<'a>,
    cost: &'a Cost,
    scenario: &'a Scenario,
}

/// `summary.json` `sizing`: per job and per burst-buffer device, how full, how long writers
/// waited for space, what was spilled and drained.
#[derive(Clone, Serialize)]
struct Sizing<'a> {
    jobs: Vec<NamedSizing<'a>>,
    devices: &'a [CapacityRow],
}

#[derive(Clone, Serialize)]
struct NamedSizing<'a> {
    name: &'a str,
    #[serde(flatten)]
    figures: &'a JobSizing,
}

/// Everything `bbsim run` writes, rendered in memory.
pub struct Rendered {
    /// (file name, contents) in writing order.
    pub files: Vec<(&'static str, Vec<u8>)>,
    /// Digest of the deterministic content.
    pub digest: u64,
}

/// Renders every output file: `timeline.csv` (with `outputs.timeline`), `ranks.csv`, the
/// SVG plots (with `outputs.plots`) and `summary.json`.
pub fn render(
    scenario: &Scenario,
    machine: &MachineSummary,
    cost: &Cost,
    r: &Results,
    stats: &RunStats,
    workload: &Workload,
) -> Rendered {
    // Without `outputs.timeline` there are no records: the digest covers what is written.
    let timeline = if scenario.outputs.timeline {
        r.timeline.csv(workload)
    } else {
        String::new()
    };
    let job_names = workload.job_names();
    let ranks = ranks_csv(r, &job_names);
    let body = Summary {
        bbsim_version: env!("CARGO_PKG_VERSION"),
        name: &scenario.name,
        seed: scenario.simulation.seed,
        simulated_time_s: secs_f(r.sim_end),
        makespan_s: r.makespan.map(secs_f),
        last_activity_s: secs_f(r.last_activity),
        machine,
        jobs: &r.jobs,
        reservations: &r.reservations,
        servers: &r.servers,
        devices: &r.devices,
        links: &r.links,
        routes: &r.routes,
        conservation: &r.conservation,
        sizing: Sizing {
            jobs: r
                .jobs
                .iter()
                .zip(&r.sizing)
                .map(|(j, figures)| NamedSizing {
                    name: &j.name,
                    figures,
                })
                .collect(),
            devices: &r.capacity,
        },
        cost,
        scenario,
    };
    let svgs = if scenario.outputs.plots {
        figures(&scenario.name, r)
    } else {
        Vec::new()
    };
    let occupancy = if r.capacity.is_empty() {
        String::new()
    } else {
        occupancy_csv(&r.capacity, r.last_activity)
    };
    // The digest reads the executor's settings at their defaults: they change how a run is
    // computed, never its results, so runs that differ only there share a digest.
    let neutral = executor_neutral(scenario);
    let digested = neutral.as_ref().map(|scenario| Summary {
        scenario,
        ..body.clone()
    });
    let body_json =
        serde_json::to_string_pretty(digested.as_ref().unwrap_or(&body)).unwrap_or_default();
    let mut d = Digest::new();
    d.bytes(timeline.as_bytes())
        .bytes(ranks.as_bytes())
        .bytes(occupancy.as_bytes())
        .bytes(body_json.as_bytes());
    for (_, svg) in &svgs {
        d.bytes(svg.as_bytes());
    }
    let digest = d.finish();
    let summary = summary_json(&body, digest, stats);
    let mut files: Vec<(&'static str, Vec<u8>)> = Vec::new();
    if scenario.outputs.timeline {
        files.push(("timeline.csv", timeline.into_bytes()));
    }
    files.push(("ranks.csv", ranks.into_bytes()));
    if !occupancy.is_empty() {
        files.push(("occupancy.csv", occupancy.into_bytes()));
    }
    for (name, svg) in svgs {
        files.push((name, svg.into_bytes()));
    }
    files.push(("summary.json", summary.into_bytes()));
    Rendered { files, digest }
}

/// `scenario` with `simulation.threads` and `simulation.partition` at their defaults, or
/// `None` where they are already.
fn executor_neutral(scenario: &Scenario) -> Option<Scenario> {
    let sim = &scenario.simulation;
    if sim.threads == Threads::default() && sim.partition == PartitionChoice::default() {
        return None;
    }
    let mut neutral = scenario.clone();
    neutral.simulation.threads = Threads::default();
    neutral.simulation.partition = PartitionChoice::default();
    Some(neutral)
}

/// The text of `summary.json`: the deterministic body plus `bbsim_commit` (the build's git
/// commit), `results_digest` and the `run` block (wall time, threads).
fn summary_json(body: &Summary<'_>, digest: u64, stats: &RunStats) -> String {
    let run = RunBlock {
        events: stats.events,
        windows: stats.windows,
        events_per_window: stats.events_per_window(),
        wall_s: stats.wall.as_secs_f64(),
        events_per_second: stats.events_per_second(),
        threads: stats.threads,
        parallel_events: stats.parallel_events,
        clusters: stats.clusters,
        barrier_wait_s: stats.barrier_wait().as_secs_f64(),
        core_wait_s: stats.core_wait().as_secs_f64(),
        syncs: stats.syncs(),
        jumps: stats.jumps(),
        per_thread_events: stats.per_thread.iter().map(|t| t.events).collect(),
        stop: stats.stop.name().to_string(),
    };
    let mut value = serde_json::to_value(body).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(m) = &mut value {
        // The commit is outside the digest, so results from two builds can be compared.
        m.insert(
            "bbsim_commit".into(),
            serde_json::Value::String(crate::build_info::COMMIT.into()),
        );
        m.insert(
            "results_digest".into(),
            serde_json::Value::String(format!("{digest:016x}")),
        );
        m.insert(
            "run".into(),
            serde_json::to_value(&run).unwrap_or(serde_json::Value::Null),
        );
    }
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

/// Every file a run can write into its output directory (which of them depends on the
/// `[outputs]` keys and the burst buffer): what a re-run into the same directory replaces.
pub const RUN_FILES: &[&str] = &[
    "timeline.csv",
    "ranks.csv",
    "occupancy.csv",
    "timeline.svg",
    "hops.svg",
    "utilisation.svg",
    "occupancy.svg",
    crate::scenario::resolved::RESOLVED_FILE,
    "summary.json",
];

/// Writes the rendered files atomically into `out`.
pub fn write(rendered: &Rendered, out: &mut OutputSet) -> io::Result<()> {
    for (name, bytes) in &rendered.files {
        let mut w = out.create(name)?;
        w.write_all(bytes)?;
        w.flush()?;
    }
    Ok(())
}

/// Below this many events per lookahead window on average, a run on several threads is expected
/// to be slower than on one: the threads wait on each other's clocks about once a window
/// ([`bbsim_engine::exec::DENSE_WINDOW_EVENTS`], which `auto` also goes by).
pub const EVENTS_PER_WINDOW_FOR_THREADS: f64 = bbsim_engine::exec::DENSE_WINDOW_EVENTS;

/// A note for the run's table when an explicit count of several threads ran windows too sparse
/// to pay (`auto` moves to threads only where they pay).
fn thread_note(stats: &RunStats, threads: Threads) -> Option<String> {
    let per_window = stats.events_per_window();
    let Threads::Count(n) = threads else {
        return None;
    };
    (n > 1 && stats.windows > 0 && per_window < EVENTS_PER_WINDOW_FOR_THREADS).then(|| {
        format!(
            "note: {n} threads ran {per_window:.1} events per lookahead window on average; below \
             {EVENTS_PER_WINDOW_FOR_THREADS} waiting on each other's clocks costs the threads \
             more than they gain, so one thread, or `auto` (the default), is expected to be \
             faster, with identical results"
        )
    })
}

/// A note for the run's table when its threads waited for a core for a noticeable share of the
/// run (a tenth of its wall time or more, all threads together): another process held a core,
/// and stretches short of one ran on one thread ([`bbsim_engine::exec::CORE_SHORT`]).
fn core_note(stats: &RunStats) -> Option<String> {
    let waited = stats.core_wait().as_secs_f64();
    (stats.threads > 1 && waited >= 0.1 * stats.wall.as_secs_f64()).then(|| {
        format!(
            "note: the threads waited {waited:.2} s for a core in all (another process is using \
             the cores); stretches where they waited ran on one thread, with identical results"
        )
    })
}

/// How the run used threads: `1 thread`, `2 threads`, or, for a run that switched executor,
/// the share of its events that ran on several threads.
fn threads_used(stats: &RunStats) -> String {
    if stats.threads <= 1 {
        return "1 thread".into();
    }
    if stats.parallel_events >= stats.events {
        return format!("{} threads", stats.threads);
    }
    let share = 100.0 * stats.parallel_events as f64 / stats.events.max(1) as f64;
    format!(
        "{} threads for {share:.0} % of them, 1 for the rest",
        stats.threads
    )
}

/// The short table printed at the end of a run on the thread setting `threads`: per job its
/// bytes, time in I/O phases (`io_time_s`) and the bandwidth over it, then each job's phases
/// and the design's cost.
pub fn table(
    scenario: &Scenario,
    machine: &MachineSummary,
    cost: &Cost,
    r: &Results,
    stats: &RunStats,
    threads: Threads,
    written: &[PathBuf],
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {} on {} ({} compute nodes, {} BB servers, placement {})",
        scenario.name,
        machine.topology,
        machine.routing,
        machine.compute_nodes,
        machine.bb_servers,
        machine.placement
    );
    let _ = writeln!(
        s,
        "simulated {:.6} s in {:.2} s wall ({} events, {})\n",
        secs_f(r.sim_end),
        stats.wall.as_secs_f64(),
        stats.events,
        threads_used(stats)
    );
    for note in [thread_note(stats, threads), core_note(stats)]
        .into_iter()
        .flatten()
    {
        let _ = writeln!(s, "{note}\n");
    }
    let _ = writeln!(
        s,
        "{:<16} {:>7} {:>11} {:>11} {:>11} {:>11} {:>11} {:>12} {:>6}",
        "job", "ranks", "written", "read", "I/O time", "mean I/O", "max I/O", "bandwidth", "hops"
    );
    for j in &r.jobs {
        let _ = writeln!(
            s,
            "{:<16} {:>7} {:>11} {:>11} {:>9.3} s {:>9.3} s {:>9.3} s {:>12} {:>6.2}",
            j.name.chars().take(16).collect::<String>(),
            j.ranks,
            human_bytes(j.bytes_written),
            human_bytes(j.bytes_read),
            j.io_time_s,
            j.time_in_io_mean_s,
            j.time_in_io_max_s,
            human_bandwidth(j.effective_bandwidth),
            j.avg_hops
        );
    }
    s.push_str(&phase_lines(&r.jobs));
    sizing_table(&mut s, r);
    s.push_str(&cost.table_lines());
    if !r.conservation.holds {
        let _ = writeln!(
            s,
            "\nwarning: byte conservation check failed: {:?}",
            r.conservation
        );
    }
    if !written.is_empty() {
        let _ = writeln!(
            s,
            "\nwrote {}",
            written
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    s
}

/// The burst-buffer part of the table: per job its peak footprint, time its ranks waited for
/// space, bytes spilled and drained; then the fullest device.
fn sizing_table(s: &mut String, r: &Results) {
    if r.capacity.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n{:<16} {:>11} {:>7} {:>12} {:>12} {:>11} {:>11} {:>12}",
        "burst buffer",
        "peak held",
        "of cap",
        "stalled sum",
        "stalled max",
        "spilled",
        "drained",
        "drain done"
    );
    for (j, z) in r.jobs.iter().zip(&r.sizing) {
        let done = z
            .drain_done_s
            .map_or_else(|| "-".to_string(), |t| format!("{t:.3} s"));
        let _ = writeln!(
            s,
            "{:<16} {:>11} {:>6.1}% {:>10.3} s {:>10.3} s {:>11} {:>11} {:>12}",
            j.name.chars().take(16).collect::<String>(),
            human_bytes(z.peak_bytes),
            z.peak_pct,
            z.time_stalled_sum_s,
            z.time_stalled_max_s,
            human_bytes(z.spilled_bytes),
            human_bytes(z.drained_bytes),
            done
        );
    }
    if let Some(d) = super::capacity::fullest(&r.capacity) {
        let waits: u64 = r.capacity.iter().map(|c| c.stalled_writes).sum();
        let _ = writeln!(
            s,
            "fullest device: {} {} held {} of {} ({:.1}%) at {:.3} s; {} write(s) waited for space",
            d.kind,
            d.host,
            human_bytes(d.peak_bytes),
            human_bytes(d.capacity_bytes),
            d.peak_pct,
            d.peak_at_s,
            waits
        );
    }
}

/// The I/O phases block of the terminal table: one line per job with I/O.
fn phase_lines(jobs: &[JobSummary]) -> String {
    let mut s = String::from("\nI/O phases (bandwidth: bytes over the phase's length):\n");
    for j in jobs.iter().filter(|j| !j.io_phases.is_empty()) {
        let name: String = j.name.chars().take(16).collect();
        let _ = writeln!(s, "  {name:<16} {}", phases_line(&j.io_phases));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use bbsim_engine::{StopReason, ThreadStats};
    use std::time::Duration;

    /// A run of 1,000 events in 10 windows over 1 s of wall time on `threads` threads, which
    /// each waited `core_wait_ms` for a core, `parallel` of the events on threads.
    fn stats(threads: usize, parallel: u64, core_wait_ms: u64) -> RunStats {
        RunStats {
            events: 1000,
            windows: 10,
            last_event_time: 0,
            window: 100_000,
            threads,
            parallel_events: parallel,
            clusters: 4,
            per_thread: vec![
                ThreadStats {
                    core_wait: Duration::from_millis(core_wait_ms),
                    ..ThreadStats::default()
                };
                threads
            ],
            wall: Duration::from_secs(1),
            stop: StopReason::Drained,
        }
    }

    #[test]
    fn threads_that_waited_a_tenth_of_the_run_for_a_core_get_a_note() {
        // Two threads, 60 ms each: 0.12 s of a 1 s run.
        let note = core_note(&stats(2, 200, 60)).expect("a note");
        assert!(note.contains("waited 0.12 s for a core"), "{note}");
        assert_eq!(core_note(&stats(2, 1000, 40)), None, "0.08 s: no note");
        assert_eq!(
            core_note(&stats(1, 0, 500)),
            None,
            "one thread waits for no one"
        );
        assert_eq!(
            threads_used(&stats(2, 200, 60)),
            "2 threads for 20 % of them, 1 for the rest"
        );
    }

    #[test]
    fn explicit_counts_on_sparse_windows_get_a_note_whatever_ran_on_threads() {
        // 100 events per window: dense.
        assert_eq!(thread_note(&stats(2, 1000, 0), Threads::Count(2)), None);
        let mut sparse = stats(2, 200, 0);
        sparse.windows = 400;
        let note = thread_note(&sparse, Threads::Count(2)).expect("a note");
        assert!(note.starts_with("note: 2 threads ran 2.5 events"), "{note}");
        assert_eq!(thread_note(&sparse, Threads::Auto), None, "auto chose");
        assert_eq!(thread_note(&sparse, Threads::Count(1)), None);
    }
}
