// The manifest rendering of scripts/build-extension.mjs, on the real sources.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { mergePatch, renderManifest } from "../../../scripts/build-extension.mjs";

const read = async (file) => JSON.parse(await readFile(new URL(`../../../${file}`, import.meta.url), "utf8"));
const inputs = async (browser) => ({
  base: await read("manifest/base.json"),
  patch: await read(`manifest/${browser}.json`),
  identity: await read("manifest/identity.json"),
  version: (await read("package.json")).version,
  browser,
});

function docKeys(value, found = []) {
  if (Array.isArray(value)) value.forEach((v) => docKeys(v, found));
  else if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      if (key.startsWith("//") || key.endsWith("+")) found.push(key);
      docKeys(v, found);
    }
  }
  return found;
}

test("chrome: MV3 module service worker, key, permissions, content scripts in every frame", async () => {
  const identity = await read("manifest/identity.json");
  const manifest = renderManifest(await inputs("chrome"));
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.key, identity.chromeKey);
  assert.deepEqual(manifest.background, { service_worker: "background/main.js", type: "module" });
  assert.equal(manifest.browser_specific_settings, undefined);
  assert.deepEqual(manifest.permissions, ["nativeMessaging", "tabs", "scripting", "webNavigation", "webRequest", "downloads", "alarms", "storage", "debugger", "sidePanel"]);
  assert.deepEqual(manifest.side_panel, { default_path: "panel/panel.html" });
  assert.equal(manifest.sidebar_action, undefined);
  assert.deepEqual(manifest.host_permissions, ["<all_urls>"]);
  // Messages are structured clones (the worker route sends bytes as Uint8Array), which Chrome
  // reads from 148 on: an older Chrome would send them as JSON and the worker route would break.
  assert.equal(manifest.message_serialization, "structured_clone");
  assert.ok(Number(manifest.minimum_chrome_version) >= 148);
  const [scripts] = manifest.content_scripts;
  assert.deepEqual(scripts.js, ["content/content.js"]);
  assert.equal(scripts.all_frames, true);
  assert.equal(scripts.match_about_blank, true);
  assert.equal(scripts.match_origin_as_fallback, true);
  assert.equal(scripts.run_at, "document_idle");
  assert.deepEqual(mainWorldScripts(manifest), {
    matches: ["<all_urls>"],
    js: ["content/click-listener-recorder.js"],
    world: "MAIN",
    all_frames: true,
    match_about_blank: true,
    run_at: "document_start",
    match_origin_as_fallback: true,
  });
  assert.deepEqual(docKeys(manifest), []);
});

/** The one content_scripts entry in the page's world: the click listener recorder. */
function mainWorldScripts(manifest) {
  const entries = manifest.content_scripts.filter((entry) => entry.world === "MAIN");
  assert.equal(entries.length, 1);
  return entries[0];
}

test("firefox: background scripts, gecko id, no Chrome-only keys or permissions", async () => {
  const identity = await read("manifest/identity.json");
  const manifest = renderManifest(await inputs("firefox"));
  assert.deepEqual(manifest.background, { scripts: ["background/main.js"], type: "module" });
  assert.equal(manifest.browser_specific_settings.gecko.id, identity.geckoId);
  assert.match(manifest.browser_specific_settings.gecko.strict_min_version, /^\d+\.0$/);
  assert.equal(manifest.key, undefined);
  assert.equal(manifest.minimum_chrome_version, undefined);
  assert.equal(manifest.message_serialization, undefined, "Firefox always clones messages");
  assert.deepEqual(manifest.permissions, ["nativeMessaging", "tabs", "scripting", "webNavigation", "webRequest", "downloads", "alarms", "storage"]);
  assert.equal(manifest.sidebar_action.default_panel, "panel/panel.html");
  assert.equal(manifest.side_panel, undefined, "Firefox's side panel is its sidebar_action");
  assert.ok(!manifest.permissions.includes("debugger"), "Firefox clicks stay synthetic: no debugger");
  assert.equal(manifest.content_scripts[0].match_origin_as_fallback, undefined);
  assert.deepEqual(mainWorldScripts(manifest), {
    matches: ["<all_urls>"],
    js: ["content/click-listener-recorder.js"],
    world: "MAIN",
    all_frames: true,
    match_about_blank: true,
    run_at: "document_start",
  });
  assert.deepEqual(docKeys(manifest), []);
});

test("a permission without a reason fails the build", async () => {
  const input = await inputs("chrome");
  input.patch = { ...input.patch, "permissions+": [...input.patch["permissions+"], "cookies"] };
  assert.throws(() => renderManifest(input), /without a reason in "\/\/permissions": cookies/);
});

test("patch rules: objects merge, + appends, null removes, object arrays merge by index", () => {
  const base = { a: { b: 1, c: 2 }, list: ["x"], gone: 1, entries: [{ p: 1 }], scalar: [1, 2] };
  const patch = { a: { c: 3 }, "list+": ["y"], gone: null, entries: [{ q: 2 }], scalar: [3] };
  assert.deepEqual(mergePatch(base, patch), { a: { b: 1, c: 3 }, list: ["x", "y"], entries: [{ p: 1, q: 2 }], scalar: [3] });
  assert.deepEqual(base.list, ["x"], "the base is not modified");
});
