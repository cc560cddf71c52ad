//! Integration tests of the `sitemapper` binary against local fixture sites.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    reason = "tests"
)]

mod access;
mod adaptive;
mod audit;
mod audit_breadth;
mod audit_checks;
mod audit_client;
mod bad_night;
mod browser_gate;
mod browser_process;
mod causes;
mod chaos;
mod chunking;
mod cli;
mod configuration;
mod crawl;
mod documents;
mod explain;
mod extensions;
mod extraction;
mod fixture;
mod fleet;
mod fleet_check;
mod fleet_file;
mod fleet_publish;
mod fleet_queue;
mod fleet_servers;
mod generators;
mod harness;
mod help;
mod hostile;
mod house;
mod inclusion;
mod kill_resume;
mod mcp;
mod mistakes;
mod network;
mod news;
mod normalization;
mod outbound;
mod output;
mod postgres;
mod private_networks;
mod readme;
mod recrawl;
mod render;
mod render_auto;
mod render_settle;
mod report;
mod report_files;
mod report_links;
mod report_print;
mod robots;
mod same_output;
mod schema;
mod seed_sitemaps;
mod shadow_dom;
mod shared_server;
mod site_sitemaps;
mod split;
mod static_site;
mod structured_data;
mod summary_text;
mod upgrade;
mod validate;
mod values;
mod video;
mod web_root;
