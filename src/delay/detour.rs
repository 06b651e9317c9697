//! Injecting OS-noise detours into the calling thread with a POSIX timer and a signal handler
//! (Ferreira, Bridges and Brightwell, SC08: periodic detours of fixed length).
//!
//! [`DetourInjector::start`] creates a `CLOCK_MONOTONIC` timer that sends a real-time signal to
//! the calling thread only (Linux `SIGEV_THREAD_ID` with its thread id: MPI libraries may run
//! helper threads, which must not absorb the detours). The handler busy-waits the detour
//! duration on `clock_gettime`, which is async-signal-safe, and counts fires and lost time in
//! atomics. The handler is installed with `SA_RESTART` so that system calls interrupted by a
//! detour resume instead of failing with `EINTR`.
//!
//! One injector at a time per process: the handler's state is process-global, as signal
//! dispositions are. A second [`DetourInjector::start`] fails with
//! [`DetourError::AlreadyActive`] until the first is stopped or dropped.
//!
//! [`DetourInjector::start_schedule`] replays a [`DetourSchedule`] instead (a recorded noise
//! file, `--detour noise:FILE`): the handler runs the due detour, then re-arms the timer at the
//! absolute instant of the next one (`timer_settime` is async-signal-safe).
//!
//! Every detour that ran is logged (its start on `CLOCK_MONOTONIC` and its length, up to
//! [`LOG_CAPACITY`] per start), so the records can hold the applied detours themselves
//! ([`DetourInjector::stop_with_events`]).
//!
//! Linux only; elsewhere `start` returns [`DetourError::Unsupported`].

/// Most detours logged between a start and a stop; later ones still run and are counted.
pub const LOG_CAPACITY: usize = 1 << 18;

use super::{DetourSchedule, DetourSpecError};
use thiserror::Error;

/// What an injector did between start and stop.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DetourStats {
    /// Detours run (handler invocations).
    pub fired: u64,
    /// Timer expirations that produced no detour because the previous signal was still pending
    /// (the thread was descheduled, say); `fired + missed` ≈ freq · elapsed.
    pub missed: u64,
    /// Timer expiries that found the gate closed ([`DetourInjector::set_gate`]) and cost
    /// nothing: the rank was not inside the operation.
    pub skipped: u64,
    /// Time the thread spent in detours, seconds: wall time inside the handler, ≈ fired ·
    /// duration (more if the thread was descheduled during a detour).
    pub lost_s: f64,
    /// Wall time from start to stop, seconds.
    pub elapsed_s: f64,
}

/// Why detours could not be started.
#[derive(Debug, Error)]
pub enum DetourError {
    #[error("invalid detour: {0}")]
    Spec(DetourSpecError),
    #[error("the first detour must be due in a finite time >= 0 s, got {0} s")]
    FirstFire(f64),
    #[error(
        "a detour injector is already running in this process: stop it before starting another"
    )]
    AlreadyActive,
    #[error("no free real-time signal for detours: every one from SIGRTMIN+4 to SIGRTMAX has a handler already")]
    NoFreeSignal,
    #[error("{call} failed: {cause}")]
    Os {
        call: &'static str,
        cause: std::io::Error,
    },
    #[error("the replay schedule is empty or has no positive period")]
    EmptySchedule,
    #[error("detour injection needs Linux (POSIX timers with SIGEV_THREAD_ID)")]
    Unsupported,
}

#[cfg(target_os = "linux")]
pub use linux::DetourInjector;

#[cfg(not(target_os = "linux"))]
pub use other::DetourInjector;

/// The timer and its signal are libc calls, not nix's: the detour takes a real-time signal
/// (SIGRTMIN+4 and up, to leave other libraries' signals alone), and nix's `Signal`, which
/// its `sigaction`, `pthread_sigmask` and `Timer` take, has no real-time signals.
#[cfg(target_os = "linux")]
mod linux {
    use super::{DetourError, DetourSchedule, DetourStats, LOG_CAPACITY};
    use crate::delay::DetourSpec;
    use std::marker::PhantomData;
    use std::sync::atomic::{
        AtomicBool, AtomicI64, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst,
    };

