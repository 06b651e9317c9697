//! `delaybench man` prints a manual page that man renders, and `man --dir` writes one page
//! per command.

mod common;

use std::process::{Command, Stdio};

#[test]
fn the_manual_page_is_roff_with_every_option() {
    let out = common::offline(&["man"]);
    assert!(out.status.success(), "{}", common::text(&out));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH delaybench 1"), "{page}");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "{section} missing");
    }
    // Options appear as roff escapes them (\- for -).
    for option in [r"\-\-sizes", r"\-\-nrep", r"\-\-clock\-sync", r"\-\-window"] {
        assert!(page.contains(option), "{option} missing");
    }
    // Rendered by man itself where it is installed.
    let Ok(mut man) = Command::new("man")
        .args(["-l", "-"])
        .env("MANWIDTH", "100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        common::skip("rendering by man: man is not installed (the roff was checked)");
        return;
    };
    use std::io::Write;
    man.stdin
        .take()
        .unwrap()
        .write_all(page.as_bytes())
        .unwrap();
    let shown = man.wait_with_output().unwrap();
    // Bold and underline come as overstrikes (c, backspace, c): keep the last character.
    let mut text = String::new();
    for c in String::from_utf8_lossy(&shown.stdout).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(
        text.contains("OPTIONS") && text.contains("--sizes"),
        "{text}"
    );
}

#[test]
fn man_dir_writes_a_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    let out = common::offline(&["man", "--dir", pages.to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::text(&out));
    for name in [
        "delaybench.1",
        "delaybench-analyze.1",
        "delaybench-export.1",
    ] {
        let page = std::fs::read_to_string(pages.join(name)).unwrap();
        assert!(page.starts_with(".ie") || page.contains(".TH"), "{name}");
    }
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(
        listed.lines().any(|l| l.ends_with("delaybench-plot.1")),
        "{listed}"
    );
}

/// The page names a roff SEE ALSO section lists (`delaybench\-analyze(1)` → `delaybench-analyze.1`).
fn see_also(page: &str) -> Vec<String> {
    let section = page
        .split(".SH \"SEE ALSO\"")
        .nth(1)
        .or_else(|| page.split(".SH SEE ALSO").nth(1))
        .expect("a SEE ALSO section");
    let section = section.split("\n.SH").next().unwrap().replace(r"\-", "-");
    section
        .split([',', ' ', '\n'])
        .filter_map(|w| {
            let (name, rest) = w.trim().split_once('(')?;
            let n = rest.strip_suffix(')')?;
            Some(format!("{name}.{n}"))
        })
        .collect()
}

#[test]
fn pages_have_exit_status_examples_and_see_also_naming_only_written_pages() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::offline(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::text(&out));
    let written: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    for topic in ["delaybench-metrics.7", "delaybench-clock-sync.7"] {
        assert!(
            written.iter().any(|w| w == topic),
            "{topic} not written: {written:?}"
        );
    }
    // The one-page form and every written page: the sections, and SEE ALSO names only
    // pages that were written (no `delaybench-help(1)`).
    let single = String::from_utf8(common::offline(&["man"]).stdout).unwrap();
    for section in [".SH \"EXIT STATUS\"", ".SH EXAMPLES", ".SH \"SEE ALSO\""] {
        assert!(
            single.contains(section),
            "{section} missing from delaybench(1)"
        );
    }
    for code in ["0", "1", "2", "3", "4"] {
        assert!(
            single.contains(&format!("\\fB{code}\\fR")),
            "exit status {code}"
        );
    }
    assert!(
        !single.contains(r"delaybench\-help"),
        "a help page is named"
    );
    let mut pages = vec![("delaybench (stdout)".to_string(), single)];
    for name in &written {
        pages.push((
            name.clone(),
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
        ));
    }
    for (name, page) in &pages {
        let named = see_also(page);
        assert!(!named.is_empty(), "{name}: empty SEE ALSO");
        for target in named {
            assert!(
                written.contains(&target),
                "{name} names {target}, which is not written"
            );
        }
        if name.ends_with(".1") || name.contains("stdout") {
            assert!(
                page.contains(".SH \"EXIT STATUS\""),
                "{name}: no EXIT STATUS"
            );
        }
    }
}
