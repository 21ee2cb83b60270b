//! # bbsim-sim
//!
//! Scenario files (TOML with human units), their validation with precise diagnostics, command
//! line overrides, model assembly, metrics and outputs.

pub mod assemble;
pub mod cost;
pub mod diag;
pub mod lower;
pub mod machine;
pub mod model;
pub mod output;
pub mod plot;
pub mod report;
pub mod results;
pub mod run;
pub mod scenario;
pub mod units;
