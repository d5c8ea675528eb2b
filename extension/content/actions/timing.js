// @ts-check
// Time for the action tools: the next task, the next frame, and polling until a sign appears.

export const delay = (/** @type {number} */ milliseconds) =>
  /** @type {Promise<void>} */ (new Promise((resolve) => setTimeout(resolve, milliseconds)));

/**
 * The next task: every microtask the action queued (a React 18 render after a click, a
 * promise-based handler) has run by then, as it would have after a real event.
 */
export const nextTask = () => delay(0);

/**
 * One animation frame, or `fallbackMs` when frames do not come (a hidden tab runs no frames).
 * @param {number} [fallbackMs]
 */
export function nextFrame(fallbackMs = 50) {
  return /** @type {Promise<void>} */ (
    new Promise((resolve) => {
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        resolve();
      };
      requestAnimationFrame(finish);
      setTimeout(finish, fallbackMs);
    })
  );
}

/** After a microtask and a frame: where a framework's re-render has written the DOM back. */
export async function settle() {
  await Promise.resolve();
  await nextFrame();
}

/**
 * Polls `check` each frame (or 50 ms) until it returns something truthy or `timeoutMs` passes.
 * @template T
 * @param {() => T} check
 * @param {number} timeoutMs
 * @returns {Promise<T | null>}
 */
export async function waitFor(check, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    const remaining = deadline - performance.now();
    if (remaining <= 0) return null;
    await nextFrame(Math.min(50, remaining));
  }
}
