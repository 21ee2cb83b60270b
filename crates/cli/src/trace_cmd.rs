//! `bbsim trace inspect`: summarise a Darshan log.

use std::path::PathBuf;

/// `bbsim trace` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum TraceCommand {
    /// Summarise a Darshan log: version, processes, times, per-module and per-rank counters,
    /// DXT segment counts.
    Inspect(InspectArgs),
}

/// Arguments of `bbsim trace inspect`.
#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The Darshan log (.darshan).
    pub log: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Output formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum Format {
    /// Human-readable text.
    Text,
    /// JSON (documented fields; see docs/darshan.md).
    Json,
}

/// Runs a `bbsim trace` subcommand.
pub fn run(c: &TraceCommand) -> Result<(), String> {
    match c {
        TraceCommand::Inspect(a) => {
            let s = bbsim_workload::darshan::inspect::inspect(&a.log).map_err(|e| e.to_string())?;
            match a.format {
                Format::Text => print!("{}", s.render_text()),
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?
                ),
            }
            Ok(())
        }
    }
}
