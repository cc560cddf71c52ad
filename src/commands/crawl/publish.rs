//! Publishing a run's sitemaps: which file each listed page goes into (`--split-by`, then a
//! stable hash), writing the files in a staging directory, each child's `<lastmod>` in the
//! index (when its content last changed), and moving what changed into place, or printing it.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use anyhow::Context;
use sitemapper_crawl::CrawlSummary;
use sitemapper_sitemap::{
    Alternate, ChangeFreq, Entry, Plan, Planner, Published, SitemapWriter, Staged, StagingDir,
    WriteOptions, Written, depth_priority, is_valid_hreflang, observed_changefreq,
};
use sitemapper_store::{ListedPage, RunId, SitemapFileRecord, Store};

use super::split::{Grouping, SplitRule, page_language};
use super::{left_as_it_was, staging};
use crate::cli::{ChangefreqRule, PriorityRule};
use crate::exit::Failure;
use crate::settings::{CrawlSettings, OutputTarget};

/// Where the sitemap files are written before they go out.
#[derive(Debug)]
pub(super) enum Staging {
    /// A staging directory inside the output directory, renamed into place.
    Directory(StagingDir),
    /// A temporary directory, printed on stdout and removed.
    Stdout(tempfile::TempDir),
}

impl Staging {
    pub(super) fn create(out: &OutputTarget) -> anyhow::Result<Staging> {
        Ok(match out {
            OutputTarget::Path(directory) => Staging::Directory(StagingDir::create_in(directory)?),
            OutputTarget::Stdout => Staging::Stdout(
                tempfile::Builder::new()
                    .prefix("sitemapper-")
                    .tempdir()
                    .context("cannot create a temporary directory for the sitemap")?,
            ),
        })
    }

    fn path(&self) -> &Path {
        match self {
            Staging::Directory(staging) => staging.path(),
            Staging::Stdout(directory) => directory.path(),
        }
    }

    /// Whether the output directory holds `name` with the bytes just written.
    fn is_published(&self, name: &str) -> bool {
        match self {
            Staging::Directory(staging) => staging.is_published(name),
            Staging::Stdout(_) => false,
        }
    }

    /// Whether the output directory holds a file `name`, whatever its bytes.
    fn exists(&self, name: &str) -> bool {
        match self {
            Staging::Directory(staging) => staging.output().join(name).is_file(),
            Staging::Stdout(_) => false,
        }
    }

    /// The `<lastmod>` of each child in the published index.
    fn published_lastmods(&self) -> HashMap<String, jiff::Timestamp> {
        match self {
            Staging::Directory(staging) => staging.published_lastmods(),
            Staging::Stdout(_) => HashMap::new(),
        }
    }

