//! Developer diagnostics through one facade: library code logs with the
//! `log` crate's macros under a target naming its stage (`smo`, `ilp`,
//! `conflicts`), and the binary installs [`StderrLogger`] for the targets
//! given to `--log`. Nothing is printed unless asked, and what is printed
//! goes to stderr only: a program's output never depends on it.

use log::{Level, LevelFilter, Log, Metadata, Record};
use std::io::Write as _;

/// The targets `--log` accepts.
pub(crate) const TARGETS: &[&str] = &["smo", "ilp", "conflicts"];

/// Prints the debug records of some targets to stderr, as
/// `polyfold[TARGET]: message`.
#[derive(Debug)]
pub struct StderrLogger {
    targets: Vec<String>,
}

impl StderrLogger {
    /// From `--log`'s value: comma-separated targets, or `all`. An unknown
    /// target is an error naming the known ones.
    pub fn parse(spec: &str) -> Result<StderrLogger, String> {
        let mut targets = Vec::new();
        for t in spec.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            if t == "all" {
                targets.extend(TARGETS.iter().map(|t| t.to_string()));
            } else if TARGETS.contains(&t) {
                targets.push(t.to_string());
            } else {
                return Err(format!(
                    "unknown --log target `{t}` (known: {}, all)",
                    TARGETS.join(", ")
                ));
            }
        }
        Ok(StderrLogger { targets })
    }

    /// Installs the logger for the whole process (once; later calls keep
    /// the first logger).
    pub fn install(self) {
        if log::set_boxed_logger(Box::new(self)).is_ok() {
            log::set_max_level(LevelFilter::Debug);
        }
    }
}

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= Level::Debug && self.targets.iter().any(|t| t == metadata.target())
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            let _ = writeln!(
                std::io::stderr(),
                "polyfold[{}]: {}",
                record.target(),
                record.args()
            );
        }
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_unknown_ones_are_refused() {
        let l = StderrLogger::parse("smo, ilp").expect("known targets");
        assert_eq!(l.targets, vec!["smo", "ilp"]);
        let all = StderrLogger::parse("all").expect("all");
        assert_eq!(all.targets.len(), TARGETS.len());
        let e = StderrLogger::parse("smo,fast").expect_err("unknown target");
        assert!(e.contains("`fast`") && e.contains("conflicts"), "{e}");
        let meta = |t| Metadata::builder().level(Level::Debug).target(t).build();
        assert!(l.enabled(&meta("smo")));
        assert!(!l.enabled(&meta("conflicts")));
    }
}
