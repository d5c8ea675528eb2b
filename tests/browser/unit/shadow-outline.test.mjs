// The shadow tools' shapes (extension/shared/shadow-outline.js) over a small in-memory tree, the
// same way the background reads the debugger's node tree: paths across trees, outlines, what is
// never shown (password and file values), and the limits.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  describeMatch,
  MatchCollector,
  MAX_MATCHES,
  outlineOf,
  pathInTree,
  shadowRootsUnder,
} from "../../../extension/shared/shadow-outline.js";
import { describesSecretField } from "../../../extension/shared/secret-fields.js";

/** A node: {tag?, attributes?, text?, children?, shadow?: {mode, children, readable?}}. */
function build(spec, parent = null, parents = new Map()) {
  const node = { ...spec, children: [] };
  parents.set(node, parent);
  for (const child of spec.children ?? []) node.children.push(build(child, node, parents).node);
  if (spec.shadow) {
    const root = { root: true, children: [] };
    parents.set(root, null);
    for (const child of spec.shadow.children) root.children.push(build(child, root, parents).node);
    node.shadowRoot = { root: spec.shadow.readable === false ? null : root, mode: spec.shadow.mode };
  }
  return { node, parents };
}

function readerFor(parents) {
  return {
    kind: (node) => (node.tag ? "element" : node.text !== undefined ? "text" : "other"),
    localName: (node) => node.tag ?? "",
    attribute: (node, name) => node.attributes?.[name] ?? null,
    attributeEntries: (node) => Object.entries(node.attributes ?? {}),
    children: (node) => node.children,
    parent: (node) => parents.get(node) ?? null,
    shadowRoot: (node) => node.shadowRoot ?? null,
    text: (node) => node.text,
    // As the debugger's reader: the markup, plus `masked` standing for a computed mask.
    secretField: (node) =>
      node.tag !== undefined &&
      describesSecretField({
        localName: node.tag,
        attribute: (name) => node.attributes?.[name] ?? null,
        labels: () => [node.attributes?.["aria-label"] ?? ""],
        maskedByStyle: () => node.masked === true,
      }),
  };
}

const page = build({
  document: true,
  children: [
    {
      tag: "html",
      children: [
        {
          tag: "body",
          children: [
            { tag: "p", children: [{ text: "light" }] },
            {
              tag: "x-panel",
              attributes: { id: "panel" },
              shadow: {
                mode: "closed",
                children: [
                  { tag: "input", attributes: { type: "password", value: "secret-value", name: "pw" } },
                  { tag: "button", attributes: { class: "primary big" }, children: [{ text: "  Save \n now " }] },
                  { tag: "button", children: [{ text: "Cancel" }] },
                  { tag: "x-inner", shadow: { mode: "closed", readable: false, children: [] } },
                  { tag: "style", children: [{ text: "p { color: red }" }] },
                ],
              },
            },
          ],
        },
      ],
    },
  ],
});
const reader = readerFor(page.parents);

test("roots are found through nested trees, with paths that cross them", () => {
  const roots = shadowRootsUnder(reader, page.node);
  assert.deepEqual(
    roots.map((found) => [found.path, found.mode, found.root === null, found.nested]),
    [
      ["x-panel#panel", "closed", false, false],
      ["x-panel#panel >>> x-inner", "closed", true, true],
    ],
  );
});

test("an outline shows tags, attributes and text, never a password value or style text", () => {
  const [panel] = shadowRootsUnder(reader, page.node);
  const { outline, truncated, unreadable } = outlineOf(reader, panel.root, panel.mode, 10_000);
  assert.equal(truncated, false);
  assert.equal(
    outline,
    [
      "#shadow-root (closed)",
      '  <input name="pw" type="password">',
      "  <button.primary.big>",
      '    "Save now"',
      "  <button>",
      '    "Cancel"',
      "  <x-inner>",
      "    #shadow-root (closed, not readable here)",
      "  <style>",
    ].join("\n"),
  );
  assert.equal(unreadable.length, 1);
  const short = outlineOf(reader, panel.root, panel.mode, 60);
  assert.ok(short.truncated && short.outline.length <= 60, short.outline);
});

test("matches name their path and mode, and hide password values", () => {
  const [panel] = shadowRootsUnder(reader, page.node);
  const [input, save] = panel.root.children;
  assert.deepEqual(describeMatch(reader, save, panel), {
    path: "x-panel#panel >>> button:nth-of-type(1)",
    tag: "button",
    mode: "closed",
    text: "Save now",
    attributes: { class: "primary big" },
  });
  const password = describeMatch(reader, input, panel);
  assert.deepEqual(password.attributes, { type: "password", name: "pw" });
  assert.equal(password.text, "");
  assert.ok(!JSON.stringify(password).includes("secret-value"));
});

test("the collector keeps at most MAX_MATCHES and counts the rest", () => {
  const collector = new MatchCollector();
  for (let index = 0; index < MAX_MATCHES + 5; index++) collector.add(() => ({ index }));
  const result = collector.result();
  assert.equal(result.matches.length, MAX_MATCHES);
  assert.equal(result.count, MAX_MATCHES + 5);
  assert.equal(result.truncated, true);
});

test("paths stay bounded on pages nested without end", () => {
  let spec = { tag: "b" };
  for (let depth = 0; depth < 500; depth++) spec = { tag: "div-".padEnd(500, "x"), children: [spec] };
  const deep = build({ document: true, children: [spec] });
  let leaf = deep.node;
  while (leaf.children.length > 0) leaf = leaf.children[0];
  const path = pathInTree(readerFor(deep.parents), leaf);
  assert.ok(path.length <= 2_000 && path.endsWith(" > b"), path.length);
});
