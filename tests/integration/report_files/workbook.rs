//! report.xlsx read back as a spreadsheet reads it: a zip of XML parts (ECMA-376), read with
//! the zip crate and quick-xml; the XML reading serves the JUnit report too.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use quick_xml::events::{BytesStart, Event};

/// The XML the report's files are written in.
pub(super) const XML: quick_xml::XmlVersion = quick_xml::XmlVersion::Explicit1_0;

/// A worksheet of report.xlsx as its XML says it.
#[derive(Debug, Default)]
pub(super) struct Sheet {
    /// Cell reference (`B2`) -> its type attribute (`None` for a number) and its text.
    pub(super) cells: BTreeMap<String, (Option<String>, String)>,
    /// `<f>` elements: formulas.
    pub(super) formulas: usize,
    /// The frozen pane's `ySplit` (rows frozen at the top).
    pub(super) frozen_rows: Option<String>,
    /// The filter's range.
    pub(super) filter: Option<String>,
    /// Cell reference -> the hyperlink's target.
    pub(super) links: BTreeMap<String, String>,
}

impl Sheet {
    /// The text of `reference`'s cell.
    pub(super) fn text(&self, reference: &str) -> &str {
        self.cells
            .get(reference)
            .map_or("", |(_, text)| text.as_str())
    }

    /// The cell references of the row whose column A holds `first`.
    pub(super) fn row_of(&self, first: &str) -> u32 {
        let (reference, _) = self
            .cells
            .iter()
            .find(|(reference, (_, text))| reference.starts_with('A') && text == first)
            .unwrap_or_else(|| panic!("{first} in column A"));
        reference[1..].parse().unwrap()
    }

    /// The header: row 1's texts, in column order.
    pub(super) fn header(&self) -> Vec<&str> {
        let mut header: Vec<(usize, &str)> = self
            .cells
            .iter()
            .filter(|(reference, _)| reference.trim_start_matches(char::is_alphabetic) == "1")
            .map(|(reference, (_, text))| (column_number(reference), text.as_str()))
            .collect();
        header.sort_unstable();
        header.into_iter().map(|(_, text)| text).collect()
    }
}

/// `A` -> 0, `Z` -> 25, `AA` -> 26, of a cell reference.
pub(super) fn column_number(reference: &str) -> usize {
    reference
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .fold(0, |number, letter| {
            number * 26 + (letter as usize - 'A' as usize + 1)
        })
        - 1
}

/// The workbook: its sheets in order, by name.
pub(super) struct Workbook {
    pub(super) sheets: Vec<(String, Sheet)>,
}

impl Workbook {
    pub(super) fn sheet(&self, name: &str) -> &Sheet {
        &self
            .sheets
            .iter()
            .find(|(each, _)| each == name)
            .unwrap_or_else(|| panic!("sheet {name}"))
            .1
    }
}

pub(super) fn entry(archive: &mut zip::ZipArchive<std::fs::File>, name: &str) -> Option<String> {
    let mut file = archive.by_name(name).ok()?;
    let mut text = String::new();
    file.read_to_string(&mut text).unwrap();
    Some(text)
}

pub(super) fn attribute(element: &BytesStart<'_>, name: &str) -> Option<String> {
    element
        .try_get_attribute(name)
        .unwrap()
        .map(|value| value.normalized_value(XML).unwrap().into_owned())
}

