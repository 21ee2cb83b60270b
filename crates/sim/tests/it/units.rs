//! Network units (`simulation.unit_size`): bad values are refused naming the key, and units
//! under the path and flow models are reported unused and left out; a unit of one packet
//! leaves every output as it was; results with units on do not depend on the thread count.

use crate::common::{load, run, scenario, small_quickstart, summary};
use bbsim_sim::output::Rendered;
use bbsim_sim::run::load_scenario;

/// Every output but `summary.json` (which echoes the scenario and the wall clock) and the
/// resolved scenario.
fn outputs(r: &Rendered) -> Vec<(&str, &[u8])> {
    r.files
        .iter()
        .filter(|(n, _)| !["summary.json", "scenario.resolved.toml"].contains(n))
        .map(|(n, b)| (*n, b.as_slice()))
        .collect()
}

#[test]
fn bad_unit_sizes_are_refused_naming_the_key() {
    let path = scenario("quickstart.toml");
    for (value, expected) in [
        ("\"2KiB\"", "whole number of packets"),
        ("\"6KiB\"", "whole number of packets"),
        ("\"1GiB\"", "64 MiB"),
        ("\"256MiB\"", "64 MiB"),
    ] {
        let set = format!("simulation.unit_size={value}");
        let d = match load_scenario(&path, &small_quickstart(&[&set])) {
            Ok(_) => panic!("{set} was accepted"),
            Err(d) => d,
        };
        assert_eq!(d.key.as_deref(), Some("simulation.unit_size"), "{d}");
        assert!(d.to_string().contains(expected), "{set}: {d}");
    }
    // The path and flow models move whole packets: units, their smallest part and their
    // spreading are reported unused there and left out, so a scenario that sets them for the
    // packet model runs with every model.
    let unit_keys = [
        ("simulation.unit_size", "\"64KiB\""),
        ("network.min_part", "\"16KiB\""),
        ("network.unit_spread", "false"),
    ];
    for model in ["path", "flow"] {
        let set = format!("network.model=\"{model}\"");
        let mut sets: Vec<String> = unit_keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        sets.push(set.clone());
        let sets: Vec<&str> = sets.iter().map(String::as_str).collect();
        let with = load(&path, &small_quickstart(&sets));
        let keys: Vec<Option<&str>> = with.unused.iter().map(|d| d.key.as_deref()).collect();
        assert_eq!(
            keys,
            unit_keys.iter().map(|(k, _)| Some(*k)).collect::<Vec<_>>(),
            "{model}: {:?}",
            with.unused
        );
        for d in &with.unused {
            assert!(
                d.to_string()
                    .contains(&format!("unused with network.model = \"{model}\"")),
                "{d}"
            );
        }
        let without = load(&path, &small_quickstart(&[&set]));
        assert_eq!(
            outputs(&run(&with, 1)),
            outputs(&run(&without, 1)),
            "{model}: units changed the outputs"
        );
    }
}

#[test]
fn a_unit_of_one_packet_leaves_the_outputs_as_they_were() {
    let path = scenario("quickstart.toml");
    let plain = run(&load(&path, &small_quickstart(&[])), 1);
    let one = run(
        &load(&path, &small_quickstart(&["simulation.unit_size=\"4KiB\""])),
        1,
    );
    let differ: Vec<&str> = outputs(&plain)
        .iter()
        .zip(outputs(&one))
        .filter(|(a, b)| **a != *b)
        .map(|(a, _)| a.0)
        .collect();
    assert!(differ.is_empty(), "outputs differ: {differ:?}");
    assert_eq!(outputs(&plain).len(), outputs(&one).len());
    // The summary differs only in its echo of the scenario (and the wall clock).
    let results = |r: &Rendered| {
        let mut v = summary(r);
        strip(&mut v);
        v
    };
    assert_eq!(results(&plain), results(&one));
}

/// Removes the scenario echo and the host's timings from a summary.
fn strip(v: &mut serde_json::Value) {
    if let Some(m) = v.as_object_mut() {
        m.retain(|k, _| {
            !(k == "scenario"
                || k == "results_digest"
                || k.contains("wall")
                || k.contains("elapsed")
                || k.contains("per_second"))
        });
        for x in m.values_mut() {
            strip(x);
        }
    }
}

