//! Fuzz target: scenario files. The input is a scenario's TOML text, optionally followed by a
//! NUL byte and `--set`/`--unset` arguments, one per line (a line starting with `-` is an
//! `--unset` of the rest). Loading (parse, includes, overrides, units, schema) and lowering
//! (machine, jobs, allocation, reservations) must return a scenario or a diagnostic, never
//! panic, hang or allocate without bound. Nothing is run.
#![no_main]

#[path = "scratch.rs"]
mod scratch;

use bbsim_sim::run::load_scenario_edited;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (toml, edits) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let mut unset = Vec::new();
    let mut set = Vec::new();
    for line in String::from_utf8_lossy(edits).lines().take(16) {
        match line.strip_prefix('-') {
            Some(key) => unset.push(key.to_string()),
            None => set.push(line.to_string()),
        }
    }
    let path = scratch::file("scenario.toml", toml);
    if let Ok(l) = load_scenario_edited(&path, &unset, &set) {
        let _ = l.machine_summary();
        let _ = l.cost();
        let _ = l.estimated_end();
    }
});
