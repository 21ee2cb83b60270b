//! Keys that apply to some burst-buffer placements or network models only.
//!
//! One scenario may carry the keys of every placement it is meant to run with (a workload swept
//! over `burst_buffer.placement`). Under a placement a key does not apply to, the key is not an
//! error: it is reported as unused (`bbsim validate` lists it, `bbsim run` warns) and the run
//! uses its default instead. Values that are wrong for the placement they apply to are still
//! errors. The same holds for the unit keys (`simulation.unit_size`, `network.min_part`,
//! `network.unit_spread`) under the path and flow models, which move whole packets (the ready
//! scenarios set units for the packet model, and a run or sweep may switch `network.model`).
//!
//! Adding a placement-specific key: one [`Rule`] in [`RULES`], with the placements that read it
//! and how to put its default back.

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{Placement, Scenario};
use bbsim_topology::NetModel;

/// Grouped and global: the placements with BB servers.
const SERVERS: &[Placement] = &[Placement::Grouped, Placement::Global];
/// Every placement with a burst buffer.
const ANY_BB: &[Placement] = &[Placement::NodeLocal, Placement::Grouped, Placement::Global];
const GLOBAL: &[Placement] = &[Placement::Global];
const GROUPED: &[Placement] = &[Placement::Grouped];

/// Where a placement-specific key lives.
#[derive(Clone, Copy)]
enum Scope {
    /// A key (or table) of the document, by its dotted path.
    Top,
    /// A key of every `[[jobs]]` entry.
    Job,
}

/// A key that only some placements read, and how to put its default back.
struct Rule {
    scope: Scope,
    /// Dotted path (for [`Scope::Job`], the key inside a job).
    key: &'static str,
    /// The placements that read it.
    applies: &'static [Placement],
    /// Puts the default back (for a job key, in job `job`).
    clear: fn(&mut Scenario, usize),
}

macro_rules! bb_rule {
    ($key:literal, $field:ident, $applies:expr) => {
        Rule {
            scope: Scope::Top,
            key: concat!("burst_buffer.", $key),
            applies: $applies,
            clear: |s, _| s.burst_buffer.$field = Default::default(),
        }
    };
}

macro_rules! job_rule {
    ($key:literal, $field:ident) => {
        Rule {
            scope: Scope::Job,
            key: $key,
            applies: SERVERS,
            clear: |s, j| s.jobs[j].$field = Default::default(),
        }
    };
}

/// Every placement-specific key.
const RULES: &[Rule] = &[
    bb_rule!("servers", servers, GLOBAL),
    bb_rule!("servers_per_router", servers_per_router, GLOBAL),
    bb_rule!("routers_per_server", routers_per_server, GROUPED),
    Rule {
        scope: Scope::Top,
        key: "burst_buffer.ssds_per_server",
        applies: SERVERS,
        clear: |s, _| s.burst_buffer.ssds_per_server = 1,
    },
    Rule {
        scope: Scope::Top,
        key: "burst_buffer.stripe_count",
        applies: SERVERS,
        clear: |s, _| {
            s.burst_buffer.stripe_count =
                crate::scenario::BurstBufferSection::default().stripe_count
        },
    },
    Rule {
        scope: Scope::Top,
        key: "burst_buffer.stripe_size",
        applies: SERVERS,
        clear: |s, _| {
            s.burst_buffer.stripe_size = crate::scenario::BurstBufferSection::default().stripe_size
        },
    },
    bb_rule!("ssd_chunk", ssd_chunk, SERVERS),
    bb_rule!("ssd_model", ssd_model, SERVERS),
    Rule {
        scope: Scope::Top,
        key: "burst_buffer.request_threads",
        applies: SERVERS,
        clear: |s, _| {
            s.burst_buffer.request_threads =
                crate::scenario::BurstBufferSection::default().request_threads
        },
    },
    bb_rule!("request_overhead", request_overhead, SERVERS),
    bb_rule!("staging_buffer", staging_buffer, SERVERS),
    bb_rule!("client_bandwidth", client_bandwidth, SERVERS),
    bb_rule!("client_requests", client_requests, SERVERS),
    Rule {
        scope: Scope::Top,
        key: "burst_buffer.staging_bandwidth",
        applies: SERVERS,
        clear: |s, _| {
            s.burst_buffer.staging_bandwidth =
                crate::scenario::BurstBufferSection::default().staging_bandwidth
        },
    },
    bb_rule!("full_policy", full_policy, ANY_BB),
    bb_rule!("grain", grain, SERVERS),
    bb_rule!("access_mode", access_mode, SERVERS),
    bb_rule!("ssd", ssd, ANY_BB),
    bb_rule!("ftl", ftl, ANY_BB),
    bb_rule!("drain", drain, ANY_BB),
    Rule {
        scope: Scope::Top,
        key: "reservations",
        applies: SERVERS,
        clear: |s, _| s.reservations.clear(),
    },
    job_rule!("bb_capacity", bb_capacity),
    job_rule!("stage_in", stage_in),
    job_rule!("stage_in_inputs", stage_in_inputs),
    job_rule!("reservation", reservation),
];

