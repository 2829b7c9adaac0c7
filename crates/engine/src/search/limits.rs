//! When a search must stop: at a deadline, after a number of nodes, or when another thread says so
//! (a GUI's ping); checked every few thousand nodes, since reading the clock at each would cost more
//! than the node.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub(crate) struct Limits {
    pub(crate) deadline: Option<Instant>,
    /// Stops a search once it has visited this many nodes (reproducible, unlike a deadline).
    pub(crate) node_limit: Option<u64>,
    pub(crate) stop: Option<Arc<AtomicBool>>,
    /// Nodes between two checks.
    every: u64,
    /// The node count at which `reached` next checks.
    next_check: u64,
    out_of_time: bool,
}

impl Limits {
    /// Limits checked every `every` nodes; none set yet.
    pub(crate) fn new(every: u64) -> Limits {
        Limits {
            deadline: None,
            node_limit: None,
            stop: None,
            every,
            next_check: every,
            out_of_time: false,
        }
    }

    /// A new search, counting its nodes from 0.
    pub(crate) fn restart(&mut self) {
        self.next_check = self.every;
        self.out_of_time = false;
    }

    /// A new search that goes on counting nodes (a stopped one may be asked again).
    pub(crate) fn resume(&mut self) {
        self.out_of_time = false;
    }

    /// Whether the search must stop, with `nodes` visited. Callers may count several nodes between
    /// two calls (the solver's last empties do not call): the check is due at a count, not on a
    /// multiple, so that it is never stepped over.
    #[inline(always)]
    pub(crate) fn reached(&mut self, nodes: u64) -> bool {
        if nodes >= self.next_check {
            self.next_check = nodes + self.every;
            if self.node_limit.is_some_and(|limit| nodes >= limit)
                || self.deadline.is_some_and(|deadline| Instant::now() >= deadline)
                || self.stop.as_ref().is_some_and(|stop| stop.load(Ordering::Relaxed))
            {
                self.out_of_time = true;
            }
        }
        self.out_of_time
    }

    /// Whether a search has stopped, without counting a node.
    #[inline(always)]
    pub(crate) fn stopped(&self) -> bool {
        self.out_of_time
    }
}
