//! Shared helpers for the criterion benchmarks in this folder.

use bbsim_engine::phold::PholdParams;

/// The PHOLD configuration of the engine's speed targets, run to `end` units (1 unit = 1 µs): 2,048
/// LPs, 16 start events per LP, remote 0.1, mean 1.0, lookahead 0.5, seed 1. To 600 units it
/// commits 19.6 M events; to 3,050 units, 99.9 M.
pub fn reference_phold(end: f64) -> PholdParams {
    PholdParams {
        nlp: 2048,
        start_events: 16,
        remote: 0.1,
        mean: 1.0,
        lookahead: 0.5,
        end,
        seed: 1,
    }
}

/// Runs a loaded scenario once on one thread (assembly, simulation and reduction, as
/// `bbsim run` does), checks that it drained, and returns its event count.
pub fn run_scenario_once(loaded: &bbsim_sim::run::Loaded) -> u64 {
    let f = loaded.run(1, |_| {}).expect("the scenario runs");
    assert_eq!(f.stats.stop, bbsim_engine::StopReason::Drained);
    f.stats.events
}
