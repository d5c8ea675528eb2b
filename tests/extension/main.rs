//! Browser tests of the built extension, in Chromium and Firefox, driven as an agent drives
//! allwright: through `allwright mcp` and the official MCP client. See tests/README.md.

mod actions;
mod agreement;
mod bidi_only;
mod bidi_snapshot;
mod bounds;
mod bridge;
mod clickables;
mod compact_tree;
mod console_world;
mod csp;
mod devtools;
mod downloads;
mod drag;
mod engines;
mod find_and_wait;
mod focus_and_covers;
mod form_fill;
mod frames;
mod gathering;
mod hover_and_prompts;
mod lanes;
mod lifecycle;
mod local_files;
mod once;
mod page_records;
mod panel;
mod registry;
mod replies;
mod safety;
mod screenshot;
mod shadow_dev;
mod since;
mod support;
mod surface;
mod thread_coverage;
mod tiers;
mod upload;
mod viewport;
mod widgets;
mod wpt;

use support::{available, record_time, Browser, Session, SessionOptions};

async fn run(browser: Browser, options: SessionOptions, checks: &[(&str, Check)]) {
    if !available(browser) {
        return;
    }
    let _turn = lanes::turn(browser).await;
    run_checks(browser, options, checks).await;
}

/// [`run`] with no other browser test running beside it ([`lanes::turn_alone`]).
async fn run_alone(browser: Browser, options: SessionOptions, checks: &[(&str, Check)]) {
    if !available(browser) {
        return;
    }
    let _turn = lanes::turn_alone().await;
    run_checks(browser, options, checks).await;
}

async fn run_checks(browser: Browser, options: SessionOptions, checks: &[(&str, Check)]) {
    let session = Session::start(browser, options).await;
    for (name, check) in checks {
        eprintln!("{}: {name}", browser.name());
        let started = std::time::Instant::now();
        check(&session).await;
        record_time(&format!("{}: {name}", browser.name()), started.elapsed());
    }
    session.shutdown().await;
}

type Check =
    for<'a> fn(&'a Session) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + 'a>>;

macro_rules! checks {
    ($($name:path),* $(,)?) => {
        &[$((stringify!($name), |session| Box::pin($name(session)))),*]
    };
}

