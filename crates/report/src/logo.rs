//! `--logo FILE`: an image for the report's heading, checked before the crawl and embedded
//! as a data: URL, so that report.html stays one file.

use std::io::Read;
use std::path::Path;

use base64::Engine;

use crate::model::Logo;

/// The largest logo embedded: a logo is a few kilobytes; more is a mistake, and it would be
/// carried (a third larger, in base64) by every copy of the report.
pub const MAX_LOGO_BYTES: u64 = 1024 * 1024;

/// The image at `path` as a data: URL. Its type comes from its first bytes, not its name:
/// PNG, JPEG, GIF, WebP or SVG.
pub fn read_logo(path: &Path) -> Result<Logo, LogoError> {
    let metadata = std::fs::metadata(path).map_err(LogoError::Unreadable)?;
    if !metadata.is_file() {
        return Err(LogoError::NotAFile);
    }
    if metadata.len() > MAX_LOGO_BYTES {
        return Err(LogoError::TooLarge);
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_LOGO_BYTES + 1).read_to_end(&mut bytes))
        .map_err(LogoError::Unreadable)?;
    if bytes.len() as u64 > MAX_LOGO_BYTES {
        return Err(LogoError::TooLarge);
    }
    let media_type = media_type(&bytes).ok_or(LogoError::NotAnImage)?;
    Ok(Logo {
        data_url: format!(
            "data:{media_type};base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bytes)
        ),
    })
}

/// Why an image cannot be the report's logo.
#[derive(Debug, thiserror::Error)]
pub enum LogoError {
    /// The file could not be read.
    #[error("{0}")]
    Unreadable(std::io::Error),
    /// A directory, or another file that is not a regular one.
    #[error("not a regular file")]
    NotAFile,
    /// Larger than [`MAX_LOGO_BYTES`].
    #[error("larger than {} bytes (1 MiB)", MAX_LOGO_BYTES)]
    TooLarge,
    /// Not an image of a type the report embeds.
    #[error("not a PNG, JPEG, GIF, WebP or SVG image")]
    NotAnImage,
}

/// The media type of an image, from its signature (the formats' magic numbers: PNG
/// section 5.2, JFIF's SOI marker, GIF87a/89a, RIFF....WEBP) or, for SVG, its root element.
fn media_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some("image/png");
    }
    if bytes.starts_with(b"\xFF\xD8\xFF") {
        return Some("image/jpeg");
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some("image/gif");
    }
    if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        return Some("image/webp");
    }
    is_svg(bytes).then_some("image/svg+xml")
}

/// An XML document whose root element is `<svg`: the prolog (declaration, comments,
/// doctype, whitespace) may come first, nothing else.
fn is_svg(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        let skipped = if rest.starts_with("<?") {
            rest.find("?>").map(|end| end + 2)
        } else if rest.starts_with("<!--") {
            rest.find("-->").map(|end| end + 3)
        } else if rest.starts_with("<!DOCTYPE") || rest.starts_with("<!doctype") {
            rest.find('>').map(|end| end + 1)
        } else {
            return rest.starts_with("<svg")
                && rest[4..].starts_with(|next: char| next.is_whitespace() || next == '>');
        };
        match skipped {
            Some(end) => rest = &rest[end..],
            None => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_told_by_their_first_bytes() {
        for (bytes, expected) in [
            (&b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"[..], Some("image/png")),
            (b"\xFF\xD8\xFF\xE0\0\x10JFIF", Some("image/jpeg")),
            (b"GIF89a\x01\0\x01\0", Some("image/gif")),
            (b"GIF87a\x01\0\x01\0", Some("image/gif")),
            (b"RIFF\x24\0\0\0WEBPVP8 ", Some("image/webp")),
            (b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>", Some("image/svg+xml")),
            (
                b"\xEF\xBB\xBF<?xml version=\"1.0\"?>\n<!-- logo -->\n<!DOCTYPE svg>\n<svg>\n</svg>",
                Some("image/svg+xml"),
            ),
            (b"<svgx>", None),
            (b"<html><svg></svg></html>", None),
            (b"<!-- never closed <svg>", None),
            (b"just some text", None),
            (b"RIFF\x24\0\0\0WAVEfmt ", None),
            (b"\x89PN", None),
            (b"", None),
        ] {
            assert_eq!(media_type(bytes), expected, "{bytes:?}");
        }
    }

    #[test]
    fn a_logo_becomes_a_data_url_and_anything_else_a_reason() {
        let directory = tempfile::tempdir().unwrap();
        let png = directory.path().join("logo.png");
        std::fs::write(&png, b"\x89PNG\r\n\x1a\nrest").unwrap();
        let logo = read_logo(&png).unwrap();
        assert_eq!(logo.data_url, "data:image/png;base64,iVBORw0KGgpyZXN0");

        let text = directory.path().join("logo.png.txt");
        std::fs::write(&text, "not an image").unwrap();
        let large = directory.path().join("large.png");
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.resize(MAX_LOGO_BYTES as usize + 1, 0);
        std::fs::write(&large, bytes).unwrap();
        for (path, reason) in [
            (text.as_path(), "not a PNG, JPEG, GIF, WebP or SVG image"),
            (large.as_path(), "larger than 1048576 bytes (1 MiB)"),
            (directory.path(), "not a regular file"),
            (Path::new("/nonexistent/logo.png"), "No such file"),
        ] {
            let error = read_logo(path).unwrap_err().to_string();
            assert!(error.starts_with(reason), "{error}");
            assert_eq!(error.lines().count(), 1, "{error}");
        }
    }
}
