//! Budgets for potentially expensive exact computations.
//!
//! What decides a result is the step count: solvers call [`Budget::tick`]
//! once per unit of work (a pivot, a node, a point), so the same input and
//! flags always stop at the same place, whatever the machine's load. The
//! optional wall-clock limit is only a safety net against a step that takes
//! far longer than expected: when it fires, the budget remembers it
//! ([`Budget::safety_net_fired`]) so that the caller can report that this
//! result may differ between runs, instead of silently changing its output.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::error::{PolyError, PolyResult};

/// A step count and an optional wall-clock safety net. Solvers call
/// [`Budget::tick`] in their loops; when it fails they return
/// [`PolyError::Budget`] and the caller falls back to a safe choice.
#[derive(Clone, Debug)]
pub struct Budget {
    steps_left: u64,
    deadline: Option<Instant>,
    /// Whether the wall-clock safety net stopped this budget (or a part of
    /// it, or a budget [`Budget::absorb`]ed into it).
    net_fired: bool,
}

impl Budget {
    /// `steps` units of work; `safety_net` of wall clock at most (`None`:
    /// no wall-clock limit).
    pub fn new(steps: u64, safety_net: Option<Duration>) -> Budget {
        Budget {
            steps_left: steps,
            deadline: safety_net.map(|t| Instant::now() + t),
            net_fired: false,
        }
    }

    /// A generous default for one query: its steps stop it long before its
    /// safety net does.
    pub(crate) fn default_query() -> Budget {
        Budget::new(2_000_000, Some(Duration::from_secs(60)))
    }

    pub fn steps(steps: u64) -> Budget {
        Budget::new(steps, None)
    }

    /// Consumes one step.
    pub(crate) fn tick(&mut self) -> PolyResult<()> {
        self.charge(1)
    }

    /// Consumes `steps` steps at once (for a loop whose work is known in
    /// advance), checking the safety net each time a multiple of 1024 steps is crossed.
    pub(crate) fn charge(&mut self, steps: u64) -> PolyResult<()> {
        if steps == 0 {
            return Ok(());
        }
        if self.steps_left < steps {
            self.steps_left = 0;
            return Err(PolyError::Budget);
        }
        let before = self.steps_left;
        self.steps_left -= steps;
        // A check whenever a multiple of 1024 is crossed, as for ticks.
        if (before / 1024 != self.steps_left / 1024 || steps >= 1024)
            && let Some(d) = self.deadline
            && Instant::now() > d
        {
            self.steps_left = 0;
            self.net_fired = true;
            return Err(PolyError::Budget);
        }
        Ok(())
    }

    /// Whether the wall-clock safety net stopped this budget, a part of it
    /// or a budget absorbed into it: then what was computed under it may
    /// differ from one run to the next, and the caller says so.
    pub(crate) fn safety_net_fired(&self) -> bool {
        self.net_fired
    }

    /// Takes over `other`'s safety-net flag (for a separate budget that
    /// was used on this one's behalf).
    pub(crate) fn absorb(&mut self, other: &Budget) {
        self.net_fired |= other.net_fired;
    }

    /// Runs `f` with a part of this budget: at most `steps` steps and
    /// `time` of wall clock as its safety net (and never more than is left
    /// here); the steps `f` used, and a fired safety net, are charged to
    /// this budget.
    pub(crate) fn with_part<T>(
        &mut self,
        steps: u64,
        time: Duration,
        f: impl FnOnce(&mut Budget) -> T,
    ) -> T {
        let limit = Instant::now() + time;
        let mut part = Budget {
            steps_left: self.steps_left.min(steps),
            deadline: Some(self.deadline.map_or(limit, |d| d.min(limit))),
            net_fired: false,
        };
        let start = part.steps_left;
        let result = f(&mut part);
        self.steps_left -= start - part.steps_left;
        self.net_fired |= part.net_fired;
        result
    }

