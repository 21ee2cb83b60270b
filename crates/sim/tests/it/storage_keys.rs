//! The storage keys of `[pfs]`, `[burst_buffer]` and `[burst_buffer.ssd]` reach the models:
//! PFS stripe counts (scenario-wide and per job), DataWarp grains, SSD presets and
//! multi-device cards; and each bad value is refused naming its key.

use crate::common::{load, scenario, small_quickstart};
use bbsim_sim::run::{load_scenario, load_scenario_edited};

fn quickstart(extra: &[&str]) -> bbsim_sim::run::Loaded {
    load(&scenario("quickstart.toml"), &small_quickstart(extra))
}

/// The key and message of the diagnostic the quickstart with `extra` is refused with.
fn refused(extra: &[&str]) -> (String, String) {
    match load_scenario(&scenario("quickstart.toml"), &small_quickstart(extra)) {
        Ok(_) => panic!("{extra:?} was accepted"),
        Err(d) => (d.key.clone().unwrap_or_default(), d.message.clone()),
    }
}

#[test]
fn pfs_stripe_count_defaults_to_every_server_and_can_be_set() {
    let l = quickstart(&[]);
    assert_eq!(l.design.machine.pfs.stripe_count, 8);
    assert!(l.design.machine.pfs.file_stripe_counts.is_empty());
    let l = quickstart(&["pfs.stripe_count=1", "jobs.1.pfs_stripe_count=4"]);
    let pfs = &l.design.machine.pfs;
    assert_eq!(pfs.stripe_count, 1);
    // The checkpoint job's files are numbered after the IOR job's.
    let ior_files = l.design.workload.jobs[0].files.len() as u64;
    let ckpt_files = l.design.workload.jobs[1].files.len() as u64;
    assert_eq!(
        pfs.file_stripe_counts,
        vec![(ior_files, ior_files + ckpt_files, 4)]
    );
    assert_eq!(pfs.stripe_count_of(0), 1);
    assert_eq!(pfs.stripe_count_of(ior_files), 4);
}

#[test]
fn bad_pfs_stripe_counts_name_their_key() {
    let (key, msg) = refused(&["pfs.stripe_count=9"]);
    assert_eq!(key, "pfs.stripe_count");
    assert!(
        msg.contains("must not exceed the number of servers (8)"),
        "{msg}"
    );
    assert_eq!(refused(&["pfs.stripe_count=0"]).0, "pfs.stripe_count");
    let (key, msg) = refused(&["jobs.1.pfs_stripe_count=9"]);
    assert_eq!(key, "jobs[1].pfs_stripe_count");
    assert!(msg.contains("pfs.servers = 8"), "{msg}");
}

#[test]
fn a_grain_reservation_spans_ceil_capacity_over_grain_servers() {
    // 30 BB servers under the quickstart's edge switches; 50 GB in 20 GB grains: 3 servers.
    let l = quickstart(&["burst_buffer.grain=20GB", "jobs.0.bb_capacity=50GB"]);
    let a = l.design.jobs.job_dw[0]
        .as_ref()
        .expect("a DataWarp allocation");
    assert_eq!(a.servers.len(), 3);
    assert_eq!(a.granted, 60_000_000_000);
    assert!(l.design.jobs.job_dw[1].is_none());
    let (key, msg) = refused(&["burst_buffer.grain=0B", "jobs.0.bb_capacity=50GB"]);
    assert_eq!(key, "burst_buffer.grain");
    assert!(msg.contains("must be > 0"), "{msg}");
}

#[test]
fn the_p3608_preset_gives_two_devices_per_card() {
    // Without the quickstart's own SSD keys, the preset's card: 2 cards per server become 4
    // devices of 1.6 TB, 1.5 GB/s write, 2.5 GB/s read, 20 us per operation.
    let set = small_quickstart(&["burst_buffer.ssd.model=intel-p3608"]);
    let l = load_scenario_edited(
        &scenario("quickstart.toml"),
        &["burst_buffer.ssd".to_string()],
        &set,
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let bb = l.design.machine.bb_server.as_ref().unwrap();
    assert_eq!(bb.ssds, 4);
    assert_eq!(bb.ssd.capacity, 1_600_000_000_000);
    assert_eq!(bb.ssd.write_bandwidth, 1_500_000_000);
    assert_eq!(bb.ssd.read_bandwidth, 2_500_000_000);
    assert_eq!(bb.ssd.op_overhead, 20_000_000);
    assert_eq!(bb.ssd.channels, 8);
    // Keys the scenario sets win over the preset, and are the card's: the quickstart's
    // 1.6 TB, 1.4 GB/s card is two devices of 0.8 TB, 0.7 GB/s.
    let l = quickstart(&["burst_buffer.ssd.model=intel-p3608"]);
    let bb = l.design.machine.bb_server.as_ref().unwrap();
    assert_eq!(bb.ssds, 4);
    assert_eq!(bb.ssd.capacity, 800_000_000_000);
    assert_eq!(bb.ssd.write_bandwidth, 700_000_000);
    // The scenario is echoed as written.
    assert_eq!(l.written.burst_buffer.ssds_per_server, 2);
    // The FTL geometry comes from the preset too (used when the FTL is enabled).
    let l = quickstart(&[
        "burst_buffer.ssd.model=intel-p3608",
        "burst_buffer.ftl.enabled=true",
        "burst_buffer.ssd.capacity=2GB",
    ]);
    let ftl = l
        .design
        .machine
        .bb_server
        .as_ref()
        .unwrap()
        .ssd
        .ftl
        .clone()
        .unwrap();
    assert_eq!((ftl.page_size, ftl.pages_per_block), (16 << 10, 256));
    assert_eq!(ftl.spare_factor, 0.272);
}

#[test]
fn bad_ssd_model_and_card_keys_name_their_key() {
    let (key, msg) = refused(&["burst_buffer.ssd.model=intel-p9999"]);
    assert_eq!(key, "burst_buffer.ssd.model");
    assert!(msg.contains("expected one of `intel-p3608`"), "{msg}");
    let (key, _) = refused(&["burst_buffer.ssd.devices_per_card=0"]);
    assert_eq!(key, "burst_buffer.ssd.devices_per_card");
}
