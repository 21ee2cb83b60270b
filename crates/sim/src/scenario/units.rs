//! Quantities with units as written in scenario files: sizes ("128KiB", "3.2TB"), bandwidths
//! ("25GB/s", "1.4GB/s", "100Gbit/s") and durations ("20us", "90ns", "1.5s").
//!
//! Prefixes: `k`/`K`, `M`, `G`, `T`, `P` are decimal (powers of 1000); `Ki`, `Mi`, `Gi`, `Ti`,
//! `Pi` are binary (powers of 1024). `B` is a byte; `bit` (or a lower-case `b` after a
//! prefix, as in `Gb/s`) is a bit. Durations take `ps`, `ns`, `us` (or `µs`), `ms`, `s`, `min`
//! and `h`. Internally sizes are bytes (`u64`), bandwidths bytes per second (`u64`) and
//! durations picoseconds (`u64`).

use bbsim_engine::Time;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Where the exponent of a number in scientific notation ends ("e30", "E-3", "e+6"), if one
/// starts at byte `at` of `s`: an `e` or `E`, an optional sign and at least one digit.
fn exponent_end(s: &str, at: usize) -> Option<usize> {
    let rest = s.get(at..)?;
    let mut chars = rest.char_indices();
    if !matches!(chars.next(), Some((_, 'e' | 'E'))) {
        return None;
    }
    let mut digits = 0;
    let mut end = at + 1;
    for (i, c) in chars {
        match c {
            '+' | '-' if i == 1 => {}
            c if c.is_ascii_digit() => digits += 1,
            _ => break,
        }
        end = at + i + 1;
    }
    (digits > 0).then_some(end)
}

/// Splits "1.5 GB/s" (or "2e12B") into the number and the unit text.
fn split_number(s: &str) -> Result<(f64, &str), String> {
    let s = s.trim();
    let mantissa = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | '_' | '+' | '-')))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let end = exponent_end(s, mantissa).unwrap_or(mantissa);
    let (num, unit) = s.split_at(end);
    let cleaned: String = num.chars().filter(|c| *c != '_').collect();
    if cleaned.is_empty() {
        return Err(format!("`{s}` does not start with a number"));
    }
    let value: f64 = cleaned
        .parse()
        .map_err(|_| format!("`{num}` is not a number"))?;
    if !value.is_finite() || value < 0.0 {
        return Err(format!("`{s}`: the number must be finite and not negative"));
    }
    Ok((value, unit.trim()))
}

/// Returns the multiplier of a size prefix (`""`, `k`, `Ki`, ...).
fn prefix_factor(p: &str) -> Option<f64> {
    Some(match p {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "Ki" | "ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0f64.powi(4),
        "Pi" => 1024.0f64.powi(5),
        _ => return None,
    })
}

/// Parses a size unit ("B", "KiB", "Gbit", "Mb") into bytes per unit.
fn size_unit(u: &str) -> Option<f64> {
    if u.is_empty() {
        return Some(1.0);
    }
    for (suffix, per) in [("bit", 0.125), ("bits", 0.125), ("B", 1.0), ("b", 0.125)] {
        if let Some(p) = u.strip_suffix(suffix) {
            if let Some(f) = prefix_factor(p) {
                // A bare "b" without prefix is ambiguous; accept only "bit".
                if suffix == "b" && p.is_empty() {
                    return None;
                }
                return Some(f * per);
            }
        }
    }
    // A bare prefix ("4k", "2Mi") counts bytes.
    prefix_factor(u)
}

fn to_u64(value: f64, what: &str, text: &str) -> Result<u64, String> {
    let r = value.round();
    if r >= u64::MAX as f64 {
        return Err(format!("`{text}` is too large for a {what}"));
    }
    Ok(r as u64)
}

/// Parses a size into bytes: "128KiB" = 131072, "3.2TB" = 3.2e12, "512" = 512 bytes.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let (v, unit) = split_number(text)?;
    let per = size_unit(unit).ok_or_else(|| {
        format!("`{text}`: unknown size unit `{unit}` (expected B, kB, MB, GB, TB, KiB, MiB, GiB, TiB, or bits)")
    })?;
    to_u64(v * per, "size", text)
}

/// Parses a bandwidth into bytes per second: "25GB/s", "1.4GB/s", "100Gbit/s", "800MiB/s".
pub fn parse_bandwidth(text: &str) -> Result<u64, String> {
    let (v, unit) = split_number(text)?;
    let Some(size) = unit
        .strip_suffix("/s")
        .or_else(|| unit.strip_suffix("ps").filter(|s| !s.is_empty()))
    else {
        return Err(format!(
            "`{text}`: a bandwidth needs a per-second unit such as GB/s, MiB/s or Gbit/s"
        ));
    };
    let per = size_unit(size.trim()).ok_or_else(|| {
        format!("`{text}`: unknown size unit `{size}` in the bandwidth (expected e.g. GB/s, MiB/s, Gbit/s)")
    })?;
    to_u64(v * per, "bandwidth", text)
}

