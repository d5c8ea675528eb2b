// @ts-check
// get_shadow_dom and shadow_dom_query (docs/protocol/shadow-and-execute-js.md, "Shadow roots").
//
// Chrome reads every shadow root of the top document, closed ones included, through the
// debugger protocol: DOM.getDocument({depth: -1, pierce: true}) gives the whole node tree with
// each element's shadow roots and their `shadowRootType`, and DOM.querySelectorAll on a shadow
// root's nodeId searches inside that root (not in roots nested in it: the nested ones are
// searched one by one). A ref names its element to the debugger through a short-lived marker
// attribute set by the content script (content/shadow/shadow-roots.js) and removed as soon as the
// node tree is read. Another frame is another debugger target (an out-of-process frame has its
// own), so Chrome refuses frameId other than 0 with not_supported_here.
//
// Firefox has no debugger for extensions: the content script reads the open roots of any frame
// and names the closed hosts it could not enter (closed_shadow_root_unreachable).

import { SHADOW_DOM_FRAME_TIMEOUT_MS } from "../host/budgets.js";
import { BROWSER, fail, messages } from "../platform.js";
import { callFrame, requireFrame, resolveTab } from "../frames/frames.js";
import { withDebugger } from "./debugger-session.js";
import { describesSecretField, isValueField } from "../../shared/secret-fields.js";
import {
  boundedPath,
  describeMatch,
  MatchCollector,
  outlineOf,
  PATH_SEPARATOR,
  pathInTree,
  shadowRootsUnder,
} from "../../shared/shadow-outline.js";

/**
 * @param {ToolArguments<"get_shadow_dom">} args
 */
export async function getShadowDom({ ref_id, maxChars, frameId = 0, tabId }) {
  const tab = await resolveTab(tabId);
  if (frameId !== 0) await requireFrame(tab.id, frameId);
  if (BROWSER === "firefox") {
    return askFrame(tab.id, frameId, "read_shadow_roots", { maxChars, ...(ref_id === undefined ? {} : { ref_id }) });
  }
  refuseOtherFrames(frameId, "get_shadow_dom");
  return withDocumentTree(tab.id, ref_id, (tree, host) => {
    if (host === null) {
      const outermost = shadowRootsUnder(tree.reader, tree.document).filter((found) => !found.nested);
      return outlines(tree, outermost, maxChars);
    }
    const shadow = tree.reader.shadowRoot(host);
    const path = tree.composedPath(host);
    if (shadow === null) notAShadowHost(/** @type {string} */ (ref_id), path);
    return outlines(tree, [{ host, path, mode: shadow.mode, root: shadow.root, nested: false }], maxChars);
  });
}

/**
 * @param {ToolArguments<"shadow_dom_query">} args
 */
export async function shadowDomQuery({ selector, ref_id, frameId = 0, tabId }) {
  const tab = await resolveTab(tabId);
  if (frameId !== 0) await requireFrame(tab.id, frameId);
  if (BROWSER === "firefox") {
    return askFrame(tab.id, frameId, "query_shadow_roots", { selector, ...(ref_id === undefined ? {} : { ref_id }) });
  }
  refuseOtherFrames(frameId, "shadow_dom_query");
  return withDocumentTree(tab.id, ref_id, async (tree, host, send) => {
    // A selector that does not parse fails here, before any root is searched.
    await send("DOM.querySelector", { nodeId: tree.document.nodeId, selector }).catch((error) => {
      fail("invalid_selector", `the selector ${JSON.stringify(selector)} does not parse (${debuggerMessage(error)})`, {
        hint: "Pass a CSS selector such as `button.primary` or `[part=label]`.",
      });
    });
    let roots;
    if (host === null) {
      roots = shadowRootsUnder(tree.reader, tree.document);
    } else {
      const shadow = tree.reader.shadowRoot(host);
      const path = tree.composedPath(host);
      if (shadow === null) notAShadowHost(/** @type {string} */ (ref_id), path);
      roots = [
        { host, path, mode: shadow.mode, root: shadow.root, nested: false },
        ...shadowRootsUnder(tree.reader, enteredRoot(shadow.root), path + PATH_SEPARATOR),
      ];
    }
    const collector = new MatchCollector();
    for (const found of roots) {
      if (collector.full) break;
      // The debugger's reader (the `reader` of the document tree below) returns every shadow
      // root it reports, open or closed, with its node, so a found root is never null here.
      const root = /** @type {CdpNode} */ (found.root);
      const { nodeIds } = await send("DOM.querySelectorAll", { nodeId: root.nodeId, selector });
      for (const nodeId of nodeIds ?? []) {
        const node = tree.nodesById.get(nodeId);
        if (node === undefined || collector.full) continue;
        collector.add(() => describeMatch(tree.reader, node, found));
      }
    }
    return collector.result();
  });
}

