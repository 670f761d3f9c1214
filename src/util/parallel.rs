//! Work on several items at a time with results handed on in the items'
//! order (`polyfold -j N`): what is printed does not depend on which
//! thread finished first.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// The stack of each worker thread: parsing deeply nested C recurses (the
/// binary's main worker has the same).
const STACK: usize = 512 << 20;

/// Runs `work` on every item of `items`, on up to `jobs` threads, and
/// calls `done(index, result)` on the calling thread in the order of the
/// items, each as soon as it and every item before it are finished. With
/// `jobs` ≤ 1 (or one item) everything runs on the calling thread, one
/// item after the other. A worker that cannot be started leaves its share
/// to the others (and to the calling thread when none starts).
pub fn in_order<T, R>(
    items: &[T],
    jobs: usize,
    work: impl Fn(&T) -> R + Sync,
    mut done: impl FnMut(usize, R),
) where
    T: Sync,
    R: Send,
{
    if jobs <= 1 || items.len() <= 1 {
        for (k, item) in items.iter().enumerate() {
            let result = work(item);
            done(k, result);
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let (send, receive) = mpsc::channel::<(usize, R)>();
    let work = &work;
    let next = &next;
    // Results that came before an earlier item's.
    let mut waiting: BTreeMap<usize, R> = BTreeMap::new();
    let mut expected = 0usize;
    let started = std::thread::scope(|scope| {
        let mut started = 0usize;
        for k in 0..jobs.min(items.len()) {
            let send = send.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("worker {k}"))
                .stack_size(STACK)
                .spawn_scoped(scope, move || {
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(at) else { break };
                        if send.send((at, work(item))).is_err() {
                            break;
                        }
                    }
                });
            if spawned.is_ok() {
                started += 1;
            }
        }
        drop(send);
        for (at, result) in receive.iter() {
            waiting.insert(at, result);
            while let Some(result) = waiting.remove(&expected) {
                done(expected, result);
                expected += 1;
            }
        }
        started
    });
    // No worker started: the items run here.
    if started == 0 {
        for (k, item) in items.iter().enumerate().skip(expected) {
            let result = work(item);
            done(k, result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_order_of_the_items_whatever_finishes_first() {
        let items: Vec<u64> = (0..40).collect();
        for jobs in [1, 2, 3, 8] {
            let mut seen = Vec::new();
            in_order(
                &items,
                jobs,
                |&k| {
                    // Early items take longest, so later ones finish first.
                    std::thread::sleep(std::time::Duration::from_millis(40 - k));
                    k * k
                },
                |index, result| seen.push((index, result)),
            );
            let expected: Vec<(usize, u64)> = items.iter().map(|&k| (k as usize, k * k)).collect();
            assert_eq!(seen, expected, "jobs {jobs}");
        }
    }
}
