//! Where a running launch is: the simulated ranks' rank 0 appends a line per simulated call
//! to a progress file (`smpi/delaybench_smpi.c`, its PROGRESS argument), and while the
//! simulator runs a thread here reads the last line and prints it every
//! [`PROGRESS_EVERY`]. One P of a study at scale runs for minutes to tens of minutes
//! (docs/simulate.md) and, before this, said nothing until it ended.

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How often a running launch says where it is. A P shorter than this prints nothing
/// beyond its end line.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(20);

/// Rank 0's last simulated call, from one progress line `BLOCK BLOCKS warmup|rep DONE TOTAL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    /// The block, from 1.
    pub block: u32,
    /// Blocks in the launch.
    pub blocks: u32,
    /// True for a measured repetition, false for a warm-up call.
    pub repetition: bool,
    /// Calls of that phase done, from 1.
    pub done: u32,
    /// Calls of that phase in the block (warm-up calls beyond the steady state are not
    /// simulated, so the warm-up may end before `total`).
    pub total: u32,
}

impl Position {
    /// The last complete line of a progress file's `text`, or `None` before the first call
    /// (the simulator still starting its ranks) and for a line that does not parse.
    pub fn last_of(text: &str) -> Option<Position> {
        // A line is complete once its newline is written: the last piece after the final
        // newline may be half a line.
        let complete = &text[..text.rfind('\n')?];
        let line = complete.rsplit('\n').next()?;
        let f: Vec<&str> = line.split_whitespace().collect();
        let [block, blocks, phase, done, total] = f[..] else {
            return None;
        };
        let repetition = match phase {
            "rep" => true,
            "warmup" => false,
            _ => return None,
        };
        Some(Position {
            block: block.parse().ok()?,
            blocks: blocks.parse().ok()?,
            repetition,
            done: done.parse().ok()?,
            total: total.parse().ok()?,
        })
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // In the words of the P's end line ("6 of 20 repetitions simulated"): the totals are
        // the calls the launch simulates, fewer than the plan's when equal repetitions are
        // simulated once (super::distinct).
        let what = if self.repetition {
            "repetitions"
        } else {
            "warm-up calls"
        };
        write!(
            f,
            "block {} of {}, {} of {} {what} simulated",
            self.block, self.blocks, self.done, self.total
        )
    }
}

/// The line printed for P = `p` at `elapsed` since its launch, at `position`.
pub fn progress_line(p: u32, position: Option<&Position>, elapsed: Duration) -> String {
    let at = position.map_or_else(|| "no call simulated yet".to_owned(), |x| x.to_string());
    format!(
        "delaybench: simulating P = {p}: {at}, {:.0} s so far",
        elapsed.as_secs_f64()
    )
}

/// Runs `wait` (the launch's wait for its simulator) while a thread hands `say`, every
/// `every`, where P = `p` is from the progress file `file` ([`progress_line`]; the launch
/// prints it on stderr); the thread ends as soon as `wait` returns. Returns what `wait`
/// returns.
pub fn while_watching<T>(
    file: &Path,
    p: u32,
    every: Duration,
    say: impl Fn(String) + Send,
    wait: impl FnOnce() -> T,
) -> T {
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let start = Instant::now();
            // Each timeout is one more line; the sender's drop ends the thread.
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let text = std::fs::read_to_string(file).unwrap_or_default();
                say(progress_line(
                    p,
                    Position::last_of(&text).as_ref(),
                    start.elapsed(),
                ));
            }
        });
        let out = wait();
        drop(stop);
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_complete_line_is_the_position() {
        let text = "1 2 warmup 1 10\n1 2 warmup 2 10\n1 2 rep 1 100\n2 2 rep 4";
        let at = Position::last_of(text).unwrap();
        assert_eq!(
            at,
            Position {
                block: 1,
                blocks: 2,
                repetition: true,
                done: 1,
                total: 100
            }
        );
        assert_eq!(
            at.to_string(),
            "block 1 of 2, 1 of 100 repetitions simulated"
        );
        let warm = Position::last_of("1 1 warmup 3 10\n").unwrap();
        assert_eq!(
            warm.to_string(),
            "block 1 of 1, 3 of 10 warm-up calls simulated"
        );
        assert_eq!(Position::last_of(""), None);
        assert_eq!(Position::last_of("1 1 rep 1"), None);
        assert_eq!(Position::last_of("1 1 cooldown 1 2\n"), None);
        assert_eq!(
            progress_line(65536, None, Duration::from_secs(21)),
            "delaybench: simulating P = 65536: no call simulated yet, 21 s so far"
        );
    }

    #[test]
    fn the_watcher_reads_the_file_and_ends_with_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("progress.txt");
        std::fs::write(&file, "1 1 rep 3 10\n").unwrap();
        let said = std::sync::Mutex::new(Vec::new());
        let say = |l: String| said.lock().unwrap().push(l);
        // The "launch" waits for a line, moves on a repetition, and waits for a line that
        // says so: lines name the position as it is, the value comes back, and the watcher
        // has ended when `while_watching` returns (it borrows `said`, read right after).
        let said_yet = |what: &str| {
            let t = Instant::now();
            while !said.lock().unwrap().iter().any(|l| l.contains(what)) {
                assert!(
                    t.elapsed() < Duration::from_secs(10),
                    "nothing said of {what}"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
        };
        let out = while_watching(&file, 4, Duration::from_millis(20), say, || {
            said_yet("3 of 10 repetitions");
            std::fs::write(&file, "1 1 rep 3 10\n1 1 rep 4 10\n").unwrap();
            said_yet("4 of 10 repetitions");
            7
        });
        assert_eq!(out, 7);
        let said = said.into_inner().unwrap();
        assert!(
            said[0].starts_with(
                "delaybench: simulating P = 4: block 1 of 1, 3 of 10 repetitions simulated, "
            ),
            "{said:?}"
        );
        assert!(
            said.last().unwrap().contains("4 of 10 repetitions"),
            "{said:?}"
        );
    }
}
