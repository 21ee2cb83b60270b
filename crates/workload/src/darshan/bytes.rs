//! Bounds-checked reading of fixed-width fields in either byte order.

/// A cursor over a byte slice; every read returns `None` instead of running past the end.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    big_endian: bool,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8], big_endian: bool) -> Self {
        Cursor {
            data,
            pos: 0,
            big_endian,
        }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub(crate) fn seek(&mut self, pos: usize) -> Option<()> {
        if pos <= self.data.len() {
            self.pos = pos;
            Some(())
        } else {
            None
        }
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Some(a)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.array::<1>().map(|a| a[0])
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        let a = self.array::<4>()?;
        Some(if self.big_endian {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        })
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        let a = self.array::<8>()?;
        Some(if self.big_endian {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        })
    }

    pub(crate) fn i64(&mut self) -> Option<i64> {
        self.u64().map(|v| v as i64)
    }

    pub(crate) fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }
}

/// The text of a NUL-terminated (or full-length) byte string, invalid UTF-8 replaced.
pub(crate) fn c_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_orders_and_stops_at_end() {
        let d = [1u8, 0, 0, 0, 0, 0, 0, 2, 9];
        let mut le = Cursor::new(&d, false);
        assert_eq!(le.u64(), Some(0x0200_0000_0000_0001));
        assert_eq!(le.u64(), None);
        assert_eq!(le.u8(), Some(9));
        let mut be = Cursor::new(&d, true);
        assert_eq!(be.u64(), Some(0x0100_0000_0000_0002));
        assert_eq!(be.remaining(), 1);
        assert_eq!(be.take(2), None);
        assert_eq!(be.seek(10), None);
        assert_eq!(c_string(b"ab\0cd"), "ab");
        assert_eq!(c_string(b"abc"), "abc");
    }
}