/// Every element of `xml` with its attributes and the text directly in it, in document
/// order: `(name, attributes, text)`.
pub(super) fn elements(xml: &str) -> Vec<(String, BytesStart<'static>, String)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut found: Vec<(String, BytesStart<'static>, String)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    loop {
        match reader.read_event().unwrap() {
            Event::Start(start) => {
                let name = start.name().as_ref().to_string();
                open.push(found.len());
                found.push((name, start.into_owned(), String::new()));
            }
            Event::Empty(start) => {
                let name = start.name().as_ref().to_string();
                found.push((name, start.into_owned(), String::new()));
            }
            Event::End(_) => {
                open.pop();
            }
            Event::Text(text) => {
                if let Some(&at) = open.last() {
                    found[at].2.push_str(&text.xml10_content());
                }
            }
            Event::GeneralRef(reference) => {
                if let Some(&at) = open.last() {
                    let name = reference.into_inner().into_owned();
                    let reference = format!("&{name};");
                    let resolved = quick_xml::escape::unescape(&reference).unwrap();
                    found[at].2.push_str(&resolved);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    found
}

/// Relationship id -> target, of a `.rels` part.
pub(super) fn relationships(xml: &str) -> BTreeMap<String, String> {
    elements(xml)
        .into_iter()
        .filter(|(name, _, _)| name == "Relationship")
        .map(|(_, element, _)| {
            (
                attribute(&element, "Id").unwrap(),
                attribute(&element, "Target").unwrap(),
            )
        })
        .collect()
}

pub(super) fn read_sheet(xml: &str, links: &BTreeMap<String, String>, shared: &[String]) -> Sheet {
    let mut sheet = Sheet::default();
    let found = elements(xml);
    let mut cell: Option<(String, Option<String>)> = None;
    for (name, element, text) in &found {
        match name.as_str() {
            "c" => {
                let reference = attribute(element, "r").unwrap();
                let kind = attribute(element, "t");
                sheet
                    .cells
                    .insert(reference.clone(), (kind.clone(), String::new()));
                cell = Some((reference, kind));
            }
            "v" | "t" => {
                if let Some((reference, kind)) = &cell {
                    let text = match kind.as_deref() {
                        Some("s") => shared[text.parse::<usize>().unwrap()].clone(),
                        _ => text.clone(),
                    };
                    sheet.cells.get_mut(reference).unwrap().1.push_str(&text);
                }
            }
            "f" => sheet.formulas += 1,
            "pane" => {
                assert_eq!(attribute(element, "state").as_deref(), Some("frozen"));
                sheet.frozen_rows = attribute(element, "ySplit");
            }
            "autoFilter" => sheet.filter = attribute(element, "ref"),
            "hyperlink" => {
                let target = attribute(element, "r:id").map(|id| links[&id].clone());
                sheet.links.insert(
                    attribute(element, "ref").unwrap(),
                    target.unwrap_or_default(),
                );
            }
            "row" => cell = None,
            _ => {}
        }
    }
    sheet
}

/// report.xlsx of `report`, unzipped and read.
pub(super) fn read_workbook(report: &Path) -> Workbook {
    let file = std::fs::File::open(report.join("report.xlsx")).unwrap();
    let mut archive = zip::ZipArchive::new(file).unwrap();
    let shared: Vec<String> = entry(&mut archive, "xl/sharedStrings.xml")
        .map(|xml| {
            elements(&xml)
                .into_iter()
                .filter(|(name, _, _)| name == "t")
                .map(|(_, _, text)| text)
                .collect()
        })
        .unwrap_or_default();
    let parts = relationships(&entry(&mut archive, "xl/_rels/workbook.xml.rels").unwrap());
    let workbook = entry(&mut archive, "xl/workbook.xml").unwrap();
    let mut sheets = Vec::new();
    for (name, element, _) in elements(&workbook) {
        if name != "sheet" {
            continue;
        }
        let part = &parts[&attribute(&element, "r:id").unwrap()];
        let file_name = part.rsplit('/').next().unwrap();
        let xml = entry(&mut archive, &format!("xl/{part}")).unwrap();
        let links = entry(
            &mut archive,
            &format!("xl/worksheets/_rels/{file_name}.rels"),
        )
        .map(|rels| relationships(&rels))
        .unwrap_or_default();
        sheets.push((
            attribute(&element, "name").unwrap(),
            read_sheet(&xml, &links, &shared),
        ));
    }
    Workbook { sheets }
}
