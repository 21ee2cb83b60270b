//! bbsim storage crate (see docs/architecture.md).
