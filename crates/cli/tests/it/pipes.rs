//! A closed output pipe (`bbsim validate scenario.toml | head`) ends bbsim quietly, as it does
//! other Unix tools: killed by SIGPIPE, never a panic from `println!`.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/summit-global.toml"
    );
    for _ in 0..3 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bbsim"))
            .args(["validate", scenario])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("bbsim starts");
        // Close the reading end before bbsim has loaded the scenario and printed anything.
        drop(child.stdout.take());
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            e.read_to_string(&mut err).expect("stderr is UTF-8");
        }
        let status = child.wait().expect("bbsim ends");
        assert!(!err.contains("panicked"), "bbsim panicked:\n{err}");
        assert!(
            status.success() || status.signal() == Some(SIGPIPE),
            "expected success or SIGPIPE, got {status:?}\n{err}"
        );
    }
}

/// SIGPIPE's number on Linux, macOS and the BSDs.
const SIGPIPE: i32 = 13;
