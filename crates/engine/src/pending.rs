//! Pending-event sets: the future event list of the whole run (sequential executor) or of one
//! cluster (parallel executor).
//!
//! Two implementations, chosen by measurement (see `docs/performance.md`): a binary heap and a
//! lazily sorted bucket ring. Both pop events in exact key order.

use crate::event::Event;
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Which pending-event structure an executor uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PendingKind {
    /// A binary heap ordered by event key.
    Heap,
    /// A lazily sorted bucket ring (the default: fastest on the packet-level network model).
    #[default]
    Ring,
    /// A window-specialised set: near-future events wait unsorted and are sorted once per
    /// lookahead window; distant events wait in a heap (fastest on PHOLD).
    Window,
}

/// A future event list that pops events in key order.
pub trait PendingSet<E>: Send {
    /// An empty set tuned for a lookahead of `lookahead` picoseconds.
    fn new(lookahead: Time) -> Self
    where
        Self: Sized;
    /// Adds an event.
    fn push(&mut self, ev: Event<E>);
    /// Removes and returns the smallest event if its time is below `limit`.
    fn pop_before(&mut self, limit: Time) -> Option<Event<E>>;
    /// The time of the smallest event, if any.
    fn next_time(&mut self) -> Option<Time>;
    /// Number of pending events.
    fn len(&self) -> usize;
    /// Whether no event is pending.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A binary min-heap of events.
pub struct HeapSet<E> {
    heap: BinaryHeap<Reverse<Event<E>>>,
}

impl<E: Send> PendingSet<E> for HeapSet<E> {
    fn new(_lookahead: Time) -> Self {
        HeapSet {
            heap: BinaryHeap::new(),
        }
    }
    #[inline]
    fn push(&mut self, ev: Event<E>) {
        self.heap.push(Reverse(ev));
    }
    #[inline]
    fn pop_before(&mut self, limit: Time) -> Option<Event<E>> {
        match self.heap.peek() {
            Some(Reverse(ev)) if ev.time() < limit => self.heap.pop().map(|r| r.0),
            _ => None,
        }
    }
    fn next_time(&mut self) -> Option<Time> {
        self.heap.peek().map(|r| r.0.time())
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
}

/// Sorts events in descending key order: by time alone first (one word to compare), then each
/// run of equal times by the full key. Same result as sorting by the full key.
fn sort_descending<E>(v: &mut [Event<E>]) {
    v.sort_unstable_by_key(|e| Reverse(e.key.time));
    fix_ties(v);
}

/// Sorts each run of equal times (already in place) by the full key, descending.
fn fix_ties<E>(v: &mut [Event<E>]) {
    let mut i = 0;
    while i < v.len() {
        let t = v[i].key.time;
        let mut j = i + 1;
        while j < v.len() && v[j].key.time == t {
            j += 1;
        }
        if j - i > 1 {
            v[i..j].sort_unstable_by_key(|e| Reverse(e.key));
        }
        i = j;
    }
}

/// Lookahead windows covered by the unsorted near-future list of a [`WindowSet`].
const WINDOW_SPAN: u64 = 4;

/// A pending-event set specialised for lookahead windows.
///
/// Events below the current horizon are in `current` (sorted, popped from the back) or, if
/// they arrived after the sort (intra-window events), in the small `late` heap. Events up to
/// `WINDOW_SPAN` lookaheads ahead wait unsorted in `near`; when the executor asks for a later
/// limit, `near` is partitioned and the part below the new horizon is sorted once. Events
/// further ahead wait in the `far` heap so they are not rescanned every window.
pub struct WindowSet<E> {
    horizon: Time,
    current: Vec<Event<E>>,
    late: BinaryHeap<Reverse<Event<E>>>,
    near: Vec<Event<E>>,
    near_min: Time,
    near_limit: Time,
    far: BinaryHeap<Reverse<Event<E>>>,
    span: Time,
    len: usize,
}

impl<E> WindowSet<E> {
    /// Moves everything below `limit` into the sorted run (which is empty when this is called).
    fn refill(&mut self, limit: Time) {
        if self.near_limit < limit.saturating_add(self.span) {
            self.near_limit = limit.saturating_add(self.span);
            while let Some(Reverse(ev)) = self.far.peek() {
                if ev.time() >= self.near_limit {
                    break;
                }
                if let Some(Reverse(ev)) = self.far.pop() {
                    self.near_min = self.near_min.min(ev.time());
                    self.near.push(ev);
                }
            }
        }
        self.horizon = limit;
        if self.near_min >= limit {
            return;
        }
        let mut min = Time::MAX;
        let mut i = 0;
        while i < self.near.len() {
            let t = self.near[i].time();
            if t < limit {
                self.current.push(self.near.swap_remove(i));
            } else {
                min = min.min(t);
                i += 1;
            }
        }
        self.near_min = min;
        sort_descending(&mut self.current);
    }
}

impl<E: Send> PendingSet<E> for WindowSet<E> {
    fn new(lookahead: Time) -> Self {
        WindowSet {
            horizon: 0,
            current: Vec::new(),
            late: BinaryHeap::new(),
            near: Vec::new(),
            near_min: Time::MAX,
            near_limit: 0,
            far: BinaryHeap::new(),
            span: lookahead.max(1).saturating_mul(WINDOW_SPAN),
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, ev: Event<E>) {
        self.len += 1;
        let t = ev.time();
        if t < self.horizon {
            self.late.push(Reverse(ev));
        } else if t < self.near_limit {
            self.near_min = self.near_min.min(t);
            self.near.push(ev);
        } else {
            self.far.push(Reverse(ev));
        }
    }

    #[inline]
    fn pop_before(&mut self, limit: Time) -> Option<Event<E>> {
        loop {
            let from_late = match (self.current.last(), self.late.peek()) {
                (None, None) => {
                    if limit <= self.horizon || self.len == 0 {
                        return None;
                    }
                    self.refill(limit);
                    if self.current.is_empty() {
                        return None;
                    }
                    continue;
                }
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(c), Some(Reverse(l))) => l.key < c.key,
            };
            let t = if from_late {
                self.late.peek().map(|r| r.0.time())
            } else {
                self.current.last().map(Event::time)
            };
            if t.is_some_and(|t| t < limit) {
                self.len -= 1;
                return if from_late {
                    self.late.pop().map(|r| r.0)
                } else {
                    self.current.pop()
                };
            }
            return None;
        }
    }

