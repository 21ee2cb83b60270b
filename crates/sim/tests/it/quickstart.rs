//! The quickstart scenario through the library: it loads with its machine and jobs, runs, and
//! renders the same outputs for any thread count; `--set` overrides change the result.

use crate::common::{file, load, run, run_on, scenario, small_quickstart, summary, switching};
use bbsim_engine::Threads;

#[test]
fn quickstart_loads_with_its_machine_and_jobs() {
    let loaded = load(&scenario("quickstart.toml"), &[]);
    assert_eq!(loaded.job_names(), ["ior", "checkpoint"]);
    let m = loaded.machine_summary();
    // 8-port switches in three levels: 120 compute nodes on 30 of the 32 edge switches, one
    // BB server under each of those 30.
    assert_eq!(m.compute_nodes, 120);
    assert_eq!(m.placement, "grouped");
    assert_eq!(m.bb_servers, 30);
    assert_eq!(m.bb_ssds, 60);
}

#[test]
fn quickstart_outputs_are_identical_for_one_to_four_threads() {
    let loaded = load(&scenario("quickstart.toml"), &small_quickstart(&[]));
    let reference = run(&loaded, 1);
    let names: Vec<&str> = reference.files.iter().map(|(n, _)| *n).collect();
    for f in ["timeline.csv", "ranks.csv", "summary.json"] {
        assert!(names.contains(&f), "{f} missing from {names:?}");
    }
    let without_run = |r: &bbsim_sim::output::Rendered| {
        let mut s = summary(r);
        s.as_object_mut()
            .expect("summary is an object")
            .remove("run");
        s
    };
    let ref_summary = without_run(&reference);
    // 2-4 threads; `auto`; the adaptive executor switching between one thread and several
    // every 16 and every 41 windows: 1,600 and 630 switches in this run of 26,000 windows.
    // Switching at every window is the engine's own test, on PHOLD; here it would start
    // threads 13,000 times, which on a machine whose cores are taken costs minutes.
    let runs = (2..=4)
        .map(|t| (format!("{t} threads"), run(&loaded, t), Some(t)))
        .chain([
            ("auto".to_string(), run(&loaded, Threads::Auto), None),
            (
                "switching every 16 windows".into(),
                run_on(&loaded, &switching(2, 16)),
                None,
            ),
            (
                "switching every 41 windows".into(),
                run_on(&loaded, &switching(3, 41)),
                None,
            ),
        ]);
    for (threads, r, count) in runs {
        if let Some(t) = count {
            assert_eq!(summary(&r)["run"]["threads"], t);
        }
        assert_eq!(r.digest, reference.digest, "digest at {threads} threads");
        assert_eq!(
            r.files.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            names,
            "the files written at {threads} threads"
        );
        for &name in names.iter().filter(|&&n| n != "summary.json") {
            assert!(
                file(&r, name) == file(&reference, name),
                "{name} differs between 1 and {threads} threads"
            );
        }
        // summary.json differs only in its `run` block (wall time, threads).
        assert_eq!(without_run(&r), ref_summary, "summary at {threads} threads");
    }
}

#[test]
fn set_override_changes_the_result() {
    let path = scenario("quickstart.toml");
    let base = run(&load(&path, &small_quickstart(&[])), 1);
    let slow = run(
        &load(
            &path,
            &small_quickstart(&["burst_buffer.ssd.write_bandwidth=350MB/s"]),
        ),
        1,
    );
    assert_ne!(base.digest, slow.digest);
    let (b, s) = (summary(&base), summary(&slow));
    // The override is echoed in the scenario block.
    assert_eq!(
        s["scenario"]["burst_buffer"]["ssd"]["write_bandwidth"], "350MB/s",
        "{}",
        s["scenario"]["burst_buffer"]["ssd"]
    );
    for j in 0..2 {
        let (bj, sj) = (&b["jobs"][j], &s["jobs"][j]);
        assert_eq!(bj["bytes_written"], sj["bytes_written"], "{}", bj["name"]);
        let (tb, ts) = (
            bj["time_in_io_max_s"].as_f64().expect("time in I/O"),
            sj["time_in_io_max_s"].as_f64().expect("time in I/O"),
        );
        assert!(
            ts > tb,
            "{}: a quarter of the SSD write bandwidth gives {ts} s in I/O, not more than {tb} s",
            bj["name"]
        );
    }
}

#[test]
fn global_servers_default_to_the_free_routers() {
    use bbsim_sim::run::load_scenario;
    let q = scenario("quickstart.toml");
    // 2 free edge switches of 4 ports: 8 global servers.
    let l = load(&q, &["burst_buffer.placement=global".to_string()]);
    assert_eq!(l.machine_summary().bb_servers, 8);
    // Every switch busy: no room, and the message says what to change.
    let e = load_scenario(
        &q,
        &[
            "burst_buffer.placement=global".to_string(),
            "network.nodes=128".to_string(),
        ],
    )
    .err()
    .expect("no free router");
    assert_eq!(e.key.as_deref(), Some("burst_buffer.servers"), "{e}");
    assert!(e.message.contains("lower network.nodes"), "{e}");
}

#[test]
fn router_clusters_give_the_same_outputs_on_one_to_four_threads() {
    // Each router with its hosts a cluster: sends are checked at router boundaries and
    // the asynchronous executor may spread a pod over threads; results stay the default's
    // (all but the scenario's echo, which names the setting, and the run's own figures), and
    // so does the digest.
    let default = run(
        &load(&scenario("quickstart.toml"), &small_quickstart(&[])),
        1,
    );
    let routers = load(
        &scenario("quickstart.toml"),
        &small_quickstart(&["simulation.partition=routers"]),
    );
    let reference = run(&routers, 1);
    let results = |r: &bbsim_sim::output::Rendered| {
        let mut s = summary(r);
        let o = s.as_object_mut().expect("summary is an object");
        o.remove("run");
        o.remove("scenario");
        // The digest covers the resolved scenario too.
        o.remove("results_digest");
        let files: Vec<(String, Vec<u8>)> = r
            .files
            .iter()
            .filter(|(n, _)| !matches!(*n, "summary.json" | "scenario.resolved.toml"))
            .map(|(n, b)| (n.to_string(), b.to_vec()))
            .collect();
        (s, files)
    };
    assert!(
        results(&reference) == results(&default),
        "routers change results"
    );
    // The digest reads the executor's settings at their defaults.
    assert_eq!(reference.digest, default.digest, "digest with routers");
    let digest_with = |key: &str| {
        let loaded = load(&scenario("quickstart.toml"), &small_quickstart(&[key]));
        run(&loaded, 1).digest
    };
    assert_eq!(
        digest_with("simulation.threads=3"),
        default.digest,
        "digest with simulation.threads = 3"
    );
    // A key that changes results changes it.
    assert_ne!(
        digest_with("simulation.seed=2"),
        default.digest,
        "digest with another seed"
    );
    for t in 2..=4 {
        let r = run(&routers, t);
        assert_eq!(r.digest, reference.digest, "digest at {t} threads");
        assert!(
            summary(&r)["run"]["clusters"].as_u64() > Some(60),
            "router clusters"
        );
    }
}