const SURFACE: &[(&str, Check)] = checks![
    surface::labels_states_hidden_passwords_ownership,
    surface::shadow_dom_and_slots,
    surface::frames_same_and_cross_origin,
    surface::text_tree_metadata_and_paging,
    surface::ai_mode_references,
    surface::navigation_timeouts,
    compact_tree::nothing_is_printed_twice,
    compact_tree::page_text_forges_no_line_or_reference,
    compact_tree::references_only_where_an_agent_can_use_them,
    compact_tree::scroll_containers_on_either_axis_print_their_reference,
    clickables::everything_a_person_can_click_has_a_reference_that_clicks,
    clickables::click_listeners_give_references_where_the_page_added_them,
    gathering::styles_under_a_select_are_read_after_the_walk,
    gathering::visibility_and_overflow_show_however_a_page_sets_them,
    csp::strict_pages_work_and_stay_silent,
    registry::lookup_stale_refs_and_suggestions,
    bidi_snapshot::bidi_snapshot_equals_the_extensions,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_surface_csp_and_registry() {
    let options = SessionOptions {
        chromium_flags: vec!["--js-flags=--expose-gc".to_string()],
        ..SessionOptions::default()
    };
    let mut checks = SURFACE.to_vec();
    checks.extend_from_slice(checks![
        registry::removed_elements_are_not_pinned,
        clickables::the_click_listener_recorder_pins_no_element,
        lifecycle::service_worker_restart
    ]);
    run(Browser::Chromium, options, &checks).await;
}

/// Issue 27: a full storage.session (tests/extension/csp.rs). Chromium only: Firefox keeps no CSP
/// records.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_csp_storage_full() {
    run(
        Browser::Chromium,
        SessionOptions::default(),
        checks![
            csp::csp_records_stay_within_bounds_on_a_page_with_many_frames,
            csp::reads_and_actions_work_when_storage_session_is_full
        ],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_surface_csp_and_registry() {
    run(Browser::Firefox, SessionOptions::default(), SURFACE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_wpt_against_chromium() {
    run(
        Browser::Chromium,
        SessionOptions::default(),
        checks![wpt::wpt_files_with_chromium_oracle],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_agreement_with_chromium() {
    run(
        Browser::Chromium,
        SessionOptions::default(),
        checks![agreement::agreement_with_chromium],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_wpt() {
    run(
        Browser::Firefox,
        SessionOptions::default(),
        checks![wpt::wpt_files],
    )
    .await;
}

const ACTIONS: &[(&str, Check)] = checks![
    actions::react_controlled_form,
    actions::vue_form,
    actions::contenteditable_editor,
    actions::radix_select_and_dialog,
    actions::react_select_combobox,
    actions::mui_autocomplete,
    actions::spa_routing_and_back,
    actions::go_forward_undoes_go_back_across_documents_and_routes,
    actions::reload_runs_the_page_again_and_ignore_cache_bypasses_the_cache,
    actions::new_tab_link_and_tab_tools,
    actions::download_link_is_inconclusive,
    actions::mutating_request_is_inconclusive_and_never_repeated,
    actions::telemetry_beacons_are_ignored,
    actions::overlay_with_pointer_events_none,
    actions::trusted_only_button,
    actions::hover_scroll_keys_and_stability,
    actions::bad_input_and_stale_refs,
    actions::act_inside_a_cross_origin_frame,
    actions::click_events_match_a_real_click,
    actions::status_line_elsewhere_is_evidence_and_nothing_runs_twice,
    actions::shoelace_select_through_slots,
    drag::drags_in_the_users_own_browser,
    form_fill::fill_form_fills_every_kind_of_field_once,
    form_fill::fill_form_stops_at_the_first_failure_and_says_what_was_filled,
    replies::replies_are_short_single_text_blocks,
    replies::an_action_answers_the_lines_the_next_step_needs,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_actions() {
    run(Browser::Chromium, SessionOptions::default(), ACTIONS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_actions() {
    run(Browser::Firefox, SessionOptions::default(), ACTIONS).await;
}

const FIND_AND_WAIT: &[(&str, Check)] = checks![
    find_and_wait::find_answers_matching_lines_with_their_paths_in_every_frame_and_shadow_root,
    find_and_wait::wait_for_returns_when_text_or_a_state_arrives_and_says_what_it_saw_last,
    page_records::network_requests_without_a_bridge_come_from_the_extension,
    page_records::console_messages_without_a_bridge_come_from_the_console_hook,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_find_and_wait() {
    run(Browser::Chromium, SessionOptions::default(), FIND_AND_WAIT).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_find_and_wait() {
    run(Browser::Firefox, SessionOptions::default(), FIND_AND_WAIT).await;
}

const THREAD_COVERAGE: &[(&str, Check)] = checks![
    thread_coverage::conversation_root_is_the_thread,
    thread_coverage::every_page_through_continuation_args_is_complete,
    thread_coverage::repeated_skipped_foreign_and_document_root_pages_are_not_progress,
    thread_coverage::a_changed_thread_is_stale_and_restarts,
    thread_coverage::collapse_all_is_evidence_of_expanded_messages,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_thread_coverage() {
    let mut checks = THREAD_COVERAGE.to_vec();
    checks.extend_from_slice(checks![
        thread_coverage::coverage_survives_a_service_worker_restart
    ]);
    run(Browser::Chromium, SessionOptions::default(), &checks).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_thread_coverage() {
    run(Browser::Firefox, SessionOptions::default(), THREAD_COVERAGE).await;
}

const SINCE: &[(&str, Check)] = checks![
    since::nothing_changed_is_unchanged,
    since::a_changed_subtree_is_printed_under_its_context,
    since::removed_refs_are_listed,
    since::the_whole_tree_when_arguments_differ_or_changes_are_not_shorter,
    since::a_new_document_is_read_whole,
    since::random_mutations_are_all_reported,
    since::a_frame_has_its_own_snapshots,
    since::real_page_changes_are_a_few_lines,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_since() {
    let mut checks = SINCE.to_vec();
    checks.extend_from_slice(checks![
        since::random_mutations_are_all_reported_on_strict_pages
    ]);
    run(Browser::Chromium, SessionOptions::default(), &checks).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_since() {
    run(Browser::Firefox, SessionOptions::default(), SINCE).await;
}

const ENGINES: &[(&str, Check)] = checks![
    engines::strict_pages_read_like_open_ones,
    engines::refs_act_and_since_reads_on_strict_pages,
    engines::frames_with_different_policies_pick_their_own_engine,
    engines::a_page_cannot_reach_the_worker,
    engines::two_tabs_read_their_own_pages,
    engines::the_first_read_is_right_at_once_and_during_the_warm_up,
];

/// Where the core runs (issue 14, item 1): the service worker's core in Chromium, the page's in
/// Firefox; Chromium also stops its worker between reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_engines() {
    let mut checks = ENGINES.to_vec();
    checks.extend_from_slice(checks![engines::a_stopped_worker_loses_no_read]);
    run(Browser::Chromium, SessionOptions::default(), &checks).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_engines() {
    run(Browser::Firefox, SessionOptions::default(), ENGINES).await;
}

const FRAMES: &[(&str, Check)] = checks![
    frames::inventory_and_reads_across_origins,
    frames::click_and_type_in_a_cross_origin_frame,
    frames::refs_are_refused_in_other_frames,
    frames::promote_with_and_without_edits,
    frames::ambiguous_frames_and_attached_files,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_frames() {
    // First: once a page was restored from the back/forward cache (promote_iframe then go_back),
    // the tests' BiDi session may lose the tab's context, which this check navigates from outside.
    let first: &[(&str, Check)] =
        checks![frames::ref_numbers_continue_after_a_service_worker_restart];
    let mut checks = first.to_vec();
    checks.extend_from_slice(FRAMES);
    run(Browser::Chromium, SessionOptions::default(), &checks).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_frames() {
    run(Browser::Firefox, SessionOptions::default(), FRAMES).await;
}

/// Issue 12's safety checks (safety.rs).
const SAFETY: &[(&str, Check)] = checks![
    safety::refs_name_one_element_of_one_tab_and_document,
    safety::trusted_click_rechecks_its_target_after_attaching,
    safety::secrets_never_leave_the_page,
    safety::posts_are_side_effects_whatever_their_path,
    safety::a_stopped_background_comes_back_and_loses_no_call,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_safety() {
    run(Browser::Chromium, SessionOptions::default(), SAFETY).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_safety() {
    run(Browser::Firefox, SessionOptions::default(), SAFETY).await;
}

/// Issue 28, items 3 and 4: downloads and PDFs (downloads.rs), in the extension alone.
const DOWNLOADS: &[(&str, Check)] = checks![
    downloads::every_way_a_page_downloads,
    downloads::a_pdf_of_the_page
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_downloads() {
    run(Browser::Chromium, SessionOptions::default(), DOWNLOADS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_downloads() {
    run(Browser::Firefox, SessionOptions::default(), DOWNLOADS).await;
}

/// Downloads and PDFs in a browser allwright launched: the session's private folder, BiDi's
/// print; the downloads in both input modes (started by real clicks and by synthetic ones), the
/// PDF, which does not depend on the mode, in the trusted session only.
const LAUNCHED_DOWNLOADS: &[(&str, LaunchedCheck)] = checks![
    downloads::launched_downloads_land_in_the_session_folder,
    downloads::launched_pdf_of_any_tab
];
const LAUNCHED_DOWNLOADS_SYNTHETIC: &[(&str, LaunchedCheck)] =
    checks![downloads::launched_downloads_land_in_the_session_folder];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_launched_downloads() {
    run_launched(Browser::Chromium, LAUNCHED_DOWNLOADS).await;
    let synthetic = ["--input", "synthetic"];
    run_launched_with(Browser::Chromium, &synthetic, LAUNCHED_DOWNLOADS_SYNTHETIC).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_launched_downloads() {
    run_launched(Browser::Firefox, LAUNCHED_DOWNLOADS).await;
    let synthetic = ["--input", "synthetic"];
    run_launched_with(Browser::Firefox, &synthetic, LAUNCHED_DOWNLOADS_SYNTHETIC).await;
}

async fn run_launched(browser: Browser, checks: &[(&str, LaunchedCheck)]) {
    run_launched_with(browser, &[], checks).await;
}

/// `allwright mcp --launch <browser> --headless` with `arguments` (`--input synthetic`).
async fn run_launched_with(browser: Browser, arguments: &[&str], checks: &[(&str, LaunchedCheck)]) {
    if !available(browser) {
        return;
    }
    let _turn = lanes::turn(browser).await;
    let session = bridge::LaunchedMcp::start_with(browser, arguments).await;
    for (name, check) in checks {
        eprintln!("{} (launched): {name}", browser.name());
        let started = std::time::Instant::now();
        check(&session).await;
        record_time(
            &format!("{} (launched): {name}", browser.name()),
            started.elapsed(),
        );
    }
    session.shutdown().await;
}

type LaunchedCheck = for<'a> fn(
    &'a bridge::LaunchedMcp,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + 'a>>;

const BRIDGE: &[(&str, LaunchedCheck)] = checks![
    bridge::dialogs_are_reported_and_answered,
    bridge::lifecycle_follows_navigations,
    bridge::real_pointer_input,
    bridge::real_key_input,
    bridge::dialogs_are_per_tab,
    bridge::frames_shadow_roots_and_a_page_that_strips_the_marker,
    bridge::screenshots_over_bidi,
    bridge::secret_fields_are_painted_over_in_bidi_screenshots,
    focus_and_covers::a_launched_browsers_page_has_focus,
    focus_and_covers::a_control_covered_by_its_own_part_is_clicked,
    // Last: its page busy-loops in its handlers for 35 s.
    once::real_input_that_fails_after_sending_is_outcome_unknown,
];

/// Chromium's launch alone runs a tab of allwright's own (the BiDi mapper's): in a fresh session
/// (so that no check has opened a tab before), the agent must not see it.
const CHROMIUM_LAUNCHED_ONLY: &[(&str, LaunchedCheck)] =
    checks![bridge::only_the_agents_tab_is_listed];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_launched_bridge() {
    run_launched(Browser::Chromium, CHROMIUM_LAUNCHED_ONLY).await;
    run_launched(Browser::Chromium, BRIDGE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_launched_bridge() {
    run_launched(Browser::Firefox, BRIDGE).await;
}

/// BiDi-only mode (`--no-extension`, docs/grid.md): one session without the extension and one
/// with it, to compare the trees against.
async fn run_bidi_only(browser: Browser) {
    if !available(browser) {
        return;
    }
    let _turn = lanes::turn(browser).await;
    let started = std::time::Instant::now();
    bidi_only::bidi_only_mode(browser).await;
    record_time(
        &format!("{} (BiDi-only): bidi_only_mode", browser.name()),
        started.elapsed(),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_bidi_only() {
    run_bidi_only(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_bidi_only() {
    run_bidi_only(Browser::Firefox).await;
}

/// The console and network records of a launched browser (page_records.rs), in a session of
/// their own: the counts they check start with the session; then find, wait_for and fill_form
/// through the same bridge.
const PAGE_RECORDS: &[(&str, LaunchedCheck)] = checks![
    page_records::console_and_network_are_recorded_and_credentials_never_shown,
    page_records::find_wait_for_and_fill_form_work_in_a_launched_browser,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_launched_page_records() {
    run_launched(Browser::Chromium, PAGE_RECORDS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_launched_page_records() {
    run_launched(Browser::Firefox, PAGE_RECORDS).await;
}

/// resize and emulate (viewport.rs): the window of the user's own browser, then the tab's
/// viewport and emulation in a browser allwright launched (Dev mode, to read the page with
/// execute_js).
const USER_VIEWPORT: &[(&str, Check)] =
    checks![viewport::resize_gives_the_window_the_viewport_asked];
const LAUNCHED_EMULATION: &[(&str, LaunchedCheck)] = checks![
    viewport::resize_sets_the_tabs_viewport,
    viewport::emulate_sets_what_the_browser_can_and_names_the_rest,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_viewport_and_emulation() {
    run(Browser::Chromium, SessionOptions::default(), USER_VIEWPORT).await;
    run_launched_with(Browser::Chromium, &["--dev"], LAUNCHED_EMULATION).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_viewport_and_emulation() {
    run(Browser::Firefox, SessionOptions::default(), USER_VIEWPORT).await;
    run_launched_with(Browser::Firefox, &["--dev"], LAUNCHED_EMULATION).await;
}

/// An action is never done twice (issue 27, item 5; once.rs): late effects clicked once with
/// `--input synthetic` (Chrome's trusted fallback only where no listener heard the click). Real
/// input that fails after it was sent is checked in the bridge's session (BRIDGE).
const ONCE_SYNTHETIC: &[(&str, LaunchedCheck)] = checks![
    once::a_late_effect_gets_one_activation,
    once::a_target_no_listener_hears_keeps_the_trusted_fallback,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_launched_one_activation() {
    run_launched_with(Browser::Chromium, &["--input", "synthetic"], ONCE_SYNTHETIC).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_launched_one_activation() {
    run_launched_with(Browser::Firefox, &["--input", "synthetic"], ONCE_SYNTHETIC).await;
}

/// `allwright mcp --webdriver URL` against a chromedriver the test starts: the same bridge as
/// with --launch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_webdriver_bridge() {
    if !available(Browser::Chromium) {
        return;
    }
    let _turn = lanes::turn(Browser::Chromium).await;
    let chromedriver = bridge::LocalChromedriver::start();
    let session =
        bridge::LaunchedMcp::start_on_remote_end(Browser::Chromium, &chromedriver.url, None).await;
    for (name, check) in BRIDGE {
        eprintln!("chromium (webdriver): {name}");
        let started = std::time::Instant::now();
        check(&session).await;
        record_time(&format!("chromium (webdriver): {name}"), started.elapsed());
    }
    viewport::emulate_over_webdriver_names_what_needs_the_launch(&session).await;
    session.shutdown().await;
    // No CDP input or DOM operation in the BiDi path. allwright speaks only WebDriver classic
    // (new session) and BiDi to chromedriver, and the extension's chrome.debugger fallback (the
    // only CDP allwright has) was not used, since every click said `method: "bidi"`. What the
    // log shows is chromium-bidi implementing BiDi: the mouse events of `input.performActions`
    // (Input.dispatchMouseEvent, at most three per action: move, press, release), and read-only
    // node lookups for BiDi shared references (DOM.resolveNode by the mapper; chromedriver
    // itself was once seen sending DOM.describeNode). No DOM command that focuses, scrolls,
    // measures or edits (DOM.focus, DOM.scrollIntoViewIfNeeded, DOM.getContentQuads, ...) and
    // no input from chromedriver's own connection.
    let traffic = chromedriver.traffic();
    const NODE_LOOKUPS: [&str; 2] = ["DOM.resolveNode", "DOM.describeNode"];
    let unexpected_dom =
        |method: &&String| method.starts_with("DOM.") && !NODE_LOOKUPS.contains(&method.as_str());
    let own_input: Vec<&String> = traffic
        .chromedriver_commands
        .iter()
        .filter(|method| method.starts_with("Input."))
        .collect();
    assert!(own_input.is_empty(), "chromedriver sent {own_input:?}");
    let dom: Vec<&String> = traffic
        .chromedriver_commands
        .iter()
        .chain(&traffic.mapper_commands)
        .filter(unexpected_dom)
        .collect();
    assert!(dom.is_empty(), "DOM operations: {dom:?}");
    assert!(
        traffic.perform_actions > 0,
        "the log shows the BiDi input: {traffic:?}"
    );
    // The pointer input of click_ax and hover, and the key input of press_key (real_key_input).
    let input_events = traffic
        .mapper_commands
        .iter()
        .filter(|method| method.starts_with("Input."))
        .inspect(|method| {
            assert!(
                ["Input.dispatchMouseEvent", "Input.dispatchKeyEvent"].contains(&method.as_str()),
                "{method}: {traffic:?}"
            )
        })
        .count();
    assert!(
        input_events > 0 && input_events <= 3 * traffic.perform_actions,
        "{input_events} input events for {} input.performActions",
        traffic.perform_actions
    );
}

/// `allwright mcp --webdriver ws://127.0.0.1:PORT/session` against a Firefox the test starts
/// with its remote agent (WebDriver BiDi only, no geckodriver), whose HOME had `allwright
/// install`: the same bridge as with --launch. At the end the extension is removed from that
/// Firefox again, which goes on running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_webdriver_bridge() {
    if !available(Browser::Firefox) {
        return;
    }
    let _turn = lanes::turn(Browser::Firefox).await;
    let mut firefox = bridge::LocalFirefox::start();
    let session = bridge::LaunchedMcp::start_on_remote_end(
        Browser::Firefox,
        &firefox.url,
        Some(&firefox.socket),
    )
    .await;
    for (name, check) in BRIDGE {
        eprintln!("firefox (webdriver): {name}");
        let started = std::time::Instant::now();
        check(&session).await;
        record_time(&format!("firefox (webdriver): {name}"), started.elapsed());
    }
    assert!(
        firefox.host_socket_exists(),
        "the host listened on the socket the test gave Firefox"
    );
    session.shutdown().await;
    // The host exits once the extension that started it is uninstalled, and removes its socket.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while firefox.host_socket_exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the extension stayed installed in the remote Firefox:\n{}",
            firefox.log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        firefox.is_running(),
        "the remote Firefox is not ours to close"
    );
}

/// Screenshots, hover's pointer events and pages blocked by a prompt, in the user's own browser
/// (the extension's paths; a browser allwright launched takes BiDi's instead).
const USER_BROWSER: &[(&str, Check)] = checks![
    screenshot::viewport_elements_formats_and_refusals,
    hover_and_prompts::hover_enters_ancestors_and_reports_css_hover,
    hover_and_prompts::click_on_a_page_that_stops_answering_is_page_blocked,
    hover_and_prompts::click_that_opens_an_alert_is_never_a_timeout,
    hover_and_prompts::trusted_click_that_opens_an_alert_is_dialog_open,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_screenshots_hover_and_prompts() {
    run(Browser::Chromium, SessionOptions::default(), USER_BROWSER).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_screenshots_hover_and_prompts() {
    run(Browser::Firefox, SessionOptions::default(), USER_BROWSER).await;
}

/// Screenshots paint over secret fields (screenshot.rs): the extension's captureVisibleTab.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_screenshot_masks() {
    run(
        Browser::Chromium,
        SessionOptions::default(),
        checks![screenshot::secret_fields_are_painted_over],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_screenshot_masks() {
    run(
        Browser::Firefox,
        SessionOptions::default(),
        checks![screenshot::secret_fields_are_painted_over],
    )
    .await;
}

/// The same screenshots at two device pixels per CSS pixel: sizes and crops scale with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_screenshots_at_device_scale_two() {
    let options = SessionOptions {
        chromium_flags: vec![
            "--force-device-scale-factor=2".to_string(),
            "--window-size=800,600".to_string(),
        ],
        ..SessionOptions::default()
    };
    run(
        Browser::Chromium,
        options,
        checks![
            screenshot::viewport_elements_formats_and_refusals,
            screenshot::secret_fields_are_painted_over,
        ],
    )
    .await;
}

/// Closed shadow roots and Dev mode's execute_js (shadow_dev.rs): one Dev-mode session, then a
/// session without --dev that must refuse execute_js.
const SHADOW_AND_DEV: &[(&str, Check)] = checks![
    shadow_dev::closed_shadow_roots,
    shadow_dev::lit_component_with_a_closed_root,
    shadow_dev::execute_js_values_errors_and_hostile_pages,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_shadow_roots_and_execute_js() {
    run(
        Browser::Chromium,
        shadow_dev::dev_session_options(),
        SHADOW_AND_DEV,
    )
    .await;
    if available(Browser::Chromium) {
        let _turn = lanes::turn(Browser::Chromium).await;
        shadow_dev::execute_js_is_refused_without_dev(Browser::Chromium).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_shadow_roots_and_execute_js() {
    run(
        Browser::Firefox,
        shadow_dev::dev_session_options(),
        SHADOW_AND_DEV,
    )
    .await;
    if available(Browser::Firefox) {
        let _turn = lanes::turn(Browser::Firefox).await;
        shadow_dev::execute_js_is_refused_without_dev(Browser::Firefox).await;
    }
}

/// Local files (tests/extension/local_files.rs): the checks restart the MCP client with and
/// without --allow-file-urls, so they take the session mutably.
async fn run_local_files(browser: Browser) {
    if !available(browser) {
        return;
    }
    let _turn = lanes::turn(browser).await;
    let mut session = Session::start(browser, SessionOptions::default()).await;
    eprintln!(
        "{}: local_files::local_files_are_refused_unless_the_session_allows_them",
        browser.name()
    );
    local_files::local_files_are_refused_unless_the_session_allows_them(&mut session).await;
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_local_files() {
    run_local_files(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_local_files() {
    run_local_files(Browser::Firefox).await;
}

/// Tiers and the side panel (tests/extension/tiers.rs, tests/extension/panel.rs): the checks
/// restart the MCP client on one browser, so they take the session mutably.
async fn run_tiers_and_panel(browser: Browser) {
    if !available(browser) {
        return;
    }
    let _turn = lanes::turn(browser).await;
    let mut session = Session::start(browser, SessionOptions::default()).await;
    eprintln!(
        "{}: tiers::each_tier_lists_its_tools_and_refuses_the_others",
        browser.name()
    );
    tiers::each_tier_lists_its_tools_and_refuses_the_others(&mut session).await;
    eprintln!(
        "{}: tiers::a_raw_socket_client_cannot_leave_the_active_tier",
        browser.name()
    );
    tiers::a_raw_socket_client_cannot_leave_the_active_tier(&mut session).await;
    eprintln!(
        "{}: panel::the_panel_shows_calls_live_redacts_secrets_and_sets_the_tier",
        browser.name()
    );
    panel::the_panel_shows_calls_live_redacts_secrets_and_sets_the_tier(&mut session).await;
    eprintln!(
        "{}: panel::real_input_actions_are_listed_in_the_panel",
        browser.name()
    );
    panel::real_input_actions_are_listed_in_the_panel(&mut session).await;
    eprintln!(
        "{}: console_world::lookup_names_live_in_the_content_script_world_only",
        browser.name()
    );
    console_world::lookup_names_live_in_the_content_script_world_only(&session).await;
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_tiers_and_panel() {
    run_tiers_and_panel(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_tiers_and_panel() {
    run_tiers_and_panel(Browser::Firefox).await;
}

// The widget compatibility matrix (docs/widgets.md): one session per browser and input mode.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_widgets_trusted() {
    widgets::widget_matrix(Browser::Chromium, widgets::InputMode::Trusted).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_widgets_synthetic() {
    widgets::widget_matrix(Browser::Chromium, widgets::InputMode::Synthetic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_widgets_trusted() {
    widgets::widget_matrix(Browser::Firefox, widgets::InputMode::Trusted).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_widgets_synthetic() {
    widgets::widget_matrix(Browser::Firefox, widgets::InputMode::Synthetic).await;
}

const BOUNDS: &[(&str, Check)] = checks![
    bounds::a_forty_megabyte_textarea_answers_within_bounds,
    bounds::a_million_nodes_answer_within_bounds,
    bounds::long_strings_print_as_the_core_cuts_them,
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_bounds() {
    run_alone(Browser::Chromium, SessionOptions::default(), BOUNDS).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_bounds() {
    run_alone(Browser::Firefox, SessionOptions::default(), BOUNDS).await;
}

/// upload_file (upload.rs): every way of fixtures/pages/upload/ and the refusals, in the user's
/// own browser (the extension alone, with `--upload-root`), then in a browser allwright
/// launched with real input (WebDriver BiDi `input.setFiles`) and with synthetic input.
async fn run_uploads(browser: Browser) {
    if !available(browser) {
        return;
    }
    let _turn = lanes::turn(browser).await;
    let folder = upload::UploadFolder::new();
    let root = folder.root_argument();
    let session = Session::start(
        browser,
        SessionOptions {
            mcp_arguments: vec!["--upload-root".into(), root.clone()],
            ..SessionOptions::default()
        },
    )
    .await;
    let started = std::time::Instant::now();
    upload::listed(&session, &session.listed_tools().await, true).await;
    upload::every_way_a_page_takes_files(&session, &folder, "extension").await;
    upload::file_dialog_pages(&session, "extension").await;
    record_time(
        &format!("{}: uploads (extension)", browser.name()),
        started.elapsed(),
    );
    session.shutdown().await;
    for input in ["trusted", "synthetic"] {
        let launched =
            bridge::LaunchedMcp::start_with(browser, &["--upload-root", &root, "--input", input])
                .await;
        let started = std::time::Instant::now();
        upload::listed(&launched, &launched.tool_names().await, true).await;
        upload::every_way_a_page_takes_files(&launched, &folder, &format!("launched {input}"))
            .await;
        upload::file_dialog_pages(&launched, &format!("launched {input}")).await;
        record_time(
            &format!("{} (launched {input}): uploads", browser.name()),
            started.elapsed(),
        );
        launched.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_uploads() {
    run_uploads(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_uploads() {
    run_uploads(Browser::Firefox).await;
}
