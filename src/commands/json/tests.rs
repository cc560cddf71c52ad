use super::*;

#[derive(Serialize)]
struct Body {
    files: u32,
}

#[test]
fn the_envelope_comes_first_and_the_body_after_it() {
    let envelope = Envelope {
        version: SUMMARY_VERSION,
        command: "validate",
        ok: false,
        exit_code: 1,
        error: Some("2 problems".to_string()),
        body: Some(&Body { files: 3 }),
    };
    assert_eq!(
        serde_json::to_string(&envelope).unwrap(),
        r#"{"version":1,"command":"validate","ok":false,"exit_code":1,"error":"2 problems","files":3}"#
    );
    let bare: Envelope<'_, ()> = Envelope {
        version: SUMMARY_VERSION,
        command: "runs",
        ok: false,
        exit_code: 2,
        error: Some("no crawl database at x.db".to_string()),
        body: None,
    };
    assert_eq!(
        serde_json::to_string(&bare).unwrap(),
        r#"{"version":1,"command":"runs","ok":false,"exit_code":2,"error":"no crawl database at x.db"}"#
    );
}
