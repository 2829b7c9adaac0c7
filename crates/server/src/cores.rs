//! The machine's cores, lent one at a time: a game of programs waits in line for one and holds it
//! from its first move to its last; the thread that holds one is pinned to it (the programs it
//! starts inherit the pin), so that no two such games share a core. A computer's move in a
//! person's game takes a core that is free at that moment, or runs unpinned beside the others
//! rather than keep the person waiting (a person's game is not graded).

use std::collections::VecDeque;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

/// The cores games may use, and who waits for one, in order.
pub(crate) struct Cores {
    pool: Mutex<Pool>,
    /// Games played at once.
    places: usize,
    /// Every core this process may run on: a thread that gives its core back may run anywhere again.
    all: Vec<usize>,
}

struct Pool {
    free: Vec<usize>,
    /// The games waiting for a core, in the order they asked.
    waiting: VecDeque<SyncSender<usize>>,
}

/// A core lent to the thread that holds it; given back (to the next in line) when dropped.
pub(crate) struct Core {
    cores: Arc<Cores>,
    id: usize,
}

impl Core {
    #[cfg(test)]
    pub(crate) fn id(&self) -> usize {
        self.id
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        pin(&self.cores.all);
        self.cores.give(self.id);
    }
}

impl Cores {
    /// `count` places for games on the cores this process may run on: one a core unless asked for
    /// more, when they take turns (measured unfair: sharing a core more than doubled the programs'
    /// CPU time a game, docs/server.md).
    pub(crate) fn new(count: usize) -> Cores {
        let all = allowed();
        let free: Vec<usize> = (0..count.max(1)).rev().map(|k| all[k % all.len()]).collect();
        Cores {
            pool: Mutex::new(Pool {
                free,
                waiting: VecDeque::new(),
            }),
            places: count.max(1),
            all,
        }
    }

    /// Games played at once.
    pub(crate) fn places(&self) -> usize {
        self.places
    }

    /// Waits for a core (in the order asked) and pins this thread to it.
    pub(crate) fn take(self: &Arc<Cores>) -> Core {
        let line: Receiver<usize> = {
            let mut pool = self.pool.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if pool.waiting.is_empty()
                && let Some(id) = pool.free.pop()
            {
                drop(pool);
                return self.lend(id);
            }
            let (sender, receiver) = sync_channel(1);
            pool.waiting.push_back(sender);
            receiver
        };
        let id = line.recv().expect("a waiting thread is always handed a core");
        self.lend(id)
    }

    /// A core free now, pinned to, if there is one.
    pub(crate) fn try_take(self: &Arc<Cores>) -> Option<Core> {
        let id = self
            .pool
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .free
            .pop()?;
        Some(self.lend(id))
    }

    fn lend(self: &Arc<Cores>, id: usize) -> Core {
        pin(&[id]);
        Core {
            cores: Arc::clone(self),
            id,
        }
    }

    /// Hands a core to the first in line that still waits, or keeps it free.
    fn give(&self, id: usize) {
        let mut pool = self.pool.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while let Some(next) = pool.waiting.pop_front() {
            if next.send(id).is_ok() {
                return;
            }
        }
        pool.free.push(id);
    }
}

/// The cores this process may run on.
fn allowed() -> Vec<usize> {
    // SAFETY: sched_getaffinity writes the set it is given, of the size it is told.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let found = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } == 0;
    let cores: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
        .filter(|&core| found && unsafe { libc::CPU_ISSET(core, &set) })
        .collect();
    if cores.is_empty() { vec![0] } else { cores }
}

/// Pins the calling thread (and what it starts from now on) to `cores`; a failure leaves it
/// where it was (a machine that refuses pins still plays, unpinned).
fn pin(cores: &[usize]) {
    // SAFETY: the set is built with the libc macros and passed with its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &core in cores {
            libc::CPU_SET(core, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_wait_for_cores_in_order_and_a_move_never_waits() {
        let cores = Arc::new(Cores::new(1));
        let held = cores.take();
        assert!(cores.try_take().is_none(), "no core free: the move runs unpinned");
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut games = Vec::new();
        for name in ["first", "second"] {
            let (lent, order) = (Arc::clone(&cores), Arc::clone(&order));
            let waiting = cores.pool.lock().unwrap().waiting.len();
            games.push(std::thread::spawn(move || {
                let _core = lent.take();
                order.lock().unwrap().push(name);
            }));
            while cores.pool.lock().unwrap().waiting.len() == waiting {
                std::thread::yield_now();
            }
        }
        drop(held);
        for game in games {
            game.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), ["first", "second"]);
        let free = cores.try_take().expect("the core is free again");
        assert!(cores.try_take().is_none());
        drop(free);
        assert_eq!(cores.pool.lock().unwrap().free.len(), 1);
    }

    #[test]
    fn a_thread_holding_a_core_runs_on_it_alone() {
        let cores = Arc::new(Cores::new(1));
        let core = cores.take();
        let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("Cpus_allowed_list:")).unwrap();
        assert_eq!(line.split_whitespace().nth(1), Some(core.id().to_string().as_str()));
    }
}