/// Parses a duration into picoseconds: "20us", "90ns", "1.5s", "2min". A bare number is
/// rejected: durations need a unit.
pub fn parse_duration(text: &str) -> Result<Time, String> {
    let (v, unit) = split_number(text)?;
    let ps_per: f64 = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" | "μs" => 1e6,
        "ms" => 1e9,
        "s" | "sec" => 1e12,
        "min" => 60e12,
        "h" => 3600e12,
        "" => {
            return Err(format!(
                "`{text}`: a duration needs a unit (ps, ns, us, ms, s, min, h)"
            ))
        }
        other => {
            return Err(format!(
                "`{text}`: unknown time unit `{other}` (expected ps, ns, us, ms, s, min, h)"
            ))
        }
    };
    to_u64(v * ps_per, "duration", text)
}

/// Formats bytes exactly, with the unit (binary or decimal) that gives the smallest whole
/// number (e.g. `128KiB`, `3200GB`, `7776TB`), or plain bytes. Parses back to the same value.
pub fn format_bytes(b: u64) -> String {
    let units: [(&str, u64); 10] = [
        ("PiB", 1 << 50),
        ("PB", 1_000_000_000_000_000),
        ("TiB", 1 << 40),
        ("TB", 1_000_000_000_000),
        ("GiB", 1 << 30),
        ("GB", 1_000_000_000),
        ("MiB", 1 << 20),
        ("MB", 1_000_000),
        ("KiB", 1 << 10),
        ("kB", 1000),
    ];
    units
        .iter()
        .filter(|(_, f)| b >= *f && b % f == 0)
        .min_by_key(|(_, f)| b / f)
        .map_or_else(|| format!("{b}B"), |(u, f)| format!("{}{u}", b / f))
}

/// Formats bytes for people: three significant decimals in decimal units (e.g. `7.776PB`).
pub fn human_bytes(b: u64) -> String {
    for (unit, f) in [
        ("PB", 1e15),
        ("TB", 1e12),
        ("GB", 1e9),
        ("MB", 1e6),
        ("kB", 1e3),
    ] {
        if b as f64 >= f {
            return format!("{:.3}{unit}", b as f64 / f);
        }
    }
    format!("{b}B")
}

