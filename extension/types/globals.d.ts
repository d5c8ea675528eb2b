// Names the extension's scripts share through `globalThis` (docs/protocol/channels.md, section 3) and the
// browsers' extension namespaces, declared for the type check only (tsconfig.json). Their shapes
// are documented where they are defined.

/** shared/messages.js: the one message vocabulary, installed for its effect. */
declare var allwrightMessages: any;
/** content/accessibility-tree.js: the tree side's API for the router and the actions. */
declare var allwrightAx: any;
/** content/actions.js: the page halves of the action tools. */
declare var allwrightActions: any;
/** The core a frame's content scripts asked for (generated/ax-core-*.js). */
declare var allwrightAxCore: any;
/** content/content.js: set once the router listens in this world. */
declare var allwrightContentRouter: boolean | undefined;
// The call-timing switch, a constant that scripts/build-extension.mjs puts in the content bundles
// (content/tree/read-timing.js).
declare var ALLWRIGHT_CALL_TIMING: boolean | undefined;
/** The WebExtensions API: Firefox's promise-based namespace and Chrome's. */
declare var browser: any;
declare var chrome: any;

/** The few WebExtensions types the JSDoc names; the API itself is typed `any` above. */
declare namespace chrome {
  namespace tabs {
    type Tab = any;
  }
  namespace runtime {
    type MessageSender = any;
    type Port = any;
  }
}
