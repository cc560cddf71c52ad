use super::*;

#[test]
fn basic_auth_comes_from_the_flag_then_the_environment_then_the_file() {
    let some = |text: &str| Some(text.to_string());
    let chosen = basic_auth_choice;
    assert_eq!(
        chosen(some("f:1"), some("e:2"), some("c:3")),
        Some(("f:1".to_string(), CredentialSource::Flag))
    );
    assert_eq!(
        chosen(None, some("e:2"), some("c:3")),
        Some(("e:2".to_string(), CredentialSource::Environment))
    );
    assert_eq!(
        chosen(None, some(""), some("c:3")),
        Some(("c:3".to_string(), CredentialSource::ConfigFile))
    );
    assert_eq!(chosen(None, None, None), None);
}

#[test]
fn the_seeds_credentials_are_taken_out_of_it() {
    let (seed, credentials) = seed_credentials("https://us%40er:p%3Ass@staging.e.com/x")
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(seed, "https://staging.e.com/x");
    assert_eq!(
        credentials,
        Some(BasicAuth::new("us@er", "p:ss").unwrap_or_else(|error| panic!("{error}")))
    );
    let (seed, credentials) =
        seed_credentials("https://e.com/").unwrap_or_else(|error| panic!("{error}"));
    assert_eq!((seed.as_str(), credentials), ("https://e.com/", None));
    let (seed, _) =
        seed_credentials("htp://user:secret@e.com/").unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(seed, "htp://***@e.com/");
    assert_eq!(
        sitemapper_fleet::shown_url("user:secret@e.com"),
        "***@e.com"
    );
}
