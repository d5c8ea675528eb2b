#!/usr/bin/env node
// Bundles the component-library fixtures: fixtures/apps/<name>.(jsx|js) -> fixtures/built/<name>.js.
//
//   node scripts/build-fixtures.mjs [--force]
//
// Their HTML pages (fixtures/pages/actions/<name>.html) load /built/<name>.js from the fixture
// server, whose root is fixtures/. Each app is one IIFE with React, Vue, Radix, react-select or
// MUI inside, built as production code (no development warnings, the same code paths a real site
// ships). An app is rebuilt only when something it may depend on is newer than its bundle: a file
// of fixtures/apps/, this script, or the installed packages (node_modules/.package-lock.json).
// One line per app. fixtures/built/ is not in git.

import { mkdir, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const appsDir = path.join(root, "fixtures/apps");
const outDir = path.join(root, "fixtures/built");

/** The apps, by output name, with their entry file in fixtures/apps/. */
const APPS = {
  "react-form": "react-form.jsx",
  "vue-form": "vue-form.js",
  radix: "radix.jsx",
  "react-select": "react-select.jsx",
  "mui-autocomplete": "mui-autocomplete.jsx",
  "mui-mail": "mui-mail.jsx",
  "lit-settings": "lit-settings.js",
  "shoelace-select": "shoelace-select.js",
  // Controls covered by their own parts (tests/extension/focus_and_covers.rs).
  "own-part-covers": "own-part-covers.js",
  // The widget compatibility matrix (tests/extension/widgets.rs, docs/widgets.md).
  "widgets-headless-ui": "widgets/headless-ui.jsx",
  "widgets-antd": "widgets/antd.jsx",
  "widgets-material-web": "widgets/material-web.js",
  "widgets-flatpickr": "widgets/flatpickr.js",
  "widgets-quill": "widgets/quill.js",
  "widgets-virtuoso": "widgets/virtuoso.jsx",
  "widgets-sortable": "widgets/sortable.js",
  "widgets-downshift": "widgets/downshift.jsx",
  // The drag rows of the matrix.
  "widgets-dnd-kit": "widgets/dnd-kit.jsx",
  "widgets-hello-pangea": "widgets/hello-pangea.jsx",
  "widgets-jquery-ui": "widgets/jquery-ui.js",
  // The agreement corpus (tests/extension/agreement.rs).
  "corpus-mui-orders": "corpus/mui-orders.jsx",
  "corpus-mui-settings": "corpus/mui-settings.jsx",
  "corpus-mui-inbox": "corpus/mui-inbox.jsx",
  "corpus-mui-catalog": "corpus/mui-catalog.jsx",
  "corpus-lit-components": "corpus/lit-components.js",
};

/** esbuild options shared by every app. */
const COMMON = {
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  minify: false,
  legalComments: "none",
  logLevel: "warning",
  jsx: "automatic",
  loader: { ".js": "jsx" },
  define: {
    "process.env.NODE_ENV": '"production"',
    // Vue's compile-time feature flags (its bundler build asks for them to be defined).
    __VUE_OPTIONS_API__: "true",
    __VUE_PROD_DEVTOOLS__: "false",
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: "false",
  },
  // The vue-form template is a string compiled in the page, so it needs Vue's build with the
  // template compiler rather than the runtime-only one `vue` resolves to.
  alias: { vue: "vue/dist/vue.esm-bundler.js" },
};

async function main(argv) {
  const force = argv.includes("--force");
  await mkdir(outDir, { recursive: true });
  const inputsTime = await newestInputTime();
  const builds = Object.entries(APPS).map(async ([name, entry]) => {
    const outfile = path.join(outDir, `${name}.js`);
    const outputTime = await modifiedTime(outfile);
    if (!force && outputTime > inputsTime) {
      return `fixtures: ${name} up to date`;
    }
    const started = performance.now();
    await esbuild.build({ ...COMMON, entryPoints: [path.join(appsDir, entry)], outfile });
    const { size } = await stat(outfile);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    return `fixtures: ${name} built (${Math.round(size / 1024)} KiB, ${seconds} s)`;
  });
  for (const line of await Promise.all(builds)) console.log(line);
}

/** The newest modification time among the files an app's bundle may depend on. */
async function newestInputTime() {
  const files = [fileURLToPath(import.meta.url), path.join(root, "node_modules/.package-lock.json")];
  for (const entry of await readdir(appsDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(path.join(entry.parentPath, entry.name));
  }
  const times = await Promise.all(files.map(modifiedTime));
  return Math.max(...times);
}

/** A file's modification time in ms, or 0 when it does not exist. */
async function modifiedTime(file) {
  try {
    return (await stat(file)).mtimeMs;
  } catch (error) {
    if (error.code === "ENOENT") return 0;
    throw error;
  }
}

main(process.argv.slice(2)).catch((error) => {
  // esbuild has already printed its messages for a failed build.
  if (!error.errors) console.error(`build-fixtures: ${error.message}`);
  process.exit(1);
});
