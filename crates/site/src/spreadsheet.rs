//! CSV files as spreadsheets read them (the audit's files, the list of URLs not listed):
//! every cell is text, never a formula.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::error::SiteError;

/// Characters that make a spreadsheet read a cell as a formula when they lead it (OWASP,
/// "CSV Injection": <https://owasp.org/www-community/attacks/CSV_Injection>).
const FORMULA_TRIGGERS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// `cell` with a leading `'` when it starts with a formula trigger: spreadsheets then show it
/// as text, as OWASP advises. Other cells, URLs and numbers among them, are left as they are.
pub fn neutralize_formula(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(FORMULA_TRIGGERS) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// A CSV file whose every cell goes through [`neutralize_formula`], so that no column can
/// carry a page's text into a spreadsheet unneutralized. The numeric columns written
/// (status, depth, milliseconds, bytes) are unsigned: they never start with a trigger and
/// stay numbers.
#[derive(Debug)]
pub struct SpreadsheetCsv<W: Write = File> {
    writer: csv::Writer<W>,
}

impl SpreadsheetCsv<File> {
    /// A new file at `path`, replacing any there.
    pub fn create(path: &Path) -> Result<SpreadsheetCsv<File>, SiteError> {
        let writer = csv::Writer::from_path(path).map_err(|source| SiteError::Csv {
            doing: format!("cannot write {}", path.display()),
            source,
        })?;
        Ok(SpreadsheetCsv { writer })
    }
}

impl<W: Write> SpreadsheetCsv<W> {
    /// CSV into any writer, such as stdout.
    pub fn new(writer: W) -> SpreadsheetCsv<W> {
        SpreadsheetCsv {
            writer: csv::Writer::from_writer(writer),
        }
    }

    /// One row: each cell neutralized.
    pub fn write_row<Cell: AsRef<str>>(
        &mut self,
        cells: impl IntoIterator<Item = Cell>,
    ) -> Result<(), csv::Error> {
        for cell in cells {
            self.writer
                .write_field(neutralize_formula(cell.as_ref()).as_bytes())?;
        }
        // An empty record ends the row of fields written one by one (csv::Writer::write_field).
        self.writer.write_record(None::<&[u8]>)?;
        Ok(())
    }

    /// Writes what is buffered.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_a_spreadsheet_would_run_get_a_leading_quote_and_others_are_untouched() {
        for (cell, written) in [
            (
                "=HYPERLINK(\"http://evil.example\",\"x\")",
                "'=HYPERLINK(\"http://evil.example\",\"x\")",
            ),
            ("+1+2", "'+1+2"),
            ("-2+3", "'-2+3"),
            ("@SUM(1)", "'@SUM(1)"),
            ("\t=1+1", "'\t=1+1"),
            ("\r=1+1", "'\r=1+1"),
            ("=", "'="),
            // Ordinary text, URLs and numbers.
            ("", ""),
            ("Tea & cakes", "Tea & cakes"),
            ("A = B", "A = B"),
            (" =1+1", " =1+1"),
            ("'=1+1", "'=1+1"),
            ("\n=1+1", "\n=1+1"),
            (
                "https://example.com/a?b=-1&c=@d",
                "https://example.com/a?b=-1&c=@d",
            ),
            ("200", "200"),
            ("0", "0"),
            ("18446744073709551615", "18446744073709551615"),
            ("2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"),
            ("http-404", "http-404"),
            ("none", "none"),
        ] {
            assert_eq!(neutralize_formula(cell), written, "{cell:?}");
        }
    }

    #[test]
    fn rows_read_back_with_formulas_neutralized_and_numbers_as_numbers() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("rows.csv");
        let mut csv = SpreadsheetCsv::create(&path).unwrap();
        csv.write_row(["title", "bytes"]).unwrap();
        csv.write_row(["=1+1, \"quoted\"", "1234"]).unwrap();
        csv.finish().unwrap();
        let rows: Vec<csv::StringRecord> = csv::Reader::from_path(&path)
            .unwrap()
            .records()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows, [vec!["'=1+1, \"quoted\"", "1234"]]);
    }
}
