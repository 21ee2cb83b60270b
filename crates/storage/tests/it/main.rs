//! Integration tests of the storage models, in one test binary; `common` holds the scenario
//! builders they share.

mod common;

mod bb_batching;
mod bb_ssd_rotation;
mod bb_system;
mod ftl_closed_forms;
mod ssd_array;
mod ssd_timing;
