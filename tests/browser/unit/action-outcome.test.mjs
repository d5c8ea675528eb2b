// The click arbiter's rules (extension/background/actions/action-outcome.js) and the tab activity it
// reads (extension/background/actions/activity.js): which requests count, which evidence is progress,
// when the result is inconclusive and when a retry is forbidden.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  actionResultOf,
  decideOutcome,
  isProgressEvidence,
  mergeEvidence,
} from "../../../extension/background/actions/action-outcome.js";
import { CHANGES_MAX_CHARS, changesOfRead } from "../../../extension/background/actions/changes-of-read.js";
import {
  isTelemetry,
  networkState,
  notableKind,
  onDownloadStarted,
  referrerFitsTab,
  baseName,
  onFrameNavigation,
  onRequestFinished,
  onRequestStarted,
  onTabOpened,
  watchTab,
} from "../../../extension/background/actions/activity.js";

test("progress evidence is docs/protocol.md's list; the rest are hints", () => {
  for (const evidence of ["url_changed", "focus_moved", "local_mutation", "semantic_state:aria-current", "value_set", "navigation", "popup_shown:menu", "text_changed", "text_changed:live_region", "value_changed"]) {
    assert.ok(isProgressEvidence(evidence), evidence);
  }
  for (const hint of ["global_mutation", "name_changed", "class_changed", "children_changed", "style_changed"]) {
    assert.ok(!isProgressEvidence(hint), hint);
  }
  assert.deepEqual(mergeEvidence(["a", "b"], undefined, ["b", "c"]), ["a", "b", "c"]);
});

test("evidence makes progress observed; retry stays allowed without side effects", () => {
  const outcome = decideOutcome({ evidence: ["local_mutation", "global_mutation"], observed: {}, sawSideEffects: false, navigated: false, action: "click" });
  assert.equal(outcome.progress, "observed");
  assert.deepEqual(outcome.evidence, ["local_mutation"]);
  assert.equal(outcome.retryAllowed, true);
});

test("a request, a new tab or a download without page evidence is inconclusive and forbids a retry", () => {
  for (const observed of [
    { requests: [{ method: "POST", url: "http://a/api/mutate", kind: "mutating" }] },
    { newTabs: [{ tabId: 7, url: "http://a/help" }] },
    { downloads: [{ url: "http://a/report.csv", filename: "report.csv" }] },
  ]) {
    const outcome = decideOutcome({ evidence: ["global_mutation"], observed, sawSideEffects: true, navigated: false, action: "click" });
    assert.equal(outcome.progress, "inconclusive", JSON.stringify(observed));
    assert.equal(outcome.retryAllowed, false);
    assert.match(outcome.hint, /Do not repeat it/);
  }
});

test("no evidence and no side effect is an explicit no observable effect", () => {
  const outcome = decideOutcome({ evidence: [], observed: {}, sawSideEffects: false, navigated: false, action: "click" });
  assert.equal(outcome.progress, "none");
  assert.match(outcome.hint, /No observable effect/);
  const afterFallback = decideOutcome({ evidence: [], observed: {}, sawSideEffects: false, navigated: false, trustedFallbackUsed: true, action: "click" });
  assert.equal(afterFallback.retryAllowed, false, "one trusted activation at most");
});

test("a navigation is progress", () => {
  const outcome = decideOutcome({ evidence: [], observed: { navigation: { url: "http://a/next" } }, sawSideEffects: false, navigated: true, action: "click" });
  assert.equal(outcome.progress, "observed");
  assert.deepEqual(outcome.evidence, ["navigation"]);
});

test("requests: reads and telemetry are ignored, mutations and other beacons count", () => {
  assert.equal(notableKind({ url: "http://a/api/items", method: "GET", type: "xmlhttprequest" }), null);
  assert.equal(notableKind({ url: "http://a/api/items/4", method: "DELETE", type: "xmlhttprequest" }), "mutating");
  assert.equal(notableKind({ url: "http://a/api/mutate", method: "POST", type: "xmlhttprequest" }), "mutating");
  assert.equal(notableKind({ url: "http://a/telemetry/collect", method: "POST", type: "ping" }), null);
  assert.equal(notableKind({ url: "https://www.google-analytics.com/g/collect", method: "POST", type: "beacon" }), null);
  // A telemetry-sounding path exempts only a beacon: a fetch POST there may create something.
  assert.equal(notableKind({ url: "http://a/api/heartbeat", method: "POST", type: "xmlhttprequest" }), "mutating");
  for (const path of ["events", "log", "stats"]) {
    assert.equal(notableKind({ url: `http://a/${path}`, method: "POST", type: "xmlhttprequest" }), "mutating", path);
    assert.equal(notableKind({ url: `http://a/${path}`, method: "POST", type: "ping" }), null, path);
    assert.equal(notableKind({ url: `http://a/${path}`, method: "POST", type: "beacon" }), null, path);
  }
  assert.equal(notableKind({ url: "http://a/orders/confirm", method: "POST", type: "beacon" }), "beacon");
  // A form's POST navigation is a side effect, whatever its URL; a GET navigation is not.
  assert.equal(notableKind({ url: "http://a/form", method: "POST", type: "main_frame" }), "mutating");
  assert.equal(notableKind({ url: "http://a/log", method: "POST", type: "sub_frame" }), "mutating");
  assert.equal(notableKind({ url: "http://a/search?q=x", method: "GET", type: "main_frame" }), null);
  assert.ok(isTelemetry("https://metrics.example.com/v1"));
  assert.ok(!isTelemetry("https://example.com/catalog/login-help"));
  assert.ok(!isTelemetry("not a url"));
});

