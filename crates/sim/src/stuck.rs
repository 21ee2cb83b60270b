//! Why a run could not finish: no event was left while some ranks had not finished. The usual
//! cause is a full burst-buffer device whose writers wait for space nothing will free (drain
//! policy `none`, or a write larger than the whole device or reservation); the message names
//! the job, the device, its capacity and what was asked.

use crate::model::SimLp;
use crate::output::Results;
use crate::units::human_bytes;
use bbsim_engine::Simulation;
use bbsim_storage::DrainPolicy;
use std::fmt::Write;

/// One write that waits for space for ever.
struct Waiting {
    job: u32,
    device: String,
    capacity: u64,
    used: u64,
    limit: Option<u64>,
    asked: u64,
}

/// The message for a run that stopped with unfinished ranks, or `None` if every rank
/// finished. `drain` is the scenario's drain policy.
pub fn diagnose(
    sim: &Simulation<SimLp>,
    results: &Results,
    job_names: &[String],
    drain: DrainPolicy,
) -> Option<String> {
    let mut per_job = vec![0usize; results.jobs.len()];
    for r in results.ranks.iter().filter(|r| r.finished.is_none()) {
        if let Some(n) = per_job.get_mut(r.job as usize) {
            *n += 1;
        }
    }
    let unfinished: Vec<(u32, usize)> = per_job
        .into_iter()
        .enumerate()
        .filter(|&(_, n)| n > 0)
        .map(|(j, n)| (j as u32, n))
        .collect();
    if unfinished.is_empty() {
        return None;
    }
    let name = |j: u32| {
        job_names
            .get(j as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{j}"))
    };
    let mut waiting = Vec::new();
    let mut server = 0u32;
    for lp in sim.lps() {
        match lp {
            SimLp::Bb(b) => {
                let cap = b.server.capacity();
                for (alloc, asked) in b.server.waiting_writes() {
                    waiting.push(Waiting {
                        job: alloc,
                        device: format!("BB server {server}"),
                        capacity: cap.total(),
                        used: cap.used(),
                        limit: cap.limit_of(alloc),
                        asked,
                    });
                }
                server += 1;
            }
            SimLp::Node(n) => {
                let Some(store) = n.local_store() else {
                    continue;
                };
                let cap = store.ledger();
                for w in store.waiting() {
                    waiting.push(Waiting {
                        job: w.job,
                        device: format!("the node-local SSD of compute node {}", n.terminal),
                        capacity: cap.total(),
                        used: cap.used(),
                        limit: None,
                        asked: w.len,
                    });
                }
            }
            _ => {}
        }
    }
    let mut s = String::from("the run cannot finish: ");
    let jobs: Vec<String> = unfinished
        .iter()
        .map(|&(j, n)| format!("job '{}' has {n} rank(s) that never finished", name(j)))
        .collect();
    s.push_str(&jobs.join(", "));
    if waiting.is_empty() {
        s.push_str(" and no event is left (nothing they wait for will happen)");
        return Some(s);
    }
    let _ = write!(
        s,
        "; {} write(s) wait for space that nothing will free:",
        waiting.len()
    );
    // One line per (job, device, what was asked): many ranks usually wait alike.
    let mut groups: Vec<(&Waiting, usize)> = Vec::new();
    for w in &waiting {
        match groups.iter_mut().find(|(g, _)| {
            (g.job, &g.device, g.asked, g.used) == (w.job, &w.device, w.asked, w.used)
        }) {
            Some(g) => g.1 += 1,
            None => groups.push((w, 1)),
        }
    }
    for &(w, count) in groups.iter().take(4) {
        let room = match w.limit {
            Some(l) => format!(
                "a reservation of {} ({} of the device's {} in use)",
                human_bytes(l),
                human_bytes(w.used),
                human_bytes(w.capacity)
            ),
            None => format!(
                "capacity {}, {} in use",
                human_bytes(w.capacity),
                human_bytes(w.used)
            ),
        };
        let why = if w.asked > w.limit.unwrap_or(w.capacity) {
            "the write is larger than all the space it may use"
        } else if drain == DrainPolicy::None {
            "burst_buffer.drain.policy = \"none\" never frees space"
        } else {
            "the data held is not drained (nothing left to drain)"
        };
        let times = if count > 1 {
            format!("{count} writes of {} each", human_bytes(w.asked))
        } else {
            format!("a write of {}", human_bytes(w.asked))
        };
        let _ = write!(
            s,
            "\n  job '{}': {times} on {} ({room}): {why}",
            name(w.job),
            w.device
        );
    }
    if groups.len() > 4 {
        let _ = write!(
            s,
            "\n  ... and {} more device(s) or job(s)",
            groups.len() - 4
        );
    }
    s.push_str(
        "\nmake the burst buffer larger, set burst_buffer.full_policy = \"spill\", or choose a \
         drain policy that frees space (\"immediate\", \"job-end\", \"threshold\")",
    );
    Some(s)
}
