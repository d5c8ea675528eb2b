// The one secret-field rule (extension/shared/secret-fields.js) over a table of fields: every
// autofill token it calls secret and those it does not, every word of a name, id or label, and
// the near-misses that must not match; then the shadow tools' outputs over a tree of such
// fields (extension/shared/shadow-outline.js), which must never carry their values.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  autocompleteNamesSecret,
  describesSecretField,
  textNamesSecret,
  wordsOf,
} from "../../../extension/shared/secret-fields.js";
import { describeMatch, outlineOf } from "../../../extension/shared/shadow-outline.js";

/** A field described by its tag and attributes, with optional labels and a computed mask. */
function field(localName, attributes = {}, { labels = [], masked = false } = {}) {
  return {
    localName,
    attribute: (name) => attributes[name] ?? null,
    labels: () => labels,
    maskedByStyle: () => masked,
  };
}

const input = (attributes, options) => field("input", attributes, options);

test("every secret autofill token is a secret (HTML, Autofill)", () => {
  const secretTokens = [
    "current-password",
    "new-password",
    "one-time-code",
    "cc-number",
    "cc-csc",
    "cc-exp",
    "cc-exp-month",
    "cc-exp-year",
    // A later card token is a secret until the rule says otherwise.
    "cc-future-token",
  ];
  for (const token of secretTokens) {
    assert.ok(describesSecretField(input({ autocomplete: token })), token);
    // With a section, a contact and a billing token before it, in any case.
    assert.ok(describesSecretField(input({ autocomplete: `section-pay billing ${token.toUpperCase()}` })), token);
    assert.ok(describesSecretField(field("textarea", { autocomplete: token })), `textarea ${token}`);
    assert.ok(describesSecretField(field("select", { autocomplete: token })), `select ${token}`);
  }
});

test("the card's holder and brand, and other personal tokens, are not secrets", () => {
  for (const token of [
    "cc-name",
    "cc-given-name",
    "cc-additional-name",
    "cc-family-name",
    "cc-type",
    "username",
    "email",
    "tel",
    "name",
    "street-address",
    "postal-code",
    "off",
    "on",
    "transaction-amount",
  ]) {
    assert.ok(!describesSecretField(input({ autocomplete: token })), token);
    assert.ok(!autocompleteNamesSecret(token), token);
  }
});

test("password inputs, and a type=tel PIN, are secrets", () => {
  assert.ok(describesSecretField(input({ type: "password" })));
  assert.ok(describesSecretField(input({ type: " PASSWORD " })));
  assert.ok(describesSecretField(input({ type: "tel", name: "pin" })));
  assert.ok(describesSecretField(input({ type: "tel", inputmode: "numeric" }, { labels: ["Card PIN"] })));
  assert.ok(!describesSecretField(input({ type: "tel", name: "phone" })));
});

test("names, ids and labels that say a secret, as words", () => {
  const secretTexts = [
    "pin",
    "PIN",
    "pin_code",
    "pinCode",
    "card-pin",
    "pin2",
    "Enter your PIN",
    "otp",
    "OTP code",
    "otpInput",
    "totp",
    "token",
    "api_token",
    "apiToken",
    "authToken",
    "access-token",
    "secret",
    "client_secret",
    "clientSecret",
    "Shared secret",
    "api_key",
    "api-key",
    "apiKey",
    "APIKey",
    "apikey",
    "API key",
    "Your API Key",
    "passcode",
    "Passcode",
    "password",
    "confirmPassword",
    "passwd",
    "cvc",
    "CVV",
    "card_csc",
  ];
  for (const text of secretTexts) {
    assert.ok(textNamesSecret(text), `${text}: ${wordsOf(text).join(" ")}`);
    assert.ok(describesSecretField(input({ name: text })), `name ${text}`);
    assert.ok(describesSecretField(input({ id: text })), `id ${text}`);
    assert.ok(describesSecretField(input({}, { labels: [text] })), `label ${text}`);
  }
});

test("near-misses are not secrets: the words must be whole", () => {
  const ordinaryTexts = [
    "Opinion",
    "opinion",
    "spinner",
    "spin",
    "pinned",
    "pinterest",
    "shipping",
    "tokenize",
    "tokens_used_count_label_x",
    "secretary",
    "Secretariat",
    "passport",
    "compass",
    "bypass",
    "apiary",
    "keyword",
    "api",
    "key",
    "monkey",
    "otpauthx",
    "hotpot",
    "cvcx",
    "username",
    "email",
    "search",
    "",
  ];
  for (const text of ordinaryTexts) {
    assert.ok(!textNamesSecret(text), `${text}: ${wordsOf(text).join(" ")}`);
    assert.ok(!describesSecretField(input({ name: text, id: text }, { labels: [text] })), text);
  }
});

