//! PHOLD, the standard PDES benchmark, with ROSS's parameter semantics.
//!
//! `nlp` LPs each start with `start_events` events. Handling an event sends one new event with
//! delay `lookahead + Exp(mean - lookahead)` (all in PHOLD time units, 1 unit = 1 µs here) to a
//! uniformly random LP with probability `remote`, otherwise to the LP itself, until `end`.
//! The first event of each start event is drawn the same way from time 0.

use crate::digest::Digest;
use crate::event::LpId;
use crate::lookahead::LookaheadTable;
use crate::lp::{Ctx, LogicalProcess};
use crate::partition::PartitionSpec;
use crate::sim::{SimConfig, Simulation};
use crate::time::{Time, US};

/// One PHOLD time unit in picoseconds (1 µs).
pub const UNIT: Time = US;

/// PHOLD parameters (times in PHOLD units of 1 µs, as floats like ROSS's options).
#[derive(Clone, Debug, PartialEq)]
pub struct PholdParams {
    /// Number of LPs.
    pub nlp: u32,
    /// Initial events per LP.
    pub start_events: u32,
    /// Probability that an event goes to a uniformly random LP instead of the sender itself.
    pub remote: f64,
    /// Mean delay between an event and the one it causes (units).
    pub mean: f64,
    /// Minimum delay, and the lookahead declared to the engine (units, > 0 for parallel runs).
    pub lookahead: f64,
    /// End time (units).
    pub end: f64,
    /// Run seed.
    pub seed: u64,
}

impl Default for PholdParams {
    fn default() -> Self {
        PholdParams {
            nlp: 2048,
            start_events: 1,
            remote: 0.25,
            mean: 1.0,
            lookahead: 1.0,
            end: 5000.0,
            seed: 1,
        }
    }
}

/// Most LPs a PHOLD run may have (`--nlp`), checked before allocating.
pub const MAX_NLP: u32 = 1 << 26;
/// Most initial events a PHOLD run may have (`--nlp` times `--start-events`).
pub const MAX_INITIAL_EVENTS: u64 = 1 << 28;

impl PholdParams {
    /// The lookahead in picoseconds.
    pub fn lookahead_ps(&self) -> Time {
        crate::time::from_secs_f64(self.lookahead * 1e-6)
    }

    /// The end time in picoseconds.
    pub fn end_ps(&self) -> Time {
        crate::time::from_secs_f64(self.end * 1e-6)
    }

    /// Checks the parameters, naming the offending one.
    pub fn validate(&self) -> Result<(), String> {
        if self.nlp == 0 {
            return Err("--nlp must be at least 1".into());
        }
        // Checked before anything is allocated: every LP and initial event is held in memory.
        if self.nlp > MAX_NLP {
            return Err(format!(
                "--nlp must be at most {MAX_NLP} (every LP is held in memory), got {}",
                self.nlp
            ));
        }
        let initial = u64::from(self.nlp) * u64::from(self.start_events);
        if initial > MAX_INITIAL_EVENTS {
            return Err(format!(
                "--start-events ({}) times --nlp ({}) is {initial} initial events, more than the \
                 limit of {MAX_INITIAL_EVENTS} (every pending event is held in memory)",
                self.start_events, self.nlp
            ));
        }
        if !(0.0..=1.0).contains(&self.remote) {
            return Err(format!("--remote must be in [0, 1], got {}", self.remote));
        }
        // Times are kept in whole picoseconds in 64 bits: 1e-6 to about 1.8e13 PHOLD units.
        let max_units = Time::MAX as f64 / UNIT as f64;
        if !(self.lookahead.is_finite() && self.lookahead_ps() >= 1 && self.lookahead <= max_units)
        {
            return Err(format!(
                "--lookahead must be > 0: at least 1e-6 (one picosecond, the engine's smallest \
                 delay between LPs) and at most {max_units:.3e}, got {:?}",
                self.lookahead
            ));
        }
        if !(self.mean.is_finite() && self.mean >= self.lookahead && self.mean <= max_units) {
            return Err(format!(
                "--mean must be >= --lookahead ({}) and at most {max_units:.3e}, got {:?}",
                self.lookahead, self.mean
            ));
        }
        if !(self.end.is_finite() && self.end >= 0.0 && self.end <= max_units) {
            return Err(format!(
                "--end must be >= 0 and at most {max_units:.3e} (the engine's 64-bit picosecond \
                 clock), got {:?}",
                self.end
            ));
        }
        Ok(())
    }

    /// Builds the PHOLD simulation with the given partitioning.
    pub fn build(&self, partition: PartitionSpec) -> Simulation<PholdLp> {
        let la = self.lookahead_ps();
        let extra_mean = (self.mean - self.lookahead).max(0.0) * UNIT as f64;
        let lps = (0..self.nlp)
            .map(|_| PholdLp {
                nlp: self.nlp,
                start_events: self.start_events,
                remote: self.remote,
                lookahead: la,
                extra_mean,
                received: 0,
                remote_sent: 0,
                fold: Digest::new().finish(),
            })
            .collect();
        Simulation::new(
            lps,
            LookaheadTable::uniform(la),
            SimConfig {
                seed: self.seed,
                end_time: self.end_ps(),
                partition,
            },
        )
    }
}

/// The PHOLD event payload (PHOLD events carry no data).
#[derive(Clone, Copy, Debug)]
pub struct PholdEvent;

/// One PHOLD LP.
#[derive(Clone, Debug)]
pub struct PholdLp {
    nlp: u32,
    start_events: u32,
    remote: f64,
    lookahead: Time,
    /// Mean of the exponential part of the delay, in ps.
    extra_mean: f64,
    /// Events received (handled).
    pub received: u64,
    /// Events sent to another LP.
    pub remote_sent: u64,
    /// Running digest of every handled event's key.
    pub fold: u64,
}

impl PholdLp {
    #[inline(always)]
    fn send_next(&mut self, ctx: &mut Ctx<'_, PholdEvent>) {
        let rng = ctx.rng();
        let dst = if rng.uniform() < self.remote {
            LpId(rng.below(u64::from(self.nlp)) as u32)
        } else {
            ctx.me()
        };
        let extra = ctx.rng().exponential(self.extra_mean);
        let delay = self.lookahead + extra as Time;
        if dst != ctx.me() {
            self.remote_sent += 1;
        }
        ctx.send(dst, delay, PholdEvent);
    }

    /// A digest of this LP's final state.
    pub fn digest(&self) -> u64 {
        Digest::new()
            .word(self.received)
            .word(self.remote_sent)
            .word(self.fold)
            .finish()
    }
}

impl LogicalProcess for PholdLp {
    type Event = PholdEvent;

    fn init(&mut self, ctx: &mut Ctx<'_, PholdEvent>) {
        for _ in 0..self.start_events {
            self.send_next(ctx);
        }
    }

    #[inline(always)]
    fn handle(&mut self, _event: PholdEvent, ctx: &mut Ctx<'_, PholdEvent>) {
        self.received += 1;
        let k = ctx.current_key();
        self.fold = (self.fold ^ k.time ^ k.order.rotate_left(17) ^ k.seq.rotate_left(41))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.send_next(ctx);
    }

    fn label(&self) -> String {
        "phold".to_string()
    }
}

/// A digest of all LPs' final states, combined in LP order.
pub fn state_digest(sim: &Simulation<PholdLp>) -> u64 {
    let mut d = Digest::new();
    for (slot, lp) in sim.slots().iter().zip(sim.lps()) {
        d.word(lp.digest()).word(slot.handled);
        for w in slot.rng.state() {
            d.word(w);
        }
    }
    d.finish()
}