test("a watch sees its tab's requests, opened tabs, downloads and navigations, and nothing after stop", () => {
  const watch = watchTab(5, 0);
  onRequestStarted({ requestId: "1", tabId: 5, url: "http://a/api/mutate", method: "POST", type: "xmlhttprequest" });
  onRequestStarted({ requestId: "2", tabId: 6, url: "http://a/api/mutate", method: "POST", type: "xmlhttprequest" });
  onRequestStarted({ requestId: "3", tabId: 5, url: "http://a/list", method: "GET", type: "xmlhttprequest" });
  assert.equal(networkState(5).pending.length, 2);
  onRequestFinished({ requestId: "1", tabId: 5 });
  onRequestFinished({ requestId: "3", tabId: 5 });
  assert.equal(networkState(5).pending.length, 0);
  onTabOpened(5, 9, "");
  onTabOpened(5, 9, "http://b/help");
  onTabOpened(4, 10, "http://b/other");
  onDownloadStarted({ url: "http://a/report.csv", filename: "/tmp/report.csv" });
  assert.equal(watch.navigated(), false);
  onFrameNavigation("beforeNavigate", { tabId: 5, frameId: 1, url: "http://a/frame" });
  assert.equal(watch.navigated(), false, "another frame's navigation is not the action's");
  onFrameNavigation("sameDocument", { tabId: 5, frameId: 0, url: "http://a/#about" });
  assert.equal(watch.navigated(), true);
  assert.equal(watch.sawSideEffects(), true);
  const observed = watch.stop();
  assert.deepEqual(observed.requests, [{ method: "POST", url: "http://a/api/mutate", kind: "mutating" }]);
  assert.deepEqual(observed.newTabs, [{ tabId: 9, url: "http://b/help" }]);
  assert.equal(observed.downloads.length, 1);
  assert.deepEqual(observed.navigation, { url: "http://a/#about", sameDocument: true });
  onRequestStarted({ requestId: "4", tabId: 5, url: "http://a/api/mutate", method: "POST", type: "xmlhttprequest" });
  assert.equal(watch.observed().requests.length, 1, "a stopped watch sees nothing more");
});

test("a link's download aborts its navigation, which then does not count as one", async () => {
  const watch = watchTab(8, 0);
  onFrameNavigation("beforeNavigate", { tabId: 8, frameId: 0, url: "http://a/download/report.csv" });
  const settled = watch.navigationSettled(1_000);
  onFrameNavigation("errorOccurred", { tabId: 8, frameId: 0, url: "http://a/download/report.csv", error: "net::ERR_ABORTED" });
  assert.equal(await settled, true);
  assert.equal(watch.navigated(), false);
  watch.stop();
});

test("a link's download that Firefox never ends is not a navigation either", () => {
  const watch = watchTab(11, 0);
  onFrameNavigation("beforeNavigate", { tabId: 11, frameId: 0, url: "http://a/download/report.csv" });
  assert.equal(watch.navigated(), true);
  onDownloadStarted({ url: "http://a/download/report.csv" });
  assert.equal(watch.navigated(), false);
  assert.equal(watch.observed().navigation, undefined);
  watch.stop();
});

test("a new document's request is waited for: its method decides the retry, and an unseen one forbids it", async () => {
  // No navigation: known at once.
  const still = watchTab(12, 0);
  assert.equal(await still.documentRequestKnown(1_000), true);
  still.stop();
  // The navigation is told before the POST that loads it (Firefox under load): the wait sees the
  // POST arrive, which is a side effect.
  const posted = watchTab(13, 0);
  onFrameNavigation("beforeNavigate", { tabId: 13, frameId: 0, url: "http://a/forms/subscribe" });
  const known = posted.documentRequestKnown(1_000);
  onRequestStarted({ requestId: "p1", tabId: 13, frameId: 0, url: "http://a/forms/subscribe", method: "POST", type: "main_frame" });
  assert.equal(await known, true);
  assert.equal(posted.sawSideEffects(), true);
  posted.stop();
  // Another frame's document request is not the watched frame's.
  const framed = watchTab(14, 0);
  onFrameNavigation("beforeNavigate", { tabId: 14, frameId: 0, url: "http://a/next" });
  onRequestStarted({ requestId: "f1", tabId: 14, frameId: 3, url: "http://a/ad", method: "GET", type: "sub_frame" });
  assert.equal(await framed.documentRequestKnown(50), false, "no request for the main frame's document was seen");
  onRequestStarted({ requestId: "f2", tabId: 14, frameId: 0, url: "http://a/next", method: "GET", type: "main_frame" });
  assert.equal(await framed.documentRequestKnown(50), true);
  assert.equal(framed.sawSideEffects(), false, "a GET load is no side effect");
  framed.stop();
  // A route change inside the document loads nothing: nothing to wait for.
  const routed = watchTab(15, 0);
  onFrameNavigation("sameDocument", { tabId: 15, frameId: 0, url: "http://a/#next" });
  assert.equal(await routed.documentRequestKnown(1_000), true);
  routed.stop();
});

