//! A small set of disjoint byte intervals (the dirty bytes of one BB allocation unit).

/// Disjoint, sorted, non-adjacent half-open intervals `[start, end)` of byte offsets within one
/// BB allocation unit (offsets fit in 32 bits: `BbServerConfig::validate` caps the unit at
/// [`crate::bb_server::MAX_UNIT`], 2 GiB).
/// The common single-interval case is stored inline in 16 bytes with no allocation; a BB
/// server keeps one for each unit with writes in progress, draining or partly dirty
/// ([`crate::bb_server`]'s unit table).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intervals {
    /// The first interval (`start == end` when the set is empty).
    one: (u32, u32),
    /// Further intervals, sorted (`None` while there are none). Boxed on purpose: a thin
    /// pointer keeps the set at 16 bytes (a `Vec` or boxed slice would make it 32 or 24).
    #[allow(clippy::box_collection)]
    rest: Option<Box<Vec<(u32, u32)>>>,
}

/// An offset within a unit as stored (units are at most 2 GiB, so offsets fit in 32 bits).
fn narrow(offset: u64) -> u32 {
    u32::try_from(offset).expect("offsets within a BB unit of at most 2 GiB fit in 32 bits")
}

impl Intervals {
    /// Adds `[start, end)` (byte offsets within the unit, below 2^32); returns how many of
    /// its bytes were already present.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if end <= start {
            return 0;
        }
        let (start, end) = (narrow(start), narrow(end));
        let (a, b) = self.one;
        if self.rest.is_none() {
            if a == b {
                self.one = (start, end);
                return 0;
            }
            if start <= b && a <= end {
                let overlap = b.min(end).saturating_sub(a.max(start));
                self.one = (a.min(start), b.max(end));
                return u64::from(overlap);
            }
        }
        let mut spans = Vec::with_capacity(self.rest.as_ref().map_or(0, |r| r.len()) + 2);
        spans.push(self.one);
        if let Some(rest) = self.rest.take() {
            spans.extend_from_slice(&rest);
        }
        let overlap = merge(&mut spans, start, end);
        self.one = spans[0];
        if spans.len() > 1 {
            self.rest = Some(Box::new(spans.split_off(1)));
        }
        u64::from(overlap)
    }

    fn spans(&self) -> impl Iterator<Item = &(u32, u32)> {
        std::iter::once(&self.one)
            .filter(|s| s.1 > s.0)
            .chain(self.rest.iter().flat_map(|r| r.iter()))
    }

    /// Total bytes covered.
    pub fn len(&self) -> u64 {
        self.spans().map(|(a, b)| u64::from(b - a)).sum()
    }

    /// Whether no byte is covered.
    pub fn is_empty(&self) -> bool {
        self.one.0 == self.one.1 && self.rest.is_none()
    }

    /// The first covered byte (0 if empty).
    pub fn first(&self) -> u64 {
        if self.is_empty() {
            0
        } else {
            u64::from(self.one.0)
        }
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.one = (0, 0);
        self.rest = None;
    }

    /// The set `[0, len)`: a whole unit of `len` bytes (below 2^32).
    pub fn whole(len: u64) -> Self {
        Intervals {
            one: (0, narrow(len)),
            rest: None,
        }
    }

    /// Whether the set is exactly `[0, len)` (a wholly dirty unit of `len` bytes).
    pub fn is_whole(&self, len: u64) -> bool {
        self.rest.is_none() && u64::from(self.one.0) == 0 && u64::from(self.one.1) == len
    }

    /// Bytes the set holds out of line (intervals beyond the first), from capacities.
    pub fn heap_bytes(&self) -> usize {
        self.rest.as_ref().map_or(0, |r| {
            std::mem::size_of::<Vec<(u32, u32)>>()
                + r.capacity() * std::mem::size_of::<(u32, u32)>()
        })
    }
}

/// Merges `[start, end)` into sorted disjoint `spans`; returns the overlap in bytes.
fn merge(spans: &mut Vec<(u32, u32)>, start: u32, end: u32) -> u32 {
    let (mut s, mut e) = (start, end);
    let mut overlap = 0;
    let mut i = 0;
    let mut out = Vec::with_capacity(spans.len() + 1);
    while i < spans.len() && spans[i].1 < s {
        out.push(spans[i]);
        i += 1;
    }
    while i < spans.len() && spans[i].0 <= e {
        let (a, b) = spans[i];
        overlap += b.min(end).saturating_sub(a.max(start));
        s = s.min(a);
        e = e.max(b);
        i += 1;
    }
    out.push((s, e));
    out.extend_from_slice(&spans[i..]);
    *spans = out;
    overlap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_reports_overlap() {
        let mut s = Intervals::default();
        assert_eq!(s.insert(10, 20), 0);
        assert_eq!(s.insert(30, 40), 0);
        assert_eq!(s.len(), 20);
        assert_eq!(s.insert(15, 35), 10);
        assert_eq!(s.len(), 30);
        assert_eq!(s.insert(40, 50), 0); // adjacent: merged
        assert_eq!(s.spans().copied().collect::<Vec<_>>(), vec![(10, 50)]);
        assert_eq!(s.insert(0, 5), 0);
        assert_eq!(s.insert(0, 60), 45);
        assert_eq!(s.len(), 60);
        assert_eq!(s.first(), 0);
        assert_eq!(s.insert(7, 7), 0);
        s.clear();
        assert!(s.is_empty());
    }

    #[test]
    fn gaps_spill_out_of_line_and_merge_back() {
        let mut s = Intervals::default();
        s.insert(100, 200);
        s.insert(0, 10);
        s.insert(300, 400);
        assert!(s.rest.is_some());
        assert_eq!(
            s.spans().copied().collect::<Vec<_>>(),
            vec![(0, 10), (100, 200), (300, 400)]
        );
        assert_eq!(s.len(), 210);
        assert_eq!(s.first(), 0);
        // One write that covers the gaps brings the set back inline.
        assert_eq!(s.insert(5, 350), 10 - 5 + 100 + 50);
        assert_eq!(s.spans().copied().collect::<Vec<_>>(), vec![(0, 400)]);
        assert!(s.rest.is_none());
        // Offsets near the top of the 32-bit range.
        let top = u64::from(u32::MAX);
        let mut t = Intervals::default();
        assert_eq!(t.insert(top - 10, top), 0);
        assert_eq!(t.len(), 10);
        s.clear();
        assert!(s.is_empty() && s.rest.is_none());
    }

    #[test]
    fn whole_is_the_set_that_writes_covering_the_unit_make() {
        let mut s = Intervals::default();
        assert!(!s.is_whole(100));
        s.insert(50, 100);
        assert!(!s.is_whole(100));
        s.insert(0, 20);
        assert!(!s.is_whole(100) && s.heap_bytes() > 0);
        s.insert(20, 50);
        assert!(s.is_whole(100) && !s.is_whole(99) && !s.is_whole(101));
        assert_eq!(s, Intervals::whole(100), "one representation of [0, len)");
        assert_eq!(s.heap_bytes(), 0);
        assert!(Intervals::whole(1 << 31).is_whole(1 << 31));
    }

    #[test]
    fn an_inline_set_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Intervals>(), 16);
    }
}
