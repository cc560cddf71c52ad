//! The fleet file: `[defaults]` and one `[[site]]` a site, read and checked into [`Fleet`].
//!
//! A site's keys are of two kinds. The fleet's own (`name`, `url`, `out`, `every`, `cron`,
//! `retry`, `publish`) say what the site is and when it runs; every other key is a crawl
//! option, kept as written (with its line) for the binary, which knows the crawl's options,
//! to check. `[defaults]` may hold both kinds; a site's own key wins.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::Timestamp;
use serde::Deserialize;
use toml::Spanned;

use crate::place::place_of;
use crate::schedule::{Schedule, parse_duration};

/// The largest fleet file read: thousands of sites fit in far less.
const MAX_FLEET_BYTES: u64 = 64 * 1024 * 1024;

/// How long a failed site waits before it is tried again, unless `retry` says otherwise.
pub const DEFAULT_RETRY: Duration = Duration::from_secs(60 * 60);

/// The placeholder in `out` that becomes the site's name.
const NAME_PLACEHOLDER: &str = "{name}";

/// The fleet's own keys; every other key of a site is a crawl option.
pub const FLEET_KEYS: [&str; 7] = ["name", "url", "out", "every", "cron", "retry", "publish"];

/// The longest site name: it names files.
const MAX_NAME_LENGTH: usize = 100;

/// A fleet file that cannot be used: the file, and where in it (`[defaults]` or the site, and
/// the line).
#[derive(Debug, thiserror::Error)]
pub enum FleetFileError {
    /// The file cannot be read.
    #[error("cannot read fleet file {path}: {message}")]
    Read {
        /// The fleet file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A mistake in the file, at a line.
    #[error("invalid fleet file {path}, {place}line {line}: {message}")]
    Invalid {
        /// The fleet file.
        path: PathBuf,
        /// The part of the file the mistake is in.
        place: FilePart,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A site's `url` is not an absolute http or https URL. A variant of its own, so that
    /// the binary, which knows what a URL typed without its scheme meant, can say so.
    #[error("invalid fleet file {path}, line {line}: {error}")]
    Url {
        /// The fleet file.
        path: PathBuf,
        /// The line of the `url`, from 1.
        line: usize,
        /// What is wrong with it.
        error: SiteUrlError,
    },
}

/// The part of a fleet file a mistake is in, said before its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilePart {
    /// None is named: the file's TOML, its list of sites, or a site before its name is known.
    Unnamed,
    /// `[defaults]`, which every site takes from.
    Defaults,
    /// The site of this name.
    Site(String),
}

/// `[defaults], ` or `site "NAME", `: what the line is in, before `line N`.
impl std::fmt::Display for FilePart {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilePart::Unnamed => Ok(()),
            FilePart::Defaults => formatter.write_str("[defaults], "),
            FilePart::Site(name) => write!(formatter, "site \"{name}\", "),
        }
    }
}

/// A site name that cannot name files and records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SiteNameError {
    /// Empty, or longer than the longest name.
    #[error("a site name has 1 to {MAX_NAME_LENGTH} characters")]
    Length,
    /// A character outside letters, digits, `.`, `_` and `-`, or a leading `.`.
    #[error("site name {name:?}: use letters, digits, '.', '_' and '-', not starting with '.'")]
    Characters {
        /// The name refused.
        name: String,
    },
}

/// A site's `url` that is not an absolute http or https URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SiteUrlError {
    /// A URL of another scheme, or without a host.
    #[error("`url` {text:?} is not an http or https URL")]
    NotHttp {
        /// As written.
        text: String,
    },
    /// Not a URL.
    #[error("`url` {text:?} is not a URL: {error}")]
    Unreadable {
        /// As written.
        text: String,
        /// Why the URL parser refused it (in the message already, so not its source).
        error: url::ParseError,
    },
}

impl SiteUrlError {
    /// The `url` as written.
    pub fn text(&self) -> &str {
        match self {
            SiteUrlError::NotHttp { text } | SiteUrlError::Unreadable { text, .. } => text,
        }
    }
}

