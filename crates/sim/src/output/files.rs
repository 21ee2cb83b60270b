//! Atomic output files. A set of files is written under temporary names and put in place only
//! when the whole set is complete, so an interrupted or failed run leaves no half-written files.
//!
//! Two kinds of set: [`OutputSet::new`] adds files to a directory that holds other things (a
//! sweep's `sweep.csv` beside its run directories); [`OutputSet::replacing`] owns a run
//! directory: the new files are written into a temporary directory beside it, which replaces
//! it as a whole, so a re-run never leaves a mix of old and new files.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set (by the CLI's Ctrl-C handler) when the user interrupts the run. Writers check it before
/// every file and before committing.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether the user has interrupted the run.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

fn interrupted_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::Interrupted,
        "interrupted: no output files were written",
    )
}

/// An I/O error that names the path it concerns and what was being done.
fn at(e: io::Error, what: &str, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
}

/// A file of an [`OutputSet`] being written: a buffered writer whose errors (a full disk, say)
/// name the file.
#[derive(Debug)]
pub struct OutputFile {
    inner: BufWriter<File>,
    /// The file's final path, for messages.
    path: PathBuf,
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner
            .write(buf)
            .map_err(|e| at(e, "cannot write", &self.path))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner
            .flush()
            .map_err(|e| at(e, "cannot write", &self.path))
    }
}

/// Where the files of a set are staged before they are committed.
#[derive(Debug)]
enum Staging {
    /// Temporary names inside the target directory, renamed one by one.
    Beside,
    /// A temporary directory beside the target that replaces it as a whole; `target` is the
    /// target's path with its last component spelt out (no trailing `.`).
    Whole { tmp: PathBuf, target: PathBuf },
    /// A temporary directory inside the target (which holds files bbsim did not write, or is
    /// a symbolic link): the new files replace the previous run's (`previous`) by name.
    Inside {
        tmp: PathBuf,
        previous: &'static [&'static str],
    },
}

/// A set of output files committed together.
#[derive(Debug)]
pub struct OutputSet {
    dir: PathBuf,
    staging: Staging,
    /// (temporary path, final name)
    files: Vec<(PathBuf, String)>,
    committed: bool,
    /// Whether an interrupt stops this set (false for records of work already finished).
    stops_on_interrupt: bool,
}

impl OutputSet {
    /// Prepares to add files to `dir` (created if missing), leaving its other contents alone.
    /// An interrupt stops the set: no file is created or committed once the user has pressed
    /// Ctrl-C.
    pub fn new(dir: &Path) -> io::Result<Self> {
        Self::beside(dir, true)
    }

    /// Like [`OutputSet::new`], but the set is still written and committed after an interrupt:
    /// for files that record work already finished (a sweep's tables of its finished points),
    /// which an interrupted command must leave up to date.
    pub fn for_finished_work(dir: &Path) -> io::Result<Self> {
        Self::beside(dir, false)
    }

    fn beside(dir: &Path, stops_on_interrupt: bool) -> io::Result<Self> {
        fs::create_dir_all(dir).map_err(|e| at(e, "cannot create output directory", dir))?;
        Ok(OutputSet {
            dir: dir.to_path_buf(),
            staging: Staging::Beside,
            files: Vec::new(),
            committed: false,
            stops_on_interrupt,
        })
    }

