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
    /// has I/O in progress for longer than this. Must be positive.
    #[serde(default = "default_phase_gap")]
    pub phase_gap: Duration,
}

/// 60 s: longer than the gaps inside one I/O phase of the study's applications (S3D's 2 s
/// stagger between groups of writers, HACC's 1-40 s delays before each rank writes), shorter
/// than their computation between phases (120-900 s).
fn default_phase_gap() -> Duration {
    Duration(60_000_000_000_000)
}

impl Default for OutputsSection {
    fn default() -> Self {
        OutputsSection {
            timeline: true,
            plots: true,
            phase_gap: default_phase_gap(),
        }
    }
}
