//! `include = ["file.toml", ...]`: a scenario built from several files.
//!
//! The files a scenario includes (paths relative to the including file; one path may be given
//! as a string) are merged in order, then the including file on top: tables merge key by key,
//! recursively; any other value (a number, a string, an array, an array of tables such as
//! `[[jobs]]`) is replaced as a whole by the later file. Included files may include others; a
//! cycle is an error naming the chain of files. Every key remembers the file and line it came
//! from, so that diagnostics name the file that set it.

use crate::diag::{collect_table, line_col, Diagnostic, Origin, Origins};
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, ImDocument, Item, Table, TableLike, Value};

/// The top-level key that lists included files.
pub const INCLUDE_KEY: &str = "include";

/// A scenario composed from its files.
pub struct Composed {
    /// The merged document, without `include` keys.
    pub doc: DocumentMut,
    /// Where every key of `doc` was set (file, line, column).
    pub origins: Origins,
}

fn diag(file: &str, at: Option<(usize, usize)>, key: Option<&str>, message: String) -> Diagnostic {
    Diagnostic {
        file: file.to_string(),
        line: at.map(|a| a.0),
        column: at.map(|a| a.1),
        key: key.map(str::to_string),
        message,
    }
}

/// One parsed file: its document, the origin of each of its keys, and the files it includes
/// (display name, path on disk, position of the entry in the file).
struct Parsed {
    doc: DocumentMut,
    origins: Origins,
    includes: Vec<(String, PathBuf, (usize, usize))>,
}

/// Parses `text` (the file `file`, at `path` on disk) and takes out its `include` key.
fn parse(file: &str, path: &Path, text: &str) -> Result<Parsed, Diagnostic> {
    let im = ImDocument::parse(text.to_string()).map_err(|e| {
        let at = e.span().map(|s| line_col(text, s.start));
        diag(
            file,
            at,
            None,
            format!("invalid TOML: {}", e.message().trim()),
        )
    })?;
    let mut entries = Vec::new();
    collect_table(im.as_table(), "", &mut entries);
    let mut origins = Origins::new();
    let mut include_at = Vec::new();
    for (p, k, v) in &entries {
        let at = line_col(text, if k.is_empty() { v.start } else { k.start });
        if p == INCLUDE_KEY || p.starts_with("include[") {
            include_at.push((p.clone(), at));
            continue;
        }
        origins.insert(
            p.clone(),
            Origin {
                file: file.to_string(),
                line: at.0,
                column: at.1,
            },
        );
    }
    let mut doc = im.into_mut();
    let mut includes = Vec::new();
    if let Some(item) = doc.remove(INCLUDE_KEY) {
        let key_at = include_at.first().map(|(_, a)| *a);
        let names: Vec<(String, (usize, usize))> = match &item {
            Item::Value(Value::String(s)) => vec![(s.value().clone(), key_at.unwrap_or((1, 1)))],
            Item::Value(Value::Array(a)) => {
                let mut names = Vec::new();
                for (i, v) in a.iter().enumerate() {
                    let at = include_at
                        .iter()
                        .find(|(p, _)| *p == format!("include[{i}]"))
                        .map(|(_, a)| *a)
                        .or(key_at);
                    match v.as_str() {
                        Some(s) => names.push((s.to_string(), at.unwrap_or((1, 1)))),
                        None => {
                            return Err(diag(
                                file,
                                at,
                                Some(&format!("include[{i}]")),
                                format!("expected a file name (a string), found {}", v.type_name()),
                            ))
                        }
                    }
                }
                names
            }
            _ => {
                return Err(diag(
                    file,
                    key_at,
                    Some(INCLUDE_KEY),
                    "expected a file name or a list of file names, e.g. include = [\"systems/edison.toml\"]".into(),
                ))
            }
        };
        let dir = path.parent().unwrap_or_else(|| Path::new("."));
        let shown_dir = Path::new(file).parent().unwrap_or_else(|| Path::new(""));
        for (name, at) in names {
            let shown = shown_dir.join(&name).display().to_string();
            includes.push((shown, dir.join(&name), at));
        }
    }
    Ok(Parsed {
        doc,
        origins,
        includes,
    })
}

