//! Log lines written to stderr by a thread of their own, in batches.
//!
//! A request logs a line when it completes. Written straight to stderr,
//! that line is a `write(2)` on the worker thread that served the request:
//! a system call per request (about a tenth of a `LegalMoves` call's CPU
//! time, issue 11), and a request held up whenever the pipe a container's
//! logs go to is full. [`BatchedWriter`] instead appends each line to a
//! buffer under a lock (a copy of a few hundred bytes) and a writer thread
//! writes what has gathered, in one call:
//!
//! - **Order and whole lines.** One buffer in the order lines were
//!   handed over; each line is appended whole (tracing-subscriber hands
//!   over a line in one `write`).
//! - **Delay.** A line waits at most [`GATHER`] plus the time the previous
//!   batch takes to write: the thread, woken by the first line into an
//!   empty buffer, waits [`GATHER`] for more before it writes. An idle
//!   server's thread sleeps until a line comes (no timer).
//! - **No line lost, memory bounded.** When [`MAX_PENDING`] bytes are
//!   waiting (the output cannot keep up), the thread that logs writes
//!   them itself, as every line was written before, under the lock (so
//!   the order holds).
//! - **Exit.** Dropping the [`BatchedWriter`] (the telemetry guard, when
//!   `main` returns) writes what is pending and joins the thread; a line
//!   logged after that is written when it is logged. A process killed
//!   outright (`SIGKILL`) loses the lines of its last [`GATHER`].
//!
//! Write errors are ignored, as tracing-subscriber ignores them: a log
//! whose reader has gone must not stop the service.

use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long the writer thread waits, once a line is pending, for more
/// lines to write with it. Each write has a cost of its own besides the
/// bytes (the system call, waking the thread, a file system's partly
/// written block): at 2 ms the thread took 1.7 to 2.0 µs per gRPC
/// request under load, at 10 ms 1.3 to 1.5 µs (issue 11). Nobody reads a
/// log 10 ms late.
pub const GATHER: Duration = Duration::from_millis(10);

/// The most bytes left pending: past it, the thread that logs writes the
/// pending lines itself.
pub const MAX_PENDING: usize = 1 << 20;

/// Lines handed to a writer thread (see the module's documentation);
/// [`BatchedWriter::handle`] gives what appends them.
#[derive(Debug)]
pub struct BatchedWriter<W: Write + Send + 'static> {
    shared: Arc<Shared<W>>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared<W> {
    state: Mutex<State>,
    /// Signalled when a line arrives in an empty buffer while the thread
    /// waits, and at close.
    wake: Condvar,
    /// The output, locked by whoever writes to it (the thread, or a logger
    /// over [`MAX_PENDING`]); taken under `state`'s lock, so batches keep
    /// their order.
    out: Mutex<W>,
}

#[derive(Debug, Default)]
struct State {
    pending: Vec<u8>,
    /// The thread waits on `wake` (only then is it woken: a line arriving
    /// while it gathers or writes costs no system call).
    waiting: bool,
    closed: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves a buffer of whole lines.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<W: Write + Send + 'static> BatchedWriter<W> {
    /// Starts the writer thread over `out`. Should the thread not start,
    /// each line is written to `out` when it is logged, as after a drop.
    pub fn spawn(out: W) -> BatchedWriter<W> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            out: Mutex::new(out),
        });
        let thread = std::thread::Builder::new()
            .name("bgref-log".to_owned())
            .spawn({
                let shared = shared.clone();
                move || shared.run()
            })
            .ok();
        if thread.is_none() {
            lock(&shared.state).closed = true;
        }
        BatchedWriter { shared, thread }
    }

    /// A handle that appends lines (tracing-subscriber's `MakeWriter`).
    #[must_use]
    pub fn handle(&self) -> LineHandle<W> {
        LineHandle {
            shared: self.shared.clone(),
        }
    }
}

