//! report.xlsx: the report as one workbook for a spreadsheet, beside the CSV files. The
//! Overview sheet sums the audit up (the site, its score, the findings per severity and per
//! kind); Findings, Pages and Links are tables, each with its header row frozen, a filter on
//! it, URLs as links and numbers as numbers. A table becomes a sheet through
//! [`write_sheet`] (rows given as [`Cell`]s) or, row by row, a [`SheetWriter`].
//!
//! Page text is hostile: every text cell is written as a string, which a spreadsheet shows
//! and never evaluates (a title `=HYPERLINK(...)` stays text, with no quote added as the
//! CSV files need). Excel's limits (Microsoft, "Excel specifications and limits") are kept
//! here: a sheet stops at its last row and the Overview says how many rows it left out; a
//! URL Excel cannot take as a link (too long, or past a sheet's number of links) is written
//! as text.

use std::borrow::Cow;
use std::path::Path;

use rust_xlsxwriter::{Format, Workbook, Worksheet, XlsxError};
use sitemapper_site::count;
use sitemapper_store::{GraphLink, RunId, Store};

use super::files::FindingJson;
use super::model::Report;
use crate::error::ReportError;

/// Rows of a worksheet, the header row included.
const MAX_ROWS: u32 = 1_048_576;

/// Hyperlinks a worksheet can hold.
const MAX_LINKS_PER_SHEET: u32 = 65_530;

/// The longest URL Excel takes as a hyperlink, in UTF-16 code units.
const MAX_URL_LENGTH: usize = 2_079;

/// The most characters a cell holds (UTF-16 code units): longer text is cut.
const MAX_CELL_LENGTH: usize = 32_767;

/// One cell of a table.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cell<'a> {
    /// Text, always stored as a string.
    Text(&'a str),
    /// A URL: a hyperlink when Excel can take it, else text.
    Url(&'a str),
    /// A count, a status, a size: a number a spreadsheet can sum and sort.
    Number(u64),
    /// `TRUE` or `FALSE`.
    Bool(bool),
    /// Nothing.
    Empty,
}

impl<'a> Cell<'a> {
    /// A number, or an empty cell.
    pub(crate) fn number(value: Option<u64>) -> Cell<'a> {
        value.map_or(Cell::Empty, Cell::Number)
    }

    /// Text, or an empty cell.
    pub(crate) fn text(value: Option<&'a str>) -> Cell<'a> {
        value.map_or(Cell::Empty, Cell::Text)
    }
}

/// A column of a sheet: its header and its width in characters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Column<'a> {
    pub(crate) name: &'a str,
    pub(crate) width: f64,
}

const fn column(name: &str, width: f64) -> Column<'_> {
    Column { name, width }
}

/// What a sheet holds, for the Overview.
#[derive(Debug)]
pub(crate) struct SheetWritten {
    pub(crate) name: String,
    /// Rows written below the header.
    pub(crate) rows: u64,
    /// Rows left out past Excel's last row.
    pub(crate) cut: u64,
}

/// A sheet being written a row at a time, in constant memory: each row goes to a temporary
/// file as it is written, so that a site of millions of links takes no more memory than a
/// small one.
pub(crate) struct SheetWriter<'w> {
    worksheet: &'w mut Worksheet,
    name: String,
    columns: u16,
    next_row: u32,
    /// [`MAX_ROWS`]; fewer in tests.
    row_limit: u32,
    links: u32,
    cut: u64,
}

