//! A site served on 127.0.0.1 for the tests of whole runs: an ephemeral port, a thread for
//! each connection, one request per connection (`Connection: close`), so that nothing in a
//! test depends on the network beyond this machine.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;

/// How the site answers a path.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Answer {
    /// 200, with this HTML.
    Html(&'static str),
    /// Nothing, ever: the request ends only when the client drops it.
    Never,
    /// 301 to this URL.
    Redirect(&'static str),
}

/// Serves `pages`, each a path and its answer; any other path is 404. Returns the site's
/// root URL.
pub(crate) fn serve(pages: &'static [(&'static str, Answer)]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|error| panic!("{error}"));
    let address = listener
        .local_addr()
        .unwrap_or_else(|error| panic!("{error}"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(&stream, pages));
        }
    });
    format!("http://{address}/")
}

fn answer(stream: &TcpStream, pages: &[(&str, Answer)]) {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut header = String::new();
    while reader.read_line(&mut header).is_ok_and(|read| read > 2) {
        header.clear();
    }
    let path = request_line.split(' ').nth(1).unwrap_or_default();
    let found = pages
        .iter()
        .find(|(page, _)| *page == path)
        .map(|(_, answer)| *answer);
    let (status, body) = match found {
        Some(Answer::Html(body)) => ("200 OK", body),
        Some(Answer::Redirect(location)) => {
            let _ = write!(
                &*stream,
                "HTTP/1.1 301 Moved Permanently\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            return;
        }
        Some(Answer::Never) => {
            // Holds the connection without a byte of answer until the client closes it.
            let _ = reader.read_to_end(&mut Vec::new());
            return;
        }
        None => ("404 Not Found", ""),
    };
    let _ = write!(
        &*stream,
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The names in `directory`, sorted.
pub(crate) fn names_in(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .unwrap_or_else(|error| panic!("{error}"))
        .map(|entry| {
            entry
                .unwrap_or_else(|error| panic!("{error}"))
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}