    /// Prepares to replace the run directory `dir`, whose previous contents, if bbsim wrote
    /// them, are files named in `previous`. Creates the temporary directory at once, so a
    /// target that cannot be written is reported before any work.
    ///
    /// When `dir` does not exist, or holds nothing but files named in `previous`, the new
    /// files go into a temporary directory beside it that is renamed into place. Otherwise
    /// (other files in it, or `dir` is a symbolic link) they go into a temporary directory
    /// inside it and, on commit, replace the files named in `previous` (those the new set
    /// does not write are removed), leaving the other files alone. A name in `previous` that
    /// exists as something other than a file is an error.
    pub fn replacing(dir: &Path, previous: &'static [&'static str]) -> io::Result<Self> {
        let tag = format!("bbsim-tmp-{}", std::process::id());
        let staging = match whole_target(dir, previous)? {
            Some(target) => {
                let parent = parent_of(&target);
                fs::create_dir_all(&parent)
                    .map_err(|e| at(e, "cannot create output directory", &parent))?;
                let mut name = OsString::from(".");
                name.push(target.file_name().unwrap_or_default());
                name.push(format!(".{tag}"));
                let tmp = parent.join(name);
                fresh_dir(&tmp)?;
                Staging::Whole { tmp, target }
            }
            None => {
                let tmp = dir.join(format!(".{tag}"));
                fresh_dir(&tmp)?;
                Staging::Inside { tmp, previous }
            }
        };
        Ok(OutputSet {
            dir: dir.to_path_buf(),
            staging,
            files: Vec::new(),
            committed: false,
            stops_on_interrupt: true,
        })
    }

    /// The output directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn temp_for(&self, name: &str) -> PathBuf {
        match &self.staging {
            Staging::Beside => self
                .dir
                .join(format!(".{name}.bbsim-tmp-{}", std::process::id())),
            Staging::Whole { tmp, .. } | Staging::Inside { tmp, .. } => tmp.join(name),
        }
    }

    /// Opens a buffered writer for `name` (under a temporary name until [`OutputSet::commit`]).
    pub fn create(&mut self, name: &str) -> io::Result<OutputFile> {
        if self.stops_on_interrupt && interrupted() {
            return Err(interrupted_error());
        }
        let tmp = self.temp_for(name);
        let f = File::create(&tmp).map_err(|e| at(e, "cannot create", &tmp))?;
        self.files.push((tmp, name.to_string()));
        Ok(OutputFile {
            inner: BufWriter::new(f),
            path: self.dir.join(name),
        })
    }

    /// Writes a whole file.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let mut w = self.create(name)?;
        w.write_all(bytes)?;
        w.flush()
    }

    /// Puts every file in place. Checks for an interrupt first. Returns the final paths in
    /// the order the files were created.
    pub fn commit(mut self) -> io::Result<Vec<PathBuf>> {
        if self.stops_on_interrupt && interrupted() {
            return Err(interrupted_error());
        }
        match &self.staging {
            Staging::Beside => {
                for (tmp, name) in &self.files {
                    rename(tmp, &self.dir.join(name))?;
                }
            }
            Staging::Whole { tmp, target } => swap_dir(tmp, target)?,
            Staging::Inside { tmp, previous } => {
                for stale in previous
                    .iter()
                    .filter(|p| !self.files.iter().any(|f| f.1 == **p))
                {
                    let old = self.dir.join(stale);
                    if fs::symlink_metadata(&old).is_ok() {
                        fs::remove_file(&old).map_err(|e| at(e, "cannot remove", &old))?;
                    }
                }
                for (t, name) in &self.files {
                    rename(t, &self.dir.join(name))?;
                }
                fs::remove_dir(tmp).map_err(|e| at(e, "cannot remove", tmp))?;
            }
        }
        self.committed = true;
        Ok(self.files.iter().map(|(_, n)| self.dir.join(n)).collect())
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        match &self.staging {
            Staging::Beside => {
                for (tmp, _) in &self.files {
                    let _ = fs::remove_file(tmp);
                }
            }
            Staging::Whole { tmp, .. } | Staging::Inside { tmp, .. } => {
                let _ = fs::remove_dir_all(tmp);
            }
        }
    }
}

fn rename(from: &Path, to: &Path) -> io::Result<()> {
    fs::rename(from, to).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("cannot rename {} to {}: {e}", from.display(), to.display()),
        )
    })
}

/// The directory that holds `target` (`.` for a bare name).
fn parent_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Creates the empty directory `tmp`, replacing a leftover of an earlier process with the
/// same id.
fn fresh_dir(tmp: &Path) -> io::Result<()> {
    if fs::symlink_metadata(tmp).is_ok() {
        fs::remove_dir_all(tmp).map_err(|e| at(e, "cannot remove the leftover", tmp))?;
    }
    fs::create_dir(tmp).map_err(|e| at(e, "cannot create the output directory's temporary", tmp))
}