/**
 * The text of a debugger error: chrome.debugger rejects with the protocol's error as JSON.
 * @param {unknown} error
 */
function debuggerMessage(error) {
  const text = String(/** @type {{message?: unknown}|null|undefined} */ (error)?.message ?? error);
  try {
    return String(JSON.parse(text).message ?? text);
  } catch {
    return text;
  }
}

/**
 * @param {number} frameId
 * @param {string} tool
 */
function refuseOtherFrames(frameId, tool) {
  if (frameId === 0) return;
  fail("not_supported_here", `in Chrome, ${tool} reads the top document only (frame ${frameId} was asked)`, {
    hint: "A frame is a separate debugger target. Read the frame with get_accessibility_tree and its frameId, or navigate to the frame's own URL.",
  });
}

/**
 * @returns {never}
 * @param {string} refId
 * @param {string} path the host's composed path, as the results print it
 */
function notAShadowHost(refId, path) {
  fail("not_a_shadow_host", `${refId} (${path}) has no shadow root`, {
    hint: "Pass the ref of the component's host element, or leave ref_id out to see every shadow host of the page.",
  });
}

/**
 * @param {number} tabId
 * @param {number} frameId
 * @param {Parameters<typeof messages.contentToolRequest>[0]} tool
 * @param {Object<string, unknown>} toolArguments
 */
async function askFrame(tabId, frameId, tool, toolArguments) {
  return callFrame(tabId, frameId, messages.contentToolRequest(tool, toolArguments), {
    deadline: Date.now() + SHADOW_DOM_FRAME_TIMEOUT_MS,
    frameLabel: `frame ${frameId}`,
  });
}

/**
 * The outlines of some hosts' shadow trees, within `maxChars` for all of them together.
 * @param {DocumentTree} tree
 * @param {Array<import("../../shared/shadow-outline.js").FoundRoot<CdpNode>>} roots
 * @param {number} maxChars
 */
function outlines(tree, roots, maxChars) {
  const hosts = [];
  let room = maxChars;
  let truncated = false;
  for (const found of roots) {
    if (room <= 0) {
      truncated = true;
      break;
    }
    const { outline, truncated: cut } = outlineOf(tree.reader, enteredRoot(found.root), found.mode, room);
    hosts.push({ host: found.path, mode: found.mode, outline });
    room -= outline.length + found.path.length;
    truncated ||= cut;
  }
  return { hosts, truncated };
}

/**
 * A shadow root the debugger's reader (documentTree) answered: it enters closed roots too, so,
 * unlike a content script's reader in Firefox, it never answers a host whose root it cannot read.
 * @param {CdpNode|null} root
 * @returns {CdpNode}
 */
function enteredRoot(root) {
  if (root === null) throw new Error("the debugger's tree names a shadow root it did not read");
  return root;
}

/**
 * A node of DOM.getDocument's answer (Chrome DevTools Protocol, DOM.Node).
 * @typedef {{nodeId: number, nodeType: number, localName?: string, nodeName?: string,
 *   nodeValue?: string, attributes?: string[], children?: CdpNode[], shadowRoots?: CdpNode[],
 *   shadowRootType?: "open"|"closed"|"user-agent"}} CdpNode
 * @typedef {{document: CdpNode, reader: import("../../shared/shadow-outline.js").ShadowTreeReader<CdpNode>,
 *   nodesById: Map<number, CdpNode>, composedPath: (node: CdpNode) => string,
 *   labelsOf: (node: CdpNode) => string[], maskedNodes: Set<CdpNode>}} DocumentTree
 */

/**
 * Attaches the debugger, reads the top document's whole node tree (shadow roots included) and
 * runs `work` on it; with a ref, the ref's element is found in the tree through its marker.
 * @template T
 * @param {number} tabId
 * @param {string|undefined} refId
 * @param {(tree: DocumentTree, host: CdpNode|null, send: import("./debugger-session.js").SendCommand) => T|Promise<T>} work
 * @returns {Promise<T>}
 */
