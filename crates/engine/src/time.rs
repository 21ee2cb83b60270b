//! Simulated time: an integer number of picoseconds.
//!
//! The engine never uses floating-point time. Helpers here convert to and from human units
//! and format times for messages.

/// Simulated time in picoseconds (ps) since the start of the run.
pub type Time = u64;

/// One picosecond.
pub const PS: Time = 1;
/// One nanosecond in picoseconds.
pub const NS: Time = 1_000;
/// One microsecond in picoseconds.
pub const US: Time = 1_000_000;
/// One millisecond in picoseconds.
pub const MS: Time = 1_000_000_000;
/// One second in picoseconds.
pub const SEC: Time = 1_000_000_000_000;

/// Converts seconds (floating point, from a user or a closed form) to picoseconds, rounding to
/// the nearest picosecond. Negative and NaN inputs give 0; values past `u64::MAX` saturate.
pub fn from_secs_f64(secs: f64) -> Time {
    if secs.is_nan() || secs <= 0.0 {
        return 0;
    }
    let ps = (secs * SEC as f64).round();
    if ps >= u64::MAX as f64 {
        u64::MAX
    } else {
        ps as Time
    }
}

/// Converts picoseconds to seconds as a float, for reporting only.
pub fn to_secs_f64(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// Formats a time with an explicit unit, choosing the largest unit that keeps the value
/// at least 1 (e.g. `1.500000 us`, `90 ns`, `3.000000 s`). Exact for whole units.
pub fn format_time(t: Time) -> String {
    if t == u64::MAX {
        return "never".to_string();
    }
    let (unit, div) = if t >= SEC {
        ("s", SEC)
    } else if t >= MS {
        ("ms", MS)
    } else if t >= US {
        ("us", US)
    } else if t >= NS {
        ("ns", NS)
    } else {
        return format!("{t} ps");
    };
    if t % div == 0 {
        format!("{} {unit}", t / div)
    } else {
        format!("{:.6} {unit}", t as f64 / div as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_trip() {
        assert_eq!(from_secs_f64(1.5e-6), 1_500_000);
        assert_eq!(from_secs_f64(-1.0), 0);
        assert_eq!(from_secs_f64(f64::NAN), 0);
        assert_eq!(from_secs_f64(1e300), u64::MAX);
        assert!((to_secs_f64(SEC / 4) - 0.25).abs() < 1e-15);
    }

    #[test]
    fn formatting_picks_unit() {
        assert_eq!(format_time(90 * NS), "90 ns");
        assert_eq!(format_time(1_500_000), "1.500000 us");
        assert_eq!(format_time(7), "7 ps");
        assert_eq!(format_time(3 * SEC), "3 s");
        assert_eq!(format_time(u64::MAX), "never");
    }
}
