// contract.mjs - validate recorded pt2scoped responses against openapi.yaml.
//
// pt2scoped writes every response it sends as one JSON file when
// PT2SCOPE_RECORD_DIR is set (service/daemon/pt2d_record.c):
//   {method, path, query: {key: [values]}, status, content_type,
//    headers: {name: value}, request_json, body_kind: "none"|"json"|"text",
//    body, body_truncated}
// Each record is matched to its operation (path template + method, or the
// shared behaviour in `x-pt2scope-implicit`) and status; the body is validated
// against that response's schema for its media type (JSON Schema 2020-12,
// Ajv), recorded headers against the declared ones. Anything the spec does not
// declare is a failure: an unknown (operation, status) pair, an undeclared
// media type or header, a body where none is declared.
//
// One rule lives here rather than in the spec, because OpenAPI cannot tie a
// response schema to a query value: a 200 asked with ?view=oip carries only
// OipTensorSpec tensor specs and its metadata is the Open Inference
// Protocol's model metadata response (OipModelMetadata), any other only
// TensorSpec ones and the package's own metadata (PackageMetadata). Likewise
// an InspectReport has `scheduling` exactly when the request asked affinity=1.
//
// CLI:  node contract.mjs [--spec openapi.yaml] [--quiet] RECORD_DIR
//       exits 1 on any mismatch (or no records), printing a coverage table.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

const SPEC_ID = 'https://pt2scope.dev/openapi.json';
// Headers any response may carry, described once in the API description
// (CORS, hop-by-hop) rather than per response.
const SHARED_HEADERS = /^(?:access-control-[a-z-]+|vary|connection|date|content-length)$/i;
const TENSORS = ['#/components/schemas/TensorSpecList', '#/components/schemas/MetadataView'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/* ---- spec loading ------------------------------------------------------ */

function pointerGet(doc, ref) {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
  let v = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (v === null || typeof v !== 'object' || !(key in v)) throw new Error(`dangling $ref ${ref}`);
    v = v[key];
  }
  return v;
}

/* Follow $ref chains of non-schema objects (responses, headers). */
function deref(doc, obj) {
  let seen = 0;
  while (obj && typeof obj === 'object' && typeof obj.$ref === 'string') {
    if (++seen > 16) throw new Error(`$ref loop at ${obj.$ref}`);
    obj = pointerGet(doc, obj.$ref);
  }
  return obj;
}

function escapePointer(s) {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/* "application/json; charset=utf-8" -> "application/json" */
export function baseMediaType(ct) {
  return typeof ct === 'string' ? ct.split(';')[0].trim().toLowerCase() : '';
}

function isJsonMedia(mt) {
  const b = baseMediaType(mt);
  return b === 'application/json' || b.endsWith('+json');
}

function templateRegex(tpl) {
  const parts = tpl.split(/(\{[^}/]+\})/).map((p) =>
    p.startsWith('{') ? '([^/]+)' : p.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
  );
  return new RegExp(`^${parts.join('')}$`);
}

export class Contract {
  constructor(spec) {
    this.spec = spec;
    this.implicit = spec['x-pt2scope-implicit'];
    if (!this.implicit) throw new Error('the spec has no x-pt2scope-implicit');
    this.ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(this.ajv);
    // The whole document is registered so `#/components/schemas/...` refs
    // resolve where they are written; its top-level OpenAPI fields are
    // declared as inert keywords so strict mode accepts the root.
    for (const k of Object.keys(spec)) if (!this.ajv.getKeyword(k)) this.ajv.addKeyword(k);
    this.ajv.addSchema(spec, SPEC_ID);
    this.validators = new Map();
    // Literal paths win over templated ones, as OpenAPI requires.
    this.paths = Object.keys(spec.paths || {})
      .map((tpl) => ({ tpl, re: templateRegex(tpl), literal: !tpl.includes('{') }))
      .sort((a, b) => Number(b.literal) - Number(a.literal));
  }

  static load(specPath) {
    const text = fs.readFileSync(specPath, 'utf8');
    return new Contract(YAML.parse(text, { strict: true, uniqueKeys: true }));
  }

