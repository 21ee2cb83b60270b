//! Exact integer conversions between bytes, bandwidths and picoseconds.
//!
//! Bandwidths are bytes per second (`u64`), sizes are bytes (`u64`), times are picoseconds
//! ([`Time`]). Durations are computed in `u128` and rounded up to the next picosecond, so a
//! transfer never finishes early and closed forms can be checked exactly.

use bbsim_engine::time::{Time, SEC};

/// Picoseconds per second, as `u128` for exact products.
pub const PS_PER_SEC: u128 = SEC as u128;

/// One kibibyte (1024 bytes).
pub const KIB: u64 = 1024;
/// One mebibyte (1024² bytes).
pub const MIB: u64 = 1024 * KIB;
/// One gibibyte (1024³ bytes).
pub const GIB: u64 = 1024 * MIB;
/// One terabyte (10¹² bytes, the unit drive vendors quote).
pub const TB: u64 = 1_000_000_000_000;
/// One gigabyte (10⁹ bytes).
pub const GB: u64 = 1_000_000_000;
/// One megabyte (10⁶ bytes).
pub const MB: u64 = 1_000_000;

/// Time in picoseconds to move `bytes` at `bandwidth` bytes per second: `ceil(bytes · 10¹² /
/// bandwidth)`. A zero bandwidth (rejected by every `validate()`) gives `Time::MAX`; results past
/// `u64::MAX` saturate.
#[inline]
pub fn transfer_ps(bytes: u64, bandwidth: u64) -> Time {
    if bytes == 0 {
        return 0;
    }
    if bandwidth == 0 {
        return Time::MAX;
    }
    let num = u128::from(bytes) * PS_PER_SEC;
    let bw = u128::from(bandwidth);
    let t = num.div_ceil(bw);
    u64::try_from(t).unwrap_or(Time::MAX)
}

/// Ceiling division for `u64` (`0` divisor gives `0`).
#[inline]
pub fn div_ceil_u64(a: u64, b: u64) -> u64 {
    if b == 0 {
        0
    } else {
        a.div_ceil(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_is_exact_and_rounds_up() {
        // 1 MiB at 1 MiB/s is exactly one second.
        assert_eq!(transfer_ps(MIB, MIB), SEC);
        // 1 byte at 3 B/s is 333_333_333_333.33 ps, rounded up.
        assert_eq!(transfer_ps(1, 3), 333_333_333_334);
        assert_eq!(transfer_ps(0, 0), 0);
        assert_eq!(transfer_ps(5, 0), Time::MAX);
        assert_eq!(transfer_ps(u64::MAX, 1), Time::MAX);
        assert_eq!(div_ceil_u64(7, 2), 4);
        assert_eq!(div_ceil_u64(7, 0), 0);
    }
}
