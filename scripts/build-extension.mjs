#!/usr/bin/env node
// Renders the extension for each browser: dist/chrome/ and dist/firefox/.
//
//   node scripts/build-extension.mjs [chrome|firefox ...] [--out DIR] [--source DIR] [--for-tests]
//
// --out puts the builds in DIR/<browser> instead of dist/, and the scripts that
// crates/allwright-surface-web embeds in DIR/surface-web/ instead of that crate's embedded/;
// --source reads another copy of extension/ (a copy with stand-ins, say); --for-tests
// (scripts/build --for-tests) builds the extension the browser tests load, with the test-only
// settings of build-config.js below.
//
// One manifest source (manifest/base.json) plus a small patch per browser (manifest/chrome.json,
// manifest/firefox.json), the identity fixed in manifest/identity.json and the version from
// package.json. Every permission must be explained in a "//permissions" entry; the build fails
// otherwise, and strips every "//" key from what it writes. The files of extension/ are copied
// as they are, minus what a browser never loads, except the content scripts: they are ES modules
// (extension/content/), and esbuild bundles each entry point into one classic script of the same
// name, because a manifest's content scripts cannot be modules.

import { cp, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BROWSERS = ["chrome", "firefox"];

/**
 * Files of extension/ a browser never loads, as paths relative to extension/.
 * Firefox compiles WASM in content scripts under any page policy, so it never needs the JS
 * build of the core (extension/background/core/load-core.js picks "wasm" there).
 */
const EXCLUDED = {
  chrome: new Set(),
  // Nor the service worker's module (load-core.js sends no Firefox frame there); the worker's
  // glue stays, because background/core/worker-core.js imports it in both browsers.
  firefox: new Set(["generated/ax-core-js.js", "generated/ax-core.wasm"]),
};

/**
 * The content script's entry point, relative to extension/: the router, which imports the tree
 * side and the action side. It becomes one classic script of the same path in the build, holding
 * every module it imports, so that the modules share their state by imports within one bundle.
 * The manifest lists it, and background/frames/frames.js injects the same file into frames that lack it.
 */
export const CONTENT_ENTRY_POINTS = Object.freeze(["content/content.js"]);

/**
 * Entry points bundled the same way for the page's own world (a manifest content script with
 * "world": "MAIN"): the click listener recorder. Not in CONTENT_ENTRY_POINTS, which
 * background/frames/frames.js injects into the isolated world of frames that lack them: the recorder
 * must run before the page's scripts, and injected late it would only see later listeners.
 */
export const MAIN_WORLD_ENTRY_POINTS = Object.freeze(["content/click-listener-recorder.js"]);

/**
 * The page side of the WebDriver BiDi snapshot (crates/allwright-surface-web): an entry point
 * under extension/surface/ that is not part of the extension, bundled with the JS build of the
 * core into one script, written to the crate's embedded/bidi-snapshot.js, where its build.rs
 * embeds it.
 */
export const BIDI_SNAPSHOT_ENTRY = "surface/bidi-snapshot.js";

/**
 * Where crates/allwright-surface-web's build.rs finds the scripts it embeds: inside its own
 * package, so that the crate builds (and packages) from its own folder, not from the
 * repository around it. The folder is written here and ignored by git, as dist/ is.
 */
export const SURFACE_WEB_EMBEDDED_DIR = path.join(root, "crates", "allwright-surface-web", "embedded");

/**
 * The files that crate embeds besides the snapshot's bundle, copied as they are: the WebDriver
 * BiDi mapper for Chromium (`mapperTab.js` of the npm package chromium-bidi, pinned exactly in
 * package.json), which its launcher runs in a hidden tab, and the extension's rule of what is
 * a part of the control being clicked, which its element operations share with the extension.
 */
const SURFACE_WEB_COPIED = Object.freeze([
  { from: path.join(root, "node_modules", "chromium-bidi", "out", "Default", "gen", "src", "mapperTab.js"), to: "chromium-bidi-mapper.js" },
  { from: path.join("content", "dom", "own-part.js"), to: "own-part.js", inExtension: true },
]);

/**
 * `ALLWRIGHT_CALL_TIMING=1` builds an extension whose tree reads return the time of each step of
 * the call in their result (`timing`; docs/performance/warm-read.md, "The anatomy of a warm read"), for
 * `npm run bench -- --anatomy`. Never in an ordinary build: there the stamps compile to nothing.
 */
const CALL_TIMING = process.env.ALLWRIGHT_CALL_TIMING === "1";

/**
 * The keep-alive alarm's period (background/host/keep-alive.js), in minutes. A product build uses
 * 30 seconds, the shortest period Chrome allows a packed extension (chrome.alarms: "alarms do
 * not fire more than once every 30 seconds" unless the extension is loaded unpacked). The browser
 * tests load the extension unpacked, where Chromium's floor is 1 second
 * (extensions/browser/api/alarms/alarms_api_constants.h, kDevDelayMinimum) and Firefox has none,
 * so a build for tests wakes a stopped background within 3 seconds: the test of that wake
 * (tests/extension/safety.rs, `a_stopped_background_comes_back_and_loses_no_call`) then waits
 * seconds, not half a minute, each time it stops the background.
 * The test reads the period back from the build it tests.
 *
 * A loaded machine once seemed to lose a page's focus to the 3-second alarm
 * (focus_and_covers.rs, `a_launched_browsers_page_has_focus`); what it lost was new_tab's load,
 * answered on the tab's about:blank (background/tabs/navigation.js, INITIAL_BLANK), and a
 * screenshot of a hidden tab that left it in front (browser_bridge/screenshot.rs).
 */
const KEEP_ALIVE_PERIOD_MINUTES = { product: 0.5, forTests: 0.05 };

/** Browsers the bundles must run in: the manifests' minimum versions (manifest/*.json). */
const BUNDLE_TARGETS = ["chrome114", "firefox140"];

/** Files the page-side core needs; scripts/build-wasm writes them. */
const REQUIRED_GENERATED = [
  "generated/ax-core-wasm.js",
  "generated/ax-core-js.js",
  "generated/ax-core-worker.js",
  "generated/ax-core.wasm",
];

class BuildError extends Error {}

async function main(argv) {
  const options = { "--out": path.join(root, "dist"), "--source": path.join(root, "extension") };
  const outGiven = argv.includes("--out");
  const positional = [];
  let forTests = false;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === "--for-tests") forTests = true;
    else if (!(argv[i] in options)) positional.push(argv[i]);
    else if (argv[i + 1] === undefined) throw new BuildError(`${argv[i]} needs a folder`);
    else options[argv[i]] = path.resolve(argv[(i += 1)]);
  }
  const outRoot = options["--out"];
  const extensionDir = options["--source"];
  const wanted = positional.length === 0 ? BROWSERS : positional;
  for (const browser of wanted) {
    if (!BROWSERS.includes(browser)) throw new BuildError(`unknown browser ${JSON.stringify(browser)}; use ${BROWSERS.join(" or ")}`);
  }
  await requireGenerated(extensionDir);
  const base = await readJson("manifest/base.json");
  const identity = await readJson("manifest/identity.json");
  const { version } = await readJson("package.json");
  for (const browser of wanted) {
    const patch = await readJson(`manifest/${browser}.json`);
    const manifest = renderManifest({ base, patch, browser, identity, version });
    const outDir = path.join(outRoot, browser);
    await rm(outDir, { recursive: true, force: true });
    await copyExtension(extensionDir, outDir, EXCLUDED[browser]);
    for (const entry of [...CONTENT_ENTRY_POINTS, ...MAIN_WORLD_ENTRY_POINTS]) {
      await writeFile(path.join(outDir, entry), await bundleContentScript(entry, extensionDir));
    }
    await writeFile(path.join(outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    await writeFile(path.join(outDir, "background", "build-config.js"), buildConfig(browser, identity, forTests));
    await checkManifestFiles(manifest, outDir);
    console.log(`built ${path.relative(process.cwd(), outDir) || outDir} (${browser}, version ${version})`);
  }
  const embeddedDir = outGiven ? path.join(outRoot, "surface-web") : SURFACE_WEB_EMBEDDED_DIR;
  await mkdir(embeddedDir, { recursive: true });
  await writeFile(path.join(embeddedDir, "bidi-snapshot.js"), await bundleBidiSnapshot(extensionDir));
  for (const { from, to, inExtension } of SURFACE_WEB_COPIED) {
    const source = inExtension ? path.join(extensionDir, from) : from;
    if (!(await isFile(source))) throw new BuildError(`${path.relative(root, source)} is missing${inExtension ? "" : " (run npm ci)"}`);
    await cp(source, path.join(embeddedDir, to));
  }
  console.log(`built ${path.relative(process.cwd(), embeddedDir) || embeddedDir} (the scripts allwright-surface-web embeds)`);
}

/**
 * The rendered manifest for one browser (exported for tests).
 * @param {{base: object, patch: object, browser: "chrome"|"firefox", identity: object, version: string}} input
 */
export function renderManifest({ base, patch, browser, identity, version }) {
  const merged = mergePatch(base, patch);
  checkPermissionsExplained(merged, browser);
  const manifest = stripDocKeys(merged);
  manifest.version = version;
  if (browser === "chrome") {
    manifest.key = identity.chromeKey;
  } else {
    manifest.browser_specific_settings ??= {};
    manifest.browser_specific_settings.gecko = { id: identity.geckoId, ...manifest.browser_specific_settings.gecko };
  }
  return orderKeys(manifest);
}

/**
 * Merges a per-browser patch over the base. Objects merge key by key; `"key+": [...]` appends
 * to the base's array; arrays of objects merge element by element (so a patch can add a key to
 * the one content_scripts entry without repeating it); null removes a key; anything else
 * replaces.
 */
export function mergePatch(base, patch) {
  if (Array.isArray(base) && Array.isArray(patch) && base.every(isPlainObject) && patch.every(isPlainObject)) {
    const length = Math.max(base.length, patch.length);
    return Array.from({ length }, (_, i) => (i < patch.length ? mergePatch(base[i], patch[i]) : structuredClone(base[i])));
  }
  if (!isPlainObject(base) || !isPlainObject(patch)) return structuredClone(patch);
  const out = structuredClone(base);
  for (const [rawKey, value] of Object.entries(patch)) {
    if (rawKey.endsWith("+") && !rawKey.startsWith("//")) {
      const key = rawKey.slice(0, -1);
      if (!Array.isArray(value) || (out[key] !== undefined && !Array.isArray(out[key]))) {
        throw new BuildError(`patch key ${rawKey} must append an array to an array`);
      }
      out[key] = [...(out[key] ?? []), ...structuredClone(value)];
    } else if (value === null) {
      delete out[rawKey];
    } else {
      out[rawKey] = rawKey in out ? mergePatch(out[rawKey], value) : structuredClone(value);
    }
  }
  return out;
}

/** Fails the build when a permission or host permission has no "//permissions" reason. */
function checkPermissionsExplained(manifest, browser) {
  const reasons = manifest["//permissions"] ?? {};
  const requested = [...(manifest.permissions ?? []), ...(manifest.host_permissions ?? [])];
  const missing = requested.filter((permission) => typeof reasons[permission] !== "string" || reasons[permission].trim() === "");
  if (missing.length > 0) {
    throw new BuildError(`${browser}: permissions without a reason in "//permissions": ${missing.join(", ")}`);
  }
  const duplicates = requested.filter((permission, i) => requested.indexOf(permission) !== i);
  if (duplicates.length > 0) throw new BuildError(`${browser}: permissions listed twice: ${duplicates.join(", ")}`);
}

/** Removes every key starting with "//", at any depth: they document the source only. */
function stripDocKeys(value) {
  if (Array.isArray(value)) return value.map(stripDocKeys);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !key.startsWith("//")).map(([key, v]) => [key, stripDocKeys(v)]));
}

