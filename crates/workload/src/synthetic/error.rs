//! Parameter errors of the synthetic generators: which field of which parameter struct is
//! wrong, the value it has and what was expected. Fields print as the struct's field names.

use std::fmt;

/// A rejected parameter: the field (`F`: [`QuotaField`], [`SmallReadsField`],
/// [`AnalysisField`]), its value and what was expected of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError<F> {
    /// The bad parameter.
    pub field: F,
    /// Its value as given.
    pub got: String,
    /// What is expected of it (for example `must be at least 1`).
    pub expected: String,
}

impl<F: fmt::Display> fmt::Display for ParamError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}, got {}", self.field, self.expected, self.got)
    }
}

impl<F: fmt::Display + fmt::Debug> std::error::Error for ParamError<F> {}

/// `Err` naming the first of `fields` (field, value) whose value is 0.
pub(crate) fn check_nonzero<F: Copy>(fields: &[(F, u64)]) -> Result<(), ParamError<F>> {
    match fields.iter().find(|&&(_, v)| v == 0) {
        Some(&(field, got)) => Err(ParamError {
            field,
            got: got.to_string(),
            expected: "must be at least 1".into(),
        }),
        None => Ok(()),
    }
}

/// `Err` naming `field` with its value `got` unless `ok`; `expected` says what it must be.
pub(crate) fn check<F>(
    ok: bool,
    field: F,
    got: impl fmt::Display,
    expected: impl FnOnce() -> String,
) -> Result<(), ParamError<F>> {
    if ok {
        Ok(())
    } else {
        Err(ParamError {
            field,
            got: got.to_string(),
            expected: expected(),
        })
    }
}

/// A checked field of [`QuotaUserParams`](super::QuotaUserParams).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotaField {
    /// Ranks.
    Ranks,
    /// Ranks per node.
    RanksPerNode,
    /// Bytes per write call.
    TransferSize,
    /// The user's quota (bytes).
    Quota,
    /// Fill fraction of the quota at which the oldest files are deleted.
    DeleteAt,
    /// Relative jitter of file sizes and compute times.
    Jitter,
    /// Bytes per checkpoint file.
    CheckpointBytes,
    /// Bytes per plot file.
    PlotBytes,
}

/// A checked field of [`SmallReadsParams`](super::SmallReadsParams).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmallReadsField {
    /// Ranks.
    Ranks,
    /// Ranks per node.
    RanksPerNode,
    /// Branches of the dataset.
    Branches,
    /// Smallest read (bytes).
    ReadMin,
    /// Largest read (bytes).
    ReadMax,
    /// Bytes of each rank's input file.
    DatasetBytes,
}

/// A checked field of [`AnalysisParams`](super::AnalysisParams).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalysisField {
    /// Ranks.
    Ranks,
    /// Ranks per node.
    RanksPerNode,
    /// Bytes per read call.
    TransferSize,
    /// Bytes per write call of the outputs.
    OutputTransferSize,
    /// Output files.
    OutputFiles,
    /// Bytes of all outputs.
    OutputBytes,
}

impl fmt::Display for QuotaField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuotaField::Ranks => "ranks",
            QuotaField::RanksPerNode => "ranks_per_node",
            QuotaField::TransferSize => "transfer_size",
            QuotaField::Quota => "quota",
            QuotaField::DeleteAt => "delete_at",
            QuotaField::Jitter => "jitter",
            QuotaField::CheckpointBytes => "checkpoint_bytes",
            QuotaField::PlotBytes => "plot_bytes",
        })
    }
}

impl fmt::Display for SmallReadsField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SmallReadsField::Ranks => "ranks",
            SmallReadsField::RanksPerNode => "ranks_per_node",
            SmallReadsField::Branches => "branches",
            SmallReadsField::ReadMin => "read_min",
            SmallReadsField::ReadMax => "read_max",
            SmallReadsField::DatasetBytes => "dataset_bytes",
        })
    }
}

impl fmt::Display for AnalysisField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AnalysisField::Ranks => "ranks",
            AnalysisField::RanksPerNode => "ranks_per_node",
            AnalysisField::TransferSize => "transfer_size",
            AnalysisField::OutputTransferSize => "output_transfer_size",
            AnalysisField::OutputFiles => "output_files",
            AnalysisField::OutputBytes => "output_bytes",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field_the_value_and_what_was_expected() {
        let e = check_nonzero(&[(QuotaField::Ranks, 4), (QuotaField::Quota, 0)]).unwrap_err();
        assert_eq!(e.field, QuotaField::Quota);
        assert_eq!(e.to_string(), "quota: must be at least 1, got 0");
        assert!(check(true, AnalysisField::OutputFiles, 3, || "x".into()).is_ok());
        let e = check(false, SmallReadsField::ReadMax, 2, || "must be >= 4".into());
        assert_eq!(e.unwrap_err().to_string(), "read_max: must be >= 4, got 2");
    }
}
