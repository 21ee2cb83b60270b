//! Integration tests of the PDES engine, in one test binary.

mod critical_path;
mod determinism;
mod far_times;
