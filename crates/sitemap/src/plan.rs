//! Which file each URL goes into, decided before any file is written.
//!
//! URLs come in groups: one unnamed group for the whole site, or one per section, pattern or
//! language (`--split-by`). A group that fits in one file is one file. A group that does not
//! is split by a stable hash of each URL (xxh3 of the `<loc>`'s path and query, so that a
//! site keeps its files when it moves to another host or to https): the group is a
//! binary tree over the bits of the hash, and a node is a file as soon as its URLs fit. The
//! tree depends only on the URLs of the group and the size of their entries, so the same
//! site gives the same files on every run, and a URL added or removed changes only the file
//! whose slice of the hash it falls in (that file splits in two when it overflows, or merges
//! with its sibling when both fit in one again). Files are numbered as in a binary heap: the
//! whole group is 1, the halves of node `n` are `2n` and `2n + 1`, so a number always names
//! the same slice of the hash space and numbers have gaps.

use std::collections::HashMap;

use xxhash_rust::xxh3::xxh3_64;

use crate::error::SitemapError;
use crate::limits::{Limits, MAX_URLS_PER_FILE};
use crate::options::{Format, NEWS_GROUP, WriteOptions};
use crate::xml::{Entry, URLSET_FOOTER, push_url, urlset_header};

/// The longest group name kept in a file name.
const MAX_GROUP_NAME: usize = 60;

/// Collects the URLs to write, with their group and the size of their entry, and decides the
/// files.
#[derive(Debug)]
pub struct Planner {
    limits: Limits,
    format: Format,
    overhead: u64,
    news: bool,
    groups: Vec<String>,
    group_numbers: HashMap<String, u32>,
    slots: Vec<Slot>,
    buffer: String,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    hash: u64,
    bytes: u32,
    group: u32,
    position: u32,
}

/// The files to write and which file each URL goes into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    files: Vec<PlannedFile>,
    placement: Vec<u32>,
    grouped: bool,
}

/// One file of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// The file's name without its extension: `sitemap-blog`, `sitemap-blog-00002`,
    /// `sitemap-00003`.
    pub stem: String,
    /// The group's file-name-safe name; empty when the site is not split.
    pub group: String,
    /// The URLs it holds.
    pub urls: u64,
}

impl Planner {
    /// A planner for files written with `options`. When several formats are written, give
    /// the options of the largest (XML): a file that fits in XML fits as text.
    pub fn new(options: &WriteOptions) -> Planner {
        let overhead = match options.format {
            Format::Xml => (urlset_header(options).len() + URLSET_FOOTER.len()) as u64,
            Format::Text => 0,
        };
        Planner {
            limits: options.limits,
            format: options.format,
            overhead,
            news: options.news,
            groups: Vec::new(),
            group_numbers: HashMap::new(),
            slots: Vec::new(),
            buffer: String::with_capacity(512),
        }
    }

    /// Adds the next URL, in the order the entries will be visited when writing, with the
    /// name of its group (any text: it is made safe for a file name; empty for no group).
    pub fn add(&mut self, group: &str, entry: &Entry<'_>) -> Result<(), SitemapError> {
        self.buffer.clear();
        match self.format {
            Format::Xml => push_url(&mut self.buffer, entry),
            Format::Text => {
                self.buffer.push_str(entry.loc);
                self.buffer.push('\n');
            }
        }
        let bytes = self.buffer.len() as u64;
        if self.overhead + bytes > self.limits.max_bytes {
            return Err(SitemapError::EntryTooLarge {
                loc: entry.loc.to_string(),
                needed: self.overhead + bytes,
                limit: self.limits.max_bytes,
            });
        }
        let mut name = file_safe_name(group);
        if self.news && name == NEWS_GROUP {
            // `sitemap-news.xml` is the news sitemap's.
            name.push_str("-pages");
        }
        let group = match self.group_numbers.get(&name) {
            Some(&number) => number,
            None => {
                let number = self.groups.len() as u32;
                self.group_numbers.insert(name.clone(), number);
                self.groups.push(name);
                number
            }
        };
        let position = u32::try_from(self.slots.len()).map_err(|_| SitemapError::TooManyFiles {
            max: MAX_URLS_PER_FILE,
        })?;
        self.slots.push(Slot {
            hash: xxh3_64(path_and_query(entry.loc).as_bytes()),
            bytes: bytes as u32,
            group,
            position,
        });
        Ok(())
    }

