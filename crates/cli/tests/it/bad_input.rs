//! Bad input on the command line is a clear error naming its origin, refused before any run:
//! overrides name `--set` or `--vary`, `--out` says what the path is, thread counts are
//! checked the same way by `run` and `sweep`; a partial Darshan module gives a warning.
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
