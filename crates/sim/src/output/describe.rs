//! What `bbsim validate` prints besides the machine summary: the simulation's granularity
//! and one line per job.

use crate::scenario::{NetworkSection, Scenario};
use crate::units::{format_bytes, format_duration, human_bytes};
use bbsim_engine::{Threads, Time};
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

/// `bbsim validate`'s line on threads: what `threads` will do on this machine (`cores`), and
/// for an explicit count above one whether it is expected to be slower than one thread: more
/// threads than cores, or a forecast below [`crate::output::report::EVENTS_PER_WINDOW_FOR_THREADS`]
/// events per lookahead window of `window` ps.
pub fn thread_outlook(threads: Threads, window: Time, per_window: f64, cores: usize) -> String {
    let threshold = crate::output::report::EVENTS_PER_WINDOW_FOR_THREADS;
    let prec = usize::from(per_window < 10.0);
    let forecast = format!(
        "about {per_window:.prec$} events per {} lookahead window forecast; threads pay from {threshold}",
        format_duration(window)
    );
    let what = match threads {
        Threads::Auto => format!(
            "auto: one thread, and up to {} while measured to pay ({forecast})",
            bbsim_engine::auto_threads()
        ),
        Threads::Count(1) => format!("1 ({forecast})"),
        Threads::Count(n) if n > cores => format!(
            "{n}: expected slower than one thread: more threads than this machine's {cores} cores \
             ({forecast})"
        ),
        Threads::Count(n) if per_window < threshold => {
            format!("{n}: expected slower than one thread ({forecast})")
        }
        Threads::Count(n) => format!("{n} ({forecast})"),
    };
    format!("  {:<24} {what}", "threads")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_outlook_says_when_a_count_is_expected_to_be_slower() {
        let w = 100_000; // 100 ns
        let sparse = thread_outlook(Threads::Count(2), w, 2.5, 2);
        assert!(
            sparse.contains("2: expected slower than one thread"),
            "{sparse}"
        );
        assert!(sparse.contains("about 2.5 events per 100ns"), "{sparse}");
        let dense = thread_outlook(Threads::Count(2), w, 120.0, 2);
        assert!(!dense.contains("slower"), "{dense}");
        let over = thread_outlook(Threads::Count(4), w, 120.0, 2);
        assert!(
            over.contains("more threads than this machine's 2 cores"),
            "{over}"
        );
        let one = thread_outlook(Threads::Count(1), w, 2.5, 2);
        assert!(!one.contains("slower"), "{one}");
        let auto = thread_outlook(Threads::Auto, w, 2.5, 2);
        assert!(auto.contains("auto: one thread, and up to"), "{auto}");
    }
}
