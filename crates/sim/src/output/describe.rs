//! What `bbsim validate` prints besides the machine summary: the simulation's granularity
//! and one line per job.

use crate::scenario::{NetworkSection, Scenario};
use crate::units::{format_bytes, human_bytes};
use bbsim_topology::NetModel;
use bbsim_workload::Workload;

/// The simulation's granularity: network model, packet size, VC buffer size (packet model
/// only) and transfer trains. The VC buffer is the scenario's, as loading resolved it.
pub fn granularity(s: &Scenario) -> String {
    let sim = &s.simulation;
    let trains = match sim.train_ops {
        0 | 1 => "every I/O operation on its own".to_string(),
        k => format!("transfer trains of up to {k} operations"),
    };
    // Router buffers exist only in the packet model.
    let buffers = match s.network.model {
        NetModel::Packet => {
            let units = match sim.unit_size {
                Some(u) => format!("{} units, ", format_bytes(u.0)),
                None => String::new(),
            };
            format!(
                "{units}{} VC buffers, ",
                format_bytes(s.network.effective_vc_buffer().0)
            )
        }
        _ => String::new(),
    };
    format!(
        "  {:<24} {} network model, {} packets, {}{}",
        "granularity",
        network_model(&s.network),
        format_bytes(sim.packet_size.0),
        buffers,
        trains
    )
}

/// The network model as `bbsim validate` names it, with the flow model's window and jitter
/// when they are set.
fn network_model(n: &NetworkSection) -> String {
    match n.model {
        NetModel::Packet => "packet".to_string(),
        NetModel::Path => "path".to_string(),
        NetModel::Flow => {
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

/// One line per job: ranks, nodes, start (s), bytes written and read, I/O operations.
pub fn job_lines(w: &Workload) -> Vec<String> {
    w.jobs
        .iter()
        .map(|j| {
            let t = j.totals();
            format!(
                "    {:<20} {} ranks on {} nodes, starts at {:.3} s, writes {}, reads {}, {} I/O operations",
                j.name,
                j.ranks(),
                j.nodes_needed(),
                j.start_ps as f64 / 1e12,
                human_bytes(t.bytes_written),
                human_bytes(t.bytes_read),
                t.writes + t.reads
            )
        })
        .collect()
}
