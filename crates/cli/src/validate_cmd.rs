//! `bbsim validate`: check a scenario without running it and describe the machine.

use crate::run_cmd::scenario_path;
use bbsim_sim::run::load_scenario;
use bbsim_sim::units::{format_bytes, human_bytes};
use std::path::PathBuf;

/// Arguments of `bbsim validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// Scenario file (default: the built-in quickstart).
    pub scenario: Option<PathBuf>,
    /// Override scenario values, as with `bbsim run`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Print the machine summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `bbsim validate`.
pub fn run(a: &ValidateArgs) -> Result<(), String> {
    let (path, _) = scenario_path(&a.scenario)?;
    let l = load_scenario(&path, &a.set).map_err(|d| d.to_string())?;
    let m = l.machine_summary();
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!("{}: valid", path.display());
    print!("{}", m.render());
    let sim = &l.scenario.simulation;
    let trains = match sim.train_ops {
        0 | 1 => "every I/O operation on its own".to_string(),
        k => format!("transfer trains of up to {k} operations"),
    };
    println!(
        "  {:<24} {} network model, {} packets, {}",
        "granularity",
        match (l.scenario.network.model, l.scenario.network.flow_window) {
            (bbsim_topology::NetModel::Packet, _) => "packet".to_string(),
            (bbsim_topology::NetModel::Path, _) => "path".to_string(),
            (bbsim_topology::NetModel::Flow, None | Some(1)) => "flow".to_string(),
            (bbsim_topology::NetModel::Flow, Some(w)) =>
                format!("flow (up to {w} packets moving per terminal)"),
        },
        format_bytes(sim.packet_size.0),
        trains
    );
    println!("  jobs");
    for j in &l.workload.jobs {
        let t = j.totals();
        println!(
            "    {:<20} {} ranks on {} nodes, starts at {:.3} s, writes {}, reads {}, {} I/O operations",
            j.name,
            j.ranks(),
            j.nodes_needed(),
            j.start_ps as f64 / 1e12,
            human_bytes(t.bytes_written),
            human_bytes(t.bytes_read),
            t.writes + t.reads
        );
    }
    Ok(())
}
