//! Pending-event sets: the future event list of the whole run (sequential executor) or of one
//! cluster (parallel executor).
//!
//! Two implementations, chosen by measurement (see `docs/performance.md`): a binary heap and a
//! lazily sorted bucket ring. Both pop events in exact key order.

use crate::event::{Event, EventKey, LpId};
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
    /// The destination of the event that the next pop would return, if the set knows it
    /// cheaply (a hint for prefetching; `None` by default).
    fn next_dst(&self) -> Option<LpId> {
        None
    }
    /// Whether no event is pending.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A 4-ary min-heap of events.
///
/// The heap orders 16-byte (time, slot) entries, four children to a 64-byte cache line; the
/// rest of each key (priority, source, sequence) and the event itself (destination and
/// payload, often 100 bytes and more) stay put in slabs. Entries are compared by time, and
/// only equal times look the rest of the key up, so a sift mostly compares one word and
/// moves a sixth of the bytes a heap of whole keys would.
pub struct HeapSet<E> {
    heap: Vec<HeapEntry>,
    /// `(order, seq)` of each slot's key (see [`EventKey`]).
    ties: Vec<(u64, u64)>,
    /// Event bodies by slot; `None` slots are listed in `free`.
    slab: Vec<Option<(LpId, E)>>,
    free: Vec<u32>,
}

/// A heap entry: the event's time and its slot in [`HeapSet`]'s slabs.
#[derive(Clone, Copy)]
struct HeapEntry {
    time: Time,
    slot: u32,
    /// The event's destination LP (in the entry's padding), so that the executor can start
    /// loading that LP's state one event ahead ([`PendingSet::next_dst`]).
    dst: u32,
}

/// Children per heap node.
const ARITY: usize = 4;

impl<E> HeapSet<E> {
    /// Removes and returns the earliest event, whatever its time (`Time::MAX` included).
    #[inline]
    fn pop_first(&mut self) -> Option<Event<E>> {
        let top = *self.heap.first()?;
        let last = self.heap.pop()?;
        if !self.heap.is_empty() {
            self.sift_down_root(last);
            // The next pop reads the new top's body: start loading it now, while the caller
            // handles this event (a body is a cold line in a large run otherwise).
            if let Some(next) = self.slab.get(self.heap[0].slot as usize) {
                crate::hint::prefetch(next);
            }
        }
        let slot = top.slot as usize;
        let (dst, payload) = self.slab[slot].take()?;
        let (order, seq) = self.ties[slot];
        self.free.push(top.slot);
        Some(Event {
            key: EventKey {
                time: top.time,
                order,
                seq,
            },
            dst,
            payload,
        })
    }

    /// Whether `a` orders before `b` (their full keys; slots are distinct).
    #[inline(always)]
    fn before(ties: &[(u64, u64)], a: HeapEntry, b: HeapEntry) -> bool {
        a.time < b.time || (a.time == b.time && ties[a.slot as usize] < ties[b.slot as usize])
    }

    /// Moves `e` up from position `i` to its place.
    #[inline]
    fn sift_up(&mut self, mut i: usize, e: HeapEntry) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let p = self.heap[parent];
            if !Self::before(&self.ties, e, p) {
                break;
            }
            self.heap[i] = p;
            i = parent;
        }
        self.heap[i] = e;
    }

    /// Fills the hole at the root with `e`, moving smaller children up.
    #[inline]
    fn sift_down_root(&mut self, e: HeapEntry) {
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let last = (first + ARITY).min(n);
            let mut best = first;
            let mut b = self.heap[first];
            for c in first + 1..last {
                let x = self.heap[c];
                if Self::before(&self.ties, x, b) {
                    best = c;
                    b = x;
                }
            }
            if !Self::before(&self.ties, b, e) {
                break;
            }
            self.heap[i] = b;
            i = best;
        }
        self.heap[i] = e;
    }
}