/** Puts the identifying keys first, as people expect to read a manifest. */
function orderKeys(manifest) {
  const first = ["manifest_version", "name", "version", "description", "key", "browser_specific_settings", "minimum_chrome_version"];
  const ordered = {};
  for (const key of first) if (key in manifest) ordered[key] = manifest[key];
  for (const [key, value] of Object.entries(manifest)) if (!(key in ordered)) ordered[key] = value;
  return ordered;
}

/**
 * background/build-config.js of one browser's build (declared in
 * extension/background/build-config.d.ts). tests/extension/safety.rs reads
 * KEEP_ALIVE_PERIOD_MINUTES back from the build it tests: keep it one line of this form.
 * @param {string} browser
 * @param {{ nativeHostName: string }} identity
 * @param {boolean} forTests
 */
function buildConfig(browser, identity, forTests) {
  const keepAlivePeriod = forTests ? KEEP_ALIVE_PERIOD_MINUTES.forTests : KEEP_ALIVE_PERIOD_MINUTES.product;
  return [
    "// Written by scripts/build-extension.mjs for this browser's build; not in the source tree.",
    `export const BROWSER = ${JSON.stringify(browser)};`,
    `export const NATIVE_HOST_NAME = ${JSON.stringify(identity.nativeHostName)};`,
    `export const CALL_TIMING = ${String(CALL_TIMING)};`,
    `export const KEEP_ALIVE_PERIOD_MINUTES = ${String(keepAlivePeriod)};`,
    "",
  ].join("\n");
}

