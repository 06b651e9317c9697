//! GOAL text in and out (Hoefler, Siebert and Lumsdaine, ICPP 2009): the schedule format
//! LogGOPSim's Schedgen and ATLAHS write and LogGOPSim's `txt2bin` reads.
//!
//! ```text
//! num_ranks 2
//! rank 0 {
//! l0: send 8b to 1 tag 0
//! l1: recv 8b from 1 tag 0     // -1 as source or tag: any
//! l2: calc 100 cpu 0           // ns; `cpu C` and `nic N` optional on every operation
//! l2 requires l1               /* done before */
//! l1 irequires l0              /* started before */
//! }
//! ```
//!
//! Labels belong to their rank's block and may be used before the line that defines them.
//! The grammar is six statements; it is read by hand with one token of look-ahead (no
//! parser crate reads GOAL, and a generated one would not be faster than this loop, which
//! reads a 65,536-rank schedule of 3 million lines without allocating per line). A rank's
//! labels go into one map, reused from rank to rank, hashed with FNV-1a (Fowler, Noll and
//! Vo): std's SipHash made the map the largest part of the reading.

use super::schedule::{OpKind, Schedule, ScheduleBuilder, ANY};
use super::LoggopsError;
use std::io::Write;
use std::path::Path;

/// Reads the GOAL text `text`; `file` names it in errors.
///
/// Errors: [`LoggopsError::Goal`] with the file and line of a syntax error or of a
/// dependency naming an unknown label; [`LoggopsError::Cycle`] and
/// [`LoggopsError::Invalid`] from [`ScheduleBuilder::build`].
pub fn parse_goal(text: &str, file: &str) -> Result<Schedule, LoggopsError> {
    let mut lx = Lexer {
        text: text.as_bytes(),
        pos: 0,
        line: 1,
        peeked: None,
        file,
    };
    let (tok, line) = lx.next_or("`num_ranks N`")?;
    if tok != "num_ranks" {
        return Err(lx.error(line, format!("expected `num_ranks N`, found `{tok}`")));
    }
    let ranks = lx.number("the number of ranks")?;
    if ranks == 0 || ranks > u32::MAX as u64 - 1 {
        return Err(lx.error(line, format!("{ranks} ranks")));
    }
    let mut b = ScheduleBuilder::new(ranks as usize);
    let mut labels: fnv::FnvHashMap<&str, u32> = fnv::FnvHashMap::default();
    let mut deps: Vec<(&str, &str, bool, usize)> = Vec::new();
    while let Some((tok, line)) = lx.next_token()? {
        if tok != "rank" {
            return Err(lx.error(line, format!("expected `rank R {{`, found `{tok}`")));
        }
        let rank = lx.number("a rank")?;
        if rank >= ranks {
            return Err(lx.error(line, format!("rank {rank} among {ranks} ranks")));
        }
        lx.expect("{")?;
        labels.clear();
        deps.clear();
        loop {
            let (tok, line) = lx.next_or("`}` closing the rank")?;
            match tok {
                "}" => break,
                "send" | "recv" | "calc" => {
                    parse_op(&mut lx, &mut b, rank as usize, tok, ranks)?;
                }
                label => match lx.next_or("`:` or `requires`")? {
                    (":", _) => {
                        let (kw, l) = lx.next_or("send, recv or calc")?;
                        if !matches!(kw, "send" | "recv" | "calc") {
                            return Err(lx.error(l, format!("expected send, recv or calc, found `{kw}`")));
                        }
                        let op = parse_op(&mut lx, &mut b, rank as usize, kw, ranks)?;
                        if labels.insert(label, op).is_some() {
                            return Err(lx.error(line, format!("label `{label}` defined twice")));
                        }
                    }
                    (kw @ ("requires" | "irequires"), _) => {
                        let (head, _) = lx.next_or("a label")?;
                        deps.push((label, head, kw == "irequires", line));
                    }
                    (other, l) => {
                        return Err(lx.error(
                            l,
                            format!("expected `:`, `requires` or `irequires` after `{label}`, found `{other}`"),
                        ))
                    }
                },
            }
        }
        for &(tail, head, on_start, line) in &deps {
            let find = |l: &str| {
                labels
                    .get(l)
                    .copied()
                    .ok_or_else(|| lx.error(line, format!("unknown label `{l}` in rank {rank}")))
            };
            let (t, h) = (find(tail)?, find(head)?);
            if on_start {
                b.irequires(t, h);
            } else {
                b.requires(t, h);
            }
        }
    }
    b.build()
}

/// Reads a GOAL file. Errors: as [`parse_goal`], and [`LoggopsError::Io`].
pub fn read_goal(path: &Path) -> Result<Schedule, LoggopsError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoggopsError::Io {
        path: path.display().to_string(),
        source,
    })?;
    parse_goal(&text, &path.display().to_string())
}

