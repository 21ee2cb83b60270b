//! The scenario edits every command that loads a scenario file accepts: keys removed so that
//! their defaults apply (`--unset`), then values overridden (`--set`).

/// `--unset KEY` and `--set KEY=VALUE`, applied in that order when the scenario is loaded
/// (`bbsim_sim::run::load_scenario_edited`), before any per-run values of a sweep or search.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct ScenarioEdits {
    /// Override any scenario value, e.g. `--set burst_buffer.placement=global` or
    /// `--set jobs.0.ranks=96`; values in scenario units (`1.6TB`, `2GB/s`). Repeatable; in a
    /// sweep or a sizing search, applied to every run.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Remove a key from the scenario so that its default applies, e.g.
    /// `--unset burst_buffer.stripe_count`. Repeatable; applied before `--set`.
    #[arg(long = "unset", value_name = "KEY")]
    pub unset: Vec<String>,
}

impl ScenarioEdits {
    /// Whether the command line edits the scenario at all.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.unset.is_empty()
    }
}
