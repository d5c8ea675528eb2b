// @ts-check
// One frame's document of the structured snapshot (`snapshot_document` in docs/protocol/channels.md,
// section 3), written by the core from the facts of this document. Shared by the extension's
// content script (content/accessibility-tree.js) and the WebDriver BiDi bundle
// (surface/bidi-snapshot.js), so that both surfaces produce the same bytes for the same page:
// they differ only in how the core was loaded and how a core trap is reported.

import { gatherFacts } from "./facts.js";
import { pseudoContentReader } from "./generated-content.js";
import { applyAriaRefs, ariaRefCounter, documentPrefix, setAriaRefCounter } from "./ai-refs.js";
import { splitOutput } from "../../shared/tree-result.js";

/**
 * The page's facts as the fields of the core's `buildTextTree` call (core-loading.js,
 * TextTreeCall).
 * @param {import("./facts.js").Facts} facts
 */
export function factFields(facts) {
  return {
    strings: facts.strings,
    stringLengths: facts.stringLengths,
    nodes: facts.nodes,
    attributes: facts.attributes,
    rects: facts.rects,
    slots: facts.slots,
    viewport: facts.viewport,
    pseudo: pseudoContentReader(facts.nodeList),
  };
}

/**
 * The page's facts as the first arguments of `writeSnapshotDocument` (crates/allwright-ax-wasm/src/bindings.rs).
 * @param {import("./facts.js").Facts} facts
 */
export function factArguments(facts) {
  return [
    facts.strings,
    facts.stringLengths,
    facts.nodes,
    facts.attributes,
    facts.rects,
    facts.slots,
    facts.viewport,
    pseudoContentReader(facts.nodeList),
  ];
}

/**
 * @typedef {{format: "json"|"yaml", mode?: "ai", contextId: string, parentContextId?: string|null}}
 *   SnapshotDocumentArguments
 */

/**
 * This document's snapshot document, as the core writes it. In "ai" mode it also sets the
 * `aria-ref` attributes and removes the stale ones this realm set before (tree/ai-refs.js).
 * @param {import("./core-loading.js").AxCore} core a core that is ready
 * @param {SnapshotDocumentArguments} args
 * @param {(call: () => string | Promise<string>) => string | Promise<string>} runCore runs the
 *   one core call and turns a trap into the caller's error
 * @returns {Promise<string>}
 */
export async function writeSnapshotDocument(core, args, runCore) {
  const format = args.format ?? "json";
  const ai = args.mode === "ai";
  const facts = gatherFacts({
    anchor: null,
    withRefs: false,
    withAriaRefs: ai,
    measureBoxes: false,
    readPointerEvents: ai,
  });
  const output = await runCore(() =>
    core.writeSnapshotDocument(
      ...factArguments(facts),
      format,
      args.contextId,
      args.parentContextId ?? undefined,
      document.URL,
      document.title,
      ai ? documentPrefix() : undefined,
      ariaRefCounter(),
      facts.knownAriaNodes,
      facts.knownAria,
    ),
  );
  const { envelope, body } = splitOutput(output);
  if (ai) {
    applyAriaRefs(facts.nodeList, envelope.ariaRefs);
    setAriaRefCounter(envelope.ariaCounter);
  }
  return body;
}
