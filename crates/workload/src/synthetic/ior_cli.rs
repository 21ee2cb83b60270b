//! IOR's command line (`ior -a MPIIO -b 1g -t 1m -w`) as [`IorParams`].
//!
//! The options and their defaults are IOR's own (hpc/ior: `init_IOR_Param_t` in `src/ior.c`,
//! `ParseCommandLine` and `CheckRunSettings` in `src/parse_options.c`, `ValidateTests` in
//! `src/ior.c`). Options are short, getopt-style: flags may be bundled (`-wr`), and an
//! option's value may follow it directly (`-b1g`) or as the next word (`-b 1g`). Sizes take
//! IOR's suffixes `k`, `m`, `g`, `t`, `p` (either case, powers of 1024) or none (bytes).
//!
//! | option | IOR name | effect | IOR default |
//! |---|---|---|---|
//! | `-a S` | api | `POSIX` or `MPIIO` | `POSIX` |
//! | `-b N` | blockSize | bytes per block and segment | 1 MiB |
//! | `-t N` | transferSize | bytes per transfer | 256 KiB |
//! | `-s N` | segmentCount | blocks per rank | 1 |
//! | `-F` | filePerProc | one file per rank | one shared file |
//! | `-w`, `-r` | writeFile, readFile | phases run | both, when neither is given |
//! | `-z` | randomOffset | transfers at random offsets | sequential |
//! | `-C` | reorderTasksConstant | read back another node's data | off |
//! | `-Q N` | taskPerNodeOffset | nodes to shift by with `-C` | 1 |
//! | `-i N` | repetitions | repetitions | 1 |
//! | `-d N` | interTestDelay | seconds between repetitions | 0 |
//! | `-c` | collective | collective I/O (MPI-IO) | off |
//! | `-e` | fsync | fsync at the end of a write phase | off |
//! | `-k` | keepFile | keep the file at the end | removed |
//! | `-g` | intraTestBarriers | barriers between open, transfers and close | off |
//! | `-N N` | numTasks | ranks (else the job's `ranks`) | all |
//! | `-o S` | testFile | file name (`.%08d` per rank with `-F`) | `testFile` |
//!
//! Options that change nothing the model times are accepted: `-B` (O_DIRECT: the model has
//! no client page cache), `-Y` (fsync per write: every write is durable when it completes),
//! `-v`, `-q`, `-H`, `-E`, `-u`. Every other IOR option (data checks `-W`/`-R`, stonewalling
//! `-D`, time limits `-T`, random task order `-Z`/`-X`, scripts `-f`, ...) is refused with
//! its name, and so is any option IOR does not have.

use super::ior::{IorApi, IorParams};
use crate::op::PS_PER_SEC;

/// A command line IOR would refuse, or one using an option the model does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IorCliError {
    /// The option at fault as written (`-x`, `-b 1q`), or the option pair in conflict.
    pub option: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl std::fmt::Display for IorCliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IOR option `{}`: {}", self.option, self.message)
    }
}

impl std::error::Error for IorCliError {}

/// An IOR command line as parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct IorCommand {
    /// The run, from [`IorParams::ior_defaults`] and the options.
    pub params: IorParams,
    /// `-N`, when given.
    pub num_tasks: Option<u32>,
}

fn err(option: impl Into<String>, message: impl Into<String>) -> IorCliError {
    IorCliError {
        option: option.into(),
        message: message.into(),
    }
}

