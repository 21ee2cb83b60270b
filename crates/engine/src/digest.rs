//! A small, stable 64-bit digest (FNV-1a over words with a final avalanche) for comparing final
//! model state and outputs across runs, thread counts and partitionings.

/// An incremental 64-bit digest. Stable across platforms and Rust versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xCBF2_9CE4_8422_2325)
    }
}

impl Digest {
    /// A fresh digest.
    pub fn new() -> Self {
        Self::default()
    }

    /// Mixes one 64-bit word.
    #[inline]
    pub fn word(&mut self, w: u64) -> &mut Self {
        for b in w.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
        self
    }

    /// Mixes a byte string (length-prefixed, so concatenations differ).
    pub fn bytes(&mut self, data: &[u8]) -> &mut Self {
        self.word(data.len() as u64);
        for &b in data {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
        self
    }

    /// The digest value.
    pub fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_content_matter() {
        let a = Digest::new().word(1).word(2).finish();
        let b = Digest::new().word(2).word(1).finish();
        let c = Digest::new().word(1).word(2).finish();
        assert_ne!(a, b);
        assert_eq!(a, c);
        assert_ne!(
            Digest::new().bytes(b"ab").bytes(b"c").finish(),
            Digest::new().bytes(b"a").bytes(b"bc").finish()
        );
    }
}
