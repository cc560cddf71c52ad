//! The envelope every JSON summary starts with (docs/summary-json.md): the shape's version,
//! the command, whether it succeeded, its exit code and error line, then the command's own
//! fields.

use std::path::Path;

use serde::Serialize;

/// The version of the JSON shape. It changes when a field is removed or changes meaning;
/// new fields may appear within one version.
pub const SUMMARY_VERSION: u32 = 1;

/// The fields every summary object starts with, then the command's own (`body`).
#[derive(Debug, Serialize)]
pub struct Envelope<'a, T: Serialize> {
    version: u32,
    command: &'static str,
    /// Whether the command did what was asked: the exit code is 0.
    ok: bool,
    exit_code: u8,
    /// The error line also printed on stderr; `null` when `ok`.
    error: Option<String>,
    #[serde(flatten)]
    body: Option<&'a T>,
}

impl<'a, T: Serialize> Envelope<'a, T> {
    /// The summary of `command`, which ended with `exit_code` (and `error`, when it failed);
    /// `body` is `None` for a command that failed before it had a summary.
    pub fn new(
        command: &'static str,
        exit_code: u8,
        error: Option<String>,
        body: Option<&'a T>,
    ) -> Envelope<'a, T> {
        Envelope {
            version: SUMMARY_VERSION,
            command,
            ok: exit_code == 0,
            exit_code,
            error,
            body,
        }
    }
}

/// A path as JSON carries it: as text, with any bytes that are not UTF-8 replaced.
pub fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Body {
        files: u32,
    }

    #[test]
    fn the_envelope_comes_first_and_the_body_after_it() {
        let envelope = Envelope::new(
            "validate",
            1,
            Some("2 problems".to_string()),
            Some(&Body { files: 3 }),
        );
        assert_eq!(
            serde_json::to_string(&envelope).unwrap(),
            r#"{"version":1,"command":"validate","ok":false,"exit_code":1,"error":"2 problems","files":3}"#
        );
        let bare: Envelope<'_, ()> = Envelope::new(
            "runs",
            2,
            Some("no crawl database at x.db".to_string()),
            None,
        );
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            r#"{"version":1,"command":"runs","ok":false,"exit_code":2,"error":"no crawl database at x.db"}"#
        );
        let done = Envelope::new("runs", 0, None, Some(&Body { files: 0 }));
        assert_eq!(
            serde_json::to_string(&done).unwrap(),
            r#"{"version":1,"command":"runs","ok":true,"exit_code":0,"error":null,"files":0}"#
        );
    }
}