/// Whether the run directory `dir` can be replaced as a whole: `Some(path)` (its path with the
/// last component spelt out) when it does not exist or holds only files named in `previous`
/// (or temporaries of bbsim), `None` when it holds other things or is a symbolic link. A name
/// in `previous` that exists as something other than a file is an error.
fn whole_target(dir: &Path, previous: &[&str]) -> io::Result<Option<PathBuf>> {
    let spelt = matches!(dir.components().next_back(), Some(Component::Normal(_)));
    let target: PathBuf = dir.components().collect();
    let meta = match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(spelt.then_some(target));
        }
        Err(e) => return Err(at(e, "cannot read", dir)),
        Ok(m) => m,
    };
    if !fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} exists and is not a directory", dir.display()),
        ));
    }
    for name in previous {
        let p = dir.join(name);
        if let Ok(m) = fs::symlink_metadata(&p) {
            if !m.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} exists and is not a file (bbsim writes its {name} there): remove it or choose another output directory",
                        p.display()
                    ),
                ));
            }
        }
    }
    if meta.file_type().is_symlink() || !spelt {
        return Ok(None);
    }
    let entries = fs::read_dir(dir).map_err(|e| at(e, "cannot read", dir))?;
    for e in entries {
        let e = e.map_err(|e| at(e, "cannot read", dir))?;
        let name = e.file_name();
        let name = name.to_string_lossy();
        let ours = previous.contains(&name.as_ref()) || name.contains(".bbsim-tmp-");
        if !ours {
            return Ok(None);
        }
    }
    Ok(Some(target))
}

