//! `App::volume` bounds what each study application's job moves, from its parameters alone:
//! exact for IOR and the checkpointer, an upper bound for the others, checked against the
//! generated jobs' totals.

use bbsim_workload::synthetic::App;

#[test]
fn volume_bounds_the_generated_jobs() {
    for name in ["ior", "checkpoint", "gtc", "lammps", "s3d", "hacc"] {
        let mut app = App::by_name(name).expect("known application");
        // Small enough to generate quickly, with sizes that do not divide evenly.
        match &mut app {
            App::Ior(p) => {
                p.ranks = 3;
                p.segments = 2;
                p.block_size = 10 << 20;
                p.transfer_size = 1 << 20;
            }
            App::Checkpoint(p) => {
                p.ranks = 3;
                p.bytes_per_rank = 10_000_001;
                p.transfer_size = 1 << 20;
            }
            App::Gtc(p) => p.ranks = 5,
            App::Lammps(p) => p.ranks = 3,
            App::S3d(p) => p.ranks = 3,
            App::Hacc(p) => p.ranks = 3,
        }
        let v = app.volume();
        let job = app.job();
        let t = job.totals();
        let bytes = u128::from(t.bytes_moved());
        let ops = u128::from(t.writes + t.reads);
        assert!(
            bytes <= v.bytes,
            "{name}: {bytes} bytes > bound {}",
            v.bytes
        );
        assert!(
            ops <= v.operations,
            "{name}: {ops} ops > bound {}",
            v.operations
        );
        if matches!(app, App::Ior(_) | App::Checkpoint(_)) {
            assert_eq!((bytes, ops), (v.bytes, v.operations), "{name} is exact");
        }
    }
}

#[test]
fn absurd_parameters_do_not_overflow() {
    let mut app = App::by_name("ior").expect("ior");
    if let App::Ior(p) = &mut app {
        p.ranks = u32::MAX;
        p.segments = u32::MAX;
        p.repetitions = u32::MAX;
        p.block_size = u64::MAX;
        p.transfer_size = 1;
    }
    let v = app.volume();
    assert!(v.bytes > u128::from(u64::MAX));
    assert!(v.operations > u128::from(u64::MAX));
}
