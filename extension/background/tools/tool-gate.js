// @ts-check
// The tier gate itself (docs/protocol/access.md, "Tool access"): whether a tool is listed for an
// access, and the not_in_tier refusal of one that is not. Pure, so it is unit-tested in Node;
// tool-access.js holds the active access it is applied to.

import "../../shared/messages.js";

const messages = globalThis.allwrightMessages;

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