/// Puts the directory `tmp` in the place of `target`: a rename when `target` does not exist;
/// otherwise `target` is renamed aside, `tmp` into its place, and the old one removed (if the
/// second rename fails, the old directory is put back).
fn swap_dir(tmp: &Path, target: &Path) -> io::Result<()> {
    if fs::symlink_metadata(target).is_err() {
        return rename(tmp, target);
    }
    let mut name = OsString::from(".");
    name.push(target.file_name().unwrap_or_default());
    name.push(format!(".bbsim-old-{}", std::process::id()));
    let old = parent_of(target).join(name);
    rename(target, &old)?;
    if let Err(e) = rename(tmp, target) {
        let _ = fs::rename(&old, target);
        return Err(e);
    }
    fs::remove_dir_all(&old).map_err(|e| at(e, "cannot remove the previous outputs in", &old))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("bbsim-out-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn files_appear_only_on_commit() {
        let d = scratch("commit");
        let mut o = OutputSet::new(&d).expect("dir");
        o.write("a.csv", b"x\n").expect("write");
        assert!(!d.join("a.csv").exists());
        o.commit().expect("commit");
        assert_eq!(fs::read(d.join("a.csv")).expect("read"), b"x\n");
        assert_eq!(
            fs::read_dir(&d).expect("ls").count(),
            1,
            "no temporaries remain"
        );
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn dropped_set_leaves_nothing() {
        let d = scratch("drop");
        {
            let mut o = OutputSet::new(&d).expect("dir");
            o.write("a.csv", b"x").expect("write");
            o.write("b.json", b"{}").expect("write");
        }
        assert_eq!(fs::read_dir(&d).expect("ls").count(), 0);
        let _ = fs::remove_dir_all(&d);
    }

    const PREV: &[&str] = &["a.csv", "b.json", "c.svg"];

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .expect("ls")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn replace(d: &Path, files: &[(&str, &str)]) -> io::Result<Vec<PathBuf>> {
        let mut o = OutputSet::replacing(d, PREV)?;
        for (n, t) in files {
            o.write(n, t.as_bytes())?;
        }
        o.commit()
    }

    #[test]
    fn replacing_set_writes_beside_and_renames_the_directory() {
        let root = scratch("whole");
        let d = root.join("run-out");
        let mut o = OutputSet::replacing(&d, PREV).expect("set");
        o.write("a.csv", b"1").expect("write");
        assert!(!d.exists(), "nothing at the target before the commit");
        assert_eq!(names(&root).len(), 1, "one temporary directory beside it");
        o.commit().expect("commit");
        assert_eq!(names(&d), ["a.csv"]);
        assert_eq!(names(&root), ["run-out"], "no temporaries remain");
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn rerun_with_fewer_files_leaves_no_old_ones() {
        let root = scratch("rerun");
        let d = root.join("out");
        replace(&d, &[("a.csv", "old"), ("b.json", "old"), ("c.svg", "old")]).expect("first");
        replace(&d, &[("a.csv", "new"), ("b.json", "new")]).expect("second");
        assert_eq!(names(&d), ["a.csv", "b.json"]);
        assert_eq!(fs::read(d.join("a.csv")).expect("read"), b"new");
        assert_eq!(names(&root), ["out"]);
        let _ = fs::remove_dir_all(&root);
    }

    #[test]
    fn other_files_in_the_directory_are_kept_and_old_outputs_replaced() {
        let d = scratch("foreign");
        fs::create_dir_all(&d).expect("dir");
        fs::write(d.join("notes.txt"), "mine").expect("write");
        fs::write(d.join("c.svg"), "old").expect("write");
        fs::write(d.join("a.csv"), "old").expect("write");
        replace(&d, &[("a.csv", "new")]).expect("run");
        assert_eq!(names(&d), ["a.csv", "notes.txt"]);
        assert_eq!(fs::read(d.join("a.csv")).expect("read"), b"new");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn an_output_name_taken_by_a_directory_is_refused_before_writing() {
        let d = scratch("dir-named-summary");
        fs::create_dir_all(d.join("b.json")).expect("dir");
        let e = OutputSet::replacing(&d, PREV).expect_err("refused");
        assert!(
            e.to_string().contains("b.json") && e.to_string().contains("not a file"),
            "{e}"
        );
        assert_eq!(names(&d), ["b.json"], "nothing created");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn dropped_replacing_set_leaves_the_old_outputs() {
        let root = scratch("drop-replacing");
        let d = root.join("out");
        replace(&d, &[("a.csv", "old")]).expect("first");
        {
            let mut o = OutputSet::replacing(&d, PREV).expect("set");
            o.write("a.csv", b"new").expect("write");
            o.write("b.json", b"new").expect("write");
        }
        assert_eq!(names(&root), ["out"]);
        assert_eq!(names(&d), ["a.csv"]);
        assert_eq!(fs::read(d.join("a.csv")).expect("read"), b"old");
        let _ = fs::remove_dir_all(&root);
    }

    #[cfg(unix)]
    #[test]
    fn unwritable_parent_is_reported_at_creation() {
        use std::os::unix::fs::PermissionsExt;
        let root = scratch("readonly");
        fs::create_dir_all(&root).expect("dir");
        fs::set_permissions(&root, fs::Permissions::from_mode(0o555)).expect("chmod");
        let probe = root.join("probe");
        let writable = fs::create_dir(&probe).is_ok(); // root ignores permissions
        let r = OutputSet::replacing(&root.join("out"), PREV);
        fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).expect("chmod");
        if !writable {
            let e = r.expect_err("refused");
            assert!(e.to_string().contains("readonly"), "{e}");
        }
        let _ = fs::remove_dir_all(&root);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_is_reported_with_the_file_name() {
        let Ok(full) = File::options().write(true).open("/dev/full") else {
            return;
        };
        let mut w = OutputFile {
            inner: BufWriter::new(full),
            path: PathBuf::from("out/timeline.csv"),
        };
        let e = w
            .write_all(&[0u8; 1 << 16])
            .and_then(|()| w.flush())
            .expect_err("no space");
        assert!(
            e.to_string().starts_with("cannot write out/timeline.csv: "),
            "{e}"
        );
    }
}