impl<'w> SheetWriter<'w> {
    /// A new sheet `name` with its header row, frozen, and the columns' widths.
    pub(crate) fn new(
        workbook: &'w mut Workbook,
        name: &str,
        columns: &[Column<'_>],
    ) -> Result<SheetWriter<'w>, XlsxError> {
        let worksheet = workbook.add_worksheet_with_constant_memory()?;
        worksheet.set_name(name)?;
        let header = Format::new().set_bold();
        let mut count: u16 = 0;
        for (index, column) in columns.iter().enumerate() {
            let index = u16::try_from(index).map_err(|_| XlsxError::RowColumnLimitError)?;
            worksheet.set_column_width(index, column.width)?;
            worksheet.write_string_with_format(0, index, cell_text(column.name), &header)?;
            count = index + 1;
        }
        worksheet.set_freeze_panes(1, 0)?;
        Ok(SheetWriter {
            worksheet,
            name: name.to_string(),
            columns: count,
            next_row: 1,
            row_limit: MAX_ROWS,
            links: 0,
            cut: 0,
        })
    }

    /// One row under the ones before; past Excel's last row it is counted, not written.
    pub(crate) fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), XlsxError> {
        if self.next_row >= self.row_limit {
            self.cut += 1;
            return Ok(());
        }
        let row = self.next_row;
        for (index, cell) in cells.iter().enumerate() {
            let column = u16::try_from(index).map_err(|_| XlsxError::RowColumnLimitError)?;
            write_cell(self.worksheet, &mut self.links, row, column, *cell)?;
        }
        self.next_row += 1;
        Ok(())
    }

    /// Puts the filter on the header, over every row written.
    pub(crate) fn finish(self) -> Result<SheetWritten, XlsxError> {
        let last_row = self.next_row - 1;
        if self.columns > 0 {
            self.worksheet
                .autofilter(0, 0, last_row, self.columns - 1)?;
        }
        Ok(SheetWritten {
            name: self.name,
            rows: u64::from(last_row),
            cut: self.cut,
        })
    }
}

/// Writes `cell`; `links` counts the sheet's hyperlinks.
fn write_cell(
    worksheet: &mut Worksheet,
    links: &mut u32,
    row: u32,
    column: u16,
    cell: Cell<'_>,
) -> Result<(), XlsxError> {
    match cell {
        Cell::Text(text) => {
            worksheet.write_string(row, column, cell_text(text))?;
        }
        Cell::Url(url) => {
            let linked = *links < MAX_LINKS_PER_SHEET
                && takes_as_link(url)
                && worksheet.write_url(row, column, url).is_ok();
            if linked {
                *links += 1;
            } else {
                worksheet.write_string(row, column, cell_text(url))?;
            }
        }
        // Counts stay far below 2^53, below which an f64 holds every integer exactly.
        Cell::Number(value) => {
            worksheet.write_number(row, column, value as f64)?;
        }
        Cell::Bool(value) => {
            worksheet.write_boolean(row, column, value)?;
        }
        Cell::Empty => {}
    }
    Ok(())
}

/// Adds a sheet of `rows` under a header of `columns`: how a table of the report becomes a
/// sheet.
pub(crate) fn write_sheet<'a>(
    workbook: &mut Workbook,
    name: &str,
    columns: &[Column<'_>],
    rows: impl IntoIterator<Item = Vec<Cell<'a>>>,
) -> Result<SheetWritten, XlsxError> {
    let mut sheet = SheetWriter::new(workbook, name, columns)?;
    for row in rows {
        sheet.row(&row)?;
    }
    sheet.finish()
}

/// An http(s) URL short enough for Excel's hyperlinks.
fn takes_as_link(url: &str) -> bool {
    (url.starts_with("http://") || url.starts_with("https://"))
        && url.encode_utf16().count() <= MAX_URL_LENGTH
}

/// Text as a cell holds it. A cell's XML marks control characters as `_xHHHH_` (ECMA-376
/// part 1, 22.9.2.19 ST_Xstring), so text that reads as such a mark has its `_` marked
/// itself (`_x005F_`), and shows as written; text past a cell's limit is cut.
fn cell_text(text: &str) -> Cow<'_, str> {
    let mut text = Cow::Borrowed(text);
    if text.contains("_x") && has_escape_mark(&text) {
        text = Cow::Owned(mark_escapes(&text));
    }
    if text.len() > MAX_CELL_LENGTH {
        let mut units = 0;
        let cut = text
            .char_indices()
            .find(|(_, character)| {
                units += character.len_utf16();
                units > MAX_CELL_LENGTH
            })
            .map(|(at, _)| at);
        if let Some(cut) = cut {
            text = Cow::Owned(text[..cut].to_string());
        }
    }
    text
}

