//! `bbsim plot`: bar charts from a CSV and per-rank timelines from a run directory.

use crate::common::*;
use bbsim_sim::output::chart::svg_texts;

/// Whether `texts` has one equal to `t`.
fn has(texts: &[String], t: &str) -> bool {
    texts.iter().any(|x| x == t)
}

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
    let texts = svg_texts(&text);
    // grouped | summit is the mean of 3 and 5; global | summit is 6.
    for t in [
        "avg_hops by placement, system",
        "grouped | summit",
        "4 hops",
        "global | summit",
        "6 hops",
        "mean avg_hops (hops)",
    ] {
        assert!(has(&texts, t), "{t}: {texts:?}");
    }
    let at = |t: &str| texts.iter().position(|x| x == t).expect(t);
    assert!(
        at("grouped | summit") < at("global | summit"),
        "bars keep the order of first appearance"
    );
    // --scale multiplies the values.
    run_ok(&bars_args(
        csv,
        "avg_hops",
        "job",
        &["--scale", "1000"],
        svg,
    ));
    let texts = svg_texts(&std::fs::read_to_string(&svg_path).expect("svg written"));
    assert!(
        has(&texts, "4666.667") && has(&texts, "4000") && has(&texts, "mean avg_hops x 1000"),
        "{texts:?}"
    );

    // --axis names the value axis in words; the unit follows.
    run_ok(&bars_args(
        csv,
        "avg_hops",
        "job",
        &["--unit", "hops", "--axis", "average I/O hops"],
        svg,
    ));
    let texts = svg_texts(&std::fs::read_to_string(&svg_path).expect("svg written"));
    assert!(has(&texts, "average I/O hops (hops)"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.starts_with("mean ")), "{texts:?}");

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
    let texts = svg_texts(&std::fs::read_to_string(&svg).expect("svg written"));
    assert!(
        has(&texts, "tiny (from the first I/O at 5.000 s)"),
        "{texts:?}"
    );
    // Each job's panel starts at its own first I/O, which the caption gives.
    for job in ["ior", "ckpt"] {
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with(&format!("{job} (12 ranks), first I/O at 5"))),
            "{job}: {texts:?}"
        );
    }
    assert!(has(&texts, "rank"), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("time since the job's first I/O (")
                || t.starts_with("simulated time (")),
        "{texts:?}"
    );
    // --window in seconds: the title says so.
    run_ok(&[
        "plot",
        "timeline",
        out.to_str().expect("utf-8"),
        "--title",
        "tiny",
        "--window",
        "2",
        "--out",
        svg.to_str().expect("utf-8"),
    ]);
    let texts = svg_texts(&std::fs::read_to_string(&svg).expect("svg written"));
    assert!(
        has(
            &texts,
            "tiny (from the first I/O at 5.000 s, the 2 s after it)"
        ),
        "{texts:?}"
    );

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

