//! # bbsim-sim
//!
//! Scenario files (TOML with human units), their validation with precise diagnostics, command
//! line overrides, model assembly, metrics and outputs.

pub mod assemble;
pub mod build_info;
pub mod lower;
pub mod model;
pub mod output;
pub mod run;
pub mod scenario;
pub mod sizing;
pub mod stuck;

// The schema's units and diagnostics are used everywhere: keep their short paths.
pub use scenario::{diag, units};
