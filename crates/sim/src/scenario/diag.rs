//! Diagnostics for scenario files: every error names the file, the line and column, the key
//! path, what was expected, and for a misspelt key the closest valid one.

use crate::scenario::include::compose;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use toml_edit::{DocumentMut, ImDocument, Item, Table, TableLike, Value};

/// An error in a scenario: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The scenario file that set the key (or the `--set` / `--unset` argument when the value
    /// came from the command line).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// Dotted key path (e.g. `burst_buffer.stripe_count`, `jobs[1].ranks`), when known.
    pub key: Option<String>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": ")?;
        if let Some(k) = &self.key {
            write!(f, "`{k}`: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// Levenshtein distance between two short strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `word`, if it is close enough to be a likely misspelling.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.len() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

/// Pulls the backquoted words out of a serde message ("unknown field `x`, expected one of `a`").
fn backquoted(msg: &str) -> Vec<&str> {
    msg.split('`').skip(1).step_by(2).collect()
}

/// Adds "did you mean" to serde's unknown-field and unknown-variant messages.
fn improve_message(msg: &str) -> String {
    let msg = msg.trim();
    let words = backquoted(msg);
    let is_unknown = msg.starts_with("unknown field") || msg.starts_with("unknown variant");
    if is_unknown && words.len() >= 2 {
        let (bad, options) = (words[0], &words[1..]);
        let what = if msg.starts_with("unknown field") {
            "key"
        } else {
            "value"
        };
        let mut out = format!("unknown {what} `{bad}`");
        if let Some(s) = suggest(bad, options.iter().copied()) {
            out.push_str(&format!("; did you mean `{s}`?"));
        }
        out.push_str(&format!(
            " (expected one of: {})",
            options
                .iter()
                .map(|o| format!("`{o}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return out;
    }
    if msg.starts_with("unknown field") && words.len() == 1 {
        return format!("unknown key `{}` (this table takes no keys)", words[0]);
    }
    msg.to_string()
}

/// Where a key was set: a file and a position in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The file, as messages name it.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// The origin of every key path of a scenario composed from several files.
pub type Origins = BTreeMap<String, Origin>;

/// A key path changed on the command line.
#[derive(Clone, Debug)]
struct Edit {
    /// Canonical dotted path.
    path: String,
    /// The argument as given (`--set a.b=1`, `--unset a.b`).
    arg: String,
    /// `--set` (true) or `--unset` (false).
    set: bool,
}

/// Key paths of a parsed document with their spans, for mapping errors to keys and keys to lines.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    file: String,
    text: String,
    /// (dotted path, span of the key, span of the value)
    entries: Vec<(String, Range<usize>, Range<usize>)>,
    /// Paths changed on the command line, with the original argument.
    overrides: Vec<Edit>,
    /// With `include`: the file and line of every key (the text is then the merged document).
    origins: Option<Origins>,
}

/// 1-based line and column of byte `offset` in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let upto = &text[..offset];
    let line = upto.matches('\n').count() + 1;
    let col = upto.len() - upto.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
    (line, col)
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Every key path of `t` (under `prefix`) with the spans of its key and its value.
pub(crate) fn collect_table(
    t: &Table,
    prefix: &str,
    out: &mut Vec<(String, Range<usize>, Range<usize>)>,
) {
    for (k, item) in t.iter() {
        let path = join(prefix, k);
        let kspan = t.key(k).and_then(|k| k.span()).unwrap_or(0..0);
        collect_item(item, &path, kspan, out);
    }
}

fn collect_item(
    item: &Item,
    path: &str,
    kspan: Range<usize>,
    out: &mut Vec<(String, Range<usize>, Range<usize>)>,
) {
    match item {
        Item::Table(t) => {
            out.push((path.to_string(), kspan.clone(), t.span().unwrap_or(kspan)));
            collect_table(t, path, out);
        }
        Item::ArrayOfTables(a) => {
            for (i, t) in a.iter().enumerate() {
                let p = format!("{path}[{i}]");
                out.push((p.clone(), kspan.clone(), t.span().unwrap_or(kspan.clone())));
                collect_table(t, &p, out);
            }
        }
        Item::Value(v) => collect_value(v, path, kspan, out),
        Item::None => {}
    }
}

fn collect_value(
    v: &Value,
    path: &str,
    kspan: Range<usize>,
    out: &mut Vec<(String, Range<usize>, Range<usize>)>,
) {
    let vspan = v.span().unwrap_or(kspan.clone());
    out.push((path.to_string(), kspan, vspan));
    match v {
        Value::InlineTable(t) => {
            for (k, v) in t.iter() {
                let ks = t.key(k).and_then(|k| k.span()).unwrap_or(0..0);
                collect_value(v, &join(path, k), ks, out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                let vs = v.span().unwrap_or(0..0);
                collect_value(v, &format!("{path}[{i}]"), vs, out);
            }
        }
        _ => {}
    }
}

impl SourceMap {
    fn build(file: &str, text: String, overrides: Vec<Edit>, origins: Option<Origins>) -> Self {
        let mut entries = Vec::new();
        if let Ok(doc) = ImDocument::parse(text.as_str()) {
            collect_table(doc.as_table(), "", &mut entries);
        }
        SourceMap {
            file: file.to_string(),
            text,
            entries,
            overrides,
            origins,
        }
    }

    fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(&self.text, offset)
    }

    /// The innermost key path whose key or value covers `offset`.
    fn key_at(&self, offset: usize) -> Option<&str> {
        self.entries
            .iter()
            .filter(|(_, k, v)| k.contains(&offset) || v.contains(&offset) || v.start == offset)
            .min_by_key(|(_, k, v)| {
                if k.contains(&offset) {
                    k.len()
                } else {
                    v.len()
                }
            })
            .map(|(p, _, _)| p.as_str())
    }

    /// A diagnostic for `key` (a dotted path like `jobs[0].ranks`), with its line when the key is
    /// in the file, or naming the `--set` argument that supplied it.
    pub fn error_at(&self, key: &str, message: impl Into<String>) -> Diagnostic {
        let message = message.into();
        if let Some(e) = self.overrides.iter().rev().find(|e| e.path == key) {
            return Diagnostic {
                file: e.arg.clone(),
                line: None,
                column: None,
                key: Some(key.to_string()),
                message,
            };
        }
        // The key itself, or the nearest enclosing table that is present.
        let mut probe = key.to_string();
        loop {
            if let Some(o) = self.origins.as_ref().and_then(|o| o.get(&probe)) {
                return Diagnostic {
                    file: o.file.clone(),
                    line: Some(o.line),
                    column: Some(o.column),
                    key: Some(key.to_string()),
                    message,
                };
            }
            if self.origins.is_some() {
                // Composed from several files: only origins give lines.
            } else if let Some((_, k, v)) = self.entries.iter().find(|(p, _, _)| *p == probe) {
                let at = if k.is_empty() { v.start } else { k.start };
                let (line, column) = self.line_col(at);
                return Diagnostic {
                    file: self.file.clone(),
                    line: Some(line),
                    column: Some(column),
                    key: Some(key.to_string()),
                    message,
                };
            }
            match probe.rfind(['.', '[']) {
                Some(i) => probe.truncate(i),
                None => break,
            }
        }
        Diagnostic {
            file: self.file.clone(),
            line: None,
            column: None,
            key: Some(key.to_string()),
            message,
        }
    }

    /// Whether the scenario (its files or a `--set`) sets `key` (a dotted path like
    /// `burst_buffer.servers` or `jobs[0].bb_capacity`), or any key inside it.
    pub fn sets(&self, key: &str) -> bool {
        let inside = |p: &str| {
            p == key
                || p.strip_prefix(key)
                    .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        };
        self.entries.iter().any(|(p, _, _)| inside(p))
    }

    /// The `--set` argument (as messages name it) that set `key` or a key inside it.
    fn override_covering(&self, key: &str) -> Option<&str> {
        let inside = |p: &str| {
            p == key
                || p.strip_prefix(key)
                    .is_some_and(|r| r.starts_with('.') || r.starts_with('['))
        };
        self.overrides
            .iter()
            .find(|e| e.set && inside(&e.path))
            .map(|e| e.arg.as_str())
    }

    /// The file name this map describes.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The effective scenario text (after includes, `--unset` and `--set`).
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Splits `a.b[2].c` into segments: keys and array indices.
fn path_segments(path: &str) -> Result<Vec<Seg>, String> {
    let mut segs = Vec::new();
    for part in path.split('.') {
        if part.is_empty() {
            return Err(format!("empty key in path `{path}`"));
        }
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if let Ok(i) = name.parse::<usize>() {
            segs.push(Seg::Index(i));
        } else if !name.is_empty() {
            segs.push(Seg::Key(name.to_string()));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let end = r
                .find(']')
                .ok_or_else(|| format!("missing `]` in path `{path}`"))?;
            let idx: usize = r[..end]
                .parse()
                .map_err(|_| format!("`{}` is not an array index in `{path}`", &r[..end]))?;
            segs.push(Seg::Index(idx));
            rest = &r[end + 1..];
        }
        if !rest.is_empty() {
            return Err(format!("unexpected `{rest}` in path `{path}`"));
        }
    }
    Ok(segs)
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Canonical dotted form of a path (`jobs.0.ranks` becomes `jobs[0].ranks`).
fn canonical(segs: &[Seg]) -> String {
    let mut s = String::new();
    for seg in segs {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Parses the right-hand side of `--set`: a TOML value if it is one, otherwise a bare string.
fn parse_override_value(raw: &str) -> Value {
    let probe = format!("v = {raw}");
    if let Ok(doc) = probe.parse::<DocumentMut>() {
        if let Some(v) = doc.get("v").and_then(Item::as_value) {
            let mut v = v.clone();
            v.decor_mut().clear();
            return v;
        }
    }
    Value::from(raw.trim())
}

/// Prefix of an override that came from `bbsim sweep --vary` rather than `--set`: messages
/// name it as `--vary key=value`.
pub const VARY_ORIGIN: &str = "--vary ";

/// How messages name override `arg`: `--set key=value`, or `--vary key=value` for an
/// argument that starts with [`VARY_ORIGIN`].
fn origin(arg: &str) -> String {
    if arg.starts_with(VARY_ORIGIN) {
        arg.to_string()
    } else {
        format!("--set {arg}")
    }
}

/// Applies one `--set key.path=value` to a document.
fn apply_override(doc: &mut DocumentMut, arg: &str) -> Result<String, Diagnostic> {
    let bad = |message: String| Diagnostic {
        file: origin(arg),
        line: None,
        column: None,
        key: None,
        message,
    };
    let (path, raw) = arg
        .strip_prefix(VARY_ORIGIN)
        .unwrap_or(arg)
        .split_once('=')
        .ok_or_else(|| bad("expected `key.path=value`".to_string()))?;
    let segs = path_segments(path.trim()).map_err(bad)?;
    if segs.is_empty() {
        return Err(bad("empty key path".into()));
    }
    let value = parse_override_value(raw);
    let mut item: &mut Item = doc.as_item_mut();
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        let so_far = canonical(&segs[..=i]);
        match seg {
            Seg::Key(k) => {
                let table = item.as_table_like_mut().ok_or_else(|| {
                    bad(format!(
                        "`{}` is not a table, so `{k}` cannot be set in it",
                        canonical(&segs[..i])
                    ))
                })?;
                if last {
                    table.insert(k, Item::Value(value));
                    return Ok(so_far);
                }
                if table.get(k).is_none() {
                    table.insert(k, Item::Table(Table::new()));
                }
                item = table
                    .get_mut(k)
                    .ok_or_else(|| bad(format!("cannot create `{so_far}`")))?;
            }
            Seg::Index(idx) => {
                let len = match &*item {
                    Item::ArrayOfTables(a) => a.len(),
                    Item::Value(Value::Array(a)) => a.len(),
                    _ => return Err(bad(format!("`{}` is not an array", canonical(&segs[..i])))),
                };
                if *idx >= len {
                    return Err(bad(format!(
                        "index {idx} is out of range: `{}` has {len} entries",
                        canonical(&segs[..i])
                    )));
                }
                match item {
                    Item::ArrayOfTables(a) => {
                        let t = a
                            .get_mut(*idx)
                            .ok_or_else(|| bad(format!("no entry {idx}")))?;
                        if last {
                            return Err(bad(format!("`{so_far}` is a table; set one of its keys")));
                        }
                        // Continue inside the table: wrap it as an item view.
                        return set_in_table(t, &segs[i + 1..], value, &segs[..=i], arg);
                    }
                    Item::Value(Value::Array(a)) => {
                        if last {
                            a.replace(*idx, value);
                            return Ok(so_far);
                        }
                        return Err(bad(format!("`{so_far}` is not a table")));
                    }
                    _ => return Err(bad(format!("`{so_far}` is not an array"))),
                }
            }
        }
    }
    Err(bad("empty key path".into()))
}

fn set_in_table(
    t: &mut Table,
    rest: &[Seg],
    value: Value,
    done: &[Seg],
    arg: &str,
) -> Result<String, Diagnostic> {
    let mut sub = DocumentMut::new();
    // Build a tiny document holding the table so the general routine can walk into it.
    let taken = std::mem::take(t);
    *sub.as_table_mut() = taken;
    let rel = canonical(rest);
    let result = apply_override(&mut sub, &format!("{rel}={value}"));
    *t = std::mem::take(sub.as_table_mut());
    result
        .map(|_| {
            let mut all = done.to_vec();
            all.extend_from_slice(rest);
            canonical(&all)
        })
        .map_err(|mut d| {
            d.file = origin(arg);
            d
        })
}

/// Reads `path`, applies `--set` overrides, and deserialises it into `T`. Every error names the
/// file, line, column and key (or the `--set` argument) and says what was expected.
pub fn load<T: DeserializeOwned>(
    path: &Path,
    overrides: &[String],
) -> Result<(T, SourceMap), Diagnostic> {
    load_edited(path, &[], overrides)
}

/// Like [`load`], removing the keys `unset` (`--unset`) before applying `set` (`--set`).
pub fn load_edited<T: DeserializeOwned>(
    path: &Path,
    unset: &[String],
    set: &[String],
) -> Result<(T, SourceMap), Diagnostic> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Diagnostic {
        file: file.clone(),
        line: None,
        column: None,
        key: None,
        message: format!("cannot read the scenario file: {e}"),
    })?;
    load_str_edited(&file, &text, unset, set)
}

/// Like [`load`] for text already in memory; `file` names it in messages (and locates the files
/// it includes).
pub fn load_str<T: DeserializeOwned>(
    file: &str,
    text: &str,
    overrides: &[String],
) -> Result<(T, SourceMap), Diagnostic> {
    load_str_edited(file, text, &[], overrides)
}

/// Like [`load_edited`] for text already in memory; `file` names it in messages (and locates
/// the files it includes). Order: includes, then `unset`, then `set`.
pub fn load_str_edited<T: DeserializeOwned>(
    file: &str,
    text: &str,
    unset: &[String],
    set: &[String],
) -> Result<(T, SourceMap), Diagnostic> {
    let composed = compose(file, Path::new(file), text)?;
    let (mut doc, mut origins) = match composed {
        Some(c) => (c.doc, Some(c.origins)),
        None => (
            text.parse::<DocumentMut>()
                .map_err(|e: toml_edit::TomlError| {
                    let (line, column) = e
                        .span()
                        .map(|s| line_col(text, s.start))
                        .map_or((None, None), |(l, c)| (Some(l), Some(c)));
                    Diagnostic {
                        file: file.to_string(),
                        line,
                        column,
                        key: None,
                        message: format!("invalid TOML: {}", e.message().trim()),
                    }
                })?,
            None,
        ),
    };
    let mut applied = Vec::new();
    for key in unset {
        let path = apply_unset::<T>(&mut doc, key)?;
        if let Some(o) = origins.as_mut() {
            o.retain(|k, _| {
                !(k == &path
                    || k.starts_with(&format!("{path}."))
                    || k.starts_with(&format!("{path}[")))
            });
        }
        applied.push(Edit {
            path,
            arg: format!("--unset {key}"),
            set: false,
        });
    }
    for arg in set {
        let path = apply_override(&mut doc, arg)?;
        applied.push(Edit {
            path,
            arg: origin(arg),
            set: true,
        });
    }
    let effective = if origins.is_none() && applied.is_empty() {
        text.to_string()
    } else {
        doc.to_string()
    };
    let included = origins.is_some();
    let map = SourceMap::build(file, effective, applied, origins);
    match toml::from_str::<T>(&map.text) {
        Ok(v) => Ok((v, map)),
        Err(e) => {
            let message = improve_message(e.message());
            let key = e
                .span()
                .and_then(|s| map.key_at(s.start).map(str::to_string));
            match (&key, e.span()) {
                (Some(k), _) if map.overrides.iter().any(|o| o.set && o.path == *k) => {
                    Err(map.error_at(k, message))
                }
                // An unknown table added by an override (`--set foo.bar=1`).
                (Some(k), _)
                    if message.starts_with("unknown key") && map.override_covering(k).is_some() =>
                {
                    Err(Diagnostic {
                        file: map
                            .override_covering(k)
                            .map(str::to_string)
                            .unwrap_or_default(),
                        line: None,
                        column: None,
                        key,
                        message,
                    })
                }
                (Some(k), _) if included => Err(map.error_at(k, message)),
                (_, Some(span)) if !included => {
                    let (line, column) = map.line_col(span.start);
                    Err(Diagnostic {
                        file: file.to_string(),
                        line: Some(line),
                        column: Some(column),
                        key,
                        message,
                    })
                }
                _ => Err(Diagnostic {
                    file: file.to_string(),
                    line: None,
                    column: None,
                    key,
                    message,
                }),
            }
        }
    }
}

/// Removes `last` from the table at `parents` under `t`, if there is one.
fn remove_at(t: &mut dyn TableLike, parents: &[Seg], last: &str) {
    let Some((Seg::Key(k), rest)) = parents.split_first() else {
        if parents.is_empty() {
            t.remove(last);
        }
        return;
    };
    let Some(item) = t.get_mut(k) else { return };
    match (item, rest.split_first()) {
        (Item::ArrayOfTables(a), Some((Seg::Index(i), rest))) => {
            if let Some(sub) = a.get_mut(*i) {
                remove_at(sub, rest, last);
            }
        }
        (Item::Value(Value::Array(a)), Some((Seg::Index(i), rest))) => {
            if let Some(sub) = a.get_mut(*i).and_then(Value::as_inline_table_mut) {
                remove_at(sub, rest, last);
            }
        }
        (item, _) => {
            if let Some(sub) = item.as_table_like_mut() {
                remove_at(sub, rest, last);
            }
        }
    }
}

/// A value no schema key accepts as valid, written where an `--unset` key would be to ask the
/// schema whether it knows the key.
const PROBE: &str = "\"bbsim --unset probe\"";

/// Removes `key` (`--unset key`) from `doc`: a no-op when the document does not set it, an
/// error when the schema `T` has no such key. Returns the canonical path.
fn apply_unset<T: DeserializeOwned>(
    doc: &mut DocumentMut,
    key: &str,
) -> Result<String, Diagnostic> {
    let bad = |message: String| Diagnostic {
        file: format!("--unset {key}"),
        line: None,
        column: None,
        key: None,
        message,
    };
    let segs = path_segments(key.trim()).map_err(bad)?;
    let Some((Seg::Key(last), parents)) = segs.split_last() else {
        return Err(bad(
            "expected a key path ending in a key, e.g. `burst_buffer.stripe_count` or `jobs.0.stage_in` (an array entry cannot be removed)".into(),
        ));
    };
    let path = canonical(&segs);
    // Ask the schema: write a probe value at the key in a copy, and see whether the key is
    // refused as unknown (rather than for its value).
    let mut probe = doc.clone();
    if apply_override(&mut probe, &format!("{path}={PROBE}")).is_ok() {
        let text = probe.to_string();
        if let Err(e) = toml::from_str::<T>(&text) {
            let msg = e.message().trim().to_string();
            if msg.starts_with("unknown field") {
                let map = SourceMap::build("", text, Vec::new(), None);
                let at = e.span().and_then(|s| map.key_at(s.start)).unwrap_or("");
                let inside = path == at
                    || path.starts_with(&format!("{at}."))
                    || path.starts_with(&format!("{at}["));
                if !at.is_empty() && inside {
                    return Err(Diagnostic {
                        key: Some(path),
                        ..bad(improve_message(&msg))
                    });
                }
            }
        }
    }
    remove_at(doc.as_table_mut(), parents, last);
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Bb {
        placement: String,
        stripe_count: u32,
    }
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Job {
        ranks: u32,
    }
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct S {
        burst_buffer: Bb,
        #[serde(default)]
        jobs: Vec<Job>,
    }

    const GOOD: &str = "[burst_buffer]\nplacement = \"grouped\"\nstripe_count = 4\n\n[[jobs]]\nranks = 8\n\n[[jobs]]\nranks = 16\n";

    #[test]
    fn misspelt_key_gets_line_and_suggestion() {
        let text = "[burst_buffer]\nplacement = \"grouped\"\nstripe_cont = 4\n";
        let err = load_str::<S>("s.toml", text, &[]).expect_err("bad key");
        assert_eq!(err.line, Some(3), "{err}");
        let msg = err.to_string();
        assert!(msg.starts_with("s.toml:3:"), "{msg}");
        assert!(msg.contains("unknown key `stripe_cont`"), "{msg}");
        assert!(msg.contains("did you mean `stripe_count`?"), "{msg}");
    }

    #[test]
    fn wrong_type_names_key_and_line() {
        let text = "[burst_buffer]\nplacement = \"grouped\"\nstripe_count = \"four\"\n";
        let err = load_str::<S>("s.toml", text, &[]).expect_err("bad type");
        assert_eq!(err.line, Some(3));
        assert_eq!(
            err.key.as_deref(),
            Some("burst_buffer.stripe_count"),
            "{err}"
        );
        assert!(err.message.contains("invalid type"), "{err}");
    }

    #[test]
    fn missing_key_and_syntax_errors() {
        let err = load_str::<S>("s.toml", "[burst_buffer]\nplacement = \"x\"\n", &[])
            .expect_err("missing");
        assert!(
            err.message.contains("missing field `stripe_count`"),
            "{err}"
        );
        let err = load_str::<S>("s.toml", "[burst_buffer\n", &[]).expect_err("syntax");
        assert_eq!(err.line, Some(1));
        assert!(err.message.starts_with("invalid TOML"), "{err}");
    }

    #[test]
    fn overrides_set_nested_and_array_values() {
        let sets = vec![
            "burst_buffer.placement=global".to_string(),
            "jobs.1.ranks=32".to_string(),
            "burst_buffer.stripe_count=2".to_string(),
        ];
        let (s, map) = load_str::<S>("s.toml", GOOD, &sets).expect("valid");
        assert_eq!(s.burst_buffer.placement, "global");
        assert_eq!(s.burst_buffer.stripe_count, 2);
        assert_eq!(s.jobs[1].ranks, 32);
        assert_eq!(s.jobs[0].ranks, 8);
        // Untouched keys keep their lines.
        assert_eq!(map.error_at("jobs[0].ranks", "x").line, Some(6));
        // An overridden key is reported against its --set argument.
        let d = map.error_at("jobs[1].ranks", "too many");
        assert_eq!(d.file, "--set jobs.1.ranks=32");
    }

    #[test]
    fn bad_overrides_are_reported() {
        let e = load_str::<S>("s.toml", GOOD, &["nonsense".into()]).expect_err("no =");
        assert!(e.to_string().contains("expected `key.path=value`"), "{e}");
        let e = load_str::<S>("s.toml", GOOD, &["jobs.5.ranks=1".into()]).expect_err("range");
        assert!(e.message.contains("out of range"), "{e}");
        let e = load_str::<S>("s.toml", GOOD, &["burst_buffer.stripe_count=many".into()])
            .expect_err("type");
        assert!(e.file.starts_with("--set burst_buffer.stripe_count"), "{e}");
        let e = load_str::<S>("s.toml", GOOD, &["burst_buffer.placment=x".into()])
            .expect_err("unknown");
        assert!(e.message.contains("did you mean `placement`"), "{e}");
        let e = load_str::<S>("s.toml", GOOD, &["foo.bar=1".into()]).expect_err("unknown");
        assert_eq!(e.file, "--set foo.bar=1", "{e}");
        assert_eq!(e.line, None, "{e}");
        assert!(e.to_string().starts_with("--set foo.bar=1: "), "{e}");
        assert!(e.message.contains("unknown key `foo`"), "{e}");
        let vary = format!("{VARY_ORIGIN}burst_buffer.stripe_count=many");
        let e = load_str::<S>("s.toml", GOOD, &[vary]).expect_err("type");
        assert_eq!(e.file, "--vary burst_buffer.stripe_count=many", "{e}");
        let (_, map) = load_str::<S>("s.toml", GOOD, &[format!("{VARY_ORIGIN}jobs.1.ranks=4")])
            .expect("valid");
        assert_eq!(
            map.error_at("jobs[1].ranks", "x").file,
            "--vary jobs.1.ranks=4"
        );
    }

    #[test]
    fn suggestions_are_conservative() {
        assert_eq!(
            suggest("topolgy", ["topology", "routing"]),
            Some("topology")
        );
        assert_eq!(suggest("zzz", ["topology", "routing"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
