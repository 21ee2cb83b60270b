//! docs/scenarios.md lists every scenario key. The keys are discovered from the schema itself
//! (each table refuses an unknown key and names the keys it accepts; a table whose kind is
//! chosen by a tag names its kinds when given an unknown one), so a key added to the schema
//! without a mention in the reference fails here, naming the key.

use bbsim_sim::scenario::Scenario;
use toml::{Table, Value};

/// The name the probes use; no table has a key, and no tag a kind, of this name.
const PROBE: &str = "__probe";

/// A table path: each level's name, and whether that level is an array of tables.
type Path = [(String, bool)];

/// `value` placed at `path` in an otherwise empty scenario.
fn nest(path: &Path, value: Table) -> Value {
    path.iter()
        .rev()
        .fold(Value::Table(value), |inner, (name, array)| {
            let inner = if *array {
                Value::Array(vec![inner])
            } else {
                inner
            };
            let mut t = Table::new();
            t.insert(name.clone(), inner);
            Value::Table(t)
        })
}

/// The backquoted words of the first line of the error that loading `table` at `path` raises,
/// after `marker`; none when it raises no such error.
fn words_after(path: &Path, table: Table, marker: &str) -> Option<Vec<String>> {
    let err = nest(path, table).try_into::<Scenario>().err()?.to_string();
    let rest = err.split(marker).nth(1)?.lines().next()?;
    let words: Vec<String> = rest
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    (!words.is_empty()).then_some(words)
}

