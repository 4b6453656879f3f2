// Parse Mermaid files with the real Mermaid parser (the npm `mermaid` package, DOM from `jsdom`) and print,
// per file, one JSON line: the edges and vertices as Mermaid's flowchart database holds them, or the error.
// Run by dev/check_mermaid.py; see there for the setup.
import fs from "fs";
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });

let failed = 0;
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, "utf8");
  try {
    await mermaid.parse(text);
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const edges = diagram.db.getEdges().map((e) => [e.start, e.end, e.text, e.stroke]);
    const vertices = [...diagram.db.getVertices().values()].map((v) => [v.id, v.text]);
    console.log(JSON.stringify({ file, ok: true, edges, vertices }));
  } catch (error) {
    failed++;
    console.log(JSON.stringify({ file, ok: false, error: String(error.message || error) }));
  }
}
process.exit(failed ? 1 : 0);
