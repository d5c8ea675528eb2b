// The content scripts' bundles (scripts/build-extension.mjs): each entry point becomes one classic
// script, because a manifest's content scripts and scripting.executeScript files cannot be modules.
// The isolated world's content script is one entry point, the router, whose modules share by imports.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  bundleBidiSnapshot,
  bundleContentScript,
  CONTENT_ENTRY_POINTS,
  MAIN_WORLD_ENTRY_POINTS,
} from "../../../scripts/build-extension.mjs";

test("every content entry point bundles into a classic script with no import or export", async () => {
  assert.deepEqual(CONTENT_ENTRY_POINTS, ["content/content.js"]);
  for (const entry of CONTENT_ENTRY_POINTS) {
    const code = await bundleContentScript(entry);
    assert.doesNotMatch(code, /^\s*(import|export)\s/m, entry);
    assert.doesNotThrow(() => new Function(code), entry);
    assert.match(code, /globalThis\.allwrightMessages/, `${entry} carries the shared vocabulary it imports`);
  }
});

test("the content script's modules are joined by imports: the tree and action sides publish no global", async () => {
  const code = await bundleContentScript("content/content.js");
  assert.doesNotMatch(code, /\ballwrightAx\b|\ballwrightActions\b/);
  // The router's guard against a second injected copy is the one name it sets on its world.
  assert.match(code, /globalThis\.allwrightContentRouter = true/);
});

test("the page world's click listener recorder bundles into a classic script that defines no global", async () => {
  assert.deepEqual(MAIN_WORLD_ENTRY_POINTS, ["content/click-listener-recorder.js"]);
  const code = await bundleContentScript("content/click-listener-recorder.js");
  assert.doesNotMatch(code, /^\s*(import|export)\s/m);
  assert.doesNotThrow(() => new Function(code));
  // It runs in the page's own world: no extension API, and nothing of the isolated world's.
  assert.doesNotMatch(code, /\b(chrome|browser)\.runtime\b|allwrightMessages/);
  assert.match(code, /^\(\(\) => \{/m, "one function scope: nothing reaches the page's globals");
});

test("the tree side keeps the page-visible registry names", async () => {
  const code = await bundleContentScript("content/content.js");
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

test("an ordinary build carries no call-timing stamp: the switch is the constant false", async () => {
  // The switch (content/tree/read-timing.js) is on only when ALLWRIGHT_CALL_TIMING=1 was set for
  // the build; this test process builds as every ordinary build does.
  assert.notEqual(process.env.ALLWRIGHT_CALL_TIMING, "1", "run the unit tests without the timing switch");
  const tree = await bundleContentScript("content/content.js");
  assert.doesNotMatch(tree, /ALLWRIGHT_CALL_TIMING/, "the switch is replaced by a constant");
  assert.match(tree, /function startReadTiming\(\) \{\s*if \(!false\) return null;|function startReadTiming\(\) \{\s*if \(true\) return null;/);
});
