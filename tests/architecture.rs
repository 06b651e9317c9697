//! The structure docs/architecture.md draws, held against the code's own imports: every
//! component imports only components on its floor or below, except the upward imports the
//! document names with their reasons; nothing below the command-line edge imports `cli`; no
//! source file is longer than 800 lines before its tests; and every file and registry the
//! "Where an addition goes" table names exists.
//!
//! Imports are read as text: every `crate::<component>` path outside comments and before the
//! file's first `#[cfg(test)]` (tests may reach anywhere), and `delaybench::<component>` in
//! `main.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The floors, bottom up: a component may import its own floor (its peers) and those below.
/// Keep in step
/// with the drawing in docs/architecture.md (`the_drawing_names_every_component` checks it).
const FLOORS: &[&[&str]] = &[
    &[
        "units",
        "affinity",
        "wire",
        "build_info",
        "exit",
        "frame",
        "output_name",
        "otf2_sys",
    ],
    &["clock"],
    &["wait", "capture"],
    &["delay"],
    &["plan"],
    &["records"],
    &["noise"],
    &["timeline"],
    &["analysis"],
    &["export"],
    &["plot", "info"],
    &["simulate"],
    &["end_of_run"],
    &["smpi", "run"],
    &["cli"],
    &["commands"],
    &["main"],
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The component a file of `src/` belongs to: its top-level folder or file stem.
fn component(path: &Path) -> String {
    let rel = path.strip_prefix(repo().join("src")).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The code of a file before its first `#[cfg(test)]`, without comment lines.
fn code_before_tests(text: &str) -> String {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.split(" // ").next().unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The components `code` names through `prefix` (`crate::` or `delaybench::`).
fn named_components(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().last();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

/// Every (importer, imported) pair of components, with one file that shows it.
fn component_imports() -> BTreeMap<(String, String), PathBuf> {
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    let mut edges = BTreeMap::new();
    for file in files {
        let from = component(&file);
        if from == "lib" {
            continue;
        }
        let code = code_before_tests(&fs::read_to_string(&file).unwrap());
        let prefix = if from == "main" {
            "delaybench::"
        } else {
            "crate::"
        };
        for to in named_components(&code, prefix) {
            if to != from {
                edges.entry((from.clone(), to)).or_insert(file.clone());
            }
        }
    }
    edges
}

fn floor_of(name: &str) -> Option<usize> {
    FLOORS.iter().position(|f| f.contains(&name))
}

/// The upward imports docs/architecture.md names: lines `- \`from\` → \`to\`: reason` under
/// its heading "Imports that go up".
fn documented_upward() -> BTreeSet<(String, String)> {
    let doc = fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let section = doc
        .split("## Imports that go up")
        .nth(1)
        .expect("docs/architecture.md has a section 'Imports that go up'");
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix("- `")?;
            let (from, rest) = l.split_once("` → `")?;
            let (to, reason) = rest.split_once("`:")?;
            assert!(
                reason.trim().len() > 10,
                "docs/architecture.md: the upward import {from} → {to} needs its reason"
            );
            Some((from.to_string(), to.to_string()))
        })
        .collect()
}

#[test]
fn every_component_is_on_a_floor() {
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(repo().join("src")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() || path.extension().is_some_and(|e| e == "rs") {
            names.insert(component(&path));
        }
    }
    names.remove("lib");
    let unplaced: Vec<_> = names.iter().filter(|n| floor_of(n).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "components without a floor in tests/architecture.rs and docs/architecture.md: \
         {unplaced:?}"
    );
}

#[test]
fn imports_go_down_except_the_documented_ones() {
    let documented = documented_upward();
    let mut upward = BTreeSet::new();
    let mut undocumented = Vec::new();
    for ((from, to), file) in component_imports() {
        let (Some(f), Some(t)) = (floor_of(&from), floor_of(&to)) else {
            continue;
        };
        if t > f {
            upward.insert((from.clone(), to.clone()));
            if !documented.contains(&(from.clone(), to.clone())) {
                undocumented.push(format!("{from} → {to} ({})", file.display()));
            }
        }
    }
    assert!(
        undocumented.is_empty(),
        "imports that go up the floors without a line in docs/architecture.md's 'Imports that \
         go up': {undocumented:#?}"
    );
    let stale: Vec<_> = documented.difference(&upward).collect();
    assert!(
        stale.is_empty(),
        "docs/architecture.md names upward imports the code no longer makes: {stale:?}"
    );
}

#[test]
fn nothing_below_the_edge_imports_cli() {
    let below: Vec<_> = component_imports()
        .into_iter()
        .filter(|((from, to), _)| to == "cli" && !["commands", "main"].contains(&from.as_str()))
        .map(|((from, _), file)| format!("{from} ({})", file.display()))
        .collect();
    assert!(
        below.is_empty(),
        "modules below the edge import cli: {below:?}"
    );
}

#[test]
fn no_source_file_is_over_800_lines_before_its_tests() {
    let mut files = Vec::new();
    rust_files(&repo().join("src"), &mut files);
    let long: Vec<_> = files
        .iter()
        .filter_map(|f| {
            let text = fs::read_to_string(f).unwrap();
            let n = text
                .lines()
                .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
                .count();
            (n > 800).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these files: {long:?}");
}

#[test]
fn main_rs_only_parses_and_dispatches() {
    let n = fs::read_to_string(repo().join("src/main.rs"))
        .unwrap()
        .lines()
        .count();
    assert!(
        n <= 150,
        "src/main.rs has {n} lines: its work belongs in src/commands/"
    );
}

/// Every `src/...` path in the "Where an addition goes" table exists (a `<name>` part stands
/// for any file of that folder), and every registry it names in backticks after a path is
/// found in that file.
#[test]
fn the_addition_table_names_real_files_and_registries() {
    let doc = fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let table = doc
        .split("## Where an addition goes")
        .nth(1)
        .expect("docs/architecture.md has 'Where an addition goes'");
    let table = table.split("\n## ").next().unwrap();
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| ")).collect();
    assert!(rows.len() >= 8, "the table has a row per kind of addition");
    let mut checked = 0;
    for row in rows {
        for cell in row.split('|').skip(2) {
            let ticks: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
            let mut file: Option<PathBuf> = None;
            for t in ticks {
                if t.starts_with("src/") {
                    let path = if let Some(at) = t.find('<') {
                        repo().join(&t[..at])
                    } else {
                        repo().join(t)
                    };
                    assert!(path.exists(), "{t} (docs/architecture.md) does not exist");
                    file = (!t.contains('<') && path.is_file()).then_some(path);
                    checked += 1;
                } else if let Some(f) = &file {
                    let name: String = t
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '!')
                        .collect();
                    if name.len() > 2 {
                        let text = fs::read_to_string(f).unwrap();
                        assert!(
                            text.contains(name.trim_end_matches('!')),
                            "docs/architecture.md says {} holds `{name}`",
                            f.display()
                        );
                    }
                }
            }
        }
    }
    assert!(checked >= 8, "the table names its files");
}

#[test]
fn the_drawing_names_every_component() {
    let doc = fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let drawing = doc
        .split("```")
        .nth(1)
        .expect("docs/architecture.md draws the floors");
    for name in FLOORS.iter().flat_map(|f| f.iter()) {
        let shown = if *name == "main" {
            "main.rs".to_string()
        } else {
            name.to_string()
        };
        assert!(
            drawing.contains(&shown),
            "docs/architecture.md's drawing does not show {name}"
        );
    }
}
