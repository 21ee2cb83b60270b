//! `[outputs]`: which output files a run writes, and how phases are found.

use super::*;

/// `[outputs]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputsSection {
    /// Write `timeline.csv` (one row per I/O operation).
    #[serde(default = "yes")]
    pub timeline: bool,
    /// Write the SVG plots.
    #[serde(default = "yes")]
    pub plots: bool,
    /// A job's I/O phases (`io_phases` in `summary.json`) are split where none of its ranks
    /// has I/O in progress for longer than this (must be positive). Left out, each job's gap
    /// is found from its own bursts of I/O ([`crate::output::phases::auto_gap`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_gap: Option<Duration>,
}

impl OutputsSection {
    /// How a job's I/O splits into phases: at `phase_gap` if given, else automatically.
    pub fn phase_split(&self) -> crate::output::phases::PhaseSplit {
        use crate::output::phases::PhaseSplit;
        self.phase_gap
            .map_or(PhaseSplit::Auto, |g| PhaseSplit::Gap(g.get()))
    }
}

impl Default for OutputsSection {
    fn default() -> Self {
        OutputsSection {
            timeline: true,
            plots: true,
            phase_gap: None,
        }
    }
}
