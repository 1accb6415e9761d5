//! `dyngc run`'s wall clock and progress line. One thread shows what the run is doing (on a
//! terminal) and ends the process once `--timeout` has passed, whatever the main thread is
//! blocked in: pipeline compilation, or a wait on a kernel whose body never returns (the
//! runtime's own limit is only checked when the driver returns control).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the thread redraws and looks at the clock.
const TICK: Duration = Duration::from_millis(100);
/// The progress line appears only for phases longer than this.
const QUIET: Duration = Duration::from_millis(300);

struct State {
    phase: &'static str,
    detail: String,
    /// Set by [`Watch::finish`]: the thread clears the line and stops.
    finished: bool,
}

pub struct Watch {
    state: Arc<Mutex<State>>,
    deadline: Instant,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    /// Starts the clock: `limit` from now, the whole command included.
    pub fn start(limit: Duration, seconds: f64) -> Result<Watch, String> {
        let start = Instant::now();
        let deadline = start
            .checked_add(limit)
            .ok_or_else(|| format!("invalid --timeout `{seconds}`: too large"))?;
        let state = Arc::new(Mutex::new(State {
            phase: "building the kernels",
            detail: String::new(),
            finished: false,
        }));
        let shared = state.clone();
        let thread = std::thread::spawn(move || watch(&shared, start, deadline, seconds));
        Ok(Watch {
            state,
            deadline,
            thread: Some(thread),
        })
    }

    /// What the run does now, for the progress line and the timeout message.
    pub fn phase(&self, phase: &'static str) {
        if let Ok(mut s) = self.state.lock() {
            s.phase = phase;
            s.detail.clear();
        }
    }

    pub fn detail(&self, detail: String) {
        if let Ok(mut s) = self.state.lock() {
            s.detail = detail;
        }
    }

    /// Time left until the deadline.
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// Stops the clock and clears the progress line.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Ok(mut s) = self.state.lock() {
            s.finished = true;
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop();
    }
}

fn watch(state: &Mutex<State>, start: Instant, deadline: Instant, seconds: f64) {
    let tty = std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    loop {
        std::thread::sleep(TICK);
        let Ok(s) = state.lock() else { return };
        if s.finished {
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            return;
        }
        if Instant::now() >= deadline {
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            let _ = std::io::stdout().flush();
            errln!(
                "error: the run did not finish within {seconds:.1} s (it was {})\n  = help: it may need more time (raise --timeout, now {seconds} s), or it may not terminate",
                s.phase
            );
            // The main thread may be blocked inside the driver (compiling, or waiting for a
            // kernel that never returns); `_exit` leaves without running exit handlers that
            // could wait for it. The device is left to the operating system.
            // SAFETY: `_exit` only ends the process.
            unsafe { libc::_exit(1) }
        }
        if start.elapsed() >= QUIET {
            let b = bar.get_or_insert_with(|| {
                let target = if tty {
                    ProgressDrawTarget::stderr()
                } else {
                    ProgressDrawTarget::hidden()
                };
                let b = ProgressBar::with_draw_target(None, target);
                b.set_style(
                    ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                b
            });
            let message = if s.detail.is_empty() {
                s.phase.to_string()
            } else {
                format!("{}: {}", s.phase, s.detail)
            };
            b.set_message(message);
            b.tick();
        }
    }
}
