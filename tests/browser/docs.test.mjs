// docs.test.mjs - the /docs examples work as shipped. Swagger UI's "Try it
// out" pre-fills every parameter with its first example (or `example`, or
// the schema's default); a person then presses Execute, for an upload after
// choosing a file. Each operation is sent here exactly so, to the daemon
// that serves the reference (over tests/fixtures), and must not be refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';

const UPLOAD = 'tests/fixtures/cuda_sm90a_v8.pt2';

function firstExample(obj) {
  if (!obj) return undefined;
  if (obj.examples && typeof obj.examples === 'object' && !Array.isArray(obj.examples)) {
    const first = Object.values(obj.examples)[0];
    if (first && 'value' in first) return first.value;
  }
  if ('example' in obj) return obj.example;
  return undefined;
}

function resolve(spec, obj) {
  let o = obj;
  for (let i = 0; o && o.$ref && i < 16; i++) {
    o = o.$ref.slice(2).split('/').reduce((v, k) => v[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return o;
}

// What Try it out puts in the query (and headers) of `op`.
function prefilled(spec, op) {
  const query = new URLSearchParams();
  const headers = {};
  for (const raw of op.parameters || []) {
    const p = resolve(spec, raw);
    let v = firstExample(p);
    if (v === undefined && p.content) v = firstExample(Object.values(p.content)[0]);
    if (v === undefined && p.schema) v = resolve(spec, p.schema).default;
    if (v === undefined) continue;
    if (p.in === 'header') headers[p.name] = String(v);
    else if (p.in !== 'query') continue;
    else if (Array.isArray(v)) v.forEach((x) => query.append(p.name, String(x)));
    else if (typeof v === 'object') query.append(p.name, JSON.stringify(v));
    else query.append(p.name, String(v));
  }
  return { query, headers };
}

async function getSpec(base) {
  const res = await fetch(new URL('openapi.json', base));
  if (res.status === 404) return null; // a daemon built without npm has no /docs
  assert.equal(res.status, 200);
  return res.json();
}

function uploadable(spec, op) {
  const body = resolve(spec, op.requestBody);
  const mp = body && body.content && body.content['multipart/form-data'];
  const req = mp && mp.schema ? resolve(spec, mp.schema).required || [] : [];
  return mp && req.length === 1 && req[0] === 'file';
}

export const docsTests = [
  ['/docs: every operation as "Try it out" pre-fills it is answered, not refused', async ({ env }) => {
    const spec = await getSpec(env.docs);
    if (spec === null) return;
    const sent = [];
    const refused = [];
    for (const [tpl, item] of Object.entries(spec.paths)) {
      if (tpl.includes('{')) continue; // asset paths: a path parameter, not a form
      for (const method of ['get', 'post']) {
        const op = item[method];
        if (!op) continue;
        const { query, headers } = prefilled(spec, op);
        const url = new URL(tpl.slice(1), env.docs);
        url.search = query.toString();
        const tries = [];
        if (method === 'get') {
          tries.push({ method: 'GET', headers });
        } else {
          const body = resolve(spec, op.requestBody) || {};
          if (uploadable(spec, op)) {
            const form = new FormData();
            form.append('file', new Blob([fs.readFileSync(UPLOAD)]), 'cuda_sm90a_v8.pt2');
            tries.push({ method: 'POST', headers, body: form, what: 'upload' });
          }
          const json = body.content && body.content['application/json'];
          const ex = firstExample(json);
          if (ex !== undefined) {
            tries.push({ method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' },
              body: JSON.stringify(ex), what: 'json' });
          }
        }
        for (const t of tries) {
          const what = `${t.method} ${url.pathname}${url.search} (${t.what || 'query'})`;
          sent.push(what);
          try {
            const res = await fetch(url, t);
            const text = await res.text();
            if (res.status >= 400) refused.push(`${what}: ${res.status} ${text.slice(0, 200)}`);
          } catch (e) {
            refused.push(`${what}: ${e.cause || e}`);
          }
        }
      }
    }
    assert.ok(sent.length >= 12, `only ${sent.length} requests were built from the spec`);
    assert.deepEqual(refused, []);
  }],

  ['/docs: every operation has one tag (Swagger UI lists an operation once under each of its tags)', async ({ env }) => {
    const spec = await getSpec(env.docs);
    if (spec === null) return;
    const several = [];
    for (const [tpl, item] of Object.entries(spec.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (op && op.tags && op.tags.length !== 1) several.push(`${method.toUpperCase()} ${tpl}: ${op.tags.join(', ')}`);
      }
    }
    assert.deepEqual(several, []);
  }],

  ['/docs: the device parameter is not pre-filled with a GPU this node may lack', async ({ env }) => {
    const spec = await getSpec(env.docs);
    if (spec === null) return;
    const device = spec.components.parameters.Device;
    assert.equal(firstExample(device), undefined);
  }],
];