impl<E: Send> PendingSet<E> for HeapSet<E> {
    fn new(_lookahead: Time) -> Self {
        HeapSet {
            heap: Vec::new(),
            ties: Vec::new(),
            slab: Vec::new(),
            free: Vec::new(),
        }
    }
    #[inline]
    fn push(&mut self, ev: Event<E>) {
        let dst = ev.dst.0;
        let body = Some((ev.dst, ev.payload));
        let tie = (ev.key.order, ev.key.seq);
        let slot = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = body;
                self.ties[i as usize] = tie;
                i
            }
            None => {
                self.slab.push(body);
                self.ties.push(tie);
                u32::try_from(self.slab.len() - 1).expect("more than 2^32 pending events")
            }
        };
        let e = HeapEntry {
            time: ev.key.time,
            slot,
            dst,
        };
        self.heap.push(e);
        self.sift_up(self.heap.len() - 1, e);
    }
    #[inline]
    fn pop_before(&mut self, limit: Time) -> Option<Event<E>> {
        if self.heap.first()?.time >= limit {
            return None;
        }
        self.pop_first()
    }
    fn next_time(&mut self) -> Option<Time> {
        self.heap.first().map(|e| e.time)
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
    #[inline]
    fn next_dst(&self) -> Option<LpId> {
        self.heap.first().map(|e| LpId(e.dst))
    }
}

/// Buckets in the ring of a [`WindowSet`] (a power of two).
const WINDOW_BUCKETS: usize = 16;

/// Index of the extra list among a [`WindowSet`]'s buckets.
const EXTRA: usize = WINDOW_BUCKETS;

/// A counter of the counting sort in [`sort_descending`] holding more events than this has
/// them sorted by comparison rather than by insertion.
const MAX_BUCKET: usize = 12;

/// Runs of at most this many events are sorted by comparison (cheaper than counting).
const MIN_COUNTING_SORT: usize = 8;

/// A pending-event set specialised for lookahead windows.
///
/// Events below the current horizon are in `current` (sorted, popped from the back) or, if
/// they arrived after the sort (intra-window events), in the small `late` heap. Later events
/// wait unsorted in a ring of time buckets (each a power of two of picoseconds wide, at most
/// half a lookahead, so a window spans at least two); events beyond the ring wait in the `far`
/// heap. When the executor asks for a later limit, the buckets wholly below it and the part of
/// the bucket holding it that lies below it are sorted into `current` by a counting sort on time
/// (about one counter per event, so each event moves once) followed by an insertion pass that
/// orders each counter's events by the full key. Strongly clustered times fall back to a
/// comparison sort.
pub struct WindowSet<E> {
    horizon: Time,
    /// Events below the horizon in descending key order; every slot holds an event (the
    /// `Option` only lets the counting sort place events safely).
    current: Vec<Option<Event<E>>>,
    late: BinaryHeap<Reverse<Event<E>>>,
    /// A bucket is `1 << shift` picoseconds wide.
    shift: u32,
    /// Absolute index (time >> shift) of the first ring bucket: the one holding `horizon`.
    base: u64,
    /// The ring buckets, then (at index `EXTRA`) the events of the next run taken from the
    /// split bucket and the far heap.
    buckets: [Vec<Event<E>>; WINDOW_BUCKETS + 1],
    /// The earliest time in each ring bucket (`Time::MAX` if empty).
    bucket_min: [Time; WINDOW_BUCKETS],
    far: BinaryHeap<Reverse<Event<E>>>,
    /// Counting-sort counters (scratch).
    counts: Vec<u32>,
    len: usize,
}

/// The event in a slot of [`WindowSet::current`] (every slot holds one).
#[inline]
fn held<E>(slot: &Option<Event<E>>) -> Option<&Event<E>> {
    slot.as_ref()
}

impl<E> WindowSet<E> {
    /// The ring slot of absolute bucket `b`.
    #[inline]
    fn slot(b: u64) -> usize {
        (b as usize) & (WINDOW_BUCKETS - 1)
    }

