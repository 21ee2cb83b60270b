//! The flow model's end times: an indexed min-heap holding at most one entry per flow, keyed
//! by `(end time in ps, flow id)`, whose entries move when a flow's rate changes.
//!
//! Why indexed: a flow's end moves every time a flow sharing one of its links starts or ends.
//! A plain heap with one entry per move keeps every superseded entry until it reaches the top
//! (at full scale, most of the heap); here a move sifts the flow's one entry up or down, so
//! the heap holds only live flows and a pop never meets a stale one. The order is the same
//! `(time, id)` order the plain heap gave its live entries.

use bbsim_engine::Time;

/// No heap position: the flow has no entry.
const ABSENT: u32 = u32::MAX;

/// Children per heap node (four `(Time, u32)` entries share a cache line or two).
const ARITY: usize = 4;

/// Flow ends `(time, id)`, earliest first, one per flow id.
#[derive(Clone, Debug, Default)]
pub(crate) struct EndHeap {
    heap: Vec<(Time, u32)>,
    /// Per flow id: its index in `heap`, or [`ABSENT`].
    pos: Vec<u32>,
}

impl EndHeap {
    /// The earliest end, if any.
    pub(crate) fn peek(&self) -> Option<(Time, u32)> {
        self.heap.first().copied()
    }

    /// Files flow `id`'s end at `at`, replacing the one it had.
    pub(crate) fn set(&mut self, id: u32, at: Time) {
        let i = id as usize;
        if i >= self.pos.len() {
            self.pos.resize(i + 1, ABSENT);
        }
        let e = (at, id);
        match self.pos[i] {
            ABSENT => {
                self.heap.push(e);
                self.sift_up(self.heap.len() - 1, e);
            }
            p => {
                let p = p as usize;
                if e < self.heap[p] {
                    self.sift_up(p, e);
                } else {
                    self.sift_down(p, e);
                }
            }
        }
    }

    /// Drops flow `id`'s end, if it has one.
    pub(crate) fn remove(&mut self, id: u32) {
        let Some(&p) = self.pos.get(id as usize) else {
            return;
        };
        if p == ABSENT {
            return;
        }
        self.pos[id as usize] = ABSENT;
        let p = p as usize;
        let Some(last) = self.heap.pop() else {
            return;
        };
        if p < self.heap.len() {
            if last < self.heap[p] {
                self.sift_up(p, last);
            } else {
                self.sift_down(p, last);
            }
        }
    }

    /// Places `e` at or above position `i`.
    fn sift_up(&mut self, mut i: usize, e: (Time, u32)) {
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let p = self.heap[parent];
            if p <= e {
                break;
            }
            self.put(i, p);
            i = parent;
        }
        self.put(i, e);
    }

    /// Places `e` at or below position `i`.
    fn sift_down(&mut self, mut i: usize, e: (Time, u32)) {
        let n = self.heap.len();
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let last = (first + ARITY).min(n);
            let mut best = first;
            for c in first + 1..last {
                if self.heap[c] < self.heap[best] {
                    best = c;
                }
            }
            let b = self.heap[best];
            if e <= b {
                break;
            }
            self.put(i, b);
            i = best;
        }
        self.put(i, e);
    }

    fn put(&mut self, i: usize, e: (Time, u32)) {
        self.heap[i] = e;
        self.pos[e.1 as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bbsim_engine::Rng;
    use std::collections::BTreeSet;

    #[test]
    fn matches_an_ordered_set_under_random_moves() {
        let mut heap = EndHeap::default();
        let mut reference: BTreeSet<(Time, u32)> = BTreeSet::new();
        let mut at: Vec<Option<Time>> = vec![None; 64];
        let mut rng = Rng::seed_from_u64(7);
        for _ in 0..20_000 {
            let id = rng.below(64) as u32;
            match rng.below(4) {
                0 | 1 => {
                    let t = rng.below(1_000);
                    if let Some(old) = at[id as usize].replace(t) {
                        reference.remove(&(old, id));
                    }
                    reference.insert((t, id));
                    heap.set(id, t);
                }
                2 => {
                    if let Some(old) = at[id as usize].take() {
                        reference.remove(&(old, id));
                    }
                    heap.remove(id);
                }
                _ => {
                    let first = reference.iter().next().copied();
                    assert_eq!(heap.peek(), first);
                    if let Some((t, id)) = first {
                        reference.remove(&(t, id));
                        at[id as usize] = None;
                        heap.remove(id);
                    }
                }
            }
            assert_eq!(heap.peek(), reference.iter().next().copied());
            assert_eq!(heap.heap.len(), reference.len());
        }
    }
}
