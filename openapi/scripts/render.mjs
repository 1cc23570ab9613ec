// render.mjs - openapi.yaml -> openapi.json, at build time.
//
// openapi.json is never edited or committed: the Makefile regenerates it from
// the YAML source whenever that changes, and pt2scoped embeds the result. The
// YAML must be plain data (no custom tags); aliases are expanded.
//
//   node scripts/render.mjs openapi.yaml OUT.json
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const [src, out] = process.argv.slice(2);
if (!src || !out) {
  console.error('usage: render.mjs openapi.yaml OUT.json');
  process.exit(2);
}
let doc;
try {
  doc = YAML.parse(fs.readFileSync(src, 'utf8'), { strict: true, uniqueKeys: true });
} catch (e) {
  console.error(`render.mjs: ${src}: ${e.message}`);
  process.exit(1);
}
if (doc === null || typeof doc !== 'object' || !/^3\.1\.\d+$/.test(String(doc.openapi))) {
  console.error(`render.mjs: ${src}: not an OpenAPI 3.1 document`);
  process.exit(1);
}
// Write next to the target and rename, so an interrupted build never leaves
// a truncated file that make would consider up to date.
fs.mkdirSync(path.dirname(out), { recursive: true });
const tmp = `${out}.tmp${process.pid}`;
fs.writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`);
fs.renameSync(tmp, out);
