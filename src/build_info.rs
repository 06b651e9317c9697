//! What build of delaybench this is: the crate version and the git revision it was built from
//! (recorded by `build.rs`), for `--version` and every records header, so a published result
//! names the code that measured it.

/// The value of a build variable, or `unknown` where the build could not tell: built from a
/// tarball without .git, or without the `git` command (vergen then writes a placeholder).
fn known(value: Option<&'static str>) -> &'static str {
    match value {
        Some(v) if !v.is_empty() && !v.starts_with("VERGEN_") => v,
        _ => "unknown",
    }
}

/// The full git commit hash the binary was built from, or `unknown`.
pub fn git_revision() -> &'static str {
    known(option_env!("VERGEN_GIT_SHA"))
}

/// Whether tracked files differed from that commit at build time: `Some(true)` dirty,
/// `Some(false)` clean, `None` unknown.
pub fn git_dirty() -> Option<bool> {
    match known(option_env!("VERGEN_GIT_DIRTY")) {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The revision in one word: the hash, with `-dirty` when tracked files differed from it,
/// or `unknown`.
pub fn revision_word() -> String {
    describe(git_revision(), git_dirty())
}

fn describe(revision: &str, dirty: Option<bool>) -> String {
    match dirty {
        Some(true) => format!("{revision}-dirty"),
        _ => revision.to_string(),
    }
}

/// `--version`'s text after the program name: `0.1.0 (git 1a2b3c4…, dirty)`.
pub fn version_line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| {
        let dirty = match git_dirty() {
            Some(true) => ", dirty",
            Some(false) => "",
            None => ", dirty unknown",
        };
        format!(
            "{} (git {}{dirty})",
            env!("CARGO_PKG_VERSION"),
            git_revision()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_and_missing_values_are_unknown() {
        assert_eq!(known(None), "unknown");
        assert_eq!(known(Some("")), "unknown");
        assert_eq!(known(Some("VERGEN_IDEMPOTENT_OUTPUT")), "unknown");
        assert_eq!(known(Some("1a2b")), "1a2b");
        assert_eq!(describe("1a2b", Some(true)), "1a2b-dirty");
        assert_eq!(describe("1a2b", Some(false)), "1a2b");
        assert_eq!(describe("unknown", None), "unknown");
    }

    #[test]
    fn this_build_names_a_revision_or_says_unknown() {
        let rev = git_revision();
        let hex = rev.len() == 40 && rev.chars().all(|c| c.is_ascii_hexdigit());
        assert!(hex || rev == "unknown", "{rev}");
        assert!(version_line().starts_with(env!("CARGO_PKG_VERSION")));
        assert!(version_line().contains(rev));
    }
}