    fn next_time(&mut self) -> Option<Time> {
        let a = self.current.last().map(Event::time);
        let b = self.late.peek().map(|r| r.0.time());
        let c = (self.near_min < Time::MAX).then_some(self.near_min);
        let d = self.far.peek().map(|r| r.0.time());
        [a, b, c, d].into_iter().flatten().min()
    }

    fn len(&self) -> usize {
        self.len
    }
}

/// Number of buckets in the ring (a power of two).
const RING_BUCKETS: usize = 128;
/// Buckets per lookahead: the bucket width is `lookahead / RING_SUBDIVISION` (at least 1 ps).
/// Small buckets keep each lazy sort short; measured in `docs/performance.md`.
const RING_SUBDIVISION: u64 = 2;

/// A lazily sorted bucket ring.
///
/// Events fall into buckets of fixed width by receive time; a bucket is sorted only when the
/// executor reaches it. Events beyond the ring's horizon wait in an unsorted overflow list and
/// move into the ring as it advances. Events pushed into the bucket being drained (intra-window
/// self-events) go to a small heap merged with the sorted bucket on pop.
pub struct BucketRing<E> {
    width: Time,
    /// `width` is `1 << shift`.
    shift: u32,
    buckets: Vec<Vec<Event<E>>>,
    /// Absolute index (time / width) of the bucket being drained.
    cur: u64,
    /// The drained bucket, sorted in descending key order (pop from the back).
    current: Vec<Event<E>>,
    /// Late arrivals at or before the current bucket.
    late: BinaryHeap<Reverse<Event<E>>>,
    /// Events at or beyond the ring horizon, ordered by key.
    overflow: BinaryHeap<Reverse<Event<E>>>,
    /// Events in the ring buckets (not current, late or overflow).
    in_ring: usize,
    len: usize,
}

impl<E> BucketRing<E> {
    #[inline]
    fn bucket_of(&self, t: Time) -> u64 {
        t >> self.shift
    }

