// The tool handlers' argument types (extension/types/tool-arguments.d.ts) are generated from the tool
// contract by scripts/generate-tool-argument-types.mjs; this fails when the checked-in file no longer
// says what the contract says, naming the command that brings it up to date.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CONTRACT_PATH, TYPES_PATH, renderToolArgumentTypes } from "../../../scripts/generate-tool-argument-types.mjs";

test("extension/types/tool-arguments.d.ts is what the contract generates", () => {
  const contract = JSON.parse(readFileSync(CONTRACT_PATH, "utf8"));
  assert.equal(
    readFileSync(TYPES_PATH, "utf8"),
    renderToolArgumentTypes(contract),
    "stale: run node scripts/generate-tool-argument-types.mjs",
  );
});

test("a required argument and a defaulted one are present, an optional one may be absent", () => {
  const rendered = renderToolArgumentTypes({
    tools: {
      example: {
        arguments: {
          needed: { type: "string", required: true },
          defaulted: { type: "integer", default: 3 },
          optional: { type: "boolean" },
          choice: { type: "string", enum: ["a", "b"] },
        },
      },
    },
  });
  assert.match(rendered, /needed: string;/);
  assert.match(rendered, /defaulted: number;/);
  assert.match(rendered, /optional\?: boolean;/);
  assert.match(rendered, /choice\?: "a" \| "b";/);
});
