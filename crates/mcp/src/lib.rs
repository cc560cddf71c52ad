//! sitemapper over the Model Context Protocol (`sitemapper mcp`): an assistant asks why a
//! URL is in a sitemap or not, crawls and audits sites, reads their findings, runs and
//! changes, and validates sitemaps, through tools with JSON schemas; it reads audit reports
//! and published sitemaps as resources. Built on the protocol's official Rust SDK, `rmcp`.
//!
//! The server is held to what its command line allows (`McpSettings`): it reads and writes
//! only within the directories it was given (`paths.rs`), reaches a site on a private network
//! or this machine only when allowed, and bounds every crawl by pages and time. The crawls,
//! audits and validations run as child processes of the binary (`child.rs`), so that a
//! cancelled call stops one as Ctrl-C does; the other tools read crawl databases
//! (`reads.rs`); the resources are the reports and sitemaps found in the directories
//! (`resources.rs`); `tools.rs` declares the tools, `server.rs` serves them.

mod child;
mod paths;
mod reads;
mod resources;
mod server;
mod settings;
mod tools;

pub use paths::Refused;
pub use server::{McpError, serve};
pub use settings::{DEFAULT_MAX_PAGES, DEFAULT_MAX_TIME, McpSettings};
