//! Shared helpers for the criterion benchmarks in this folder.

use bbsim_engine::phold::PholdParams;

/// The PHOLD configuration of issue 2's targets, run to `end` units (1 unit = 1 µs): 2,048
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
