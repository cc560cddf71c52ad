//! Publishing a run's sitemaps: which file each listed page goes into (`--split-by`, then a
//! stable hash), writing the files in a staging directory, each child's `<lastmod>` in the
//! index (when its content last changed), and moving what changed into place, or printing it.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use sitemapper_crawl::CrawlSummary;
use sitemapper_sitemap::{
    Alternate, ChangeFreq, Entry, Format, Plan, Planner, Published, SitemapWriter, Staged,
    StagingDir, WriteOptions, Written, depth_priority, is_valid_hreflang, observed_changefreq,
    write_news,
};
use sitemapper_store::{ListedPage, RunId, SitemapFileRecord, Store};

use sitemapper_sitemap::{Grouping, SplitRule, page_language};

use crate::elsewhere::canonicals_elsewhere;
use crate::error::SiteError;
use crate::media::{MediaReport, PageEntries, news_entries, video_entries};
use crate::output_target::OutputTarget;
use crate::settings::{ChangefreqRule, PriorityRule, SiteSettings};
use crate::stdout::Stdout;

/// Where the sitemap files are written before they go out.
#[derive(Debug)]
pub(crate) enum Staging {
    /// A staging directory inside the output directory, renamed into place.
    Directory(StagingDir),
    /// A temporary directory, printed on stdout and removed.
    Stdout(tempfile::TempDir),
}