    /// The applied-detour log: pairs (start ns on CLOCK_MONOTONIC, length ns), owned by the
    /// running injector.
    static LOG: AtomicPtr<u64> = AtomicPtr::new(std::ptr::null_mut());
    static LOG_LEN: AtomicUsize = AtomicUsize::new(0);
    /// Schedule mode (a noise file's detours): the schedule (offset ns, length ns pairs within
    /// one period), owned by the running injector; null for periodic detours.
    static SCHED: AtomicPtr<u64> = AtomicPtr::new(std::ptr::null_mut());
    static SCHED_LEN: AtomicUsize = AtomicUsize::new(0);
    static SCHED_PERIOD_NS: AtomicI64 = AtomicI64::new(0);
    /// CLOCK_MONOTONIC ns at which cycle 0 of the schedule begins.
    static SCHED_CYCLE0_NS: AtomicI64 = AtomicI64::new(0);
    /// The event the armed timer is for: index and cycle.
    static SCHED_IDX: AtomicUsize = AtomicUsize::new(0);
    static SCHED_CYCLE: AtomicI64 = AtomicI64::new(0);

    static ACTIVE: AtomicBool = AtomicBool::new(false);
    /// Detours happen only while this is true, so that a run can confine them to the
    /// operation and keep the wait for the start instant undisturbed.
    static GATE_OPEN: AtomicBool = AtomicBool::new(true);
    static SKIPPED: AtomicU64 = AtomicU64::new(0);
    static DURATION_NS: AtomicU64 = AtomicU64::new(0);
    static FIRED: AtomicU64 = AtomicU64::new(0);
    static MISSED: AtomicU64 = AtomicU64::new(0);
    static LOST_NS: AtomicU64 = AtomicU64::new(0);
    static TIMER: AtomicPtr<libc::c_void> = AtomicPtr::new(std::ptr::null_mut());
    /// Whether TIMER holds a live timer. Not `TIMER != null`: glibc returns the kernel's
    /// timer id as the `timer_t`, and the first timer of a process has id 0, a null pointer.
    static TIMER_LIVE: AtomicBool = AtomicBool::new(false);

    /// Signals from SIGRTMIN up to this offset are left alone: glibc already hides its own
    /// below SIGRTMIN, and the first few above are the ones other libraries reach for first.
    const FIRST_RT_OFFSET: libc::c_int = 4;

    /// CLOCK_MONOTONIC in nanoseconds (0 if it could not be read, which Linux never does).
    fn now_ns() -> u64 {
        use nix::time::{clock_gettime, ClockId};
        clock_gettime(ClockId::CLOCK_MONOTONIC).map_or(0, |ts| {
            ts.tv_sec() as u64 * 1_000_000_000 + ts.tv_nsec() as u64
        })
    }

    /// The detour. Only async-signal-safe calls (clock_gettime, timer_getoverrun) and atomics.
    extern "C" fn on_signal(_signal: libc::c_int) {
        // This thread's errno, which timer_getoverrun may set, is restored on the way out.
        let errno = nix::errno::Errno::last_raw();
        if !SCHED.load(SeqCst).is_null() {
            on_scheduled();
            nix::errno::Errno::set_raw(errno);
            return;
        }
        if !GATE_OPEN.load(SeqCst) {
            SKIPPED.fetch_add(1, SeqCst);
            return;
        }
        let duration = DURATION_NS.load(SeqCst);
        let start = now_ns();
        let mut now = start;
        while now - start < duration {
            std::hint::spin_loop();
            now = now_ns();
        }
        FIRED.fetch_add(1, SeqCst);
        LOST_NS.fetch_add(now - start, SeqCst);
        log_event(start, now - start);
        let timer = TIMER.load(SeqCst);
        if TIMER_LIVE.load(SeqCst) {
            // SAFETY: the timer is deleted only after this signal is blocked and drained.
            let overrun = unsafe { libc::timer_getoverrun(timer) };
            if overrun > 0 {
                MISSED.fetch_add(overrun as u64, SeqCst);
            }
        }
        nix::errno::Errno::set_raw(errno);
    }

