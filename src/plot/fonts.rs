//! The one font family every figure uses: DejaVu Sans, embedded through the `dejavu` crate.
//!
//! plotters is built with `ab_glyph` instead of system fonts, so figures render the same on a
//! laptop and on a cluster login node without fontconfig; the price is that the bytes must be
//! registered before the first text is measured or drawn.

use plotters::style::FontStyle;
use std::sync::OnceLock;

/// Family name the DejaVu Sans bytes are registered under and every text style asks for.
pub const FAMILY: &str = "sans-serif";

/// Registers DejaVu Sans regular and bold (the faces the figures use) under [`FAMILY`], once
/// per process.
///
/// Errors: a message when the embedded bytes are rejected by the font parser, which would
/// mean a broken `dejavu` build rather than anything the user can fix.
pub fn ensure_registered() -> Result<(), String> {
    static RESULT: OnceLock<Result<(), String>> = OnceLock::new();
    RESULT
        .get_or_init(|| {
            let faces = [
                (FontStyle::Normal, dejavu::sans::regular()),
                (FontStyle::Bold, dejavu::sans::bold()),
            ];
            for (style, bytes) in faces {
                plotters::style::register_font(FAMILY, style, bytes).map_err(|_| {
                    format!(
                        "the embedded DejaVu Sans {} font could not be parsed",
                        style.as_str()
                    )
                })?;
            }
            Ok(())
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::style::{FontDesc, FontFamily};

    #[test]
    fn registered_family_measures_text() {
        ensure_registered().unwrap();
        let font = FontDesc::new(FontFamily::Name(FAMILY), 20.0, FontStyle::Normal);
        let (w, h) = font.box_size("processes P").unwrap();
        assert!(w > 50 && h > 5, "box {w}x{h}");
        // Called again it must not fail or re-register.
        ensure_registered().unwrap();
    }
}
