//! End-to-end tests of the `bbsim` binary and the scripts around it, in one test binary: each
//! module runs `bbsim` (`CARGO_BIN_EXE_bbsim`) on the fixtures in `tests/data/` or on the
//! scenarios in `scenarios/`.

mod common;

mod allocation;
mod bad_input;
mod capacity;
mod cli;
mod heartbeat;
mod output_dir;
mod packaging;
mod paired_run;
mod phases;
#[cfg(unix)]
mod pipes;
mod placements;
mod plot;
mod seed_systems;
mod size;
mod slurm;
mod study;
mod sweep_resume;
mod sweep_tables;
mod thread_curve;
mod trains;
mod workflows;
