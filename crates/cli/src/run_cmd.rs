//! `bbsim run`: run a scenario and write its outputs.

use crate::edits::ScenarioEdits;
use crate::heartbeat::{Heartbeat, HeartbeatArg};
use bbsim_engine::{CriticalPath, Dependencies, PendingKind, Progress, Threads, Time};
use bbsim_sim::output::{table, write, OutputSet, INTERRUPTED, RUN_FILES};
use bbsim_sim::run::{load_scenario_edited, Finished, Loaded, RunError};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The built-in default scenario (a copy of `scenarios/quickstart.toml`).
pub const QUICKSTART: &str = crate::example_cmd::QUICKSTART;

/// Arguments of `bbsim run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Scenario file (TOML). Without one, runs the built-in quickstart scenario
    /// (`scenarios/quickstart.toml`).
    pub scenario: Option<PathBuf>,
    /// Worker threads: `auto` (up to one per core, used only while they pay) or a number (one
    /// thread while another process keeps them waiting for a core; overrides
    /// `simulation.threads`; results are identical for any value).
    #[arg(long, value_name = "auto|N")]
    pub threads: Option<Threads>,
    /// Output directory (default: `<scenario name>-out` next to the scenario file).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// `--unset` and `--set`.
    #[command(flatten)]
    pub edits: ScenarioEdits,
    /// No progress bar and no table.
    #[arg(long, short)]
    pub quiet: bool,
    /// `--heartbeat`.
    #[command(flatten)]
    pub heartbeat: HeartbeatArg,
    /// Also measure the run's critical path (the longest chain of events that depend on each
    /// other) and print the speed-up it allows any executor on 2, 4 and 8 threads (printed
    /// also with `--quiet`). Runs on one thread, slower than usual; results are identical.
    #[arg(long, conflicts_with = "threads")]
    pub critical_path: bool,
}

/// The live run, for the Ctrl-C handler.
static LIVE: OnceLock<Mutex<Option<Arc<Progress>>>> = OnceLock::new();

/// Set once the first run (and its output set) starts: from then on Ctrl-C cancels the runs
/// and lets them clean up; before, the process only reads scenarios and traces, and Ctrl-C
/// ends it at once.
static RUNNING: AtomicBool = AtomicBool::new(false);

/// The temporary directory holding the built-in quickstart scenario, removed when the
/// command ends (or is interrupted).
static BUILTIN: Mutex<Option<tempfile::TempDir>> = Mutex::new(None);

/// Installs the Ctrl-C handler (once per process). Before the first run starts (scenarios
/// and traces being read), it removes the built-in scenario's temporary directory and ends
/// the process at once with status 130. Once runs have started, it cancels the live run and
/// marks the process interrupted so that no output is committed.
pub fn install_interrupt_handler() {
    let live = LIVE.get_or_init(|| Mutex::new(None));
    let _ = ctrlc::set_handler(move || {
        INTERRUPTED.store(true, Ordering::SeqCst);
        if !RUNNING.load(Ordering::SeqCst) {
            remove_builtin();
            eprintln!("error: interrupted while loading: nothing was run or written");
            std::process::exit(130);
        }
        if let Ok(g) = live.lock() {
            if let Some(p) = g.as_ref() {
                p.cancel();
            }
        }
    });
}

/// Removes the built-in scenario's temporary directory, if one was made.
pub fn remove_builtin() {
    if let Ok(mut g) = BUILTIN.lock() {
        if let Some(dir) = g.take() {
            let _ = dir.close();
        }
    }
}

fn set_live(p: Option<Arc<Progress>>) {
    if let Some(m) = LIVE.get() {
        if let Ok(mut g) = m.lock() {
            if let Some(p) = &p {
                // Interrupted while the simulation was being built: cancel it at once.
                if INTERRUPTED.load(Ordering::SeqCst) {
                    p.cancel();
                }
            }
            *g = p;
        }
    }
}

