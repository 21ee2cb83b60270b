//! Composing a scenario: `include`, `--unset`, and keys the chosen placement does not read.

use crate::common::{scenario, scratch, small_quickstart, Scratch};
use bbsim_sim::run::{load_scenario, load_scenario_edited};
use std::path::Path;

/// Writes `files` (name, text) into a scratch directory; returns the directory.
fn write_files(name: &str, files: &[(&str, &str)]) -> Scratch {
    let dir = scratch(name);
    for (f, text) in files {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
    }
    dir
}

/// A small machine and job, for the include tests.
const BASE: &str = r#"
name = "base"

[network]
topology = "fat-tree"
levels = 3
radix = 8

[burst_buffer]
placement = "grouped"
stripe_count = 2
stripe_size = "64KiB"

[burst_buffer.ssd]
capacity = "1TB"
write_bandwidth = "1GB/s"

[[jobs]]
name = "base-job"
source = "ior"
ranks = 8
block_size = "1MiB"
transfer_size = "1MiB"
"#;

fn text(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn includes_merge_in_order_and_the_including_file_wins() {
    let dir = write_files(
        "include-merge",
        &[
            ("sys/base.toml", BASE),
            (
                "sys/fast.toml",
                "include = \"base.toml\"\nname = \"fast\"\n[burst_buffer.ssd]\nwrite_bandwidth = \"2GB/s\"\nread_bandwidth = \"3GB/s\"\n",
            ),
            ("stripe.toml", "[burst_buffer]\nstripe_count = 3\nstripe_size = \"256KiB\"\n"),
            (
                "top.toml",
                "include = [\"sys/fast.toml\", \"stripe.toml\"]\nname = \"top\"\n[burst_buffer]\nstripe_count = 4\n[[jobs]]\nname = \"mine\"\nsource = \"ior\"\nranks = 4\nblock_size = \"1MiB\"\ntransfer_size = \"1MiB\"\n",
            ),
        ],
    );
    let l = load_scenario(&dir.join("top.toml"), &[]).expect("composed scenario loads");
    let s = &l.scenario;
    assert_eq!(s.name, "top");
    // Nested include: base through fast; fast's bandwidth over base's.
    assert_eq!(s.network.radix, Some(8));
    assert_eq!(s.burst_buffer.ssd.write_bandwidth.0, 2_000_000_000);
    assert_eq!(s.burst_buffer.ssd.read_bandwidth.0, 3_000_000_000);
    assert_eq!(s.burst_buffer.ssd.capacity.0, 1_000_000_000_000);
    // Later include over earlier, the including file over both; tables merge key by key.
    assert_eq!(s.burst_buffer.stripe_count, 4);
    assert_eq!(s.burst_buffer.stripe_size.0, 256 * 1024);
    // An array of tables is replaced as a whole.
    assert_eq!(l.job_names(), ["mine"]);
    // --set and --unset apply after the includes.
    let l = load_scenario_edited(
        &dir.join("top.toml"),
        &["burst_buffer.stripe_size".into()],
        &["burst_buffer.stripe_count=1".into()],
    )
    .expect("edited");
    assert_eq!(l.scenario.burst_buffer.stripe_count, 1);
    assert_eq!(l.scenario.burst_buffer.stripe_size.0, 128 * 1024, "default");
}

#[test]
fn an_include_cycle_names_the_chain() {
    let dir = write_files(
        "include-cycle",
        &[
            ("a.toml", "include = \"b.toml\"\n"),
            ("b.toml", "include = [\"c.toml\"]\n"),
            ("c.toml", "name = \"c\"\ninclude = \"a.toml\"\n"),
        ],
    );
    let a = dir.join("a.toml");
    let e = load_scenario(&a, &[]).err().expect("a cycle is refused");
    let msg = e.to_string();
    let d = text(&dir);
    assert!(
        msg.contains(&format!(
            "include cycle: {d}/a.toml -> {d}/b.toml -> {d}/c.toml -> {d}/a.toml"
        )),
        "{msg}"
    );
    assert!(msg.starts_with(&format!("{d}/c.toml:2:")), "{msg}");
}

#[test]
fn a_missing_include_names_the_including_file_and_key() {
    let dir = write_files(
        "include-missing",
        &[
            (
                "top.toml",
                "name = \"x\"\ninclude = [\"there.toml\", \"gone.toml\"]\n",
            ),
            ("there.toml", ""),
        ],
    );
    let e = load_scenario(&dir.join("top.toml"), &[])
        .err()
        .expect("missing file");
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("{}/top.toml:2:", text(&dir))),
        "{msg}"
    );
    assert_eq!(e.key.as_deref(), Some("include"));
    assert!(
        msg.contains("cannot read the included file") && msg.contains("gone.toml"),
        "{msg}"
    );
    let dir = write_files("include-bad", &[("top.toml", "include = 3\n")]);
    let e = load_scenario(&dir.join("top.toml"), &[])
        .err()
        .expect("not a path");
    assert!(e.message.contains("file name"), "{e}");
}

