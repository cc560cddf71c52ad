#[test]
fn the_fleet_report_has_the_version_of_the_summaries() {
    // docs/summary-json.md gives the fleet's report and the summaries one version rule.
    assert_eq!(
        sitemapper_site::SUMMARY_VERSION,
        sitemapper_fleet::REPORT_VERSION
    );
}
