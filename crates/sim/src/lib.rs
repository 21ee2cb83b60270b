//! # bbsim-sim
//!
//! Scenario files (TOML with human units), their validation with precise diagnostics, command
//! line overrides, model assembly, metrics and outputs.

pub mod assemble;
pub mod cost;
pub mod diag;
pub mod jobs;
pub mod machine;
pub mod model;
pub mod output;
pub mod run;
pub mod scenario;
pub mod units;
