//! `bbsim validate`: check a scenario without running it and describe the machine.

use crate::edits::ScenarioEdits;
use crate::run_cmd::scenario_path;
use bbsim_sim::output::describe::{granularity, job_lines, thread_outlook};
use bbsim_sim::run::load_scenario_edited;
use std::path::PathBuf;

/// Arguments of `bbsim validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// Scenario file (default: the built-in quickstart).
    pub scenario: Option<PathBuf>,
    /// `--unset` and `--set`, as with `bbsim run`.
    #[command(flatten)]
    pub edits: ScenarioEdits,
    /// The thread count to judge (default: `simulation.threads`), as with `bbsim run`.
    #[arg(long, value_name = "auto|N")]
    pub threads: Option<bbsim_engine::Threads>,
    /// Print the machine summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `bbsim validate`.
pub fn run(a: &ValidateArgs) -> Result<(), String> {
    let (path, _) = scenario_path(&a.scenario)?;
    let l = load_scenario_edited(&path, &a.edits.unset, &a.edits.set).map_err(|d| d.to_string())?;
    let m = l.machine_summary();
    if a.json {
        // The JSON is the machine summary alone; unused keys go to stderr.
        crate::run_cmd::warn_unused(&l, None);
        println!(
            "{}",
            serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!("{}: valid", path.display());
    print!("{}", m.render());
    println!("{}", granularity(&l.scenario));
    println!(
        "{}",
        thread_outlook(
            a.threads.unwrap_or(l.scenario.simulation.threads),
            l.lookahead_window(),
            l.forecast_events_per_window(),
            bbsim_engine::cores()
        )
    );
    println!("  jobs");
    for line in job_lines(&l.design.workload) {
        println!("{line}");
    }
    if !l.unused.is_empty() {
        println!(
            "  unused with placement = \"{}\" (these keys apply to other placements; the run uses their defaults)",
            l.scenario.burst_buffer.placement.name()
        );
        for d in &l.unused {
            println!("    {d}");
        }
    }
    Ok(())
}
