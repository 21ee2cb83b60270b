//! Fuzz target: the Darshan reader must return Ok or a DarshanError for any input, never
//! panic, hang or allocate without bound; whatever it accepts must also summarise and turn
//! into a job without panicking.
#![no_main]

use bbsim_workload::darshan::{parse_log, LogSummary};
use bbsim_workload::{job_from_log, LogJobOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(log) = parse_log(data, "fuzz") {
        let s = LogSummary::from_log(&log, "fuzz");
        let _ = s.render_text();
        let opts = LogJobOptions {
            max_ops: 2_000_000,
            ..Default::default()
        };
        if let Ok(job) = job_from_log(&log, &opts) {
            let _ = job.validate();
        }
    }
});
