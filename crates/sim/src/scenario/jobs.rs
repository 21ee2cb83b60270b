//! `[[jobs]]`: the workload, one entry per job (synthetic application, Darshan replay, IOR).

use super::*;

/// Where a job's operations come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobSource {
    /// One of the study's applications (`preset = "gtc" | "lammps" | "s3d" | "hacc"`).
    Preset,
    /// IOR.
    Ior,
    /// A generic checkpointing application.
    Checkpoint,
    /// A Darshan log (`log = "path"`).
    Darshan,
    /// A consumer of another job's files (`inputs = "job"`): reads each of them, computes,
    /// writes its own products. In transit (`in_transit = true`) it runs beside the producer
    /// and opens each file as soon as the producer has closed it.
    Analysis,
    /// One user of a shared BB writing plot and checkpoint files into a quota and deleting
    /// the oldest when the quota is 90% full.
    QuotaUser,
    /// Many small reads from one input file per rank (an ATLAS-like analysis).
    SmallReads,
}

/// Node allocation policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AllocationKind {
    /// Lowest-numbered run of consecutive free nodes.
    #[default]
    Contiguous,
    /// Free nodes uniformly at random.
    Random,
    /// Chunks of consecutive free nodes scattered over the machine (a busy batch system).
    Fragmented,
    /// Line `allocation_line` of the CODES-format `allocation_file`.
    File,
    /// The free nodes nearest in node id to the nodes of the earlier jobs named in `next_to`
    /// (ties to the lower id), as a job backfilled next to a running one.
    NextTo,
}

/// One job name or a list of them (`next_to = "gtc"` or `next_to = ["gtc", "s3d"]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum JobNames {
    /// A single name.
    One(String),
    /// A list of names.
    Many(Vec<String>),
}

