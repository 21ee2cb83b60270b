//! A small set of disjoint byte intervals (the dirty bytes of one BB allocation unit).

/// Disjoint, sorted, non-adjacent half-open intervals `[start, end)` of byte offsets. The
/// common single-interval case is stored inline (no allocation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Intervals {
    /// The first interval (`start == end` when the set is empty).
    one: (u64, u64),
    /// Further intervals, sorted.
    rest: Vec<(u64, u64)>,
}

impl Intervals {
    /// Adds `[start, end)`; returns how many of its bytes were already present.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if end <= start {
            return 0;
        }
        let (a, b) = self.one;
        if self.rest.is_empty() {
            if a == b {
                self.one = (start, end);
                return 0;
            }
            if start <= b && a <= end {
                let overlap = b.min(end).saturating_sub(a.max(start));
                self.one = (a.min(start), b.max(end));
                return overlap;
            }
        }
        let mut spans = Vec::with_capacity(self.rest.len() + 2);
        spans.push(self.one);
        spans.append(&mut self.rest);
        let overlap = merge(&mut spans, start, end);
        self.one = spans[0];
        self.rest = spans.split_off(1);
        overlap
    }

    fn spans(&self) -> impl Iterator<Item = &(u64, u64)> {
        std::iter::once(&self.one)
            .filter(|s| s.1 > s.0)
            .chain(self.rest.iter())
    }

    /// Total bytes covered.
    pub fn len(&self) -> u64 {
        self.spans().map(|(a, b)| b - a).sum()
    }

    /// Whether no byte is covered.
    pub fn is_empty(&self) -> bool {
        self.one.0 == self.one.1 && self.rest.is_empty()
    }

    /// The first covered byte (0 if empty).
    pub fn first(&self) -> u64 {
        if self.is_empty() {
            0
        } else {
            self.one.0
        }
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.one = (0, 0);
        self.rest.clear();
    }
}

/// Merges `[start, end)` into sorted disjoint `spans`; returns the overlap in bytes.
fn merge(spans: &mut Vec<(u64, u64)>, start: u64, end: u64) -> u64 {
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
}