async function withDocumentTree(tabId, refId, work) {
  const mark = refId === undefined ? null : await askFrame(tabId, 0, "mark_shadow_host", { ref_id: refId });
  try {
    return await withDebugger(tabId, async (send) => {
      const { root } = await send("DOM.getDocument", { depth: -1, pierce: true });
      if (mark !== null) {
        // The marker has done its job once the tree is read: it leaves the page at once.
        askFrame(tabId, 0, "unmark_shadow_host", { marker: mark.marker }).catch(() => {});
      }
      const tree = documentTree(root, mark === null ? null : String(mark.attribute));
      await readStyleMasks(tree, send);
      /** @type {CdpNode|null} */
      let host = null;
      if (mark !== null) {
        host = tree.findMarked(String(mark.marker));
        if (host === null) {
          fail("ref_not_found", `${refId} was not found in the document the debugger read`, {
            hint: "The page changed while it was read; read the tree again (get_accessibility_tree).",
          });
        }
      }
      return work(tree, host, send);
    });
  } finally {
    if (mark !== null) askFrame(tabId, 0, "unmark_shadow_host", { marker: mark.marker }).catch(() => {});
  }
}

/**
 * The debugger's node tree carries no style, so which fields the page masks with
 * `-webkit-text-security` (shared/secret-fields.js) is asked of the browser for each field the
 * markup alone does not already call secret (CSS.getComputedStyleForNode). Where the style
 * cannot be read, the field is taken as masked: the rule fails closed.
 * @param {DocumentTree} tree
 * @param {import("./debugger-session.js").SendCommand} send
 */
async function readStyleMasks(tree, send) {
  const candidates = [];
  for (const node of tree.nodesById.values()) {
    if (node.nodeType !== 1) continue;
    const attribute = (/** @type {string} */ name) => tree.reader.attribute(node, name);
    const localName = node.localName ?? "";
    if (
      isValueField(localName, attribute) &&
      !describesSecretField({ localName, attribute, labels: () => tree.labelsOf(node) })
    ) {
      candidates.push(node);
    }
  }
  if (candidates.length === 0) return;
  const enabled = await send("DOM.enable", {})
    .then(() => send("CSS.enable", {}))
    .then(() => true)
    .catch(() => false);
  for (const node of candidates) {
    if (!enabled) {
      tree.maskedNodes.add(node);
      continue;
    }
    try {
      const { computedStyle } = await send("CSS.getComputedStyleForNode", { nodeId: node.nodeId });
      const security = (computedStyle ?? []).find(
        (/** @type {{name: string, value: string}} */ entry) => entry.name === "-webkit-text-security",
      );
      if (security !== undefined && security.value.trim() !== "" && security.value.trim() !== "none") {
        tree.maskedNodes.add(node);
      }
    } catch {
      tree.maskedNodes.add(node);
    }
  }
}

/**
 * Indexes DOM.getDocument's tree: parents, node ids, and a reader over it that enters open and
 * closed shadow roots (never the browser's own "user-agent" roots of inputs and media) and does
 * not enter frames' documents or templates' contents. The marker attribute is hidden from it.
 * @param {CdpNode} document
 * @param {string|null} markerAttribute
 */
