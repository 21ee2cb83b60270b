//! Times the storage benchmark scenario once (the same system as `benches/storage.rs`):
//! `cargo run --release -p bbsim-storage --example absorb -- [clients] [writes_per_client]`.

use bbsim_engine::{run_with_threads, SimConfig};
use bbsim_storage::standalone::{absorb_scenario, HarnessLp};
use std::time::Instant;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let clients = args.first().copied().unwrap_or(64) as usize;
    let per = args.get(1).copied().unwrap_or(16_384);
    let threads = args.get(2).copied().unwrap_or(1) as usize;
    let t0 = Instant::now();
    let mut sim = match absorb_scenario(clients, per, 1 << 20).build(SimConfig::default()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bad scenario: {e}");
            std::process::exit(2);
        }
    };
    let build = t0.elapsed();
    let stats = match run_with_threads(&mut sim, threads) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("run failed: {e}");
            std::process::exit(1);
        }
    };
    let total = t0.elapsed();
    let mut ssd_written = 0u64;
    let mut waf = Vec::new();
    for lp in sim.lps() {
        if let HarnessLp::Bb(b) = lp {
            for s in b.server.ssds() {
                ssd_written += s.stats().host_bytes_written;
                waf.push(s.stats().write_amplification());
            }
        }
    }
    println!(
        "clients {clients} writes {} bytes {ssd_written} events {} simulated {:.3} s \
         build {:.3} s run {:.3} s total {:.3} s ({:.2} M events/s) WAF {:?}",
        clients as u64 * per,
        stats.events,
        stats.last_event_time as f64 * 1e-12,
        build.as_secs_f64(),
        stats.wall.as_secs_f64(),
        total.as_secs_f64(),
        stats.events as f64 / stats.wall.as_secs_f64() / 1e6,
        waf
    );
}
