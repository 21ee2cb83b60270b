//! The uncompressed log header: version, byte order, compression, partial flags and the map
//! of where each region lies in the file.
//!
//! Layout (all versions 3.x; fields in the writer's byte order):
//!
//! | field | 3.00-3.21 | 3.41+ |
//! |---|---|---|
//! | `char version[8]` | 0 | 0 |
//! | `int64 magic` (6567223) | 8 | 8 |
//! | `uint8 comp_type` | 16 | 16 |
//! | partial flags | `uint32` at 20 | `uint64` at 24 |
//! | name map `{u64 off, u64 len}` | 24 | 32 |
//! | module maps | 16 at 40 | 64 at 48 |
//! | module versions `uint32` | 16 at 296 | 64 at 1072 |
//! | header size | 360 | 1328 |
//!
//! Module slots are renumbered to the 3.41 ("canonical") numbering: logs before 3.20 lack
//! the H5D slot (4) and logs before 3.41 lack the PNETCDF_VAR slot (6).

use super::bytes::Cursor;
use super::error::{FormatError, Location};

/// Darshan's magic number, used to detect byte order.
pub const DARSHAN_MAGIC: u64 = 6_567_223;

/// Module names in canonical (log format 3.41) slot order.
pub const MODULE_NAMES: [&str; 18] = [
    "NULL",
    "POSIX",
    "MPI-IO",
    "H5F",
    "H5D",
    "PNETCDF_FILE",
    "PNETCDF_VAR",
    "BG/Q",
    "LUSTRE",
    "STDIO",
    "DXT_POSIX",
    "DXT_MPIIO",
    "MDHIM",
    "APXC",
    "APMPI",
    "HEATMAP",
    "DFS",
    "DAOS",
];

/// Canonical slot of the POSIX module.
pub const POSIX: usize = 1;
/// Canonical slot of the MPI-IO module.
pub const MPIIO: usize = 2;
/// Canonical slot of the STDIO module.
pub const STDIO: usize = 9;
/// Canonical slot of the DXT_POSIX module.
pub const DXT_POSIX: usize = 10;
/// Canonical slot of the DXT_MPIIO module.
pub const DXT_MPIIO: usize = 11;

/// Name of canonical module slot `idx` (`MODULE_<idx>` for slots unknown to this reader).
pub fn module_name(idx: usize) -> String {
    MODULE_NAMES
        .get(idx)
        .map(|s| s.to_string())
        .unwrap_or_else(|| format!("MODULE_{idx}"))
}

/// Compression of the log's regions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// zlib streams (the default).
    Zlib,
    /// bzip2 streams.
    Bzip2,
    /// Uncompressed.
    None,
}

/// Byte order the log was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ByteOrder {
    /// Little-endian (x86, most ARM).
    Little,
    /// Big-endian (e.g. Blue Gene, POWER in BE mode).
    Big,
}

/// Offset and length of a region in the file (length in compressed bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Map {
    pub off: u64,
    pub len: u64,
}

/// One module slot that holds data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModuleSlot {
    pub canonical: usize,
    pub map: Map,
    pub version: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub version: String,
    pub major: u32,
    pub minor: u32,
    pub byte_order: ByteOrder,
    pub compression: Compression,
    /// Partial flags in canonical numbering (bit i = module slot i).
    pub partial: u64,
    pub job_map: Map,
    pub name_map: Map,
    pub modules: Vec<ModuleSlot>,
}

const R: &str = "header";

fn parse_version(raw: &[u8]) -> Result<(String, u32, u32), FormatError> {
    let text = super::bytes::c_string(raw);
    let bad = || {
        FormatError::new(
            R,
            Location::File(0),
            format!(
                "expected a Darshan version string such as \"3.21\", found {:?}: not a Darshan log",
                String::from_utf8_lossy(raw)
            ),
        )
    };
    let (a, b) = text.split_once('.').ok_or_else(bad)?;
    if a.is_empty() || b.is_empty() || !a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let major: u32 = a.parse().map_err(|_| bad())?;
    let minor: u32 = b.parse().map_err(|_| bad())?;
    let supported = major == 3 && (matches!(minor, 0 | 10 | 20 | 21) || minor >= 41);
    if !supported {
        return Err(FormatError::new(
            R,
            Location::File(0),
            format!(
                "log format version {text} is not supported (expected 3.00, 3.10, 3.20, 3.21 or 3.41 and later)"
            ),
        ));
    }
    Ok((text, major, minor))
}