/// The sites of a fleet file, checked.
#[derive(Debug, Clone)]
pub struct Fleet {
    /// The fleet file.
    pub path: PathBuf,
    /// In the order of the file.
    pub sites: Vec<SiteSpec>,
}

/// One site of a fleet: what it is, when it runs, and its crawl options.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteSpec {
    /// Unique in the fleet; names the site's files and its records.
    pub name: String,
    /// The seed URL, as written.
    pub url: String,
    /// Where the site's sitemaps are published (`{name}` replaced; a relative path is
    /// relative to the fleet file's directory).
    pub out: PathBuf,
    /// When it runs.
    pub schedule: Schedule,
    /// How long a failed site waits before it is tried again.
    pub retry: Duration,
    /// A shell command run after each successful publish (rsync, an upload), or none.
    pub publish: Option<String>,
    /// The crawl options: the defaults' with the site's own over them, as written.
    pub options: BTreeMap<String, SiteOption>,
    /// The line of the site's `[[site]]` table (0 for a site read back from a registry).
    pub line: usize,
}

/// A crawl option of a site, as written in the fleet file.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteOption {
    /// The value, as written.
    pub value: toml::Value,
    /// Where it is written (a default's line when the site does not set it).
    pub line: usize,
    /// Written in `[defaults]`, not in the site's own table.
    pub from_defaults: bool,
}

impl SiteSpec {
    /// The part of the fleet file `option` of this site is written in, to blame for a
    /// mistake in it: `[defaults]`, whichever site meets it first, or the site.
    pub fn part_of(&self, option: &SiteOption) -> FilePart {
        if option.from_defaults {
            FilePart::Defaults
        } else {
            FilePart::Site(self.name.clone())
        }
    }

    /// The crawl options as one table, the shape of a config file.
    pub fn options_table(&self) -> toml::Table {
        self.options
            .iter()
            .map(|(key, option)| (key.clone(), option.value.clone()))
            .collect()
    }
}

/// A table of the file with the line of each key.
type RawTable = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFleet {
    #[serde(default)]
    defaults: Option<Spanned<RawTable>>,
    #[serde(default)]
    site: Vec<Spanned<RawTable>>,
}

impl Fleet {
    /// Reads and checks the fleet file at `path`.
    pub fn load(path: &Path) -> Result<Fleet, FleetFileError> {
        let text = read_fleet(path)?;
        Fleet::parse(path, &text)
    }

