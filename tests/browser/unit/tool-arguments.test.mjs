// The extension's argument validator (extension/background/tools/validate.js, against the contract it
// ships) runs the conformance cases the host's validator runs too (tests/cases/tool-arguments.json;
// src/tools/validation.rs, `argument_conformance`): both stand at a trust boundary, and a call one
// of them accepts and the other refuses is a bug in one of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { validateArguments } from "../../../extension/background/tools/validate.js";

const CONTRACT = JSON.parse(readFileSync(new URL("../../../extension/shared/tool-contract.json", import.meta.url), "utf8"));
const { cases } = JSON.parse(readFileSync(new URL("../../cases/tool-arguments.json", import.meta.url), "utf8"));

/** The cases of the tools the extension serves; the others are the MCP server's alone. */
const extensionCases = cases.filter((conformance) => Object.hasOwn(CONTRACT.tools, conformance.tool));

test("every case of a tool the extension serves gets the answer the host's validator gives", () => {
  const disagreements = [];
  for (const conformance of extensionCases) {
    const outcome = validateArguments(CONTRACT, conformance.tool, conformance.arguments);
    const answer = outcome.ok ? "ok" : outcome.error.code;
    const call = `${conformance.tool}(${JSON.stringify(conformance.arguments)?.slice(0, 200)})`;
    if (answer !== conformance.expect) {
      const said = outcome.ok ? "" : `: ${outcome.error.message}`;
      disagreements.push(`${call} [${conformance.why ?? ""}]: expected ${conformance.expect}, got ${answer}${said}`);
      continue;
    }
    if (conformance.suggestions !== undefined && !outcome.ok) {
      const suggested = JSON.stringify(outcome.error.suggestions ?? []);
      if (suggested !== JSON.stringify(conformance.suggestions)) {
        disagreements.push(`${call}: expected suggestions ${JSON.stringify(conformance.suggestions)}, got ${suggested}`);
      }
    }
  }
  assert.deepEqual(disagreements, []);
});

test("every tool of the contract has an accepted and a refused case", () => {
  const uncovered = Object.keys(CONTRACT.tools).filter(
    (tool) =>
      !extensionCases.some((conformance) => conformance.tool === tool && conformance.expect === "ok") ||
      !extensionCases.some((conformance) => conformance.tool === tool && conformance.expect !== "ok"),
  );
  assert.deepEqual(uncovered, []);
  // The cases the extension skips are of tools the host alone answers, not of misspelt ones.
  const skipped = new Set(cases.filter((conformance) => !extensionCases.includes(conformance)).map((c) => c.tool));
  assert.deepEqual([...skipped].sort(), ["emulate", "handle_dialog"]);
});