    /// Moves everything below `limit` into the sorted run (`current` and `late` are empty and
    /// `limit > horizon` when this is called).
    #[inline(never)]
    fn refill(&mut self, limit: Time) {
        let lb = limit >> self.shift;
        let ring_end = self.base.saturating_add(WINDOW_BUCKETS as u64);
        // Buckets wholly below the limit are taken whole; the one holding it is split.
        let whole = self.base..lb.min(ring_end);
        if lb < ring_end {
            let i = Self::slot(lb);
            let (ring, extra) = self.buckets.split_at_mut(EXTRA);
            let (bucket, extra) = (&mut ring[i], &mut extra[0]);
            let mut min = Time::MAX;
            let mut k = 0;
            while k < bucket.len() {
                let t = bucket[k].time();
                if t < limit {
                    extra.push(bucket.swap_remove(k));
                } else {
                    min = min.min(t);
                    k += 1;
                }
            }
            self.bucket_min[i] = min;
        }
        while let Some(Reverse(ev)) = self.far.peek() {
            if ev.time() >= limit {
                break;
            }
            if let Some(Reverse(ev)) = self.far.pop() {
                self.buckets[EXTRA].push(ev);
            }
        }
        sort_into(
            &mut self.current,
            &mut self.counts,
            &mut self.buckets,
            whole.clone(),
        );
        for b in whole {
            self.bucket_min[Self::slot(b)] = Time::MAX;
        }
        self.horizon = limit;
        self.base = lb;
        // Far events that now fall inside the ring.
        let ring_end = lb.saturating_add(WINDOW_BUCKETS as u64);
        while let Some(Reverse(ev)) = self.far.peek() {
            let b = ev.time() >> self.shift;
            if b >= ring_end {
                break;
            }
            if let Some(Reverse(ev)) = self.far.pop() {
                let i = Self::slot(b);
                self.bucket_min[i] = self.bucket_min[i].min(ev.time());
                self.buckets[i].push(ev);
            }
        }
    }

    /// The time of the next event in `current`.
    #[inline]
    fn current_time(&self) -> Option<Time> {
        self.current.last().and_then(held).map(Event::time)
    }
}

/// Moves the events of the ring buckets `whole` (absolute indices) and of the extra list (the
/// last source) into `current` (empty) in descending key order, leaving the sources empty.
fn sort_into<E>(
    current: &mut Vec<Option<Event<E>>>,
    counts: &mut Vec<u32>,
    sources: &mut [Vec<Event<E>>; WINDOW_BUCKETS + 1],
    whole: std::ops::Range<u64>,
) {
    let mut picked = [false; WINDOW_BUCKETS + 1];
    for b in whole {
        picked[(b as usize) & (WINDOW_BUCKETS - 1)] = true;
    }
    picked[EXTRA] = true;
    // At most every ring bucket plus the extra list.
    let mut chosen: [Option<&mut Vec<Event<E>>>; WINDOW_BUCKETS + 1] = Default::default();
    for ((slot, source), &p) in chosen.iter_mut().zip(sources.iter_mut()).zip(&picked) {
        if p {
            *slot = Some(source);
        }
    }
    sort_descending(current, counts, &mut chosen);
}

