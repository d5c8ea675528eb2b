// @ts-check
// `save_pdf` in a person's browser (docs/agent-tools.md, "save_pdf"). Chrome prints the tab with
// its own print-to-PDF, `Page.printToPDF` through a chrome.debugger session for this one call
// (debugger-session.js), and returns the bytes; the MCP server counts the pages and answers an
// MCP resource (src/pdf.rs). Firefox gives an extension no such bytes: `tabs.saveAsPDF` opens a
// save dialog for the person and resolves only with a status ("saved", "replaced", "canceled",
// "not_saved", "not_replaced"; MDN, tabs.saveAsPDF), so save_pdf says `not_supported_here`
// there. A browser allwright launched prints over WebDriver BiDi instead
// (`browsingContext.print`, src/browser_bridge/pdf.rs) and never asks this module.

import { BROWSER, fail } from "../platform.js";
import { resolveTab } from "../frames/frames.js";
import { withDebugger } from "../shadow-and-js/debugger-session.js";
import { PRINT_TO_PDF_MS } from "../host/budgets.js";

/** The largest PDF save_pdf returns (its base64 must fit the 32 MiB reply, call-deadline.js). */
export const MAX_PDF_BYTES = 20 * 1024 * 1024;

/**
 * @param {ToolArguments<"save_pdf">} args
 * @returns {Promise<{data: string, mimeType: string, method: string, url: string, title: string}>}
 */
export async function savePdf({ tabId }) {
  const tab = await resolveTab(tabId);
  if (BROWSER !== "chrome") {
    fail("not_supported_here", "Firefox gives extensions no PDF of a page: tabs.saveAsPDF only opens a save dialog", {
      hint: "Read the page with get_accessibility_tree or take a screenshot; for a PDF, ask the person to start allwright with `allwright mcp --launch firefox` (or chromium), where save_pdf prints over WebDriver BiDi.",
    });
  }
  const printed = await withDebugger(tab.id, (send) =>
    Promise.race([
      send("Page.printToPDF", { printBackground: true, transferMode: "ReturnAsBase64" }),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`the print took longer than ${PRINT_TO_PDF_MS} ms`)), PRINT_TO_PDF_MS),
      ),
    ]),
  ).catch((error) => {
    if (error?.error?.code !== undefined) throw error;
    const reason = String(error?.message ?? error);
    // Chrome 111 still answered "PrintToPDF is only supported in headless mode" in a window
    // (later versions print there too), and a Chrome built without printing "Printing is not
    // available".
    if (/only supported in headless|not implemented|printing is not available/i.test(reason)) {
      fail("not_supported_here", `this Chrome cannot print a tab to PDF for an extension: ${reason}`, {
        hint: "Read the page with get_accessibility_tree or take a screenshot; for a PDF, ask the person to start `allwright mcp --launch chromium`, where save_pdf prints over WebDriver BiDi.",
      });
    }
    fail("script_failed", `Chrome could not print tab ${tab.id} to PDF: ${reason}`);
  });
  const data = typeof printed?.data === "string" ? printed.data : "";
  if (data === "") fail("script_failed", `Chrome printed tab ${tab.id} to an empty PDF`);
  if ((data.length * 3) / 4 > MAX_PDF_BYTES) {
    fail("result_too_large", `the PDF of tab ${tab.id} is larger than ${MAX_PDF_BYTES / 1024 / 1024} MiB`, {
      hint: "The page is too long to print whole: read it with get_accessibility_tree instead.",
    });
  }
  return { data, mimeType: "application/pdf", method: "printToPDF", url: tab.url ?? "", title: tab.title ?? "" };
}