/// `_x` and four hex digits and `_`, the form of a mark.
fn is_escape_mark(bytes: &[u8]) -> bool {
    bytes.len() >= 7
        && bytes[0] == b'_'
        && bytes[1] == b'x'
        && bytes[2..6].iter().all(u8::is_ascii_hexdigit)
        && bytes[6] == b'_'
}

fn has_escape_mark(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|at| is_escape_mark(&bytes[at..]))
}

fn mark_escapes(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut marked = String::with_capacity(text.len() + 8);
    let mut from = 0;
    for at in 0..bytes.len() {
        if is_escape_mark(&bytes[at..]) {
            marked.push_str(&text[from..at]);
            marked.push_str("_x005F_");
            from = at + 1;
        }
    }
    marked.push_str(&text[from..]);
    marked
}

/// Writes report.xlsx: the Overview, then Findings, Pages, Links (every link of the run,
/// read from the crawl database, each also given to `each_link`: links.csv is written in
/// the same pass) and Outbound (the links to other sites and their checks).
pub(crate) fn write_workbook(
    store: &Store,
    run: RunId,
    report: &Report,
    path: &Path,
    each_link: impl FnMut(&GraphLink<'_>) -> Result<(), ReportError>,
) -> Result<(), ReportError> {
    let cannot = |error: XlsxError| ReportError::write(path, error);
    let mut workbook = Workbook::new();
    // The sheets' rows wait in temporary files beside the workbook until it is saved.
    if let Some(directory) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        workbook.set_tempdir(directory).map_err(cannot)?;
    }
    // The Overview comes first, and is written last: it says which sheets were cut.
    workbook
        .add_worksheet()
        .set_name("Overview")
        .map_err(cannot)?;
    let sheets = [
        findings_sheet(&mut workbook, report).map_err(cannot)?,
        pages_sheet(&mut workbook, report).map_err(cannot)?,
        links_sheet(&mut workbook, store, run, path, each_link)?,
        outbound_sheet(&mut workbook, report).map_err(cannot)?,
    ];
    let overview = workbook.worksheet_from_index(0).map_err(cannot)?;
    write_overview(overview, report, &sheets).map_err(cannot)?;
    // Saved into a new file renamed into place: never through a link at the name.
    super::new_file::write_new(path, |file| Ok(workbook.save_to_writer(file)?))
}

/// The summary's rows and the table of kinds beside it: both under the first row, which is
/// frozen, the filter on the kinds.
const OVERVIEW_COLUMNS: [Column<'static>; 10] = [
    column("item", 24.0),
    column("value", 48.0),
    column("", 3.0),
    column("code", 26.0),
    column("title", 40.0),
    column("severity", 10.0),
    column("priority", 10.0),
    column("count", 8.0),
    column("new", 8.0),
    column("fixed", 8.0),
];

/// The column of the kinds' table.
const KINDS_COLUMN: u16 = 3;

