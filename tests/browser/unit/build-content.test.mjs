// The content scripts' bundles (scripts/build-extension.mjs): each entry point becomes one classic
// script, because a manifest's content scripts and scripting.executeScript files cannot be modules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bundleBidiSnapshot, bundleContentScript, CONTENT_ENTRY_POINTS } from "../../../scripts/build-extension.mjs";

test("every content entry point bundles into a classic script with no import or export", async () => {
  assert.deepEqual(CONTENT_ENTRY_POINTS, ["content/accessibility-tree.js", "content/actions.js", "content/content.js"]);
  for (const entry of CONTENT_ENTRY_POINTS) {
    const code = await bundleContentScript(entry);
    assert.doesNotMatch(code, /^\s*(import|export)\s/m, entry);
    assert.doesNotThrow(() => new Function(code), entry);
    assert.match(code, /globalThis\.allwrightMessages/, `${entry} carries the shared vocabulary it imports`);
  }
});

test("the tree side keeps the page-visible registry names", async () => {
  const code = await bundleContentScript("content/accessibility-tree.js");
  for (const name of ["__wbElementMap", "__wbRefCounter", "__wb_ax_lookup", "__wb_ax_release", "__wb_ax_suggest"]) {
    assert.ok(code.includes(name), name);
  }
});

test("the WebDriver BiDi snapshot is one classic script: the JS core, then the collector", async () => {
  const code = await bundleBidiSnapshot();
  assert.doesNotMatch(code, /^\s*(import|export)\s/m);
  assert.doesNotThrow(() => new Function(code));
  assert.ok(code.indexOf("allwrightAxCore") < code.indexOf("allwrightSurface"), "the core defines itself first");
  assert.doesNotMatch(
    code,
    /WebAssembly\.(Module|instantiate|compile)\(/,
    "nothing compiles WASM under the page's CSP",
  );
});
