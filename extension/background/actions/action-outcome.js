// @ts-check
// How an action's result is told to the agent (docs/protocol/tools.md, "Action results"): the page-side
// evidence and what the tab did around it, turned into `progress`, `retryAllowed` and one hint.
// Pure, so the rules of the click arbiter are unit-tested in Node.

/**
 * Evidence that proves progress (docs/protocol/tools.md, "Action results", click_ax): a URL change, a focus change caused
 * by the handler, a synchronous local mutation, a deferred semantic state, a value the field
 * took, text that changed anywhere in the page (a status line, a live region), or a popup
 * (menu, tooltip, listbox, dialog) that appeared, or an item a drag moved to another place. Anything else the
 * page side reports is a hint.
 */
const PROGRESS_EVIDENCE =
  /^(url_changed|navigation|focus_moved|local_mutation|semantic_state(:.*)?|value_set|value_changed|selection_changed|text_changed(:.*)?|scrolled|moved|submitted|opened|revealed(:.*)?|popup_shown(:.*)?)$/;

/**
 * Whether one evidence string proves progress.
 * @param {string} evidence
 */
export function isProgressEvidence(evidence) {
  return PROGRESS_EVIDENCE.test(evidence);
}

/**
 * Joins evidence lists, keeping the first occurrence of each entry in order.
 * @param {...(string[]|undefined)} lists
 */
export function mergeEvidence(...lists) {
  return [...new Set(lists.flatMap((list) => list ?? []))];
}

/**
 * The agent-facing outcome of an action.
 * `clickReachedListeners`: Chrome's debugger found page listeners on the synthetic click's path
 * (or could not prove there were none: click-listeners.js), so the click was heard and its
 * effect may come later (a timer, a request, then a render).
 * @param {{evidence: string[], observed: ObservedEffects, sawSideEffects: boolean,
 *   navigated: boolean, trustedFallbackUsed?: boolean, clickReachedListeners?: boolean,
 *   action: string}} facts
 * @returns {{progress: "observed"|"none"|"inconclusive", evidence: string[], retryAllowed: boolean, hint?: string}}
 */
export function decideOutcome({
  evidence,
  observed,
  sawSideEffects,
  navigated,
  trustedFallbackUsed = false,
  clickReachedListeners = false,
  action,
}) {
  const progressEvidence = mergeEvidence(navigated ? ["navigation"] : [], evidence).filter(isProgressEvidence);
  const sideEffectText = describeSideEffects(observed);
  // One activation at most: after the trusted fallback, after anything that may have changed
  // something elsewhere, or after a click the page's listeners heard, a second try could act
  // twice.
  const retryAllowed = !sawSideEffects && !trustedFallbackUsed && !clickReachedListeners;
  if (progressEvidence.length > 0) {
    let hint;
    if (navigated) hint = "The page navigated: read it before using refs.";
    else if (sideEffectText !== "")
      hint = `Done; it also caused ${sideEffectText}. Read the page again before acting further.`;
    return { progress: "observed", evidence: progressEvidence, retryAllowed, ...(hint ? { hint } : {}) };
  }
  if (sawSideEffects) {
    return {
      progress: "inconclusive",
      evidence: progressEvidence,
      retryAllowed: false,
      hint: `No change showed in the page, but ${sideEffectText} happened: the ${action} may have worked. Do not repeat it; read the page (or the new tab) to see what changed.`,
    };
  }
  let hint;
  if (trustedFallbackUsed) {
    hint = `No observable effect, even after one trusted click. Do not click again; read the page and try another element or approach.`;
  } else if (clickReachedListeners) {
    hint = `No visible effect yet, but the page's own listeners received the ${action}, so its effect may still come (a timer, a request). Do not click again: wait (wait_for_stable) and read the page. If the page ignores script clicks, real input needs a browser allwright launched (allwright mcp --launch chromium, --input trusted).`;
  } else {
    // Short: a model reads it on every fruitless action; what "nothing" covers is in
    // docs/protocol/tools.md ("Action results").
    hint = `No observable effect of the ${action}: read the page, or try another tool.`;
  }
  return { progress: "none", evidence: progressEvidence, retryAllowed, hint };
}

/**
 * The result every action returns (docs/protocol/tools.md, "Action results"), from the page
 * side's report and what the tab did meanwhile: the report's fields, the outcome, every hint
 * once (the page's evidence that is not progress among them), and `observed` when something
 * was. The background's actions (actions.js) and BiDi-only mode (surface/bidi-snapshot.js, whose
 * tab is watched over WebDriver BiDi) both build their results here, then add the tab's changes.
 * @param {Record<string, any>|null} report the content script's result (null: the page navigated away)
 * @param {{observed: Record<string, any>, sawSideEffects: boolean, navigated: boolean,
 *   action: string, evidence?: string[], hints?: string[], trustedFallbackUsed?: boolean,
 *   clickReachedListeners?: boolean}} facts
 * @returns {Record<string, unknown>}
 */
export function actionResultOf(report, facts) {
  const { evidence: pageEvidence = [], hints: pageHints = [], ...fields } = report ?? {};
  const outcome = decideOutcome({
    evidence: mergeEvidence(pageEvidence, facts.evidence),
    observed: facts.observed,
    sawSideEffects: facts.sawSideEffects,
    navigated: facts.navigated,
    trustedFallbackUsed: facts.trustedFallbackUsed,
    clickReachedListeners: facts.clickReachedListeners,
    action: facts.action,
  });
  const hints = mergeEvidence(
    pageHints,
    facts.hints,
    pageEvidence.filter((/** @type {string} */ item) => !isProgressEvidence(item)),
  );
  /** @type {Record<string, unknown>} */
  const result = { success: true, ...fields, ...outcome, hints };
  if (Object.keys(facts.observed).length > 0) result.observed = facts.observed;
  if (report === null) result.hints = mergeEvidence(hints, ["the page navigated before its script could report"]);
  return result;
}

/**
 * What a watch saw happen while an action ran (activity.js, observedOf), the parts this module reads.
 * @typedef {{newTabs?: {tabId: number, url?: string}[], downloads?: {url: string, filename?: string}[],
 *   requests?: import("./activity.js").NotableRequest[]}} ObservedEffects
 */

/**
 * "a new tab (tab 12), a download (report.csv) and a POST request"
 * @param {ObservedEffects} observed
 */
function describeSideEffects(observed) {
  const parts = [];
  for (const tab of observed.newTabs ?? [])
    parts.push(`a new tab (tabId ${tab.tabId}${tab.url ? `, ${tab.url}` : ""})`);
  for (const item of observed.downloads ?? []) parts.push(`a download (${item.filename ?? item.url})`);
  const requests = observed.requests ?? [];
  if (requests.length > 0) {
    const first = requests[0];
    const what = first.kind === "beacon" ? "a beacon" : `a ${first.method} request`;
    parts.push(`${what} to ${first.url}${requests.length > 1 ? ` (and ${requests.length - 1} more)` : ""}`);
  }
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}
