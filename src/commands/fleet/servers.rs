//! The sites a `fleet run` has yet to start, handed to its threads so that no server (the
//! address a site's host resolves to) has more than `--per-server` of them running at once.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use sitemapper_crawl::PaceBoard;
use sitemapper_fleet::SiteSpec;
use tokio::sync::watch;

/// How often a thread waiting for a busy server looks whether the run is stopping.
const STOP_CHECK: Duration = Duration::from_millis(250);

/// The sites waiting to start, and the sites running on each server.
pub(super) struct Picker<'a> {
    waiting: Mutex<Waiting<'a>>,
    /// Told when a site ends: its server may have room again.
    freed: Condvar,
    per_server: u32,
    /// Where each site's server is found (and kept): the run's pace board.
    servers: Arc<PaceBoard>,
    resolver: tokio::runtime::Runtime,
}

struct Waiting<'a> {
    sites: VecDeque<&'a SiteSpec>,
    /// The server of each site looked at, by the site's name.
    server_of: HashMap<&'a str, String>,
    running: HashMap<String, u32>,
}

/// A site handed out: its server's place is given back when it is dropped.
pub(super) struct Started<'p, 'a> {
    pub(super) site: &'a SiteSpec,
    server: String,
    picker: &'p Picker<'a>,
}

impl Drop for Started<'_, '_> {
    fn drop(&mut self) {
        let mut waiting = self.picker.lock();
        if let Some(running) = waiting.running.get_mut(&self.server) {
            *running = running.saturating_sub(1);
        }
        self.picker.freed.notify_all();
    }
}

impl<'a> Picker<'a> {
    pub(super) fn new(
        sites: VecDeque<&'a SiteSpec>,
        per_server: u32,
        servers: Arc<PaceBoard>,
    ) -> std::io::Result<Picker<'a>> {
        let resolver = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        Ok(Picker {
            waiting: Mutex::new(Waiting {
                sites,
                server_of: HashMap::new(),
                running: HashMap::new(),
            }),
            freed: Condvar::new(),
            per_server,
            servers,
            resolver,
        })
    }

    /// How many sites wait to start.
    pub(super) fn len(&self) -> usize {
        self.lock().sites.len()
    }

    /// The first waiting site whose server has room, waited for while every server of the
    /// waiting sites is full; `None` once no site waits or the run stops.
    pub(super) fn next(&self, stop: &watch::Receiver<bool>) -> Option<Started<'_, 'a>> {
        let mut waiting = self.lock();
        loop {
            if *stop.borrow() || waiting.sites.is_empty() {
                return None;
            }
            let Waiting {
                sites,
                server_of,
                running,
            } = &mut *waiting;
            let mut chosen = None;
            for (index, site) in sites.iter().enumerate() {
                let server = server_of
                    .entry(site.name.as_str())
                    .or_insert_with(|| self.server(site));
                if running.get(server.as_str()).copied().unwrap_or(0) < self.per_server {
                    chosen = Some((index, server.clone()));
                    break;
                }
            }
            if let Some((index, server)) = chosen
                && let Some(site) = sites.remove(index)
            {
                *running.entry(server.clone()).or_default() += 1;
                return Some(Started {
                    site,
                    server,
                    picker: self,
                });
            }
            waiting = self
                .freed
                .wait_timeout(waiting, STOP_CHECK)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn server(&self, site: &SiteSpec) -> String {
        match url::Url::parse(&site.url) {
            Ok(url) => self
                .resolver
                .block_on(self.servers.server_of(&url))
                .to_string(),
            Err(_) => site.url.clone(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting<'a>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