    /// Decides the files: each group, split by hash where it does not fit in one file. Files
    /// are ordered by name.
    pub fn plan(self) -> Result<Plan, SitemapError> {
        if self.slots.is_empty() {
            return Err(SitemapError::NoEntries);
        }
        let grouped = self.groups.iter().any(|group| !group.is_empty());
        let mut slots = self.slots;
        slots.sort_unstable_by_key(|slot| (slot.group, slot.hash, slot.position));
        let mut leaves: Vec<(String, u64, &[Slot])> = Vec::new();
        for members in slots.chunk_by(|left, right| left.group == right.group) {
            let group = &self.groups[members[0].group as usize];
            let mut nodes = Vec::new();
            split(members, 0, 1, self.limits, self.overhead, &mut nodes)?;
            let single = nodes.len() == 1 && nodes[0].0 == 1;
            for (number, range) in nodes {
                let stem = match (group.is_empty(), single) {
                    (true, _) => format!("sitemap-{number:05}"),
                    (false, true) => format!("sitemap-{group}"),
                    (false, false) => format!("sitemap-{group}-{number:05}"),
                };
                leaves.push((stem, number, range));
            }
        }
        if leaves.len() > MAX_URLS_PER_FILE {
            return Err(SitemapError::TooManyFiles {
                max: MAX_URLS_PER_FILE,
            });
        }
        leaves.sort_by(|left, right| left.0.cmp(&right.0));
        let mut placement = vec![0; slots.len()];
        let mut files = Vec::with_capacity(leaves.len());
        for (index, (stem, _, members)) in leaves.into_iter().enumerate() {
            for slot in members {
                placement[slot.position as usize] = index as u32;
            }
            files.push(PlannedFile {
                stem,
                group: self.groups[members[0].group as usize].clone(),
                urls: members.len() as u64,
            });
        }
        Ok(Plan {
            files,
            placement,
            grouped,
        })
    }
}

/// Splits `members` (sorted by hash; all share the first `depth` bits) into the nodes that
/// fit in one file, numbered as in a binary heap from `number`.
fn split<'a>(
    members: &'a [Slot],
    depth: u32,
    number: u64,
    limits: Limits,
    overhead: u64,
    nodes: &mut Vec<(u64, &'a [Slot])>,
) -> Result<(), SitemapError> {
    if members.is_empty() {
        return Ok(());
    }
    let bytes: u64 = members.iter().map(|slot| u64::from(slot.bytes)).sum();
    if members.len() <= limits.max_urls && overhead + bytes <= limits.max_bytes {
        nodes.push((number, members));
        return Ok(());
    }
    // Sixty-four bits of hash tell any two distinct URLs apart long before this; only a
    // collision of the whole hash gets here, and then no split can separate them.
    if depth >= 48 {
        return Err(SitemapError::TooManyFiles {
            max: MAX_URLS_PER_FILE,
        });
    }
    let bit = 63 - depth;
    let middle = members.partition_point(|slot| (slot.hash >> bit) & 1 == 0);
    let (low, high) = members.split_at(middle);
    split(low, depth + 1, number * 2, limits, overhead, nodes)?;
    split(high, depth + 1, number * 2 + 1, limits, overhead, nodes)
}

impl Plan {
    /// The files, ordered by name.
    pub fn files(&self) -> &[PlannedFile] {
        &self.files
    }

    /// For each URL added, in the order added, the index in [`Plan::files`] of its file.
    pub fn placement(&self) -> &[u32] {
        &self.placement
    }

    /// Whether the URLs are split into named groups: then `sitemap.xml` is always an index.
    pub fn is_grouped(&self) -> bool {
        self.grouped
    }
}

/// What follows the scheme and the authority of `url`: `/a?b` of `https://x.com/a?b`.
fn path_and_query(url: &str) -> &str {
    let Some((_, rest)) = url.split_once("://") else {
        return url;
    };
    rest.find('/').map_or("", |start| &rest[start..])
}

/// `text` made into a part of a file name: lower-case ASCII letters, digits and single
/// hyphens, at most 60 characters, never ending in a hyphen and digits (which would read as
/// a file number). Empty text stays empty; text with nothing usable becomes `group`.
pub fn file_safe_name(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut name = String::with_capacity(text.len().min(MAX_GROUP_NAME));
    for character in text.chars().flat_map(char::to_lowercase) {
        if name.len() >= MAX_GROUP_NAME {
            break;
        }
        if character.is_ascii_alphanumeric() {
            name.push(character);
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    while name.ends_with('-') {
        name.pop();
    }
    if let Some(hyphen) = name.rfind('-')
        && name[hyphen + 1..].bytes().all(|byte| byte.is_ascii_digit())
    {
        name.remove(hyphen);
    }
    if name.is_empty() {
        name.push_str("group");
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_of_the_path_and_query() {
        assert_eq!(path_and_query("https://x.com/a/b?c=d"), "/a/b?c=d");
        assert_eq!(path_and_query("http://127.0.0.1:8080/a"), "/a");
        assert_eq!(path_and_query("https://x.com"), "");
        assert_eq!(path_and_query("relative"), "relative");
    }

    #[test]
    fn group_names_are_safe_for_file_names() {
        for (text, expected) in [
            ("", ""),
            ("blog", "blog"),
            ("Blog", "blog"),
            ("en-US", "en-us"),
            ("%C3%9Cber uns", "c3-9cber-uns"),
            ("Über", "ber"),
            ("a__b--c", "a-b-c"),
            ("--x--", "x"),
            ("../../etc", "etc"),
            ("2024", "2024"),
            ("news-2024", "news2024"),
            ("é", "group"),
        ] {
            assert_eq!(file_safe_name(text), expected, "{text:?}");
        }
        assert_eq!(file_safe_name(&"x".repeat(500)).len(), MAX_GROUP_NAME);
    }
}