impl<W: Write + Send + 'static> Drop for BatchedWriter<W> {
    fn drop(&mut self) {
        lock(&self.shared.state).closed = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl<W: Write> Shared<W> {
    /// The writer thread: waits for lines, gathers, writes; at close,
    /// writes what is left and ends.
    fn run(&self) {
        let mut spare = Vec::new();
        loop {
            let mut state = lock(&self.state);
            while state.pending.is_empty() && !state.closed {
                state.waiting = true;
                state = self
                    .wake
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                state.waiting = false;
            }
            if state.pending.is_empty() {
                // Closed, nothing left.
                return;
            }
            if !state.closed {
                drop(state);
                std::thread::sleep(GATHER);
                state = lock(&self.state);
            }
            std::mem::swap(&mut state.pending, &mut spare);
            let mut out = lock(&self.out);
            drop(state);
            let _ = out.write_all(&spare).and_then(|()| out.flush());
            drop(out);
            spare.clear();
        }
    }

    /// Appends `line`; wakes the thread if it waits; writes the pending
    /// lines here if there are too many, or if the thread has ended (a
    /// line logged after the drop).
    fn append(&self, line: &[u8]) {
        let mut state = lock(&self.state);
        state.pending.extend_from_slice(line);
        if state.pending.len() >= MAX_PENDING || state.closed {
            let mut out = lock(&self.out);
            let _ = out.write_all(&state.pending).and_then(|()| out.flush());
            state.pending.clear();
        } else if state.waiting {
            state.waiting = false;
            drop(state);
            self.wake.notify_one();
        }
    }
}

/// Appends lines to a [`BatchedWriter`]'s buffer.
#[derive(Debug)]
pub struct LineHandle<W> {
    shared: Arc<Shared<W>>,
}

impl<W> Clone for LineHandle<W> {
    fn clone(&self) -> LineHandle<W> {
        LineHandle {
            shared: self.shared.clone(),
        }
    }
}

impl<W: Write> Write for &LineHandle<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.shared.append(bytes);
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.shared.append(bytes);
        Ok(())
    }

    /// The lines are written by the thread; nothing to do here.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a, W: Write + 'a> tracing_subscriber::fmt::MakeWriter<'a> for LineHandle<W> {
    type Writer = &'a LineHandle<W>;

    fn make_writer(&'a self) -> Self::Writer {
        self
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use super::{BatchedWriter, MAX_PENDING};

    /// An output that records each write call.
    #[derive(Debug, Clone, Default)]
    struct Recorded(Arc<Mutex<Vec<Vec<u8>>>>);

    impl std::io::Write for Recorded {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().push(bytes.to_vec());
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Recorded {
        fn bytes(&self) -> Vec<u8> {
            self.0.lock().unwrap().concat()
        }

        fn writes(&self) -> usize {
            self.0.lock().unwrap().len()
        }
    }

    #[test]
    fn lines_from_many_threads_arrive_whole_in_order_per_thread_and_all_by_drop() {
        let out = Recorded::default();
        let writer = BatchedWriter::spawn(out.clone());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let handle = writer.handle();
                std::thread::spawn(move || {
                    for i in 0..2_000 {
                        let line = format!("thread {t} line {i} {}\n", "x".repeat(i % 50));
                        (&handle).write_all(line.as_bytes()).unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        drop(writer);
        let text = String::from_utf8(out.bytes()).unwrap();
        let mut next = [0usize; 4];
        let mut lines = 0;
        for line in text.lines() {
            let words: Vec<&str> = line.split(' ').collect();
            let (t, i): (usize, usize) = (words[1].parse().unwrap(), words[3].parse().unwrap());
            assert_eq!(i, next[t], "thread {t}'s lines in order");
            assert_eq!(words[4], "x".repeat(i % 50), "a whole line");
            next[t] += 1;
            lines += 1;
        }
        assert_eq!(lines, 8_000);
        // Batched: far fewer writes than lines.
        assert!(out.writes() < 8_000, "{} writes", out.writes());
    }

    #[test]
    fn a_line_is_written_soon_without_more_lines_or_a_drop() {
        let out = Recorded::default();
        let writer = BatchedWriter::spawn(out.clone());
        (&writer.handle()).write_all(b"one line\n").unwrap();
        // Not a timing assertion: waits up to 10 s for the thread.
        let start = Instant::now();
        while out.bytes().is_empty() && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(out.bytes(), b"one line\n");
        drop(writer);
        assert_eq!(out.writes(), 1);
    }

    #[test]
    fn a_line_logged_after_the_drop_is_written_at_once() {
        let out = Recorded::default();
        let writer = BatchedWriter::spawn(out.clone());
        let handle = writer.handle();
        (&handle).write_all(b"before\n").unwrap();
        drop(writer);
        assert_eq!(out.bytes(), b"before\n");
        (&handle).write_all(b"after\n").unwrap();
        assert_eq!(out.bytes(), b"before\nafter\n");
    }

    #[test]
    fn past_the_limit_the_logger_writes_the_pending_lines_itself() {
        /// An output that blocks until released: the thread stays in its
        /// first write while the lines pile up.
        struct Gate(Arc<Mutex<()>>, Recorded);
        impl std::io::Write for Gate {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                drop(self.0.lock().unwrap());
                self.1.write(bytes)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let gate = Arc::new(Mutex::new(()));
        let out = Recorded::default();
        let writer = BatchedWriter::spawn(Gate(gate.clone(), out.clone()));
        let handle = writer.handle();
        let line = [b'y'; 1000];
        let held = gate.lock().unwrap();
        (&handle).write_all(&line).unwrap();
        // Wait until the thread has taken that line (it then blocks in
        // the gate, holding the output).
        while !super::lock(&handle.shared.state).pending.is_empty() {
            std::thread::sleep(Duration::from_millis(1));
        }
        // Below the limit: the lines wait.
        let lines = MAX_PENDING.div_ceil(line.len());
        for _ in 0..lines - 1 {
            (&handle).write_all(&line).unwrap();
        }
        assert_eq!(
            super::lock(&handle.shared.state).pending.len(),
            (lines - 1) * line.len()
        );
        // The line that reaches the limit makes this thread write them,
        // once the output is free.
        let logger = {
            let handle = handle.clone();
            std::thread::spawn(move || (&handle).write_all(&line).unwrap())
        };
        std::thread::sleep(Duration::from_millis(20));
        drop(held);
        logger.join().unwrap();
        assert!(super::lock(&handle.shared.state).pending.is_empty());
        drop(handle);
        drop(writer);
        assert_eq!(out.bytes().len(), (lines + 1) * line.len());
    }
}
