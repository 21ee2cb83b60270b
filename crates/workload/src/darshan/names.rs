//! Name records: the mapping from 64-bit record id to file path.
//!
//! 3.00 serialises `u64 id, u32 length, bytes`; 3.10 and later `u64 id` followed by a
//! NUL-terminated path.

use super::bytes::Cursor;
use super::error::{FormatError, Location};
use std::collections::BTreeMap;

const R: &str = "name records";

pub(crate) fn parse_names(
    data: &[u8],
    big_endian: bool,
    v300: bool,
) -> Result<BTreeMap<u64, String>, FormatError> {
    let mut out = BTreeMap::new();
    let mut c = Cursor::new(data, big_endian);
    while c.remaining() > 0 {
        let at = c.pos();
        let id = c.u64().ok_or_else(|| {
            FormatError::new(
                R,
                Location::Decompressed(at as u64),
                format!(
                    "expected an 8-byte record id, only {} bytes remain (truncated)",
                    data.len() - at
                ),
            )
        })?;
        let name_bytes = if v300 {
            let len = c.u32().ok_or_else(|| {
                FormatError::new(
                    R,
                    Location::Decompressed(at as u64 + 8),
                    "expected a 4-byte path length (truncated)",
                )
            })?;
            c.take(len as usize).ok_or_else(|| {
                FormatError::new(
                    R,
                    Location::Decompressed(at as u64 + 12),
                    format!(
                        "expected a {len}-byte path, only {} bytes remain (truncated or corrupt length)",
                        data.len() - (at + 12)
                    ),
                )
            })?
        } else {
            let rest = &data[c.pos()..];
            let n = rest.iter().position(|&b| b == 0).ok_or_else(|| {
                FormatError::new(
                    R,
                    Location::Decompressed(at as u64 + 8),
                    "expected a NUL-terminated path, the region ends first (truncated)",
                )
            })?;
            let s = c.take(n + 1).unwrap_or_default();
            &s[..n]
        };
        let name = String::from_utf8_lossy(name_bytes).into_owned();
        let entry = out.entry(id).or_insert_with(String::new);
        if entry.is_empty() {
            *entry = name;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_formats() {
        let mut new = 5u64.to_le_bytes().to_vec();
        new.extend(b"/a/b\0");
        new.extend(9u64.to_le_bytes());
        new.extend(b"\0");
        let m = parse_names(&new, false, false).unwrap();
        assert_eq!(m[&5], "/a/b");
        assert_eq!(m[&9], "");
        let mut old = 5u64.to_be_bytes().to_vec();
        old.extend(4u32.to_be_bytes());
        old.extend(b"/x/y");
        assert_eq!(parse_names(&old, true, true).unwrap()[&5], "/x/y");
        old.extend(7u64.to_be_bytes());
        old.extend(1000u32.to_be_bytes());
        let e = parse_names(&old, true, true).unwrap_err();
        assert!(e.problem.contains("1000-byte path"), "{e:?}");
        assert!(parse_names(&new[..new.len() - 1], false, false).is_err());
    }
}