async function requireGenerated(extensionDir) {
  const missing = [];
  for (const file of REQUIRED_GENERATED) {
    if (!(await isFile(path.join(extensionDir, file)))) missing.push(`extension/${file}`);
  }
  if (missing.length > 0) {
    throw new BuildError(`missing ${missing.join(" and ")}: build the page-side core first with scripts/build-wasm, then run this again`);
  }
}

/**
 * One content script entry point and the modules it imports, as one classic script (an IIFE)
 * (exported for the in-page tests, which load the same bundles).
 * @param {string} entry relative to the extension folder, e.g. "content/content.js"
 * @param {string} [extensionDir] the extension folder (default: extension/)
 * @param {{globalName?: string}} [options] `globalName`: the name of a global variable that
 *   receives the entry's exports, for tests and benchmarks that bundle a module of the content
 *   script on its own (content/accessibility-tree.js, content/actions.js) and call its API from
 *   outside; the extension's bundles leave nothing on the page's or the world's `globalThis`.
 * @returns {Promise<string>}
 */
export async function bundleContentScript(entry, extensionDir = path.join(root, "extension"), options = {}) {
  const result = await build({
    entryPoints: [path.join(extensionDir, entry)],
    bundle: true,
    format: "iife",
    globalName: options.globalName,
    target: BUNDLE_TARGETS,
    charset: "utf8",
    write: false,
    logLevel: "silent",
    banner: { js: `// Built by scripts/build-extension.mjs from extension/${entry} and the modules it imports.` },
    // The call-timing switch (content/tree/read-timing.js): a constant, false unless the build
    // was asked for the benchmark's timing stamps.
    define: { "globalThis.ALLWRIGHT_CALL_TIMING": String(CALL_TIMING) },
  });
  return result.outputFiles[0].text;
}

