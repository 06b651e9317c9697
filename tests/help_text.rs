//! The help a newcomer reads: every option and argument has a help line, `-h` of the
//! program and of each subcommand fits one screen, and no help text names a path of the
//! source repository (an installed binary has no `docs/`).

mod common;

use clap::CommandFactory;
use delaybench::cli::Cli;

/// The most lines `-h` may print: one screen.
const SCREEN: usize = 40;

/// The command and its visible subcommands, as `delaybench <names…>`.
fn commands() -> Vec<(Vec<String>, clap::Command)> {
    let mut root = Cli::command();
    root.build();
    let mut out = vec![(Vec::new(), root.clone())];
    for sub in root.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() == "help" {
            continue;
        }
        out.push((vec![sub.get_name().to_string()], sub.clone()));
    }
    out
}

#[test]
fn every_option_and_argument_has_a_help_line() {
    let mut missing = Vec::new();
    for (path, cmd) in commands() {
        for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            let help = arg.get_help().or(arg.get_long_help());
            if help.is_none_or(|h| h.to_string().trim().is_empty()) {
                missing.push(format!("delaybench {} {}", path.join(" "), arg.get_id()));
            }
        }
    }
    assert!(missing.is_empty(), "without a help line: {missing:#?}");
}

#[test]
fn short_help_fits_one_screen() {
    for (path, _) in commands() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("-h");
        let out = common::offline(&args);
        assert!(out.status.success(), "{args:?}: {}", common::text(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        let lines = text.lines().count();
        assert!(
            lines <= SCREEN,
            "delaybench {}: {lines} lines, more than {SCREEN}:\n{text}",
            args.join(" ")
        );
        // The long help has more (the expert options), under the same headings.
        args.pop();
        args.push("--help");
        let long = String::from_utf8(common::offline(&args).stdout).unwrap();
        assert!(long.lines().count() >= lines, "{args:?}");
    }
}

#[test]
fn long_help_names_no_repository_path_and_no_nul() {
    for (path, _) in commands() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = common::offline(&args);
        assert!(out.status.success(), "{args:?}: {}", common::text(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains('\0'), "{args:?} prints a NUL");
        for word in ["docs/", "configs/", "src/"] {
            assert!(
                !text.contains(word),
                "delaybench {}: names `{word}`, which an installed binary does not have",
                args.join(" ")
            );
        }
    }
}

#[test]
fn the_measurement_help_is_under_headings_in_the_order_of_a_run() {
    let long = String::from_utf8(common::offline(&["--help"]).stdout).unwrap();
    let order = [
        "What to measure:",
        "Who is late:",
        "How repetitions start:",
        "Clock:",
        "Output:",
        "Run control:",
        "Expert: clock synchronisation:",
        "Expert: noise:",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|h| {
            long.find(h)
                .unwrap_or_else(|| panic!("{h} missing:\n{long}"))
        })
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "headings out of order: {at:?}"
    );
    // The expert knobs are in --help, not in -h.
    let short = String::from_utf8(common::offline(&["-h"]).stdout).unwrap();
    for expert in ["--fitpoints", "--exchanges-per-fitpoint", "--detour"] {
        assert!(long.contains(expert) && !short.contains(expert), "{expert}");
    }
    assert!(
        short.contains("--delay") && short.contains("--sizes"),
        "{short}"
    );
    // The exit statuses are in --help.
    assert!(long.contains("Exit status:"), "{long}");
}