#[test]
fn errors_name_the_included_file_and_its_line() {
    let bad = BASE.replace("write_bandwidth = \"1GB/s\"", "write_bandwidth = \"quick\"");
    let line = 1 + bad[..bad.find("quick").expect("bad value")]
        .matches('\n')
        .count();
    let dir = write_files(
        "include-lines",
        &[
            ("sys/base.toml", &bad),
            ("top.toml", "include = \"sys/base.toml\"\nname = \"top\"\n"),
        ],
    );
    let e = load_scenario(&dir.join("top.toml"), &[])
        .err()
        .expect("bad value");
    assert_eq!(e.file, format!("{}/sys/base.toml", text(&dir)), "{e}");
    assert_eq!(e.line, Some(line), "{e}");
    assert_eq!(e.key.as_deref(), Some("burst_buffer.ssd.write_bandwidth"));
    // A check made while lowering (not by the schema) names the included file too.
    let dir = write_files(
        "include-lower",
        &[
            ("sys/base.toml", BASE),
            (
                "top.toml",
                "include = \"sys/base.toml\"\n[burst_buffer.ftl]\nenabled = true\n",
            ),
        ],
    );
    let l = load_scenario(&dir.join("top.toml"), &[]).expect("valid");
    let d = l.map.error_at("burst_buffer.stripe_count", "x");
    assert_eq!(d.file, format!("{}/sys/base.toml", text(&dir)));
    assert_eq!(d.line, Some(11));
    let d = l.map.error_at("burst_buffer.ftl.enabled", "x");
    assert_eq!((d.file.ends_with("top.toml"), d.line), (true, Some(3)));
    // A syntax error in an included file.
    let dir = write_files(
        "include-syntax",
        &[
            ("b.toml", "[network\n"),
            ("top.toml", "include = \"b.toml\"\n"),
        ],
    );
    let e = load_scenario(&dir.join("top.toml"), &[])
        .err()
        .expect("syntax");
    assert!(e.file.ends_with("b.toml") && e.line == Some(1), "{e}");
}

#[test]
fn unset_restores_the_default() {
    let q = scenario("quickstart.toml");
    let l = load_scenario_edited(&q, &["burst_buffer.stripe_size".into()], &[]).expect("valid");
    assert_eq!(l.scenario.burst_buffer.stripe_size.0, 128 * 1024);
    let l = load_scenario_edited(&q, &["burst_buffer.ssd".into()], &[]).expect("valid");
    assert_eq!(
        l.scenario.burst_buffer.ssd.op_overhead.0, 0,
        "the whole table"
    );
    let l =
        load_scenario_edited(&q, &["jobs.1.period".into()], &small_quickstart(&[])).expect("valid");
    assert_eq!(l.scenario.jobs[1].period, None);
    // A known key the file does not set: nothing to do.
    let l = load_scenario_edited(&q, &["burst_buffer.grain".into()], &[]).expect("no-op");
    assert_eq!(l.scenario.burst_buffer.grain, None);
    // --set after --unset: the table's defaults, with one key set.
    let l = load_scenario_edited(
        &q,
        &["burst_buffer.ssd".into()],
        &["burst_buffer.ssd.capacity=1TB".into()],
    )
    .expect("valid");
    assert_eq!(l.scenario.burst_buffer.ssd.capacity.0, 1_000_000_000_000);
    assert_eq!(l.scenario.burst_buffer.ssd.op_overhead.0, 0);
}