#[test]
fn units_give_the_same_outputs_on_any_thread_count() {
    let path = scenario("quickstart.toml");
    let l = load(
        &path,
        &small_quickstart(&["simulation.unit_size=\"64KiB\""]),
    );
    let first = run(&l, 1);
    let plain = run(&load(&path, &small_quickstart(&[])), 1);
    assert_ne!(
        first.digest, plain.digest,
        "units change the model's results"
    );
    for threads in [2, 3, 4] {
        let r = run(&l, threads);
        assert_eq!(r.digest, first.digest, "digest on {threads} threads");
        assert!(
            outputs(&r) == outputs(&first),
            "outputs on {threads} threads"
        );
    }
}

/// `summary.json`'s `routes` block: (packets, mean hops, non-minimal share).
fn routes(r: &Rendered) -> (u64, f64, f64) {
    let s = summary(r);
    let x = &s["routes"];
    (
        x["packets"].as_u64().expect("routes.packets"),
        x["mean_hops"].as_f64().expect("routes.mean_hops"),
        x["nonminimal_share"]
            .as_f64()
            .expect("routes.nonminimal_share"),
    )
}

/// Job 0's routing per packet: (mean hops, non-minimal share).
fn job_packets(r: &Rendered) -> (f64, f64) {
    let s = summary(r);
    let j = &s["jobs"][0];
    (
        j["packet_hops"].as_f64().expect("jobs[0].packet_hops"),
        j["packet_nonminimal_share"]
            .as_f64()
            .expect("jobs[0].packet_nonminimal_share"),
    )
}

#[test]
fn routes_count_a_unit_as_the_packets_it_carries() {
    // Every minimal route between two terminals of a fat-tree has the same length, and a
    // message is the same packets whether they travel one by one or in units: so packets and
    // 64 KiB units deliver the same packets over the same mean hops, none non-minimal.
    // The same holds for the job's own packets.
    let path = scenario("quickstart.toml");
    let by_packet = run(&load(&path, &small_quickstart(&[])), 1);
    let by_unit = run(
        &load(
            &path,
            &small_quickstart(&["simulation.unit_size=\"64KiB\""]),
        ),
        1,
    );
    let (packets, units) = (routes(&by_packet), routes(&by_unit));
    assert!(packets.0 > 1000, "{packets:?}");
    assert!(packets.1 >= 1.0, "{packets:?}");
    assert_eq!(packets, units);
    assert_eq!(packets.2, 0.0);
    let job = job_packets(&by_packet);
    assert!(job.0 >= 1.0, "{job:?}");
    assert_eq!(job, job_packets(&by_unit));
    assert_eq!(job.1, 0.0);
}

#[test]
fn routes_give_the_share_of_packets_each_routing_sends_the_long_way() {
    // A few ranks writing to the Edison-like dragonfly's global BB servers, most of them in
    // other groups: minimal routing never leaves the minimal route, Valiant routing sends
    // every packet bound for another group through a random third one (longer routes),
    // and UGAL lies between.
    let path = scenario("edison-global.toml");
    let figures = |routing: &str| {
        let set = [
            "jobs.0.ranks=24".to_string(),
            "jobs.0.block_size=\"2MiB\"".to_string(),
            "jobs.0.transfer_size=\"1MiB\"".to_string(),
            format!("network.routing=\"{routing}\""),
        ];
        let r = run(&load(&path, &set), 1);
        // The job's storage messages are all the traffic here (nothing drains), so its
        // per-packet figures are the run's.
        let (packets, hops, share) = routes(&r);
        assert!(packets > 0);
        let job = job_packets(&r);
        assert!(
            (job.0 - hops).abs() < 1e-9,
            "{routing}: {job:?} against {hops}"
        );
        assert!(
            (job.1 - share).abs() < 1e-9,
            "{routing}: {job:?} against {share}"
        );
        (packets, hops, share)
    };
    let minimal = figures("minimal");
    let valiant = figures("valiant");
    let ugal = figures("ugal");
    assert_eq!(minimal.2, 0.0, "{minimal:?}");
    assert!(valiant.2 > 0.5, "{valiant:?}");
    assert!(
        valiant.1 > minimal.1 + 1.0,
        "{valiant:?} against {minimal:?}"
    );
    assert!(
        ugal.2 > 0.0 && ugal.2 < valiant.2,
        "{ugal:?} against {valiant:?}"
    );
    assert_eq!(minimal.0, valiant.0);
}
