//! CSV text written with the `csv` crate: RFC 4180 quoting (a field holding a comma, a quote
//! or a line break is quoted, its quotes doubled) and `\n` line ends, for every CSV file bbsim
//! writes.

use std::fmt::{Display, Write as _};

/// A CSV table being written in memory, one field at a time.
pub struct CsvText {
    w: csv::Writer<Vec<u8>>,
    /// Scratch space for formatting numbers without an allocation per field.
    scratch: String,
}

impl CsvText {
    /// An empty table whose buffer starts with room for about `bytes` bytes.
    pub fn with_capacity(bytes: usize) -> Self {
        CsvText {
            w: csv::WriterBuilder::new()
                .flexible(true)
                .from_writer(Vec::with_capacity(bytes)),
            scratch: String::new(),
        }
    }

    /// Appends a text field to the current row, quoted when needed.
    pub fn field(&mut self, s: &str) -> &mut Self {
        // Writing into a Vec cannot fail.
        let _ = self.w.write_field(s);
        self
    }

    /// Appends a field written with `Display` (numbers, which never need quoting).
    pub fn value(&mut self, v: impl Display) -> &mut Self {
        self.scratch.clear();
        let _ = write!(self.scratch, "{v}");
        let _ = self.w.write_field(&self.scratch);
        self
    }

    /// Ends the current row.
    pub fn end_row(&mut self) {
        let _ = self.w.write_record(None::<&[u8]>);
    }

    /// Appends a whole row of text fields.
    pub fn row<'a>(&mut self, fields: impl IntoIterator<Item = &'a str>) {
        for f in fields {
            self.field(f);
        }
        self.end_row();
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        let bytes = self.w.into_inner().unwrap_or_default();
        // Every field came from a `&str`, so the bytes are UTF-8.
        String::from_utf8(bytes).unwrap_or_default()
    }
}

/// One field as CSV text (quoted when needed), for tables assembled line by line.
pub fn csv_field(s: &str) -> String {
    if s.is_empty() {
        return String::new();
    }
    let mut t = CsvText::with_capacity(s.len() + 3);
    // A quoted field's closing quote is written when its record ends: end the row, then drop
    // the line end.
    t.field(s).end_row();
    let mut text = t.finish();
    text.pop();
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field(""), "");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
        assert_eq!(csv_field("cr\r"), "\"cr\r\"");
        assert_eq!(csv_field(" spaced "), " spaced ");
    }

    #[test]
    fn rows_end_with_a_newline_and_read_back() {
        let mut t = CsvText::with_capacity(64);
        t.row(["job", "bytes"]);
        t.field("a,\"b\"").value(42u64).end_row();
        t.field("").value(1.5).end_row();
        let text = t.finish();
        assert_eq!(text, "job,bytes\n\"a,\"\"b\"\"\",42\n,1.5\n");
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let rows: Vec<csv::StringRecord> = r.records().map(|x| x.expect("row")).collect();
        assert_eq!(&rows[0][0], "a,\"b\"");
        assert_eq!(&rows[1][0], "");
    }
}