/// The keys of the table at `path`, if it is a table of the schema. A tagged table (its kind
/// chosen by a key such as `kind`) has the tag and the keys of every kind.
fn keys_at(path: &Path) -> Option<Vec<String>> {
    let probe = |extra: Table| {
        let mut t = extra;
        t.insert(PROBE.into(), Value::Integer(1));
        t
    };
    let unknown_field = format!("unknown field `{PROBE}`");
    if let Some(keys) = words_after(path, probe(Table::new()), &unknown_field) {
        return Some(keys);
    }
    // A tagged table first asks for its tag; an unknown kind then lists the kinds.
    let tag = words_after(path, probe(Table::new()), "missing field")?
        .into_iter()
        .next()?;
    let with_tag = |kind: &str| {
        let mut t = Table::new();
        t.insert(tag.clone(), Value::String(kind.into()));
        t
    };
    let kinds = words_after(path, with_tag(PROBE), &format!("unknown variant `{PROBE}`"))?;
    let mut keys = vec![tag.clone()];
    for kind in &kinds {
        for k in words_after(path, probe(with_tag(kind)), &unknown_field).unwrap_or_default() {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    Some(keys)
}

/// Every key of the schema as (dotted table path, key), depth first.
fn schema_keys(path: &mut Vec<(String, bool)>, out: &mut Vec<(String, String)>) {
    let Some(keys) = keys_at(path) else { return };
    let table = dotted(path);
    for k in keys {
        out.push((table.clone(), k.clone()));
        for array in [false, true] {
            path.push((k.clone(), array));
            let before = out.len();
            schema_keys(path, out);
            path.pop();
            if out.len() > before {
                break;
            }
        }
    }
}

fn dotted(path: &Path) -> String {
    path.iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

/// The reference's text about top-level section `section` (`""`: the top level): from its
/// heading to the next heading of the same level; none if it has no heading.
fn section_text<'a>(doc: &'a str, section: &str) -> Option<&'a str> {
    let headings = if section.is_empty() {
        vec!["### Top level".to_string()]
    } else {
        vec![format!("### `[[{section}]]`"), format!("### `[{section}]`")]
    };
    let start = headings
        .iter()
        .find_map(|h| doc.find(h.as_str()).map(|i| i + h.len()))?;
    let body = &doc[start..];
    let end = body
        .find("\n### ")
        .or(body.find("\n## "))
        .unwrap_or(body.len());
    Some(&body[..end])
}

/// Whether `text` describes `key`: as the first cell of a table row (alone or in a list,
/// `` | `a`, `b` | ``), or in prose followed by its default in parentheses (`` `key` (`1`) ``),
/// alone or in a list of keys that has one (`` `a`, `b` (`1`) ``), or with a value
/// (`` `key = 1` ``).
/// A key only mentioned in another key's description does not count.
fn describes(text: &str, key: &str) -> bool {
    let quoted = format!("`{key}`");
    let in_first_cell = text.lines().any(|line| {
        line.strip_prefix('|')
            .and_then(|rest| rest.split('|').next())
            .is_some_and(|cell| cell.split(',').any(|k| k.trim() == quoted))
    });
    // Prose with its line breaks as spaces, so a key and its default may straddle a line.
    let prose = text.replace('\n', " ");
    let with_default = prose
        .match_indices(&quoted)
        .any(|(i, _)| list_then_default(&prose[i + quoted.len()..]));
    in_first_cell || with_default || prose.contains(&format!("`{key} = "))
}

/// Whether `rest` (the text after a backquoted key) goes on to a default in parentheses,
/// directly or after more backquoted keys of the same list (`` , `b` and `c` (`1`) ``).
fn list_then_default(mut rest: &str) -> bool {
    loop {
        if rest.starts_with(" (") {
            return true;
        }
        let Some(next) = [", `", " and `"]
            .iter()
            .find_map(|sep| rest.strip_prefix(sep))
        else {
            return false;
        };
        let Some(end) = next.find('`') else {
            return false;
        };
        if next[..end].contains(' ') {
            return false;
        }
        rest = &next[end + 1..];
    }
}

/// Whether the reference describes `key` of table `table`: a top-level section has its own
/// heading; a sub-table (`[burst_buffer.ssd]`, `[[jobs.transforms]]`) is named in its
/// section; a key of a section is described there ([`describes`]); a key of a sub-table is
/// described in a paragraph that names the sub-table, or in a table right after that
/// paragraph.
fn documented(doc: &str, table: &str, key: &str, is_table: bool) -> bool {
    if table.is_empty() && is_table {
        return section_text(doc, key).is_some();
    }
    let top = table.split('.').next().unwrap_or("");
    let Some(text) = section_text(doc, top) else {
        return false;
    };
    if is_table {
        let sub = format!("{table}.{key}");
        return text.contains(&format!("[{sub}]"));
    }
    if !table.contains('.') {
        return describes(text, key);
    }
    let mut about_table = false;
    text.split("\n\n").any(|block| {
        // A block names the sub-table, or is a table (`|` rows) right after one that does.
        about_table = block.contains(&format!("[{table}]"))
            || (about_table && block.trim_start().starts_with('|'));
        about_table && describes(block, key)
    })
}

#[test]
fn the_key_reference_lists_every_schema_key() {
    let mut keys = Vec::new();
    schema_keys(&mut Vec::new(), &mut keys);
    // The discovery works: sections, sub-tables, arrays of tables and tagged tables.
    for (t, k) in [
        ("", "network"),
        ("simulation", "seed"),
        ("burst_buffer.ssd", "write_bandwidth"),
        ("burst_buffer.drain", "policy"),
        ("jobs", "block_size"),
        ("jobs.transforms", "kind"),
        ("jobs.transforms", "interval"),
        ("reservations", "name"),
        ("traffic", "pattern"),
        ("cost", "ssd_price"),
    ] {
        assert!(
            keys.iter().any(|(a, b)| a == t && b == k),
            "schema discovery missed {t}.{k}: {keys:?}"
        );
    }
    let doc_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenarios.md");
    let doc = std::fs::read_to_string(doc_path).expect("docs/scenarios.md");
    let start = doc
        .find("## Sections and keys")
        .expect("docs/scenarios.md has a section \"Sections and keys\"");
    let reference = &doc[start..];
    let missing: Vec<String> = keys
        .iter()
        .filter(|(table, key)| {
            let sub = if table.is_empty() {
                key.clone()
            } else {
                format!("{table}.{key}")
            };
            let is_table = keys.iter().any(|(t, _)| *t == sub);
            !documented(reference, table, key, is_table)
        })
        .map(|(table, key)| {
            if table.is_empty() {
                key.clone()
            } else {
                format!("{table}.{key}")
            }
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/scenarios.md, \"Sections and keys\", does not describe these scenario keys: \
         {missing:?}"
    );
}