    /// Checks the text of a fleet file; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Fleet, FleetFileError> {
        let invalid = |place: FilePart, line: usize, message: String| FleetFileError::Invalid {
            path: path.to_path_buf(),
            place,
            line,
            message,
        };
        let lines = LineStarts::of(text);
        let raw: RawFleet = toml::from_str(text).map_err(|error| {
            let line = error.span().map_or(1, |span| lines.line_of(span.start));
            let message = error.message().lines().next().unwrap_or("invalid TOML");
            invalid(FilePart::Unnamed, line, message.to_string())
        })?;
        if raw.site.is_empty() {
            return Err(invalid(
                FilePart::Unnamed,
                lines.line_of(text.len()),
                "no site: add a [[site]] table with a `url` for each site".to_string(),
            ));
        }
        let defaults = raw
            .defaults
            .map(|table| lined(&lines, table.into_inner(), true))
            .unwrap_or_default();
        check_defaults(&defaults)
            .map_err(|mistake| invalid(mistake.place, mistake.line, mistake.message))?;
        let mut sites = Vec::with_capacity(raw.site.len());
        let mut names = BTreeMap::<String, usize>::new();
        // By the place each `out` names, and as the site wrote it.
        let mut outs = HashMap::<PathBuf, (String, usize, PathBuf)>::new();
        for table in raw.site {
            let line = lines.line_of(table.span().start);
            let own = lined(&lines, table.into_inner(), false);
            // Before the rest of the site: a site is named after its URL.
            if let Some(SiteOption {
                value: toml::Value::String(url),
                line: url_line,
                ..
            }) = own.get("url")
                && !url.trim().is_empty()
                && let Err(error) = check_url(url)
            {
                return Err(FleetFileError::Url {
                    path: path.to_path_buf(),
                    line: *url_line,
                    error,
                });
            }
            let mut site = SiteSpec::build(&defaults, own, line)
                .map_err(|mistake| invalid(mistake.place, mistake.line, mistake.message))?;
            // Relative to the fleet file, wherever the command runs from (cron's directory is
            // the user's home).
            if site.out.is_relative() {
                site.out = path.parent().unwrap_or(Path::new("")).join(&site.out);
            }
            if let Some(first) = names.insert(site.name.clone(), line) {
                return Err(invalid(
                    FilePart::Site(site.name.clone()),
                    line,
                    format!(
                        "the name is taken by the site at line {first}: give one of them another `name`"
                    ),
                ));
            }
            // Two sites publishing into one directory would take turns replacing each other's
            // sitemap.xml (and lock each other out): compared as the places they name, so
            // that `o/x/../common` or a symlink to it is the same directory as `o/common`.
            let place = place_of(&site.out);
            if let Some((other, first, other_out)) =
                outs.insert(place.clone(), (site.name.clone(), line, site.out.clone()))
            {
                let both = if other_out == site.out {
                    String::new()
                } else {
                    format!(
                        ", `out` {}; both are {}",
                        other_out.display(),
                        place.display()
                    )
                };
                return Err(invalid(
                    FilePart::Site(site.name.clone()),
                    line,
                    format!(
                        "`out` {} is also the site \"{other}\"'s (line {first}{both}): each site needs a directory of its own",
                        site.out.display()
                    ),
                ));
            }
            sites.push(site);
        }
        Ok(Fleet {
            path: path.to_path_buf(),
            sites,
        })
    }

    /// The site named `name`.
    pub fn site(&self, name: &str) -> Option<&SiteSpec> {
        self.sites.iter().find(|site| site.name == name)
    }

    /// The latest a site of the fleet can have been added: when the fleet file last changed
    /// (now, when that cannot be read).
    pub fn known_since(&self) -> Timestamp {
        std::fs::metadata(&self.path)
            .and_then(|metadata| metadata.modified())
            .ok()
            .and_then(|modified| Timestamp::try_from(modified).ok())
            .unwrap_or_else(Timestamp::now)
    }

    /// Where `fleet run` keeps the sites' databases and runs when not told: the fleet file's
    /// name with `.state`, beside it.
    pub fn state_dir(&self) -> PathBuf {
        let stem = self.path.file_stem().unwrap_or_default().to_string_lossy();
        self.path.with_file_name(format!("{stem}.state"))
    }

    /// The names of the sites, sorted.
    pub fn names(&self) -> BTreeSet<&str> {
        self.sites.iter().map(|site| site.name.as_str()).collect()
    }
}

/// A key's value and line.
type Lined = BTreeMap<String, SiteOption>;

/// The keys of `table` with their lines; `from_defaults`: the table is `[defaults]`.
fn lined(lines: &LineStarts, table: RawTable, from_defaults: bool) -> Lined {
    table
        .into_iter()
        .map(|(key, value)| {
            let line = lines.line_of(key.span().start);
            (
                key.into_inner(),
                SiteOption {
                    value: value.into_inner(),
                    line,
                    from_defaults,
                },
            )
        })
        .collect()
}

/// A mistake in `[defaults]` or a site, before it is placed in the file.
struct SiteMistake {
    place: FilePart,
    line: usize,
    message: String,
}

/// The text of `key` in `table`, and its line; `place` is blamed when it is no string.
fn text_of(
    table: &Lined,
    key: &str,
    place: &FilePart,
) -> Result<Option<(String, usize)>, SiteMistake> {
    match table.get(key) {
        None => Ok(None),
        Some(SiteOption {
            value: toml::Value::String(text),
            line,
            ..
        }) => Ok(Some((text.clone(), *line))),
        Some(option) => Err(SiteMistake {
            place: place.clone(),
            line: option.line,
            message: format!("`{key}` must be a string"),
        }),
    }
}

