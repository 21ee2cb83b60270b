//! The run's SVG figures from its results: `timeline.svg` (per-rank I/O by target and
//! direction, and writes' waits for space), `hops.svg` (how many router hops the I/O operations that crossed the network
//! took, per job), `utilisation.svg` (links and SSDs, 0-100 %) and, with burst-buffer
//! devices, `occupancy.svg`.

use super::bars::BarChart;
use super::chart::IoKind;
use super::collect::{DeviceRow, Results};
use super::occupancy_plot::occupancy_svg;
use super::plot::{timeline_svg, IoSpan, JobTimeline};
use std::collections::BTreeMap;

/// The run's SVG figures, (file name, text) in writing order.
pub fn figures(name: &str, r: &Results) -> Vec<(&'static str, String)> {
    let mut svgs = vec![
        (
            "timeline.svg",
            timeline_svg(&format!("{name}: per-rank I/O"), &timelines(r), 0),
        ),
        ("hops.svg", hops(r).svg()),
        ("utilisation.svg", utilisation(r).svg()),
    ];
    if !r.capacity.is_empty() {
        svgs.push((
            "occupancy.svg",
            occupancy_svg(
                &format!("{name}: burst-buffer occupancy"),
                &r.capacity,
                r.last_activity,
            ),
        ));
    }
    svgs
}

/// Each job's I/O intervals: its operations that moved bytes, with their targets, when the
/// run kept them (`outputs.timeline`), otherwise its ranks' busy intervals without a target;
/// and the times its ranks' writes waited for room on a full device.
fn timelines(r: &Results) -> Vec<JobTimeline> {
    let mut jobs: Vec<JobTimeline> = r
        .jobs
        .iter()
        .map(|js| JobTimeline {
            name: js.name.clone(),
            ranks: js.ranks,
            intervals: Vec::new(),
        })
        .collect();
    if r.timeline.is_empty() {
        for (j, busy) in r.busy.iter().enumerate() {
            if let Some(job) = jobs.get_mut(j) {
                job.intervals = busy
                    .iter()
                    .map(|&(rank, start, end, _)| IoSpan {
                        rank,
                        start,
                        end,
                        kind: IoKind::Unrecorded,
                    })
                    .collect();
            }
        }
    } else {
        for t in r.timeline.rows() {
            let (Some(job), Some(kind)) = (jobs.get_mut(t.job as usize), r.timeline.kind(t.op))
            else {
                continue;
            };
            job.intervals.push(IoSpan {
                rank: t.op.rank,
                start: t.op.start,
                end: t.op.end,
                kind,
            });
        }
    }
    for (job, stalls) in jobs.iter_mut().zip(&r.stalls) {
        job.intervals
            .extend(stalls.iter().map(|&(rank, start, end)| IoSpan {
                rank,
                start,
                end,
                kind: IoKind::Stall,
            }));
    }
    jobs
}

/// `hops.svg`: per job, the share of its network I/O operations that took each number of
/// router hops; each job's mean when the run kept no per-operation timeline.
fn hops(r: &Results) -> BarChart {
    let title = "Request-path router hops of the I/O operations that crossed the network";
    // Per job, operations per hop count.
    let mut counts: Vec<BTreeMap<u16, u64>> = vec![BTreeMap::new(); r.jobs.len()];
    let timeline = &r.timeline;
    for t in timeline.rows().filter(|t| timeline.crossed_network(t.op)) {
        if let Some(c) = counts.get_mut(t.job as usize) {
            *c.entry(t.op.hops).or_default() += 1;
        }
    }
    if counts.iter().all(BTreeMap::is_empty) {
        return BarChart {
            title: format!("{title} (mean per job)"),
            axis: "mean hops per I/O operation (hops)".into(),
            unit: "hops".into(),
            categories: r.jobs.iter().map(|j| j.name.clone()).collect(),
            groups: Vec::new(),
            values: r.jobs.iter().map(|j| vec![Some(j.avg_hops)]).collect(),
            range: None,
        };
    }
    let hop_counts: Vec<u16> = {
        let mut h: Vec<u16> = counts.iter().flat_map(|c| c.keys().copied()).collect();
        h.sort_unstable();
        h.dedup();
        h
    };
    let jobs: Vec<usize> = (0..counts.len())
        .filter(|&j| !counts[j].is_empty())
        .collect();
    BarChart {
        title: title.into(),
        axis: "share of the job's network I/O operations (%)".into(),
        unit: "%".into(),
        categories: hop_counts
            .iter()
            .map(|&h| format!("{h} hop{}", if h == 1 { "" } else { "s" }))
            .collect(),
        groups: jobs.iter().map(|&j| r.jobs[j].name.clone()).collect(),
        values: hop_counts
            .iter()
            .map(|h| {
                jobs.iter()
                    .map(|&j| {
                        let total: u64 = counts[j].values().sum();
                        counts[j]
                            .get(h)
                            .map(|&n| (n as f64 * 1000.0 / total as f64).round() / 10.0)
                    })
                    .collect()
            })
            .collect(),
        range: Some((0.0, 100.0)),
    }
}

/// `utilisation.svg`: each link class's mean busy fraction, then the mean and busiest
/// device of each SSD kind present, on a 0-100 % axis.
fn utilisation(r: &Results) -> BarChart {
    let mut bars: Vec<(String, f64)> = r
        .links
        .iter()
        .map(|l| (format!("links: {}", l.class), l.utilisation * 100.0))
        .collect();
    for (kind, what) in [
        ("bb-server", "bb-server SSDs"),
        ("bb-array", "bb-server SSD arrays"),
        ("node-local", "node-local SSDs"),
    ] {
        let ds: Vec<&DeviceRow> = r.devices.iter().filter(|d| d.kind == kind).collect();
        if !ds.is_empty() {
            let mean = ds.iter().map(|d| d.utilisation).sum::<f64>() / ds.len() as f64;
            let max = ds.iter().map(|d| d.utilisation).fold(0.0, f64::max);
            bars.push((format!("{what} (mean)"), mean * 100.0));
            bars.push((format!("{what} (busiest)"), max * 100.0));
        }
    }
    BarChart {
        title: "Utilisation over the simulated period".into(),
        axis: "busy time (% of the simulated period)".into(),
        unit: "%".into(),
        categories: bars.iter().map(|b| b.0.clone()).collect(),
        groups: Vec::new(),
        values: bars.iter().map(|b| vec![Some(b.1)]).collect(),
        range: Some((0.0, 100.0)),
    }
}