/// Moves the events of `sources` into `current` (empty) in descending key order, leaving the
/// sources empty.
///
/// A counting sort on time (about one counter per event, over the events' time span), so each
/// event moves once, then each counter's events are ordered by their full key: by insertion
/// where a counter holds a few, by a comparison sort where times cluster. A few events are
/// sorted by comparison alone.
fn sort_descending<E>(
    current: &mut Vec<Option<Event<E>>>,
    counts: &mut Vec<u32>,
    sources: &mut [Option<&mut Vec<Event<E>>>],
) {
    let n: usize = sources.iter().flatten().map(|s| s.len()).sum();
    let key = |slot: &Option<Event<E>>| held(slot).map(|e| e.key);
    if n <= MIN_COUNTING_SORT {
        for s in sources.iter_mut().flatten() {
            current.extend(s.drain(..).map(Some));
        }
        current.sort_unstable_by_key(|slot| Reverse(key(slot)));
        return;
    }
    let (mut lo, mut hi) = (Time::MAX, 0);
    for e in sources.iter().flatten().flat_map(|s| s.iter()) {
        lo = lo.min(e.time());
        hi = hi.max(e.time());
    }
    let bits = usize::BITS - (n - 1).leading_zeros();
    let shift = (u64::BITS - (hi - lo).leading_zeros()).saturating_sub(bits);
    let counter = |e: &Event<E>| ((e.time() - lo) >> shift) as usize;
    counts.clear();
    counts.resize(1 << bits, 0);
    for e in sources.iter().flatten().flat_map(|s| s.iter()) {
        counts[counter(e)] += 1;
    }
    // Positions counted from the back, so the run comes out in descending order: counter `c`
    // ends where the earlier counters start.
    let mut end = n as u32;
    for c in counts.iter_mut() {
        end -= *c;
        *c += end;
    }
    current.resize_with(n, || None);
    for s in sources.iter_mut().flatten() {
        for e in s.drain(..) {
            let c = &mut counts[counter(&e)];
            *c -= 1;
            current[*c as usize] = Some(e);
        }
    }
    // Each counter now starts at `counts[c]` and ends where the previous (earlier) one starts.
    let mut run_end = n;
    for &start in counts.iter() {
        let run = &mut current[start as usize..run_end];
        run_end = start as usize;
        if run.len() > MAX_BUCKET {
            run.sort_unstable_by_key(|slot| Reverse(key(slot)));
            continue;
        }
        for i in 1..run.len() {
            let mut j = i;
            while j > 0 && key(&run[j - 1]) < key(&run[j]) {
                run.swap(j - 1, j);
                j -= 1;
            }
        }
    }
}

