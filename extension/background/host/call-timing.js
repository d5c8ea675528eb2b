// @ts-check
// The background's half of the call-timing switch (docs/performance/warm-read.md, "The anatomy of a warm
// read"): in an extension built with `ALLWRIGHT_CALL_TIMING=1`, build-config.js sets
// CALL_TIMING, and a tree read's result carries the time of each step of the call (`timing`) for
// `npm run bench -- --anatomy`. In every other build the callers test the constant and never
// call this.

/** Now, in milliseconds since the epoch: comparable with the page's and the benchmark's stamps. */
export function timingNow() {
  return performance.timeOrigin + performance.now();
}