#[test]
fn unsetting_an_unknown_key_is_an_error() {
    let q = scenario("quickstart.toml");
    let e = load_scenario_edited(&q, &["burst_buffer.stripe_cont".into()], &[])
        .err()
        .expect("unknown");
    assert_eq!(e.file, "--unset burst_buffer.stripe_cont");
    assert!(
        e.message.contains("unknown key `stripe_cont`")
            && e.message.contains("did you mean `stripe_count`?"),
        "{e}"
    );
    let e = load_scenario_edited(&q, &["netwrk.radix".into()], &[])
        .err()
        .expect("unknown table");
    assert!(e.message.contains("did you mean `network`?"), "{e}");
    let e = load_scenario_edited(&q, &["jobs.0".into()], &[])
        .err()
        .expect("array entry");
    assert!(e.message.contains("ending in a key"), "{e}");
}

#[test]
fn keys_of_other_placements_are_unused_not_refused() {
    let q = scenario("quickstart.toml");
    let keys = |place: &str, extra: &[&str]| -> Vec<String> {
        let mut sets = vec![format!("burst_buffer.placement={place}")];
        sets.extend(extra.iter().map(|s| s.to_string()));
        let l = load_scenario(&q, &sets).unwrap_or_else(|e| panic!("{place}: {e}"));
        l.unused
            .iter()
            .map(|d| d.key.clone().expect("key"))
            .collect()
    };
    let servers = [
        "burst_buffer.servers=8",
        "burst_buffer.servers_per_router=4",
    ];
    assert_eq!(
        keys("grouped", &servers),
        ["burst_buffer.servers", "burst_buffer.servers_per_router"]
    );
    assert_eq!(
        keys("node-local", &servers),
        [
            "burst_buffer.servers",
            "burst_buffer.servers_per_router",
            "burst_buffer.ssds_per_server",
            "burst_buffer.stripe_count",
            "burst_buffer.stripe_size"
        ]
    );
    let none = keys("none", &["jobs.0.bb_capacity=1GB"]);
    assert!(
        none.contains(&"burst_buffer.ssd".to_string())
            && none.contains(&"jobs[0].bb_capacity".to_string()),
        "{none:?}"
    );
    // The run uses the defaults of unused keys; the echo keeps what was written.
    let l = load_scenario(&q, &["burst_buffer.placement=node-local".into()]).expect("valid");
    assert_eq!(l.scenario.burst_buffer.ssds_per_server, 1);
    assert_eq!(l.written.burst_buffer.ssds_per_server, 2);
    assert_eq!(l.machine_summary().bb_ssds, 120);
    let d = &l.unused[0];
    assert_eq!(d.line, Some(29), "{d}");
    assert!(
        d.message
            .contains("unused with burst_buffer.placement = \"node-local\"")
            && d.message.contains("\"grouped\" or \"global\""),
        "{d}"
    );
    // A value wrong for the placement that reads it is still an error.
    let e = load_scenario(
        &q,
        &[
            "burst_buffer.placement=global".into(),
            "network.nodes=96".into(),
            "burst_buffer.servers=7".into(),
        ],
    )
    .err()
    .expect("7 servers do not fill routers of 4");
    assert_eq!(e.key.as_deref(), Some("burst_buffer.servers"));
}
