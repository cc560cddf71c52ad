//! `--news` and `--news-language`, checked into the news sitemap's settings.

use anyhow::bail;
use sitemapper_site::NewsSettings;

use crate::cli::FormatName;

/// The news sitemap of publication `name` (`--news`), in `language` for pages that do not
/// say theirs (`--news-language`): a name, a language Google reads, and the XML format the
/// news sitemap is written in. `None` without `--news`.
pub(super) fn news_settings(
    name: Option<&str>,
    language: Option<&str>,
    formats: &[FormatName],
) -> anyhow::Result<Option<NewsSettings>> {
    let Some(name) = name.map(str::trim) else {
        if language.is_some() {
            bail!("--news-language is the language of the news sitemap: give --news NAME too");
        }
        return Ok(None);
    };
    if name.is_empty() {
        bail!("--news needs the publication's name, as Google News knows it");
    }
    if !formats.contains(&FormatName::Xml) {
        bail!("--news writes an XML sitemap: add xml to --format");
    }
    let language = language
        .map(|tag| {
            sitemapper_extract::news_language(tag).ok_or_else(|| {
                anyhow::anyhow!(
                    "--news-language {tag:?} is not a language code: give an ISO 639 code such as en, de or zh-cn"
                )
            })
        })
        .transpose()?;
    Ok(Some(NewsSettings {
        publication: name.to_string(),
        language,
    }))
}