    /// Appends one applied detour to the log, if there is room. Async-signal-safe.
    fn log_event(start_ns: u64, length_ns: u64) {
        let log = LOG.load(SeqCst);
        if log.is_null() {
            return;
        }
        let i = LOG_LEN.fetch_add(1, SeqCst);
        if i < LOG_CAPACITY {
            // SAFETY: the buffer holds 2 * LOG_CAPACITY values and lives until teardown, which
            // blocks this signal first.
            unsafe {
                *log.add(2 * i) = start_ns;
                *log.add(2 * i + 1) = length_ns;
            }
        }
    }

    /// The (offset, length) in ns of schedule event `i`. Async-signal-safe.
    fn sched_event(i: usize) -> (i64, u64) {
        let s = SCHED.load(SeqCst);
        // SAFETY: `i < SCHED_LEN`; the buffer lives until teardown, as the log does.
        unsafe { (*s.add(2 * i) as i64, *s.add(2 * i + 1)) }
    }

    /// Absolute CLOCK_MONOTONIC ns of the event at (`idx`, `cycle`).
    fn sched_start_ns(idx: usize, cycle: i64) -> i64 {
        SCHED_CYCLE0_NS.load(SeqCst) + cycle * SCHED_PERIOD_NS.load(SeqCst) + sched_event(idx).0
    }

    /// Schedule mode: runs the due event (or counts it skipped when the gate is closed), then arms
    /// the timer for the next event that has not already ended. Async-signal-safe.
    fn on_scheduled() {
        let (idx, cycle) = (SCHED_IDX.load(SeqCst), SCHED_CYCLE.load(SeqCst));
        let (_, length) = sched_event(idx);
        if GATE_OPEN.load(SeqCst) {
            let start = now_ns();
            let mut now = start;
            while now - start < length {
                std::hint::spin_loop();
                now = now_ns();
            }
            FIRED.fetch_add(1, SeqCst);
            LOST_NS.fetch_add(now - start, SeqCst);
            log_event(start, now - start);
        } else {
            SKIPPED.fetch_add(1, SeqCst);
        }
        arm_next(idx, cycle);
    }