impl Staging {
    pub(crate) fn create(out: &OutputTarget) -> Result<Staging, SiteError> {
        Ok(match out {
            OutputTarget::Path(directory) => Staging::Directory(StagingDir::create_in(directory)?),
            OutputTarget::Stdout => Staging::Stdout(
                tempfile::Builder::new()
                    .prefix("sitemapper-")
                    .tempdir()
                    .map_err(SiteError::io(
                        "cannot create a temporary directory for the sitemap",
                    ))?,
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
    fn publish(self, written: &[Written], stdout: &dyn Stdout) -> Result<Published, SiteError> {
        let directory = match self {
            Staging::Directory(staging) => {
                return Ok(staging.publish(&written.iter().collect::<Vec<_>>())?);
            }
            Staging::Stdout(directory) => directory,
        };
        for written in written {
            if written.is_index {
                return Err(SiteError::IndexOnStdout {
                    urls: written.urls,
                    files: written.files.len().saturating_sub(1),
                });
            }
        }
        let mut out = stdout.output();
        for name in written.iter().flat_map(|written| &written.files) {
            let path = directory.path().join(name);
            let mut file = std::fs::File::open(&path)
                .map_err(SiteError::io(format!("cannot read {}", path.display())))?;
            std::io::copy(&mut file, &mut out)
                .map_err(SiteError::io("cannot write the sitemap to stdout"))?;
        }
        out.flush()
            .map_err(SiteError::io("cannot write the sitemap to stdout"))?;
        Ok(Published {
            files: Vec::new(),
            unchanged: Vec::new(),
            removed_stale: Vec::new(),
        })
    }
}

/// What publishing wrote: the files of each format, what was moved into place, and the
/// videos and news articles the files carry.
pub(crate) type PublishedRun = (Vec<Written>, Published, MediaReport);

/// Writes the listed pages into the staging directory, file by file as planned, and the
/// news sitemap beside them, and moves them into place (or prints them). Files whose bytes
/// did not change stay as they were. The previous sitemap stays untouched when anything
/// fails before the final renames.
pub(crate) fn publish(
    store: &mut Store,
    run: RunId,
    settings: &SiteSettings,
    summary: &CrawlSummary,
    staging: Staging,
    stdout: &dyn Stdout,
) -> Result<PublishedRun, SiteError> {
    let listed = store.listed_count(run)?;
    if listed == 0 {
        let why = canonicals_elsewhere(store, run, &summary.scope.root)?
            .first()
            .map(|elsewhere| format!(" ({})", elsewhere.explain(&settings.crawl.host_map)))
            .unwrap_or_default();
        return Err(SiteError::NothingListed {
            scope: summary.scope.root.to_string(),
            why,
            untouched: settings.untouched(),
        });
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
        videos: settings.video,
        news: settings.news.is_some(),
    };
    // XML first: files planned for XML hold the same URLs as text.
    let plan = plan_files(store, run, settings, summary, &options(settings.formats[0]))?;
    let mut writers: Vec<SitemapWriter<'_>> = settings
        .formats
        .iter()
        .map(|&format| SitemapWriter::new(staging.path(), options(format), &plan))
        .collect();
    let mut media = MediaReport::default();
    {
        let store: &Store = store;
        store.for_each_listed_in_files(
            run,
            plan.placement(),
            |file, page| -> Result<(), SiteError> {
                let extras = EntryExtras::of(store, run, settings, &page)?;
                media.add_page(page.url, &extras.videos);
                let loc = host_map.publish_text(page.url);
                let entry = extras.entry(&loc, page.lastmod);
                for writer in &mut writers {
                    writer.push(file, &entry)?;
                }
                Ok(())
            },
        )?;
    }
    if let Some(news) = &settings.news {
        // The articles of the window as of publishing, which is when the file goes out.
        let (entries, mut report) =
            news_entries(store, run, settings, news, jiff::Timestamp::now())?;
        let found = entries.len() as u64;
        let written = write_news(
            staging.path(),
            &options(Format::Xml),
            &news.publication,
            entries,
        )?;
        if let Some(child) = written {
            report.articles = child.urls;
            report.cut = found - child.urls;
            report.file = Some(child.name.clone());
            let xml = settings
                .formats
                .iter()
                .position(|&format| format == Format::Xml);
            if let Some(writer) = xml.and_then(|index| writers.get_mut(index)) {
                writer.add_news(child);
            }
        }
        media.news = Some(report);
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
    // Where `explain` finds the file that lists a URL.
    let published_to = match &staging {
        Staging::Directory(directory) => Some(std::path::absolute(directory.output())),
        Staging::Stdout(_) => None,
    };
    let published = staging.publish(&written, stdout)?;
    if let Some(directory) = published_to {
        if let Ok(directory) = directory {
            store.record_published_to(&directory.to_string_lossy())?;
        }
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
    Ok((written, published, media))
}

/// Decides which file each listed page goes into: its group (`--split-by`), then a stable
/// hash of its URL where a group needs several files.
fn plan_files(
    store: &Store,
    run: RunId,
    settings: &SiteSettings,
    summary: &CrawlSummary,
    options: &WriteOptions,
) -> Result<Plan, SiteError> {
    let host_map = &settings.crawl.host_map;
    let mut grouping = Grouping::new(&settings.split, &summary.scope.root);
    if grouping.needs_sections() {
        store.for_each_listed(run, |page| -> Result<(), SiteError> {
            grouping.learn(page.url);
            Ok(())
        })?;
    }
    let mut planner = Planner::new(options);
    store.for_each_listed(run, |page| -> Result<(), SiteError> {
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
) -> Result<HashMap<String, jiff::Timestamp>, SiteError> {
    let now = jiff::Timestamp::now();
    // Whole seconds, as `<lastmod>` is written (now is always in jiff's range).
    let now = jiff::Timestamp::from_second(now.as_second()).unwrap_or(now);
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
    videos: PageEntries,
}

impl EntryExtras {
    /// The entry of `loc` with these extras.
    fn entry<'a>(&'a self, loc: &'a str, lastmod: Option<jiff::Timestamp>) -> Entry<'a> {
        Entry {
            changefreq: self.changefreq,
            priority: self.priority,
            images: &self.images,
            videos: &self.videos.entries,
            alternates: &self.alternates,
            ..Entry::new(loc, lastmod)
        }
    }

    fn of(
        store: &Store,
        run: RunId,
        settings: &SiteSettings,
        page: &ListedPage<'_>,
    ) -> Result<EntryExtras, SiteError> {
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
        let videos = if settings.video {
            video_entries(store, settings, page.url)?
        } else {
            PageEntries::default()
        };
        let priority = settings.priority.map(|rule| match rule {
            PriorityRule::Depth => depth_priority(page.depth),
        });
        Ok(EntryExtras {
            changefreq,
            priority,
            images,
            alternates,
            videos,
        })
    }
}

#[cfg(test)]
mod tests {
    use jiff::Timestamp;
    use sitemapper_crawl::{CrawlConfig, RenderMode};
    use sitemapper_sitemap::{Format, Limits, MAX_BYTES_PER_FILE};
    use sitemapper_store::RunStatus;

    use super::*;
    use crate::error::ErrorKind;
    use crate::fixture::{Answer, serve};
    use crate::run::RunContext;

    /// The one child [`staged`] writes.
    const CHILD: &str = "sitemap-00001.xml.gz";

    fn at(text: &str) -> Timestamp {
        text.parse()
            .unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    /// Now, in whole seconds as `<lastmod>` is written.
    fn now() -> Timestamp {
        Timestamp::from_second(Timestamp::now().as_second())
            .unwrap_or_else(|error| panic!("{error}"))
    }

    fn open_store(directory: &Path) -> Store {
        Store::open(&directory.join("crawl.db")).unwrap_or_else(|error| panic!("{error}"))
    }

    /// `entries` written into `directory` as one gzipped child, [`CHILD`], whose index is not
    /// written yet.
    fn staged(directory: &Path, entries: &[(&str, Option<Timestamp>)]) -> Staged {
        let options = WriteOptions {
            limits: Limits::default(),
            gzip: true,
            base_url: "https://e.com/".to_string(),
            format: Format::Xml,
            images: false,
            alternates: false,
            videos: false,
            news: false,
        };
        let mut planner = Planner::new(&options);
        for &(loc, lastmod) in entries {
            planner
                .add("", &Entry::new(loc, lastmod))
                .unwrap_or_else(|error| panic!("{error}"));
        }
        let plan = planner.plan().unwrap_or_else(|error| panic!("{error}"));
        let mut writer = SitemapWriter::new(directory, options, &plan);
        for (&(loc, lastmod), &file) in entries.iter().zip(plan.placement()) {
            writer
                .push(file, &Entry::new(loc, lastmod))
                .unwrap_or_else(|error| panic!("{error}"));
        }
        let staged = writer.finish().unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(staged.children()[0].name, CHILD);
        staged
    }

    fn stdout_staging() -> Staging {
        Staging::create(&OutputTarget::Stdout).unwrap_or_else(|error| panic!("{error}"))
    }

    fn lastmod_of(store: &Store, staged: &Staged, staging: &Staging) -> Timestamp {
        file_lastmods(store, std::slice::from_ref(staged), staging)
            .unwrap_or_else(|error| panic!("{error}"))[CHILD]
    }

    #[test]
    fn a_file_recorded_with_the_same_content_keeps_the_time_it_was_recorded_with() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut store = open_store(directory.path());
        let staging = stdout_staging();
        let staged = staged(
            staging.path(),
            &[("https://e.com/a", Some(at("2024-06-01T00:00:00Z")))],
        );
        store
            .record_sitemap_files(&[SitemapFileRecord {
                name: CHILD.to_string(),
                digest: staged.children()[0].digest,
                changed_at: at("2020-01-01T00:00:00Z"),
            }])
            .unwrap_or_else(|error| panic!("{error}"));

        assert_eq!(
            lastmod_of(&store, &staged, &staging),
            at("2020-01-01T00:00:00Z")
        );
    }

    #[test]
    fn a_file_recorded_with_other_content_changed_now() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let mut store = open_store(directory.path());
        let staging = stdout_staging();
        let staged = staged(
            staging.path(),
            &[("https://e.com/a", Some(at("2024-06-01T00:00:00Z")))],
        );
        store
            .record_sitemap_files(&[SitemapFileRecord {
                name: CHILD.to_string(),
                digest: staged.children()[0].digest.wrapping_add(1),
                changed_at: at("2020-01-01T00:00:00Z"),
            }])
            .unwrap_or_else(|error| panic!("{error}"));

        let before = now();
        let lastmod = lastmod_of(&store, &staged, &staging);
        assert!(before <= lastmod && lastmod <= now(), "{lastmod}");
    }

    #[test]
    fn a_new_file_takes_the_newest_lastmod_of_its_entries() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let store = open_store(directory.path());
        let staging = stdout_staging();
        let staged = staged(
            staging.path(),
            &[
                ("https://e.com/a", Some(at("2024-06-01T00:00:00Z"))),
                ("https://e.com/b", None),
                ("https://e.com/c", Some(at("2024-07-15T09:30:00Z"))),
                ("https://e.com/d", Some(at("2023-01-01T00:00:00Z"))),
            ],
        );

        assert_eq!(
            lastmod_of(&store, &staged, &staging),
            at("2024-07-15T09:30:00Z")
        );
    }

    #[test]
    fn a_new_file_whose_entries_have_no_lastmod_takes_now() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let store = open_store(directory.path());
        let staging = stdout_staging();
        let staged = staged(
            staging.path(),
            &[("https://e.com/a", None), ("https://e.com/b", None)],
        );

        let before = now();
        let lastmod = lastmod_of(&store, &staged, &staging);
        assert!(before <= lastmod && lastmod <= now(), "{lastmod}");
    }

    #[test]
    fn a_file_published_with_the_same_bytes_keeps_the_lastmod_of_the_published_index() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let out = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let store = open_store(directory.path());
        let staging = Staging::create(&OutputTarget::Path(out.path().to_path_buf()))
            .unwrap_or_else(|error| panic!("{error}"));
        let staged = staged(
            staging.path(),
            &[("https://e.com/a", Some(at("2024-06-01T00:00:00Z")))],
        );
        // What an earlier run published with no crawl database kept: the same child, and
        // an index that dates it.
        std::fs::copy(staging.path().join(CHILD), out.path().join(CHILD))
            .unwrap_or_else(|error| panic!("{error}"));
        let index = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://e.com/{CHILD}</loc><lastmod>2021-03-04T05:06:07Z</lastmod></sitemap>
</sitemapindex>
"#
        );
        std::fs::write(out.path().join("sitemap.xml"), index)
            .unwrap_or_else(|error| panic!("{error}"));

        assert_eq!(
            lastmod_of(&store, &staged, &staging),
            at("2021-03-04T05:06:07Z")
        );
    }

    #[test]
    fn a_file_published_with_other_bytes_and_not_recorded_changed_now() {
        let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let out = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let store = open_store(directory.path());
        let staging = Staging::create(&OutputTarget::Path(out.path().to_path_buf()))
            .unwrap_or_else(|error| panic!("{error}"));
        let staged = staged(
            staging.path(),
            &[("https://e.com/a", Some(at("2024-06-01T00:00:00Z")))],
        );
        std::fs::write(out.path().join(CHILD), b"an earlier run's bytes")
            .unwrap_or_else(|error| panic!("{error}"));

        let before = now();
        let lastmod = lastmod_of(&store, &staged, &staging);
        assert!(before <= lastmod && lastmod <= now(), "{lastmod}");
    }

    #[test]
    fn more_urls_than_one_file_holds_cannot_be_printed_on_stdout() {
        const SITE: &[(&str, Answer)] = &[
            (
                "/",
                Answer::Html(r#"<title>Home</title><a href="/a">A</a> <a href="/b">B</a>"#),
            ),
            ("/a", Answer::Html("<title>A</title>")),
            ("/b", Answer::Html("<title>B</title>")),
        ];
        let state = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let database = state.path().join("crawl.db");
        let crawl = CrawlConfig {
            render: RenderMode::Never,
            ..CrawlConfig::default()
        };
        let settings = SiteSettings {
            state: Some(database.clone()),
            limits: Limits::new(1, MAX_BYTES_PER_FILE).unwrap_or_else(|error| panic!("{error}")),
            ..SiteSettings::new(serve(SITE), OutputTarget::Stdout, crawl)
        };

        let error = crate::run::run(&settings, RunContext::default())
            .err()
            .unwrap_or_else(|| panic!("an index was printed on stdout"));

        assert!(
            matches!(error, SiteError::IndexOnStdout { urls: 3, files: 3 }),
            "{error:?}"
        );
        assert_eq!(error.kind(), ErrorKind::Usage);
        let status = Store::open(&database)
            .and_then(|store| store.latest_run_status())
            .unwrap_or_else(|error| panic!("{error}"))
            .map(|(_, status)| status);
        assert_eq!(status, Some(RunStatus::Failed));
    }
}
