//! Fuzz target: a Darshan log replayed end to end. The input is written as a log file and
//! replayed as a two-rank job on a four-node fat-tree with a grouped burst buffer, for at most
//! 2 ms of simulated time (so each execution stays fast); whatever loads must run, reduce and
//! render without panicking, and a run that ends must conserve bytes.
#![no_main]

#[path = "scratch.rs"]
mod scratch;

use bbsim_sim::run::load_scenario;
use libfuzzer_sys::fuzz_target;

const SCENARIO: &str = r#"
name = "fuzz-replay"

[simulation]
seed = 1
packet_size = "64KiB"
end_time = "2ms"

[network]
topology = "fat-tree"
levels = 2
radix = 4
link_bandwidth = "12.5GB/s"
link_latency = "50ns"
router_delay = "90ns"

[burst_buffer]
placement = "grouped"
stripe_count = 2
stripe_size = "1MiB"

[burst_buffer.ssd]
write_bandwidth = "1.4GB/s"
read_bandwidth = "2.3GB/s"
op_overhead = "20us"
capacity = "64GB"

[pfs]
io_nodes = 1
servers = 2
server_bandwidth = "2GB/s"
latency = "100us"

[[jobs]]
name = "replay"
source = "darshan"
log = "log.darshan"
ranks = 2
ranks_per_node = 1
"#;

fuzz_target!(|data: &[u8]| {
    scratch::file("log.darshan", data);
    let scn = scratch::file("replay.toml", SCENARIO.as_bytes());
    let Ok(l) = load_scenario(&scn, &[]) else {
        return;
    };
    if let Ok(f) = l.run(1, |_| {}) {
        let r = l.render(&f);
        assert!(!r.files.is_empty());
    }
});
