// What a caught value says about itself (extension/shared/thrown.js): the background and the
// content script read every caught value through these two, whatever a callee threw.
import { test } from "node:test";
import assert from "node:assert/strict";
import { thrownMessage, thrownToolError } from "../../../extension/shared/thrown.js";

test("thrownMessage reads an Error's or a plain object's message, else the value itself", () => {
  assert.equal(thrownMessage(new TypeError("no such frame")), "no such frame");
  // Firefox rejects some extension API calls with a plain {message} object.
  assert.equal(thrownMessage({ message: "Missing host permission" }), "Missing host permission");
  assert.equal(thrownMessage("a string thrown"), "a string thrown");
  assert.equal(thrownMessage(42), "42");
  assert.equal(thrownMessage(null), "null");
  assert.equal(thrownMessage(undefined), "undefined");
  // An object without a message, or with a null one, says what it is.
  assert.equal(thrownMessage({ message: null }), "[object Object]");
  assert.equal(thrownMessage({}), "[object Object]");
});

test("thrownToolError answers a structured error and nothing else", () => {
  const error = { code: "option_not_found", message: "no option", suggestions: ["One"] };
  assert.equal(thrownToolError(error), error);
  assert.equal(thrownToolError({ code: 7, message: "a number code" }), null);
  assert.equal(thrownToolError(new Error("plain")), null);
  assert.equal(thrownToolError("option_not_found"), null);
  assert.equal(thrownToolError(null), null);
});
