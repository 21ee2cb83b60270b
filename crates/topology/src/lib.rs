//! bbsim topology crate (see docs/architecture.md).