/// Writes the Overview: the site, the audit and its score, the pages, the findings per
/// severity, the sheets cut at Excel's last row, and the kinds of finding.
fn write_overview(
    worksheet: &mut Worksheet,
    report: &Report,
    sheets: &[SheetWritten],
) -> Result<(), XlsxError> {
    let header = Format::new().set_bold();
    for (index, column) in (0u16..).zip(OVERVIEW_COLUMNS) {
        worksheet.set_column_width(index, column.width)?;
        if !column.name.is_empty() {
            worksheet.write_string_with_format(0, index, column.name, &header)?;
        }
    }
    worksheet.set_freeze_panes(1, 0)?;
    let severity = |name: &str| Cell::number(report.severities.get(name).copied());
    let mut summary: Vec<(String, Cell<'_>)> = vec![
        ("site".into(), Cell::Url(&report.site)),
        ("title".into(), Cell::Text(&report.title)),
        ("date".into(), Cell::Text(&report.generated_at)),
        ("run".into(), Cell::Number(report.run.max(0).unsigned_abs())),
        ("score".into(), Cell::Number(u64::from(report.score.value))),
        (
            "previous score".into(),
            report
                .score
                .previous
                .map_or(Cell::Text("none (first audit)"), |score| {
                    Cell::Number(u64::from(score))
                }),
        ),
        ("pages crawled".into(), Cell::Number(report.counts.pages)),
        ("pages listed".into(), Cell::Number(report.counts.listed)),
        ("errors".into(), severity("error")),
        ("warnings".into(), severity("warning")),
        ("notices".into(), severity("notice")),
    ];
    // What to fix first, then how the audit was made: the report's first page.
    let actions: Vec<(String, String)> = (1..)
        .zip(&report.actions)
        .map(|(rank, action)| {
            (
                format!("fix first {rank}"),
                format!(
                    "{}: {}, {} ({})",
                    action.title,
                    action.gain_text(),
                    count(action.count, "finding"),
                    action.severity
                ),
            )
        })
        .collect();
    let methodology: Vec<(String, String)> = report
        .methodology
        .rows()
        .into_iter()
        .skip(2) // the site and the date are above
        .map(|(label, value)| (label.to_lowercase(), value))
        .collect();
    summary.extend(
        actions
            .iter()
            .chain(&methodology)
            .map(|(item, value)| (item.clone(), Cell::Text(value))),
    );
    let notes: Vec<(String, String)> = sheets
        .iter()
        .filter(|sheet| sheet.cut > 0)
        .map(|sheet| {
            (
                format!("sheet {} cut", sheet.name),
                format!(
                    "{} rows past Excel's last row are left out ({} written); the CSV file has \
                     every row",
                    sheet.cut, sheet.rows
                ),
            )
        })
        .collect();
    summary.extend(
        notes
            .iter()
            .map(|(item, note)| (item.clone(), Cell::Text(note))),
    );
    let mut overview = OverviewWriter {
        worksheet,
        links: 0,
    };
    for (row, (item, value)) in (1u32..).zip(&summary) {
        overview.write(row, 0, Cell::Text(item))?;
        overview.write(row, 1, *value)?;
    }
    let mut last_row = 0;
    for (row, kind) in (1u32..).zip(&report.kinds) {
        let cells = [
            Cell::Text(kind.code),
            Cell::Text(kind.title),
            Cell::Text(kind.severity),
            Cell::Text(kind.priority),
            Cell::Number(kind.count),
            Cell::Number(kind.new),
            Cell::Number(kind.fixed),
        ];
        for (column, cell) in (KINDS_COLUMN..).zip(cells) {
            overview.write(row, column, cell)?;
        }
        last_row = row;
    }
    overview
        .worksheet
        .autofilter(0, KINDS_COLUMN, last_row, KINDS_COLUMN + 6)?;
    Ok(())
}

/// The Overview's cells, written where they stand (a sheet of a few rows, in memory).
struct OverviewWriter<'w> {
    worksheet: &'w mut Worksheet,
    links: u32,
}

impl OverviewWriter<'_> {
    fn write(&mut self, row: u32, column: u16, cell: Cell<'_>) -> Result<(), XlsxError> {
        write_cell(self.worksheet, &mut self.links, row, column, cell)
    }
}

const FINDING_COLUMNS: [Column<'static>; 8] = [
    column("severity", 10.0),
    column("priority", 10.0),
    column("kind", 24.0),
    column("title", 36.0),
    column("change", 11.0),
    column("url", 60.0),
    column("detail", 60.0),
    column("referrers", 60.0),
];

