//! `bbsim plot`: bar charts from a CSV and per-rank timelines from a run directory.

use crate::common::*;

/// `bbsim plot bars CSV --value VALUE --label LABEL EXTRA... --out SVG` arguments.
fn bars_args<'a>(
    csv: &'a str,
    value: &'a str,
    label: &'a str,
    extra: &[&'a str],
    svg: &'a str,
) -> Vec<&'a str> {
    let mut v = vec!["plot", "bars", csv, "--value", value, "--label", label];
    v.extend_from_slice(extra);
    v.extend_from_slice(&["--out", svg]);
    v
}

#[test]
fn bars_plot_the_mean_per_label_with_filters() {
    let dir = scratch("plot-bars");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let csv_path = dir.join("jobs.csv");
    std::fs::write(
        &csv_path,
        "system,placement,job,avg_hops,note\n\
         summit,grouped,gtc,3,\"a, quoted\"\n\
         summit,grouped,gtc,5,x\n\
         summit,global,gtc,6,x\n\
         edison,grouped,gtc,,failed\n\
         summit,grouped,ior,4,x\n",
    )
    .expect("write csv");
    let svg_path = dir.join("figs/hops.svg");
    let (csv, svg) = (
        csv_path.to_str().expect("utf-8"),
        svg_path.to_str().expect("utf-8"),
    );
    let out = run_ok(&bars_args(
        csv,
        "avg_hops",
        "placement,system",
        &["--where", "job=gtc", "--unit", "hops"],
        svg,
    ));
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 bars from 3 rows"));
    let text = std::fs::read_to_string(&svg_path).expect("svg written");
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    // grouped | summit is the mean of 3 and 5; global | summit is 6 and the longest bar.
    assert!(
        text.contains(">grouped | summit<") && text.contains(">4 hops<"),
        "{text}"
    );
    assert!(
        text.contains(">global | summit<") && text.contains(">6 hops<"),
        "{text}"
    );
    assert!(text.contains(r#"width="560.0""#));
    assert!(text.contains("avg_hops by placement, system"));
    let grouped = text.find("grouped | summit").expect("grouped bar");
    let global = text.find("global | summit").expect("global bar");
    assert!(grouped < global, "bars keep the order of first appearance");
    // --scale multiplies the values.
    run_ok(&bars_args(
        csv,
        "avg_hops",
        "job",
        &["--scale", "1000"],
        svg,
    ));
    let text = std::fs::read_to_string(&svg_path).expect("svg written");
    assert!(
        text.contains(">4666.667 <") && text.contains(">4000 <"),
        "{text}"
    );

    let err = run_err(&bars_args(csv, "hops", "job", &[], svg));
    assert!(
        err.contains("no column `hops`") && err.contains("avg_hops"),
        "{err}"
    );
    let err = run_err(&bars_args(csv, "note", "job", &[], svg));
    assert!(err.contains("`a, quoted` is not a number"), "{err}");
    let err = run_err(&bars_args(
        csv,
        "avg_hops",
        "job",
        &["--where", "job=lammps"],
        svg,
    ));
    assert!(err.contains("no row has a value"), "{err}");
    let err = run_err(&bars_args(csv, "avg_hops", "job", &["--scale", "0"], svg));
    assert!(
        err.contains("--scale 0: expected a positive number"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn timeline_plot_starts_at_the_first_io() {
    let out = scratch("plot-timeline");
    let scn = data("tiny-fattree.toml");
    // Start the jobs late so that the first I/O is well after time 0.
    run_scenario(
        &scn,
        &out,
        &["--set", "jobs.0.start=5s", "--set", "jobs.1.start=5s"],
    );
    let svg = out.join("io.svg");
    let o = run_ok(&[
        "plot",
        "timeline",
        out.to_str().expect("utf-8"),
        "--title",
        "tiny",
        "--out",
        svg.to_str().expect("utf-8"),
    ]);
    let msg = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(msg.contains("2 jobs"), "{msg}");
    let text = std::fs::read_to_string(&svg).expect("svg written");
    assert!(
        text.contains("tiny (from the first I/O at 5.000 s)"),
        "{text}"
    );
    assert!(text.contains("ior (12 ranks)") && text.contains("ckpt (12 ranks)"));
    // The axis starts at the first I/O, not at 0 s of simulated time.
    assert!(!text.contains("time (s)"), "{text}");

    let empty = scratch("plot-timeline-missing");
    std::fs::create_dir_all(&empty).expect("dir");
    let err = run_err(&[
        "plot",
        "timeline",
        empty.to_str().expect("utf-8"),
        "--out",
        svg.to_str().expect("utf-8"),
    ]);
    assert!(err.contains("ranks.csv"), "{err}");
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&empty);
}