/// Formats a bandwidth for people: two decimals in decimal units (e.g. `115.78GB/s`).
pub fn human_bandwidth(bps: f64) -> String {
    for (unit, f) in [("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)] {
        if bps >= f {
            return format!("{:.2}{unit}", bps / f);
        }
    }
    format!("{bps:.0}B/s")
}

/// Formats a bandwidth in decimal units per second (e.g. `25GB/s`, `1.4GB/s`).
pub fn format_bandwidth(bps: u64) -> String {
    for (unit, f) in [("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)] {
        if bps as f64 >= f {
            let v = bps as f64 / f;
            let s = format!("{v:.6}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            return format!("{s}{unit}");
        }
    }
    format!("{bps}B/s")
}

/// Formats picoseconds as a duration string with a unit that parses back exactly.
pub fn format_duration(ps: Time) -> String {
    for (unit, f) in [
        ("s", 1_000_000_000_000u64),
        ("ms", 1_000_000_000),
        ("us", 1_000_000),
        ("ns", 1000),
    ] {
        if ps >= f && ps % f == 0 {
            return format!("{}{unit}", ps / f);
        }
    }
    format!("{ps}ps")
}

macro_rules! quantity {
    ($name:ident, $doc:literal, $parse:ident, $format:ident, $expect:literal, $int_ok:expr, $hint:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u64);

        impl $name {
            /// The value in base units.
            pub fn get(self) -> u64 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&$format(self.0))
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                $parse(s).map($name)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$format(self.0))
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$name, E> {
                        $parse(v).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        if !$int_ok {
                            return Err(E::custom(format!(
                                "`{v}` has no unit; write a string with a unit, e.g. \"{v}{}\"",
                                $hint
                            )));
                        }
                        u64::try_from(v)
                            .map($name)
                            .map_err(|_| E::custom(format!("`{v}` must not be negative")))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "`{v}` has no unit; write a string with a unit, e.g. \"{v}{}\"",
                            $hint
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

quantity!(
    Bytes,
    "A size in bytes, written like \"128KiB\", \"3.2TB\" or a bare integer number of bytes.",
    parse_bytes,
    format_bytes,
    "a size such as \"128KiB\" or \"3.2TB\"",
    true,
    "KiB"
);
quantity!(
    Bandwidth,
    "A bandwidth in bytes per second, written like \"25GB/s\" or \"100Gbit/s\".",
    parse_bandwidth,
    format_bandwidth,
    "a bandwidth such as \"25GB/s\"",
    false,
    "GB/s"
);
quantity!(
    Duration,
    "A duration in picoseconds, written like \"20us\", \"90ns\" or \"1.5s\".",
    parse_duration,
    format_duration,
    "a duration such as \"20us\"",
    false,
    "us"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_decimal_and_binary() {
        assert_eq!(parse_bytes("128KiB"), Ok(131_072));
        assert_eq!(parse_bytes("3.2TB"), Ok(3_200_000_000_000));
        assert_eq!(parse_bytes("1 MiB"), Ok(1 << 20));
        assert_eq!(parse_bytes("4k"), Ok(4000));
        assert_eq!(parse_bytes("512"), Ok(512));
        assert_eq!(parse_bytes("8bit"), Ok(1));
        assert_eq!(parse_bytes("1_024B"), Ok(1024));
        assert!(parse_bytes("12 parsecs")
            .unwrap_err()
            .contains("unknown size unit"));
        assert!(parse_bytes("-3KB").is_err());
        assert!(parse_bytes("KB")
            .unwrap_err()
            .contains("does not start with a number"));
    }

    #[test]
    fn numbers_in_scientific_notation() {
        assert_eq!(parse_bytes("2e12B"), Ok(2_000_000_000_000));
        assert_eq!(parse_bytes("1.5E3 KiB"), Ok(1_536_000));
        assert_eq!(parse_bandwidth("1e-3GB/s"), Ok(1_000_000));
        assert_eq!(parse_duration("5e+2ns"), Ok(500_000));
        // Beyond what a size can hold: said so, not an "unknown unit `e30TB`".
        let e = parse_bytes("1e30TB").unwrap_err();
        assert!(e.contains("too large for a size"), "{e}");
        // An `E` that starts no exponent is still read as a unit.
        assert!(parse_bytes("1EB")
            .unwrap_err()
            .contains("unknown size unit `EB`"));
        assert!(parse_bytes("3e")
            .unwrap_err()
            .contains("unknown size unit `e`"));
    }

    #[test]
    fn bandwidths() {
        assert_eq!(parse_bandwidth("25GB/s"), Ok(25_000_000_000));
        assert_eq!(parse_bandwidth("1.4GB/s"), Ok(1_400_000_000));
        assert_eq!(parse_bandwidth("100Gbit/s"), Ok(12_500_000_000));
        assert_eq!(parse_bandwidth("100Gb/s"), Ok(12_500_000_000));
        assert_eq!(parse_bandwidth("800MiB/s"), Ok(800 * 1024 * 1024));
        assert!(parse_bandwidth("25GB").unwrap_err().contains("per-second"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("20us"), Ok(20_000_000));
        assert_eq!(parse_duration("90ns"), Ok(90_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000_000_000));
        assert_eq!(parse_duration("2min"), Ok(120_000_000_000_000));
        assert_eq!(parse_duration("0.5 µs"), Ok(500_000));
        assert!(parse_duration("20").unwrap_err().contains("needs a unit"));
        assert!(parse_duration("20 fortnights")
            .unwrap_err()
            .contains("unknown time unit"));
    }

    #[test]
    fn formatting_picks_the_shortest_exact_unit() {
        assert_eq!(format_bytes(7_776_000_000_000_000), "7776TB");
        assert_eq!(format_bytes(131_072), "128KiB");
        assert_eq!(format_bytes(1_600_000_000_000), "1600GB");
        assert_eq!(human_bytes(7_776_000_000_000_000), "7.776PB");
        assert_eq!(human_bandwidth(115_775_488_000.0), "115.78GB/s");
    }

    #[test]
    fn formatting_round_trips() {
        for b in [
            131_072u64,
            3_200_000_000_000,
            7,
            1 << 30,
            5_000,
            7_776_000_000_000_000,
        ] {
            assert_eq!(parse_bytes(&format_bytes(b)), Ok(b), "{b}");
        }
        for d in [20_000_000u64, 90_000, 1_500_000_000_000, 3] {
            assert_eq!(parse_duration(&format_duration(d)), Ok(d), "{d}");
        }
        for bw in [25_000_000_000u64, 1_400_000_000, 5_250_000_000] {
            assert_eq!(parse_bandwidth(&format_bandwidth(bw)), Ok(bw), "{bw}");
        }
    }

    #[test]
    fn serde_rejects_unitless_times() {
        #[derive(Deserialize, Debug)]
        struct T {
            d: Duration,
            b: Bytes,
        }
        let ok: T = toml::from_str("d = \"20us\"\nb = 4096").expect("parses");
        assert_eq!((ok.d.get(), ok.b.get()), (20_000_000, 4096));
        let err = toml::from_str::<T>("d = 20\nb = 1").expect_err("no unit");
        assert!(err.to_string().contains("has no unit"), "{err}");
    }
}