/// The fleet's own keys of `[defaults]`, checked on their own: a mistake there is the
/// defaults', whichever site would have met it first (or none, where every site sets its
/// own). The crawl options are the binary's to check.
fn check_defaults(defaults: &Lined) -> Result<(), SiteMistake> {
    let place = FilePart::Defaults;
    let mistake = |line: usize, message: String| SiteMistake {
        place: FilePart::Defaults,
        line,
        message,
    };
    for key in ["name", "url"] {
        if let Some(option) = defaults.get(key) {
            return Err(mistake(
                option.line,
                format!("`{key}` names one site: it cannot be a default"),
            ));
        }
    }
    for key in ["out", "publish"] {
        text_of(defaults, key, &place)?;
    }
    let every = text_of(defaults, "every", &place)?;
    let cron = text_of(defaults, "cron", &place)?;
    match (every, cron) {
        (Some((_, every_at)), Some((_, cron_at))) => {
            return Err(mistake(
                every_at.max(cron_at),
                "`every` and `cron` both set: choose one".to_string(),
            ));
        }
        (Some((every, at)), None) => {
            Schedule::every(&every).map_err(|error| mistake(at, error.to_string()))?;
        }
        (None, Some((cron, at))) => {
            Schedule::cron(&cron).map_err(|error| mistake(at, error.to_string()))?;
        }
        (None, None) => {}
    }
    if let Some((retry, at)) = text_of(defaults, "retry", &place)? {
        parse_duration(&retry).map_err(|error| mistake(at, error.to_string()))?;
    }
    Ok(())
}

impl SiteSpec {
    /// The site of the table `own` at `line`, over `defaults` (checked by `check_defaults`).
    fn build(defaults: &Lined, own: Lined, line: usize) -> Result<SiteSpec, SiteMistake> {
        let mut merged = defaults.clone();
        merged.extend(own.clone());
        let text = |key: &str| text_of(&merged, key, &FilePart::Unnamed);
        let url = match own.contains_key("url").then(|| text("url")).transpose()? {
            // Checked by `Fleet::parse`.
            Some(Some((url, _))) if !url.trim().is_empty() => url,
            _ => {
                return Err(SiteMistake {
                    place: FilePart::Unnamed,
                    line,
                    message: "the site has no `url`".to_string(),
                });
            }
        };
        // The site's own: `check_defaults` refuses a default name.
        let name = match text("name")? {
            Some((name, name_line)) => {
                check_name(&name).map_err(|error| SiteMistake {
                    place: FilePart::Site(name.clone()),
                    line: name_line,
                    message: error.to_string(),
                })?;
                name
            }
            None => name_from_url(&url).ok_or_else(|| SiteMistake {
                place: FilePart::Unnamed,
                line,
                message: format!(
                    "no name can be made from the URL {url:?}: give the site a `name`"
                ),
            })?,
        };
        let in_site = |message: String, at: usize| SiteMistake {
            place: FilePart::Site(name.clone()),
            line: at,
            message,
        };
        let Some((out, _)) = text("out")? else {
            return Err(in_site(
                "the site has no `out` directory (set it, or `out = \"DIR/{name}\"` in [defaults])"
                    .to_string(),
                line,
            ));
        };
        // A site's own schedule replaces the default one, whichever kind each is.
        let own_schedule = own.contains_key("every") || own.contains_key("cron");
        let schedule_key = |key: &str| {
            if own_schedule && !own.contains_key(key) {
                Ok(None)
            } else {
                text(key)
            }
        };
        let schedule = match (schedule_key("every")?, schedule_key("cron")?) {
            (Some((_, every_at)), Some((_, cron_at))) => {
                return Err(in_site(
                    "`every` and `cron` both set: choose one".to_string(),
                    every_at.max(cron_at),
                ));
            }
            (Some((every, at)), None) => {
                Schedule::every(&every).map_err(|error| in_site(error.to_string(), at))?
            }
            (None, Some((cron, at))) => {
                Schedule::cron(&cron).map_err(|error| in_site(error.to_string(), at))?
            }
            (None, None) => Schedule::default(),
        };
        let retry = match text("retry")? {
            Some((retry, at)) => {
                parse_duration(&retry).map_err(|error| in_site(error.to_string(), at))?
            }
            None => DEFAULT_RETRY,
        };
        let publish = text("publish")?.map(|(command, _)| command);
        merged.retain(|key, _| !FLEET_KEYS.contains(&key.as_str()));
        Ok(SiteSpec {
            out: PathBuf::from(out.replace(NAME_PLACEHOLDER, &name)),
            name,
            url,
            schedule,
            retry,
            publish,
            options: merged,
            line,
        })
    }
}

