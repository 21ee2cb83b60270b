//! `bbsim`: the command-line front end of the burst-buffer simulator.

mod edits;
mod example_cmd;
mod heap;
mod heartbeat;
mod net_cmd;
mod out_dir;
mod phold_cmd;
mod plot_cmd;
mod run_cmd;
mod size_cmd;
mod sweep_cmd;
mod sweep_plan;
mod trace_cmd;
mod validate_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// bbsim: simulate where to put burst buffers and how big to make them.
#[derive(Parser, Debug)]
#[command(
    name = "bbsim",
    version = bbsim_sim::build_info::VERSION,
    about,
    long_about = None,
    propagate_version = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a scenario (default: the built-in quickstart) and write timeline.csv, ranks.csv,
    /// summary.json and SVG plots.
    Run(run_cmd::RunArgs),
    /// Check a scenario without running it and print the machine it describes.
    Validate(validate_cmd::ValidateArgs),
    /// Run the cartesian product of varied scenario values and collect sweep.csv.
    Sweep(sweep_cmd::SweepArgs),
    /// Find the cheapest burst-buffer design that meets targets (`--target io_time_max_s<=2s`)
    /// over the given dimensions (`--dim burst_buffer.ssds_per_server=1..8`), running far
    /// fewer designs than the product; writes sizing.csv and sizing.svg.
    Size(size_cmd::SizeArgs),
    /// Run synthetic traffic (the scenario's `[traffic]` section) on its network and print
    /// messages delivered, latency, hops, non-minimal fraction and accepted throughput.
    Net(net_cmd::NetArgs),
    /// Darshan trace tools.
    #[command(subcommand)]
    Trace(trace_cmd::TraceCommand),
    /// Figures from bbsim's outputs: bar charts and cost-against-I/O-time scatters of a CSV
    /// table (sweep.csv), a run's per-rank I/O from its first I/O.
    #[command(subcommand)]
    Plot(plot_cmd::PlotCommand),
    /// Print a built-in ready scenario (`bbsim example quickstart > q.toml`), or list them.
    Example(example_cmd::ExampleArgs),
    /// Run the PHOLD benchmark on the PDES engine (ROSS parameter semantics; 1 time unit = 1 us).
    Phold(phold_cmd::PholdArgs),
}

/// Lets a closed output pipe end the process quietly (as `head` expects), instead of the
/// Rust runtime's default of ignoring SIGPIPE, which makes the next `println!` panic.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_DFL at start-up, before any thread is
    // spawned, has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run_cmd::run(&args),
        Command::Validate(args) => validate_cmd::run(&args),
        Command::Sweep(args) => sweep_cmd::run(&args),
        Command::Size(args) => size_cmd::run(&args),
        Command::Trace(c) => trace_cmd::run(&c),
        Command::Net(args) => net_cmd::run(&args),
        Command::Phold(args) => phold_cmd::run(&args),
        Command::Plot(c) => plot_cmd::run(&c),
        Command::Example(args) => example_cmd::run(&args),
    };
    run_cmd::remove_builtin();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::FAILURE
        }
    }
}
