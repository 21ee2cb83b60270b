//! A job's generator with its parameters checked, before any operation is generated: enough to
//! know how many ranks the job will have, so that a job too large for the machine is never
//! generated.

use bbsim_workload::synthetic::{AnalysisParams, App, QuotaUserParams, SmallReadsParams, Volume};
use bbsim_workload::transform;
use bbsim_workload::JobSpec;

/// The generator of one job's operations (before transforms), its parameters checked.
pub(super) enum Recipe {
    /// A study application, IOR or the checkpointer.
    App(App),
    /// A quota-limited SSD user.
    QuotaUser(QuotaUserParams),
    /// A small-read analysis.
    SmallReads(SmallReadsParams),
    /// A consumer of an earlier job's files; `inputs_known` is false when that job was not
    /// generated (the scenario then cannot run, and neither job is generated).
    Analysis {
        /// The consumer's parameters (`inputs` empty unless `inputs_known`).
        params: AnalysisParams,
        /// Whether `params.inputs` holds the producer's file extents.
        inputs_known: bool,
    },
    /// A Darshan log's job, weak-scaled to `ranks` when given and different.
    Replay {
        /// The job of the log.
        job: JobSpec,
        /// The job's `ranks` key.
        ranks: Option<u32>,
    },
}

impl Recipe {
    /// What a study application's job moves at most, from its parameters (`None` for the
    /// other generators, whose sizes their own checks bound).
    pub(super) fn volume(&self) -> Option<Volume> {
        match self {
            Recipe::App(app) => Some(app.volume()),
            _ => None,
        }
    }

    /// The number of ranks of the job [`Recipe::generate`] makes (every generator makes at
    /// least one).
    pub(super) fn ranks(&self) -> u32 {
        match self {
            Recipe::App(app) => match app {
                App::Ior(p) => p.ranks,
                App::Checkpoint(p) => p.ranks,
                App::Gtc(p) => p.ranks,
                App::Lammps(p) => p.ranks,
                App::S3d(p) => p.ranks,
                App::Hacc(p) => p.ranks,
            }
            .max(1),
            Recipe::QuotaUser(p) => p.ranks.max(1),
            Recipe::SmallReads(p) => p.ranks.max(1),
            Recipe::Analysis { params, .. } => params.ranks.max(1),
            Recipe::Replay { job, ranks } => ranks.unwrap_or_else(|| job.ranks()),
        }
    }

    /// Generates the job's operations; `None` for a consumer whose producer was not generated.
    pub(super) fn generate(self) -> Option<JobSpec> {
        Some(match self {
            Recipe::App(app) => app.job(),
            Recipe::QuotaUser(p) => p.job(),
            Recipe::SmallReads(p) => p.job(),
            Recipe::Analysis {
                params,
                inputs_known,
            } => {
                if !inputs_known {
                    return None;
                }
                params.job()
            }
            Recipe::Replay { job, ranks } => match ranks {
                Some(r) if r != job.ranks() => transform::weak_scale(&job, r),
                _ => job,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Recipe;
    use bbsim_workload::synthetic::{AnalysisParams, App, QuotaUserParams, SmallReadsParams};

    /// `app` with `ranks` ranks.
    fn with_ranks(mut app: App, ranks: u32) -> App {
        match &mut app {
            App::Ior(p) => p.ranks = ranks,
            App::Checkpoint(p) => p.ranks = ranks,
            App::Gtc(p) => p.ranks = ranks,
            App::Lammps(p) => p.ranks = ranks,
            App::S3d(p) => p.ranks = ranks,
            App::Hacc(p) => p.ranks = ranks,
        }
        app
    }

    #[test]
    fn every_recipe_knows_how_many_ranks_it_generates() {
        let small = |n: &str| App::by_name(n).expect("known application");
        let mut recipes = Vec::new();
        for ranks in [0, 1, 5] {
            for name in ["ior", "checkpoint", "gtc", "lammps", "s3d", "hacc"] {
                recipes.push(Recipe::App(with_ranks(small(name), ranks)));
            }
            recipes.push(Recipe::QuotaUser(QuotaUserParams {
                ranks,
                steps: 1,
                ..QuotaUserParams::default()
            }));
            recipes.push(Recipe::SmallReads(SmallReadsParams {
                ranks,
                reads_per_rank: 10,
                ..SmallReadsParams::default()
            }));
            recipes.push(Recipe::Analysis {
                params: AnalysisParams {
                    ranks: ranks.max(1),
                    inputs: vec![1 << 20; 2],
                    ..AnalysisParams::default()
                },
                inputs_known: true,
            });
        }
        let log_job = with_ranks(small("ior"), 4).job();
        for ranks in [None, Some(4), Some(3), Some(10)] {
            recipes.push(Recipe::Replay {
                job: log_job.clone(),
                ranks,
            });
        }
        for recipe in recipes {
            let planned = recipe.ranks();
            let job = recipe.generate().expect("generated");
            assert_eq!(planned, job.ranks(), "{}", job.name);
        }
    }

    #[test]
    fn a_consumer_of_a_job_not_generated_is_not_generated() {
        let recipe = Recipe::Analysis {
            params: AnalysisParams {
                ranks: 3,
                ..AnalysisParams::default()
            },
            inputs_known: false,
        };
        assert_eq!(recipe.ranks(), 3);
        assert!(recipe.generate().is_none());
    }
}
