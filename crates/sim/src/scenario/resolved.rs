//! `scenario.resolved.toml`: the scenario as run, written beside a run's outputs.
//!
//! It is the loaded scenario (includes merged, `--unset` and `--set` applied, every default
//! filled in; the same form `summary.json` echoes under `scenario`) as a TOML file that
//! `bbsim run` accepts, so `bbsim run scenario.resolved.toml` repeats the run with identical
//! results. Relative file paths (Darshan logs, allocation files) are made absolute, since the
//! file no longer sits next to the scenario they were relative to.

use super::Scenario;
use std::path::{Path, PathBuf};

/// The name of the file in a run's output directory.
pub const RESOLVED_FILE: &str = "scenario.resolved.toml";

/// The text of `scenario.resolved.toml` for `scenario`, whose relative paths are relative to
/// `base` (the scenario file's directory).
pub fn resolved_toml(scenario: &Scenario, base: &Path) -> String {
    let mut s = scenario.clone();
    for job in &mut s.jobs {
        for p in [&mut job.log, &mut job.allocation_file]
            .into_iter()
            .flatten()
        {
            *p = absolute(base, p);
        }
    }
    let body = match toml::to_string(&s) {
        Ok(b) => b,
        // The schema serialises to TOML by construction; say so in the file if it ever fails.
        Err(e) => format!("# the scenario could not be written as TOML: {e}\n"),
    };
    format!(
        "# The scenario as run: includes merged, --unset and --set applied, every default filled\n\
         # in, file paths absolute. `bbsim run {RESOLVED_FILE}` repeats the run.\n\n{body}"
    )
}

/// `p` made absolute against `base` (the file itself when it can be found).
fn absolute(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let joined = base.join(p);
    std::fs::canonicalize(&joined)
        .or_else(|_| std::path::absolute(&joined))
        .unwrap_or(joined)
}
