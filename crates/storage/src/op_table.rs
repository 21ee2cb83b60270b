//! A BB server's outstanding device operations, keyed by the tag their completion carries.
//!
//! The table hands out the tags itself: a tag is the index of the operation's slot, so finding
//! an operation when its device completes is one array access instead of a hash probe (at
//! full scale a server has thousands of operations outstanding and every 128 KiB stripe unit
//! completes one, so the probe's cache misses were a measurable part of a run). Freed slots
//! are reused last-freed first, which depends only on the order of completions, so runs stay
//! deterministic.

/// Operations by tag.
#[derive(Clone, Debug)]
pub(crate) struct OpTable<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Default for OpTable<T> {
    fn default() -> Self {
        OpTable {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> OpTable<T> {
    /// Stores `op` and returns its tag.
    pub(crate) fn insert(&mut self, op: T) -> u64 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(op);
                u64::from(i)
            }
            None => {
                self.slots.push(Some(op));
                (self.slots.len() - 1) as u64
            }
        }
    }

    /// Takes the operation with tag `tag`, if it is outstanding.
    pub(crate) fn remove(&mut self, tag: u64) -> Option<T> {
        let i = u32::try_from(tag).ok()?;
        let op = self.slots.get_mut(i as usize)?.take()?;
        self.free.push(i);
        Some(op)
    }

    /// Operations outstanding.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_find_their_operations_and_are_reused_after_completion() {
        let mut t = OpTable::default();
        let a = t.insert("a");
        let b = t.insert("b");
        assert_ne!(a, b);
        assert_eq!(t.remove(a), Some("a"));
        assert_eq!(t.remove(a), None, "a completed tag is gone");
        let c = t.insert("c");
        assert_eq!(c, a, "the freed slot is reused");
        assert_eq!(t.remove(b), Some("b"));
        assert_eq!(t.remove(c), Some("c"));
        assert_eq!(t.remove(99), None);
        assert_eq!(t.remove(u64::MAX), None);
        assert_eq!(t.len(), 0);
    }
}
