//! `source = "ior"` and `source = "checkpoint"`: the IOR benchmark and a generic periodic
//! checkpointer, with the job's overrides of their parameters.

use super::keys::job_key;
use crate::diag::{Diagnostic, SourceMap};
use crate::scenario::JobSection;
use crate::units::format_bytes;
use bbsim_workload::synthetic::{ior_cli, App};

/// The IOR run of job `idx`, from its command line (`ior`) or from the keyed form: block and
/// transfer sizes (bytes), segments, file per process or shared file, write and/or read
/// phases, repetitions. The block size must be a whole number of transfers and at least one
/// of the phases must be on.
pub(super) fn ior(j: &JobSection, idx: usize, map: &SourceMap) -> Result<App, Diagnostic> {
    if let Some(line) = &j.ior {
        return ior_command(j, idx, line, map);
    }
    let Some(App::Ior(mut p)) = App::by_name("ior") else {
        return Err(map.error_at(&job_key(idx, "source"), "IOR is not available"));
    };
    p.ranks = j.ranks.unwrap_or(p.ranks);
    p.ranks_per_node = j.ranks_per_node;
    p.block_size = j.block_size.map_or(p.block_size, |b| b.0);
    p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
    p.segments = j.segments.unwrap_or(p.segments);
    p.file_per_process = j.file_per_process.unwrap_or(p.file_per_process);
    p.write = j.write.unwrap_or(p.write);
    p.read = j.read.unwrap_or(p.read);
    p.repetitions = j.repetitions.unwrap_or(p.repetitions);
    if p.transfer_size == 0 || p.block_size == 0 {
        return Err(map.error_at(
            &job_key(idx, "block_size"),
            "block_size and transfer_size must be > 0",
        ));
    }
    if p.block_size % p.transfer_size != 0 {
        return Err(map.error_at(
            &job_key(idx, "block_size"),
            format!(
                "block_size ({}) must be a multiple of transfer_size ({})",
                format_bytes(p.block_size),
                format_bytes(p.transfer_size)
            ),
        ));
    }
    if !p.write && !p.read {
        return Err(map.error_at(
            &job_key(idx, "write"),
            "IOR needs write = true or read = true",
        ));
    }
    Ok(App::Ior(p))
}

/// Job `idx`'s IOR command line `line` (IOR's options and defaults), on the job's `ranks`
/// (or IOR's `-N`) ranks. The keyed IOR form cannot be given beside it.
fn ior_command(j: &JobSection, idx: usize, line: &str, map: &SourceMap) -> Result<App, Diagnostic> {
    let keyed = [
        ("block_size", j.block_size.is_some()),
        ("transfer_size", j.transfer_size.is_some()),
        ("segments", j.segments.is_some()),
        ("file_per_process", j.file_per_process.is_some()),
        ("write", j.write.is_some()),
        ("read", j.read.is_some()),
        ("repetitions", j.repetitions.is_some()),
    ];
    if let Some((k, _)) = keyed.iter().find(|(_, given)| *given) {
        return Err(map.error_at(
            &job_key(idx, k),
            format!("`{k}` and `ior` both set IOR's parameters: give the command line or the keys, not both"),
        ));
    }
    let ior_key = job_key(idx, "ior");
    let cmd = ior_cli::parse(line, j.ranks.unwrap_or(0), j.ranks_per_node)
        .map_err(|e| map.error_at(&ior_key, format!("{e} (in \"{}\")", line.trim())))?;
    let mut p = cmd.params;
    p.ranks = match (j.ranks, cmd.num_tasks) {
        (Some(r), Some(n)) if r != n => {
            return Err(map.error_at(
                &ior_key,
                format!("IOR option `-N {n}` disagrees with the job's ranks = {r}"),
            ))
        }
        (_, Some(0)) => {
            return Err(map.error_at(&ior_key, "IOR option `-N 0`: expected at least 1 task"))
        }
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => {
            return Err(map.error_at(
                &ior_key,
                "IOR runs on every MPI task: give the job's `ranks` (or IOR's `-N`)",
            ))
        }
    };
    Ok(App::Ior(p))
}

