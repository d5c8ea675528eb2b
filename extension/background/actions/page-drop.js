// @ts-check
// Firefox's drop of files on a drop zone, in the page's own world (upload_file's extension
// route; docs/agent-tools.md, "Attaching files: upload_file").
//
// Why the page's world: Gecko gives each DataTransfer item the principal of the script that added
// it, and hides from the page the items its principal does not subsume. A content script's
// expanded principal is not the page's, so a drop built in the content script reaches the page's
// `drop` listener with an empty `dataTransfer.files` (Chromium shares the DOM across worlds and
// shows them). So in Firefox the frame finds the zone, starts its observation and marks the zone
// (begin_external_input, kind "upload"), and this one function, self-contained and run with
// `scripting.executeScript({world: "MAIN"})` as the console hook is, builds the files and the
// drag sequence there. It reads nothing of the page but the marked element, carries no extension
// API, and answers whether the page took the drop; a page that replaced DataTransfer or
// DragEvent only fools itself.

/* global DataTransfer, DragEvent, document -- dropFilesInPage runs in the page, not in the background. */

import { api } from "../platform.js";
import { INPUT_MARKER_ATTRIBUTE } from "../../shared/generated/marker-attributes.js";

/**
 * Runs in the page's world: finds the element marked `<attribute>="<marker>"` (the input marker
 * attribute, passed in: a function run in the page has no imports; open shadow roots included) and drags the files onto it: dragenter, dragover, and drop when the page
 * cancelled dragover (else dragleave), one DataTransfer holding the files.
 * @param {string} attribute
 * @param {string} marker
 * @param {{name: string, type: string, lastModified: number, data: string}[]} files
 * @returns {{found: boolean, dropped: boolean}}
 */
function dropFilesInPage(attribute, marker, files) {
  const selector = `[${attribute}="${marker}"]`;
  /** @param {Document|ShadowRoot} root @returns {Element|null} */
  const find = (root) => {
    const hit = root.querySelector(selector);
    if (hit !== null) return hit;
    for (const element of root.querySelectorAll("*")) {
      if (element.shadowRoot !== null) {
        const inside = find(element.shadowRoot);
        if (inside !== null) return inside;
      }
    }
    return null;
  };
  const zone = find(document);
  if (zone === null) return { found: false, dropped: false };
  const transfer = new DataTransfer();
  for (const file of files) {
    const text = atob(file.data);
    const bytes = new Uint8Array(text.length);
    for (let index = 0; index < text.length; index += 1) bytes[index] = text.charCodeAt(index);
    transfer.items.add(new File([bytes], file.name, { type: file.type, lastModified: file.lastModified }));
  }
  transfer.dropEffect = "copy";
  transfer.effectAllowed = "all";
  const rect = zone.getBoundingClientRect();
  const init = {
    bubbles: true,
    cancelable: true,
    composed: true,
    dataTransfer: transfer,
    clientX: Math.round(rect.x + rect.width / 2),
    clientY: Math.round(rect.y + rect.height / 2),
  };
  zone.dispatchEvent(new DragEvent("dragenter", init));
  if (zone.dispatchEvent(new DragEvent("dragover", init))) {
    zone.dispatchEvent(new DragEvent("dragleave", { ...init, cancelable: false }));
    return { found: true, dropped: false };
  }
  zone.dispatchEvent(new DragEvent("drop", init));
  return { found: true, dropped: true };
}

/**
 * Drops the files on the zone the frame marked, in the page's world of that frame.
 * @param {number} tabId
 * @param {number} frameId
 * @param {string} marker
 * @param {{name: string, type: string, lastModified: number, data: string}[]} files
 * @returns {Promise<{found: boolean, dropped: boolean}>}
 */
export async function dropInPageWorld(tabId, frameId, marker, files) {
  const [injection] = await api.scripting.executeScript({
    target: { tabId, frameIds: [frameId] },
    world: "MAIN",
    func: dropFilesInPage,
    args: [INPUT_MARKER_ATTRIBUTE, marker, files],
  });
  const answer = /** @type {{found?: unknown, dropped?: unknown}|undefined} */ (injection?.result);
  return { found: answer?.found === true, dropped: answer?.dropped === true };
}
