//! Every committed Darshan fixture, decoded natively, against the values pydarshan's
//! libdarshan-util read from it (`tests/data/*.darshan.json`, made by `make_reference.py`).

use bbsim_workload::darshan::{parse_log, DarshanLog, LogSummary};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn manifest() -> Vec<String> {
    let text = std::fs::read_to_string(data_dir().join("manifest.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn load(name: &str) -> (DarshanLog, Value) {
    let dir = data_dir();
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let log = parse_log(&bytes, name).unwrap_or_else(|e| panic!("{e}"));
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    (log, r)
}

fn i(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// darshan-util's POSIX up-conversion moves the record tail with the old record length and
/// so zeroes the last fcounters of older records (v3: the two variance counters; v1/v2: also
/// the fastest/slowest rank times). This reader keeps the values stored in the log, so those
/// fcounters are not compared.
fn skipped_fcounters(module: &str, version: i64) -> std::ops::Range<usize> {
    match (module, version) {
        ("POSIX", 3) => 15..17,
        ("POSIX", 1 | 2) => 13..17,
        _ => 0..0,
    }
}

fn check_counters<const C: usize, const F: usize>(
    ctx: &str,
    recs: &[bbsim_workload::darshan::CounterRecord<C, F>],
    r: &Value,
    first: &Value,
    skip: std::ops::Range<usize>,
) {
    assert_eq!(recs.len() as i64, i(&r["records"]), "{ctx}: records");
    let sums: Vec<i64> = (0..C)
        .map(|k| recs.iter().fold(0i64, |a, x| a.wrapping_add(x.counters[k])))
        .collect();
    let want: Vec<i64> = r["counter_sums"]
        .as_array()
        .unwrap()
        .iter()
        .map(i)
        .collect();
    assert_eq!(sums, want, "{ctx}: per-counter sums");
    for (k, w) in r["fcounter_sums"].as_array().unwrap().iter().enumerate() {
        if skip.contains(&k) {
            continue;
        }
        let got: f64 = recs.iter().map(|x| x.fcounters[k]).sum();
        assert!(
            close(got, w.as_f64().unwrap()),
            "{ctx}: fcounter {k} sum {got} vs {w}"
        );
    }
    for (n, fr) in first.as_array().unwrap().iter().enumerate() {
        let rec = &recs[n];
        assert_eq!(rec.id.to_string(), fr["id"].as_str().unwrap(), "{ctx}: id");
        assert_eq!(rec.rank, i(&fr["rank"]), "{ctx}: rank");
        let c: Vec<i64> = fr["counters"].as_array().unwrap().iter().map(i).collect();
        assert_eq!(rec.counters.to_vec(), c, "{ctx}: record {n} counters");
        for (k, f) in fr["fcounters"].as_array().unwrap().iter().enumerate() {
            if skip.contains(&k) {
                continue;
            }
            assert_eq!(
                rec.fcounters[k].to_bits(),
                f.as_f64().unwrap().to_bits(),
                "{ctx}: record {n} fcounter {k}"
            );
        }
    }
}

fn check_log(name: &str) {
    let (log, r) = load(name);
    let s = LogSummary::from_log(&log, name);
    let js: Value = serde_json::to_value(&s).unwrap();
    assert_eq!(js["darshan_version"], r["darshan_version"], "{name}");
    for k in [
        "nprocs",
        "start_time",
        "start_time_nsec",
        "end_time",
        "end_time_nsec",
        "jobid",
        "uid",
        "name_records",
    ] {
        assert_eq!(i(&js[k]), i(&r[k]), "{name}: {k}");
    }
    assert_eq!(js["exe"], r["exe"], "{name}: exe");
    for (id, n) in r["names_sample"].as_object().unwrap() {
        assert_eq!(
            log.name(id.parse().unwrap()),
            n.as_str().unwrap(),
            "{name}: name {id}"
        );
    }
    // modules: same set, versions, partial flags, totals
    let want_mods: Vec<&String> = r["modules"].as_object().unwrap().keys().collect();
    let got_mods: Vec<&String> = js["modules"].as_object().unwrap().keys().collect();
    assert_eq!(got_mods, want_mods, "{name}: modules");
    for (m, wm) in r["modules"].as_object().unwrap() {
        let gm = &js["modules"][m];
        assert_eq!(gm["version"], wm["version"], "{name}: {m} version");
        assert_eq!(gm["partial"], wm["partial"], "{name}: {m} partial");
        if wm.get("records").is_some() {
            for k in ["records", "bytes_read", "bytes_written"] {
                assert_eq!(i(&gm[k]), i(&wm[k]), "{name}: {m} {k}");
            }
            if wm.get("reads").is_some() {
                assert_eq!(i(&gm["reads"]), i(&wm["reads"]), "{name}: {m} reads");
                assert_eq!(i(&gm["writes"]), i(&wm["writes"]), "{name}: {m} writes");
            }
        }
        let first = &r["first_records"][m];
        let ctx = format!("{name}: {m}");
        let skip = skipped_fcounters(m, i(&wm["version"]));
        match m.as_str() {
            "POSIX" => check_counters(&ctx, &log.posix, wm, first, skip),
            "MPI-IO" => check_counters(&ctx, &log.mpiio, wm, first, skip),
            "STDIO" => check_counters(&ctx, &log.stdio, wm, first, skip),
            _ => {}
        }
    }
    // ranks
    let want_ranks: BTreeMap<String, Value> = serde_json::from_value(r["ranks"].clone()).unwrap();
    let got_ranks: BTreeMap<String, Value> = serde_json::from_value(js["ranks"].clone()).unwrap();
    assert_eq!(got_ranks, want_ranks, "{name}: ranks");
    // dxt
    let want_dxt = r["dxt"].as_object().unwrap();
    if want_dxt.is_empty() {
        assert!(js.get("dxt").is_none(), "{name}: unexpected dxt");
    }
    for (m, wd) in want_dxt {
        let gd = &js["dxt"][m];
        for k in [
            "records",
            "read_segments",
            "write_segments",
            "bytes_read",
            "bytes_written",
        ] {
            assert_eq!(i(&gd[k]), i(&wd[k]), "{name}: {m} {k}");
        }
        let recs = if m == "DXT_POSIX" {
            &log.dxt_posix
        } else {
            &log.dxt_mpiio
        };
        let segs: Vec<_> = recs
            .iter()
            .flat_map(|r| r.writes.iter().chain(&r.reads))
            .collect();
        let dg = &wd["segment_digest"];
        let off: i128 = segs.iter().map(|s| i128::from(s.offset)).sum();
        assert_eq!(off, i128::from(i(&dg["offset_sum"])), "{name}: {m} offsets");
        let st: f64 = segs.iter().map(|s| s.start).sum();
        let en: f64 = segs.iter().map(|s| s.end).sum();
        assert!(close(st, dg["start_time_sum"].as_f64().unwrap()), "{name}");
        assert!(close(en, dg["end_time_sum"].as_f64().unwrap()), "{name}");
        if let Some(trace) = wd.get("trace") {
            let trace = trace.as_array().unwrap();
            assert_eq!(trace.len(), recs.len());
            for (t, rec) in trace.iter().zip(recs) {
                assert_eq!(rec.id.to_string(), t["id"].as_str().unwrap());
                assert_eq!(rec.rank, i(&t["rank"]));
                assert_eq!(rec.hostname, t["hostname"].as_str().unwrap());
                for (kind, segs) in [("writes", &rec.writes), ("reads", &rec.reads)] {
                    let want = t[kind].as_array().unwrap();
                    assert_eq!(want.len(), segs.len(), "{name}: {kind}");
                    for (w, s) in want.iter().zip(segs.iter()) {
                        assert_eq!(s.offset, i(&w[0]));
                        assert_eq!(s.length, i(&w[1]));
                        assert_eq!(s.start.to_bits(), w[2].as_f64().unwrap().to_bits());
                        assert_eq!(s.end.to_bits(), w[3].as_f64().unwrap().to_bits());
                    }
                }
            }
        }
    }
}

#[test]
fn every_committed_log_matches_pydarshan() {
    let logs = manifest();
    assert!(logs.len() >= 15, "manifest lists {} logs", logs.len());
    for name in &logs {
        check_log(name);
    }
}

#[test]
fn fixtures_cover_the_format_space() {
    let mut versions = BTreeMap::new();
    let mut seen = (false, false, false, false, false);
    for name in manifest() {
        let (log, _) = load(&name);
        *versions.entry(log.version.clone()).or_insert(0) += 1;
        use bbsim_workload::darshan::{ByteOrder, Compression};
        seen.0 |= log.byte_order == ByteOrder::Big;
        seen.1 |= log.compression == Compression::Bzip2;
        seen.2 |= log.compression == Compression::None;
        seen.3 |= log.modules.iter().any(|m| m.partial);
        seen.4 |= log.modules.iter().any(|m| !m.parsed);
    }
    for v in ["3.00", "3.10", "3.21", "3.41"] {
        assert!(
            versions.contains_key(v),
            "no fixture of version {v}: {versions:?}"
        );
    }
    assert_eq!(seen, (true, true, true, true, true));
}

/// Sample logs of a pip-installed `darshan` package, if one is found: each must decode and
/// be byte-identical to a committed fixture (whose values the test above checks).
#[test]
fn installed_pydarshan_samples_are_all_committed() {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Ok(d) = std::env::var("PYDARSHAN_DIR") {
        roots.push(PathBuf::from(d));
    }
    let mut candidates = vec![PathBuf::from("/usr/lib"), PathBuf::from("/usr/local/lib")];
    if let Ok(home) = std::env::var("HOME") {
        let pyenv = Path::new(&home).join(".pyenv/versions");
        if let Ok(rd) = std::fs::read_dir(&pyenv) {
            candidates.extend(rd.flatten().map(|e| e.path().join("lib")));
        }
    }
    for lib in candidates {
        if let Ok(rd) = std::fs::read_dir(&lib) {
            for e in rd.flatten() {
                for sub in ["site-packages/darshan", "dist-packages/darshan"] {
                    let p = e.path().join(sub);
                    if p.is_dir() {
                        roots.push(p);
                    }
                }
            }
        }
    }
    if roots.is_empty() {
        println!("note: no pip-installed `darshan` package found (set PYDARSHAN_DIR); skipped");
        return;
    }
    let committed: Vec<Vec<u8>> = manifest()
        .iter()
        .map(|n| std::fs::read(data_dir().join(n)).unwrap())
        .collect();
    let mut found = 0;
    let mut stack = roots;
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "darshan") {
                found += 1;
                let bytes = std::fs::read(&p).unwrap();
                parse_log(&bytes, &p.display().to_string()).unwrap();
                assert!(
                    committed.contains(&bytes),
                    "{} is not among the committed fixtures",
                    p.display()
                );
            }
        }
    }
    println!("checked {found} installed pydarshan sample logs");
}