    /// Moves the written files into place, or prints them on stdout: the one XML sitemap, or
    /// the text files one after the other (the text format has no index to lose). XML that
    /// takes an index and children cannot be printed as one document: a usage error.
    fn publish(self, written: &[Written]) -> Result<Published, Failure> {
        let directory = match self {
            Staging::Directory(staging) => {
                return Ok(staging.publish(&written.iter().collect::<Vec<_>>())?);
            }
            Staging::Stdout(directory) => directory,
        };
        for written in written {
            if written.is_index {
                return Err(Failure::usage(anyhow::anyhow!(
                    "--out -: {} URLs need {} sitemap files and an index, which cannot be printed as one document; give --out DIR, or --format txt",
                    written.urls,
                    written.files.len().saturating_sub(1)
                )));
            }
        }
        let mut out = crate::stdout::lock();
        for name in written.iter().flat_map(|written| &written.files) {
            let path = directory.path().join(name);
            let mut file = std::fs::File::open(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            std::io::copy(&mut file, &mut out).context("cannot write the sitemap to stdout")?;
        }
        out.flush().context("cannot write the sitemap to stdout")?;
        Ok(Published {
            files: Vec::new(),
            unchanged: Vec::new(),
            removed_stale: Vec::new(),
        })
    }
}

/// Writes the listed pages into the staging directory, file by file as planned, and moves
/// them into place (or prints them). Files whose bytes did not change stay as they were. The
/// previous sitemap stays untouched when anything fails before the final renames.
pub(super) fn publish(
    store: &mut Store,
    run: RunId,
    settings: &CrawlSettings,
    summary: &CrawlSummary,
    staging: Staging,
) -> Result<(Vec<Written>, Published), Failure> {
    let listed = store.listed_count(run)?;
    if listed == 0 {
        let why = staging::canonicals_elsewhere(store, run, &summary.scope.root)?
            .first()
            .map(|elsewhere| format!(" ({})", elsewhere.explain(&settings.crawl.host_map)))
            .unwrap_or_default();
        return Err(Failure::fatal(anyhow::anyhow!(
            "no indexable page found under {}{why}; {}",
            summary.scope.root,
            left_as_it_was(settings)
        )));
    }
    let host_map = &settings.crawl.host_map;
    let base_url = settings
        .base_url
        .clone()
        .unwrap_or_else(|| host_map.to_published(&summary.scope.root).to_string());
    let options = |format| WriteOptions {
        limits: settings.limits,
        gzip: settings.gzip,
        base_url: base_url.clone(),
        format,
        images: settings.images,
        alternates: settings.hreflang,
    };
    // XML first: files planned for XML hold the same URLs as text.
    let plan = plan_files(store, run, settings, summary, &options(settings.formats[0]))?;
    let mut writers: Vec<SitemapWriter<'_>> = settings
        .formats
        .iter()
        .map(|&format| SitemapWriter::new(staging.path(), options(format), &plan))
        .collect();
    {
        let store: &Store = store;
        store.for_each_listed_in_files(
            run,
            plan.placement(),
            |file, page| -> anyhow::Result<()> {
                let extras = EntryExtras::of(store, run, settings, &page)?;
                let loc = host_map.publish_text(page.url);
                let entry = extras.entry(&loc, page.lastmod);
                for writer in &mut writers {
                    writer.push(file, &entry)?;
                }
                Ok(())
            },
        )?;
    }
    let staged = writers
        .into_iter()
        .map(SitemapWriter::finish)
        .collect::<Result<Vec<_>, _>>()?;
    let changed_at = file_lastmods(store, &staged, &staging)?;
    let written = staged
        .into_iter()
        .map(|staged| staged.write_index(|child| changed_at.get(&child.name).copied()))
        .collect::<Result<Vec<_>, _>>()?;
    let keeps_files = matches!(staging, Staging::Directory(_));
    let published = staging.publish(&written)?;
    if keeps_files {
        let records: Vec<SitemapFileRecord> = written
            .iter()
            .flat_map(|written| &written.children)
            .filter_map(|child| {
                Some(SitemapFileRecord {
                    name: child.name.clone(),
                    digest: child.digest,
                    changed_at: *changed_at.get(&child.name)?,
                })
            })
            .collect();
        store.record_sitemap_files(&records)?;
    }
    Ok((written, published))
}

/// Decides which file each listed page goes into: its group (`--split-by`), then a stable
/// hash of its URL where a group needs several files.
fn plan_files(
    store: &Store,
    run: RunId,
    settings: &CrawlSettings,
    summary: &CrawlSummary,
    options: &WriteOptions,
) -> anyhow::Result<Plan> {
    let host_map = &settings.crawl.host_map;
    let mut grouping = Grouping::new(&settings.split, &summary.scope.root);
    if grouping.needs_sections() {
        store.for_each_listed(run, |page| -> anyhow::Result<()> {
            grouping.learn(page.url);
            Ok(())
        })?;
    }
    let mut planner = Planner::new(options);
    store.for_each_listed(run, |page| -> anyhow::Result<()> {
        let extras = EntryExtras::of(store, run, settings, &page)?;
        let loc = host_map.publish_text(page.url);
        let alternates = if settings.split.needs_language() {
            store.listed_alternates_of(run, page.url)?
        } else {
            Vec::new()
        };
        let language = page_language(page.url, &alternates, page.lang);
        let group = match settings.split {
            SplitRule::Section => grouping.group_of(page.url, None),
            _ => grouping.group_of(&loc, language),
        };
        planner.add(group, &extras.entry(&loc, page.lastmod))?;
        Ok(())
    })?;
    Ok(planner.plan()?)
}

/// The `<lastmod>` of each file in the index: the time its content last changed. Content the
/// crawl database recorded with the same digest keeps its recorded time; a file published
/// with the same bytes keeps the time the published index gives it; a changed file gets now;
/// a file never published before gets the newest `<lastmod>` of its entries (now, if none
/// has one).
fn file_lastmods(
    store: &Store,
    staged: &[Staged],
    staging: &Staging,
) -> anyhow::Result<HashMap<String, jiff::Timestamp>> {
    let now = jiff::Timestamp::from_second(jiff::Timestamp::now().as_second())?;
    let recorded = store.sitemap_files()?;
    let published = staging.published_lastmods();
    let mut lastmods = HashMap::new();
    for child in staged.iter().flat_map(Staged::children) {
        let known = recorded
            .get(&child.name)
            .filter(|record| record.digest == child.digest)
            .map(|record| record.changed_at);
        let lastmod = match known {
            Some(time) => time,
            None if staging.is_published(&child.name) => published
                .get(&child.name)
                .copied()
                .or(child.newest)
                .unwrap_or(now),
            None if recorded.contains_key(&child.name) || staging.exists(&child.name) => now,
            None => child.newest.unwrap_or(now),
        };
        lastmods.insert(child.name.clone(), lastmod);
    }
    Ok(lastmods)
}

/// The optional parts of one entry, as the settings ask for them.
struct EntryExtras {
    changefreq: Option<ChangeFreq>,
    priority: Option<f64>,
    images: Vec<String>,
    alternates: Vec<Alternate>,
}

impl EntryExtras {
    /// The entry of `loc` with these extras.
    fn entry<'a>(&'a self, loc: &'a str, lastmod: Option<jiff::Timestamp>) -> Entry<'a> {
        Entry {
            changefreq: self.changefreq,
            priority: self.priority,
            images: &self.images,
            alternates: &self.alternates,
            ..Entry::new(loc, lastmod)
        }
    }

    fn of(
        store: &Store,
        run: RunId,
        settings: &CrawlSettings,
        page: &ListedPage<'_>,
    ) -> anyhow::Result<EntryExtras> {
        let host_map = &settings.crawl.host_map;
        let images = if settings.images {
            store
                .images_of(page.url)?
                .iter()
                .map(|image| host_map.publish_text(image).into_owned())
                .collect()
        } else {
            Vec::new()
        };
        let alternates = if settings.hreflang {
            store
                .listed_alternates_of(run, page.url)?
                .into_iter()
                .filter(|(hreflang, _)| is_valid_hreflang(hreflang))
                .map(|(hreflang, href)| Alternate {
                    hreflang,
                    href: host_map.publish_text(&href).into_owned(),
                })
                .collect()
        } else {
            Vec::new()
        };
        let changefreq = match settings.changefreq {
            Some(ChangefreqRule::Observed) => observed_changefreq(&store.change_times(page.url)?),
            None => None,
        };
        let priority = settings.priority.map(|rule| match rule {
            PriorityRule::Depth => depth_priority(page.depth),
        });
        Ok(EntryExtras {
            changefreq,
            priority,
            images,
            alternates,
        })
    }
}
