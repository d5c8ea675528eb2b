// @ts-check
// The active tool access (docs/protocol.md, "Tool access"): which tier of tools, and whether Dev
// mode, the agent may use right now. The extension holds it, not the MCP server: every call is
// checked here against it, whoever sent the call, so a client of the local socket that skips
// the MCP server's list cannot step outside it.
//
// It is set at the start of each MCP session (the client's --tier and --dev) and by the side
// panel at any time. It lives in storage.local so that it survives a restarted worker and a
// restarted browser; the MCP client's name lives in storage.session, because it belongs to one
// connection of the host.

import { api, messages } from "./platform.js";

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
/** @type {Set<(change: {access: ToolAccess, client: string|null, source: "session"|"panel"|"client"}) => void>} */
const listeners = new Set();

/** The active access: the cached one, else storage.local's, else the default. */
export async function activeAccess() {
  if (cachedAccess !== null) return cachedAccess;
  const stored = await api.storage.local.get(ACCESS_KEY).catch(() => ({}));
  const value = stored?.[ACCESS_KEY];
  // A session or the panel may have set the access while storage answered: theirs wins.
  cachedAccess ??= messages.isToolAccess(value) ? messages.toolAccess(value) : DEFAULT_ACCESS;
  return cachedAccess;
}

/** The name of the MCP client whose session is on, or null. */
export async function activeClient() {
  if (cachedClient !== null) return cachedClient.name;
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

/** Calls `listener` after every change of the access or of the client. */
export function onAccessChange(listener) {
  listeners.add(listener);
}

async function notify(source) {
  const change = { access: await activeAccess(), client: await activeClient(), source };
  for (const listener of listeners) listener(change);
}

/**
 * Whether `tool` is listed for `access` in the contract (its `tiers`, and its `devTiers` in Dev
 * mode), the same rule as the MCP server's list (src/tools/tiers.rs).
 * @param {{tiers: string[], devTiers: string[]}} entry
 * @param {ToolAccess} access
 */
export function isListed(entry, access) {
  return entry.tiers.includes(access.tier) || (access.dev && entry.devTiers.includes(access.tier));
}

/**
 * The refusal of a call outside the active access, or null when the tool is listed. A name the
 * contract does not know is left to argument validation (invalid_arguments, with suggestions).
 * @param {{tools: Record<string, {tiers: string[], devTiers: string[]}>}} contract
 * @param {string} tool
 * @param {ToolAccess} access
 * @returns {ToolError|null}
 */
export function accessRefusal(contract, tool, access) {
  const entry = Object.hasOwn(contract.tools, tool) ? contract.tools[tool] : undefined;
  if (entry === undefined || isListed(entry, access)) return null;
  const listed = Object.entries(contract.tools)
    .filter(([, candidate]) => isListed(candidate, access))
    .map(([name]) => name);
  return messages.toolError(
    "not_in_tier",
    `${tool} is not available in the active tool access (${describeAccess(access)})`,
    {
      hint: "Use one of the suggested tools. If this tool is really needed, ask the person to change the mode or tier in allwright's side panel.",
      suggestions: listed,
    },
  );
}

/**
 * How people read an access: "mid", "full + dev".
 * @param {ToolAccess} access
 */
export function describeAccess(access) {
  return access.dev ? `${access.tier} + dev` : access.tier;
}
