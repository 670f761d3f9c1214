//! The campaign's hang verdict counts CPU time, not wall-clock time
//! (`polyfold_fuzz::check::run_guarded`, `wait_child`): a call that waits
//! (as one does on a loaded machine) is not a hang until the far larger
//! wall-clock safety limit, a call that works past its limit is one,
//! including the work of the threads it spawns (polyfold's SMO conflicts
//! run on worker threads).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use polyfold_fuzz::check::{
    FailureKind, WALL_FACTOR, hang_verdict, run_guarded, stat_cpu_ticks, wait_child,
};

/// Spins until `stop` is set (or 20 s passed, so that a failing test
/// leaves no thread spinning for long).
fn spin(stop: &AtomicBool) -> u64 {
    let start = Instant::now();
    let mut x = 1u64;
    while !stop.load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(20) {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        std::hint::black_box(x);
    }
    x
}

#[test]
fn a_call_that_waits_longer_than_the_limit_is_not_a_hang() {
    // 1.2 s asleep under a limit of 0.4 s of CPU time (wall-clock safety
    // limit 4 s): the sleep uses no CPU, as waiting for a busy core does.
    let answer = run_guarded(Duration::from_millis(400), || {
        std::thread::sleep(Duration::from_millis(1200));
        7
    });
    assert_eq!(answer.ok(), Some(7));
}

#[test]
fn a_call_that_works_past_the_limit_is_a_hang_named_by_cpu_time() {
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let answer = run_guarded(Duration::from_millis(300), {
        let stop = stop.clone();
        move || spin(&stop)
    });
    stop.store(true, Ordering::Relaxed);
    let (kind, detail) = answer.expect_err("a spinning call is a hang");
    assert_eq!(kind, FailureKind::Hang);
    assert!(detail.contains("s of CPU time ("), "{detail}");
    // Well before the wall-clock safety limit (3 s), even on a loaded
    // machine.
    assert!(start.elapsed() < Duration::from_millis(300 * WALL_FACTOR as u64));
}

#[test]
fn the_work_of_spawned_threads_counts() {
    // The guarded thread only waits for two scoped workers that spin: its
    // own CPU time stays near 0, theirs is the call's.
    let stop = Arc::new(AtomicBool::new(false));
    let answer = run_guarded(Duration::from_millis(300), {
        let stop = stop.clone();
        move || {
            std::thread::scope(|scope| {
                let a = scope.spawn(|| spin(&stop));
                let b = scope.spawn(|| spin(&stop));
                a.join().unwrap_or(0) ^ b.join().unwrap_or(0)
            })
        }
    });
    stop.store(true, Ordering::Relaxed);
    let (kind, detail) = answer.expect_err("spinning workers make a hang");
    assert_eq!(kind, FailureKind::Hang);
    assert!(detail.contains("s of CPU time ("), "{detail}");
}

#[test]
fn a_call_that_waits_forever_is_a_hang_by_the_wall_clock() {
    // Limit 0.1 s of CPU time: the safety limit is 1 s of wall clock.
    let start = Instant::now();
    let answer = run_guarded(Duration::from_millis(100), || {
        std::thread::sleep(Duration::from_secs(4));
    });
    let (kind, detail) = answer.expect_err("a call asleep for 4 s is a hang");
    assert_eq!(kind, FailureKind::Hang);
    assert!(detail.contains("s of wall clock"), "{detail}");
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_millis(1000), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
}

#[test]
fn verdicts_by_hand() {
    let s = Duration::from_secs;
    // Within both limits.
    assert_eq!(hang_verdict(Some(s(59)), s(599), s(60)), None);
    // Loaded machine: 200 s of wall clock, 50 s of work.
    assert_eq!(hang_verdict(Some(s(50)), s(200), s(60)), None);
    assert!(hang_verdict(Some(s(61)), s(62), s(60)).is_some_and(|v| v.contains("CPU time (")));
    assert!(hang_verdict(Some(s(1)), s(601), s(60)).is_some_and(|v| v.contains("600 s of wall")));
    // No CPU time: the limit is a wall-clock one.
    assert_eq!(hang_verdict(None, s(59), s(60)), None);
    assert!(hang_verdict(None, s(61), s(60)).is_some());
}

#[test]
fn stat_lines_are_read_after_the_command_name() {
    // Fields 14 and 15 of proc(5); the name holds a space and a `)`.
    let line = "4242 (a b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 56 0 0 20 0 1 0 99 0 0";
    assert_eq!(stat_cpu_ticks(line), Some(1234 + 56));
    assert_eq!(stat_cpu_ticks("4242 (x) S 1 2"), None);
}

#[test]
fn a_child_that_sleeps_is_not_killed_one_that_spins_is() {
    // `sleep 1.2` under 0.4 s of CPU time: waits, is not killed.
    let mut child = std::process::Command::new("sleep")
        .arg("1.2")
        .spawn()
        .expect("sleep runs");
    let status = wait_child(&mut child, Duration::from_millis(400));
    assert!(status.is_ok_and(|s| s.success()));
    // A shell loop spinning: killed by its CPU time.
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg("while :; do :; done")
        .spawn()
        .expect("sh runs");
    let start = Instant::now();
    let status = wait_child(&mut child, Duration::from_millis(300));
    let error = status.expect_err("a spinning child is killed");
    assert!(error.contains("s of CPU time ("), "{error}");
    assert!(start.elapsed() < Duration::from_secs(3));
}
