//! Integration tests of the `bbsim-sim` library API: load a scenario with `--set` overrides,
//! run it, render its outputs; no `bbsim` binary involved.

mod capacity;
mod collective_io;
mod common;
mod compose;
mod diagnostics;
mod fs_clients;
mod head_waits;
mod key_reference;
mod pfs_metadata;
mod properties;
mod quickstart;
mod shared_files;
mod storage_keys;
mod units;