/// One operation after its keyword: `Nb to R`, `Nb from R` or `N`, then `tag`, `cpu`, `nic`.
fn parse_op(
    lx: &mut Lexer,
    b: &mut ScheduleBuilder,
    rank: usize,
    kw: &str,
    ranks: u64,
) -> Result<u32, LoggopsError> {
    let (kind, size, peer) = if kw == "calc" {
        (OpKind::Calc, lx.number("a calc's ns")?, 0)
    } else {
        let (tok, line) = lx.next_or("a size such as 8b")?;
        let size = tok
            .strip_suffix('b')
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| lx.error(line, format!("expected a size such as 8b, found `{tok}`")))?;
        let (kind, word) = if kw == "send" {
            (OpKind::Send, "to")
        } else {
            (OpKind::Recv, "from")
        };
        lx.expect(word)?;
        let (tok, line) = lx.next_or("a rank")?;
        let peer = match tok.parse::<u64>() {
            Ok(r) if r < ranks => r as u32,
            _ if tok == "-1" && kind == OpKind::Recv => ANY,
            _ => return Err(lx.error(line, format!("`{tok}` is no rank among {ranks}"))),
        };
        (kind, size, peer)
    };
    let (mut tag, mut cpu, mut nic) = (0u32, 0u8, 0u8);
    while let Some(attr) = lx.peek()?.filter(|t| matches!(t.0, "tag" | "cpu" | "nic")) {
        lx.next_token()?;
        let (tok, line) = lx.next_or("a number")?;
        let bad = || lx.error(line, format!("`{tok}` is no {}", attr.0));
        match attr.0 {
            "tag" if tok == "-1" => tag = ANY,
            "tag" => tag = tok.parse().map_err(|_| bad())?,
            "cpu" => cpu = tok.parse().map_err(|_| bad())?,
            _ => nic = tok.parse().map_err(|_| bad())?,
        }
    }
    Ok(b.add_on(rank, kind, peer, size, tag, cpu, nic))
}

/// Tokens of GOAL text: words, and `:`, `{`, `}` alone; comments skipped; line numbers kept.
struct Lexer<'a> {
    text: &'a [u8],
    pos: usize,
    line: usize,
    peeked: Option<(&'a str, usize)>,
    file: &'a str,
}

impl<'a> Lexer<'a> {
    fn error(&self, line: usize, message: String) -> LoggopsError {
        LoggopsError::Goal {
            file: self.file.to_string(),
            line,
            message,
        }
    }

    fn peek(&mut self) -> Result<Option<(&'a str, usize)>, LoggopsError> {
        if self.peeked.is_none() {
            self.peeked = self.scan()?;
        }
        Ok(self.peeked)
    }

    fn next_token(&mut self) -> Result<Option<(&'a str, usize)>, LoggopsError> {
        match self.peeked.take() {
            Some(t) => Ok(Some(t)),
            None => self.scan(),
        }
    }

    fn next_or(&mut self, what: &str) -> Result<(&'a str, usize), LoggopsError> {
        self.next_token()?
            .ok_or_else(|| self.error(self.line, format!("the text ends where {what} should be")))
    }

    fn expect(&mut self, word: &str) -> Result<(), LoggopsError> {
        let (tok, line) = self.next_or(&format!("`{word}`"))?;
        if tok == word {
            Ok(())
        } else {
            Err(self.error(line, format!("expected `{word}`, found `{tok}`")))
        }
    }

    fn number(&mut self, what: &str) -> Result<u64, LoggopsError> {
        let (tok, line) = self.next_or(what)?;
        tok.parse()
            .map_err(|_| self.error(line, format!("expected {what}, found `{tok}`")))
    }

