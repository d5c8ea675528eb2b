// @ts-check
// The call-timing switch of the content side (docs/performance/warm-read.md, "The anatomy of a warm
// read"): in an extension built with `ALLWRIGHT_CALL_TIMING=1 node scripts/build-extension.mjs`,
// a tree read stamps the time at each of its steps and returns the stamps in its result
// (`timing`), for `npm run bench -- --anatomy`. scripts/build-extension.mjs replaces
// `globalThis.ALLWRIGHT_CALL_TIMING` by a constant when it bundles the content scripts: `false`
// in every ordinary build, where startReadTiming answers null and each stamp is one optional
// call on null.

/**
 * The stamps of one read, in milliseconds since the epoch (`performance.timeOrigin` plus
 * `performance.now()`), so that stamps taken in the page, in the service worker and in the
 * benchmark's process can be subtracted.
 * @typedef {{stamps: Record<string, number>, mark: (step: string) => void}} ReadTiming
 */

/**
 * The read being timed (a frame runs one read at a time), so that the steps inside its core
 * call on the service worker (tree/worker-core-client.js) stamp it too.
 * @type {ReadTiming | null}
 */
let currentTiming = null;

/** @returns {ReadTiming | null} */
export function startReadTiming() {
  if (!globalThis.ALLWRIGHT_CALL_TIMING) return null;
  /** @type {Record<string, number>} */
  const stamps = {};
  currentTiming = {
    stamps,
    mark: (step) => {
      stamps[step] = performance.timeOrigin + performance.now();
    },
  };
  return currentTiming;
}

/**
 * The read being timed, or null (always null in an ordinary build).
 * @returns {ReadTiming | null}
 */
export function currentReadTiming() {
  return globalThis.ALLWRIGHT_CALL_TIMING ? currentTiming : null;
}
