//! Which browser test runs when: the lanes of this binary (issue 32, item 7: CI in twenty
//! minutes on two cores).
//!
//! On two cores a browser test leaves about half of the machine idle (it waits for pages, timers
//! and the other process: 46 % busy with a Chromium and a Firefox test side by side), so three
//! run at a time, at most two of one kind, so that one kind's long groups never hold every lane.
//! Every test has its own profile, home folder and socket (`Session::start`, bridge.rs), so a
//! test shares nothing with those running beside it. `ALLWRIGHT_TEST_LANES=<at once>,<of one
//! kind>` sets the lanes for a run (1,1 runs the tests one by one).
//!
//! The order is chosen, not first come first served:
//! - The longest tests first ([`EXPECTED_SECONDS`]): the last lanes to finish then hold short
//!   tests, not a long one that started late (longest-processing-time-first, the usual rule for
//!   jobs on identical machines).
//! - Tests that must have the machine to themselves ([`turn_alone`]) last, once every other test
//!   has ended: one of them waiting behind running tests while others still waited would keep
//!   lanes idle until every running test had ended (that wait cost about 40 s a run). Not
//!   first: scripts/test compiles clippy's macOS check and the fuzz targets in the background
//!   while this binary starts, and a bounds group beside those builds took 70 s instead of 38 s.
//!
//! libtest starts every test of the run at once (scripts/test gives it a thread per test), so
//! the first turn is handed out [`GATHERING`] after the first request: by then every test of the
//! run has asked, and the order can consider all of them.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::support::{record_time, Browser};

/// How long the first turn waits for the run's other tests to ask for theirs.
const GATHERING: Duration = Duration::from_millis(300);

/// Each test's seconds with its browser on a two-core machine running three at a time (the
/// `(whole test)` lines of scripts/test's timings, main of 2026-12-08, rounded). Only the order
/// of the run depends on them, never a result: a test missing here counts as
/// [`UNLISTED_TEST_SECONDS`], and a wrong figure only makes the run longer.
const EXPECTED_SECONDS: &[(&str, u32)] = &[
    ("firefox_actions", 57),
    ("firefox_widgets_trusted", 44),
    ("firefox_launched_bridge", 44),
    ("chromium_actions", 44),
    ("chromium_widgets_trusted", 43),
    ("chromium_surface_csp_and_registry", 42),
    ("firefox_widgets_synthetic", 41),
    ("firefox_surface_csp_and_registry", 38),
    ("chromium_screenshots_hover_and_prompts", 38),
    ("chromium_bounds", 38),
    ("chromium_agreement_with_chromium", 38),
    ("firefox_launched_one_activation", 37),
    ("firefox_bidi_only", 35),
    ("chromium_widgets_synthetic", 37),
    ("chromium_launched_bridge", 37),
    ("firefox_webdriver_bridge", 36),
    ("chromium_launched_one_activation", 36),
    ("chromium_webdriver_bridge", 35),
    ("chromium_bidi_only", 30),
    ("firefox_uploads", 34),
    ("firefox_launched_downloads", 32),
    ("firefox_screenshots_hover_and_prompts", 27),
    ("firefox_safety", 25),
    ("chromium_uploads", 25),
    ("firefox_bounds", 24),
    ("firefox_engines", 23),
    ("chromium_safety", 23),
    ("firefox_frames", 22),
    ("chromium_wpt_against_chromium", 22),
    ("firefox_wpt", 21),
    ("firefox_viewport_and_emulation", 19),
    ("chromium_csp_storage_full", 19),
    ("chromium_since", 18),
    ("chromium_frames", 18),
    ("firefox_downloads", 17),
    ("firefox_since", 15),
    ("firefox_shadow_roots_and_execute_js", 15),
    ("firefox_find_and_wait", 13),
    ("chromium_launched_downloads", 13),
    ("chromium_engines", 13),
    ("chromium_downloads", 13),
    ("firefox_tiers_and_panel", 9),
    ("firefox_thread_coverage", 8),
    ("chromium_tiers_and_panel", 8),
    ("chromium_screenshots_at_device_scale_two", 8),
    ("chromium_viewport_and_emulation", 7),
    ("chromium_shadow_roots_and_execute_js", 7),
    ("chromium_thread_coverage", 6),
    ("chromium_find_and_wait", 6),
    ("firefox_screenshot_masks", 5),
    ("firefox_launched_page_records", 5),
    ("firefox_local_files", 4),
    ("chromium_screenshot_masks", 4),
    ("chromium_local_files", 3),
    ("chromium_launched_page_records", 3),
];

