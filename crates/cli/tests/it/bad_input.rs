//! Bad input on the command line is a clear error naming its origin, refused before any run:
//! overrides name `--set` or `--vary`, `--out` says what the path is, thread counts are
//! checked the same way by `run` and `sweep`; jobs too large to represent are refused before
//! they are generated; a partial Darshan module gives a warning.
//! Scenarios are the fixtures of `tests/data` (and one written here from `tiny-phases.toml`).

use crate::common::{bin, data, run_err, scratch};

fn phases() -> String {
    data("tiny-phases.toml")
        .to_str()
        .expect("utf-8")
        .to_string()
}

#[test]
fn an_unknown_key_from_set_is_reported_against_the_argument() {
    let err = run_err(&["validate", &phases(), "--set", "foo.bar=1"]);
    assert!(err.contains("--set foo.bar=1: "), "{err}");
    assert!(err.contains("unknown key `foo`"), "{err}");
    assert!(!err.contains("tiny-phases.toml:"), "{err}");
}

#[test]
fn vary_errors_name_vary() {
    let err = run_err(&["sweep", &phases(), "--vary", "simulation.seed=1,x"]);
    assert!(err.contains("--vary simulation.seed=x: "), "{err}");
    assert!(!err.contains("--set simulation.seed"), "{err}");
    let err = run_err(&["sweep", &phases(), "--vary", "foo.bar=1,2"]);
    assert!(err.contains("--vary foo.bar=1: "), "{err}");
}

#[test]
fn sweep_and_run_refuse_zero_threads_alike() {
    for cmd in ["run", "sweep"] {
        let mut args = vec![cmd, "--threads", "0"];
        let p = phases();
        args.push(&p);
        if cmd == "sweep" {
            args.extend(["--vary", "simulation.seed=1,2"]);
        }
        let err = run_err(&args);
        assert!(err.contains("--threads"), "{cmd}: {err}");
    }
}

#[cfg(unix)]
#[test]
fn a_dangling_symlink_out_is_named_as_such() {
    let dir = scratch("dangling-out");
    std::fs::create_dir_all(&dir).expect("dir");
    let link = dir.join("out");
    std::os::unix::fs::symlink(dir.join("missing-target"), &link).expect("symlink");
    let l = link.to_str().expect("utf-8").to_string();
    let start = std::time::Instant::now();
    for args in [
        vec!["run", "--out", &l, "--quiet"],
        vec!["sweep", "--out", &l, "--vary", "simulation.seed=1,2"],
    ] {
        let mut a = args.clone();
        let p = phases();
        a.push(&p);
        let err = run_err(&a);
        assert!(
            err.contains(&format!("--out {l}: is a dangling symbolic link")),
            "{err}"
        );
        assert!(!err.contains("File exists"), "{err}");
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    let file = dir.join("file");
    std::fs::write(&file, "x").expect("file");
    let f = file.to_str().expect("utf-8");
    let err = run_err(&["run", "--out", f, "--quiet", &phases()]);
    assert!(err.contains("exists and is not a directory"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_partial_dxt_module_gives_a_warning() {
    let log = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../workload/tests/data/derived-v341-dxt-multistream.darshan");
    let text = std::fs::read_to_string(data("tiny-phases.toml")).expect("fixture");
    let head = &text[..text.find("[[jobs]]").expect("jobs")];
    let scn = format!(
        "{head}[[jobs]]\nname = \"replay\"\nsource = \"darshan\"\nlog = {:?}\nranks_per_node = 1\n",
        log.to_str().expect("utf-8")
    );
    let dir = scratch("partial-dxt");
    std::fs::create_dir_all(&dir).expect("dir");
    let p = dir.join("partial.toml");
    std::fs::write(&p, scn).expect("write");
    let out = bin()
        .args(["validate", p.to_str().expect("utf-8")])
        .output()
        .expect("bbsim starts");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: ") && err.contains("module DXT_POSIX holds partial data"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Jobs too large to represent are refused from their parameters, before any operation is
/// generated: more bytes than the 64-bit counters can add up (2^62 B), or more operations
/// than are held in memory (200 million). A sum that saturates says so.
#[test]
fn jobs_beyond_what_the_model_represents_are_refused_before_generation() {
    let fattree = data("tiny-fattree.toml");
    let s = fattree.to_str().expect("utf-8");
    for (block, transfer, expected) in [
        // 12 ranks x 2 phases x 8e6 TiB: about 2.1e20 bytes.
        (
            "8000000TiB",
            "4000000TiB",
            "would move 211106232532992000000 bytes",
        ),
        // The same volume in 4 KiB operations would loop for hours.
        (
            "8000000TiB",
            "4KiB",
            "expected at most 4611686018427387904 (4 EiB)",
        ),
        // 12 x 2 x 2^28 operations of 4 KiB.
        (
            "1TiB",
            "4KiB",
            "would have 6442450944 read and write operations",
        ),
    ] {
        for cmd in ["validate", "run"] {
            let err = run_err(&[
                cmd,
                s,
                "--set",
                &format!("jobs.0.block_size=\"{block}\""),
                "--set",
                &format!("jobs.0.transfer_size=\"{transfer}\""),
            ]);
            assert!(err.contains("`jobs[0]`"), "{cmd} {block}/{transfer}: {err}");
            assert!(err.contains(expected), "{cmd} {block}/{transfer}: {err}");
        }
    }
}

/// A study application with zero bytes per call, phases or files per rank is refused (a zero
/// transfer size once became one-byte calls: 72 million operations for a 12 MB job).
#[test]
fn zero_sized_study_application_parameters_are_refused() {
    let p = phases();
    for (set, key) in [
        ("jobs.0.transfer_size=\"0MB\"", "`jobs[0].transfer_size`"),
        ("jobs.0.phases=0", "`jobs[0].phases`"),
        ("jobs.1.phases=0", "`jobs[1].phases`"),
    ] {
        let err = run_err(&["validate", &p, "--set", set]);
        assert!(err.contains(key), "{set}: {err}");
        assert!(err.contains("must be at least 1"), "{set}: {err}");
    }
}
