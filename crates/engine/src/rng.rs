//! Pseudo-random number streams: xoshiro256 generators seeded through SplitMix64.
//!
//! Every random draw in bbsim comes from this module. The engine gives each logical process an
//! independent xoshiro256++ stream ([`Rng`]) seeded from the scenario seed and the LP id, so
//! draws never depend on which thread runs the LP. Workload generation (allocation policies,
//! synthetic delays and offsets) draws from xoshiro256** streams ([`RngStarStar`]). Both
//! share one state transition and differ only in how a 64-bit output is taken from the state.

use std::marker::PhantomData;

/// SplitMix64 step: advances `state` and returns the next 64-bit output. Used to expand
/// seeds into generator state and to derive independent sub-streams.
#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How a xoshiro256 generator turns its state into a 64-bit output.
pub trait Scrambler {
    /// The output for state `s` (taken before the state advances).
    fn output(s: &[u64; 4]) -> u64;
}

/// The `++` scrambler: `rotl(s0 + s3, 23) + s0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlusPlus;

impl Scrambler for PlusPlus {
    #[inline]
    fn output(s: &[u64; 4]) -> u64 {
        s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0])
    }
}

/// The `**` scrambler: `rotl(s1 * 5, 7) * 9`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StarStar;

impl Scrambler for StarStar {
    #[inline]
    fn output(s: &[u64; 4]) -> u64 {
        s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9)
    }
}

/// A xoshiro256 generator (256 bits of state, good statistical quality) with output
/// scrambler `S`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Xoshiro256<S> {
    s: [u64; 4],
    scrambler: PhantomData<S>,
}

/// xoshiro256++: the engine's per-LP streams.
pub type Rng = Xoshiro256<PlusPlus>;

/// xoshiro256**: the workload's streams (allocation, synthetic applications).
pub type RngStarStar = Xoshiro256<StarStar>;

impl<S: Scrambler> Xoshiro256<S> {
    /// Seeds a stream from a 64-bit seed (expanded with SplitMix64): the whole sequence is
    /// determined by `seed`.
    pub fn seed_from_u64(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Xoshiro256 {
            s,
            scrambler: PhantomData,
        }
    }

    /// The stream of LP `lp` in a run seeded with `seed`: independent of thread count and
    /// partitioning.
    pub fn for_lp(seed: u64, lp: u32) -> Self {
        let mut sm = seed ^ 0xD1B5_4A32_D192_ED03;
        let a = splitmix64(&mut sm);
        Self::seed_from_u64(a ^ (u64::from(lp).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
    }

    /// An independent stream for sub-stream `stream` of `seed` (e.g. one per job or rank).
    pub fn derive(seed: u64, stream: u64) -> Self {
        let mut sm = seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93);
        Self::seed_from_u64(splitmix64(&mut sm))
    }

    /// Next 64 uniformly distributed bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = S::output(&self.s);
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

    /// A uniform integer in the inclusive range `[lo, hi]` (`lo` when `hi <= lo`).
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        match (hi - lo).checked_add(1) {
            Some(span) => lo + self.below(span),
            None => self.next_u64(),
        }
    }

    /// Fisher-Yates shuffle of `items` in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// An exponentially distributed float with the given mean (any unit), drawn with the
    /// Marsaglia-Tsang ziggurat (exact distribution; about 99% of draws take one table lookup
    /// and a multiply instead of a logarithm).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        let z = ziggurat();
        loop {
            let r = self.next_u64();
            let iz = (r & 0xFF) as usize;
            let jz = (r >> 32) as u32;
            if jz < z.ke[iz] {
                return f64::from(jz) * z.we[iz] * mean;
            }
            if iz == 0 {
                // The tail beyond the base strip: memoryless, so shift by its start.
                return (ZIG_R - (1.0 - self.uniform()).ln()) * mean;
            }
            let x = f64::from(jz) * z.we[iz];
            if z.fe[iz] + self.uniform() * (z.fe[iz - 1] - z.fe[iz]) < (-x).exp() {
                return x * mean;
            }
        }
    }

    /// The exponential draw by inversion (`-ln(1 - U)`), for checking the ziggurat.
    pub fn exponential_by_inversion(&mut self, mean: f64) -> f64 {
        -(1.0 - self.uniform()).ln() * mean
    }

    /// The generator state, for digests of final LP state.
    pub fn state(&self) -> [u64; 4] {
        self.s
    }
}

/// Right edge of the base strip of the 256-strip exponential ziggurat.
const ZIG_R: f64 = 7.697_117_470_131_487;
/// Area of each strip.
const ZIG_V: f64 = 3.949_659_822_581_572e-3;

