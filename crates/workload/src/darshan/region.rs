//! Decompression of one log region.
//!
//! The Darshan runtime compresses each rank's part of a region separately and appends the
//! streams, so a region is one or more complete zlib (or bzip2) streams back to back
//! (darshan-util's reader resets the decompressor at each end of stream). Uncompressed
//! regions are used as they are.

use super::error::{FormatError, Location};
use super::header::{Compression, Map};
use flate2::{Decompress, FlushDecompress, Status};
use std::io::Read;

/// Largest ratio of decompressed to compressed size accepted before a region is treated as
/// corrupt (zlib cannot exceed about 1032:1; bzip2 can, so the bound is generous).
const MAX_RATIO: u64 = 4096;
/// Output always allowed regardless of the ratio, in bytes.
const MIN_CAP: u64 = 1 << 20;

fn cap_for(input_len: usize) -> usize {
    let cap = (input_len as u64).saturating_mul(MAX_RATIO).max(MIN_CAP);
    usize::try_from(cap).unwrap_or(usize::MAX)
}

/// Decompresses region `name` (bytes `map` of `file`), returning its contents.
pub(crate) fn read_region(
    file: &[u8],
    map: Map,
    comp: Compression,
    name: &str,
) -> Result<Vec<u8>, FormatError> {
    let start = usize::try_from(map.off).ok();
    let end = map
        .off
        .checked_add(map.len)
        .and_then(|e| usize::try_from(e).ok());
    let input = match (start, end) {
        (Some(s), Some(e)) if e <= file.len() && s <= e => &file[s..e],
        _ => {
            return Err(FormatError::new(
                name,
                Location::File(map.off),
                format!(
                    "expected {} bytes of region data, the file has {} bytes (truncated)",
                    map.len,
                    file.len()
                ),
            ))
        }
    };
    match comp {
        Compression::None => Ok(input.to_vec()),
        Compression::Zlib => inflate_concatenated(input, cap_for(input.len()))
            .map_err(|(at, msg)| FormatError::new(name, Location::File(map.off + at as u64), msg)),
        Compression::Bzip2 => {
            let cap = cap_for(input.len());
            let mut out = Vec::new();
            let r = bzip2::read::MultiBzDecoder::new(input)
                .take(cap as u64 + 1)
                .read_to_end(&mut out);
            match r {
                Err(e) => Err(FormatError::new(
                    name,
                    Location::File(map.off),
                    format!(
                        "expected {} bytes of valid bzip2 streams, decoding failed after {} decompressed bytes: {e}",
                        map.len,
                        out.len()
                    ),
                )),
                Ok(_) if out.len() > cap => Err(FormatError::new(
                    name,
                    Location::File(map.off),
                    format!(
                        "decompresses to more than {cap} bytes from {} compressed bytes; refusing a likely corrupt region",
                        map.len
                    ),
                )),
                Ok(_) => Ok(out),
            }
        }
    }
}

/// Inflates one or more concatenated zlib streams. Errors carry the input offset.
fn inflate_concatenated(input: &[u8], cap: usize) -> Result<Vec<u8>, (usize, String)> {
    let mut out: Vec<u8> = Vec::with_capacity(input.len().saturating_mul(4).min(cap));
    let mut d = Decompress::new(true);
    let mut pos = 0usize;
    while pos < input.len() {
        d.reset(true);
        let stream_start = pos;
        loop {
            if out.capacity() - out.len() < 16 * 1024 {
                if out.len() >= cap {
                    return Err((
                        pos,
                        format!(
                            "decompresses to more than {cap} bytes from {} compressed bytes; refusing a likely corrupt region",
                            input.len()
                        ),
                    ));
                }
                let grow = out.len().max(64 * 1024).min(cap - out.len() + 16 * 1024);
                out.reserve(grow);
            }
            let in_before = d.total_in();
            let out_before = d.total_out();
            let status = d
                .decompress_vec(&input[pos..], &mut out, FlushDecompress::None)
                .map_err(|e| {
                    (
                        pos,
                        format!(
                            "expected a valid zlib stream (started at region byte {stream_start}): {e}"
                        ),
                    )
                })?;
            pos += (d.total_in() - in_before) as usize;
            let progressed = d.total_in() != in_before || d.total_out() != out_before;
            match status {
                Status::StreamEnd => break,
                Status::Ok | Status::BufError => {
                    if !progressed {
                        if pos >= input.len() {
                            return Err((
                                pos,
                                format!(
                                    "the zlib stream that started at region byte {stream_start} is cut short: expected more compressed data, the region ends (truncated log)"
                                ),
                            ));
                        }
                        if out.capacity() > out.len() {
                            return Err((pos, "the zlib decoder made no progress".to_string()));
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn z(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn bz(data: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn concatenated_streams() {
        let a: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let b = b"second stream".to_vec();
        let mut zz = z(&a);
        zz.extend(z(&b));
        let map = Map {
            off: 0,
            len: zz.len() as u64,
        };
        let out = read_region(&zz, map, Compression::Zlib, "POSIX").unwrap();
        assert_eq!(out.len(), a.len() + b.len());
        assert_eq!(&out[a.len()..], &b[..]);
        let mut bb = bz(&a);
        bb.extend(bz(&b));
        let map = Map {
            off: 0,
            len: bb.len() as u64,
        };
        assert_eq!(
            read_region(&bb, map, Compression::Bzip2, "POSIX").unwrap(),
            out
        );
    }

    #[test]
    fn truncated_and_corrupt_streams_are_errors() {
        let zz = z(&[7u8; 5000]);
        let cut = &zz[..zz.len() - 3];
        let map = Map {
            off: 0,
            len: cut.len() as u64,
        };
        let e = read_region(cut, map, Compression::Zlib, "POSIX").unwrap_err();
        assert!(e.problem.contains("cut short"), "{e:?}");
        let mut bad = zz.clone();
        bad[5] ^= 0xff;
        bad[6] ^= 0xff;
        let map = Map {
            off: 0,
            len: bad.len() as u64,
        };
        assert!(read_region(&bad, map, Compression::Zlib, "POSIX").is_err());
        let map = Map { off: 3, len: 100 };
        assert!(read_region(&zz[..10], map, Compression::None, "POSIX").is_err());
        let bb = bz(b"hello hello");
        let map = Map {
            off: 0,
            len: bb.len() as u64 - 4,
        };
        assert!(read_region(&bb, map, Compression::Bzip2, "STDIO").is_err());
    }
}