    /// Steps left (for reports of how much work a search used).
    pub(crate) fn steps_left(&self) -> u64 {
        self.steps_left
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::default_query()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_charged_to_the_whole_and_stops_at_its_own_limit() {
        let mut whole = Budget::steps(100);
        let used = whole.with_part(10, Duration::from_secs(60), |part| {
            let mut n = 0;
            while part.tick().is_ok() {
                n += 1;
            }
            n
        });
        assert_eq!(used, 10);
        // 90 steps remain in the whole budget.
        let mut left = 0;
        while whole.tick().is_ok() {
            left += 1;
        }
        assert_eq!(left, 90);
        // A part never gets more than the whole has left.
        let mut empty = Budget::steps(0);
        assert!(
            empty
                .with_part(10, Duration::from_secs(60), |p| p.tick())
                .is_err()
        );
    }

    #[test]
    fn steps_decide_and_the_safety_net_is_remembered() {
        // Steps stop a budget deterministically, without the net.
        let mut b = Budget::new(5, Some(Duration::from_secs(3600)));
        let mut n = 0;
        while b.tick().is_ok() {
            n += 1;
        }
        assert_eq!(n, 5);
        assert!(!b.safety_net_fired());
        // A net that has already passed fires at the next check (every 1024
        // steps), and a part's firing reaches the whole.
        let mut whole = Budget::new(u64::MAX, None);
        let fired = whole.with_part(1 << 20, Duration::ZERO, |part| {
            while part.tick().is_ok() {}
            part.safety_net_fired()
        });
        assert!(fired);
        assert!(whole.safety_net_fired());
        let mut other = Budget::steps(1);
        assert!(!other.safety_net_fired());
        other.absorb(&whole);
        assert!(other.safety_net_fired());
    }
}

/// A work count shared by several searches (through a reference, on one
/// thread or several): `work` units in all decide where they stop, so a run
/// gives the same answer on any machine under any load; `safety_net` is a
/// wall-clock limit that only stops a pathological case, and
/// [`WorkLimit::net_fired`] tells the caller it did (the result may then
/// differ between runs). The global conflict set counts conflict pieces
/// built, the shared-hyperplane search pieces examined, SMO's ILPs
/// branch-and-bound nodes. ([`Budget`] is the owned form, for one query.)
#[derive(Debug)]
pub struct WorkLimit {
    pub work: u64,
    pub safety_net: Option<Instant>,
    used: AtomicU64,
    net_fired: AtomicBool,
}

impl WorkLimit {
    /// `work` units in all, and a wall-clock safety net.
    pub fn new(work: u64, safety_net: Option<Instant>) -> WorkLimit {
        WorkLimit {
            work,
            safety_net,
            used: AtomicU64::new(0),
            net_fired: AtomicBool::new(false),
        }
    }

    /// No limit at all.
    pub fn unlimited() -> WorkLimit {
        WorkLimit::new(u64::MAX, None)
    }

    /// Units counted so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// Whether the safety net stopped a search.
    pub(crate) fn net_fired(&self) -> bool {
        self.net_fired.load(Ordering::Relaxed)
    }

    /// Records that the safety net stopped a search (one that checks its
    /// own deadline).
    pub(crate) fn fire(&self) {
        self.net_fired.store(true, Ordering::Relaxed);
    }

    /// Units left.
    pub fn left(&self) -> u64 {
        self.work.saturating_sub(self.used())
    }

    /// Counts `units` of work done.
    pub(crate) fn charge(&self, units: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_add(units))
            });
    }

    /// One unit of work, for a search that stops at the first `Err`: the
    /// work is spent, or the safety net fired (remembered).
    pub(crate) fn tick(&self) -> PolyResult<()> {
        if self.used.fetch_add(1, Ordering::Relaxed) >= self.work {
            return Err(PolyError::Budget);
        }
        if self.safety_net.is_some_and(|d| Instant::now() >= d) {
            self.fire();
            return Err(PolyError::Budget);
        }
        Ok(())
    }

    /// Whether a search must stop: the count reached `work_limit` (at most
    /// `work`), or the safety net fired (which is remembered).
    pub(crate) fn spent(&self, work_limit: u64) -> bool {
        if self.used() >= work_limit.min(self.work) {
            return true;
        }
        if self.safety_net.is_some_and(|d| Instant::now() >= d) {
            self.fire();
            return true;
        }
        false
    }
}
