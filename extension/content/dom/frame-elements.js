// @ts-check
// Which <iframe> (or <frame>) element of this document holds which child frame of the browser's
// frame inventory (docs/protocol/frames.md, "Frames"). A content script cannot name the frame behind an
// element by itself in Chrome; the background sends the frame's children as webNavigation lists
// them ({frameId, url}). Firefox gives the exact answer (`runtime.getFrameId(element)`, MDN
// "runtime.getFrameId()"); elsewhere an element is matched by its resolved `src` URL, and only
// when the match is unambiguous: one element with that URL and one child frame with it. Nothing
// is ever asked of the page (no postMessage), so the page cannot see or steer the mapping.

/**
 * Whether a node is an HTML <iframe> or <frame> element. Compared by name rather than with
 * `instanceof`, which does not hold across the content script's and the page's realms.
 * @param {unknown} node
 * @returns {node is HTMLIFrameElement}
 */
export function isFrameElement(node) {
  return (
    node instanceof Element &&
    node.namespaceURI === "http://www.w3.org/1999/xhtml" &&
    (node.localName === "iframe" || node.localName === "frame")
  );
}

/**
 * The child frame each element holds, matched by URL: `result[i]` is the frameId of
 * `sources[i]`'s frame, or undefined when the URL names no child frame or more than one element
 * or frame share it. Pure: the unit tests run it without a browser.
 * @param {string[]} sources each element's resolved `src` ("" when it has none)
 * @param {ChildFrame[]} childFrames
 * @returns {(number|undefined)[]}
 */
export function matchChildFramesByUrl(sources, childFrames) {
  /** @type {Map<string, number>} */
  const elementsPerUrl = new Map();
  for (const source of sources) elementsPerUrl.set(source, (elementsPerUrl.get(source) ?? 0) + 1);
  /** @type {Map<string, number[]>} */
  const framesPerUrl = new Map();
  for (const frame of childFrames) {
    const frames = framesPerUrl.get(frame.url) ?? [];
    frames.push(frame.frameId);
    framesPerUrl.set(frame.url, frames);
  }
  return sources.map((source) => {
    // An element without src, and about:blank or about:srcdoc documents, name no frame: several
    // frames of a page may all show them.
    if (source === "" || source.startsWith("about:")) return undefined;
    const frames = framesPerUrl.get(source);
    if (frames === undefined || frames.length !== 1 || elementsPerUrl.get(source) !== 1) return undefined;
    return frames[0];
  });
}

/**
 * The frameId of each frame element, exact in Firefox, by unambiguous URL elsewhere; only ids of
 * `childFrames` are returned, so an element never names a frame the background did not list.
 * @param {HTMLIFrameElement[]} elements
 * @param {ChildFrame[]} childFrames
 * @returns {(number|undefined)[]}
 */
export function childFrameIdsOf(elements, childFrames) {
  if (elements.length === 0 || childFrames.length === 0) return elements.map(() => undefined);
  const known = new Set(childFrames.map((frame) => frame.frameId));
  const runtime = /** @type {any} */ (globalThis).browser?.runtime;
  if (typeof runtime?.getFrameId === "function") {
    return elements.map((element) => {
      let frameId;
      try {
        frameId = runtime.getFrameId(element);
      } catch {
        return undefined;
      }
      return Number.isInteger(frameId) && known.has(frameId) ? frameId : undefined;
    });
  }
  return matchChildFramesByUrl(
    elements.map((element) => (typeof element.src === "string" ? element.src : "")),
    childFrames,
  );
}
