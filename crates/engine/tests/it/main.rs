//! Integration tests of the PDES engine, in one test binary.

mod determinism;
mod far_times;
