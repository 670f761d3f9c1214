//! Budgets for potentially expensive exact computations.

use std::time::{Duration, Instant};

use super::error::{PolyError, PolyResult};

/// A step count and an optional deadline. Solvers call [`Budget::tick`] in
/// their loops; when it fails they return [`PolyError::Budget`] and the
/// caller falls back to a safe choice.
#[derive(Clone, Debug)]
pub struct Budget {
    steps_left: u64,
    deadline: Option<Instant>,
}

impl Budget {
    pub fn new(steps: u64, time: Option<Duration>) -> Budget {
        Budget {
            steps_left: steps,
            deadline: time.map(|t| Instant::now() + t),
        }
    }

    /// A generous default for one query.
    pub fn default_query() -> Budget {
        Budget::new(2_000_000, Some(Duration::from_secs(10)))
    }

    pub fn steps(steps: u64) -> Budget {
        Budget::new(steps, None)
    }

    /// Consumes one step.
    pub fn tick(&mut self) -> PolyResult<()> {
        if self.steps_left == 0 {
            return Err(PolyError::Budget);
        }
        self.steps_left -= 1;
        if self.steps_left.is_multiple_of(1024)
            && let Some(d) = self.deadline
            && Instant::now() > d
        {
            self.steps_left = 0;
            return Err(PolyError::Budget);
        }
        Ok(())
    }

    /// Runs `f` with a part of this budget: at most `steps` steps and
    /// `time` of wall clock (and never more than is left here); the steps
    /// `f` used are charged to this budget.
    pub fn with_part<T>(
        &mut self,
        steps: u64,
        time: Duration,
        f: impl FnOnce(&mut Budget) -> T,
    ) -> T {
        let limit = Instant::now() + time;
        let mut part = Budget {
            steps_left: self.steps_left.min(steps),
            deadline: Some(self.deadline.map_or(limit, |d| d.min(limit))),
        };
        let start = part.steps_left;
        let result = f(&mut part);
        self.steps_left -= start - part.steps_left;
        result
    }

    pub fn remaining_time(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
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
}