    #[inline]
    fn place(&mut self, ev: Event<E>) {
        let b = self.bucket_of(ev.time());
        if b <= self.cur {
            self.late.push(Reverse(ev));
        } else if b - self.cur < RING_BUCKETS as u64 {
            self.buckets[(b as usize) & (RING_BUCKETS - 1)].push(ev);
            self.in_ring += 1;
        } else {
            self.overflow.push(Reverse(ev));
        }
    }

    /// Moves overflow events that now fall inside the ring horizon into their buckets.
    fn refill_from_overflow(&mut self) {
        let horizon = self.cur.saturating_add(RING_BUCKETS as u64);
        while let Some(Reverse(ev)) = self.overflow.peek() {
            if self.bucket_of(ev.time()) >= horizon {
                break;
            }
            if let Some(Reverse(ev)) = self.overflow.pop() {
                self.place(ev);
            }
        }
    }

    /// Advances `cur` to the next non-empty bucket, if its start is below `limit`, and sorts it.
    /// Returns false if nothing below `limit` remains outside `current`/`late`.
    fn advance(&mut self, limit: Time) -> bool {
        loop {
            if self.in_ring == 0 {
                if self.overflow.is_empty() {
                    return false;
                }
                // Jump straight to the overflow's first bucket (skip idle time).
                let Some(Reverse(first)) = self.overflow.peek() else {
                    return false;
                };
                let target = self.bucket_of(first.time());
                if target.saturating_mul(self.width) >= limit {
                    return false;
                }
                self.cur = target.saturating_sub(1);
                self.refill_from_overflow();
                continue;
            }
            let next = self.cur + 1;
            if next.saturating_mul(self.width) >= limit {
                return false;
            }
            self.cur = next;
            self.refill_from_overflow();
            let slot = (next as usize) & (RING_BUCKETS - 1);
            if !self.buckets[slot].is_empty() {
                let mut bucket = std::mem::take(&mut self.buckets[slot]);
                self.in_ring -= bucket.len();
                bucket.sort_unstable_by_key(|e| Reverse(e.key));
                // Reuse the old (empty) current vector's allocation for the ring slot.
                let old = std::mem::replace(&mut self.current, bucket);
                self.buckets[slot] = old;
                return true;
            }
        }
    }
}

impl<E: Send> PendingSet<E> for BucketRing<E> {
    fn new(lookahead: Time) -> Self {
        // A power of two not above lookahead / RING_SUBDIVISION, so bucketing is a shift.
        let target = (lookahead / RING_SUBDIVISION).max(1);
        let shift = 63 - target.leading_zeros();
        let width = 1u64 << shift;
        BucketRing {
            width,
            shift,
            buckets: (0..RING_BUCKETS).map(|_| Vec::new()).collect(),
            cur: 0,
            current: Vec::new(),
            late: BinaryHeap::new(),
            overflow: BinaryHeap::new(),
            in_ring: 0,
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, ev: Event<E>) {
        self.len += 1;
        self.place(ev);
    }

    #[inline]
    fn pop_before(&mut self, limit: Time) -> Option<Event<E>> {
        loop {
            let from_late = match (self.current.last(), self.late.peek()) {
                (None, None) => {
                    if !self.advance(limit) {
                        return None;
                    }
                    continue;
                }
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(c), Some(Reverse(l))) => l.key < c.key,
            };
            let t = if from_late {
                self.late.peek().map(|r| r.0.time())
            } else {
                self.current.last().map(Event::time)
            };
            if t.is_some_and(|t| t < limit) {
                self.len -= 1;
                return if from_late {
                    self.late.pop().map(|r| r.0)
                } else {
                    self.current.pop()
                };
            }
            return None;
        }
    }