    fn scan(&mut self) -> Result<Option<(&'a str, usize)>, LoggopsError> {
        let t = self.text;
        loop {
            while self.pos < t.len() && t[self.pos].is_ascii_whitespace() {
                if t[self.pos] == b'\n' {
                    self.line += 1;
                }
                self.pos += 1;
            }
            if self.pos >= t.len() {
                return Ok(None);
            }
            if t[self.pos..].starts_with(b"//") {
                while self.pos < t.len() && t[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            if t[self.pos..].starts_with(b"/*") {
                let opened = self.line;
                self.pos += 2;
                loop {
                    if self.pos + 1 >= t.len() {
                        return Err(self.error(opened, "a `/*` comment is never closed".into()));
                    }
                    if t[self.pos] == b'*' && t[self.pos + 1] == b'/' {
                        self.pos += 2;
                        break;
                    }
                    if t[self.pos] == b'\n' {
                        self.line += 1;
                    }
                    self.pos += 1;
                }
                continue;
            }
            break;
        }
        let start = self.pos;
        if matches!(t[start], b':' | b'{' | b'}') {
            self.pos += 1;
        } else {
            while self.pos < t.len() && !ends_word(t, self.pos) {
                self.pos += 1;
            }
        }
        let tok = std::str::from_utf8(&t[start..self.pos])
            .map_err(|_| self.error(self.line, "the text is not UTF-8".into()))?;
        Ok(Some((tok, self.line)))
    }
}

/// Whether the byte at `pos` ends a word: white space, `:`, `{`, `}` or a comment's start.
#[inline]
fn ends_word(t: &[u8], pos: usize) -> bool {
    match t[pos] {
        b' ' | b'\t' | b'\n' | b'\r' | b':' | b'{' | b'}' => true,
        b'/' => matches!(t.get(pos + 1), Some(b'/' | b'*')),
        c => c.is_ascii_whitespace(),
    }
}

/// Writes `schedule` as GOAL text in Schedgen's layout: operation i of a rank labelled
/// `l<i>`, its dependencies after its operations, `cpu` and `nic` only when not 0.
pub fn write_goal(schedule: &Schedule, out: &mut dyn Write) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(out);
    writeln!(w, "num_ranks {}", schedule.num_ranks())?;
    let num = |x: u32| {
        if x == ANY {
            "-1".to_string()
        } else {
            x.to_string()
        }
    };
    for r in 0..schedule.num_ranks() {
        writeln!(w, "\nrank {r} {{")?;
        let ops = schedule.ops_of(r);
        let first = ops.start;
        for op in ops.clone() {
            let (kind, peer, size, tag, cpu, nic) = schedule.op(op);
            write!(w, "l{}: ", op - first)?;
            match kind {
                OpKind::Send => write!(w, "send {size}b to {peer} tag {}", num(tag))?,
                OpKind::Recv => write!(w, "recv {size}b from {} tag {}", num(peer), num(tag))?,
                OpKind::Calc => write!(w, "calc {size}")?,
            }
            if cpu != 0 {
                write!(w, " cpu {cpu}")?;
            }
            if nic != 0 {
                write!(w, " nic {nic}")?;
            }
            writeln!(w)?;
        }
        for op in ops {
            for &s in schedule.done_successors(op) {
                writeln!(w, "l{} requires l{}", s - first, op - first)?;
            }
            for &s in schedule.start_successors(op) {
                writeln!(w, "l{} irequires l{}", s - first, op - first)?;
            }
        }
        writeln!(w, "}}")?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "num_ranks 2\n\nrank 0 {\nl0: send 8b to 1 tag 0\n/* a\ncomment */ l1: recv 8b from -1 tag -1 // any\nl2: calc 100 cpu 1\nl2 requires l1\nl1 irequires l0\n}\nrank 1 {\nx: recv 8b from 0 tag 0\ny: send 8b to 0 tag 3 nic 1\ny requires x\n}\n";

    #[test]
    fn goal_text_reads_and_writes_back_the_same_schedule() {
        let s = parse_goal(TWO, "two.goal").unwrap();
        assert_eq!((s.num_ranks(), s.num_ops()), (2, 5));
        assert_eq!(s.op(1), (OpKind::Recv, ANY, 8, ANY, 0, 0));
        assert_eq!(s.op(2), (OpKind::Calc, 0, 100, 0, 1, 0));
        assert_eq!(s.done_successors(1), &[2]);
        assert_eq!(s.start_successors(0), &[1]);
        let mut out = Vec::new();
        write_goal(&s, &mut out).unwrap();
        let again = parse_goal(std::str::from_utf8(&out).unwrap(), "out").unwrap();
        let mut out2 = Vec::new();
        write_goal(&again, &mut out2).unwrap();
        assert_eq!(out, out2);
        assert!(String::from_utf8(out).unwrap().contains("l1 irequires l0"));
    }

    fn refusal(text: &str) -> String {
        parse_goal(text, "bad.goal").unwrap_err().to_string()
    }

    #[test]
    fn bad_goal_is_refused_with_file_and_line() {
        let e = refusal("num_ranks 2\nrank 0 {\nl0: send 8 to 1\n}\n");
        assert!(
            e.starts_with("bad.goal:3:") && e.contains("size such as 8b"),
            "{e}"
        );
        let e = refusal("num_ranks 2\nrank 0 {\nl0: calc 5\n\nl0 requires nope\n}\n");
        assert!(
            e.starts_with("bad.goal:5:") && e.contains("unknown label `nope`"),
            "{e}"
        );
        let e = refusal("num_ranks 2\nrank 0 {\nl0: send 8b to 2\n}\n");
        assert!(e.starts_with("bad.goal:3:") && e.contains("no rank"), "{e}");
        let e = refusal("num_ranks 2\nrank 0 {\nl0: calc 5\n");
        assert!(e.contains("`}` closing the rank"), "{e}");
        let e = refusal("ranks 2\n");
        assert!(e.starts_with("bad.goal:1:"), "{e}");
    }

    #[test]
    fn a_cycle_in_goal_is_refused_naming_the_operations() {
        let e =
            refusal("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\na requires b\nb requires a\n}\n");
        assert!(
            e.contains("cycle") && e.contains("rank 0 op 0 (calc 1 ns)"),
            "{e}"
        );
    }
}
