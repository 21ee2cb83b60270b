//! Drain (stage-out to the PFS) and stage-in settings, and the pacing of the data mover.

use crate::error::{positive, ConfigError, DrainField};
use crate::units::transfer_ps;
use bbsim_engine::Time;
use serde::{Deserialize, Serialize};

/// When dirty BB data becomes eligible for stage-out (`burst_buffer.drain.policy`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DrainPolicy {
    /// Never: the data stays on the burst buffer (no stage-out, not even when a writer waits
    /// for space).
    #[default]
    None,
    /// As soon as it is on the SSDs.
    Immediate,
    /// When its job ends ([`crate::bb_server::BbServer::job_end`]).
    JobEnd,
    /// While the server's fill (bytes in use / capacity) is above [`DrainConfig::threshold`],
    /// oldest data first.
    Threshold,
}

impl DrainPolicy {
    /// The name as a scenario file spells it (`none`, `immediate`, `job-end`, `threshold`).
    pub fn name(self) -> &'static str {
        match self {
            DrainPolicy::None => "none",
            DrainPolicy::Immediate => "immediate",
            DrainPolicy::JobEnd => "job-end",
            DrainPolicy::Threshold => "threshold",
        }
    }
}

impl std::fmt::Display for DrainPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The data mover between a BB server and the PFS.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrainConfig {
    /// Stage-out policy.
    pub policy: DrainPolicy,
    /// Fill fraction in `[0, 1]` above which [`DrainPolicy::Threshold`] drains.
    pub threshold: f64,
    /// Bandwidth limit of stage-out and stage-in together (bytes/s).
    pub bandwidth: u64,
    /// Stage-out / stage-in transfers in flight at once.
    pub max_outstanding: u32,
    /// Release (TRIM) drained data from the BB once the PFS has it. Required with
    /// [`crate::capacity::FullPolicy::Stall`] and a policy that drains, or a full BB could
    /// never make room.
    pub evict: bool,
}

impl Default for DrainConfig {
    fn default() -> Self {
        DrainConfig {
            policy: DrainPolicy::JobEnd,
            threshold: 0.8,
            bandwidth: 1_000_000_000,
            max_outstanding: 4,
            evict: true,
        }
    }
}

impl DrainConfig {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ConfigError<DrainField>> {
        positive(DrainField::Bandwidth, self.bandwidth)?;
        positive(DrainField::MaxOutstanding, u64::from(self.max_outstanding))?;
        let fill = self.threshold;
        if self.policy == DrainPolicy::Threshold
            && !(fill.is_finite() && (0.0..=1.0).contains(&fill))
        {
            return Err(ConfigError::new(
                DrainField::Threshold,
                fill,
                "must be in [0, 1]",
            ));
        }
        Ok(())
    }
}

/// Paces transfers to a bandwidth: a transfer of `b` bytes may start no earlier than the
/// previous start plus `b_prev / bandwidth` (a token bucket of depth one transfer).
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    next: Time,
}

impl Pacer {
    /// The earliest time the next transfer may start.
    pub fn ready_at(&self) -> Time {
        self.next
    }

    /// Records a transfer of `bytes` starting at `now` (≥ [`Pacer::ready_at`]).
    pub fn start(&mut self, now: Time, bytes: u64, bandwidth: u64) {
        self.next = self
            .next
            .max(now)
            .saturating_add(transfer_ps(bytes, bandwidth));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacing_spaces_transfers_by_their_duration() {
        let mut p = Pacer::default();
        assert_eq!(p.ready_at(), 0);
        p.start(0, 1000, 1000);
        assert_eq!(p.ready_at(), bbsim_engine::time::SEC);
        p.start(5 * bbsim_engine::time::SEC, 500, 1000);
        assert_eq!(
            p.ready_at(),
            5 * bbsim_engine::time::SEC + bbsim_engine::time::SEC / 2
        );
        let mut c = DrainConfig::default();
        assert!(c.validate().is_ok());
        c.policy = DrainPolicy::Threshold;
        c.threshold = 1.5;
        assert_eq!(c.validate().unwrap_err().field, DrainField::Threshold);
        c.policy = DrainPolicy::Immediate;
        c.bandwidth = 0;
        assert_eq!(c.validate().unwrap_err().field, DrainField::Bandwidth);
    }
}
