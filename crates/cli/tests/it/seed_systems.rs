//! The scenarios built from the seed systems' published specifications describe those
//! systems: `bbsim validate` reports the machine and the jobs' volumes the specifications give
//! (Cori's DataWarp and Lustre, the Alva test bed, the PM953 test bed), so an edit that drifts
//! from them fails here.

use crate::common::run_ok;
use std::path::{Path, PathBuf};

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// `validate --json` of a scenario under `scenarios/`.
fn machine(file: &str) -> serde_json::Value {
    let f = scenarios().join(file);
    let out = run_ok(&["validate", f.to_str().expect("utf-8"), "--json"]);
    serde_json::from_slice(&out.stdout).expect("json")
}

/// The job lines of `validate`'s text report: (name, ranks, the rest of the line).
fn jobs(file: &str) -> Vec<(String, u64, String)> {
    let f = scenarios().join(file);
    let out = run_ok(&["validate", f.to_str().expect("utf-8")]);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let start = text.lines().position(|l| l.trim() == "jobs").expect("jobs");
    text.lines()
        .skip(start + 1)
        .map(|l| {
            let mut w = l.split_whitespace();
            let name = w.next().expect("name").to_string();
            let ranks = w.next().expect("ranks").parse().expect("rank count");
            (name, ranks, l.to_string())
        })
        .collect()
}

fn num(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// Cori (systems/cori.toml): 2,388 Haswell nodes; per DataWarp node two P3608 cards = 4 NVMe
/// devices, 2 x 3,000 MB/s write, 2 x 5,000 MB/s read, 6.4 TB; cscratch1 700 GB/s.
#[test]
fn cori_scenarios_have_the_sheet_machine() {
    for (file, bb_nodes) in [
        ("cori-cybershake.toml", 288.0),
        ("cori-chombo-visit.toml", 144.0),
        ("atlas-small-reads.toml", 144.0),
        ("cori-ior.toml", 140.0),
    ] {
        let m = machine(file);
        assert_eq!(num(&m, "compute_nodes"), 2388.0, "{file}");
        assert_eq!(num(&m, "bb_servers"), bb_nodes, "{file}");
        assert_eq!(num(&m, "bb_ssds"), 4.0 * bb_nodes, "{file}");
        assert_eq!(num(&m, "bb_write_bandwidth"), bb_nodes * 6e9, "{file}");
        assert_eq!(num(&m, "bb_read_bandwidth"), bb_nodes * 10e9, "{file}");
        assert_eq!(num(&m, "bb_capacity"), bb_nodes * 6.4e12, "{file}");
        assert_eq!(num(&m, "pfs_bandwidth"), 700e9, "{file}");
        assert_eq!(num(&m, "pfs_io_nodes"), 45.0, "{file}");
    }
}

/// CyberShake: SGT_generator on 313 nodes x 32 writes 2 x 275 GB; direct_synth on 64 nodes
/// x 32 reads them and writes 22 GB.
#[test]
fn cybershake_moves_the_sheet_volumes() {
    let j = jobs("cori-cybershake.toml");
    assert_eq!(j.len(), 2, "{j:?}");
    assert_eq!((j[0].0.as_str(), j[0].1), ("sgt-generator", 10016));
    assert!(j[0].2.contains("on 313 nodes") && j[0].2.contains("writes 550.000GB"));
    assert_eq!((j[1].0.as_str(), j[1].1), ("direct-synth", 2048));
    assert!(j[1].2.contains("on 64 nodes") && j[1].2.contains("writes 22.000GB"));
    assert!(j[1].2.contains("reads 550.000GB"), "{}", j[1].2);
}

/// IOR at installation: 1,120 nodes x 4 processes, 8 GiB blocks in 1 MiB transfers, file per
/// process, written and read back: 4,480 x 8,192 transfers each way.
#[test]
fn cori_ior_runs_the_sheet_benchmark() {
    let j = jobs("cori-ior.toml");
    assert_eq!(j.len(), 1, "{j:?}");
    assert_eq!((j[0].0.as_str(), j[0].1), ("ior", 4480));
    assert!(j[0].2.contains("on 1120 nodes"), "{}", j[0].2);
    assert!(
        j[0].2.contains("writes 38.483TB, reads 38.483TB"),
        "{}",
        j[0].2
    );
    assert!(j[0].2.contains("73400320 I/O operations"), "{}", j[0].2);
}

/// Alva: 14 nodes, one striped SSD pair of 0.9 GB/s each; the stated run: 24 writers, 61 GB.
#[test]
fn vpic_runs_on_the_alva_test_bed() {
    let m = machine("vpic-async-drain.toml");
    assert_eq!(num(&m, "compute_nodes"), 14.0);
    assert_eq!(num(&m, "bb_servers"), 1.0);
    assert_eq!(num(&m, "bb_ssds"), 2.0);
    assert_eq!(num(&m, "bb_write_bandwidth"), 1.8e9);
    let j = jobs("vpic-async-drain.toml");
    assert_eq!(j.len(), 1);
    assert_eq!(j[0].1, 24);
    assert!(j[0].2.contains("writes 61.000GB"), "{}", j[0].2);
}

/// The multi-stream experiments share one 480 GB SSD; the FIO files run 24 threads in all,
/// the Chombo and Nyx files 8 users of 3 workloads, the emulator 16 users on 4 nodes each.
#[test]
fn ssd_isolation_experiments_share_one_pm953() {
    let dir = scenarios().join("ssd-isolation");
    let mut files: Vec<String> = ["chombo", "nyx", "mixed", "trace-emulator"]
        .iter()
        .map(|f| format!("ssd-isolation/{f}.toml"))
        .collect();
    let mut fio: Vec<String> = std::fs::read_dir(dir.join("fio"))
        .expect("fio/")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .filter(|n| n.ends_with(".toml"))
        .map(|n| format!("ssd-isolation/fio/{n}"))
        .collect();
    fio.sort();
    assert_eq!(
        fio.len(),
        11,
        "3 allotments x 3 usages + 2 and 4 users: {fio:?}"
    );
    files.extend(fio.iter().cloned());
    for f in &files {
        let m = machine(f);
        assert_eq!(num(&m, "bb_ssds"), 1.0, "{f}");
        assert_eq!(num(&m, "bb_capacity"), 480e9, "{f}");
    }
    for f in &fio {
        let threads: u64 = jobs(f).iter().map(|j| j.1).sum();
        assert_eq!(threads, 24, "{f}");
    }
    for f in ["ssd-isolation/chombo.toml", "ssd-isolation/nyx.toml"] {
        let j = jobs(f);
        assert_eq!(j.len(), 8, "{f}");
        assert!(j.iter().all(|j| j.1 == 3), "{f}: {j:?}");
    }
    let e = jobs("ssd-isolation/trace-emulator.toml");
    assert_eq!(e.len(), 16);
    assert!(
        e.iter().all(|j| j.1 == 4 && j.2.contains("on 4 nodes")),
        "{e:?}"
    );
}
