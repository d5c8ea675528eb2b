// @ts-check
// The states wait_for waits for (docs/agent-tools.md, "wait_for"), pure: whether what a frame
// saw of a ref's element (content/actions/wait-conditions.js, `element_state`) is the state
// asked for.

/**
 * Whether the element's state is the one waited for. `hidden` also holds for a removed element
 * (it is not shown any more); every other state needs the element.
 * @param {string} state
 * @param {{found: boolean, visible?: boolean, enabled?: boolean, checked?: boolean}} seen
 */
export function stateHolds(state, seen) {
  if (state === "removed") return !seen.found;
  if (state === "hidden") return !seen.found || seen.visible === false;
  if (!seen.found) return false;
  switch (state) {
    case "visible":
      return seen.visible === true;
    case "enabled":
      return seen.enabled === true;
    case "disabled":
      return seen.enabled === false;
    case "checked":
      return seen.checked === true;
    case "unchecked":
      return seen.checked === false;
    default:
      return false;
  }
}
