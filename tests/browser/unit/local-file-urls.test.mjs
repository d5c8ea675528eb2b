// Which URLs reach a local file (extension/shared/local-file-urls.js), in Node, on the cases the
// host's rule runs too (tests/cases/local-file-urls.json; src/tools/local_files.rs).
import test from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { localFileScheme } from "../../../extension/shared/local-file-urls.js";

const cases = JSON.parse(await readFile(new URL("../../cases/local-file-urls.json", import.meta.url), "utf8"));

test("every spelling of a local file is found, with the scheme a refusal names", () => {
  assert.ok(cases.local.length >= 10);
  for (const [url, scheme] of cases.local) assert.equal(localFileScheme(url), scheme, JSON.stringify(url));
});

test("URLs that only mention a file, or wrap a web URL, are not local files", () => {
  for (const url of cases.not_local) assert.equal(localFileScheme(url), null, JSON.stringify(url));
});
