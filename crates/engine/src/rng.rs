//! Per-LP pseudo-random number streams.
//!
//! Each logical process owns an independent xoshiro256++ stream seeded from the scenario seed
//! and the LP id through SplitMix64, so draws never depend on which thread runs the LP.

/// SplitMix64 step: used to expand seeds into generator state.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A xoshiro256++ generator: fast, 256 bits of state, good statistical quality.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Seeds a stream from a 64-bit seed (expanded with SplitMix64).
    pub fn seed_from_u64(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Rng { s }
    }

    /// The stream of LP `lp` in a run seeded with `seed`: independent of thread count and
    /// partitioning.
    pub fn for_lp(seed: u64, lp: u32) -> Self {
        let mut sm = seed ^ 0xD1B5_4A32_D192_ED03;
        let a = splitmix64(&mut sm);
        Self::seed_from_u64(a ^ (u64::from(lp).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
    }

    /// Next 64 uniformly distributed bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[0]
            .wrapping_add(self.s[3])
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform float in `[0, 1)` with 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform integer in `[0, n)` (Lemire's multiply-shift; unbiased). Returns 0 when `n` is 0.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        loop {
            let x = self.next_u64();
            let m = u128::from(x) * u128::from(n);
            let low = m as u64;
            if low >= n || low >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// An exponentially distributed float with the given mean (any unit).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - uniform() is in (0, 1], so the logarithm is finite.
        -(1.0 - self.uniform()).ln() * mean
    }

    /// The generator state, for digests of final LP state.
    pub fn state(&self) -> [u64; 4] {
        self.s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let mut a = Rng::for_lp(7, 3);
        let mut b = Rng::for_lp(7, 3);
        let mut c = Rng::for_lp(7, 4);
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn moments_are_right() {
        let mut r = Rng::seed_from_u64(1);
        let n = 200_000;
        let mean_u: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean_u - 0.5).abs() < 0.01, "{mean_u}");
        let mean_e: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean_e - 2.0).abs() < 0.03, "{mean_e}");
        let mut counts = [0u32; 5];
        for _ in 0..n {
            counts[r.below(5) as usize] += 1;
        }
        for c in counts {
            assert!((f64::from(c) / n as f64 - 0.2).abs() < 0.01);
        }
        assert_eq!(r.below(0), 0);
    }
}
