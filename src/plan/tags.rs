//! `--tag key=value`: what a user says about a run, checked before it runs and kept in the
//! records header's provenance (`records::provenance`) and on every exported row.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One `--tag key=value`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tag {
    pub key: String,
    pub value: String,
}

/// A `--tag` that cannot be recorded.
#[derive(Debug, Error, PartialEq)]
pub enum TagError {
    #[error("--tag `{0}` must be KEY=VALUE, e.g. --tag system=cluster-a")]
    NoEquals(String),
    #[error(
        "--tag key `{0}` must be letters, digits, `_`, `-` or `.` (it becomes part of every \
         exported row)"
    )]
    BadKey(String),
    #[error("--tag value of `{0}` must not hold `;`, a line break or a tab (tags are joined with `;` in CSV cells)")]
    BadValue(String),
    #[error("--tag `{0}` is given twice")]
    Duplicate(String),
}

impl std::str::FromStr for Tag {
    type Err = TagError;
    fn from_str(s: &str) -> Result<Tag, TagError> {
        let (key, value) = s
            .split_once('=')
            .ok_or_else(|| TagError::NoEquals(s.into()))?;
        let key_ok = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !key_ok {
            return Err(TagError::BadKey(key.into()));
        }
        if value.contains([';', '\n', '\r', '\t']) {
            return Err(TagError::BadValue(key.into()));
        }
        Ok(Tag {
            key: key.into(),
            value: value.into(),
        })
    }
}

impl std::fmt::Display for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
}

/// Checks that no key is given twice.
///
/// Errors: [`TagError::Duplicate`] naming the first repeated key.
pub fn check_tags(tags: &[Tag]) -> Result<(), TagError> {
    let mut seen = std::collections::BTreeSet::new();
    for t in tags {
        if !seen.insert(t.key.as_str()) {
            return Err(TagError::Duplicate(t.key.clone()));
        }
    }
    Ok(())
}
