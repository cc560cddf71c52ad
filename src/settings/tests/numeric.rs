//! Every numeric option of every command, found in clap's definition (so that an option added
//! later is walked too), given 0, -1, 2^64, 2^64-1, NaN and the ends of its range, as a flag
//! and as a config key: each value is accepted within the range its help documents, and
//! refused otherwise as a usage error naming the option, in one line. A value the parser
//! accepts resolves into settings too. config/example.toml documents the same range.

use std::any::TypeId;
use std::error::Error as _;
use std::path::{Path, PathBuf};

use clap::Parser;

use crate::cli::values::OutOfRange;
use crate::cli::{Cli, Command, ConcurrencyName, FleetArgs, FleetCommand};
use crate::settings::{AuditSettings, ConfigFile, CrawlSettings, FleetRunSettings, WorkerSettings};

/// What every numeric option is given: 0, -1, 2^64, 2^64-1 and NaN.
const PROBES: [&str; 5] = [
    "0",
    "-1",
    "18446744073709551616",
    "18446744073709551615",
    "NaN",
];

/// A numeric option of a command, with the range its help documents.
#[derive(Debug)]
struct Walked {
    /// The command's words: `["fleet", "run"]`.
    command: Vec<String>,
    long: String,
    documented: Documented,
}

/// `[range: MIN to MAX]`, and whether decimals are taken (seconds).
#[derive(Debug, Clone, Copy)]
struct Documented {
    min: f64,
    max: f64,
    decimals: bool,
}

impl Documented {
    /// Whether `text` names a value in the range.
    fn admits(self, text: &str) -> bool {
        let value = if self.decimals {
            text.parse::<f64>().ok()
        } else {
            text.parse::<u64>().ok().map(|value| value as f64)
        };
        value.is_some_and(|value| (self.min..=self.max).contains(&value))
    }

    /// The probes, and the ends of the range with the values just beyond them.
    fn values(self) -> Vec<String> {
        let mut values: Vec<String> = PROBES.iter().map(|probe| probe.to_string()).collect();
        values.push(self.min.to_string());
        values.push(self.max.to_string());
        if self.decimals {
            values.push((self.max + 1.0).to_string());
            values.push(if self.min > 0.0 {
                (self.min / 2.0).to_string()
            } else {
                "-0.5".to_string()
            });
        } else {
            values.push((self.max + 1.0).to_string());
            if self.min > 0.0 {
                values.push((self.min - 1.0).to_string());
            }
        }
        values
    }
}

/// Types whose parser reads a number (a count takes no value and is not one).
fn is_numeric(arg: &clap::Arg) -> bool {
    let numeric = [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<u128>(),
        TypeId::of::<usize>(),
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<i128>(),
        TypeId::of::<isize>(),
        TypeId::of::<f32>(),
        TypeId::of::<f64>(),
        TypeId::of::<ConcurrencyName>(),
    ];
    let parsed = arg.get_value_parser().type_id();
    arg.get_action().takes_values() && numeric.iter().any(|type_id| parsed == *type_id)
}

/// The `[range: MIN to MAX]` of a help text.
fn documented_range(help: &str) -> Option<(f64, f64)> {
    let rest = &help[help.find("[range: ")? + "[range: ".len()..];
    let (min, rest) = rest.split_once(" to ")?;
    let max = &rest[..rest.find(']')?];
    Some((min.parse().ok()?, max.parse().ok()?))
}

fn walk(command: &clap::Command, words: &[String], found: &mut Vec<Walked>) {
    for arg in command.get_arguments().filter(|arg| is_numeric(arg)) {
        let long = arg
            .get_long()
            .unwrap_or_else(|| panic!("{words:?}: a numeric option without a long name"))
            .to_string();
        let help = [arg.get_help(), arg.get_long_help()]
            .into_iter()
            .flatten()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
            .replace('\n', " ");
        let (min, max) = documented_range(&help).unwrap_or_else(|| {
            panic!("{words:?} --{long}: its help documents no [range: MIN to MAX]: {help}")
        });
        let decimals = arg.get_value_parser().type_id() == TypeId::of::<f64>();
        found.push(Walked {
            command: words.to_vec(),
            long,
            documented: Documented { min, max, decimals },
        });
    }
    for subcommand in command.get_subcommands() {
        let mut words = words.to_vec();
        words.push(subcommand.get_name().to_string());
        walk(subcommand, &words, found);
    }
}

/// The arguments a command needs besides the option walked.
fn required(command: &[String], fleet: &Path) -> Vec<String> {
    let words: Vec<&str> = command.iter().map(String::as_str).collect();
    let arguments: &[&str] = match words.as_slice() {
        ["crawl"] => &["https://e.com/"],
        ["audit"] => &["https://e.com/", "--report", "r"],
        ["fleet", "run"] => return vec![fleet.display().to_string()],
        ["worker"] => &["--queue", "postgres://queue.example/sitemapper"],
        _ => &[],
    };
    arguments
        .iter()
        .map(|argument| argument.to_string())
        .collect()
}

