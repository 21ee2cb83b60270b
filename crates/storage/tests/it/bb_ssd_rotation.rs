//! A BB server's files rotate over its SSDs: small files whose ids share a parity (what an
//! even-sized striped layout sends one server) still use every SSD, and bytes are conserved.

use crate::common::{bb_config, client, run, scenario, ssd_stats, target, writes};
use bbsim_engine::Simulation;
use bbsim_storage::standalone::{ClientSpec, Conservation, HarnessLp};
use bbsim_storage::units::KIB;

const UNIT: u64 = 128 * KIB;

/// Runs `clients` on one server of two SSDs: the simulation and each SSD's bytes written.
fn on_two_ssds(clients: Vec<ClientSpec>) -> (Simulation<HarnessLp>, Vec<u64>) {
    let bb = bb_config(2, 4, 2_000_000_000, 1_000_000_000, 0);
    let sim = run(&scenario(bb, 1, clients), 1);
    let per = ssd_stats(&sim, u64::MAX)
        .iter()
        .map(|d| d.host_bytes_written)
        .collect();
    (sim, per)
}

#[test]
fn small_files_of_one_parity_use_both_ssds() {
    // Eight one-unit files with even ids on one server of two SSDs.
    let clients = (0..8u64)
        .map(|k| client(writes(2 * k, 1, UNIT), 1, target(1, UNIT), 1))
        .collect();
    let (sim, per) = on_two_ssds(clients);
    assert_eq!(per, vec![4 * UNIT, 4 * UNIT]);
    let c = Conservation::of(&sim);
    assert!(c.holds(), "{c:?}");
    assert_eq!(c.written, 8 * UNIT);
    assert_eq!(c.in_bb, 8 * UNIT);
}

#[test]
fn a_two_unit_file_on_a_two_ssd_server_uses_both() {
    let (sim, per) = on_two_ssds(vec![client(writes(6, 2, UNIT), 1, target(1, UNIT), 1)]);
    assert_eq!(per, vec![UNIT, UNIT]);
    assert!(Conservation::of(&sim).holds());
}
