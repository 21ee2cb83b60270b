//! Everything a run writes, and reading it back.
//!
//! - [`collect`]: the reduction of a finished simulation's LP states into [`Results`] (the
//!   per-operation timeline, per-rank, per-job, device, server and link figures, byte
//!   conservation), in LP order so that results are identical for any thread count;
//! - [`capacity`]: sizing figures: per burst-buffer device and job the peak occupancy, time
//!   writers waited for space, bytes spilled and drained, and `occupancy.csv`;
//! - [`phases`]: a job's I/O phases from its ranks' busy intervals;
//! - [`timeline`]: the per-operation timeline (`timeline.csv`), taken out of the compute
//!   nodes' records when the run ends;
//! - [`report`]: the files of `bbsim run` (`timeline.csv`, `ranks.csv`, `summary.json`, the
//!   SVG plots) rendered in memory, and the table printed at the end of a run;
//! - [`figures`]: the run's SVG figures (`timeline.svg`, `hops.svg`, `utilisation.svg`,
//!   `occupancy.svg`) from its results;
//! - [`chart`]: what the figures share (drawing with `plotters`, colours of I/O kinds, units,
//!   legends); [`plot`]: per-rank I/O timelines; [`bars`]: bar charts;
//!   [`occupancy_plot`]: burst-buffer fill over time per device; [`scatter`]: one value
//!   against another with the Pareto front;
//! - [`csv_text`]: CSV text with RFC 4180 quoting (the `csv` crate), for every CSV file;
//! - [`cost`]: the capital and energy cost of the burst-buffer design;
//! - [`describe`]: the granularity and job lines of `bbsim validate`;
//! - [`sweep`]: the plan and the `sweep.csv` table of `bbsim sweep`;
//! - [`readback`]: a run's `timeline.csv` and `ranks.csv`, or any CSV table, read back for
//!   figures made after the run (`bbsim plot`);
//! - [`files`]: atomic output: a set of files that appears only when complete, and the
//!   interrupt flag that stops it.
//!
//! Times in the results are picoseconds of simulated time ([`bbsim_engine::Time`]); the files
//! give seconds.

pub mod bars;
pub mod capacity;
pub mod chart;
pub mod collect;
pub mod cost;
pub mod csv_text;
pub mod describe;
pub mod figures;
pub mod files;
pub mod occupancy_plot;
pub mod phases;
pub mod plot;
pub mod readback;
pub mod report;
pub mod scatter;
pub mod sweep;
pub mod timeline;

pub use collect::{reduce, secs, secs_f, Results};
pub use files::{interrupted, OutputFile, OutputSet, INTERRUPTED};
pub use report::{render, table, write, Rendered, RUN_FILES};
