//! Lowering: turns a parsed scenario into the model crates' vocabulary. This is the one place
//! that knows both the scenario's keys and the model crates' types; it validates what it lowers,
//! reporting errors against the scenario keys, and builds no LPs.

pub mod workload;