/// IOR's `StringToBytes`: a non-negative integer with an optional binary suffix.
pub fn parse_size(text: &str) -> Option<u64> {
    let (digits, mult) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_lowercase() {
                'k' => 10,
                'm' => 20,
                'g' => 30,
                't' => 40,
                'p' => 50,
                _ => return None,
            };
            (&text[..i], 1u64 << shift)
        }
        _ => (text, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// Options taking a value.
const WITH_VALUE: &str = "abtsQidNo";
/// Flags the model implements.
const FLAGS: &str = "FwrzCcekg";
/// Flags accepted without effect on the model (see the module documentation).
const NO_EFFECT: &str = "BYvqHEu";
/// IOR options the model does not implement, with what they do in IOR.
const REFUSED: &[(char, &str)] = &[
    ('A', "a reference number"),
    ('D', "stonewalling deadline"),
    ('f', "script file"),
    ('G', "time-stamp signature"),
    ('h', "help"),
    ('I', "individual HDF5 data sets"),
    ('j', "outlier threshold"),
    ('J', "HDF5 alignment"),
    ('K', "keep file with errors"),
    ('l', "data packet type"),
    ('m', "multiple files per repetition"),
    ('M', "memory hog per node"),
    ('n', "HDF5 no-fill"),
    ('O', "directives string"),
    ('p', "MPI-IO preallocation"),
    ('P', "MPI-IO shared file pointer"),
    ('R', "read check"),
    ('S', "MPI-IO strided data type"),
    ('T', "maximum duration"),
    ('U', "MPI-IO hints file"),
    ('V', "MPI-IO file view"),
    ('W', "write check"),
    ('x', "single transfer attempt"),
    ('X', "random task-order seed"),
    ('Z', "random task order"),
];

/// Parses an IOR command line for a job of `ranks` ranks, `ranks_per_node` per node. An
/// optional leading `ior` word is skipped.
pub fn parse(line: &str, ranks: u32, ranks_per_node: u32) -> Result<IorCommand, IorCliError> {
    let mut p = IorParams::ior_defaults(ranks, ranks_per_node);
    let mut num_tasks = None;
    let mut words = line.split_whitespace().peekable();
    if words.peek() == Some(&"ior") {
        words.next();
    }
    while let Some(word) = words.next() {
        let Some(body) = word.strip_prefix('-').filter(|b| !b.is_empty()) else {
            return Err(err(word, "expected an option starting with `-`"));
        };
        if body.starts_with('-') {
            return Err(err(
                word,
                "long options are not supported; use IOR's short option",
            ));
        }
        for (i, c) in body.char_indices() {
            if WITH_VALUE.contains(c) {
                let rest = &body[i + c.len_utf8()..];
                let value = if rest.is_empty() {
                    words
                        .next()
                        .ok_or_else(|| err(format!("-{c}"), "expects a value"))?
                } else {
                    rest
                };
                apply_value(&mut p, &mut num_tasks, c, value)?;
                break;
            } else if FLAGS.contains(c) {
                match c {
                    'F' => p.file_per_process = true,
                    'w' => p.write = true,
                    'r' => p.read = true,
                    'z' => p.random_offsets = true,
                    'C' => p.reorder_tasks = true,
                    'c' => p.collective = true,
                    'e' => p.fsync = true,
                    'k' => p.keep_file = true,
                    _ => p.intra_test_barriers = true,
                }
            } else if NO_EFFECT.contains(c) {
            } else if let Some((_, what)) = REFUSED.iter().find(|(o, _)| *o == c) {
                return Err(err(
                    format!("-{c}"),
                    format!("IOR's {what} option is not modelled"),
                ));
            } else {
                return Err(err(format!("-{c}"), "IOR has no such option"));
            }
        }
    }
    if !p.write && !p.read {
        // CheckRunSettings: neither phase asked for runs both.
        p.write = true;
        p.read = true;
    }
    validate(&p)?;
    Ok(IorCommand {
        params: p,
        num_tasks,
    })
}

fn apply_value(
    p: &mut IorParams,
    num_tasks: &mut Option<u32>,
    c: char,
    value: &str,
) -> Result<(), IorCliError> {
    let opt = format!("-{c} {value}");
    let size = || {
        parse_size(value).ok_or_else(|| {
            err(
                opt.clone(),
                "expected a size: digits with an optional k, m, g, t or p (powers of 1024)",
            )
        })
    };
    let count = || {
        value
            .parse::<u32>()
            .map_err(|_| err(opt.clone(), "expected a whole number"))
    };
    match c {
        'a' => {
            p.api = match value {
                "POSIX" => IorApi::Posix,
                "MPIIO" => IorApi::MpiIo,
                _ => return Err(err(
                    opt,
                    "the model has the POSIX and MPIIO interfaces (IOR spells them in capitals)",
                )),
            }
        }
        'b' => p.block_size = size()?,
        't' => p.transfer_size = size()?,
        's' => p.segments = count()?,
        'Q' => p.task_per_node_offset = count()?,
        'i' => p.repetitions = count()?,
        'd' => p.inter_repetition_ps = u64::from(count()?) * PS_PER_SEC,
        'N' => *num_tasks = Some(count()?),
        _ => p.test_file = value.to_string(),
    }
    Ok(())
}

/// The checks IOR makes before running (`ValidateTests`), for the options modelled.
fn validate(p: &IorParams) -> Result<(), IorCliError> {
    if p.block_size == 0 {
        return Err(err("-b", "block size must be at least 1 byte"));
    }
    if p.transfer_size == 0 {
        return Err(err("-t", "transfer size must be at least 1 byte"));
    }
    if p.transfer_size > p.block_size {
        return Err(err(
            "-t",
            format!(
                "transfer size ({} bytes) must not be larger than the block size ({} bytes)",
                p.transfer_size, p.block_size
            ),
        ));
    }
    if p.block_size % p.transfer_size != 0 {
        return Err(err(
            "-b",
            format!(
                "block size ({} bytes) must be a multiple of the transfer size ({} bytes)",
                p.block_size, p.transfer_size
            ),
        ));
    }
    if p.segments == 0 {
        return Err(err("-s", "segment count must be at least 1"));
    }
    if p.repetitions == 0 {
        return Err(err("-i", "repetitions must be at least 1"));
    }
    if p.collective && p.api != IorApi::MpiIo {
        return Err(err("-c", "collective I/O needs -a MPIIO"));
    }
    if p.random_offsets && p.collective {
        return Err(err(
            "-z",
            "random offset not available with collective MPIIO (-c)",
        ));
    }
    if p.random_offsets && p.reorder_tasks && !p.file_per_process {
        return Err(err(
            "-z",
            "random offsets and reordered read-back (-C) cannot be combined on a shared file",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::MIB;

    fn parsed(line: &str) -> IorParams {
        parse(line, 8, 4).unwrap().params
    }

    fn refused(line: &str) -> IorCliError {
        parse(line, 8, 4).unwrap_err()
    }

    #[test]
    fn no_options_give_iors_defaults_with_both_phases() {
        let p = parsed("");
        assert_eq!((p.block_size, p.transfer_size), (MIB, 256 * 1024));
        assert_eq!((p.segments, p.repetitions), (1, 1));
        assert!(!p.file_per_process && p.write && p.read && !p.keep_file);
        assert_eq!(p.api, IorApi::Posix);
        assert_eq!(parsed("ior"), p);
    }

    #[test]
    fn the_seed_configurations_parse() {
        let bw = parsed("-a POSIX -F -b 8g -t 1m -w -r -C");
        assert_eq!((bw.block_size, bw.transfer_size), (8 << 30, MIB));
        assert!(bw.file_per_process && bw.write && bw.read && bw.reorder_tasks);
        let shared = parsed("-a MPIIO -c -b 8g -t 1m -w");
        assert_eq!(shared.api, IorApi::MpiIo);
        assert!(shared.collective && !shared.file_per_process && !shared.read);
        let iops = parsed("-a POSIX -F -z -b 64m -t 4k -w");
        assert!(iops.random_offsets);
        assert_eq!(iops.transfer_size, 4096);
    }

    #[test]
    fn bundles_attached_values_and_counts() {
        let p = parsed("-wrFk -b1G -t 64K -s4 -i 3 -d 2 -Q 2 -g -e");
        assert!(p.write && p.read && p.file_per_process && p.keep_file);
        assert_eq!((p.block_size, p.transfer_size), (1 << 30, 64 << 10));
        assert_eq!((p.segments, p.repetitions), (4, 3));
        assert_eq!(p.inter_repetition_ps, 2 * PS_PER_SEC);
        assert_eq!(p.task_per_node_offset, 2);
        assert!(p.intra_test_barriers && p.fsync);
        let c = parse("-N 16 -o /bb/out -w", 8, 4).unwrap();
        assert_eq!(c.num_tasks, Some(16));
        assert_eq!(c.params.test_file, "/bb/out");
        assert!(parsed("-B -Y -v -w").write);
    }

    #[test]
    fn sizes_follow_string_to_bytes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("4k"), Some(4096));
        assert_eq!(parse_size("2P"), Some(2 << 50));
        for bad in ["", "k", "1.5m", "1q", "-1", "1mb", "99999999999999p"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn bad_command_lines_name_the_option() {
        let e = refused("-w -x");
        assert_eq!(e.option, "-x");
        assert!(e.to_string().contains("-x"));
        assert_eq!(refused("-y").option, "-y");
        assert!(refused("-y").message.contains("no such option"));
        assert!(refused("-W").message.contains("write check"));
        assert_eq!(refused("-b 1q").option, "-b 1q");
        assert_eq!(refused("-b").option, "-b");
        assert_eq!(refused("-a HDF5").option, "-a HDF5");
        assert_eq!(refused("-s x").option, "-s x");
        assert_eq!(refused("w").option, "w");
        assert_eq!(refused("--blockSize=1m").option, "--blockSize=1m");
        assert_eq!(refused("-b 1m -t 2m").option, "-t");
        assert_eq!(refused("-b 3m -t 2m").option, "-b");
        assert_eq!(refused("-t 0").option, "-t");
        assert_eq!(refused("-c -w").option, "-c");
        assert_eq!(refused("-a MPIIO -c -z").option, "-z");
        assert_eq!(refused("-z -C").option, "-z");
        assert!(parse("-z -C -F", 8, 4).is_ok());
        assert_eq!(refused("-i 0").option, "-i");
    }
}