/// Canonical slot of file slot `idx` in a log of version `major.minor`.
pub(crate) fn canonical_slot(major: u32, minor: u32, idx: usize) -> usize {
    let mut c = idx;
    if major == 3 && minor < 20 && c >= 4 {
        c += 1;
    }
    if major == 3 && minor < 41 && c >= 6 {
        c += 1;
    }
    c
}

pub(crate) fn parse_header(data: &[u8]) -> Result<Header, FormatError> {
    let file_len = data.len() as u64;
    if data.len() < 8 {
        return Err(FormatError::new(
            R,
            Location::File(0),
            format!(
                "expected at least 8 bytes of version string, the file has {}: not a Darshan log",
                data.len()
            ),
        ));
    }
    let (version, major, minor) = parse_version(&data[..8])?;
    let wide = minor >= 41;
    let nslots = if wide { 64 } else { 16 };
    let name_at = if wide { 32 } else { 24 };
    let header_len = name_at + 16 + nslots * 16 + nslots * 4;
    if data.len() < header_len {
        return Err(FormatError::new(
            R,
            Location::File(file_len),
            format!(
                "the file ends after {file_len} bytes, inside the {header_len}-byte header of a version {version} log (truncated)"
            ),
        ));
    }
    let magic_le = u64::from_le_bytes(data[8..16].try_into().unwrap_or_default());
    let big = if magic_le == DARSHAN_MAGIC {
        false
    } else if magic_le.swap_bytes() == DARSHAN_MAGIC {
        true
    } else {
        return Err(FormatError::new(
            R,
            Location::File(8),
            format!(
                "expected the magic number {DARSHAN_MAGIC} in either byte order, found {magic_le:#x}: not a Darshan log or corrupt header"
            ),
        ));
    };
    let mut c = Cursor::new(&data[..header_len], big);
    let short = |o: usize| FormatError::new(R, Location::File(o as u64), "header field cut short");
    c.seek(16).ok_or_else(|| short(16))?;
    let comp_byte = c.u8().ok_or_else(|| short(16))?;
    let compression = match comp_byte {
        0 => Compression::Zlib,
        1 => Compression::Bzip2,
        2 => Compression::None,
        other => {
            return Err(FormatError::new(
                R,
                Location::File(16),
                format!("expected compression type 0 (zlib), 1 (bzip2) or 2 (none), found {other}"),
            ))
        }
    };
    let file_partial = if wide {
        c.seek(24).ok_or_else(|| short(24))?;
        c.u64().ok_or_else(|| short(24))?
    } else {
        c.seek(20).ok_or_else(|| short(20))?;
        u64::from(c.u32().ok_or_else(|| short(20))?)
    };
    c.seek(name_at).ok_or_else(|| short(name_at))?;
    let read_map = |c: &mut Cursor<'_>| -> Result<Map, FormatError> {
        let at = c.pos();
        let off = c.u64().ok_or_else(|| short(at))?;
        let len = c.u64().ok_or_else(|| short(at))?;
        Ok(Map { off, len })
    };
    let name_map = read_map(&mut c)?;
    let mut maps = Vec::with_capacity(nslots);
    for _ in 0..nslots {
        maps.push(read_map(&mut c)?);
    }
    let mut vers = Vec::with_capacity(nslots);
    for _ in 0..nslots {
        let at = c.pos();
        vers.push(c.u32().ok_or_else(|| short(at))?);
    }

    let check = |what: String, map: Map, field_at: usize| -> Result<(), FormatError> {
        if map.len == 0 {
            return Ok(());
        }
        let end = map.off.checked_add(map.len);
        match end {
            Some(end) if map.off >= header_len as u64 && end <= file_len => Ok(()),
            _ => Err(FormatError::new(
                R,
                Location::File(field_at as u64),
                format!(
                    "region {what} is mapped at file offset {} with length {}, expected it to lie within bytes {header_len}..{file_len} of the file (truncated or corrupt log)",
                    map.off, map.len
                ),
            )),
        }
    };
    check("name records".into(), name_map, name_at)?;
    let mut modules = Vec::new();
    let mut partial = 0u64;
    for (i, (map, ver)) in maps.iter().zip(&vers).enumerate() {
        let canonical = canonical_slot(major, minor, i);
        if file_partial & (1u64 << i) != 0 && canonical < 64 {
            partial |= 1u64 << canonical;
        }
        if map.len == 0 {
            continue;
        }
        check(module_name(canonical), *map, name_at + 16 + 16 * i)?;
        modules.push(ModuleSlot {
            canonical,
            map: *map,
            version: *ver,
        });
    }
    // The job region runs from the end of the header to the first following region.
    let job_end = if name_map.off != 0 {
        name_map.off
    } else {
        maps.iter()
            .find(|m| m.off != 0)
            .map(|m| m.off)
            .unwrap_or(file_len)
    };
    let job_len = job_end.checked_sub(header_len as u64).ok_or_else(|| {
        FormatError::new(
            R,
            Location::File(name_at as u64),
            format!(
                "the job record must start right after the {header_len}-byte header, but the next region starts at file offset {job_end}"
            ),
        )
    })?;
    if job_len == 0 || job_end > file_len {
        return Err(FormatError::new(
            "job record",
            Location::File(header_len as u64),
            format!(
                "expected a compressed job record between file offsets {header_len} and {job_end} (file size {file_len}), found none"
            ),
        ));
    }
    Ok(Header {
        version,
        major,
        minor,
        byte_order: if big {
            ByteOrder::Big
        } else {
            ByteOrder::Little
        },
        compression,
        partial,
        job_map: Map {
            off: header_len as u64,
            len: job_len,
        },
        name_map,
        modules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_renumbering() {
        // 3.10: POSIX 1, MPI-IO 2, HDF5 3, PNETCDF 4, BG/Q 5, LUSTRE 6, STDIO 7, DXT_POSIX 8
        assert_eq!(canonical_slot(3, 10, 4), 5);
        assert_eq!(canonical_slot(3, 10, 7), STDIO);
        assert_eq!(canonical_slot(3, 10, 8), DXT_POSIX);
        // 3.21: H5D 4, PNETCDF 5, BG/Q 6, ... STDIO 8, DXT_POSIX 9
        assert_eq!(canonical_slot(3, 21, 4), 4);
        assert_eq!(canonical_slot(3, 21, 8), STDIO);
        assert_eq!(canonical_slot(3, 21, 10), DXT_MPIIO);
        assert_eq!(canonical_slot(3, 41, 9), STDIO);
        assert_eq!(module_name(40), "MODULE_40");
    }

    #[test]
    fn rejects_non_darshan_and_old_versions() {
        let e = parse_header(b"hello world, this is not a log").unwrap_err();
        assert!(e.problem.contains("not a Darshan log"), "{e:?}");
        let mut v2 = vec![0u8; 400];
        v2[..4].copy_from_slice(b"2.06");
        let e = parse_header(&v2).unwrap_err();
        assert!(e.problem.contains("2.06 is not supported"), "{e:?}");
        let e = parse_header(b"3.21\0\0\0\0").unwrap_err();
        assert!(e.problem.contains("truncated"), "{e:?}");
        let mut bad_magic = vec![0u8; 400];
        bad_magic[..4].copy_from_slice(b"3.21");
        let e = parse_header(&bad_magic).unwrap_err();
        assert_eq!(e.location, Location::File(8));
    }
}
