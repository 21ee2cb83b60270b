//! Truncated, corrupt and non-Darshan inputs give clear errors (region, offset, expectation)
//! and never panic.

use bbsim_workload::darshan::{parse_log, read_log, DarshanError, Location};
use bbsim_workload::rng::Rng;
use std::path::Path;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

const SMALL: [&str; 6] = [
    "sample-dxt-simple.darshan",
    "derived-v341-dxt-multistream.darshan",
    "derived-v321-bigendian-dxt.darshan",
    "derived-v341-bigendian-bzip2-dxt.darshan",
    "derived-v310-bzip2-multistream-lustre.darshan",
    "noposixopens.darshan",
];

#[test]
fn every_truncation_is_an_error_naming_region_and_offset() {
    for name in SMALL {
        let full = fixture(name);
        for len in 0..full.len() {
            let e = parse_log(&full[..len], name).expect_err(&format!("{name} cut at {len}"));
            let DarshanError::Format {
                file,
                region,
                location,
                problem,
            } = &e
            else {
                panic!("{e}");
            };
            assert_eq!(file, name);
            assert!(!region.is_empty() && !problem.is_empty());
            if let Location::File(o) = location {
                assert!(*o <= full.len() as u64, "{e}");
            }
            let msg = e.to_string();
            assert!(msg.contains("offset"), "{msg}");
        }
    }
}

#[test]
fn corrupt_bytes_never_panic() {
    let mut rng = Rng::seed_from_u64(2024);
    for name in SMALL {
        let full = fixture(name);
        for _ in 0..300 {
            let mut d = full.clone();
            let flips = 1 + rng.below(8) as usize;
            for _ in 0..flips {
                let i = rng.below(d.len() as u64) as usize;
                d[i] ^= 1 << rng.below(8);
            }
            // Ok (a flipped counter is still a valid log) or Err, never a panic.
            let _ = parse_log(&d, name);
        }
        // header fields overwritten with extreme values
        for at in (16..360.min(full.len())).step_by(8) {
            let mut d = full.clone();
            d[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
            let _ = parse_log(&d, name);
        }
    }
}

#[test]
fn messages_say_what_was_expected() {
    let e = parse_log(b"PK\x03\x04 definitely a zip file, not a log", "x.zip").unwrap_err();
    let m = e.to_string();
    assert!(m.starts_with("x.zip: header: at file offset 0:"), "{m}");
    assert!(m.contains("not a Darshan log"), "{m}");

    let full = fixture("sample-dxt-simple.darshan");
    let e = parse_log(&full[..full.len() - 10], "cut.darshan").unwrap_err();
    let m = e.to_string();
    assert!(m.contains("truncated"), "{m}");
    assert_eq!(e.region(), Some("header"), "{m}");

    // corrupt the compressed POSIX region (its map is the second slot of a 3.21 header)
    let off = u64::from_le_bytes(full[56..64].try_into().unwrap()) as usize;
    let mut d = full.clone();
    for b in &mut d[off + 2..off + 40] {
        *b = 0x55;
    }
    let e = parse_log(&d, "bad.darshan").unwrap_err();
    assert_eq!(e.region(), Some("POSIX"), "{e}");
    assert!(e.to_string().contains("zlib"), "{e}");

    let e = read_log(Path::new("/nonexistent/log.darshan")).unwrap_err();
    assert!(matches!(e, DarshanError::Io { .. }));
    assert!(e.to_string().contains("/nonexistent/log.darshan"));
}

#[test]
fn unknown_module_versions_are_rejected_clearly() {
    let mut d = fixture("sample-dxt-simple.darshan");
    // 3.21 header: module versions at 296 + 4 * slot; POSIX is slot 1
    d[300..304].copy_from_slice(&9u32.to_le_bytes());
    let e = parse_log(&d, "v.darshan").unwrap_err();
    assert_eq!(e.region(), Some("POSIX"));
    assert!(
        e.to_string()
            .contains("expected module version 1 to 4, found 9"),
        "{e}"
    );
}

/// Inputs the fuzzer found crashing (`fuzz/artifacts/darshan_reader/`), kept as regressions.
#[test]
fn fuzz_regressions() {
    use bbsim_workload::{job_from_log, LogJobOptions, ReplayError};
    // 1. A DXT log whose job record claims ~1.6e11 processes: building the job allocated one
    //    vector per rank (out of memory). The fuzzer's input has a wrong zlib checksum (fuzz
    //    builds of miniz_oxide skip the check), so a normal build already rejects it ...
    let d = fixture("fuzz-crash-huge-nprocs.bin");
    let e = parse_log(&d, "fuzz").unwrap_err();
    assert_eq!(e.region(), Some("job record"));
    // ... and the same situation is rebuilt from the uncompressed 3.00 fixture, whose job
    //    record (nprocs at header 360 + 24) can be patched directly.
    let mut d = fixture("derived-v300-oldmodules-nocomp.darshan");
    d[384..392].copy_from_slice(&(170_000_000_000i64).to_le_bytes());
    let log = parse_log(&d, "patched").unwrap();
    assert_eq!(log.job.nprocs, 170_000_000_000);
    for opts in [
        LogJobOptions::default(),
        LogJobOptions {
            layer: Some(bbsim_workload::Layer::Posix),
            ..Default::default()
        },
    ] {
        match job_from_log(&log, &opts) {
            Err(ReplayError::TooManyRanks { .. }) => {}
            other => panic!("expected TooManyRanks, got {other:?}"),
        }
        match bbsim_workload::reconstruct::reconstruct(&log, &opts) {
            Err(ReplayError::TooManyRanks { .. }) => {}
            other => panic!("expected TooManyRanks, got {other:?}"),
        }
    }
    // 2. MPI-IO read counters near i64::MAX overflowed the per-record read sum of the
    //    summary (fuzz input `fuzz-crash-mpiio-sum-overflow.bin`, also zlib-checksum-broken;
    //    rebuilt here on the uncompressed fixture: MPI-IO is file slot 2, records of version 1
    //    are 544 bytes, INDEP_READS and COLL_READS are counters 2 and 4). Extreme job times
    //    must not overflow the text rendering either.
    for bin in [
        "fuzz-crash-huge-nprocs.bin",
        "fuzz-crash-mpiio-sum-overflow.bin",
    ] {
        if let Ok(log) = parse_log(&fixture(bin), bin) {
            let _ = bbsim_workload::darshan::LogSummary::from_log(&log, bin).render_text();
            let _ = job_from_log(&log, &LogJobOptions::default());
        }
    }
    let mut d = fixture("derived-v300-oldmodules-nocomp.darshan");
    let off = u64::from_le_bytes(d[72..80].try_into().unwrap()) as usize;
    for c in [2usize, 4, 3, 5] {
        let at = off + 16 + 8 * c;
        d[at..at + 8].copy_from_slice(&i64::MAX.to_le_bytes());
    }
    d[368..376].copy_from_slice(&i64::MIN.to_le_bytes()); // start time
    d[376..384].copy_from_slice(&i64::MAX.to_le_bytes()); // end time
    let log = parse_log(&d, "patched").unwrap();
    let s = bbsim_workload::darshan::LogSummary::from_log(&log, "patched");
    assert_eq!(s.modules["MPI-IO"].reads, Some(i64::MAX));
    assert!(s.render_text().contains("MPI-IO"));
    let _ = job_from_log(
        &log,
        &LogJobOptions {
            layer: Some(bbsim_workload::Layer::MpiIo),
            max_ops: 1000,
            ..Default::default()
        },
    );
}
