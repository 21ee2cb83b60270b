//! `bbsim`: the command-line front end of the burst-buffer simulator.

mod phold_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// bbsim: simulate where to put burst buffers and how big to make them.
#[derive(Parser, Debug)]
#[command(name = "bbsim", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the PHOLD benchmark on the PDES engine (ROSS parameter semantics; 1 time unit = 1 us).
    Phold(phold_cmd::PholdArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Phold(args) => phold_cmd::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}