/// What a test missing from [`EXPECTED_SECONDS`] counts as: a middling test.
const UNLISTED_TEST_SECONDS: u32 = 20;

/// How many browser tests run at once, and how many of one kind (the module's comment says why).
fn browser_lanes() -> (u32, u32) {
    const AT_ONCE: u32 = 3;
    const OF_ONE_KIND: u32 = 2;
    std::env::var("ALLWRIGHT_TEST_LANES")
        .ok()
        .and_then(|text| {
            let (at_once, of_one_kind) = text.split_once(',')?;
            Some((
                at_once.trim().parse().ok()?,
                of_one_kind.trim().parse().ok()?,
            ))
        })
        .filter(|&(at_once, of_one_kind): &(u32, u32)| at_once >= 1 && of_one_kind >= 1)
        .unwrap_or((AT_ONCE, OF_ONE_KIND))
}

/// What a test asks for: a lane for one kind of browser, or the whole machine.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Need {
    Lane(Browser),
    Alone,
}

struct Request {
    number: u64,
    need: Need,
    expected_seconds: u32,
}

/// The lanes' bookkeeping, behind one lock.
#[derive(Default)]
struct LaneState {
    first_request: Option<Instant>,
    next_number: u64,
    waiting: Vec<Request>,
    running: u32,
    running_chromium: u32,
    running_firefox: u32,
    alone_running: bool,
}

impl LaneState {
    fn count(&mut self, need: Need, change: i64) {
        let apply = |count: &mut u32| *count = (i64::from(*count) + change) as u32;
        match need {
            Need::Alone => self.alone_running = change > 0,
            Need::Lane(browser) => {
                apply(&mut self.running);
                match browser {
                    Browser::Chromium => apply(&mut self.running_chromium),
                    Browser::Firefox => apply(&mut self.running_firefox),
                }
            }
        }
    }

    /// The requests that may start now, in the order of the module's comment: the tests that
    /// share the machine take free lanes, longest first, skipping those whose kind is full; a
    /// test that needs the machine alone comes after them all and starts only when nothing
    /// runs.
    fn startable(&self, (at_once, of_one_kind): (u32, u32)) -> Vec<u64> {
        let mut order: Vec<&Request> = self.waiting.iter().collect();
        order.sort_by_key(|request| {
            (
                request.need == Need::Alone,
                std::cmp::Reverse(request.expected_seconds),
                request.number,
            )
        });
        let mut running = self.running;
        let mut running_chromium = self.running_chromium;
        let mut running_firefox = self.running_firefox;
        let mut startable = Vec::new();
        if self.alone_running {
            return startable;
        }
        for request in order {
            match request.need {
                Need::Alone => {
                    if running == 0 {
                        startable.push(request.number);
                    }
                    return startable;
                }
                Need::Lane(browser) => {
                    let of_kind = match browser {
                        Browser::Chromium => &mut running_chromium,
                        Browser::Firefox => &mut running_firefox,
                    };
                    if running < at_once && *of_kind < of_one_kind {
                        running += 1;
                        *of_kind += 1;
                        startable.push(request.number);
                    }
                }
            }
        }
        startable
    }
}

struct Lanes {
    state: Mutex<LaneState>,
    changed: tokio::sync::Notify,
}

fn lanes() -> &'static Lanes {
    static LANES: OnceLock<Lanes> = OnceLock::new();
    LANES.get_or_init(|| Lanes {
        state: Mutex::new(LaneState::default()),
        changed: tokio::sync::Notify::new(),
    })
}

/// The name libtest gave the running test: it runs each test on a thread named after it, and
/// #[tokio::test] polls the test's future on that thread.
fn current_test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("unnamed test")
        .to_owned()
}

