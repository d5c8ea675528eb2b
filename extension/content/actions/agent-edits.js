// @ts-check
// The contenteditable elements an agent typed into with type_ax or set_field, and what they held
// afterwards. promote_iframe fails closed on such an edit until the page confirms it
// (docs/protocol/frames.md, "Frames"): a page that saved or sent the text replaces or clears it (a chat
// box empties, an editor re-renders), and a removed element holds nothing to lose. An edit whose
// text still stands is work the page has not taken, which navigating the tab would discard.
// Form controls need no such record: their default value (HTML, "defaultValue") says whether
// anyone changed them.

/** @type {WeakMap<Element, string>} */
const textLeftByAgent = new WeakMap();
/** The same hosts, weakly, to list them (a WeakMap cannot be walked). */
const editedHosts = /** @type {Set<WeakRef<Element>>} */ (new Set());

/**
 * Records the text a contenteditable held just after the agent typed into it.
 * @param {Element} host the editing host
 */
export function rememberAgentEdit(host) {
  if (!textLeftByAgent.has(host)) editedHosts.add(new WeakRef(host));
  textLeftByAgent.set(host, host.textContent ?? "");
}

/**
 * Whether the agent's edit of `host` still stands unconfirmed: the element is in the document and
 * still holds exactly what the agent left.
 * @param {Element} host
 */
export function agentEditStandsUnconfirmed(host) {
  const left = textLeftByAgent.get(host);
  return left !== undefined && host.isConnected && host.textContent === left;
}

/**
 * The editing hosts the agent typed into whose edit still stands unconfirmed; forgets the hosts
 * that were collected.
 * @returns {Element[]}
 */
export function unconfirmedAgentEdits() {
  const standing = [];
  for (const reference of editedHosts) {
    const host = reference.deref();
    if (host === undefined) editedHosts.delete(reference);
    else if (agentEditStandsUnconfirmed(host)) standing.push(host);
  }
  return standing;
}
