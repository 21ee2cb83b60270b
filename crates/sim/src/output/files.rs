//! Atomic output files: everything is written under temporary names in the output directory
//! and renamed into place only when the whole set is complete. An interrupted or failed run
//! leaves no half-written files.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
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

/// A set of output files committed together.
#[derive(Debug)]
pub struct OutputSet {
    dir: PathBuf,
    /// (temporary path, final path)
    files: Vec<(PathBuf, PathBuf)>,
    committed: bool,
    /// Whether an interrupt stops this set (false for records of work already finished).
    stops_on_interrupt: bool,
}

impl OutputSet {
    /// Prepares to write into `dir` (created if missing). An interrupt stops the set: no file
    /// is created or committed once the user has pressed Ctrl-C.
    pub fn new(dir: &Path) -> io::Result<Self> {
        Self::open(dir, true)
    }

    /// Like [`OutputSet::new`], but the set is still written and committed after an interrupt:
    /// for files that record work already finished (a sweep's tables of its finished points),
    /// which an interrupted command must leave up to date.
    pub fn for_finished_work(dir: &Path) -> io::Result<Self> {
        Self::open(dir, false)
    }

    fn open(dir: &Path, stops_on_interrupt: bool) -> io::Result<Self> {
        fs::create_dir_all(dir).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot create output directory {}: {e}", dir.display()),
            )
        })?;
        Ok(OutputSet {
            dir: dir.to_path_buf(),
            files: Vec::new(),
            committed: false,
            stops_on_interrupt,
        })
    }

    /// The output directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn temp_for(&self, name: &str) -> (PathBuf, PathBuf) {
        let tmp = self
            .dir
            .join(format!(".{name}.bbsim-tmp-{}", std::process::id()));
        (tmp, self.dir.join(name))
    }

    /// Opens a buffered writer for `name` (under a temporary name until [`OutputSet::commit`]).
    pub fn create(&mut self, name: &str) -> io::Result<BufWriter<File>> {
        if self.stops_on_interrupt && interrupted() {
            return Err(interrupted_error());
        }
        let (tmp, fin) = self.temp_for(name);
        let f = File::create(&tmp).map_err(|e| {
            io::Error::new(e.kind(), format!("cannot create {}: {e}", tmp.display()))
        })?;
        self.files.push((tmp, fin));
        Ok(BufWriter::new(f))
    }

    /// Writes a whole file.
    pub fn write(&mut self, name: &str, bytes: &[u8]) -> io::Result<()> {
        let mut w = self.create(name)?;
        w.write_all(bytes)?;
        w.flush()
    }

    /// Renames every temporary file to its final name. Checks for an interrupt first.
    pub fn commit(mut self) -> io::Result<Vec<PathBuf>> {
        if self.stops_on_interrupt && interrupted() {
            return Err(interrupted_error());
        }
        let mut done = Vec::new();
        for (tmp, fin) in &self.files {
            fs::rename(tmp, fin).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot rename {} to {}: {e}", tmp.display(), fin.display()),
                )
            })?;
            done.push(fin.clone());
        }
        self.committed = true;
        Ok(done)
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        if !self.committed {
            for (tmp, _) in &self.files {
                let _ = fs::remove_file(tmp);
            }
        }
    }
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
}