    fn next_time(&mut self) -> Option<Time> {
        if self.current.is_empty() && self.late.is_empty() && !self.advance(Time::MAX) {
            return None;
        }
        let c = self.current.last().map(Event::time);
        let l = self.late.peek().map(|r| r.0.time());
        match (c, l) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{EventKey, LpId};
    use crate::rng::Rng;

    fn ev(t: Time, src: u32, seq: u64) -> Event<u32> {
        Event {
            key: EventKey::new(t, 0, LpId(src), seq),
            dst: LpId(0),
            payload: src,
        }
    }

    fn drain<P: PendingSet<u32>>(p: &mut P) -> Vec<EventKey> {
        let mut out = Vec::new();
        while let Some(e) = p.pop_before(Time::MAX) {
            out.push(e.key);
        }
        out
    }

    fn random_workout<P: PendingSet<u32>>(lookahead: Time) -> Vec<EventKey> {
        // Interleaves pushes (including far-future and same-bucket ones) with pops and checks
        // the pop order is nondecreasing.
        let mut p = P::new(lookahead);
        let mut rng = Rng::seed_from_u64(42);
        let mut now = 0;
        let mut out = Vec::new();
        let mut seq = 0;
        for _ in 0..200 {
            p.push(ev(rng.below(10_000), 1, seq));
            seq += 1;
        }
        while out.len() < 20_000 {
            let Some(e) = p.pop_before(Time::MAX) else {
                break;
            };
            assert!(e.time() >= now);
            now = e.time();
            out.push(e.key);
            let r = rng.below(100);
            let delay = if r < 10 {
                0
            } else if r < 20 {
                rng.below(lookahead / 4 + 1)
            } else if r < 95 {
                lookahead + rng.below(3 * lookahead)
            } else {
                1_000 * lookahead + rng.below(lookahead)
            };
            p.push(ev(now + delay, (r % 7) as u32, seq));
            seq += 1;
        }
        out
    }

    #[test]
    fn heap_and_ring_agree_exactly() {
        for la in [1, 16, 1000, 1_000_000] {
            let a = random_workout::<HeapSet<u32>>(la);
            let w = random_workout::<WindowSet<u32>>(la);
            assert_eq!(a, w, "window set, lookahead {la}");
            let b = random_workout::<BucketRing<u32>>(la);
            let first_diff = a.iter().zip(&b).position(|(x, y)| x != y);
            assert_eq!(
                first_diff,
                None,
                "lookahead {la}: {:?}",
                first_diff.map(|i| (a[i], b[i]))
            );
            assert_eq!(a.len(), b.len());
        }
    }

    #[test]
    fn pop_before_respects_limit_and_equal_times() {
        for kind in 0..2 {
            let mut evs = vec![ev(5, 2, 0), ev(5, 1, 0), ev(5, 1, 1), ev(100, 0, 0)];
            evs.reverse();
            let keys = if kind == 0 {
                let mut p = HeapSet::new(10);
                for e in evs {
                    p.push(e);
                }
                assert!(p.pop_before(5).is_none());
                assert_eq!(p.next_time(), Some(5));
                drain(&mut p)
            } else {
                let mut p = BucketRing::new(10);
                for e in evs {
                    p.push(e);
                }
                assert!(p.pop_before(5).is_none());
                assert_eq!(p.next_time(), Some(5));
                drain(&mut p)
            };
            let srcs: Vec<u32> = keys.iter().map(|k| k.source().0).collect();
            assert_eq!(srcs, vec![1, 1, 2, 0]);
            assert_eq!(keys[0].seq, 0);
        }
    }

    #[test]
    fn ring_skips_idle_time_and_handles_huge_times() {
        let mut p: BucketRing<u32> = BucketRing::new(16);
        p.push(ev(u64::MAX - 1, 0, 0));
        p.push(ev(1 << 40, 0, 1));
        p.push(ev(3, 0, 2));
        assert_eq!(p.len(), 3);
        let ks = drain(&mut p);
        assert_eq!(
            ks.iter().map(|k| k.time).collect::<Vec<_>>(),
            vec![3, 1 << 40, u64::MAX - 1]
        );
        assert!(p.is_empty());
        assert_eq!(p.next_time(), None);
    }
}