fn findings_sheet(workbook: &mut Workbook, report: &Report) -> Result<SheetWritten, XlsxError> {
    let findings: Vec<FindingJson<'_>> = FindingJson::all(report).collect();
    let referrers: Vec<String> = findings
        .iter()
        .map(|finding| finding.referrers.join(" "))
        .collect();
    let rows = findings.iter().zip(&referrers).map(|(finding, referrers)| {
        vec![
            Cell::Text(finding.severity),
            Cell::Text(finding.priority),
            Cell::Text(finding.kind),
            Cell::Text(finding.title),
            Cell::text(finding.change),
            Cell::Url(finding.url),
            Cell::Text(finding.detail),
            Cell::Text(referrers),
        ]
    });
    write_sheet(workbook, "Findings", &FINDING_COLUMNS, rows)
}

const PAGE_COLUMNS: [Column<'static>; 12] = [
    column("url", 60.0),
    column("status", 8.0),
    column("verdict", 14.0),
    column("reason", 18.0),
    column("depth", 7.0),
    column("title", 40.0),
    column("title_length", 12.0),
    column("word_count", 11.0),
    column("inlinks", 9.0),
    column("outlinks", 9.0),
    column("bytes", 10.0),
    column("elapsed_ms", 11.0),
];

fn pages_sheet(workbook: &mut Workbook, report: &Report) -> Result<SheetWritten, XlsxError> {
    let columns: Vec<Column<'_>> = PAGE_COLUMNS
        .iter()
        .copied()
        .chain(report.extract_names.iter().map(|name| column(name, 20.0)))
        .collect();
    let rows = report.pages.iter().map(|page| {
        let mut cells = vec![
            Cell::Url(&page.url),
            page.status
                .map_or(Cell::Text("none"), |status| Cell::Number(u64::from(status))),
            Cell::Text(&page.verdict),
            Cell::text(page.reason.as_deref()),
            Cell::Number(u64::from(page.depth)),
            Cell::text(page.title.as_deref()),
            Cell::number(page.title_length),
            Cell::number(page.word_count.map(u64::from)),
            Cell::Number(page.inlinks),
            Cell::Number(page.outlinks),
            Cell::number(page.bytes),
            Cell::number(page.elapsed_ms),
        ];
        cells.extend(page.extracted.iter().map(|value| Cell::Text(value)));
        cells
    });
    write_sheet(workbook, "Pages", &columns, rows)
}

const OUTBOUND_COLUMNS: [Column<'static>; 8] = [
    column("url", 60.0),
    column("status", 8.0),
    column("final url", 60.0),
    column("result", 14.0),
    column("referrers", 10.0),
    column("checked at", 20.0),
    column("cached", 8.0),
    column("detail", 40.0),
];

/// The links to other sites, one row per URL, as outbound.csv.
fn outbound_sheet(workbook: &mut Workbook, report: &Report) -> Result<SheetWritten, XlsxError> {
    let rows = report.outbound.iter().map(|row| {
        vec![
            Cell::Url(&row.url),
            Cell::number(row.status.map(u64::from)),
            row.final_url.as_deref().map_or(Cell::Empty, Cell::Url),
            Cell::Text(row.result),
            Cell::Number(row.referrers as u64),
            Cell::text(row.checked_at.as_deref()),
            Cell::Bool(row.cached),
            Cell::Text(&row.detail),
        ]
    });
    write_sheet(workbook, "Outbound", &OUTBOUND_COLUMNS, rows)
}

const LINK_COLUMNS: [Column<'static>; 5] = [
    column("source", 60.0),
    column("target", 60.0),
    column("kind", 10.0),
    column("anchor", 40.0),
    column("nofollow", 10.0),
];

