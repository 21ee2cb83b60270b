//! Logical processes and the context they use to schedule events.

use crate::event::{Event, EventKey, LpId};
use crate::rng::Rng;
use crate::time::Time;

/// A logical process (LP): a piece of model state that handles one event at a time.
///
/// A model with several kinds of LP (routers, NICs, SSDs) uses an enum implementing this trait,
/// so dispatch stays static. LPs must only change their own state; all interaction goes through
/// events sent with [`Ctx::send`].
pub trait LogicalProcess: Send {
    /// The payload carried by this model's events.
    type Event: Send;

    /// Called once per LP, in LP order, at time 0 before the run: schedule initial events here.
    fn init(&mut self, _ctx: &mut Ctx<'_, Self::Event>) {}

    /// Handles one event at `ctx.now()` (picoseconds).
    fn handle(&mut self, event: Self::Event, ctx: &mut Ctx<'_, Self::Event>);

    /// The lookahead class of this LP (an index into the [`crate::LookaheadTable`]).
    fn class(&self) -> u16 {
        0
    }

    /// A cluster hint: LPs with the same hint are kept on one cluster (for example all LPs of
    /// one router group). `None` leaves placement to the default contiguous blocks.
    fn cluster_hint(&self) -> Option<u32> {
        None
    }

    /// A finer grouping inside the cluster hint's region (for example the router an LP belongs
    /// to, or the router itself): under [`crate::PartitionSpec::Split`], LPs with the same
    /// cluster hint and split hint form one cluster, and the asynchronous executor deals a
    /// region's clusters out separately where that evens the threads ([`crate::Partition`]).
    /// `None` (the default) keeps the region whole.
    fn split_hint(&self) -> Option<u32> {
        None
    }

    /// A short human label for error messages (e.g. `router 12`). Empty by default.
    fn label(&self) -> String {
        String::new()
    }

    /// Starts loading this LP's state into cache: the sequential executor calls it for the
    /// destination of the next event while the current one is handled (see
    /// [`crate::prefetch`]). A hint only; by default nothing.
    #[inline]
    fn prefetch(&self) {}
}

/// Per-LP engine bookkeeping kept beside the model state.
#[derive(Clone, Debug)]
pub struct LpSlot<L> {
    /// The model's LP state.
    pub lp: L,
    /// The LP's private random stream.
    pub rng: Rng,
    /// Sequence number of the LP's next send.
    pub next_seq: u64,
    /// Events this LP has handled.
    pub handled: u64,
}

/// What an LP sees while it handles an event: the current time, its id, its random stream, and
/// the means to send events and to ask the run to stop.
pub struct Ctx<'a, E> {
    pub(crate) now: Time,
    pub(crate) end: Time,
    pub(crate) me: LpId,
    pub(crate) current: EventKey,
    pub(crate) rng: &'a mut Rng,
    pub(crate) next_seq: &'a mut u64,
    pub(crate) out: &'a mut Vec<Event<E>>,
    pub(crate) stop: &'a mut bool,
}

impl<'a, E> Ctx<'a, E> {
    /// The current simulated time in picoseconds.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// The run's end time in picoseconds: events at or after it are not handled
    /// ([`crate::SimConfig::end_time`]; `Time::MAX` when the run goes on until no events
    /// remain). An LP may act ahead on its own future (send now what it would send at a later
    /// time) only for times before it, so that a run cut off at its end reports the same.
    #[inline]
    pub fn end_time(&self) -> Time {
        self.end
    }

    /// The id of the LP handling the event.
    #[inline]
    pub fn me(&self) -> LpId {
        self.me
    }

    /// The key of the event being handled (its sender and sequence number included).
    #[inline]
    pub fn current_key(&self) -> EventKey {
        self.current
    }

    /// The LP's private random stream.
    #[inline]
    pub fn rng(&mut self) -> &mut Rng {
        self.rng
    }

    /// Sends `payload` to `dst`, to be received `delay` picoseconds from now, with priority 0.
    #[inline]
    pub fn send(&mut self, dst: LpId, delay: Time, payload: E) {
        self.send_with_priority(dst, delay, 0, payload);
    }

    /// Sends `payload` to this LP itself after `delay` picoseconds.
    #[inline]
    pub fn send_self(&mut self, delay: Time, payload: E) {
        let me = self.me;
        self.send_with_priority(me, delay, 0, payload);
    }

    /// Sends with an explicit priority: among events at the same time, smaller priorities are
    /// handled first.
    #[inline]
    pub fn send_with_priority(&mut self, dst: LpId, delay: Time, priority: u8, payload: E) {
        let seq = *self.next_seq;
        *self.next_seq += 1;
        self.out.push(Event {
            key: EventKey::new(self.now.saturating_add(delay), priority, self.me, seq),
            dst,
            payload,
        });
    }

    /// Asks the run to stop. A request made at time `s` ends the run after every event earlier
    /// than `s` plus the lookahead window width (the smallest declared lookahead); the earliest
    /// request counts. Every executor and thread count handles the same events, so results
    /// stay deterministic.
    pub fn request_stop(&mut self) {
        *self.stop = true;
    }
}
