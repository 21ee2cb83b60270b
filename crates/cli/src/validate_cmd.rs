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
    // Router buffers exist only in the packet model; their default grows with the packet
    // (two packets, at least 64 KiB), which a packet-size sweep should know.
    let buffers = match l.scenario.network.model {
        bbsim_topology::NetModel::Packet => format!(
            "{} VC buffers, ",
            format_bytes(l.scenario.network.effective_vc_buffer(sim.packet_size.0).0)
        ),
        _ => String::new(),
    };
    println!(
        "  {:<24} {} network model, {} packets, {}{}",
        "granularity",
        flow_granularity(&l.scenario.network),
        format_bytes(sim.packet_size.0),
        buffers,
        trains
    );
    println!("  jobs");
    for j in &l.design.workload.jobs {
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

/// The network model as `bbsim validate` names it, with the flow model's window and jitter
/// when they are set.
fn flow_granularity(n: &bbsim_sim::scenario::NetworkSection) -> String {
    match n.model {
        bbsim_topology::NetModel::Packet => "packet".to_string(),
        bbsim_topology::NetModel::Path => "path".to_string(),
        bbsim_topology::NetModel::Flow => {
            let mut extras = Vec::new();
            if let Some(w) = n.flow_window.filter(|&w| w > 1) {
                extras.push(format!("up to {w} packets moving per terminal"));
            }
            if let Some(j) = n.flow_jitter.filter(|&j| j > 0.0) {
                extras.push(format!(
                    "shared flows up to {}% short of their share",
                    j * 100.0
                ));
            }
            if extras.is_empty() {
                "flow".to_string()
            } else {
                format!("flow ({})", extras.join(", "))
            }
        }
    }
}
