//! The output directory given to `run` and `sweep`, checked before any work so that a path
//! that cannot hold results is reported as what it is.

use std::path::Path;

/// Checks that `out` is a directory, or absent (it is created), or a link to a directory.
/// A dangling symbolic link or an existing file is an error naming the path and what it is.
pub fn check(out: &Path) -> Result<(), String> {
    let Ok(meta) = std::fs::symlink_metadata(out) else {
        return Ok(()); // absent: created when the results are written
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(out)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "?".into());
        return match std::fs::metadata(out) {
            Ok(m) if m.is_dir() => Ok(()),
            Ok(_) => Err(format!(
                "--out {}: is a symbolic link to {target}, which is not a directory; expected a directory (or a path that does not exist)",
                out.display()
            )),
            Err(_) => Err(format!(
                "--out {}: is a dangling symbolic link (to {target}, which does not exist); expected a directory (or a path that does not exist): remove the link or create its target",
                out.display()
            )),
        };
    }
    if !meta.is_dir() {
        return Err(format!(
            "--out {}: exists and is not a directory; expected a directory (or a path that does not exist)",
            out.display()
        ));
    }
    Ok(())
}
