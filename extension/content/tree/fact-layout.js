// @ts-check
// The numbers of the facts' node table that more than the gatherer reads: the table's stride
// and the flag bits the packing for the service worker's core looks at (tree/packed-facts.js,
// tree/worker-core-client.js). The format is crates/allwright-ax-wasm/src/facts.rs; facts.js
// writes it. A module without imports, so that the node unit tests load it without a page.

/** Numbers per node in the node table (a node's flags come first, its parent second). */
export const NODE_STRIDE = 5;
/** The bits of a node's flags that give its kind. */
export const KIND_MASK = 0b111;
export const KIND_ELEMENT = 1;
export const KIND_TEXT = 2;
/** An element a style rule may give `::before`/`::after` content (generated-content.js). */
export const GENERATED_CONTENT_POSSIBLE = 1 << 19;
