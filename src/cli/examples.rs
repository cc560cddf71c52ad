//! The examples every command's `--help` ends with, and its manual page's EXAMPLES: written
//! once, here, so that the two never differ. A test holds every command to three or four.

/// One example: what it does, and the command line that does it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Example {
    pub(crate) what: &'static str,
    pub(crate) command: &'static str,
}

const fn example(what: &'static str, command: &'static str) -> Example {
    Example { what, command }
}

/// The examples of a command, named by its words after `sitemapper` (`[]` for sitemapper
/// itself, `["fleet", "run"]`); none for a command this does not know.
pub(crate) fn of(words: &[&str]) -> &'static [Example] {
    match words {
        [] => &SITEMAPPER,
        ["crawl"] => &CRAWL,
        ["audit"] => &AUDIT,
        ["runs"] => &RUNS,
        ["explain"] => &EXPLAIN,
        ["mcp"] => &MCP,
        ["validate"] => &VALIDATE,
        ["fleet"] => &FLEET,
        ["fleet", "run"] => &FLEET_RUN,
        ["fleet", "status"] => &FLEET_STATUS,
        ["fleet", "sync"] => &FLEET_SYNC,
        ["worker"] => &WORKER,
        ["completions"] => &COMPLETIONS,
        ["man"] => &MAN,
        _ => &[],
    }
}

/// The examples as the end of `--help`: a heading, then each example's words and its
/// command, indented.
pub(crate) fn help_text(examples: &[Example]) -> String {
    let mut text = String::from("Examples:");
    for example in examples {
        text.push_str(&format!("\n  {}:\n    {}", example.what, example.command));
    }
    text
}

const SITEMAPPER: [Example; 4] = [
    example(
        "Map a site into ./public/sitemap.xml",
        "sitemapper crawl https://example.com/ --out ./public",
    ),
    example(
        "Rebuild it every night, incrementally, from cron",
        "sitemapper crawl https://example.com/ --out /var/www/html --state example.db --quiet",
    ),
    example(
        "Audit a client's site into a report to hand over",
        "sitemapper audit https://client.example/ --report ./client-audit",
    ),
    example(
        "Check a sitemap against the protocol",
        "sitemapper validate https://example.com/sitemap.xml",
    ),
];

const CRAWL: [Example; 4] = [
    example(
        "Map a site into ./public/sitemap.xml",
        "sitemapper crawl https://example.com/ --out ./public",
    ),
    example(
        "Map only the blog, and say why each URL left out is not listed",
        "sitemapper crawl https://example.com/blog/ --list-not-listed not-listed.csv",
    ),
    example(
        "Rebuild nightly: incremental, true <lastmod>, a report of what changed",
        "sitemapper crawl https://example.com/ --state example.db --report-changes changes.json --quiet",
    ),
    example(
        "Print the listed URLs, one per line",
        "sitemapper crawl https://example.com/ --format txt --out -",
    ),
];

const AUDIT: [Example; 4] = [
    example(
        "Audit a site into ./client-audit (report.html, CSV and JSON)",
        "sitemapper audit https://client.example/ --report ./client-audit",
    ),
    example(
        "A report under the client's name, and a PDF of it",
        "sitemapper audit https://client.example/ --report ./audit --title 'Client Ltd' --pdf",
    ),
    example(
        "Fail a deployment pipeline on errors",
        "sitemapper audit https://staging.example.com/ --report ./audit --fail-on error",
    ),
    example(
        "Add each product's price to pages.csv",
        "sitemapper audit https://shop.example/ --report ./audit --extract 'price=.product .price'",
    ),
];

const EXPLAIN: [Example; 3] = [
    example(
        "Why is this page not in my sitemap?",
        "sitemapper explain https://example.com/pricing --state example.db",
    ),
    example(
        "The same answer as JSON, for a script (exit 0 listed, 1 not listed)",
        "sitemapper explain https://example.com/pricing --state example.db --summary json",
    ),
    example(
        "Ask of a site of a fleet, found by the URL",
        "sitemapper explain https://shop.example/cart --fleet fleet.toml",
    ),
];

const MCP: [Example; 3] = [
    example(
        "Serve the tools to an assistant, within one directory (docs/agents.md)",
        "sitemapper mcp --allow-dir ~/sitemaps",
    ),
    example(
        "Two directories: the sites' sitemaps, and the audits for clients",
        "sitemapper mcp --allow-dir /var/www --allow-dir ~/audits",
    ),
    example(
        "Also for the sites of this machine and its network, and smaller crawls",
        "sitemapper mcp --allow-dir ~/sitemaps --allow-private --max-pages 2000",
    ),
];