impl JobNames {
    /// The names, in the order given.
    pub fn names(&self) -> &[String] {
        match self {
            JobNames::One(n) => std::slice::from_ref(n),
            JobNames::Many(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for JobNames {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Names;
        impl<'de> serde::de::Visitor<'de> for Names {
            type Value = JobNames;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a job name or a list of job names")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<JobNames, E> {
                Ok(JobNames::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<JobNames, A::Error> {
                let mut names = Vec::new();
                while let Some(n) = a.next_element::<String>()? {
                    names.push(n);
                }
                Ok(JobNames::Many(names))
            }
        }
        d.deserialize_any(Names)
    }
}

/// One `[[jobs.transforms]]` entry, applied in order.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "kebab-case")]
pub enum TransformSection {
    /// More ranks behaving like the existing ones.
    WeakScale {
        /// New rank count.
        ranks: u32,
    },
    /// Bytes per rank multiplied by `factor` (e.g. 0.5 or 2).
    StrongScale {
        /// Multiplier of every I/O size.
        factor: f64,
    },
    /// The job repeated `count` times, `interval` apart.
    Repeat {
        /// Iterations.
        count: u32,
        /// Gap between iterations.
        interval: Duration,
    },
    /// Consecutive small writes merged up to `size`.
    Collate {
        /// Largest merged write.
        size: Bytes,
    },
    /// Barriers around every I/O phase, over the whole job or groups of `group` ranks.
    Barriers {
        /// Ranks per sub-communicator (0 = the whole job).
        #[serde(default)]
        group: u32,
    },
}

/// `[[jobs]]`: one job.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSection {
    /// Name in reports (default: the preset or source name and the job index).
    #[serde(default)]
    pub name: Option<String>,
    /// Where the operations come from.
    pub source: JobSource,
    /// With `source = "preset"`: `gtc`, `lammps`, `s3d` or `hacc`.
    #[serde(default)]
    pub preset: Option<String>,
    /// Ranks (default: the application's).
    #[serde(default)]
    pub ranks: Option<u32>,
    /// Ranks per compute node.
    #[serde(default = "default_rpn")]
    pub ranks_per_node: u32,
    /// Submission (start) time.
    #[serde(default)]
    pub start: Duration,
    /// Node allocation policy.
    #[serde(default)]
    pub allocation: AllocationKind,
    /// Fragmented allocation: mean free-chunk size in nodes.
    #[serde(default = "default_chunk")]
    pub chunk_mean: f64,
    /// `allocation = "file"`: the CODES-format allocation file (relative to the scenario).
    #[serde(default)]
    pub allocation_file: Option<PathBuf>,
    /// `allocation = "file"`: which line (0-based; default the job's index).
    #[serde(default)]
    pub allocation_line: Option<usize>,
    /// `allocation = "next-to"`: the earlier job (or jobs) whose nodes this one takes the
    /// nearest free nodes to, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_to: Option<JobNames>,
    /// Bytes written per rank (presets, checkpoint).
    #[serde(default)]
    pub bytes_per_rank: Option<Bytes>,
    /// Transfer (request) size.
    #[serde(default)]
    pub transfer_size: Option<Bytes>,
    /// Compute time before the (first) I/O phase (presets; checkpoints use `period`).
    #[serde(default)]
    pub compute: Option<Duration>,
    /// I/O phases (S3D, HACC).
    #[serde(default)]
    pub phases: Option<u32>,
    /// LAMMPS: files each rank writes.
    #[serde(default)]
    pub files_per_rank: Option<u32>,
    /// IOR: its command line (`ior = "-a MPIIO -b 1g -t 1m -w"`), IOR's options and
    /// defaults, instead of the keyed form (`block_size`, `segments`, ...).
    #[serde(default)]
    pub ior: Option<String>,
    /// IOR: block size per rank and segment.
    #[serde(default)]
    pub block_size: Option<Bytes>,
    /// IOR: segments.
    #[serde(default)]
    pub segments: Option<u32>,
    /// IOR, checkpoint: one file per process (else one shared file).
    #[serde(default)]
    pub file_per_process: Option<bool>,
    /// IOR: write phase.
    #[serde(default)]
    pub write: Option<bool>,
    /// IOR: read phase.
    #[serde(default)]
    pub read: Option<bool>,
    /// IOR: repetitions.
    #[serde(default)]
    pub repetitions: Option<u32>,
    /// Checkpoint: period between checkpoints.
    #[serde(default)]
    pub period: Option<Duration>,
    /// Checkpoint: number of checkpoints.
    #[serde(default)]
    pub checkpoints: Option<u32>,
    /// `source = "darshan"`: the log (relative to the scenario file).
    #[serde(default)]
    pub log: Option<PathBuf>,
    /// Transforms applied in order.
    #[serde(default)]
    pub transforms: Vec<TransformSection>,
    /// Burst-buffer reservation (DataWarp-style): at most this many bytes of the job in the BB
    /// servers its nodes stripe over, split evenly among them; writes beyond it stall or spill
    /// as `burst_buffer.full_policy` says. Grouped and global placements only.
    #[serde(default)]
    pub bb_capacity: Option<Bytes>,
    /// OSTs (PFS storage servers) each of the job's files is striped over, as `lfs setstripe`
    /// on the job's directory would set it (default: `pfs.stripe_count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pfs_stripe_count: Option<u32>,
    /// Bytes staged in from the PFS into the job's BB servers (split evenly) before it starts;
    /// the job starts when every server has its share. Grouped and global placements only.
    #[serde(default)]
    pub stage_in: Option<Bytes>,
    /// Names of jobs that must finish before this one starts (a workflow DAG). The job then
    /// starts at its `start` time or when its last parent finishes, whichever is later.
    #[serde(default)]
    pub after: Vec<String>,
    /// The persistent reservation (`[[reservations]]` name) whose namespace holds this job's
    /// files (needs `burst_buffer.grain`).
    #[serde(default)]
    pub reservation: Option<String>,
    /// `source = "analysis"`: the job whose files this one reads.
    #[serde(default)]
    pub inputs: Option<String>,
    /// `source = "analysis"`: run beside the producer and open each input as soon as the
    /// producer closed it (else start after the producer ends).
    #[serde(default)]
    pub in_transit: bool,
    /// `source = "analysis"`: output files written over the whole run.
    #[serde(default)]
    pub output_files: Option<u64>,
    /// `source = "analysis"`: bytes written over all output files.
    #[serde(default)]
    pub output_bytes: Option<Bytes>,
    /// Stage every file the job reads from the PFS into its reservation before it starts
    /// (needs `burst_buffer.grain` and a reservation).
    #[serde(default)]
    pub stage_in_inputs: bool,
    /// Client-side read cache per rank (0 or unset: none). Reads are served in
    /// `read_cache_block` blocks; a read whose blocks are all cached costs only a memory copy.
    #[serde(default)]
    pub read_cache: Option<Bytes>,
    /// Block size of the read cache.
    #[serde(default = "default_cache_block")]
    pub read_cache_block: Bytes,
    /// `source = "quota-user"`: the user's quota.
    #[serde(default)]
    pub quota: Option<Bytes>,
    /// `source = "quota-user"`: bytes per checkpoint file.
    #[serde(default)]
    pub checkpoint_bytes: Option<Bytes>,
    /// `source = "quota-user"`: bytes per plot file.
    #[serde(default)]
    pub plot_bytes: Option<Bytes>,
    /// `source = "quota-user"`: checkpoint periods.
    #[serde(default)]
    pub steps: Option<u32>,
    /// `source = "small-reads"`: bytes of each rank's input file.
    #[serde(default)]
    pub dataset_bytes: Option<Bytes>,
    /// `source = "small-reads"`: reads per rank.
    #[serde(default)]
    pub reads_per_rank: Option<u64>,
    /// `[jobs.mpi_io]`: collective MPI-IO calls and ROMIO's collective-buffering hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi_io: Option<MpiIoSection>,
}

/// `[jobs.mpi_io]`: whether the job's reads and writes of shared files are collective MPI-IO
/// calls (`MPI_File_write_all`, `read_all`), served by ROMIO's two-phase I/O, and the hints a
/// user passes in an `MPI_Info` (or `MPICH_MPIIO_HINTS`), with ROMIO's defaults.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MpiIoSection {
    /// The shared-file reads and writes are collective calls (IOR's `-c` sets it).
    #[serde(default)]
    pub collective: bool,
    /// Aggregators (default: one per node of the job).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cb_nodes: Option<u32>,
    /// Bytes an aggregator serves per round (default 16 MiB).
    #[serde(default = "default_cb_buffer")]
    pub cb_buffer_size: Bytes,
    /// Collective buffering for writes: `enable`, `disable` or `automatic` (default).
    #[serde(default)]
    pub romio_cb_write: bbsim_workload::collective::CbMode,
    /// Collective buffering for reads: `enable`, `disable` or `automatic` (default).
    #[serde(default)]
    pub romio_cb_read: bbsim_workload::collective::CbMode,
}

fn default_cb_buffer() -> Bytes {
    Bytes(bbsim_workload::collective::DEFAULT_CB_BUFFER_SIZE)
}

fn default_cache_block() -> Bytes {
    Bytes(64 * 1024)
}

fn default_rpn() -> u32 {
    6
}
fn default_chunk() -> f64 {
    8.0
}