/// Ziggurat tables for the exponential distribution (Marsaglia and Tsang, 2000).
struct Ziggurat {
    ke: [u32; 256],
    we: [f64; 256],
    fe: [f64; 256],
}

#[inline]
fn ziggurat() -> &'static Ziggurat {
    static TABLES: std::sync::OnceLock<Ziggurat> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let m2 = 4_294_967_296.0_f64;
        let mut z = Ziggurat {
            ke: [0; 256],
            we: [0.0; 256],
            fe: [0.0; 256],
        };
        let mut de = ZIG_R;
        let mut te = de;
        let q = ZIG_V / (-de).exp();
        z.ke[0] = ((de / q) * m2) as u32;
        z.ke[1] = 0;
        z.we[0] = q / m2;
        z.we[255] = de / m2;
        z.fe[0] = 1.0;
        z.fe[255] = (-de).exp();
        for i in (1..=254).rev() {
            de = -(ZIG_V / de + (-de).exp()).ln();
            z.ke[i + 1] = ((de / te) * m2) as u32;
            te = de;
            z.fe[i] = (-de).exp();
            z.we[i] = de / m2;
        }
        z
    })
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
        let mean_i: f64 = (0..n).map(|_| r.exponential_by_inversion(2.0)).sum::<f64>() / n as f64;
        assert!((mean_i - 2.0).abs() < 0.03, "{mean_i}");
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

#[cfg(test)]
mod ziggurat_tests {
    use super::*;

    /// The ziggurat's distribution matches the exponential CDF: a Kolmogorov-Smirnov
    /// statistic well inside the 1% critical value, and the tail beyond the base strip has the
    /// right mass.
    #[test]
    fn ziggurat_matches_the_exponential_cdf() {
        let mut r = Rng::seed_from_u64(7);
        let n = 400_000;
        let mut xs: Vec<f64> = (0..n).map(|_| r.exponential(1.0)).collect();
        xs.sort_by(f64::total_cmp);
        let mut d: f64 = 0.0;
        for (i, &x) in xs.iter().enumerate() {
            let cdf = 1.0 - (-x).exp();
            d = d
                .max((cdf - i as f64 / n as f64).abs())
                .max((cdf - (i + 1) as f64 / n as f64).abs());
        }
        // KS critical value at 1% is 1.63 / sqrt(n).
        assert!(d < 1.63 / (n as f64).sqrt(), "KS statistic {d}");
        let tail = xs.iter().filter(|&&x| x > 3.0).count() as f64 / n as f64;
        assert!((tail - (-3.0f64).exp()).abs() < 0.002, "P(X > 3) = {tail}");
        assert!(xs.iter().all(|x| x.is_finite() && *x >= 0.0));
    }
}

#[cfg(test)]
mod star_star_tests {
    use super::*;

    #[test]
    fn splitmix_reference_value() {
        // First output of SplitMix64 seeded with 0 (reference implementation by S. Vigna).
        let mut s = 0u64;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
    }

    /// Both scramblers against Vigna's reference C code (xoshiro256plusplus.c,
    /// xoshiro256starstar.c) from the state {1, 2, 3, 4}.
    #[test]
    fn scramblers_match_the_reference_outputs() {
        let mut pp = Rng {
            s: [1, 2, 3, 4],
            scrambler: PhantomData,
        };
        let mut ss = RngStarStar {
            s: [1, 2, 3, 4],
            scrambler: PhantomData,
        };
        let pp_out: Vec<u64> = (0..3).map(|_| pp.next_u64()).collect();
        let ss_out: Vec<u64> = (0..3).map(|_| ss.next_u64()).collect();
        assert_eq!(pp_out, [41_943_041, 58_720_359, 3_588_806_011_781_223]);
        assert_eq!(ss_out, [11_520, 0, 1_509_978_240]);
    }

    #[test]
    fn range_and_shuffle() {
        let mut r = RngStarStar::seed_from_u64(1);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let v = r.range_inclusive(10, 16);
            assert!((10..=16).contains(&v));
            seen[(v - 10) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(r.range_inclusive(5, 5), 5);
        let mut v: Vec<u32> = (0..100).collect();
        r.shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
        assert_ne!(v, sorted);
        let a = RngStarStar::derive(7, 1).next_u64();
        assert_eq!(a, RngStarStar::derive(7, 1).next_u64());
        assert_ne!(a, RngStarStar::derive(7, 2).next_u64());
    }
}
