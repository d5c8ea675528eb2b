// @ts-check
// Base64 of bytes and back, for the byte payloads that cross extension messaging (which carries
// JSON): the packed facts of a core call in the service worker and the line records it answers
// (docs/protocol.md, "The core in the service worker"). An ES module shared by the content
// scripts (bundled) and the background (imported).

/**
 * Base64 of bytes: the built-in where the browser has it (Chromium 140, Firefox 133), else
 * `btoa` over chunks of characters.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function bytesToBase64(bytes) {
  const withBuiltIn = /** @type {any} */ (bytes);
  if (typeof withBuiltIn.toBase64 === "function") return withBuiltIn.toBase64();
  let text = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(text);
}

/**
 * Bytes of base64 (see bytesToBase64).
 * @param {string} text
 * @returns {Uint8Array}
 */
export function base64ToBytes(text) {
  const fromBase64 = /** @type {any} */ (Uint8Array).fromBase64;
  if (typeof fromBase64 === "function") return fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}
