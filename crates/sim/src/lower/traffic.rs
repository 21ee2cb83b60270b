//! Synthetic traffic between compute nodes (`[traffic]`, run by `bbsim net`) on the
//! scenario's network without its BB servers and I/O nodes.

use crate::diag::{Diagnostic, SourceMap};
use crate::lower::machine::Machine;
use crate::scenario::{Pattern, Scenario};
use bbsim_topology::traffic::{TrafficConfig, Victim};

/// The traffic of `[traffic]` on `machine`'s compute network: pattern, message size (bytes),
/// interval and end (ps). Refuses a missing section, empty messages and a hot spot that is
/// not a compute node.
pub fn traffic_config(
    s: &Scenario,
    map: &SourceMap,
    machine: &Machine,
) -> Result<TrafficConfig, Diagnostic> {
    let t = s.traffic.as_ref().ok_or_else(|| {
        map.error_at(
            "traffic",
            "`bbsim net` needs a [traffic] section (pattern, message_size, interval, end)",
        )
    })?;
    let mut network = machine.network.config().clone();
    network.extras.clear();
    if t.message_size.0 == 0 {
        return Err(map.error_at("traffic.message_size", "must be > 0"));
    }
    if t.pattern == Pattern::HotSpot && t.hot_spot >= machine.compute_nodes {
        return Err(map.error_at(
            "traffic.hot_spot",
            format!(
                "node {} does not exist (the machine has {} compute nodes)",
                t.hot_spot, machine.compute_nodes
            ),
        ));
    }
    let victim = match (t.victim_from, t.victim_to) {
        (None, None) => None,
        (Some(source), Some(destination)) => Some(Victim {
            source,
            destination,
        }),
        (Some(_), None) => {
            return Err(map.error_at(
                "traffic.victim_from",
                "needs `victim_to`, the victim flow's receiving node",
            ))
        }
        (None, Some(_)) => {
            return Err(map.error_at(
                "traffic.victim_to",
                "needs `victim_from`, the victim flow's sending node",
            ))
        }
    };
    Ok(TrafficConfig {
        network,
        pattern: t.pattern,
        hot_spot: t.hot_spot,
        shift: t.shift,
        victim,
        message_bytes: t.message_size.0,
        interval: t.interval.0,
        messages_per_node: t.messages_per_node,
        end: t.end.0,
        seed: s.simulation.seed,
        drain: true,
    })
}
