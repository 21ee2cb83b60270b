//! Darshan logs turned into jobs: counter reconstruction conserves bytes and operation counts
//! per rank and file; DXT replay reproduces every segment and its timing.

use bbsim_workload::darshan::{parse_log, posix, stdio, DarshanLog};
use bbsim_workload::{
    dxt_timeline, job_from_log, reconstruct::reconstruct, replay_dxt, JobSpec, Layer,
    LogJobOptions, Op,
};
use std::collections::BTreeMap;
use std::path::Path;

fn logs() -> Vec<(String, DarshanLog)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    m["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let n = n.as_str().unwrap();
            let bytes = std::fs::read(dir.join(n)).unwrap();
            (n.to_string(), parse_log(&bytes, n).unwrap())
        })
        .collect()
}

/// (writes, bytes written, reads, bytes read) per (file name, rank) in a job.
type Tally = BTreeMap<(String, u32), (u64, u64, u64, u64)>;

fn tally(job: &JobSpec) -> Tally {
    let mut t = Tally::new();
    for (rank, ops) in job.ops.iter() {
        for op in ops {
            let Some(f) = op.file() else { continue };
            let name = job.files[f.0 as usize].name.clone();
            let e = t.entry((name, rank)).or_default();
            match op {
                Op::Write { size, .. } => {
                    e.0 += 1;
                    e.1 += size;
                }
                Op::Read { size, .. } => {
                    e.2 += 1;
                    e.3 += size;
                }
                _ => {}
            }
        }
    }
    t
}

fn file_name(log: &DarshanLog, id: u64) -> String {
    match log.names.get(&id) {
        Some(n) if !n.is_empty() => n.clone(),
        _ => format!("darshan-record-{id:016x}"),
    }
}

