// @ts-check
// Which files a file input takes, as the browser's file chooser would offer them (upload_file;
// docs/agent-tools.md, "Attaching files: upload_file"). Pure, so it is unit-tested in Node
// (tests/browser/unit/file-accept.test.mjs).

/**
 * The `accept` tokens that mean something (HTML, "the accept attribute": comma-separated, each a
 * `.ext` extension, `audio/*`, `video/*`, `image/*` or a valid MIME type without parameters,
 * compared ASCII case-insensitively); the others are ignored, as the standard says.
 * @param {string} accept
 * @returns {string[]}
 */
export function acceptTokens(accept) {
  return accept
    .split(",")
    .map((token) => token.trim().toLowerCase())
    .filter((token) => /^\.[^.\s]/.test(token) || /^[a-z0-9!#$&^_.+-]+\/(\*|[a-z0-9!#$&^_.+-]+)$/.test(token));
}

/**
 * Why the input would not take these files, or null: a folder picker (`webkitdirectory`), several
 * files without `multiple`, or a file that no `accept` token matches (an extension by the name's
 * end, `type/*` by the type's start, a MIME type by equality). A list without a valid token
 * accepts everything.
 * SPEC DIFFERENCE: the standard only lets a browser filter its chooser by `accept`; Chromium and
 * Firefox both filter it, so a person could not pick such a file there, and neither can the agent.
 * `type/*` matches any top-level type, as Chromium matches it.
 * @param {{accept: string, multiple: boolean, directory: boolean}} input
 * @param {{name: string, type?: string}[]} files
 * @returns {{message: string, hint: string} | null}
 */
export function fileAcceptRefusal(input, files) {
  if (input.directory) {
    return {
      message: "this input takes a folder, not files",
      hint: "upload_file attaches files only; ask the person to choose the folder.",
    };
  }
  if (files.length > 1 && !input.multiple) {
    return {
      message: `this input takes one file (it has no multiple attribute), and ${files.length} were given`,
      hint: "Attach one file per call to this input; to replace it, call upload_file again with the other file.",
    };
  }
  const tokens = acceptTokens(input.accept);
  if (tokens.length === 0) return null;
  for (const file of files) {
    const name = file.name.toLowerCase();
    const type = (file.type ?? "").toLowerCase();
    const accepted = tokens.some((token) => {
      if (token.startsWith(".")) return name.endsWith(token);
      if (token.endsWith("/*")) return type !== "" && type.startsWith(token.slice(0, -1));
      return type === token;
    });
    if (!accepted) {
      return {
        message: `${JSON.stringify(file.name)}${type === "" ? "" : ` (${type})`} is not among the types this input accepts: ${input.accept}`,
        hint: `Attach a file the input accepts (${tokens.join(", ")}); nothing was attached.`,
      };
    }
  }
  return null;
}