  /* A compiled validator for the schema at a JSON pointer into the spec. */
  validatorAt(pointer) {
    let v = this.validators.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `${SPEC_ID}${pointer}` });
      this.validators.set(pointer, v);
    }
    return v;
  }

  /* Validate `value` against the schema at `pointer`; [] or messages. */
  validateAt(pointer, value) {
    const v = this.validatorAt(pointer);
    if (v(value)) return [];
    return v.errors.slice(0, 8).map((e) => `${e.instancePath || '(root)'} ${e.message}` +
      (e.params && e.params.additionalProperty ? ` '${e.params.additionalProperty}'` : '') +
      (e.params && e.params.unevaluatedProperty ? ` '${e.params.unevaluatedProperty}'` : ''));
  }

  /* Every (operation, status) pair the spec declares, for the coverage table. */
  declaredPairs() {
    const pairs = [];
    for (const { tpl } of this.paths) {
      const item = this.spec.paths[tpl];
      for (const m of METHODS) {
        if (!item[m]) continue;
        for (const st of Object.keys(item[m].responses || {})) pairs.push(`${m.toUpperCase()} ${tpl}|${st}`);
      }
    }
    return pairs;
  }

  /*
   * Resolve a record to {op, status, response, pointer}: `op` is the coverage
   * key ("GET /v1/inspect", "OPTIONS *", ...), `pointer` the JSON pointer of
   * the response object (for schema compilation). Throws a message string.
   */
  resolve(rec) {
    const method = String(rec.method || '').toLowerCase();
    const status = String(rec.status);
    const hit = this.paths.find((p) => p.re.test(rec.path));
    const implicit = (name, op) => {
      const rule = this.implicit[name];
      if (String(rule.status) !== status)
        throw `${op}: status ${status} is not declared (only ${rule.status})`;
      return { op, status, pointer: `#/x-pt2scope-implicit/${name}/response`, implicitRule: name };
    };
    const item = hit ? this.spec.paths[hit.tpl] : undefined;
    const m0 = method === 'head' && item && !item.head ? this.implicit.head : method;
    /* Framing is refused before routing: a bad-request problem the operation does not
     * declare is the shared answer (any other undeclared 400 still fails). */
    if (status === String(this.implicit['malformed-request'].status) &&
        rec.body && typeof rec.body === 'object' && String(rec.body.type).endsWith('/bad-request') &&
        !(item && item[m0] && item[m0].responses && status in item[m0].responses))
      return implicit('malformed-request', `${method.toUpperCase()} ${hit ? hit.tpl : '(any path)'}`);
    /* Access control refuses before routing too (x-pt2scope-implicit unauthorized and
     * host-not-allowed): only that problem type, and only where the operation declares no
     * such status itself. */
    for (const rule of ['unauthorized', 'host-not-allowed']) {
      if (status === String(this.implicit[rule].status) &&
          rec.body && typeof rec.body === 'object' && String(rec.body.type).endsWith(`/${rule}`) &&
          !(item && item[m0] && item[m0].responses && status in item[m0].responses))
        return implicit(rule, `${method.toUpperCase()} ${hit ? hit.tpl : '(any path)'}`);
    }
    /* A declared path with a slash added is sent on to it (x-pt2scope-implicit trailing-slash). */
    if (!hit && status === String(this.implicit['trailing-slash'].status) && rec.path.length > 1 &&
        rec.path.endsWith('/') && this.paths.some((p) => p.literal && p.tpl === rec.path.slice(0, -1)))
      return implicit('trailing-slash', `${method.toUpperCase()} ${rec.path}`);
    if (!hit) return implicit('unknown-path', `${method.toUpperCase()} (unknown path)`);
    const base = `#/paths/${escapePointer(hit.tpl)}`;
    let m = method;
    if (method === 'options' && !item.options) return implicit('options', `OPTIONS ${hit.tpl}`);
    if (method === 'head' && !item.head && item[this.implicit.head]) m = this.implicit.head;
    if (!METHODS.includes(m) || !item[m]) return implicit('undeclared-method', `${method.toUpperCase()} ${hit.tpl}`);
    const op = `${method.toUpperCase()} ${hit.tpl}`;
    if (!item[m].responses || !(status in item[m].responses))
      throw `${op}: status ${status} is not declared (declared: ${Object.keys(item[m].responses || {}).join(', ')})`;
    return { op, status, pointer: `${base}/${m}/responses/${status}`, head: m !== method };
  }

  /* All mismatches of one record, as strings (empty when it conforms). */
  check(rec) {
    const errs = [];
    let r;
    try {
      r = this.resolve(rec);
    } catch (e) {
      if (typeof e === 'string') return { op: null, errors: [e] };
      throw e;
    }
    // Follow $refs by pointer so schemas compile at their canonical location.
    let pointer = r.pointer;
    let response = pointerGet(this.spec, pointer);
    while (response && typeof response.$ref === 'string') {
      pointer = response.$ref;
      response = pointerGet(this.spec, pointer);
    }
    const where = `${r.op} -> ${r.status}`;
    const isHead = String(rec.method).toUpperCase() === 'HEAD';
    const content = response.content;

    if (!content) {
      if (rec.body_kind !== 'none' && !(rec.body === null || rec.body === ''))
        errs.push(`${where}: the spec declares no body, got ${rec.body_kind}`);
    } else {
      const types = Object.keys(content);
      const want = baseMediaType(rec.content_type);
      const key = types.find((t) => t.toLowerCase() === String(rec.content_type).toLowerCase()) ||
        types.find((t) => baseMediaType(t) === want);
      if (!key) {
        errs.push(`${where}: Content-Type '${rec.content_type}' is not declared (${types.join(', ')})`);
      } else if (!isHead) {
        const media = content[key];
        const sp = `${pointer}/content/${escapePointer(key)}/schema`;
        if (rec.body_truncated) {
          if (isJsonMedia(key)) errs.push(`${where}: JSON body was truncated by the recorder`);
        } else if (isJsonMedia(key) && rec.body_kind !== 'json') {
          errs.push(`${where}: body is not valid JSON`);
        } else if (!isJsonMedia(key) && rec.body_kind !== 'text') {
          errs.push(`${where}: expected a ${key} body, got ${rec.body_kind}`);
        } else if (media.schema) {
          for (const e of this.validateAt(sp, rec.body)) errs.push(`${where}: body ${e}`);
        }
      }
    }
    errs.push(...this.checkHeaders(rec, response, pointer, where));
    if (!isHead && rec.body_kind === 'json' && content && TENSORS.some((t) => this.refersTo(pointer, t)))
      errs.push(...checkView(rec).map((e) => `${where}: ${e}`));
    if (!isHead && rec.body_kind === 'json' && content && this.refersTo(pointer, '#/components/schemas/InspectReport'))
      errs.push(...checkAffinity(rec).map((e) => `${where}: ${e}`));
    return { op: r.op, status: r.status, errors: errs };
  }

  /* Whether the subtree at `pointer` reaches the schema `target` through $refs. */
  refersTo(pointer, target, seen = new Set()) {
    if (seen.has(pointer)) return false;
    seen.add(pointer);
    const walk = (v) => {
      if (Array.isArray(v)) return v.some(walk);
      if (v === null || typeof v !== 'object') return false;
      if (typeof v.$ref === 'string')
        return v.$ref === target || this.refersTo(v.$ref, target, seen);
      return Object.values(v).some(walk);
    };
    return walk(pointerGet(this.spec, pointer));
  }

  checkHeaders(rec, response, pointer, where) {
    const errs = [];
    const declared = response.headers || {};
    for (const [name, value] of Object.entries(rec.headers || {})) {
      if (SHARED_HEADERS.test(name)) continue;
      const dn = Object.keys(declared).find((d) => d.toLowerCase() === name.toLowerCase());
      if (!dn) {
        errs.push(`${where}: header ${name} is not declared`);
        continue;
      }
      const h = deref(this.spec, declared[dn]);
      let hp = `${pointer}/headers/${escapePointer(dn)}`;
      if (declared[dn].$ref) hp = declared[dn].$ref;
      if (!h.schema) continue;
      const t = h.schema.type;
      const v = t === 'integer' || t === 'number' ? Number(value) : value;
      for (const e of this.validateAt(`${hp}/schema`, v)) errs.push(`${where}: header ${name} ${e}`);
    }
    return errs;
  }
}