/// The checkpointer of job `idx`: every `period` (ps) of compute, each rank writes
/// `bytes_per_rank` bytes in `transfer_size` calls, `checkpoints` times, to its own file or a
/// shared one.
pub(super) fn checkpoint(j: &JobSection, idx: usize, map: &SourceMap) -> Result<App, Diagnostic> {
    let Some(App::Checkpoint(mut p)) = App::by_name("checkpoint") else {
        return Err(map.error_at(&job_key(idx, "source"), "checkpoint is not available"));
    };
    p.ranks = j.ranks.unwrap_or(p.ranks);
    p.ranks_per_node = j.ranks_per_node;
    p.period_ps = j.period.map_or(p.period_ps, |d| d.0);
    p.bytes_per_rank = j.bytes_per_rank.map_or(p.bytes_per_rank, |b| b.0);
    p.checkpoints = j.checkpoints.unwrap_or(p.checkpoints);
    p.transfer_size = j.transfer_size.map_or(p.transfer_size, |b| b.0);
    p.file_per_process = j.file_per_process.unwrap_or(p.file_per_process);
    if p.transfer_size == 0 {
        return Err(map.error_at(&job_key(idx, "transfer_size"), "transfer_size must be > 0"));
    }
    Ok(App::Checkpoint(p))
}

#[cfg(test)]
mod tests {
    use crate::diag::{load_str, Diagnostic};
    use crate::lower::workload::build_workload;
    use crate::scenario::Scenario;
    use bbsim_workload::{Op, Workload};
    use std::path::Path;

    /// The quickstart's workload with its IOR job's keyed sizes replaced by `ior` keys `keys`.
    fn with_ior(keys: &str) -> Result<Workload, Diagnostic> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let text = std::fs::read_to_string(dir.join("quickstart.toml")).expect("quickstart");
        let text = text.replacen(
            "block_size = \"16MiB\"\ntransfer_size = \"1MiB\"\n",
            &format!("{keys}\n"),
            1,
        );
        let (s, map): (Scenario, _) =
            load_str("quickstart.toml", &text, &[]).expect("valid scenario");
        build_workload(&s, &map, &dir, 128)
    }

    #[test]
    fn an_ior_command_line_gives_iors_run() {
        let w = with_ior("ior = \"-a MPIIO -b 4m -t 1m -w -k\"").unwrap();
        let ior = &w.jobs[0];
        assert_eq!((ior.ranks(), ior.files.len()), (48, 1));
        assert_eq!(ior.files[0].name, "testFile");
        let t = ior.totals();
        assert_eq!(
            (t.bytes_written, t.writes, t.reads),
            ((48 * 4) << 20, 48 * 4, 0)
        );
        // IOR's defaults: 1 MiB blocks in 256 KiB transfers, written, read back, removed.
        let w = with_ior("ior = \"-F\"").unwrap();
        let ior = &w.jobs[0];
        let t = ior.totals();
        assert_eq!((t.bytes_written, t.bytes_read), (48 << 20, 48 << 20));
        assert_eq!(t.writes, 48 * 4);
        let deletes = ior.ops.all_ops().filter(|o| matches!(o, Op::Delete { .. }));
        assert_eq!(deletes.count(), 48);
        // -N agreeing with the job's ranks.
        assert_eq!(with_ior("ior = \"-N 48 -w\"").unwrap().jobs[0].ranks(), 48);
    }

    #[test]
    fn bad_ior_command_lines_name_the_key_and_the_option() {
        let e = with_ior("ior = \"-w -x\"").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("jobs[0].ior"));
        assert!(e.message.contains("`-x`"), "{}", e.message);
        let e = with_ior("ior = \"-b 1m -t 4m\"").unwrap_err();
        assert!(e.message.contains("`-t`"), "{}", e.message);
        assert!(
            e.message.contains("larger than the block size"),
            "{}",
            e.message
        );
        let e = with_ior("ior = \"-w\"\nsegments = 2").unwrap_err();
        assert_eq!(e.key.as_deref(), Some("jobs[0].segments"));
        let e = with_ior("ior = \"-N 12 -w\"").unwrap_err();
        assert!(e.message.contains("-N 12"), "{}", e.message);
    }
}
