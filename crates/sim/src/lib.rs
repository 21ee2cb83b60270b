//! bbsim sim crate (see docs/architecture.md).