test("a click the page's listeners heard is never retried, even without a visible effect", () => {
  const heard = decideOutcome({ evidence: [], observed: {}, sawSideEffects: false, navigated: false, clickReachedListeners: true, action: "click" });
  assert.equal(heard.progress, "none");
  assert.equal(heard.retryAllowed, false, "its effect may still come: a second click could act twice");
  assert.match(heard.hint, /No visible effect yet/);
  assert.match(heard.hint, /Do not click again/);
  assert.match(heard.hint, /--input trusted/);
  const observedLater = decideOutcome({ evidence: ["text_changed"], observed: {}, sawSideEffects: false, navigated: false, clickReachedListeners: true, action: "click" });
  assert.equal(observedLater.progress, "observed");
  assert.equal(observedLater.retryAllowed, false);
  // Without the listener finding (Firefox, or a target the fallback never considered) the rule
  // stays as it was.
  const unknown = decideOutcome({ evidence: [], observed: {}, sawSideEffects: false, navigated: false, action: "click" });
  assert.equal(unknown.retryAllowed, true);
});

test("a download is the watched tab's only when its referrer is a site of the tab's frames", () => {
  const frames = ["http://a.test/shop/", "http://b.test/frame.html", "about:blank"];
  assert.equal(referrerFitsTab("http://a.test/shop/cart", frames), true);
  assert.equal(referrerFitsTab("http://b.test/", frames), true, "a frame's site");
  assert.equal(referrerFitsTab("http://c.test/mail", frames), false, "another tab's site");
  assert.equal(referrerFitsTab("", frames), true, "no referrer: a typed navigation");
  assert.equal(referrerFitsTab(undefined, frames), true);
  assert.equal(referrerFitsTab("http://a.test/", []), false, "a tab that is gone");
});

test("a download's file name is its last part, without control characters", () => {
  assert.equal(baseName("/home/person/Downloads/report.csv"), "report.csv");
  assert.equal(baseName("C:\\Users\\p\\Downloads\\a.txt"), "a.txt");
  assert.equal(baseName("/x/evil\nname\u0007.txt"), "evilname.txt");
});

test("an action's result carries the report's fields, the outcome and every hint once", () => {
  const report = { tag: "button", role: "button", name: "Go", evidence: ["local_mutation", "global_mutation"], hints: ["a"] };
  const result = actionResultOf(report, {
    observed: {},
    sawSideEffects: false,
    navigated: false,
    action: "click",
    evidence: ["text_changed"],
    hints: ["a", "b"],
  });
  assert.equal(result.success, true);
  assert.equal(result.name, "Go");
  assert.equal(result.progress, "observed");
  assert.deepEqual(result.evidence, ["local_mutation", "text_changed"]);
  assert.deepEqual(result.hints, ["a", "b", "global_mutation"], "evidence that is no progress is a hint");
  assert.equal("observed" in result, false, "nothing observed, no field");
  const posted = actionResultOf(null, {
    observed: { requests: [{ method: "POST", url: "http://a/order", kind: "mutating" }] },
    sawSideEffects: true,
    navigated: true,
    action: "click",
  });
  assert.equal(posted.retryAllowed, false);
  assert.deepEqual(posted.observed, { requests: [{ method: "POST", url: "http://a/order", kind: "mutating" }] });
  assert.ok(posted.hints.includes("the page navigated before its script could report"));
});

test("an action's changes are the changed lines, the short whole tree, or why neither", () => {
  const changed = changesOfRead({ snapshotId: "s-2", full: false, tree: '- button "Go" [ref_3]', removedRefs: ["ref_4"] }, "s-1");
  assert.deepEqual(changed, { snapshotId: "s-2", text: '- button "Go" [ref_3]', removedRefs: ["ref_4"] });
  const unchanged = changesOfRead({ snapshotId: "s-3", full: false, tree: "", unchanged: true }, "s-2");
  assert.equal(unchanged.unchanged, true);
  const whole = changesOfRead({ snapshotId: "s-4", full: true, tree: "- main" }, "s-3");
  assert.equal(whole.wholeTree, true);
  const long = "x".repeat(CHANGES_MAX_CHARS + 1);
  assert.deepEqual(changesOfRead({ snapshotId: "s-5", full: true, fullReason: "document_changed", tree: long }, "s-4"), {
    omitted: "document_changed",
  });
  assert.deepEqual(changesOfRead({ snapshotId: "s-6", full: false, tree: long }, "s-5"), {
    omitted: "longer_than_1200_characters",
    since: "s-5",
  });
});
