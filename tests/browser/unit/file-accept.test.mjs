// upload_file's accept and multiple rules (extension/content/actions/file-accept.js): which files
// a file input takes, as the browsers' choosers offer them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { acceptTokens, fileAcceptRefusal } from "../../../extension/content/actions/file-accept.js";

const input = (accept, multiple = false, directory = false) => ({ accept, multiple, directory });
const takes = (accept, file) => fileAcceptRefusal(input(accept), [file]) === null;

test("extensions, wildcards and MIME types match without case", () => {
  assert.ok(takes(".pdf,image/*", { name: "Report.PDF", type: "application/pdf" }));
  assert.ok(takes(".pdf,image/*", { name: "photo.png", type: "image/png" }));
  assert.ok(takes("IMAGE/*", { name: "photo.jpg", type: "image/jpeg" }));
  assert.ok(takes("text/plain", { name: "notes.txt", type: "text/plain" }));
  assert.ok(!takes(".pdf,image/*", { name: "movie.mp4", type: "video/mp4" }));
  assert.ok(!takes("image/*", { name: "unknown.bin", type: "" }));
  assert.ok(!takes(".pdf", { name: "pdf", type: "" }));
});

test("an accept list without a valid token accepts everything; invalid tokens are ignored", () => {
  assert.ok(takes("", { name: "a.exe", type: "" }));
  assert.ok(takes("nonsense, ,image", { name: "a.exe", type: "" }));
  assert.deepEqual(acceptTokens(" .PDF , image/* , nonsense, text/plain;charset=utf-8"), [".pdf", "image/*"]);
  assert.ok(!takes("nonsense, .pdf", { name: "a.exe", type: "" }));
});

test("several files need multiple, a folder picker takes no files, and the message names the list", () => {
  const two = [{ name: "a.txt", type: "text/plain" }, { name: "b.txt", type: "text/plain" }];
  assert.match(fileAcceptRefusal(input(""), two).message, /takes one file/);
  assert.equal(fileAcceptRefusal(input("", true), two), null);
  assert.match(fileAcceptRefusal(input("", true, true), two).message, /folder/);
  const refusal = fileAcceptRefusal(input(".pdf,image/*"), [{ name: "movie.mp4", type: "video/mp4" }]);
  assert.match(refusal.message, /\.pdf,image\/\*/);
  assert.match(refusal.message, /movie\.mp4/);
});