const RUNS: [Example; 3] = [
    example(
        "List the runs of a crawl database",
        "sitemapper runs --state /var/lib/sitemapper/example.db",
    ),
    example(
        "The same as JSON, for a script",
        "sitemapper runs --state /var/lib/sitemapper/example.db --summary json",
    ),
    example(
        "The last audits of a report directory",
        "sitemapper runs --state ./client-audit/crawl.db",
    ),
];

const VALIDATE: [Example; 3] = [
    example(
        "Check a site's sitemap, and every child of its index",
        "sitemapper validate https://example.com/sitemap.xml",
    ),
    example(
        "Check a file written here",
        "sitemapper validate ./public/sitemap.xml",
    ),
    example(
        "Check a sitemap from stdin, the result as JSON",
        "curl -s https://example.com/sitemap.xml.gz | sitemapper validate - --summary json",
    ),
];

const FLEET: [Example; 3] = [
    example(
        "Crawl every site of the fleet file that is due (from cron)",
        "sitemapper fleet run /etc/sitemapper/fleet.toml --quiet",
    ),
    example(
        "Show how each site stands",
        "sitemapper fleet status /etc/sitemapper/fleet.toml",
    ),
    example(
        "Hand the sites to workers through PostgreSQL",
        "sitemapper fleet sync fleet.toml --queue postgres://sitemapper@db.internal/sitemapper",
    ),
];

const FLEET_RUN: [Example; 3] = [
    example(
        "Crawl the sites that are due (every 10 minutes from cron)",
        "sitemapper fleet run /etc/sitemapper/fleet.toml --quiet --report fleet.json",
    ),
    example(
        "Run one site now, due or not",
        "sitemapper fleet run fleet.toml --site shop",
    ),
    example(
        "Run every site now, eight at a time",
        "sitemapper fleet run fleet.toml --all --sites-at-once 8",
    ),
];

const FLEET_STATUS: [Example; 3] = [
    example(
        "Each site's last run and when it is due",
        "sitemapper fleet status fleet.toml",
    ),
    example(
        "The sites of a queue, with the worker running each",
        "sitemapper fleet status --queue postgres://sitemapper@db.internal/sitemapper",
    ),
    example(
        "The same as JSON, for a script",
        "sitemapper fleet status fleet.toml --summary json",
    ),
];

const FLEET_SYNC: [Example; 3] = [
    example(
        "Write the fleet file's sites into the queue",
        "sitemapper fleet sync fleet.toml --queue postgres://sitemapper@db.internal/sitemapper",
    ),
    example(
        "After an edit, with the queue in SITEMAPPER_QUEUE: only what changed is written",
        "sitemapper fleet sync fleet.toml",
    ),
    example(
        "With the queue named in a config file",
        "sitemapper fleet sync fleet.toml --config /etc/sitemapper/sitemapper.toml",
    ),
];

const WORKER: [Example; 4] = [
    example(
        "Run the queue's sites as they come due (as a service)",
        "sitemapper worker --queue postgres://sitemapper@db.internal/sitemapper",
    ),
    example(
        "The same, the queue's password kept out of process lists",
        "SITEMAPPER_QUEUE=postgres://sitemapper:secret@db.internal/sitemapper sitemapper worker",
    ),
    example(
        "Run what is due, then exit: a batch job",
        "sitemapper worker --once",
    ),
    example(
        "Run at most 100 sites, 8 at a time",
        "sitemapper worker --max-sites 100 --sites-at-once 8",
    ),
];

const COMPLETIONS: [Example; 3] = [
    example(
        "Bash",
        "sitemapper completions bash | sudo tee /usr/share/bash-completion/completions/sitemapper",
    ),
    example(
        "zsh, into a directory on $fpath",
        "sitemapper completions zsh > ~/.zfunc/_sitemapper",
    ),
    example(
        "fish",
        "sitemapper completions fish > ~/.config/fish/completions/sitemapper.fish",
    ),
];

const MAN: [Example; 3] = [
    example(
        "Read the manual without installing it",
        "sitemapper man | man -l -",
    ),
    example(
        "Install every page",
        "sudo sitemapper man --dir /usr/local/share/man/man1",
    ),
    example(
        "Write them where MANPATH finds them, for one user",
        "sitemapper man --dir ~/.local/share/man/man1",
    ),
];
