//! Dependencies between jobs: a job starts only once the jobs it waits for (`after`, and the
//! producer of a post-processing consumer) have finished.

use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::{JobSection, Scenario};
use bbsim_workload::Workload;

/// The parents (indices into `names`) of job `i`: its `after` list, each once in the order
/// given, then the producer named by `inputs` for a consumer that is not in transit.
fn parents_of(
    j: &JobSection,
    i: usize,
    map: &SourceMap,
    names: &[&str],
) -> Result<Vec<usize>, Diagnostic> {
    let mut ps = Vec::new();
    for (k, name) in j.after.iter().enumerate() {
        let key = format!("jobs[{i}].after[{k}]");
        let Some(p) = names.iter().position(|n| n == name) else {
            let hint = crate::diag::suggest(name, names.iter().copied())
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(map.error_at(&key, format!("no job is named `{name}`{hint}")));
        };
        if p == i {
            return Err(map.error_at(&key, format!("job `{name}` cannot wait for itself")));
        }
        if !ps.contains(&p) {
            ps.push(p);
        }
    }
    // A post-processing consumer (not in transit) starts after its producer.
    if let (Some(name), false) = (&j.inputs, j.in_transit) {
        if let Some(p) = names.iter().position(|n| n == name) {
            if p != i && !ps.contains(&p) {
                ps.push(p);
            }
        }
    }
    Ok(ps)
}

/// The first job (index) on a dependency cycle of `parents`, if there is one: jobs whose parents
/// have all been removed are removed until none is left to remove.
fn first_job_on_cycle(parents: &[Vec<usize>]) -> Option<usize> {
    let mut done = vec![false; parents.len()];
    loop {
        let mut progressed = false;
        for i in 0..parents.len() {
            if !done[i] && parents[i].iter().all(|&p| done[p]) {
                done[i] = true;
                progressed = true;
            }
        }
        if !progressed {
            break;
        }
    }
    done.iter().position(|d| !d)
}

/// The parents of every job (indices), from the jobs' `after` lists. Unknown names, a job
/// waiting for itself and cycles are errors naming the key.
pub fn job_parents(
    s: &Scenario,
    map: &SourceMap,
    w: &Workload,
) -> Result<Vec<Vec<usize>>, Diagnostic> {
    let names: Vec<&str> = w.jobs.iter().map(|j| j.name.as_str()).collect();
    parents_by_name(s, map, &names)
}

/// [`job_parents`] for jobs known by their names (`names[i]` is the name of job `i`).
pub(super) fn parents_by_name(
    s: &Scenario,
    map: &SourceMap,
    names: &[&str],
) -> Result<Vec<Vec<usize>>, Diagnostic> {
    let parents = s
        .jobs
        .iter()
        .enumerate()
        .map(|(i, j)| parents_of(j, i, map, names))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(i) = first_job_on_cycle(&parents) {
        return Err(map.error_at(
            &format!("jobs[{i}].after"),
            format!("job `{}` is part of a dependency cycle", names[i]),
        ));
    }
    Ok(parents)
}
