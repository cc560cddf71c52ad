//! What a user probably meant by an `--out` that cannot be what was written: an `--out`
//! ending in `sitemap.xml` names the file the run writes rather than the directory it is
//! written into. It is refused before any request, with what to type instead, on one line.
//! (A seed's mistakes are the site crate's `SeedMistake`.)

use std::path::Path;

use anyhow::bail;
use sitemapper_site::shell_word;

/// `--out` is the directory the sitemaps are written into: a path ending as a sitemap file
/// does was meant as that file, and a file that exists cannot be the directory.
pub(super) fn check_out_directory(out: &Path) -> anyhow::Result<()> {
    if out.as_os_str() == "-" {
        return Ok(());
    }
    let name = out.to_string_lossy().to_ascii_lowercase();
    if [".xml", ".xml.gz", ".txt"]
        .iter()
        .any(|extension| name.ends_with(extension))
    {
        let parent = match out.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        bail!(
            "--out {} names a file; --out is the directory sitemap.xml is written into: \
             did you mean --out {}?",
            out.display(),
            shell_word(parent)
        );
    }
    if out.exists() && !out.is_dir() {
        bail!(
            "--out {} is a file, not a directory: give the directory the sitemaps are written into",
            out.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests;
