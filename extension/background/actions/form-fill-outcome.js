// @ts-check
// What fill_form answers about its fields (docs/protocol/tools.md, "Action results", fill_form): which
// were filled, which one stopped the call and why, which were not attempted, and the one hint
// that says what to do next. Pure, so it is unit-tested in Node; actions.js (fillForm) runs the
// fields and merges this into the action's result.

/**
 * Error codes after which a field may have taken its value, or part of it: the page stopped
 * answering, or the frame went away, while the field was being filled. Such a field is not filled
 * again without reading the page first (docs/protocol/action-safety.md, "Nothing done twice").
 */
const OUTCOME_UNKNOWN_CODES = Object.freeze([
  "timeout",
  "page_blocked",
  "outcome_unknown",
  "frame_detached",
  "dialog_open",
]);

/**
 * Why the fields stopped before the last one without a field failing:
 * - "navigation": the page navigated after a field (a select that submits its form);
 * - "time": fewer than one action's time was left of the fields' budget;
 * - "answered": the call was already answered without its result (outcome_unknown), so nothing
 *   more may act.
 * @typedef {"navigation"|"time"|"answered"} FormFillStop
 */

/**
 * The fields' part of fill_form's result.
 * @param {{refs: string[], filled: string[], failed: ({ref_id: string} & ToolError)|null,
 *   stop: FormFillStop|null, unchanged: boolean}} facts `refs`: every field's ref, in order;
 *   `filled`: the refs filled, in order; `unchanged`: every filled field already held its value
 * @returns {{success: boolean, filled: string[], failed?: {ref_id: string} & ToolError,
 *   notAttempted: string[], hint?: string, retryAllowed?: false}}
 */
export function formFillSummary({ refs, filled, failed, stop, unchanged }) {
  const attempted = filled.length + (failed === null ? 0 : 1);
  const notAttempted = refs.slice(attempted);
  const success = failed === null && notAttempted.length === 0;
  /** @type {ReturnType<typeof formFillSummary>} */
  const summary = { success, filled, notAttempted };
  const rest = notAttempted.length > 0 ? " and the notAttempted fields" : "";
  if (failed !== null) {
    summary.failed = failed;
    if (OUTCOME_UNKNOWN_CODES.includes(failed.code) || failed.retryAllowed === false) {
      summary.retryAllowed = false;
      summary.hint = `Whether ${failed.ref_id} took its value is unknown: read the page before filling it${rest} again.`;
    } else {
      summary.hint = `Fix ${failed.ref_id} as failed.hint says, then call fill_form again with it${rest}; the filled fields keep their values.`;
    }
  } else if (stop === "navigation" && notAttempted.length > 0) {
    summary.hint = `The page navigated after ${filled[filled.length - 1] ?? "the first field"}, so the notAttempted fields were not filled: read the page before going on.`;
  } else if (stop === "time" && notAttempted.length > 0) {
    summary.hint = "The call's time ran out before the notAttempted fields: call fill_form again with them.";
  } else if (stop === "answered" && notAttempted.length > 0) {
    summary.retryAllowed = false;
    summary.hint =
      "The call was answered before it ended, so the notAttempted fields were not filled: read the page before going on.";
  } else if (unchanged && filled.length > 0) {
    summary.hint = "Every field already held the value given: nothing was changed.";
  }
  return summary;
}
