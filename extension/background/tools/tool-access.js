// @ts-check
// The active tool access (docs/protocol/access.md, "Tool access"): which tier of tools, and whether Dev
// mode, the agent may use right now. The extension holds it, not the MCP server: every call is
// checked here against it, whoever sent the call, so a client of the local socket that skips
// the MCP server's list cannot step outside it.
//
// It is set at the start of each MCP session (the client's --tier and --dev) and by the side
// panel at any time. It lives in storage.local so that it survives a restarted worker and a
// restarted browser; the MCP client's name lives in storage.session, because it belongs to one
// connection of the host.

import { api, messages } from "../platform.js";

export { accessRefusal, describeAccess } from "./tool-gate.js";

const ACCESS_KEY = "toolAccess";
const CLIENT_KEY = "mcpClient";

/**
 * What a browser that never saw a session allows: `allwright mcp`'s own default (Full, without
 * Dev mode), so a raw client gets no more than the MCP server would list by default.
 * @type {ToolAccess}
 */
const DEFAULT_ACCESS = Object.freeze({ tier: "full", dev: false });

/** @type {ToolAccess|null} */
let cachedAccess = null;
/** @type {{name: string|null}|null} */
let cachedClient = null;
/** @type {Set<(change: AccessChange) => void>} */
const listeners = new Set();

/**
 * The active access: the cached one, else storage.local's, else the default.
 * @returns {Promise<ToolAccess>}
 */
export async function activeAccess() {
  if (cachedAccess !== null) return cachedAccess;
  /** @type {Record<string, unknown>} */
  const stored = await api.storage.local.get(ACCESS_KEY).catch(() => ({}));
  const value = stored?.[ACCESS_KEY];
  // A session or the panel may have set the access while storage answered: theirs wins.
  const access = cachedAccess ?? (messages.isToolAccess(value) ? messages.toolAccess(value) : DEFAULT_ACCESS);
  cachedAccess = access;
  return access;
}

/** The name of the MCP client whose session is on, or null. */
export async function activeClient() {
  if (cachedClient !== null) return cachedClient.name;
  /** @type {Record<string, unknown>} */
  const stored = await api.storage.session.get(CLIENT_KEY).catch(() => ({}));
  const value = stored?.[CLIENT_KEY];
  cachedClient ??= { name: typeof value === "string" ? value : null };
  return cachedClient.name;
}

/**
 * Makes `access` the active access. `source` says who set it: the host's client (a session
 * start) or the side panel, whose changes the host passes on to the MCP server.
 * @param {ToolAccess} access
 * @param {"session"|"panel"} source
 */
export async function setActiveAccess(access, source) {
  cachedAccess = messages.toolAccess(access);
  await api.storage.local.set({ [ACCESS_KEY]: cachedAccess }).catch((error) => {
    console.warn(`allwright: could not keep the tool access: ${error.message}`);
  });
  await notify(source);
}

/**
 * A session starts (or ends, with a null client): remembers its client's name.
 * @param {string|null} client
 */
export async function setActiveClient(client) {
  cachedClient = { name: client };
  if (client === null) await api.storage.session.remove(CLIENT_KEY).catch(() => {});
  else await api.storage.session.set({ [CLIENT_KEY]: client }).catch(() => {});
  await notify("client");
}

/**
 * What changed, and who changed it: a session ("session", "client") or the side panel.
 * @typedef {{access: ToolAccess, client: string|null, source: "session"|"panel"|"client"}} AccessChange
 */

/**
 * Calls `listener` after every change of the access or of the client.
 * @param {(change: AccessChange) => void} listener
 */
export function onAccessChange(listener) {
  listeners.add(listener);
}

/** @param {AccessChange["source"]} source */
async function notify(source) {
  const change = { access: await activeAccess(), client: await activeClient(), source };
  for (const listener of listeners) listener(change);
}
