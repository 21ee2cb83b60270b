//! Invalid scenarios and overrides are refused by `load_scenario` with a diagnostic that names
//! the file, the line and the key.

use crate::common::{scenario, scratch, small_quickstart, Scratch};
use bbsim_sim::run::load_scenario;
use std::path::{Path, PathBuf};

/// The error `load_scenario` gives for `path` (it must fail).
fn refused(path: &Path, overrides: &[String]) -> bbsim_sim::diag::Diagnostic {
    match load_scenario(path, overrides) {
        Ok(_) => panic!("{} with {overrides:?} was accepted", path.display()),
        Err(d) => d,
    }
}

/// Writes the quickstart with its first `from` replaced by `to` as `NAME.toml` in a scratch
/// directory; returns the directory, the file and the 1-based line of the replacement.
fn quickstart_variant(name: &str, from: &str, to: &str) -> (Scratch, PathBuf, usize) {
    let text = std::fs::read_to_string(scenario("quickstart.toml")).expect("quickstart");
    let at = text
        .find(from)
        .unwrap_or_else(|| panic!("the quickstart has no `{from}`"));
    let line = 1 + text[..at].matches('\n').count();
    let dir = scratch(name);
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text.replacen(from, to, 1)).expect("write scenario");
    (dir, path, line)
}

#[test]
fn misspelt_key_names_file_line_and_key() {
    let (dir, path, line) = quickstart_variant("misspelt", "stripe_count = 4", "stripe_cont = 4");
    let d = refused(&path, &[]);
    assert_eq!(d.file, path.display().to_string());
    assert_eq!(d.line, Some(line), "{d}");
    let msg = d.to_string();
    assert!(
        msg.starts_with(&format!("{}:{line}:", path.display())),
        "{msg}"
    );
    assert!(msg.contains("unknown key `stripe_cont`"), "{msg}");
    assert!(msg.contains("did you mean `stripe_count`?"), "{msg}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_value_names_its_key_and_line() {
    let (dir, path, line) = quickstart_variant("wrong-type", "radix = 8", "radix = \"eight\"");
    let d = refused(&path, &[]);
    assert_eq!(d.line, Some(line), "{d}");
    assert_eq!(d.key.as_deref(), Some("network.radix"), "{d}");
    assert!(d.message.contains("invalid type"), "{d}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_override_names_the_set_argument() {
    let path = scenario("quickstart.toml");
    let d = refused(&path, &small_quickstart(&["burst_buffer.stripe_cont=2"]));
    assert!(d.file.starts_with("--set burst_buffer.stripe_cont"), "{d}");
    assert!(d.to_string().contains("stripe_cont"), "{d}");
    // A valid key with an unusable value is refused after parsing, still naming `--set`.
    let d = refused(&path, &small_quickstart(&["simulation.threads=0"]));
    assert_eq!(d.key.as_deref(), Some("simulation.threads"), "{d}");
    assert!(d.to_string().contains("--set simulation.threads=0"), "{d}");
}

/// `network.edge_switches` counts the fat-tree's edge switches holding compute nodes, `radix / 2`
/// each: it gives `nodes` when that is left out, is a check when both are set, and is refused
/// outside the tree or on another topology.
#[test]
fn edge_switches_give_or_check_the_node_count() {
    use bbsim_sim::run::load_scenario_edited;
    let path = scenario("quickstart.toml");
    // The quickstart: radix 8 (4 node ports per edge switch), 120 nodes on 30 edge switches.
    let nodes = |unset: &[&str], set: &[&str]| {
        let unset: Vec<String> = unset.iter().map(|s| s.to_string()).collect();
        load_scenario_edited(&path, &unset, &small_quickstart(set))
            .map(|l| l.design.machine.compute_nodes)
    };
    assert_eq!(nodes(&[], &["network.edge_switches=30"]).ok(), Some(120));
    assert_eq!(
        nodes(&["network.nodes"], &["network.edge_switches=25"]).ok(),
        Some(100),
        "without nodes, 25 edge switches of 4 node ports hold 100 nodes"
    );
    for (set, want) in [
        (
            "network.edge_switches=29",
            "edge_switches = 29, but nodes = 120 fill 30 edge switches of 4 node ports each",
        ),
        ("network.edge_switches=33", "expected 1 to 32"),
        ("network.edge_switches=0", "expected 1 to 32"),
    ] {
        let d = nodes(&[], &[set]).expect_err(set);
        assert_eq!(d.key.as_deref(), Some("network.edge_switches"), "{d}");
        assert!(d.message.contains(want), "{set}: {d}");
    }
    // A radix no fat-tree has is named as such, not as a count of edge switches.
    let d = nodes(&[], &["network.radix=3", "network.edge_switches=1"]).expect_err("radix 3");
    assert_eq!(d.key.as_deref(), Some("network.radix"), "{d}");
    let d = refused(
        &scenario("cori-ior.toml"),
        &["network.edge_switches=10".to_string()],
    );
    assert!(
        d.message
            .contains("`edge_switches` does not apply to topology = \"aries\""),
        "{d}"
    );
}