/// `placement = "x"` for messages.
fn spelt(p: Placement) -> String {
    format!("placement = \"{}\"", p.name())
}

/// Why a key is unused under `placement`: which placements read it.
fn why(placement: Placement, applies: &[Placement]) -> String {
    let names: Vec<String> = applies
        .iter()
        .map(|p| format!("\"{}\"", p.name()))
        .collect();
    let list = match names.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
        [] => String::new(),
    };
    format!(
        "unused with burst_buffer.{}: it applies to placement = {list} only, so this run uses its default",
        spelt(placement)
    )
}

/// The keys the scenario sets that its placement does not read, each as a diagnostic naming
/// the key, where it was set and why it is unused; and the scenario with those keys back at
/// their defaults (what lowering and the run use).
pub fn split_unused(s: &Scenario, map: &SourceMap) -> (Vec<Diagnostic>, Scenario) {
    let placement = s.burst_buffer.placement;
    let mut unused = Vec::new();
    let mut effective = s.clone();
    for rule in RULES {
        if rule.applies.contains(&placement) {
            continue;
        }
        match rule.scope {
            Scope::Top => {
                if map.sets(rule.key) {
                    unused.push(map.error_at(rule.key, why(placement, rule.applies)));
                    (rule.clear)(&mut effective, 0);
                }
            }
            Scope::Job => {
                for j in 0..s.jobs.len() {
                    let key = format!("jobs[{j}].{}", rule.key);
                    if map.sets(&key) {
                        unused.push(map.error_at(&key, why(placement, rule.applies)));
                        (rule.clear)(&mut effective, j);
                    }
                }
            }
        }
    }
    if s.network.model != NetModel::Packet {
        for key in UNIT_KEYS {
            if !map.sets(key) {
                continue;
            }
            unused.push(map.error_at(
                key,
                format!(
                    "unused with network.model = \"{}\": units apply to network.model = \
                     \"packet\" only, so this run moves each packet whole",
                    match s.network.model {
                        NetModel::Packet => "packet",
                        NetModel::Path => "path",
                        NetModel::Flow => "flow",
                    }
                ),
            ));
        }
        effective.simulation.unit_size = None;
        effective.network.min_part = None;
        effective.network.unit_spread = None;
    }
    (unused, effective)
}

/// The packet model's unit keys (units, their smallest part, their spreading over slower
/// routes): the network-model-specific keys reported as unused under the path and flow
/// models, which move each packet whole.
const UNIT_KEYS: [&str; 3] = [
    "simulation.unit_size",
    "network.min_part",
    "network.unit_spread",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn why_names_the_placements() {
        let w = why(Placement::NodeLocal, SERVERS);
        assert!(w.contains("placement = \"node-local\""), "{w}");
        assert!(w.contains("\"grouped\" or \"global\""), "{w}");
        assert!(why(Placement::None, ANY_BB).contains("\"node-local\", \"grouped\" or \"global\""));
    }

    #[test]
    fn every_rule_leaves_out_some_placement() {
        for r in RULES {
            assert!(r.applies.len() < 4, "{}", r.key);
            assert!(!r.applies.contains(&Placement::None), "{}", r.key);
        }
    }
}