/// Where the scenario comes from: a file, or the built-in quickstart materialised in a
/// temporary directory (so relative paths and messages work the same way). That directory
/// lasts until [`remove_builtin`] (called when the command ends) or Ctrl-C.
pub fn scenario_path(arg: &Option<PathBuf>) -> Result<(PathBuf, bool), String> {
    if let Some(p) = arg {
        return Ok((p.clone(), false));
    }
    let local = Path::new("scenarios/quickstart.toml");
    if local.exists() {
        return Ok((local.to_path_buf(), false));
    }
    install_interrupt_handler();
    let dir = tempfile::Builder::new()
        .prefix("bbsim-quickstart-")
        .tempdir()
        .map_err(|e| {
            format!(
                "cannot create a temporary directory in {} for the built-in scenario: {e}",
                std::env::temp_dir().display()
            )
        })?;
    let p = dir.path().join("quickstart.toml");
    std::fs::write(&p, QUICKSTART).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    if let Ok(mut g) = BUILTIN.lock() {
        *g = Some(dir);
    }
    Ok((p, true))
}

/// The default output directory: `<name>-out` next to the scenario (or in the current
/// directory for the built-in scenario).
pub fn default_out(path: &Path, builtin: bool, name: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = if builtin {
        PathBuf::from(".")
    } else {
        path.parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    };
    dir.join(format!("{safe}-out"))
}

