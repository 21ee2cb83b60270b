//! Shared helpers for the criterion benchmarks in this folder.
