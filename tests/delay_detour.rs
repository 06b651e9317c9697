//! OS-noise detours on a real POSIX timer. Bounds are generous: the machine may be loaded.
#![cfg(target_os = "linux")]

use delaybench::delay::{DetourError, DetourInjector, DetourSpec, DetourSpecError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One injector per process: the tests of this file take turns.
static TURN: Mutex<()> = Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

fn busy(for_s: f64) {
    let end = Instant::now() + Duration::from_secs_f64(for_s);
    while Instant::now() < end {
        std::hint::spin_loop();
    }
}

/// CPU time of the calling thread, seconds.
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer; the thread CPU clock always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[test]
fn detours_take_their_share_of_cpu() {
    let _turn = turn();
    let spec: DetourSpec = "1kHz,20us".parse().unwrap();
    let cpu0 = thread_cpu_s();
    let injector = DetourInjector::start(spec, 0.0).unwrap();
    busy(0.4);
    let stats = injector.stop();
    let cpu_s = thread_cpu_s() - cpu0;
    let report = format!("{stats:?}, thread CPU time {cpu_s:.3} s");
    assert!(stats.elapsed_s >= 0.4, "{report}");
    // The timer expires freq * elapsed times whatever the load; expirations while the thread
    // waits for a CPU merge into one signal and count as missed.
    let expirations = (stats.fired + stats.missed) as f64;
    let expected = spec.freq_hz * stats.elapsed_s;
    assert!(
        (0.5 * expected..=1.5 * expected).contains(&expirations),
        "{report}: expected about {expected:.0} expirations"
    );
    // Detours happen while the thread has a CPU: on an idle machine (CPU time = elapsed) this
    // is fired = freq * elapsed and lost = freq * duration * elapsed, within 0.5x-1.5x.
    let on_cpu = spec.freq_hz * cpu_s;
    assert!(
        stats.fired as f64 >= 0.5 * on_cpu && stats.fired as f64 <= 1.5 * expected,
        "{report}: expected about {on_cpu:.0} detours"
    );
    let lost = spec.cpu_fraction() * cpu_s;
    assert!(
        stats.lost_s >= 0.5 * lost && stats.lost_s <= 1.5 * spec.cpu_fraction() * stats.elapsed_s,
        "{report}: expected about {lost:.4} s lost"
    );
    // Every detour lasts at least its duration.
    assert!(
        stats.lost_s >= stats.fired as f64 * spec.duration_s * 0.999,
        "{report}"
    );
}

#[test]
fn first_fire_is_honoured() {
    let _turn = turn();
    let spec: DetourSpec = "1kHz,10us".parse().unwrap();
    let injector = DetourInjector::start(spec, 0.5).unwrap();
    busy(0.1);
    let stats = injector.stop();
    assert_eq!(stats.fired, 0, "{stats:?}");
}

#[test]
fn one_injector_at_a_time_and_restartable() {
    let _turn = turn();
    let spec: DetourSpec = "100Hz,10us".parse().unwrap();
    let first = DetourInjector::start(spec, 0.0).unwrap();
    assert!(matches!(
        DetourInjector::start(spec, 0.0),
        Err(DetourError::AlreadyActive)
    ));
    drop(first);
    // Dropping stopped it; a new one starts, and stop restores the old disposition, so no
    // late signal can kill the process afterwards.
    let second = DetourInjector::start(spec, 0.0).unwrap();
    busy(0.05);
    let stats = second.stop();
    assert!(stats.fired >= 1, "{stats:?}");
    busy(0.05);
}

#[test]
fn blocking_system_calls_are_restarted() {
    let _turn = turn();
    let mut fds = [0; 2];
    // SAFETY: a valid array for the two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        // SAFETY: writes one byte from a valid buffer to the pipe's write end.
        unsafe { libc::write(fds[1], b"x".as_ptr().cast(), 1) }
    });
    let injector = DetourInjector::start("1kHz,10us".parse().unwrap(), 0.0).unwrap();
    let mut byte = [0u8; 1];
    // SAFETY: reads into a valid one-byte buffer; blocks until the writer writes.
    let n = unsafe { libc::read(fds[0], byte.as_mut_ptr().cast(), 1) };
    let err = std::io::Error::last_os_error();
    let stats = injector.stop();
    assert_eq!(n, 1, "read failed with {err} after {stats:?}");
    assert!(
        stats.fired >= 10,
        "the read should have been interrupted: {stats:?}"
    );
    assert_eq!(writer.join().unwrap(), 1);
    // SAFETY: closing the descriptors this test opened.
    unsafe {
        libc::close(fds[0]);
        libc::close(fds[1]);
    }
}

#[test]
fn bad_specs_are_refused() {
    let err = |s: &str| s.parse::<DetourSpec>().unwrap_err();
    assert!(matches!(err("1kHz,1ms"), DetourSpecError::TooLong { .. }));
    assert!(matches!(
        err("1000,10us"),
        DetourSpecError::Frequency { .. }
    ));
    assert!(matches!(err("1kHz"), DetourSpecError::Arguments { .. }));
    assert!(err("10kHz,200us")
        .to_string()
        .contains("shorter than the period"));
}

/// CLOCK_MONOTONIC, seconds: the injector's clock, used here as the global clock.
fn monotonic_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[test]
fn a_schedule_replays_at_its_instants_and_logs_each_detour() {
    use delaybench::delay::DetourSchedule;
    let _turn = turn();
    // A 50 ms recording with detours at +5 ms (200 us) and +30 ms (100 us), repeated, shifted
    // by 7 ms: due at 7 + 5 + 50 k and 7 + 30 + 50 k ms of the (monotonic) global clock.
    let schedule = DetourSchedule::new(&[10.005, 10.030], &[200e-6, 100e-6], 10.0, 0.05, 0.007);
    let injector = DetourInjector::start_schedule(&schedule, monotonic_s()).unwrap();
    busy(0.5);
    let (stats, events) = injector.stop_with_events();
    assert_eq!(events.len() as u64, stats.fired, "{stats:?}");
    // 0.5 s: about 20 due; a loaded machine may delay or merge some.
    assert!(stats.fired >= 10 && stats.fired <= 22, "{stats:?}");
    let mut on_time = 0;
    for [start, len] in &events {
        let due = schedule.due_between(start - 0.02, start + 1e-4);
        let (t, l) = *due
            .iter()
            .rev()
            .find(|&&(t, _)| t <= start + 1e-4)
            .unwrap_or_else(|| panic!("nothing due before {start}: {events:?}"));
        assert!(*len >= 0.999 * l, "ran {len} s for a {l} s detour");
        if start - t < 2e-3 {
            on_time += 1;
        }
    }
    assert!(
        on_time * 2 >= events.len(),
        "{on_time} of {} on time: {events:?}",
        events.len()
    );
    // An empty schedule is refused.
    let empty = DetourSchedule::new(&[], &[], 0.0, 1.0, 0.0);
    assert!(matches!(
        DetourInjector::start_schedule(&empty, monotonic_s()),
        Err(DetourError::EmptySchedule)
    ));
}