/// The progress bar of a run: a bar towards the estimated end, with simulated time and
/// events per second.
fn progress_bar() -> ProgressBar {
    let pb = ProgressBar::new(1000);
    pb.set_style(
        ProgressStyle::with_template("{bar:20} {msg} {elapsed_precise} ETA {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// Updates `pb` from the live run `p` every 100 ms until `stop` is set. Past `est` (the
/// lower-bound estimate of the simulated end, ps) the bar turns into a spinner.
fn watch(pb: ProgressBar, p: Arc<Progress>, est: Time, stop: Arc<AtomicBool>) {
    let started = Instant::now();
    let mut past_estimate = false;
    while !stop.load(Ordering::Relaxed) {
        let now = p.now();
        if now >= est && !past_estimate {
            // Past the lower-bound estimate: no honest ETA any more.
            past_estimate = true;
            pb.set_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed_precise}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
        }
        if !past_estimate {
            pb.set_position((now as f64 / est as f64 * 1000.0) as u64);
        } else {
            pb.tick();
        }
        let rate = p.events() as f64 / started.elapsed().as_secs_f64().max(1e-9);
        pb.set_message(format!(
            "sim {:.6} s, {:.2} Mev/s",
            now as f64 / 1e12,
            rate / 1e6
        ));
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// How a run shows that it goes on: a progress bar on a terminal, a heartbeat line every so
/// often (`--heartbeat`), both or neither.
#[derive(Clone, Copy, Debug, Default)]
pub struct Watch {
    /// Draw the progress bar (stderr is a terminal and the command is not `--quiet`).
    pub bar: bool,
    /// Print a heartbeat line this often, labelled with the output directory's name.
    pub heartbeat: Option<Duration>,
}

impl Watch {
    /// No progress bar (a run among many, or in a log): only the heartbeat, where given.
    pub fn log(heartbeat: Option<Duration>) -> Self {
        Watch {
            bar: false,
            heartbeat,
        }
    }
}

/// Runs one loaded scenario and writes its outputs into `out`, replacing a previous run's
/// there as a whole (`OutputSet::replacing`; `out` is checked writable before the run).
/// Returns the files written, the table text and the run.
pub fn run_loaded(
    l: &Loaded,
    threads: Threads,
    out: &Path,
    watch: Watch,
) -> Result<(Vec<PathBuf>, String, Finished), String> {
    run_measured(l, threads, None, out, watch)
}

/// [`run_loaded`], on the critical-path executor `measure` instead (one thread) where given.
fn run_measured(
    l: &Loaded,
    threads: Threads,
    measure: Option<&CriticalPath>,
    out: &Path,
    w: Watch,
) -> Result<(Vec<PathBuf>, String, Finished), String> {
    RUNNING.store(true, Ordering::SeqCst);
    let mut set = OutputSet::replacing(out, RUN_FILES)
        .map_err(|e| format!("output directory {}: {e}", out.display()))?;
    let est = l.estimated_end();
    let progress_bar = w.bar.then(progress_bar);
    let label = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| out.display().to_string());
    let mut watcher = None;
    let mut heartbeat = None;
    let stop = Arc::new(AtomicBool::new(false));
    let started = |p: Arc<Progress>| {
        set_live(Some(Arc::clone(&p)));
        if let Some(every) = w.heartbeat {
            heartbeat = Some(Heartbeat::start(&label, every, Arc::clone(&p), est));
        }
        if let Some(pb) = progress_bar.clone() {
            let stop = Arc::clone(&stop);
            watcher = Some(std::thread::spawn(move || watch(pb, p, est, stop)));
        }
    };
    let finished = match measure {
        None => l.run(threads, started),
        Some(cp) => l.run_on(cp, started),
    }
    .map_err(|e| e.to_string());
    stop.store(true, Ordering::Relaxed);
    if let Some(w) = watcher {
        let _ = w.join();
    }
    if let Some(pb) = &progress_bar {
        pb.finish_and_clear();
    }
    set_live(None);
    if let Some(h) = heartbeat {
        h.end(match &finished {
            Ok(f) => Ok((f.results.sim_end, f.stats.events)),
            Err(e) => Err(e),
        });
    }
    let finished = finished?;
    let rendered = l.render(&finished);
    write(&rendered, &mut set).map_err(|e| e.to_string())?;
    let written = set.commit().map_err(|e| e.to_string())?;
    let text = table(
        &l.scenario,
        &l.machine_summary(),
        &l.cost(),
        &finished.results,
        &finished.stats,
        threads,
        &written,
    );
    Ok((written, text, finished))
}

/// The threads of one run among `at_once` runs side by side: `auto` gives each run one thread
/// when several share the machine (they already keep its cores busy); a number is kept.
pub fn threads_per_run(threads: Threads, at_once: usize) -> Threads {
    match threads {
        Threads::Auto if at_once > 1 => Threads::Count(1),
        t => t,
    }
}

/// Prints the keys the scenario sets that its placement does not read, as warnings on stderr
/// (`context`: which sweep combination, if any).
pub fn warn_unused(l: &Loaded, context: Option<&str>) {
    for d in &l.unused {
        match context {
            Some(c) => eprintln!("warning: {d} (in the sweep combination {c})"),
            None => eprintln!("warning: {d}"),
        }
    }
}

/// `bbsim run`.
pub fn run(a: &RunArgs) -> Result<(), String> {
    install_interrupt_handler();
    let (path, builtin) = scenario_path(&a.scenario)?;
    let loaded =
        load_scenario_edited(&path, &a.edits.unset, &a.edits.set).map_err(|d| d.to_string())?;
    warn_unused(&loaded, None);
    let threads = a.threads.unwrap_or(loaded.scenario.simulation.threads);
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| default_out(&path, builtin, &loaded.scenario.name));
    crate::out_dir::check(&out)?;
    let watch = Watch {
        bar: !a.quiet && std::io::stderr().is_terminal(),
        heartbeat: a.heartbeat.heartbeat,
    };
    let measure = a
        .critical_path
        .then(|| CriticalPath::new(PendingKind::Ring));
    let threads = if measure.is_some() {
        Threads::Count(1)
    } else {
        threads
    };
    let (_, text, _) =
        run_measured(&loaded, threads, measure.as_ref(), &out, watch).map_err(|e| {
            if INTERRUPTED.load(Ordering::SeqCst) {
                RunError::Cancelled.to_string()
            } else {
                e
            }
        })?;
    if !a.quiet {
        print!("{text}");
    }
    if let Some(d) = measure.as_ref().and_then(CriticalPath::measured) {
        print!("{}", dependencies_text(&d));
    }
    Ok(())
}

/// The lines `--critical-path` prints: the run's critical path and the speed-up bounds it
/// and the run's clusters set for 2, 4 and 8 threads.
pub fn dependencies_text(d: &Dependencies) -> String {
    let bounds = |f: &dyn Fn(usize) -> f64| [2, 4, 8].map(|t| format!("{:.2}", f(t))).join(" / ");
    let busiest = d.cluster_events.iter().copied().max().unwrap_or(0);
    format!(
        "critical path: {} of {} events (parallelism {:.2}); busiest of {} clusters in {} \
         regions {:.1} % of the events, busiest LP {:.2} %\n\
         speed-up bound over one thread on 2 / 4 / 8 threads: {} x with these clusters dealt \
         out by load, {} x with one LP per cluster (every event one step)\n",
        d.critical_path,
        d.events,
        d.parallelism(),
        d.cluster_events.len(),
        d.regions(),
        100.0 * busiest as f64 / d.events.max(1) as f64,
        100.0 * d.busiest_lp_events as f64 / d.events.max(1) as f64,
        bounds(&|t| d.bound(t)),
        bounds(&|t| d.bound_per_lp(t)),
    )
}
