// @ts-check
// A screenshot with its secret fields painted over (docs/protocol/action-safety.md, "Secrets stay secret"):
// every frame of the tab paints opaque boxes over its secret fields
// (content/dom/secret-masks.js), the picture is taken, the boxes go, and a picture taken while a
// frame's boxes did not stay in place is thrown away. Both capture paths use it: the
// extension's captureVisibleTab (screenshot.js) and the browser bridge's BiDi
// captureScreenshot, which the MCP server brackets with bridge_mask_secrets and
// bridge_unmask_secrets (bridge.js).

import { api, fail, messages } from "../platform.js";
import { callFrame } from "../frames/frames.js";
import { SECRET_MASK_TIMEOUT_MS } from "../host/budgets.js";

/**
 * What painting the masks gave: the token that removes them, the frames that painted, how many
 * secret fields were covered (all of them, and those in their frame's viewport), and how many
 * frames could not be asked (a frame the extension may not script).
 * @typedef {{token: string, tabId: number, frameIds: number[], masked: number,
 *   maskedInViewport: number, framesNotMasked: number}} PaintedMasks
 */

/** Masks painted for the bridge, until it asks for them to go. @type {Map<string, PaintedMasks>} */
const paintedForBridge = new Map();

/** A random token of 32 hex digits. */
function randomToken() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Paints the masks in every frame of the tab.
 * @param {number} tabId
 * @returns {Promise<PaintedMasks>}
 */
export async function paintMasks(tabId) {
  const token = randomToken();
  const frames = (await api.webNavigation.getAllFrames({ tabId }).catch(() => null)) ?? [{ frameId: 0 }];
  const deadline = Date.now() + SECRET_MASK_TIMEOUT_MS;
  const answers = await Promise.all(
    frames.map(({ frameId }) =>
      callFrame(tabId, frameId, messages.contentToolRequest("paint_secret_masks", { token }), {
        deadline,
        frameLabel: `frame ${frameId}`,
      }).then(
        (answer) => ({ frameId, answer }),
        // A frame that could not paint its masks counts below as not masked.
        () => ({ frameId, answer: undefined }),
      ),
    ),
  );
  /** @type {PaintedMasks} */
  const painted = { token, tabId, frameIds: [], masked: 0, maskedInViewport: 0, framesNotMasked: 0 };
  for (const { frameId, answer } of answers) {
    if (answer === undefined) {
      painted.framesNotMasked += 1;
      continue;
    }
    painted.frameIds.push(frameId);
    painted.masked += Number(answer.masked) || 0;
    painted.maskedInViewport += Number(answer.maskedInViewport) || 0;
  }
  return painted;
}

/**
 * Takes the masks away in every frame that painted them, and answers whether every frame's
 * masks stayed in place over fields that stayed where they were.
 * @param {PaintedMasks} painted
 * @returns {Promise<boolean>}
 */
export async function removeMasks(painted) {
  const deadline = Date.now() + SECRET_MASK_TIMEOUT_MS;
  const answers = await Promise.all(
    painted.frameIds.map((frameId) =>
      callFrame(painted.tabId, frameId, messages.contentToolRequest("remove_secret_masks", { token: painted.token }), {
        deadline,
        frameLabel: `frame ${frameId}`,
      }).catch(() => null),
    ),
  );
  // A frame that cannot say (it went away, it stopped answering) is not known to be intact.
  return answers.every((answer) => answer !== null && answer.intact === true);
}

/**
 * Runs `capture` with the tab's secret fields masked, and answers its result with the number
 * of fields masked: in the viewport, or in the whole documents for a full page.
 * @template T
 * @param {number} tabId
 * @param {"viewport"|"element"|"fullPage"} scope
 * @param {() => Promise<T>} capture
 * @returns {Promise<{captured: T, maskedSecretFields: number, framesNotMasked: number}>}
 */
export async function captureMasked(tabId, scope, capture) {
  const painted = await paintMasks(tabId);
  /** @type {boolean} */
  let intact;
  let captured;
  try {
    captured = await capture();
  } finally {
    intact = await removeMasks(painted);
  }
  if (!intact) pictureDiscarded();
  return {
    captured,
    maskedSecretFields: scope === "fullPage" ? painted.masked : painted.maskedInViewport,
    framesNotMasked: painted.framesNotMasked,
  };
}

/** @returns {never} */
function pictureDiscarded() {
  fail(
    "script_failed",
    "the page moved, removed or covered the boxes that hide its secret fields while the screenshot was taken, so the picture was thrown away",
    {
      hint: "Take the screenshot again once the page is still; a page that keeps moving its password or card fields cannot be captured.",
    },
  );
}

/**
 * bridge_mask_secrets({tabId}): paints the masks before the server's BiDi capture.
 * @param {{tabId: number}} args
 */
export async function maskForBridge({ tabId }) {
  const painted = await paintMasks(tabId);
  paintedForBridge.set(painted.token, painted);
  return {
    token: painted.token,
    masked: painted.masked,
    maskedInViewport: painted.maskedInViewport,
    framesNotMasked: painted.framesNotMasked,
  };
}

/**
 * bridge_unmask_secrets({token}): takes them away after it; `intact: false` tells the server to
 * throw the picture away. A token this worker never gave (it stopped meanwhile, and the frames'
 * masks went by themselves) is not intact.
 * @param {{token: string}} args
 */
export async function unmaskForBridge({ token }) {
  const painted = paintedForBridge.get(token);
  if (painted === undefined) return { intact: false };
  paintedForBridge.delete(token);
  return { intact: await removeMasks(painted) };
}
