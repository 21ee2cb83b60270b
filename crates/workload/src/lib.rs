//! bbsim workload crate (see docs/architecture.md).
