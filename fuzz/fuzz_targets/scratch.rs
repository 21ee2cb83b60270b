//! A per-process scratch directory for fuzz targets that must hand the code under test a file
//! (a scenario, a Darshan log): in `/dev/shm` where it exists, so writing it costs no disk I/O.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The scratch directory of this process (created on first use).
pub fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let root = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let d = root.join(format!("bbsim-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("fuzz scratch directory");
        d
    })
}

/// Writes `bytes` to `name` in the scratch directory and returns its path.
pub fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, bytes).expect("fuzz scratch file");
    p
}
