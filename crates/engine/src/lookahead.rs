//! Lookahead declarations: the minimum delay of each channel between LP classes.

use crate::time::Time;

/// The minimum delay (picoseconds) an event must carry when it crosses from an LP of one class
/// to an LP of another class on a different cluster. A missing channel is `None`: such events
/// may never cross clusters.
///
/// The window width of the parallel executor is the smallest declared lookahead.
#[derive(Clone, Debug)]
pub struct LookaheadTable {
    classes: usize,
    min_delay: Vec<Option<Time>>,
    names: Vec<String>,
}

impl LookaheadTable {
    /// A single class whose every channel has the same lookahead (picoseconds).
    pub fn uniform(lookahead: Time) -> Self {
        LookaheadTable {
            classes: 1,
            min_delay: vec![Some(lookahead)],
            names: vec!["lp".to_string()],
        }
    }

    /// A table over named classes with no channel declared yet.
    pub fn with_classes<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        let classes = names.len().max(1);
        LookaheadTable {
            classes,
            min_delay: vec![None; classes * classes],
            names,
        }
    }

    /// Declares the channel `from -> to` with a minimum delay in picoseconds.
    ///
    /// # Panics
    /// Panics if a class index is out of range (a programming error in the model, not user input).
    pub fn declare(&mut self, from: u16, to: u16, lookahead: Time) -> &mut Self {
        let (f, t) = (usize::from(from), usize::from(to));
        assert!(
            f < self.classes && t < self.classes,
            "lookahead class out of range"
        );
        self.min_delay[f * self.classes + t] = Some(lookahead);
        self
    }

    /// Declares both directions of a channel.
    pub fn declare_both(&mut self, a: u16, b: u16, lookahead: Time) -> &mut Self {
        self.declare(a, b, lookahead);
        self.declare(b, a, lookahead)
    }

    /// The declared minimum delay between two classes, if any.
    #[inline]
    pub fn get(&self, from: u16, to: u16) -> Option<Time> {
        let (f, t) = (usize::from(from), usize::from(to));
        if f >= self.classes || t >= self.classes {
            return None;
        }
        self.min_delay[f * self.classes + t]
    }

    /// The number of classes.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// A class's name for messages.
    pub fn class_name(&self, class: u16) -> &str {
        self.names
            .get(usize::from(class))
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// The smallest declared lookahead (the window width), or `None` if nothing is declared.
    pub fn window(&self) -> Option<Time> {
        self.min_delay.iter().flatten().copied().min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_smallest_declared() {
        let mut t = LookaheadTable::with_classes(["router", "nic"]);
        assert_eq!(t.window(), None);
        t.declare_both(0, 1, 500).declare(0, 0, 100);
        assert_eq!(t.window(), Some(100));
        assert_eq!(t.get(1, 1), None);
        assert_eq!(t.get(1, 0), Some(500));
        assert_eq!(t.get(7, 0), None);
        assert_eq!(t.class_name(1), "nic");
        assert_eq!(LookaheadTable::uniform(9).window(), Some(9));
    }
}
