//! Overlap mode of the nonblocking kernels (Hoefler et al. 2010, §4.1 Listing 6 and
//! steps 1-8, §4.2): the computation between post and wait, its calibration, and the
//! `MPI_Test` calls spread over it.

use crate::clock::Clock;
use crate::plan::{OverlapMode, OverlapSpec};
use mpi::collective::SystemOperation;
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::hint::black_box;

/// What a rank computes between post and wait, the same in every repetition of a block.
#[derive(Debug, Clone, Copy)]
pub struct Compute {
    pub mode: OverlapMode,
    /// t_b, seconds: the pure operation time the computation is sized to (`time-own`: this
    /// rank's own mean in the pure pass).
    pub t_pure_s: f64,
    /// Work-based: loop iterations λ (maximum over ranks); 0 when time-based.
    pub workload: u64,
    /// `MPI_Test` calls per repetition (Hoefler et al. 2010, §4.2), 0 for none.
    pub tests: u32,
}

/// The parts of one overlapped repetition on one rank, seconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct OverlapParts {
    /// In the posting call (t_init).
    pub post_s: f64,
    /// Computing, tests excluded.
    pub compute_s: f64,
    /// In the `MPI_Test` calls.
    pub test_s: f64,
    /// In `MPI_Wait` (t_wait).
    pub wait_s: f64,
}

impl Compute {
    /// The computation for a block of `bytes` whose pure operation time is `t_pure_s`
    /// (seconds, the same on every rank). Work-based, it calibrates λ on every rank and takes
    /// the maximum (collective on `comm`, Hoefler et al. 2010, §4.1 steps 2-3).
    pub fn new(
        comm: &SimpleCommunicator,
        spec: &OverlapSpec,
        bytes: u64,
        t_pure_s: f64,
        clock: &dyn Clock,
    ) -> Compute {
        let workload = match spec.mode {
            OverlapMode::Time | OverlapMode::TimeOwn => 0,
            OverlapMode::Work => {
                let mine = calibrate(t_pure_s, clock);
                let mut max = 0u64;
                comm.all_reduce_into(&mine, &mut max, SystemOperation::max());
                max
            }
        };
        Compute {
            mode: spec.mode,
            t_pure_s,
            workload,
            tests: spec.tests_for(bytes),
        }
    }

    /// Pieces the computation is cut into: one between each two tests.
    fn segments(&self) -> u32 {
        self.tests.saturating_sub(1).max(1)
    }

    /// Computes one segment: 1 / segments of (t_b + `extra_s`) of clock time, or of λ scaled
    /// by the same factor.
    fn segment(&self, extra_s: f64, clock: &dyn Clock) {
        let n = self.segments() as f64;
        match self.mode {
            OverlapMode::Time | OverlapMode::TimeOwn => {
                let until = clock.now() + (self.t_pure_s + extra_s) / n;
                while clock.now() < until {
                    std::hint::spin_loop();
                }
            }
            OverlapMode::Work => {
                let scale = if self.t_pure_s > 0.0 {
                    1.0 + extra_s / self.t_pure_s
                } else {
                    1.0
                };
                black_box(work((self.workload as f64 * scale / n) as u64));
            }
        }
    }

    /// Drives a posted request: a test at the start, then segments each followed by a test
    /// (so N tests at 0, 1/(N-1), ..., 1 of the computation, Hoefler et al. 2010, §4.2), then `MPI_Wait`.
    /// The computation lasts t_b + `extra_s` (seconds): a punctual rank of a late-arrival
    /// block computes while the late rank catches up. Returns (compute, test, wait) seconds.
    pub fn drive<'a, D: ?Sized, S: Scope<'a>>(
        &self,
        request: Request<'a, D, S>,
        extra_s: f64,
        clock: &dyn Clock,
    ) -> (f64, f64, f64) {
        let mut pending = Some(request);
        let (mut compute_s, mut test_s) = (0.0, 0.0);
        let mut test = |pending: &mut Option<Request<'a, D, S>>| {
            let t = clock.now();
            if let Some(r) = pending.take() {
                *pending = r.test().err();
            }
            test_s += clock.now() - t;
        };
        if self.tests > 0 {
            test(&mut pending);
        }
        for _ in 0..self.segments() {
            let t = clock.now();
            self.segment(extra_s, clock);
            compute_s += clock.now() - t;
            if self.tests > 1 {
                test(&mut pending);
            }
        }
        let t = clock.now();
        if let Some(r) = pending {
            r.wait();
        }
        (compute_s, test_s, clock.now() - t)
    }
}

/// A fixed workload of `iters` dependent floating-point steps that the compiler cannot drop.
fn work(iters: u64) -> f64 {
    let mut x = 1.0f64;
    for _ in 0..iters {
        x = black_box(x * 1.000_000_1 + 1e-9);
    }
    x
}

/// Workload λ (iterations) that takes `t_s` seconds on this rank: doubled until one run takes
/// at least `t_s` (Hoefler et al. 2010, §4.1 step 2 grows λ by a fixed step; doubling gets there in log time),
/// then scaled down linearly. Each size is timed three times and the fastest kept, so a
/// descheduling does not shrink λ.
fn calibrate(t_s: f64, clock: &dyn Clock) -> u64 {
    let time = |iters: u64| {
        (0..3)
            .map(|_| {
                let t = clock.now();
                black_box(work(iters));
                clock.now() - t
            })
            .fold(f64::INFINITY, f64::min)
    };
    let mut iters = 64u64;
    loop {
        let took = time(iters);
        if took >= t_s || iters >= 1 << 40 {
            return ((iters as f64 * t_s / took.max(1e-12)).ceil() as u64).max(1);
        }
        iters *= 2;
    }
}
