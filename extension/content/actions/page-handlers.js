// @ts-check
// Whether this frame is inside the page's own event handlers, run by an action's synthetic event.
//
// A handler that opens `alert`, `confirm` or `prompt` does not return until the user answers
// (HTML, "User prompts": the prompt pauses the script that opened it). Chromium stops the whole
// frame meanwhile, so nothing answers at all; Firefox keeps processing other tasks, so the
// background's liveness probe (background/frames/frames.js) is answered while the action that dispatched
// the event is still waiting for the handler to return. That state is what the probe reads here.

let dispatchDepth = 0;

/**
 * Runs a synchronous dispatch of events into the page, marked as such.
 * @template T
 * @param {() => T} dispatch
 * @returns {T}
 */
export function runPageHandlers(dispatch) {
  dispatchDepth += 1;
  try {
    return dispatch();
  } finally {
    dispatchDepth -= 1;
  }
}

/**
 * ping, the background's liveness probe: answering at all says the frame runs; `heldByPage` says
 * an event this frame dispatched has not come back from the page's handlers (a user prompt is
 * the usual reason).
 * @returns {{alive: true, heldByPage: boolean}}
 */
export function ping() {
  return { alive: true, heldByPage: dispatchDepth > 0 };
}
