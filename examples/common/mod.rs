//! What the benchmark examples share: CPU time and medians.

/// The CPU time of this process so far (user and system, all its threads), s.
#[allow(dead_code)]
pub fn cpu_s() -> f64 {
    cpu_s_of(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// The CPU time of the calling thread so far, s: what one stage of a pipeline costs
/// while another thread works beside it.
#[allow(dead_code)]
pub fn thread_cpu_s() -> f64 {
    cpu_s_of(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// A CPU-time clock read by `clock_gettime`, to the nanosecond (the kernel's accounting
/// of /proc/self/stat counts 10 ms ticks, 2 % of a half-second measurement).
fn cpu_s_of(clock: libc::clockid_t) -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill; the clock ids are constants
    // every Linux has.
    let rc = unsafe { libc::clock_gettime(clock, &mut t) };
    assert_eq!(rc, 0, "clock_gettime of a CPU-time clock failed");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

#[allow(dead_code)]
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The replayer's steps timed alone: records are gathered in blocks of 4,096 (parsed or
/// read beforehand, to bound the memory) and only the steps of each block are timed, in
/// this thread's CPU time (a log's lines are parsed on another thread meanwhile).
#[allow(dead_code)]
pub struct ChainTimer {
    replayer: acres::jobs::replay::Replayer,
    block: Vec<acres::formats::log::Record>,
    spent: f64,
}

#[allow(dead_code)]
impl ChainTimer {
    pub fn new(replayer: acres::jobs::replay::Replayer) -> ChainTimer {
        ChainTimer {
            replayer,
            block: Vec::with_capacity(4096),
            spent: 0.0,
        }
    }

    /// Takes a record; a full block is stepped.
    pub fn push(&mut self, rec: &acres::formats::log::Record) {
        self.block.push(rec.clone());
        if self.block.len() == 4096 {
            self.run();
        }
    }

    fn run(&mut self) {
        let c = thread_cpu_s();
        for r in &self.block {
            std::hint::black_box(self.replayer.step(r).unwrap());
        }
        self.spent += thread_cpu_s() - c;
        self.block.clear();
    }

    /// Steps the last block; the CPU seconds of all the steps.
    pub fn finish(mut self) -> f64 {
        self.run();
        self.spent
    }
}

/// A winding path of `n` points `step` m apart: a sine of 40 m wavelength and 3 m
/// amplitude, on gravel at 6 m/s.
#[allow(dead_code)]
pub fn winding(n: usize, step: f64) -> acres::chain::path::Path {
    use acres::chain::envelope::GroundClass;
    use acres::chain::path::{Direction, PathPoint};
    let pts: Vec<PathPoint> = (0..n)
        .map(|i| {
            let x = i as f64 * step;
            PathPoint {
                x,
                y: 3.0 * (x * std::f64::consts::TAU / 40.0).sin(),
                speed_mps: 6.0,
                class: Some(GroundClass::Gravel),
                direction: Direction::Forward,
            }
        })
        .collect();
    acres::chain::path::Path::new("winding", &pts).unwrap()
}

/// A pose 0.3 m beside the [`winding`] path at `x`, turned 0.3 rad: where the driver
/// benches put the vehicle.
#[allow(dead_code)]
pub fn beside_winding(x: f64) -> acres::chain::shield::Pose {
    acres::chain::shield::Pose {
        x_m: x,
        y_m: 3.0 * (x * std::f64::consts::TAU / 40.0).sin() + 0.3,
        yaw_rad: 0.3,
    }
}