/**
 * The tree side of the content script bundled on its own (content/accessibility-tree.js), which
 * sets its API (`accessibilityTree()`) as `globalThis.allwrightAx` of the world it runs in:
 * exported for the in-page tests and benchmarks (tests/browser/wasm-smoke.mjs, bench.mjs), which
 * inject it into a page's own world to drive the tree builder from outside. The extension's
 * content script sets no such name.
 * @param {string} [extensionDir] the extension folder (default: extension/)
 * @returns {Promise<string>}
 */
export async function bundleTreeForPageTests(extensionDir = path.join(root, "extension")) {
  const bundle = await bundleContentScript("content/accessibility-tree.js", extensionDir, { globalName: "allwrightTreeModule" });
  return `${bundle}\nglobalThis.allwrightAx = allwrightTreeModule.accessibilityTree();\n`;
}

/**
 * The WebDriver BiDi snapshot script (exported for tests): the JS build of the core, which
 * defines `globalThis.allwrightAxCore` in the realm it runs in, followed by the entry point's
 * bundle, which takes the core from there. The two are joined as text rather than imported, so
 * that the generated core stays out of the type check and the lint (tsconfig.json).
 * @param {string} [extensionDir] the extension folder (default: extension/)
 * @returns {Promise<string>}
 */
export async function bundleBidiSnapshot(extensionDir = path.join(root, "extension")) {
  const core = await readFile(path.join(extensionDir, "generated", "ax-core-js.js"), "utf8");
  const entry = await bundleContentScript(BIDI_SNAPSHOT_ENTRY, extensionDir);
  return `${core}\n${entry}`;
}

/** Copies extension/ minus the excluded files, the content scripts' module sources and type declarations. */
async function copyExtension(from, to, excluded) {
  await mkdir(to, { recursive: true });
  await cp(from, to, {
    recursive: true,
    filter: (source) => {
      const relative = path.relative(from, source).split(path.sep).join("/");
      if (relative.startsWith("content/") && !CONTENT_ENTRY_POINTS.includes(relative) && !MAIN_WORLD_ENTRY_POINTS.includes(relative)) {
        return false;
      }
      // The BiDi snapshot's entry point is bundled for crates/allwright-surface-web, not into the extension.
      if (relative === "surface" || relative.startsWith("surface/")) return false;
      // Declarations for the type check (tsconfig.json) only.
      if (relative === "types" || relative.endsWith(".d.ts")) return false;
      return !excluded.has(relative) && !path.basename(source).startsWith(".");
    },
  });
}

/** Every file the manifest names must exist in the output, or the browser refuses to load it. */
async function checkManifestFiles(manifest, outDir) {
  const named = [
    manifest.background?.service_worker,
    ...(manifest.background?.scripts ?? []),
    ...(manifest.content_scripts ?? []).flatMap((entry) => [...(entry.js ?? []), ...(entry.css ?? [])]),
  ].filter(Boolean);
  for (const file of named) {
    if (!(await isFile(path.join(outDir, file)))) throw new BuildError(`the manifest names ${file}, which is not in ${outDir}`);
  }
}

async function readJson(relative) {
  const file = path.join(root, relative);
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new BuildError(`cannot read ${relative}: ${error.message}`);
  }
}

async function isFile(file) {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function isPlainObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`build-extension: ${error instanceof BuildError ? error.message : error.stack}`);
    process.exit(1);
  });
}