/*
 * view=oip (query or JSON body) -> every tensor spec is OIP-shaped; otherwise
 * none is. Tensor
 * specs sit in `inputs`/`outputs` arrays; `raw` and AOTI maps are the
 * package's own documents and are skipped.
 */
export function checkView(rec) {
  // A JSON body is applied after the query string, so its `view` wins.
  const q = rec.query && Array.isArray(rec.query.view) ? rec.query.view.at(-1) : null;
  const j = rec.request_json && typeof rec.request_json === 'object' ? rec.request_json.view : undefined;
  const view = typeof j === 'string' ? j : q;
  const oip = view === 'oip';
  const errs = [];
  // The metadata: the whole body of /v1/metadata, the `metadata` member elsewhere.
  const body = rec.body && typeof rec.body === 'object' ? rec.body : null;
  const meta = body && (rec.path === '/v1/metadata' ? body : body.metadata);
  if (meta && typeof meta === 'object' && ('platform' in meta) !== oip)
    errs.push(`metadata is ${oip ? 'not the OIP model metadata response' : 'the OIP model metadata response'} ` +
      `but the request asked for view=${view ?? 'default'}`);
  const walk = (v, at) => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}/${i}`));
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'raw' || k === 'aoti' || k === 'aoti_metadata') continue;
      if ((k === 'inputs' || k === 'outputs') && Array.isArray(x)) {
        x.forEach((t, i) => {
          if (t && typeof t === 'object' && ('datatype' in t) !== oip)
            errs.push(`${at}/${k}/${i} is ${oip ? 'not an OipTensorSpec' : 'an OipTensorSpec'} ` +
              `but the request asked for view=${view ?? 'default'}`);
        });
      } else {
        walk(x, `${at}/${k}`);
      }
    }
  };
  walk(rec.body, '');
  return errs;
}

/*
 * An inspection document carries `scheduling` exactly when the request asked
 * affinity=1 / true (query, or "affinity": true in a JSON body, which wins).
 */
export function checkAffinity(rec) {
  const q = rec.query && Array.isArray(rec.query.affinity) ? rec.query.affinity.at(-1) : null;
  const j = rec.request_json && typeof rec.request_json === 'object' ? rec.request_json.affinity : undefined;
  const on = typeof j === 'boolean' ? j : (q === '1' || q === 'true');
  const body = rec.body && typeof rec.body === 'object' ? rec.body : null;
  if (!body || !('arch' in body)) return [];
  if (('scheduling' in body) === on) return [];
  return [on ? "must have required property 'scheduling' (the request asked affinity=1)"
    : 'has scheduling but the request did not ask for affinity=1'];
}

/* ---- CLI --------------------------------------------------------------- */

function readRecords(dir) {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => {
    const file = path.join(dir, f);
    try {
      return { file, rec: JSON.parse(fs.readFileSync(file, 'utf8')) };
    } catch (e) {
      return { file, bad: `not JSON: ${e.message}` };
    }
  });
}

function problemSlug(rec) {
  const t = rec.body && typeof rec.body === 'object' ? rec.body.type : null;
  return typeof t === 'string' ? t.replace(/^.*\/problems\//, '') : null;
}

export function run(specPath, dir, { quiet = false, out = console } = {}) {
  const c = Contract.load(specPath);
  const recs = readRecords(dir);
  const seen = new Map();   // op -> Map(status -> count)
  const slugs = new Map();  // slug -> count
  let failures = 0;
  for (const { file, rec, bad } of recs) {
    const r = bad ? { op: null, errors: [bad] } : c.check(rec);
    if (r.op) {
      if (!seen.has(r.op)) seen.set(r.op, new Map());
      const m = seen.get(r.op);
      m.set(r.status, (m.get(r.status) || 0) + 1);
    }
    const slug = rec && /problem\+json/.test(String(rec.content_type)) ? problemSlug(rec) : null;
    if (slug) slugs.set(slug, (slugs.get(slug) || 0) + 1);
    if (r.errors.length) {
      failures++;
      out.log(`FAIL ${path.basename(file)}: ${rec ? `${rec.method} ${rec.path} ${rec.status}` : ''}`);
      for (const e of r.errors) out.log(`    ${e}`);
    }
  }
  if (!quiet) {
    out.log(`contract coverage (${recs.length} responses; operation: status x count)`);
    for (const op of [...seen.keys()].sort()) {
      const st = [...seen.get(op).entries()].sort().map(([s, n]) => `${s}x${n}`).join(' ');
      out.log(`  ${op.padEnd(34)} ${st}`);
    }
    const missing = c.declaredPairs().filter((p) => {
      const [op, st] = p.split('|');
      return !(seen.get(op) && seen.get(op).has(st));
    });
    out.log(`problem types seen: ${[...slugs.entries()].sort().map(([s, n]) => `${s}x${n}`).join(' ') || '(none)'}`);
    const byOp = new Map();
    for (const p of missing) {
      const [op, st] = p.split('|');
      byOp.set(op, [...(byOp.get(op) || []), st]);
    }
    out.log(`declared but not exercised (${missing.length}):`);
    for (const [op, sts] of byOp) out.log(`  ${op.padEnd(34)} ${sts.join(' ')}`);
  }
  if (recs.length === 0) {
    out.error(`contract: no recorded responses in ${dir}`);
    return 1;
  }
  out.log(`contract: ${recs.length - failures}/${recs.length} responses conform to ${path.basename(specPath)}`);
  return failures ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  let spec = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'openapi.yaml');
  let quiet = false;
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--spec') spec = args[++i];
    else if (args[i] === '--quiet') quiet = true;
    else rest.push(args[i]);
  }
  if (rest.length !== 1) {
    console.error('usage: contract.mjs [--spec openapi.yaml] [--quiet] RECORD_DIR');
    process.exit(2);
  }
  process.exit(run(spec, rest[0], { quiet }));
}
