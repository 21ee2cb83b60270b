//! Records the git commit bbsim is built from (`BBSIM_COMMIT`), for `bbsim --version` and
//! `summary.json`: `git rev-parse --short HEAD`, with `-dirty` when tracked files differ from
//! it; from a published package, the commit in `.cargo_vcs_info.json`; otherwise `unknown`.
//! Never fails the build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rerun-if-changed=build.rs");
    // Edits to this crate can make the tree dirty; they rebuild it anyway.
    println!("cargo:rerun-if-changed=src");
    let commit = from_git(&dir)
        .or_else(|| from_vcs_info(&dir))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=BBSIM_COMMIT={commit}");
}

/// Runs `git -C dir ARGS` and returns its trimmed output when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The commit of the git work tree this crate is built in, if it is one and tracks this
/// crate (so an unrelated repository around an unpacked package is not taken for ours).
fn from_git(dir: &Path) -> Option<String> {
    git(dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let sha = git(dir, &["rev-parse", "--short", "HEAD"])?;
    // Rebuild when HEAD moves (checkout, commit) or the index changes (staging).
    let mut watched = vec![git(dir, &["rev-parse", "--git-path", "HEAD"])];
    watched.push(git(dir, &["rev-parse", "--git-path", "index"]));
    if let Some(r) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(dir, &["rev-parse", "--git-path", &r]));
    }
    for p in watched.into_iter().flatten() {
        let p = if Path::new(&p).is_absolute() {
            PathBuf::from(p)
        } else {
            dir.join(p)
        };
        // A path that does not exist would rerun this script on every build.
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    let dirty =
        git(dir, &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{sha}-dirty") } else { sha })
}

/// The commit recorded by `cargo package` in `.cargo_vcs_info.json`.
fn from_vcs_info(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let after = &text[text.find("\"sha1\"")? + 6..];
    let start = after.find('"')? + 1;
    let sha: String = after[start..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .take(7)
        .collect();
    if sha.len() < 7 {
        return None;
    }
    let dirty = text.contains("\"dirty\": true") || text.contains("\"dirty\":true");
    Some(if dirty { format!("{sha}-dirty") } else { sha })
}
