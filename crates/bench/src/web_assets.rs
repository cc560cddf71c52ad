//! The files the pages of the site that looks like the web load: the images of their figures
//! (`/assets/img/N.webp`, 640 by 360, and `N@2x.webp` for sharp screens), the style sheet and
//! the script, as a server of the site's files answers them (any query, such as `?v=3.2.1`,
//! names the same file). Their sizes are those of real documentation sites: 30 to 90 KB for an
//! image, twice that for its sharp copy, a 40 KB style sheet and a 120 KB script. An audit checks
//! them; a crawl never asks for them.

use bytes::Bytes;

use crate::server::Reply;
use crate::site::SplitMix;

/// How many images the figures show: figure images are `random.below(IMAGES)`.
pub(crate) const IMAGES: u64 = 500;

/// The asset at `path`, if it is one of the site's.
pub(crate) fn asset(path: &str) -> Option<Reply> {
    match path {
        "/assets/site.css" => Some(Reply::new(
            "text/css",
            text(".doc .item>a:hover{color:#2a6;margin:0 4px}\n", 40 * 1024),
        )),
        "/assets/app.js" => Some(Reply::new(
            "text/javascript",
            text(
                "function n(e){return document.querySelector(e)}\n",
                120 * 1024,
            ),
        )),
        _ => {
            let name = path.strip_prefix("/assets/img/")?.strip_suffix(".webp")?;
            let (digits, scale) = match name.strip_suffix("@2x") {
                Some(digits) => (digits, 2),
                None => (name, 1),
            };
            let number: u64 = digits.parse().ok()?;
            if number >= IMAGES || number.to_string() != digits {
                return None;
            }
            let size = (30 * 1024 + SplitMix(number).below(60 * 1024)) * scale;
            Some(Reply::new(
                "image/webp",
                webp(
                    640 * scale as u32,
                    360 * scale as u32,
                    size as usize,
                    number,
                ),
            ))
        }
    }
}

/// `line` repeated to `size` bytes.
fn text(line: &str, size: usize) -> Bytes {
    Bytes::from(line.repeat(size / line.len() + 1).into_bytes())
}

/// A WebP file of `width` by `height` of `size` bytes: the extended header that names the
/// canvas (RIFF, `VP8X`), then bytes that do not compress, as an image's do not.
fn webp(width: u32, height: u32, size: usize, seed: u64) -> Bytes {
    let mut file = Vec::with_capacity(size.max(30));
    file.extend_from_slice(b"RIFF");
    file.extend_from_slice(&(size.max(30) as u32 - 8).to_le_bytes());
    file.extend_from_slice(b"WEBPVP8X");
    file.extend_from_slice(&10u32.to_le_bytes());
    file.extend_from_slice(&[0; 4]);
    file.extend_from_slice(&(width - 1).to_le_bytes()[..3]);
    file.extend_from_slice(&(height - 1).to_le_bytes()[..3]);
    let mut random = SplitMix(seed ^ u64::from(width));
    while file.len() < size {
        file.extend_from_slice(&random.next().to_le_bytes());
    }
    file.truncate(size.max(30));
    Bytes::from(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_images_say_their_size_and_the_other_paths_are_not_assets() {
        let image = asset("/assets/img/7.webp").unwrap();
        assert_eq!(image.content_type, "image/webp");
        assert_eq!(
            imagesize::blob_size(&image.body).unwrap(),
            imagesize::ImageSize {
                width: 640,
                height: 360
            }
        );
        let sharp = asset("/assets/img/7@2x.webp").unwrap();
        assert_eq!(imagesize::blob_size(&sharp.body).unwrap().width, 1280);
        assert!(sharp.body.len() > image.body.len());
        assert!((30 * 1024..200 * 1024).contains(&image.body.len()));
        assert!(asset("/assets/app.js").unwrap().body.len() >= 120 * 1024);
        for path in [
            "/assets/img/500.webp",
            "/assets/img/07.webp",
            "/assets/img/x.webp",
            "/",
        ] {
            assert!(asset(path).is_none(), "{path}");
        }
    }
}
