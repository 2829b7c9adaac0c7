//! Work spread over threads with the results handed back in order: item `k` is reported only after
//! items `0..k`, whatever finished first, so that reports and logs do not depend on the thread count.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `work(k)` for k in `0..total` on `threads` threads and calls `report` with each result in
/// order of k. When `report` returns false, no new item starts and the rest are not reported.
pub fn ordered<T: Send>(
    total: usize,
    threads: usize,
    work: impl Fn(usize) -> T + Sync,
    mut report: impl FnMut(usize, T) -> bool,
) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // A bounded channel: a worker that runs ahead of the report waits, so memory stays bounded
    // however many items there are.
    let threads = threads.clamp(1, total.max(1));
    let (results, received) = mpsc::sync_channel(threads);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let results = results.clone();
            let (next, stop, work) = (&next, &stop, &work);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= total || results.send((index, work(index))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(results);
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        for (index, result) in received {
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&due) {
                if !report(due, result) {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
                due += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_and_a_stop_stops() {
        let mut seen = Vec::new();
        ordered(
            50,
            4,
            |k| k * k,
            |k, v| {
                seen.push((k, v));
                true
            },
        );
        assert_eq!(seen, (0..50).map(|k| (k, k * k)).collect::<Vec<_>>());
        let mut count = 0;
        ordered(
            1000,
            3,
            |k| k,
            |k, _| {
                count += 1;
                k < 9
            },
        );
        assert_eq!(count, 10);
    }
}