function documentTree(document, markerAttribute) {
  /** @type {Map<CdpNode, CdpNode>} */
  const parents = new Map();
  /** @type {Map<number, CdpNode>} */
  const nodesById = new Map();
  /** @type {Map<CdpNode, CdpNode>} each shadow root's host */
  const hosts = new Map();
  const pending = [document];
  while (pending.length > 0) {
    const node = /** @type {CdpNode} */ (pending.pop());
    nodesById.set(node.nodeId, node);
    for (const child of node.children ?? []) {
      parents.set(child, node);
      pending.push(child);
    }
    for (const shadowRoot of node.shadowRoots ?? []) {
      hosts.set(shadowRoot, node);
      pending.push(shadowRoot);
    }
  }
  const attribute = (/** @type {CdpNode} */ node, /** @type {string} */ name) => {
    const list = node.attributes ?? [];
    for (let index = 0; index + 1 < list.length; index += 2) {
      if (list[index] === name) return list[index + 1];
    }
    return null;
  };
  /** The fields whose computed style masks their text (readStyleMasks fills it). @type {Set<CdpNode>} */
  const maskedNodes = new Set();
  // The texts that label a field in this tree: aria-label, placeholder and title, the
  // `<label for>` elements of its tree and the label around it (aria-labelledby is followed by
  // the live reader only).
  /** @type {Map<string, string[]>} label texts by the id they are for */
  const labelsFor = new Map();
  const textUnder = (/** @type {CdpNode} */ node) => {
    let text = "";
    const stack = [node];
    while (stack.length > 0) {
      const current = /** @type {CdpNode} */ (stack.pop());
      if (current.nodeType === 3) text += current.nodeValue ?? "";
      for (const child of current.children ?? []) stack.push(child);
    }
    return text;
  };
  for (const node of nodesById.values()) {
    const target = node.localName === "label" ? attribute(node, "for") : null;
    if (target !== null) labelsFor.set(target, [...(labelsFor.get(target) ?? []), textUnder(node)]);
  }
  const labelsOf = (/** @type {CdpNode} */ node) => {
    const id = attribute(node, "id");
    const texts = [
      attribute(node, "aria-label") ?? "",
      attribute(node, "placeholder") ?? "",
      attribute(node, "title") ?? "",
      ...(id === null ? [] : (labelsFor.get(id) ?? [])),
    ];
    // A `<label>` around the field labels it too (HTML, "The label element").
    for (let ancestor = parents.get(node); ancestor !== undefined; ancestor = parents.get(ancestor)) {
      if (ancestor.localName === "label") {
        texts.push(textUnder(ancestor));
        break;
      }
    }
    return texts;
  };
  /** @type {import("../../shared/shadow-outline.js").ShadowTreeReader<CdpNode> & {attributeEntries: (node: CdpNode) => Array<[string, string]>}} */
  const reader = {
    kind: (node) => (node.nodeType === 1 ? "element" : node.nodeType === 3 || node.nodeType === 4 ? "text" : "other"),
    localName: (node) => node.localName ?? "",
    attribute: (node, name) => (name === markerAttribute ? null : attribute(node, name)),
    attributeEntries: (node) => {
      /** @type {Array<[string, string]>} */
      const entries = [];
      const list = node.attributes ?? [];
      for (let index = 0; index + 1 < list.length; index += 2) {
        if (list[index] !== markerAttribute) entries.push([list[index], list[index + 1]]);
      }
      return entries;
    },
    children: (node) => node.children ?? [],
    parent: (node) => parents.get(node) ?? null,
    shadowRoot: (node) => {
      const root = (node.shadowRoots ?? []).find((candidate) => candidate.shadowRootType !== "user-agent");
      return root === undefined ? null : { root, mode: root.shadowRootType === "closed" ? "closed" : "open" };
    },
    text: (node) => node.nodeValue ?? "",
    secretField: (node) =>
      node.nodeType === 1 &&
      describesSecretField({
        localName: node.localName ?? "",
        attribute: (name) => attribute(node, name),
        labels: () => labelsOf(node),
        maskedByStyle: () => maskedNodes.has(node),
      }),
  };
  const composedPath = (/** @type {CdpNode} */ element) => {
    const parts = [];
    /** @type {CdpNode|undefined} */
    let current = element;
    while (current !== undefined) {
      parts.push(pathInTree(reader, current));
      let top = current;
      while (parents.has(top)) top = /** @type {CdpNode} */ (parents.get(top));
      current = hosts.get(top);
    }
    return boundedPath(parts.reverse().join(PATH_SEPARATOR));
  };
  // The one element carrying the marker, or null. A page that watches its DOM could copy the
  // marker onto another element to have that one read instead: two carriers find nothing.
  const findMarked = (/** @type {string} */ marker) => {
    /** @type {CdpNode[]} */
    const carriers = [];
    for (const node of nodesById.values()) {
      if (node.nodeType === 1 && markerAttribute !== null && attribute(node, markerAttribute) === marker) {
        carriers.push(node);
      }
    }
    return carriers.length === 1 ? carriers[0] : null;
  };
  return { document, reader, nodesById, composedPath, findMarked, labelsOf, maskedNodes };
}