/// A sweep-like table: bars grouped by a second key, and cost against I/O time with the
/// Pareto front.
#[test]
fn grouped_bars_and_pareto_front_from_a_table() {
    let dir = scratch("plot-sweep");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let csv_path = dir.join("sweep.csv");
    std::fs::write(
        &csv_path,
        "run,placement,servers,job0_io_time_s,cost_total_usd\n\
         0,grouped,s2,4.0,100\n\
         1,grouped,s4,2.0,200\n\
         2,global,s2,5.0,400\n\
         3,global,s4,1.0,300\n",
    )
    .expect("write csv");
    let (csv, svg_path) = (csv_path.to_str().expect("utf-8"), dir.join("bars.svg"));
    let svg = svg_path.to_str().expect("utf-8");
    run_ok(&bars_args(
        csv,
        "job0_io_time_s",
        "placement",
        &["--group", "servers"],
        svg,
    ));
    let texts = svg_texts(&std::fs::read_to_string(&svg_path).expect("svg"));
    for t in [
        "job0_io_time_s by placement and servers",
        "mean job0_io_time_s (s)",
        "grouped",
        "global",
        // The legend: one entry per value of the group column.
        "s2",
        "s4",
        // Each bar's value.
        "4 s",
        "2 s",
        "5 s",
        "1 s",
    ] {
        assert!(has(&texts, t), "{t}: {texts:?}");
    }
    let pareto_path = dir.join("pareto.svg");
    let out = run_ok(&[
        "plot",
        "pareto",
        csv,
        "--label",
        "placement,servers",
        "--out",
        pareto_path.to_str().expect("utf-8"),
    ]);
    let msg = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(msg.contains("4 points, 3 on the Pareto front"), "{msg}");
    let texts = svg_texts(&std::fs::read_to_string(&pareto_path).expect("svg"));
    for t in [
        "cost_total_usd against job0_io_time_s",
        "job0_io_time_s (s)",
        "cost_total_usd (US$)",
        "global | s4",
        "grouped | s4",
        "grouped | s2",
    ] {
        assert!(has(&texts, t), "{t}: {texts:?}");
    }
    assert!(!has(&texts, "global | s2"), "dominated: {texts:?}");
    let err = run_err(&[
        "plot",
        "pareto",
        csv,
        "--x",
        "nope",
        "--label",
        "placement",
        "--out",
        pareto_path.to_str().expect("utf-8"),
    ]);
    assert!(err.contains("no column `nope`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every figure of a run has its axes with units and a legend, and is byte-identical from
/// one run to the next and for any thread count.
#[test]
fn run_figures_have_axes_units_and_legends() {
    let scn = data("tiny-fattree.toml");
    let a = scratch("figures-1");
    let b = scratch("figures-3");
    run_scenario(&scn, &a, &["--threads", "1"]);
    run_scenario(&scn, &b, &["--threads", "3"]);
    let texts = |f: &str| svg_texts(&std::fs::read_to_string(a.join(f)).expect(f));
    // Each wanted text is given by its start; `|` separates starts of which one will do.
    let expect = |f: &str, wanted: &[&str]| {
        let t = texts(f);
        for w in wanted {
            assert!(
                t.iter().any(|x| w.split('|').any(|p| x.starts_with(p))),
                "{f}: no text starting with {w:?} in {t:?}"
            );
        }
    };
    expect(
        "timeline.svg",
        &[
            "tiny-fattree: per-rank I/O",
            "ior (12 ranks), first I/O at",
            "time since the job's first I/O (|simulated time (",
            "rank",
            "BB write",
            "BB read",
            "0",
        ],
    );
    expect(
        "hops.svg",
        &[
            "share of the job's network I/O operations (%)",
            "ior",
            "ckpt",
            "100",
        ],
    );
    expect(
        "utilisation.svg",
        &["busy time (% of the simulated period)", "links: ", "100"],
    );
    expect(
        "occupancy.svg",
        &[
            "BB servers: ",
            "occupied (",
            "simulated time (",
            "capacity per device (",
            "BB server ",
        ],
    );
    for f in [
        "timeline.svg",
        "hops.svg",
        "utilisation.svg",
        "occupancy.svg",
    ] {
        assert!(
            std::fs::read(a.join(f)).expect(f) == std::fs::read(b.join(f)).expect(f),
            "{f} differs between 1 and 3 threads"
        );
    }
    // `bbsim size`'s figure: cost against the first target's metric.
    let sized = scratch("figures-size");
    run_ok(&[
        "size",
        scn.to_str().expect("utf-8"),
        "--dim",
        "burst_buffer.placement=none,grouped",
        "--dim",
        "burst_buffer.ssds_per_server=1,2",
        "--target",
        "io_time_max_s<=12ms",
        "--exhaustive",
        "--quiet",
        "--out",
        sized.to_str().expect("utf-8"),
    ]);
    let t = svg_texts(&std::fs::read_to_string(sized.join("sizing.svg")).expect("sizing.svg"));
    for w in [
        "tiny-fattree: cost against io_time_max_s",
        "io_time_max_s (s)",
        "total cost (US$)",
        "$0",
        "$200k",
        "0.01",
        "meets every target",
        "misses a target",
        "Pareto front",
        "target io_time_max_s<=0.012 s",
        "chosen",
        "chosen: placement=none ssds_per_server=1 ($0, 0.0101047 s)",
    ] {
        assert!(
            t.iter().any(|x| x == w),
            "sizing.svg: no text {w:?} in {t:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
    let _ = std::fs::remove_dir_all(&sized);
}
