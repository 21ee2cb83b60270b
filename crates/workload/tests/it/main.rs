//! Integration tests of the workload crate (the Darshan reader and jobs made from logs), in one
//! test binary; the logs and their reference decodings are in `tests/data/`.

mod darshan_errors;
mod darshan_reference;
mod log_jobs;
mod trace_values;
mod volume;
