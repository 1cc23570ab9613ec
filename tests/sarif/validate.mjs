// validate.mjs - every FILE is a SARIF 2.1.0 log by the OASIS schema, and the
// validator can fail: mutated copies of each (no version, an unknown level, no
// tool, a non-boolean executionSuccessful, an unknown member, a location URI
// that is not a URI reference) must be rejected.
//
//   node tests/sarif/validate.mjs FILE...
//
// Offline: the schema is the one @microsoft/jest-sarif ships
// (lib/schemas/sarif-2.1.0-rtm.5.json, draft-04) and Ajv 6 reads draft-04;
// both are pinned in package-lock.json and installed by `npm ci`.
// Prints "ok FILE", "FAIL FILE: why" and the last line "= N ok, N failing".
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Ajv = require('ajv');
const schema = require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
const draft04 = require('ajv/lib/refs/json-schema-draft-04.json');

const ajv = new Ajv({ schemaId: 'auto', allErrors: true, format: 'full' });
ajv.addMetaSchema(draft04);
const validate = ajv.compile(schema);

let ok = 0;
let failing = 0;
const pass = (what) => { ok++; console.log(`ok ${what}`); };
const fail = (what, why) => { failing++; console.log(`FAIL ${what}: ${why}`); };
const why = () => ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 400);

// Each mutation breaks one rule of the schema; null when the log has nothing to break.
const mutations = {
  'no version': (d) => { delete d.version; return d; },
  'unknown level': (d) => {
    const r = d.runs[0].results[0] ?? d.runs[0].invocations[0].toolExecutionNotifications?.[0];
    if (!r) return null;
    r.level = 'fatal';
    return d;
  },
  'no tool': (d) => { delete d.runs[0].tool; return d; },
  'executionSuccessful not boolean': (d) => { d.runs[0].invocations[0].executionSuccessful = 'yes'; return d; },
  'unknown member': (d) => { d.runs[0].verdicts = []; return d; },
  'URI with a space': (d) => {
    const r = d.runs[0].results[0] ?? d.runs[0].invocations[0].toolExecutionNotifications?.[0];
    if (!r) return null;
    r.locations[0].physicalLocation.artifactLocation.uri = 'models/a b.pt2';
    return d;
  },
};

for (const file of process.argv.slice(2)) {
  let doc;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    fail(file, `not JSON: ${e.message}`);
    continue;
  }
  if (validate(doc)) pass(file); else fail(file, why());
  for (const [name, mutate] of Object.entries(mutations)) {
    const bad = mutate(structuredClone(doc));
    if (bad === null) continue;
    if (validate(bad)) fail(`${file} (${name})`, 'accepted'); else pass(`${file} (${name}) rejected`);
  }
}
console.log(`= ${ok} ok, ${failing} failing`);
process.exit(failing === 0 ? 0 : 1);