async fn wait_for(need: Need) -> Turn {
    let name = current_test_name();
    let expected_seconds = EXPECTED_SECONDS
        .iter()
        .find(|(test, _)| *test == name)
        .map_or(UNLISTED_TEST_SECONDS, |&(_, seconds)| seconds);
    let lanes = lanes();
    let (number, first_request) = {
        let mut state = lanes.state.lock().expect("lane state");
        let number = state.next_number;
        state.next_number += 1;
        state.waiting.push(Request {
            number,
            need,
            expected_seconds,
        });
        (
            number,
            *state.first_request.get_or_insert_with(Instant::now),
        )
    };
    tokio::time::sleep_until((first_request + GATHERING).into()).await;
    loop {
        // Listening before looking: a turn that ends between the look and the wait still wakes
        // this test.
        let changed = lanes.changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        {
            let mut state = lanes.state.lock().expect("lane state");
            if state.startable(browser_lanes()).contains(&number) {
                state.waiting.retain(|request| request.number != number);
                state.count(need, 1);
                drop(state);
                // Others may start beside this one (a free lane of the other kind).
                lanes.changed.notify_waiters();
                return Turn {
                    need,
                    name,
                    started: Instant::now(),
                };
            }
        }
        changed.await;
    }
}

/// A test's turn with its browser, timed: when it ends, the seconds the test held it (its
/// browser's launch, its checks and the shutdown; not the wait for the turn) are recorded under
/// the test's name ([`record_time`]), and the next tests start.
pub struct Turn {
    need: Need,
    name: String,
    started: Instant,
}

/// Waits for the test's turn with `browser` (the module's comment says in which order).
pub async fn turn(browser: Browser) -> Turn {
    wait_for(Need::Lane(browser)).await
}

/// Waits until no other browser test runs, and keeps the machine so: for the checks that bound
/// how long a huge page may take (tests/extension/bounds.rs), which a second browser beside
/// them made slow enough to look blocked (a million-node read answered `page_blocked` with a
/// Firefox test running and another build on the machine).
pub async fn turn_alone() -> Turn {
    wait_for(Need::Alone).await
}

impl Drop for Turn {
    fn drop(&mut self) {
        record_time(
            &format!("{} (whole test)", self.name),
            self.started.elapsed(),
        );
        let lanes = lanes();
        if let Ok(mut state) = lanes.state.lock() {
            state.count(self.need, -1);
        }
        lanes.changed.notify_waiters();
    }
}

#[cfg(test)]
mod order {
    use super::*;

    fn state_with(waiting: &[(Need, u32)]) -> LaneState {
        LaneState {
            waiting: waiting
                .iter()
                .enumerate()
                .map(|(number, &(need, expected_seconds))| Request {
                    number: number as u64,
                    need,
                    expected_seconds,
                })
                .collect(),
            ..LaneState::default()
        }
    }

    const CHROMIUM: Need = Need::Lane(Browser::Chromium);
    const FIREFOX: Need = Need::Lane(Browser::Firefox);

    #[test]
    fn the_longest_start_first_and_no_kind_takes_every_lane() {
        let state = state_with(&[
            (CHROMIUM, 10),
            (CHROMIUM, 40),
            (CHROMIUM, 30),
            (FIREFOX, 5),
            (FIREFOX, 20),
        ]);
        assert_eq!(state.startable((3, 2)), vec![1, 2, 4]);
    }

    #[test]
    fn a_test_that_needs_the_machine_goes_last_and_alone() {
        let mut state = state_with(&[(CHROMIUM, 40), (Need::Alone, 60), (FIREFOX, 30)]);
        assert_eq!(state.startable((3, 2)), vec![0, 2]);
        state.waiting.retain(|request| request.need == Need::Alone);
        state.count(CHROMIUM, 1);
        assert_eq!(
            state.startable((3, 2)),
            Vec::<u64>::new(),
            "it waits for the machine to empty"
        );
        state.count(CHROMIUM, -1);
        assert_eq!(state.startable((3, 2)), vec![1]);
        state.waiting.clear();
        state.count(Need::Alone, 1);
        state.waiting.push(Request {
            number: 3,
            need: FIREFOX,
            expected_seconds: 10,
        });
        assert_eq!(
            state.startable((3, 2)),
            Vec::<u64>::new(),
            "nothing starts beside it"
        );
    }

    #[test]
    fn one_lane_runs_the_tests_one_by_one() {
        let mut state = state_with(&[(CHROMIUM, 10), (FIREFOX, 20)]);
        assert_eq!(state.startable((1, 1)), vec![1]);
        state.count(FIREFOX, 1);
        assert_eq!(state.startable((1, 1)), Vec::<u64>::new());
    }
}