    /// Advances from event (`idx`, `cycle`) to the next one still to come (events already
    /// over are counted as missed) and arms the timer for it.
    fn arm_next(mut idx: usize, mut cycle: i64) {
        let n = SCHED_LEN.load(SeqCst);
        let now = now_ns() as i64;
        loop {
            idx += 1;
            if idx == n {
                idx = 0;
                cycle += 1;
            }
            let (_, length) = sched_event(idx);
            if sched_start_ns(idx, cycle) + length as i64 > now {
                break;
            }
            MISSED.fetch_add(1, SeqCst);
        }
        SCHED_IDX.store(idx, SeqCst);
        SCHED_CYCLE.store(cycle, SeqCst);
        let at = sched_start_ns(idx, cycle).max(1);
        let times = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: (at / 1_000_000_000) as libc::time_t,
                tv_nsec: (at % 1_000_000_000) as libc::c_long,
            },
        };
        if TIMER_LIVE.load(SeqCst) {
            // SAFETY: a live timer; an absolute instant in the past fires at once.
            unsafe {
                libc::timer_settime(
                    TIMER.load(SeqCst),
                    libc::TIMER_ABSTIME,
                    &times,
                    std::ptr::null_mut(),
                )
            };
        }
    }

    fn os_error(call: &'static str) -> DetourError {
        DetourError::Os {
            call,
            cause: std::io::Error::last_os_error(),
        }
    }

    fn timespec(seconds: f64) -> libc::timespec {
        let ns = (seconds * 1e9).round() as u64;
        libc::timespec {
            tv_sec: (ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (ns % 1_000_000_000) as libc::c_long,
        }
    }

    fn signal_set(signal: libc::c_int) -> libc::sigset_t {
        // SAFETY: sigemptyset initialises the set before sigaddset reads it.
        unsafe {
            let mut set = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            set
        }
    }

    /// Periodic detours of the thread that called [`DetourInjector::start`], until
    /// [`DetourInjector::stop`] or drop (module docs of `delay::detour`).
    ///
    /// Not `Send`: the timer targets the starting thread, and stopping restores that thread's
    /// signal mask, so it must be stopped there.
    pub struct DetourInjector {
        signal: libc::c_int,
        timer: libc::timer_t,
        /// Whether `timer` was created (a null `timer_t` is a valid timer, id 0).
        has_timer: bool,
        old_action: libc::sigaction,
        was_blocked: bool,
        start_ns: u64,
        running: bool,
        /// The applied-detour log and the detour schedule, read by the handler.
        log: Vec<u64>,
        schedule: Vec<u64>,
        _same_thread: PhantomData<*const ()>,
    }

    impl DetourInjector {
        /// Starts detours of `spec.duration_s` every `1 / spec.freq_hz` seconds on the calling
        /// thread, the first one `first_fire_in_s` seconds from now (see
        /// [`DetourSpec::first_fire_in_s`] to align phases across ranks; 0 means at once).
        ///
        /// Uses the first real-time signal from SIGRTMIN+4 up whose disposition is the default,
        /// so handlers of other libraries are never replaced; the previous disposition is
        /// restored on stop. The signal is unblocked in the calling thread while running.
        ///
        /// Errors: [`DetourError::Spec`] (invalid spec), [`DetourError::FirstFire`],
        /// [`DetourError::AlreadyActive`], [`DetourError::NoFreeSignal`], [`DetourError::Os`].
        pub fn start(spec: DetourSpec, first_fire_in_s: f64) -> Result<Self, DetourError> {
            spec.validate().map_err(DetourError::Spec)?;
            if !(first_fire_in_s.is_finite() && first_fire_in_s >= 0.0) {
                return Err(DetourError::FirstFire(first_fire_in_s));
            }
            if ACTIVE
                .compare_exchange(false, true, SeqCst, SeqCst)
                .is_err()
            {
                return Err(DetourError::AlreadyActive);
            }
            let started = Self::arm(spec, first_fire_in_s, None);
            if started.is_err() {
                ACTIVE.store(false, SeqCst);
            }
            started
        }

        /// Starts replaying `schedule` on the calling thread: each detour at its global
        /// instant, mapped to CLOCK_MONOTONIC through `global_now_s` (the global clock read
        /// just now). Errors: [`DetourError::EmptySchedule`], and those of
        /// [`DetourInjector::start`].
        pub fn start_schedule(
            schedule: &DetourSchedule,
            global_now_s: f64,
        ) -> Result<Self, DetourError> {
            if schedule.offsets_s.is_empty()
                || schedule.period_s.is_nan()
                || schedule.period_s <= 0.0
            {
                return Err(DetourError::EmptySchedule);
            }
            if ACTIVE
                .compare_exchange(false, true, SeqCst, SeqCst)
                .is_err()
            {
                return Err(DetourError::AlreadyActive);
            }
            // A placeholder spec: the handler takes lengths from the schedule.
            let spec = DetourSpec {
                freq_hz: 1.0 / schedule.period_s,
                duration_s: 0.0,
                phase: crate::delay::DetourPhase::Synchronized,
            };
            let started = Self::arm(spec, 0.0, Some((schedule, global_now_s)));
            if started.is_err() {
                ACTIVE.store(false, SeqCst);
            }
            started
        }

        fn arm(
            spec: DetourSpec,
            first_fire_in_s: f64,
            scheduled: Option<(&DetourSchedule, f64)>,
        ) -> Result<Self, DetourError> {
            DURATION_NS.store((spec.duration_s * 1e9).round() as u64, SeqCst);
            let mut log = vec![0u64; 2 * LOG_CAPACITY];
            LOG_LEN.store(0, SeqCst);
            LOG.store(log.as_mut_ptr(), SeqCst);
            let mut schedule = Vec::new();
            if let Some((s, global_now)) = scheduled {
                schedule = s
                    .offsets_s
                    .iter()
                    .zip(&s.durations_s)
                    .flat_map(|(&o, &d)| [(o * 1e9).round() as u64, (d * 1e9).round() as u64])
                    .collect();
                let period_ns = (s.period_s * 1e9).round() as i64;
                // Cycle 0 starts a period or two before now, so the search below finds the
                // first event still to come.
                let m0 = ((global_now - s.base_s) / s.period_s).floor() - 1.0;
                let cycle0_global = s.base_s + m0 * s.period_s;
                let cycle0_ns =
                    now_ns() as i64 + ((cycle0_global - global_now) * 1e9).round() as i64;
                SCHED_LEN.store(s.offsets_s.len(), SeqCst);
                SCHED_PERIOD_NS.store(period_ns, SeqCst);
                SCHED_CYCLE0_NS.store(cycle0_ns, SeqCst);
                SCHED.store(schedule.as_mut_ptr(), SeqCst);
            } else {
                SCHED.store(std::ptr::null_mut(), SeqCst);
            }
            FIRED.store(0, SeqCst);
            MISSED.store(0, SeqCst);
            LOST_NS.store(0, SeqCst);
            SKIPPED.store(0, SeqCst);
            GATE_OPEN.store(true, SeqCst);
            let (signal, old_action) = install_handler()?;
            let mut injector = DetourInjector {
                signal,
                timer: std::ptr::null_mut(),
                has_timer: false,
                old_action,
                was_blocked: false,
                start_ns: now_ns(),
                running: true,
                log,
                schedule,
                _same_thread: PhantomData,
            };
            // From here on, dropping `injector` on an error undoes what was done.
            let set = signal_set(signal);
            let mut old_mask: libc::sigset_t = unsafe { std::mem::zeroed() };
            // SAFETY: valid set pointers; only this thread's mask changes.
            if unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, &mut old_mask) } != 0 {
                return Err(os_error("pthread_sigmask"));
            }
            // SAFETY: old_mask was filled by pthread_sigmask.
            injector.was_blocked = unsafe { libc::sigismember(&old_mask, signal) } == 1;

            // SAFETY: a zeroed sigevent is valid; the fields set are the Linux ABI for
            // SIGEV_THREAD_ID. nix's gettid is the system call (glibc's wrapper needs 2.30).
            let mut event: libc::sigevent = unsafe { std::mem::zeroed() };
            event.sigev_notify = libc::SIGEV_THREAD_ID;
            event.sigev_signo = signal;
            event.sigev_notify_thread_id = nix::unistd::gettid().as_raw();
            let mut timer: libc::timer_t = std::ptr::null_mut();
            // SAFETY: valid pointers to the event and the timer id.
            if unsafe { libc::timer_create(libc::CLOCK_MONOTONIC, &mut event, &mut timer) } != 0 {
                return Err(os_error("timer_create"));
            }
            injector.timer = timer;
            injector.has_timer = true;
            TIMER.store(timer, SeqCst);
            TIMER_LIVE.store(true, SeqCst);

            let times = libc::itimerspec {
                it_interval: timespec(spec.period_s()),
                // A zero it_value would disarm the timer instead of firing at once.
                it_value: timespec(first_fire_in_s.max(1e-9)),
            };
            injector.start_ns = now_ns();
            if !injector.schedule.is_empty() {
                // The event before the first one still to come: (last index, cycle -1).
                arm_next(SCHED_LEN.load(SeqCst) - 1, -1);
                return Ok(injector);
            }
            // SAFETY: `timer` is a live timer; `times` is valid.
            if unsafe { libc::timer_settime(timer, 0, &times, std::ptr::null_mut()) } != 0 {
                return Err(os_error("timer_settime"));
            }
            Ok(injector)
        }

        /// Opens (detours cost CPU) or closes (timer expiries are only counted as skipped)
        /// the gate; it is open when the injector starts.
        pub fn set_gate(&self, open: bool) {
            GATE_OPEN.store(open, SeqCst);
        }

        /// Stops the detours, restores the signal's previous disposition and this thread's
        /// mask for it, and returns what happened.
        pub fn stop(self) -> DetourStats {
            self.stop_with_events().0
        }

        /// [`DetourInjector::stop`], also returning every logged detour that ran: (start on
        /// CLOCK_MONOTONIC, length), seconds, in the order they ran (at most
        /// [`LOG_CAPACITY`]).
        pub fn stop_with_events(mut self) -> (DetourStats, Vec<[f64; 2]>) {
            self.teardown();
            let n = LOG_LEN.load(SeqCst).min(LOG_CAPACITY);
            let events = self.log[..2 * n]
                .chunks_exact(2)
                .map(|e| [e[0] as f64 * 1e-9, e[1] as f64 * 1e-9])
                .collect();
            (self.stats(), events)
        }

        fn stats(&self) -> DetourStats {
            DetourStats {
                fired: FIRED.load(SeqCst),
                missed: MISSED.load(SeqCst),
                skipped: SKIPPED.load(SeqCst),
                lost_s: LOST_NS.load(SeqCst) as f64 * 1e-9,
                elapsed_s: (now_ns() - self.start_ns) as f64 * 1e-9,
            }
        }

        /// Undoes `arm`, in an order that lets no detour signal reach the restored default
        /// disposition (which for a real-time signal would end the process).
        fn teardown(&mut self) {
            if !self.running {
                return;
            }
            self.running = false;
            let set = signal_set(self.signal);
            // SAFETY: plain libc calls on values this injector owns; the signal is blocked
            // first, so the handler cannot run while the timer goes away.
            unsafe {
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
                TIMER_LIVE.store(false, SeqCst);
                if self.has_timer {
                    libc::timer_delete(self.timer);
                }
                TIMER.store(std::ptr::null_mut(), SeqCst);
                SCHED.store(std::ptr::null_mut(), SeqCst);
                LOG.store(std::ptr::null_mut(), SeqCst);
                let zero = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                while libc::sigtimedwait(&set, std::ptr::null_mut(), &zero) > 0 {}
                libc::sigaction(self.signal, &self.old_action, std::ptr::null_mut());
                if !self.was_blocked {
                    libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                }
            }
            ACTIVE.store(false, SeqCst);
        }
    }

    impl Drop for DetourInjector {
        fn drop(&mut self) {
            self.teardown();
        }
    }

    /// Installs `on_signal` on the first real-time signal without a handler; returns it and
    /// its previous disposition.
    fn install_handler() -> Result<(libc::c_int, libc::sigaction), DetourError> {
        for signal in libc::SIGRTMIN() + FIRST_RT_OFFSET..=libc::SIGRTMAX() {
            // SAFETY: querying a disposition with a null new action changes nothing.
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            if unsafe { libc::sigaction(signal, std::ptr::null(), &mut old) } != 0 {
                continue;
            }
            if old.sa_sigaction != libc::SIG_DFL {
                continue;
            }
            // SAFETY: `on_signal` is async-signal-safe; the action is fully initialised.
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            unsafe { libc::sigemptyset(&mut action.sa_mask) };
            if unsafe { libc::sigaction(signal, &action, &mut old) } != 0 {
                return Err(os_error("sigaction"));
            }
            return Ok((signal, old));
        }
        Err(DetourError::NoFreeSignal)
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use super::{DetourError, DetourSchedule, DetourStats};
    use crate::delay::DetourSpec;

    /// Detour injection is Linux only; [`DetourInjector::start`] always fails here.
    pub struct DetourInjector {
        _private: (),
    }

    impl DetourInjector {
        /// Always [`DetourError::Unsupported`] on this platform.
        pub fn start(spec: DetourSpec, _first_fire_in_s: f64) -> Result<Self, DetourError> {
            spec.validate().map_err(DetourError::Spec)?;
            Err(DetourError::Unsupported)
        }

        /// Always [`DetourError::Unsupported`] on this platform.
        pub fn start_schedule(_: &DetourSchedule, _: f64) -> Result<Self, DetourError> {
            Err(DetourError::Unsupported)
        }

        /// Never reached: no injector can be started here.
        pub fn set_gate(&self, _open: bool) {}

        /// Never reached: no injector can be started here.
        pub fn stop_with_events(self) -> (DetourStats, Vec<[f64; 2]>) {
            (self.stop(), Vec::new())
        }

        /// Never reached: no injector can be started here.
        pub fn stop(self) -> DetourStats {
            DetourStats {
                fired: 0,
                missed: 0,
                skipped: 0,
                lost_s: 0.0,
                elapsed_s: 0.0,
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::delay::DetourSpec;

    #[test]
    fn bad_first_fire_is_rejected() {
        let spec: DetourSpec = "1kHz,10us".parse().unwrap();
        assert!(matches!(
            DetourInjector::start(spec, f64::NAN),
            Err(DetourError::FirstFire(_))
        ));
        let bad = DetourSpec {
            freq_hz: 1e3,
            duration_s: 2e-3,
            phase: crate::delay::DetourPhase::Synchronized,
        };
        assert!(matches!(
            DetourInjector::start(bad, 0.0),
            Err(DetourError::Spec(DetourSpecError::TooLong { .. }))
        ));
    }
}
