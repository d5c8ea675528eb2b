// Names the extension's scripts share through `globalThis` (docs/protocol/channels.md, section 3), declared
// for the type check only (tsconfig.json). Their shapes are documented where they are defined.
// The browsers' extension namespaces come from the published @types/chrome (package.json), which
// also declares `browser` as the alias of `chrome`: the extension calls the one API both browsers
// implement through `globalThis.browser ?? globalThis.chrome`, and branches on BROWSER
// (background/build-config.d.ts) where they differ. The few Firefox-only members it uses are
// declared below, as MDN documents them.

/** shared/messages.js: the one message vocabulary, installed for its effect. */
declare var allwrightMessages: MessageVocabulary;
/** The core a frame's content scripts asked for (generated/ax-core-*.js). */
declare var allwrightAxCore: any;
/** content/content.js: set once the router listens in this world. */
declare var allwrightContentRouter: boolean | undefined;
// The call-timing switch, a constant that scripts/build-extension.mjs puts in the content bundles
// (content/tree/read-timing.js).
declare var ALLWRIGHT_CALL_TIMING: boolean | undefined;

declare namespace chrome.runtime {
  /**
   * Firefox only (MDN, runtime.getFrameId): the frame id of a frame element or window proxy, as
   * webNavigation and tabs.sendMessage name frames; absent in Chrome.
   */
  const getFrameId: ((target: Element | WindowProxy) => number) | undefined;
}

declare namespace chrome.scripting {
  interface InjectionResult<T> {
    /**
     * Firefox only (MDN, scripting.InjectionResult): the error the injected script threw, in
     * place of `result`. Chrome reports such an error as a rejection of executeScript instead.
     */
    error?: any;
  }
}

declare namespace chrome.runtime {
  interface Port {
    /**
     * Firefox only (MDN, runtime.Port): the error that disconnected the port, when one did.
     * Chrome reports it as runtime.lastError in the onDisconnect listener instead.
     */
    error?: { message: string } | null;
  }
}
