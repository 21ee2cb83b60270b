//! `bbsim net`: synthetic traffic on a scenario's network (its `[traffic]` section).

use crate::run_cmd::scenario_path;
use bbsim_engine::Threads;
use bbsim_sim::diag::load;
use bbsim_sim::lower::machine::build_machine;
use bbsim_sim::lower::traffic::traffic_config;
use bbsim_sim::lower::unused::split_unused;
use bbsim_sim::scenario::Scenario;
use bbsim_topology::traffic::run_traffic_threads;
use std::path::PathBuf;

/// Arguments of `bbsim net`.
#[derive(clap::Args, Debug)]
pub struct NetArgs {
    /// Scenario file with `[network]` and `[traffic]` sections.
    pub scenario: Option<PathBuf>,
    /// Worker threads: `auto` (up to one per core, used only while they pay) or a number (one
    /// thread while another process keeps them waiting for a core; results are identical for
    /// any value).
    #[arg(long, value_name = "auto|N", default_value = "1")]
    pub threads: Threads,
    /// Override scenario values, e.g. `--set traffic.pattern=hot-spot`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `bbsim net`.
pub fn run(a: &NetArgs) -> Result<(), String> {
    let (path, _) = scenario_path(&a.scenario)?;
    let (written, map): (Scenario, _) = load(&path, &a.set).map_err(|d| d.to_string())?;
    // Keys the network model does not read (units under the path or flow model) are warned
    // about and left at their defaults, as `bbsim run` does.
    let (unused, s) = split_unused(&written, &map);
    for d in &unused {
        eprintln!("warning: {d}");
    }
    let machine = build_machine(&s, &map).map_err(|d| d.to_string())?;
    let cfg = traffic_config(&s, &map, &machine).map_err(|d| d.to_string())?;
    let report = run_traffic_threads(&cfg, a.threads)
        .map_err(|e| map.error_at("traffic", e.to_string()).to_string())?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        print!("{report}");
    }
    Ok(())
}
