//! What the multi-threaded executors share: dealing LP slots out into clusters and back into
//! LP order, running one worker per thread with panics turned into errors, and locking.

use crate::error::EngineError;
use crate::event::LpId;
use crate::lp::{LogicalProcess, LpSlot};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard};

/// Locks `m`; a mutex poisoned by a panicking worker still gives its data (the panic is
/// reported as the run's error).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Takes `m`'s data at the end of a run, poisoned or not (as [`lock`]).
pub(crate) fn unpoisoned<T>(m: Mutex<T>) -> T {
    m.into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One cluster's LPs.
pub(crate) struct ClusterLps<L: LogicalProcess> {
    pub slots: Vec<LpSlot<L>>,
    /// Global LP index of each local slot.
    pub members: Vec<u32>,
    /// The first member, when the members are consecutive LPs (local slot = LP - first).
    pub first_member: Option<u32>,
}

impl<L: LogicalProcess> ClusterLps<L> {
    /// The local slot of `lp`, one of this cluster's members (`local_index` from
    /// [`deal_into_clusters`]).
    #[inline]
    pub fn local(&self, lp: LpId, local_index: &[u32]) -> usize {
        match self.first_member {
            Some(first) => lp.0.wrapping_sub(first) as usize,
            None => local_index[lp.index()] as usize,
        }
    }
}

/// Moves every LP slot out of `slots` into its group (`group_of[lp]`, one of `groups`: the
/// partition's clusters, or its regions); returns the groups and each LP's local slot in its
/// group.
pub(crate) fn deal_into_clusters<L: LogicalProcess>(
    slots: &mut Vec<LpSlot<L>>,
    group_of: &[u32],
    groups: usize,
) -> (Vec<ClusterLps<L>>, Vec<u32>) {
    let mut local_index = vec![0u32; slots.len()];
    let mut clusters: Vec<ClusterLps<L>> = (0..groups)
        .map(|_| ClusterLps {
            slots: Vec::new(),
            members: Vec::new(),
            first_member: None,
        })
        .collect();
    for (i, slot) in slots.drain(..).enumerate() {
        let c = &mut clusters[group_of[i] as usize];
        local_index[i] = c.slots.len() as u32;
        c.slots.push(slot);
        c.members.push(i as u32);
    }
    for c in &mut clusters {
        let consecutive = c.members.windows(2).all(|w| w[1] == w[0] + 1);
        c.first_member = c.members.first().copied().filter(|_| consecutive);
    }
    (clusters, local_index)
}

/// Puts the clusters' LP slots back into `slots` in LP order (`nlp` LPs in all).
pub(crate) fn return_to_lp_order<L: LogicalProcess>(
    slots: &mut Vec<LpSlot<L>>,
    nlp: usize,
    clusters: impl IntoIterator<Item = ClusterLps<L>>,
) {
    let mut back: Vec<Option<LpSlot<L>>> = (0..nlp).map(|_| None).collect();
    for c in clusters {
        for (slot, g) in c.slots.into_iter().zip(c.members) {
            back[g as usize] = Some(slot);
        }
    }
    slots.extend(back.into_iter().flatten());
}

/// Runs `work(thread)` on `threads` threads (inline on the caller for one) and returns each
/// result in thread order. A panicking worker calls `on_panic` (to release the others) and
/// comes back as [`EngineError::WorkerPanicked`] with the panic's message.
pub(crate) fn on_threads<T: Send>(
    threads: usize,
    on_panic: impl Fn() + Sync,
    work: impl Fn(usize) -> T + Sync,
) -> Vec<Result<T, EngineError>> {
    let guarded = |me: usize| {
        catch_unwind(AssertUnwindSafe(|| work(me))).map_err(|p| {
            on_panic();
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            EngineError::WorkerPanicked(msg)
        })
    };
    if threads <= 1 {
        return vec![guarded(0)];
    }
    std::thread::scope(|s| {
        let guarded = &guarded;
        let handles: Vec<_> = (0..threads)
            .map(|me| s.spawn(move || guarded(me)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(EngineError::WorkerPanicked("join failed".into())))
            })
            .collect()
    })
}