#[test]
fn counter_reconstruction_conserves_bytes_and_ops_per_rank_and_file() {
    let mut checked = 0;
    for (name, log) in logs() {
        if log.posix.is_empty() && log.stdio.is_empty() {
            continue;
        }
        let opts = LogJobOptions {
            layer: Some(Layer::Posix),
            ..Default::default()
        };
        let job = reconstruct(&log, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        job.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = tally(&job);
        // expected per (file, rank) for private records; per file for shared ones
        let mut want_private = Tally::new();
        let mut want_shared: BTreeMap<String, (u64, u64, u64, u64)> = BTreeMap::new();
        let mut add = |id: u64, rank: i64, w: i64, bw: i64, r: i64, br: i64| {
            let n = file_name(&log, id);
            let (w, bw, r, br) = (
                w.max(0) as u64,
                bw.max(0) as u64,
                r.max(0) as u64,
                br.max(0) as u64,
            );
            // bytes without operations become one operation
            let w = if w == 0 && bw > 0 { 1 } else { w };
            let r = if r == 0 && br > 0 { 1 } else { r };
            let e = if rank < 0 {
                want_shared.entry(n).or_default()
            } else {
                want_private.entry((n, rank as u32)).or_default()
            };
            e.0 += w;
            e.1 += bw;
            e.2 += r;
            e.3 += br;
        };
        for p in &log.posix {
            let c = &p.counters;
            add(
                p.id,
                p.rank,
                c[posix::WRITES],
                c[posix::BYTES_WRITTEN],
                c[posix::READS],
                c[posix::BYTES_READ],
            );
        }
        for s in &log.stdio {
            let c = &s.counters;
            add(
                s.id,
                s.rank,
                c[stdio::WRITES],
                c[stdio::BYTES_WRITTEN],
                c[stdio::READS],
                c[stdio::BYTES_READ],
            );
        }
        let mut per_file: BTreeMap<String, (u64, u64, u64, u64)> = BTreeMap::new();
        for ((f, rank), v) in &got {
            if want_shared.contains_key(f) {
                let e = per_file.entry(f.clone()).or_default();
                let p = want_private
                    .get(&(f.clone(), *rank))
                    .copied()
                    .unwrap_or_default();
                e.0 += v.0 - p.0;
                e.1 += v.1 - p.1;
                e.2 += v.2 - p.2;
                e.3 += v.3 - p.3;
            } else {
                let w = want_private
                    .get(&(f.clone(), *rank))
                    .copied()
                    .unwrap_or_default();
                assert_eq!(*v, w, "{name}: file {f} rank {rank}");
            }
        }
        for (key, w) in &want_private {
            if !want_shared.contains_key(&key.0) {
                assert_eq!(
                    got.get(key).copied().unwrap_or_default(),
                    *w,
                    "{name}: {key:?}"
                );
            }
        }
        for (f, w) in &want_shared {
            assert_eq!(
                per_file.get(f).copied().unwrap_or_default(),
                *w,
                "{name}: shared {f}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 12, "checked {checked} logs");
}

#[test]
fn shared_records_are_split_across_ranks() {
    let (_, log) = logs()
        .into_iter()
        .find(|(n, _)| n == "example.darshan")
        .unwrap();
    let shared = log.posix.iter().filter(|r| r.rank == -1).count();
    assert!(shared > 0);
    let job = reconstruct(&log, &LogJobOptions::default()).unwrap();
    assert_eq!(i64::from(job.ranks()), log.job.nprocs);
    let busy = (0..job.ranks())
        .filter(|&r| job.ops.rank(r).any(|o| o.is_data()))
        .count();
    assert!(busy > 1, "only {busy} ranks do I/O");
}

#[test]
fn dxt_replay_reproduces_every_segment_and_its_timing() {
    let mut checked = 0;
    for (name, log) in logs() {
        if !log.has_dxt() {
            continue;
        }
        for layer in [Layer::Posix, Layer::MpiIo] {
            let recs = if layer == Layer::Posix {
                &log.dxt_posix
            } else {
                &log.dxt_mpiio
            };
            if recs.is_empty() {
                continue;
            }
            let opts = LogJobOptions {
                layer: Some(layer),
                ..Default::default()
            };
            let job = replay_dxt(&log, &opts).unwrap();
            job.validate().unwrap();
            let tl = dxt_timeline(&log, Some(layer));
            // every segment, once, with its offset and length
            let segs: usize = recs.iter().map(|r| r.reads.len() + r.writes.len()).sum();
            let data_ops = job.ops.all_ops().filter(|o| o.is_data()).count();
            assert_eq!(data_ops, segs, "{name}");
            let t = job.totals();
            let bw: i64 = recs.iter().flat_map(|r| &r.writes).map(|s| s.length).sum();
            let br: i64 = recs.iter().flat_map(|r| &r.reads).map(|s| s.length).sum();
            assert_eq!(
                (t.bytes_written as i64, t.bytes_read as i64),
                (bw, br),
                "{name}"
            );
            // timing: run each rank with every I/O lasting exactly its traced duration: each
            // segment starts at its traced start, or when its predecessor ends if the two
            // overlap in the trace (blocking ops serialise them)
            let mut exact = 0usize;
            let mut overlapped = 0usize;
            for (rank, ops) in job.ops.iter() {
                let traced = &tl[rank as usize];
                let mut clock = 0u64;
                let mut k = 0usize;
                for op in ops {
                    match op {
                        Op::Compute { ps } => clock += ps,
                        Op::Write { .. } | Op::Read { .. } => {
                            let tr = traced[k];
                            assert_eq!(op, tr.op, "{name} rank {rank} op {k}");
                            assert_eq!(clock, tr.start_ps.max(clock), "{name} rank {rank} seg {k}");
                            if clock == tr.start_ps {
                                exact += 1;
                            } else {
                                overlapped += 1;
                            }
                            clock += tr.end_ps - tr.start_ps;
                            k += 1;
                        }
                        _ => {}
                    }
                }
                assert_eq!(k, traced.len());
            }
            println!(
                "{name} {layer:?}: {exact} of {segs} segments on time, {overlapped} overlapping"
            );
            assert_eq!(exact + overlapped, segs);
            assert!(
                exact * 100 >= segs * 99,
                "{name}: {exact} of {segs} on time"
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "checked {checked}");
}

#[test]
fn job_from_log_prefers_dxt() {
    for (name, log) in logs() {
        if log.posix.is_empty() && log.dxt_posix.is_empty() && log.stdio.is_empty() {
            continue;
        }
        let job = job_from_log(&log, &LogJobOptions::default()).unwrap();
        assert_eq!(
            job.name.contains("dxt"),
            log.has_dxt(),
            "{name}: {}",
            job.name
        );
        job.validate().unwrap();
    }
}