/// Composes the scenario file `file` (at `path`, with contents `text`): its includes merged in
/// order, then the file itself. `None` when the file includes nothing.
pub fn compose(file: &str, path: &Path, text: &str) -> Result<Option<Composed>, Diagnostic> {
    let parsed = parse(file, path, text)?;
    if parsed.includes.is_empty() {
        return Ok(None);
    }
    let mut chain = vec![(file.to_string(), canonical(path))];
    let mut composed = compose_parsed(file, parsed, &mut chain)?;
    renumber(composed.doc.as_table_mut(), &mut 1);
    Ok(Some(composed))
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Merges the includes of `parsed` (recursively) and then `parsed` itself. `chain` holds the
/// files being composed, outermost first (for cycles).
fn compose_parsed(
    file: &str,
    parsed: Parsed,
    chain: &mut Vec<(String, PathBuf)>,
) -> Result<Composed, Diagnostic> {
    let mut acc = Composed {
        doc: DocumentMut::new(),
        origins: Origins::new(),
    };
    for (shown, path, at) in &parsed.includes {
        let canon = canonical(path);
        if chain.iter().any(|(_, p)| *p == canon) {
            let mut names: Vec<&str> = chain.iter().map(|(n, _)| n.as_str()).collect();
            names.push(shown);
            return Err(diag(
                file,
                Some(*at),
                Some(INCLUDE_KEY),
                format!("include cycle: {}", names.join(" -> ")),
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            diag(
                file,
                Some(*at),
                Some(INCLUDE_KEY),
                format!("cannot read the included file `{shown}`: {e}"),
            )
        })?;
        let inner = parse(shown, path, &text)?;
        chain.push((shown.clone(), canon));
        let sub = compose_parsed(shown, inner, chain)?;
        chain.pop();
        merge(&mut acc, sub);
    }
    merge(
        &mut acc,
        Composed {
            doc: parsed.doc,
            origins: parsed.origins,
        },
    );
    Ok(acc)
}

/// Merges `src` on top of `acc`.
fn merge(acc: &mut Composed, src: Composed) {
    let Composed { doc, origins } = src;
    let table = doc.as_table().clone();
    merge_table(
        acc.doc.as_table_mut(),
        &table,
        "",
        &mut acc.origins,
        &origins,
    );
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// The origins of `path` and of every key inside it.
fn under<'a>(o: &'a Origins, path: &'a str) -> impl Iterator<Item = (&'a String, &'a Origin)> {
    o.range(path.to_string()..)
        .take_while(move |(k, _)| k.starts_with(path))
        .filter(move |(k, _)| {
            let rest = &k[path.len()..];
            rest.is_empty() || rest.starts_with('.') || rest.starts_with('[')
        })
}

/// Merges the keys of `src` into `acc`: tables recursively, everything else replaced.
fn merge_table(
    acc: &mut dyn TableLike,
    src: &dyn TableLike,
    prefix: &str,
    acc_o: &mut Origins,
    src_o: &Origins,
) {
    for (k, item) in src.iter() {
        if item.is_none() {
            continue;
        }
        let path = join(prefix, k);
        let both_tables = item.is_table_like() && acc.get(k).is_some_and(Item::is_table_like);
        if both_tables {
            if let (Some(dst), Some(s)) = (
                acc.get_mut(k).and_then(Item::as_table_like_mut),
                item.as_table_like(),
            ) {
                merge_table(dst, s, &path, acc_o, src_o);
            }
            if let Some(o) = src_o.get(&path) {
                acc_o.insert(path, o.clone());
            }
            continue;
        }
        let stale: Vec<String> = under(acc_o, &path).map(|(k, _)| k.clone()).collect();
        for s in stale {
            acc_o.remove(&s);
        }
        let fresh: Vec<(String, Origin)> = under(src_o, &path)
            .map(|(k, o)| (k.clone(), o.clone()))
            .collect();
        acc_o.extend(fresh);
        acc.insert(k, item.clone());
    }
}

/// Gives every table of the merged document a position in tree order, so that it prints
/// each table after its parent whatever file it came from.
fn renumber(t: &mut Table, next: &mut usize) {
    for (_, item) in t.iter_mut() {
        match item {
            Item::Table(sub) => {
                sub.set_position(*next);
                *next += 1;
                renumber(sub, next);
            }
            Item::ArrayOfTables(a) => {
                for sub in a.iter_mut() {
                    sub.set_position(*next);
                    *next += 1;
                    renumber(sub, next);
                }
            }
            _ => {}
        }
    }
}