impl<E: Send> PendingSet<E> for WindowSet<E> {
    fn new(lookahead: Time) -> Self {
        let target = (lookahead / 2).max(1);
        WindowSet {
            horizon: 0,
            current: Vec::new(),
            late: BinaryHeap::new(),
            shift: 63 - target.leading_zeros(),
            base: 0,
            buckets: std::array::from_fn(|_| Vec::new()),
            bucket_min: [Time::MAX; WINDOW_BUCKETS],
            far: BinaryHeap::new(),
            counts: Vec::new(),
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, ev: Event<E>) {
        self.len += 1;
        let t = ev.time();
        if t < self.horizon {
            self.late.push(Reverse(ev));
            return;
        }
        // t >= horizon >= base << shift, so this does not underflow.
        let b = t >> self.shift;
        if b - self.base < WINDOW_BUCKETS as u64 {
            let i = Self::slot(b);
            self.bucket_min[i] = self.bucket_min[i].min(t);
            self.buckets[i].push(ev);
        } else {
            self.far.push(Reverse(ev));
        }
    }

    #[inline]
    fn pop_before(&mut self, limit: Time) -> Option<Event<E>> {
        loop {
            let from_late = match (self.current.last().and_then(held), self.late.peek()) {
                (Some(c), None) => {
                    if c.time() < limit {
                        self.len -= 1;
                        return self.current.pop().flatten();
                    }
                    return None;
                }
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
                (None, Some(_)) => true,
                (Some(c), Some(Reverse(l))) => l.key < c.key,
            };
            let t = if from_late {
                self.late.peek().map(|r| r.0.time())
            } else {
                self.current_time()
            };
            if t.is_some_and(|t| t < limit) {
                self.len -= 1;
                return if from_late {
                    self.late.pop().map(|r| r.0)
                } else {
                    self.current.pop().flatten()
                };
            }
            return None;
        }
    }

    fn next_time(&mut self) -> Option<Time> {
        let a = self.current_time();
        let b = self.late.peek().map(|r| r.0.time());
        let c = self
            .bucket_min
            .iter()
            .copied()
            .min()
            .filter(|&t| t < Time::MAX);
        let d = self.far.peek().map(|r| r.0.time());
        [a, b, c, d].into_iter().flatten().min()
    }

    fn len(&self) -> usize {
        self.len
    }
}

/// Number of buckets in the ring (a power of two, a multiple of 64). With the 100 ns links of
/// the ready scenarios the ring spans 16.8 us, the time a 64 KiB unit takes on a 3.9 GB/s link:
/// events further ahead (a unit's tail leaving a slow dragonfly channel) go through the
/// overflow heap, which costs about ten times as much per event (docs/performance.md).
const RING_BUCKETS: usize = 512;
/// Words of the ring's occupancy bitmap.
const RING_WORDS: usize = RING_BUCKETS / 64;
/// Buckets per lookahead: the bucket width is `lookahead / RING_SUBDIVISION` (at least 1 ps).
/// Small buckets keep each lazy sort short; measured in `docs/performance.md`.
const RING_SUBDIVISION: u64 = 2;

/// A lazily sorted bucket ring.
///
/// Events fall into buckets of fixed width by receive time; a bucket is sorted only when the
/// executor reaches it. Events beyond the ring's horizon wait in an overflow heap (a
/// [`HeapSet`]: 16-byte entries, the bodies left in place) and move into the ring as it
/// advances. Events pushed into the bucket being drained (intra-window
/// self-events) go to a small heap merged with the sorted bucket on pop.
pub struct BucketRing<E> {
    width: Time,
    /// `width` is `1 << shift`.
    shift: u32,
    buckets: Vec<Vec<Event<E>>>,
    /// Bit `i` set when ring bucket `i` holds events, so that the ring skips empty buckets a
    /// word at a time.
    occupied: [u64; RING_WORDS],
    /// Absolute index (time / width) of the bucket being drained.
    cur: u64,
    /// The drained bucket, sorted in descending key order (pop from the back); every slot holds
    /// an event (the `Option` only lets the counting sort place events safely).
    current: Vec<Option<Event<E>>>,
    /// Counting-sort counters (scratch).
    counts: Vec<u32>,
    /// Late arrivals at or before the current bucket.
    late: BinaryHeap<Reverse<Event<E>>>,
    /// Events at or beyond the ring horizon, ordered by key.
    overflow: HeapSet<E>,
    /// Events in the ring buckets (not current, late or overflow).
    in_ring: usize,
    len: usize,
}

impl<E: Send> BucketRing<E> {
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
            let slot = (b as usize) & (RING_BUCKETS - 1);
            self.buckets[slot].push(ev);
            self.occupied[slot / 64] |= 1 << (slot % 64);
            self.in_ring += 1;
        } else {
            self.overflow.push(ev);
        }
    }

    /// Moves overflow events that now fall inside the ring horizon into their buckets.
    fn refill_from_overflow(&mut self) {
        let horizon = self.cur.saturating_add(RING_BUCKETS as u64);
        while let Some(t) = self.overflow.next_time() {
            if self.bucket_of(t) >= horizon {
                break;
            }
            // pop_first, not pop_before(Time::MAX): an event at Time::MAX must move too.
            match self.overflow.pop_first() {
                Some(ev) => self.place(ev),
                None => break,
            }
        }
    }

    /// Advances `cur` to the next non-empty bucket, if its start is below `limit`, and sorts it.
    /// Returns false if nothing below `limit` remains outside `current`/`late`.
    fn advance(&mut self, limit: Time) -> bool {
        loop {
            if self.in_ring == 0 {
                // Jump straight to the overflow's first bucket (skip idle time).
                let Some(first) = self.overflow.next_time() else {
                    return false;
                };
                let target = self.bucket_of(first);
                if target.saturating_mul(self.width) >= limit {
                    return false;
                }
                self.cur = target.saturating_sub(1);
                self.refill_from_overflow();
                continue;
            }
            // The next non-empty ring bucket. Every overflow event lies at or beyond the
            // ring's horizon, after it, so jumping there skips nothing.
            let next = self.cur + 1 + self.empty_run_after_cur();
            if next.saturating_mul(self.width) >= limit {
                return false;
            }
            self.cur = next;
            let slot = (next as usize) & (RING_BUCKETS - 1);
            self.occupied[slot / 64] &= !(1 << (slot % 64));
            let bucket = &mut self.buckets[slot];
            self.in_ring -= bucket.len();
            sort_descending(&mut self.current, &mut self.counts, &mut [Some(bucket)]);
            self.refill_from_overflow();
            return true;
        }
    }

    /// How many empty ring buckets follow the current one before the next occupied one
    /// (there is one: `in_ring > 0`).
    fn empty_run_after_cur(&self) -> u64 {
        let start = ((self.cur + 1) as usize) & (RING_BUCKETS - 1);
        let (word, bit) = (start / 64, start % 64);
        // The bits at or after `start` in its word, the following words round the ring, then
        // the bits of the first word before `start`.
        for k in 0..=RING_WORDS {
            let w = (word + k) % RING_WORDS;
            let bits = match k {
                0 => self.occupied[w] & (u64::MAX << bit),
                RING_WORDS => self.occupied[w] & !(u64::MAX << bit),
                _ => self.occupied[w],
            };
            if bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                return ((slot + RING_BUCKETS - start) % RING_BUCKETS) as u64;
            }
        }
        unreachable!("the ring holds events but no bucket is marked occupied")
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
            occupied: [0; RING_WORDS],
            cur: 0,
            current: Vec::new(),
            counts: Vec::new(),
            late: BinaryHeap::new(),
            overflow: HeapSet::new(lookahead),
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
            let from_late = match (self.current.last().and_then(held), self.late.peek()) {
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
                self.current.last().and_then(held).map(Event::time)
            };
            if t.is_some_and(|t| t < limit) {
                self.len -= 1;
                return if from_late {
                    self.late.pop().map(|r| r.0)
                } else {
                    self.current.pop().flatten()
                };
            }
            return None;
        }
    }

    #[inline]
    fn next_dst(&self) -> Option<LpId> {
        let current = self.current.last().and_then(held);
        match (current, self.late.peek()) {
            (Some(c), Some(Reverse(l))) => Some(if l.key < c.key { l.dst } else { c.dst }),
            (Some(c), None) => Some(c.dst),
            (None, Some(Reverse(l))) => Some(l.dst),
            (None, None) => None,
        }
    }

    fn next_time(&mut self) -> Option<Time> {
        if self.current.is_empty() && self.late.is_empty() && !self.advance(Time::MAX) {
            return None;
        }
        let c = self.current.last().and_then(held).map(Event::time);
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

    /// Sparse events a few to hundreds of buckets apart, some beyond the ring: the ring jumps
    /// over empty buckets (round the end of the ring too) and keeps the heap's order.
    #[test]
    fn ring_jumps_over_empty_buckets_in_order() {
        let lookahead = 1000;
        let span = (RING_BUCKETS as u64) * (lookahead / RING_SUBDIVISION);
        let run = |mut p: Box<dyn PendingSet<u32>>| {
            let mut rng = Rng::seed_from_u64(7);
            let mut out = Vec::new();
            let mut seq = 0;
            p.push(ev(0, 0, 0));
            while out.len() < 5_000 {
                let Some(e) = p.pop_before(Time::MAX) else {
                    break;
                };
                out.push(e.key);
                for _ in 0..rng.below(3) {
                    seq += 1;
                    let delay = rng.below(span + span / 2);
                    p.push(ev(e.time() + delay, (seq % 5) as u32, seq));
                }
                if p.is_empty() {
                    seq += 1;
                    p.push(ev(e.time() + span / 3, 1, seq));
                }
            }
            out
        };
        let heap = run(Box::new(HeapSet::<u32>::new(lookahead)));
        let ring = run(Box::new(BucketRing::<u32>::new(lookahead)));
        assert_eq!(heap.len(), 5_000);
        assert_eq!(heap, ring);
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

    #[test]
    fn ring_names_the_destination_of_the_event_it_pops_next() {
        // Current-bucket events and late ones (pushed into the bucket being drained) compete;
        // the hint must follow whichever pops first.
        let mut p: BucketRing<u32> = BucketRing::new(1_000);
        let mut rng = Rng::seed_from_u64(11);
        for seq in 0..400 {
            let mut e = ev(rng.below(20_000), 0, seq);
            e.dst = LpId(rng.below(50) as u32);
            p.push(e);
        }
        let mut seq = 400;
        let mut hinted = 0;
        loop {
            let hint = p.next_dst();
            let Some(e) = p.pop_before(Time::MAX) else {
                break;
            };
            if let Some(d) = hint {
                assert_eq!(d, e.dst, "hint for the event at {} ps", e.time());
                hinted += 1;
            }
            if seq < 800 && rng.below(3) == 0 {
                let mut late = ev(e.time() + rng.below(300), 1, seq);
                late.dst = LpId(100 + rng.below(50) as u32);
                p.push(late);
                seq += 1;
            }
        }
        assert!(hinted > 300, "a hint for most pops: {hinted}");
    }

    #[test]
    fn counting_sort_orders_few_spread_and_clustered_runs_by_full_key() {
        let mut rng = Rng::seed_from_u64(3);
        let mut counts = Vec::new();
        // (events, time span): a few events; spread times (insertion within counters);
        // clustered times, many on one counter and on one time (comparison within counters).
        for (n, span) in [(5, 1_000), (300, 1_000_000), (300, 40), (2_000, 3), (64, 1)] {
            let mut sources: Vec<Vec<Event<u32>>> = vec![Vec::new(); 3];
            let mut want = Vec::new();
            for seq in 0..n {
                let e = ev(1_000 + rng.below(span), rng.below(4) as u32, seq);
                want.push(e.key);
                sources[rng.below(3) as usize].push(e);
            }
            want.sort_unstable_by(|a, b| b.cmp(a));
            let mut current = Vec::new();
            let mut refs: Vec<Option<&mut Vec<Event<u32>>>> =
                sources.iter_mut().map(Some).collect();
            sort_descending(&mut current, &mut counts, &mut refs);
            let got: Vec<EventKey> = current.iter().flatten().map(|e| e.key).collect();
            assert_eq!(got, want, "{n} events over {span} ps");
            assert!(sources.iter().all(Vec::is_empty));
        }
    }

    /// Pops in lookahead windows as the executors do (limits advancing from the earliest
    /// pending time), pushing intra-window, near, far and equal-time events, and returns the
    /// popped keys with each window's `next_time`.
    fn windowed_workout<P: PendingSet<u32>>(lookahead: Time, clustered: bool) -> Vec<EventKey> {
        let mut p = P::new(lookahead);
        let mut rng = Rng::seed_from_u64(7);
        let mut seq = 0;
        let mut out = Vec::new();
        let mut push = |p: &mut P, t: Time, rng: &mut Rng| {
            // Clustered runs put many events on a few times (the counting sort's fallback).
            let t = if clustered {
                t / (lookahead * 2) * lookahead
            } else {
                t
            };
            p.push(ev(t, rng.below(5) as u32, seq));
            seq += 1;
        };
        for _ in 0..300 {
            let t = rng.below(20 * lookahead);
            push(&mut p, t, &mut rng);
        }
        while out.len() < 30_000 {
            let Some(gmin) = p.next_time() else {
                break;
            };
            out.push(EventKey::new(gmin, 9, LpId(9), 9));
            let limit = gmin + lookahead;
            while let Some(e) = p.pop_before(limit) {
                assert!(e.time() < limit);
                out.push(e.key);
                let now = e.time();
                let r = rng.below(100);
                let t = if r < 5 {
                    now + rng.below(lookahead)
                } else if r < 90 {
                    now + lookahead + rng.below(3 * lookahead)
                } else {
                    now + 40 * lookahead + rng.below(lookahead)
                };
                push(&mut p, t, &mut rng);
            }
        }
        out
    }

    #[test]
    fn window_set_and_ring_match_the_heap_in_windows() {
        for la in [1, 3, 64, 1000, 500_000] {
            for clustered in [false, true] {
                let heap = windowed_workout::<HeapSet<u32>>(la, clustered);
                for (name, other) in [
                    ("window", windowed_workout::<WindowSet<u32>>(la, clustered)),
                    ("ring", windowed_workout::<BucketRing<u32>>(la, clustered)),
                ] {
                    assert_eq!(heap.len(), other.len());
                    let first_diff = heap.iter().zip(&other).position(|(a, b)| a != b);
                    assert_eq!(
                        first_diff, None,
                        "{name}: lookahead {la}, clustered {clustered}"
                    );
                }
            }
        }
    }
}
