//! A progress line on stderr for long runs (issue 22): what polyfold is
//! working on, `polyfold [4 s] k.c: SCoP 0 (kernel): y: lattice
//! strategies`.
//!
//! Only the binary turns it on ([`Progress::start`]), never with `-q`. On
//! a terminal ([`Display::Terminal`]) the line is redrawn in place about
//! four times a second once a run has taken a second, and erased when the
//! run ends, so that what remains on the terminal is what polyfold
//! printed. In logs and pipes ([`Display::Log`], issue 53) it is printed
//! as a line of its own every ten seconds, so a run of less than ten
//! seconds (every test's) prints none. Nothing here can change a result
//! (the library only records where it is, [`stage`] and [`set_file`]; the
//! drawing thread reads it).

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where the run is; `None` parts are not shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Place {
    file: Option<String>,
    scop: Option<String>,
    array: Option<String>,
    step: Option<String>,
}

static PLACE: Mutex<Place> = Mutex::new(Place {
    file: None,
    scop: None,
    array: None,
    step: None,
});

/// Whether a drawing thread runs (recording is skipped otherwise).
static ON: AtomicBool = AtomicBool::new(false);

fn with_place(f: impl FnOnce(&mut Place)) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    if let Ok(mut place) = PLACE.lock() {
        f(&mut place);
    }
}

/// The file being processed (clears the rest).
pub fn set_file(path: &str) {
    with_place(|p| {
        *p = Place {
            file: Some(path.to_string()),
            ..Place::default()
        }
    });
}

/// The SCoP, array (or `None` for a step of the whole SCoP) and step being
/// worked on.
pub fn stage(scop: &str, array: Option<&str>, step: &str) {
    with_place(|p| {
        p.scop = Some(scop.to_string());
        p.array = array.map(str::to_string);
        p.step = Some(step.to_string());
    });
}

/// The step being worked on, in the same SCoP and array.
pub fn step(step: &str) {
    with_place(|p| p.step = Some(step.to_string()));
}

/// The text of the progress line for `place` after `elapsed`, cut to
/// `width` characters.
fn line(place: &Place, elapsed: Duration, width: usize) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(place.file.clone());
    parts.extend(place.scop.clone());
    parts.extend(place.array.clone());
    parts.extend(place.step.clone());
    let text = format!("polyfold [{} s] {}", elapsed.as_secs(), parts.join(": "));
    text.chars().take(width.max(1)).collect()
}

/// How the progress line is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Display {
    Off,
    /// Redrawn in place (stderr is a terminal).
    Terminal,
    /// A line of its own every [`LOG_PERIOD`] (stderr is a file or a pipe).
    Log,
}

impl Display {
    /// The display for a stderr that is a terminal or not, off with `quiet`.
    pub fn for_stderr(is_terminal: bool, quiet: bool) -> Display {
        match (quiet, is_terminal) {
            (true, _) => Display::Off,
            (false, true) => Display::Terminal,
            (false, false) => Display::Log,
        }
    }
}

/// How often [`Display::Log`] prints a line.
pub const LOG_PERIOD: Duration = Duration::from_secs(10);

/// The drawing thread; dropping it (or [`Progress::finish`]) stops it and
/// erases the line.
pub struct Progress {
    stop: std::sync::Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts drawing as `display` says: on a terminal nothing for the
    /// first second, then the line every quarter of a second; in a log a
    /// line after every ten seconds.
    pub fn start(display: Display) -> Progress {
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        if display == Display::Off {
            return Progress { stop, thread: None };
        }
        ON.store(true, Ordering::Relaxed);
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                let start = Instant::now();
                let width = std::env::var("COLUMNS")
                    .ok()
                    .and_then(|c| c.parse::<usize>().ok())
                    .unwrap_or(80)
                    .saturating_sub(1);
                let mut drawn = false;
                let mut logged = 0u32;
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(250));
                    let elapsed = start.elapsed();
                    let place = || PLACE.lock().map(|p| p.clone()).unwrap_or_default();
                    if display == Display::Log {
                        if elapsed >= LOG_PERIOD * (logged + 1) {
                            logged += 1;
                            let text = line(&place(), elapsed, usize::MAX);
                            let _ = writeln!(std::io::stderr().lock(), "{text}");
                        }
                        continue;
                    }
                    if elapsed < Duration::from_secs(1) {
                        continue;
                    }
                    let text = line(&place(), elapsed, width);
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r\x1b[2K{text}");
                    let _ = err.flush();
                    drawn = true;
                }
                if drawn {
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r\x1b[2K");
                    let _ = err.flush();
                }
            })
            .ok();
        Progress { stop, thread }
    }

    /// Stops drawing and erases the line (before the run prints).
    pub fn finish(mut self) {
        self.stop_thread();
    }

    fn stop_thread(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        ON.store(false, Ordering::Relaxed);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_file_scop_array_and_step() {
        let place = Place {
            file: Some("k.c".into()),
            scop: Some("SCoP 0 (kernel)".into()),
            array: Some("y".into()),
            step: Some("optimal lattice search".into()),
        };
        assert_eq!(
            line(&place, Duration::from_millis(4200), 200),
            "polyfold [4 s] k.c: SCoP 0 (kernel): y: optimal lattice search"
        );
        assert_eq!(
            line(&place, Duration::from_secs(4), 18),
            "polyfold [4 s] k.c"
        );
        let merged = Place {
            array: None,
            step: Some("inter-array merging".into()),
            ..place
        };
        assert_eq!(
            line(&merged, Duration::from_secs(2), 200),
            "polyfold [2 s] k.c: SCoP 0 (kernel): inter-array merging"
        );
    }

    #[test]
    fn nothing_is_recorded_while_off() {
        set_file("a.c");
        stage("SCoP 0", Some("t"), "successive modulo");
        assert_eq!(*PLACE.lock().expect("lock"), Place::default());
    }
}