fn links_sheet(
    workbook: &mut Workbook,
    store: &Store,
    run: RunId,
    path: &Path,
    mut each_link: impl FnMut(&GraphLink<'_>) -> Result<(), ReportError>,
) -> Result<SheetWritten, ReportError> {
    let cannot = |error: XlsxError| ReportError::write(path, error);
    let mut sheet = SheetWriter::new(workbook, "Links", &LINK_COLUMNS).map_err(cannot)?;
    store.for_each_link(run, |link| -> Result<(), ReportError> {
        sheet
            .row(&[
                Cell::Url(link.source),
                Cell::Url(link.target),
                Cell::Text(link.kind.code()),
                Cell::text(link.anchor),
                Cell::Bool(link.nofollow),
            ])
            .map_err(cannot)?;
        each_link(&link)
    })?;
    sheet.finish().map_err(cannot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_reads_as_an_escape_mark_is_kept_as_written() {
        for (text, stored) in [
            ("plain", "plain"),
            ("_x0041_", "_x005F_x0041_"),
            ("a_x00e9_b _x12_", "a_x005F_x00e9_b _x12_"),
            ("_x_x0000_", "_x_x005F_x0000_"),
            (
                "=HYPERLINK(\"http://evil.example\")",
                "=HYPERLINK(\"http://evil.example\")",
            ),
        ] {
            assert_eq!(cell_text(text), stored, "{text:?}");
        }
    }

    #[test]
    fn text_past_a_cells_limit_is_cut_at_a_character() {
        let long = "é".repeat(MAX_CELL_LENGTH + 5);
        assert_eq!(cell_text(&long).chars().count(), MAX_CELL_LENGTH);
        let emoji = "😀".repeat(MAX_CELL_LENGTH);
        let cut = cell_text(&emoji);
        assert_eq!(cut.encode_utf16().count(), MAX_CELL_LENGTH - 1);
    }

    #[test]
    fn rows_past_the_last_are_counted_not_written() {
        let mut workbook = Workbook::new();
        let mut sheet = SheetWriter::new(&mut workbook, "Rows", &[column("n", 5.0)]).unwrap();
        sheet.row_limit = 3;
        for number in 0..5 {
            sheet.row(&[Cell::Number(number)]).unwrap();
        }
        let written = sheet.finish().unwrap();
        assert_eq!((written.rows, written.cut), (2, 3));
    }

    #[test]
    fn past_a_sheets_last_link_urls_are_text() {
        let mut workbook = Workbook::new();
        let mut sheet = SheetWriter::new(&mut workbook, "Links", &[column("url", 5.0)]).unwrap();
        sheet.row(&[Cell::Url("https://e.com/a")]).unwrap();
        assert_eq!(sheet.links, 1);
        sheet.links = MAX_LINKS_PER_SHEET;
        sheet.row(&[Cell::Url("https://e.com/b")]).unwrap();
        assert_eq!(sheet.links, MAX_LINKS_PER_SHEET, "no link past the last");
        assert_eq!(sheet.finish().unwrap().rows, 2);
    }

    #[test]
    fn the_overview_names_a_sheet_cut_at_the_last_row() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("report.xlsx");
        let mut workbook = Workbook::new();
        let overview = workbook.add_worksheet();
        let report = Report {
            site: "https://e.com/".to_string(),
            ..Report::default()
        };
        let sheets = [SheetWritten {
            name: "Links".to_string(),
            rows: 1_048_575,
            cut: 12,
        }];
        write_overview(overview, &report, &sheets).unwrap();
        workbook.save(&path).unwrap();
        let mut archive = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
        let mut strings = String::new();
        std::io::Read::read_to_string(
            &mut archive.by_name("xl/sharedStrings.xml").unwrap(),
            &mut strings,
        )
        .unwrap();
        assert!(strings.contains("sheet Links cut"), "{strings}");
        assert!(
            strings.contains("12 rows past Excel's last row are left out (1048575 written)"),
            "{strings}"
        );
    }

    #[test]
    fn only_http_urls_excel_can_take_become_links() {
        assert!(takes_as_link("https://example.com/a?b=c#d"));
        assert!(!takes_as_link("javascript:alert(1)"));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_LENGTH));
        assert!(!takes_as_link(&long));
        let longest = format!("https://example.com/{}", "a".repeat(MAX_URL_LENGTH - 20));
        assert!(takes_as_link(&longest));
    }
}