/// A seed is an absolute http or https URL (the crawl checks the rest).
fn check_url(text: &str) -> Result<(), SiteUrlError> {
    match url::Url::parse(text.trim()) {
        Ok(url) if matches!(url.scheme(), "http" | "https") && url.has_host() => Ok(()),
        Ok(_) => Err(SiteUrlError::NotHttp {
            text: text.to_string(),
        }),
        Err(error) => Err(SiteUrlError::Unreadable {
            text: text.to_string(),
            error,
        }),
    }
}

/// A site name names files and records: letters, digits, `.`, `_` and `-`, not starting
/// with `.`, at most 100 characters.
pub fn check_name(name: &str) -> Result<(), SiteNameError> {
    let allowed = |character: char| character.is_ascii_alphanumeric() || "._-".contains(character);
    if name.is_empty() || name.len() > MAX_NAME_LENGTH {
        return Err(SiteNameError::Length);
    }
    if name.starts_with('.') || !name.chars().all(allowed) {
        return Err(SiteNameError::Characters {
            name: name.to_string(),
        });
    }
    Ok(())
}

/// The name of a site with no `name`: its host and port, and its path's segments, joined by
/// `-` (`https://example.com/blog/` is `example.com-blog`).
fn name_from_url(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    let mut name = String::new();
    for part in rest.split('/').filter(|part| !part.is_empty()) {
        if !name.is_empty() {
            name.push('-');
        }
        for character in part.chars() {
            name.push(match character {
                ':' => '_',
                c if c.is_ascii_alphanumeric() || "._-".contains(c) => c.to_ascii_lowercase(),
                _ => '_',
            });
        }
    }
    name.truncate(MAX_NAME_LENGTH);
    check_name(&name).ok().map(|()| name)
}

fn read_fleet(path: &Path) -> Result<String, FleetFileError> {
    let failed = |message: String| FleetFileError::Read {
        path: path.to_path_buf(),
        message,
    };
    let metadata = std::fs::metadata(path).map_err(|error| failed(error.to_string()))?;
    if !metadata.is_file() {
        return Err(failed("not a regular file".to_string()));
    }
    let file = std::fs::File::open(path).map_err(|error| failed(error.to_string()))?;
    let mut text = String::new();
    file.take(MAX_FLEET_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|error| failed(error.to_string()))?;
    if text.len() as u64 > MAX_FLEET_BYTES {
        return Err(failed(format!(
            "larger than {MAX_FLEET_BYTES} bytes, the most read"
        )));
    }
    Ok(text)
}

/// Where each line of a text starts, so that the line of any offset is a binary search away:
/// a fleet of 100,000 sites asks for hundreds of thousands of lines, and counting newlines
/// from the start for each made reading the file quadratic.
struct LineStarts {
    /// The offset of each line's first byte, from 0; the first is 0.
    starts: Vec<usize>,
}

impl LineStarts {
    fn of(text: &str) -> LineStarts {
        let starts = std::iter::once(0)
            .chain(
                text.bytes()
                    .enumerate()
                    .filter(|(_, byte)| *byte == b'\n')
                    .map(|(offset, _)| offset + 1),
            )
            .collect();
        LineStarts { starts }
    }

    /// The line, from 1, of the byte at `offset`.
    fn line_of(&self, offset: usize) -> usize {
        // The lines that start at or before `offset`: the first always does.
        self.starts.partition_point(|start| *start <= offset).max(1)
    }
}

#[cfg(test)]
mod tests;