test("a style mask makes inputs, textareas and editing hosts secret", () => {
  assert.ok(describesSecretField(input({ type: "text" }, { masked: true })));
  assert.ok(describesSecretField(field("textarea", {}, { masked: true })));
  assert.ok(describesSecretField(field("div", { contenteditable: "" }, { masked: true })));
  assert.ok(describesSecretField(field("span", { contenteditable: "plaintext-only" }, { masked: true })));
  assert.ok(!describesSecretField(field("div", { contenteditable: "false" }, { masked: true })));
  assert.ok(!describesSecretField(field("div", {}, { masked: true })), "a masked div is no field");
  assert.ok(!describesSecretField(input({ type: "text" })));
});

test("elements that are not text fields are never secret fields", () => {
  for (const type of ["checkbox", "radio", "submit", "button", "hidden", "file", "range", "color", "image", "reset"]) {
    assert.ok(!describesSecretField(input({ type, name: "pin", autocomplete: "cc-number" })), type);
  }
  for (const tag of ["div", "span", "label", "button", "p"]) {
    assert.ok(!describesSecretField(field(tag, { name: "token", id: "api_key" })), tag);
  }
  // An editing host named like a secret is one.
  assert.ok(describesSecretField(field("div", { contenteditable: "true", id: "otp" })));
});

// The shadow tools over the same rule: nothing of a secret field's value in an outline or a
// match, whatever the page wrote into its attributes or its text.
const SECRETS = ["4111111111111111", "737", "12/34", "424242", "9876", "tok_live_abc", "hunter2"];

function node(tag, attributes = {}, children = [], extra = {}) {
  return { tag, attributes, children, ...extra };
}

const secretChildren = [
  node("input", { autocomplete: "cc-number", value: SECRETS[0] }),
  node("input", { autocomplete: "cc-csc", value: SECRETS[1] }),
  node("input", { autocomplete: "cc-exp", value: SECRETS[2] }),
  node("input", { autocomplete: "one-time-code", value: SECRETS[3] }),
  node("input", { type: "tel", name: "pin", value: SECRETS[4] }),
  node("input", { name: "api_token", value: SECRETS[5] }),
  node("div", { contenteditable: "true" }, [{ text: SECRETS[6] }], { masked: true }),
];
const visibleChild = node("input", { name: "city", value: "Paris" });
const container = node("div", { class: "form" }, [...secretChildren, visibleChild]);
const root = { root: true, children: [container] };
const parents = new Map([[root, null]]);
(function index(parent) {
  for (const child of parent.children ?? []) {
    parents.set(child, parent);
    index(child);
  }
})(root);

const reader = {
  kind: (item) => (item.tag ? "element" : item.text !== undefined ? "text" : "other"),
  localName: (item) => item.tag ?? "",
  attribute: (item, name) => item.attributes?.[name] ?? null,
  attributeEntries: (item) => Object.entries(item.attributes ?? {}),
  children: (item) => item.children ?? [],
  parent: (item) => parents.get(item) ?? null,
  shadowRoot: () => null,
  text: (item) => item.text,
  secretField: (item) =>
    item.tag !== undefined &&
    describesSecretField({
      localName: item.tag,
      attribute: (name) => item.attributes?.[name] ?? null,
      maskedByStyle: () => item.masked === true,
    }),
};

test("an outline never shows a secret field's value or text", () => {
  const { outline } = outlineOf(reader, root, "closed", 100_000);
  for (const secret of SECRETS) assert.ok(!outline.includes(secret), `${secret} in\n${outline}`);
  assert.ok(outline.includes("••••"), "the masked editing host's text reads as bullets");
});

test("matches never show a secret field's value or text, in it or in its container", () => {
  const within = { host: null, path: "x-form", mode: "closed", root, nested: false };
  for (const element of [...secretChildren, container, secretChildren[6].children[0]]) {
    if (element.tag === undefined) continue;
    const match = JSON.stringify(describeMatch(reader, element, within));
    for (const secret of SECRETS) assert.ok(!match.includes(secret), `${secret} in ${match}`);
  }
  const visible = describeMatch(reader, visibleChild, within);
  assert.equal(visible.attributes.value, "Paris", "an ordinary field's value is shown");
});
