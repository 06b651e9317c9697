//! Reading a records file, recovering every complete block of an interrupted run.

use super::{Block, Footer, Header, Item, RecordsError, FORMAT_NAME, FORMAT_VERSION};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The content of a records file.
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    pub header: Header,
    /// Complete blocks in the order they were measured.
    pub blocks: Vec<Block>,
    /// `None` when the run was interrupted (no footer).
    pub footer: Option<Footer>,
    /// True when the file ended inside an item (the block in flight was lost).
    pub truncated: bool,
}

impl Records {
    /// True when the run completed and nothing was lost.
    pub fn complete(&self) -> bool {
        self.footer.is_some() && !self.truncated
    }
}

/// Reads `path`. An interrupted run (no footer, or a torn last item) is recovered: every
/// complete block is returned and [`Records::complete`] is false.
///
/// Errors: [`RecordsError::Open`]; [`RecordsError::NotRecords`] when the first item is not a
/// delaybench header or a block has the wrong shape; [`RecordsError::Version`].
pub fn read_records(path: &Path) -> Result<Records, RecordsError> {
    let shown = path.display().to_string();
    let not_records = |reason: String| RecordsError::NotRecords {
        path: shown.clone(),
        reason,
    };
    let file = File::open(path).map_err(|source| RecordsError::Open {
        path: shown.clone(),
        source,
    })?;
    let mut input = BufReader::new(file);
    let header = match ciborium::from_reader::<Item, _>(&mut input) {
        Ok(Item::Header(h)) => *h,
        Ok(_) => return Err(not_records("the first item is not a header".into())),
        Err(e) => return Err(not_records(e.to_string())),
    };
    if header.format != FORMAT_NAME {
        return Err(not_records(format!("format is '{}'", header.format)));
    }
    if header.format_version != FORMAT_VERSION {
        return Err(RecordsError::Version {
            path: shown,
            found: header.format_version,
            expected: FORMAT_VERSION,
        });
    }
    let mut records = Records {
        header,
        blocks: Vec::new(),
        footer: None,
        truncated: false,
    };
    loop {
        match input.fill_buf() {
            Ok([]) => break,
            Ok(_) => {}
            Err(_) => {
                records.truncated = true;
                break;
            }
        }
        match ciborium::from_reader::<Item, _>(&mut input) {
            Ok(Item::Block(b)) if b.shape_ok() => records.blocks.push(*b),
            Ok(Item::Block(b)) => {
                return Err(not_records(format!(
                    "block {} {} B P={} has arrays of the wrong shape",
                    b.op, b.bytes, b.nprocs
                )))
            }
            Ok(Item::Footer(f)) => {
                records.footer = Some(*f);
                break;
            }
            Ok(Item::Header(_)) => return Err(not_records("a second header".into())),
            Err(_) => {
                records.truncated = true;
                break;
            }
        }
    }
    Ok(records)
}
