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
        if self.steps_left % 1024 == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() > d {
                    self.steps_left = 0;
                    return Err(PolyError::Budget);
                }
            }
        }
        Ok(())
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