/// Resolves the settings of a command line the parser accepted, for the commands that have
/// numeric options.
fn resolve(cli: Cli) -> anyhow::Result<()> {
    let file = ConfigFile::default;
    match cli.command {
        Command::Crawl(args) => CrawlSettings::resolve(*args, file()).map(drop),
        Command::Audit(args) => AuditSettings::resolve(*args, file()).map(drop),
        Command::Worker(args) => WorkerSettings::resolve(args, file()).map(drop),
        Command::Fleet(FleetArgs {
            command: FleetCommand::Run(args),
        }) => FleetRunSettings::resolve(args, file()).map(drop),
        Command::Fleet(FleetArgs {
            command: FleetCommand::Status(_) | FleetCommand::Sync(_),
        })
        | Command::Runs(_)
        | Command::Explain(_)
        | Command::Mcp(_)
        | Command::Validate(_)
        | Command::Completions(_)
        | Command::Man(_) => Ok(()),
    }
}

/// The comment above `# KEY =` in config/example.toml.
fn example_comment(example: &str, key: &str) -> String {
    let lines: Vec<&str> = example.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.starts_with(&format!("# {key} =")))
        .unwrap_or_else(|| panic!("config/example.toml does not show `{key}`"));
    let mut comment: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .take_while(|line| line.starts_with('#'))
        .copied()
        .collect();
    comment.reverse();
    comment.join(" ")
}

fn fleet_file(directory: &Path) -> PathBuf {
    let path = directory.join("fleet.toml");
    std::fs::write(
        &path,
        "[[site]]\nurl = \"https://a.example/\"\nout = \"/srv/a\"\n",
    )
    .unwrap_or_else(|error| panic!("{error}"));
    path
}

#[test]
fn every_numeric_option_takes_its_documented_range_and_refuses_the_rest_in_one_line() {
    let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let fleet = fleet_file(directory.path());
    let example =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("config/example.toml"))
            .unwrap_or_else(|error| panic!("{error}"));
    let mut found = Vec::new();
    walk(&crate::cli::command(), &[], &mut found);
    assert!(found.len() >= 22, "{found:#?}");
    for walked in &found {
        let Walked {
            command,
            long,
            documented,
        } = walked;
        let said = |value: &str| format!("{} --{long}={value}", command.join(" "));
        for value in documented.values() {
            let mut argv = vec!["sitemapper".to_string()];
            argv.extend(command.iter().cloned());
            argv.extend(required(command, &fleet));
            argv.push(format!("--{long}={value}"));
            match Cli::try_parse_from(&argv) {
                Ok(cli) => {
                    assert!(documented.admits(&value), "{} was accepted", said(&value));
                    if let Err(error) = resolve(cli) {
                        panic!("{} was parsed, then refused: {error:#}", said(&value));
                    }
                }
                Err(error) => {
                    assert!(
                        !documented.admits(&value),
                        "{} was refused: {error}",
                        said(&value)
                    );
                    let message = error
                        .source()
                        .and_then(|source| source.downcast_ref::<OutOfRange>())
                        .map(ToString::to_string)
                        .unwrap_or_else(|| {
                            panic!("{} was refused, not by its range: {error}", said(&value))
                        });
                    assert!(
                        message.starts_with(&format!("--{long} must be ")),
                        "{message}"
                    );
                    assert!(!message.contains('\n'), "one line: {message}");
                }
            }
            let key = format!("{long} = {}", value.replace("NaN", "nan"));
            let read = ConfigFile::parse(Path::new("probe.toml"), &key);
            assert_eq!(
                read.is_ok(),
                documented.admits(&value),
                "config file `{key}`: {:?}",
                read.err().map(|error| error.to_string())
            );
            if let Err(error) = read {
                assert!(!error.to_string().contains('\n'), "one line: {error}");
            }
        }
        let range = format!("Range: {} to {}.", documented.min, documented.max);
        assert!(
            example_comment(&example, long).contains(&range),
            "config/example.toml does not say `{range}` of `{long}`"
        );
    }
}

#[test]
fn the_verbose_key_takes_the_levels_of_v_vv_and_vvv() {
    let example =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("config/example.toml"))
            .unwrap_or_else(|error| panic!("{error}"));
    assert!(example_comment(&example, "verbose").contains("Range: 0 to 3."));
    let read = |text: &str| ConfigFile::parse(Path::new("probe.toml"), text);
    assert!(read("verbose = 3").is_ok());
    let error = read("# levels\nverbose = 4")
        .err()
        .map(|error| error.to_string());
    assert_eq!(
        error.as_deref(),
        Some(
            "invalid config file probe.toml, line 2: verbose must be a whole number from 0 to 3, not 4"
        )
    );
}
