// The module scripts/build-extension.mjs writes into each browser's build as
// background/build-config.js; declared here for the type check (tsconfig.json) only.
export const BROWSER: "chrome" | "firefox";
export const NATIVE_HOST_NAME: string;
export const CALL_TIMING: boolean;
/** The keep-alive alarm's period: 0.5 in a product build, 0.05 in a build for the tests. */
export const KEEP_ALIVE_PERIOD_MINUTES: number;
