//! `summary.json` says, per link class, why input-buffer heads waited for the class's output
//! ports: behind a busy port or for downstream credit.

use crate::common::{load, run, scenario, small_quickstart, summary};

/// Per link class: (class, heads behind a busy port, their wait s, heads behind credit, s).
fn waits(overrides: &[&str]) -> Vec<(String, u64, f64, u64, f64)> {
    let r = run(
        &load(&scenario("quickstart.toml"), &small_quickstart(overrides)),
        1,
    );
    let s = summary(&r);
    s["links"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| {
            (
                l["class"].as_str().expect("class").to_string(),
                l["heads_behind_busy_port"].as_u64().expect("count"),
                l["head_wait_busy_port_s"].as_f64().expect("seconds"),
                l["heads_behind_credit"].as_u64().expect("count"),
                l["head_wait_credit_s"].as_f64().expect("seconds"),
            )
        })
        .collect()
}

#[test]
fn the_packet_model_reports_head_waits_by_link_class_and_the_path_model_has_none() {
    // The quickstart's ranks write to burst-buffer servers at once: their packets queue at
    // the links toward the servers.
    let packets = waits(&[]);
    let (busy, credit): (u64, u64) = packets
        .iter()
        .map(|w| (w.1, w.3))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    assert!(busy + credit > 0, "{packets:?}");
    for (class, b, bs, c, cs) in &packets {
        // Waiting time with no head to wait would be a bookkeeping slip.
        assert!(*bs == 0.0 || *b > 0, "{class}: {b} heads, {bs} s");
        assert!(*cs == 0.0 || *c > 0, "{class}: {c} heads, {cs} s");
        assert!(*bs >= 0.0 && *cs >= 0.0);
    }
    // The path model has no input buffers, so no head ever waits in one.
    let path = waits(&["network.model=\"path\""]);
    assert!(!path.is_empty());
    assert!(
        path.iter()
            .all(|w| w.1 == 0 && w.3 == 0 && w.2 == 0.0 && w.4 == 0.0),
        "{path:?}"
    );
}
