// Lint rules for the extension, its build scripts and the browser tests:
// `npx eslint extension scripts tests/browser` (npm run lint). @eslint/js's recommended rules,
// with each part of the tree given the globals of the place its code runs.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    // Written by scripts/build-wasm (wasm-bindgen, wasm2js, esbuild output): not ours to lint.
    ignores: ["extension/generated/**", "dist/**", "target/**", "node_modules/**"],
  },
  js.configs.recommended,
  {
    // Content scripts are ES modules, bundled per entry point into classic scripts for a page's
    // frame (scripts/build-extension.mjs), with the extension API. The WebDriver BiDi snapshot's
    // entry point (extension/surface/) is bundled the same way, for a BiDi sandbox realm.
    files: ["extension/content/**/*.js", "extension/surface/**/*.js"],
    languageOptions: {
      sourceType: "module",
      globals: { ...globals.browser, ...globals.webextensions },
    },
  },
  {
    // The shared message vocabulary stays a classic script: modules import it for its effect
    // (shared/messages.js explains why).
    files: ["extension/shared/**/*.js"],
    languageOptions: {
      sourceType: "script",
      globals: { ...globals.browser, ...globals.webextensions },
    },
  },
  {
    // Pure modules shared by the background and the content scripts (which esbuild bundles).
    // shared/generated/ holds the modules the binary writes from its Rust definitions
    // (src/generated_modules.rs).
    files: ["extension/shared/shadow-outline.js", "extension/shared/secret-fields.js", "extension/shared/line-records.js", "extension/shared/varint.js", "extension/shared/tree-result.js", "extension/shared/local-file-urls.js", "extension/shared/generated/*.js", "extension/shared/thrown.js"],
    languageOptions: { sourceType: "module" },
  },
  {
    // The side panel's page script is an ES module in an extension page.
    files: ["extension/panel/**/*.js"],
    languageOptions: {
      sourceType: "module",
      globals: { ...globals.browser, ...globals.webextensions },
    },
  },
  {
    // The background is an ES module: Chrome's service worker, Firefox's background scripts.
    files: ["extension/background/**/*.js"],
    languageOptions: {
      sourceType: "module",
      globals: { ...globals.serviceworker, ...globals.webextensions },
    },
  },
  {
    // Build scripts run in Node.
    files: ["scripts/**/*.{js,mjs}", "eslint.config.js"],
    languageOptions: {
      sourceType: "module",
      globals: { ...globals.node },
    },
  },
  {
    // Browser tests run in Node and hand functions to pages (page.evaluate), so both apply.
    files: ["tests/browser/**/*.{js,mjs}"],
    languageOptions: {
      sourceType: "module",
      globals: { ...globals.node, ...globals.browser },
    },
  },
  {
    rules: {
      // Unused arguments often document a callback's signature (sender, sendResponse).
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
    },
  },
];
