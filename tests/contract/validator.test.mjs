// validator.test.mjs - the contract validator can pass and can fail.
//
// samples/ holds responses pt2scoped really recorded (PT2SCOPE_RECORD_DIR)
// during the HTTP suites. Each must conform to openapi/openapi.yaml; each
// deliberately broken copy below must be rejected with the expected message.
// The spec's own examples (real fixture responses) are validated too,
// including those in x-pt2scope-implicit that Redocly does not look at.
//
//   node --test tests/contract/validator.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';
import { Contract, run } from '../../openapi/scripts/contract.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const specPath = path.join(here, '..', '..', 'openapi', 'openapi.yaml');
const contract = Contract.load(specPath);
const sampleDir = path.join(here, 'samples');

function sample(name) {
  return JSON.parse(fs.readFileSync(path.join(sampleDir, `${name}.json`), 'utf8'));
}

/* The errors for `rec` after `mutate` changed a copy of it. */
function errorsAfter(name, mutate) {
  const rec = structuredClone(sample(name));
  mutate(rec);
  return contract.check(rec).errors;
}

function assertRejected(errors, fragment) {
  assert.ok(errors.length > 0, `expected a failure mentioning "${fragment}", got none`);
  assert.ok(errors.some((e) => e.includes(fragment)),
    `expected "${fragment}" in:\n  ${errors.join('\n  ')}`);
}

test('every recorded sample conforms', () => {
  const names = fs.readdirSync(sampleDir).filter((f) => f.endsWith('.json'));
  assert.ok(names.length >= 10, 'samples are missing');
  for (const f of names) {
    const r = contract.check(sample(f.slice(0, -5)));
    assert.deepEqual(r.errors, [], `${f}`);
  }
});

test('samples resolve to the expected operation and status', () => {
  const cases = {
    inspect_get_200: ['GET /v1/inspect', '200'],
    arch_head_200: ['HEAD /v1/arch', '200'],
    inspect_options_204: ['OPTIONS /v1/inspect', '204'],
    inspect_delete_405: ['DELETE /v1/inspect', '405'],
    unknown_get_404: ['GET (unknown path)', '404'],
    node_get_200: ['GET /v1/node', '200'],
    compatibility_post_200: ['POST /v1/compatibility', '200'],
    cluster_get_200: ['GET /v1/cluster/compatibility', '200'],
    docs_get_200: ['GET /docs', '200'],
  };
  for (const [name, [op, status]] of Object.entries(cases)) {
    const r = contract.check(sample(name));
    assert.equal(r.op, op, name);
    assert.equal(r.status, status, name);
  }
});

test('every example in the spec validates against its schema', () => {
  let n = 0;
  const visit = (node, pointer) => {
    if (Array.isArray(node)) return node.forEach((x, i) => visit(x, `${pointer}/${i}`));
    if (node === null || typeof node !== 'object') return;
    if (node.schema && node.examples && !Array.isArray(node.examples)) {
      for (const [k, ex] of Object.entries(node.examples)) {
        if (!('value' in ex)) continue;
        const errs = contract.validateAt(`${pointer}/schema`, ex.value);
        assert.deepEqual(errs, [], `${pointer}/examples/${k}`);
        n++;
      }
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'examples' || k === 'schema') continue;
      visit(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  visit(contract.spec, '#');
  assert.ok(n >= 15, `only ${n} examples found`);
});

test('a drifted body fails', () => {
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.body.arch.cuda_targets = 'sm_90a'; }),
    '/arch/cuda_targets must be array');
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.body.surprise = 1; }),
    "must NOT have additional properties 'surprise'");
  assertRejected(errorsAfter('inspect_get_200', (r) => { delete r.body.bytes_read; }),
    "must have required property 'bytes_read'");
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.body.compatibility[0].verdict = 'maybe'; }),
    '/compatibility/0/verdict must be equal to one of the allowed values');
  assertRejected(errorsAfter('arch_post_200', (r) => { r.body.kernels = [{ ...r.body.kernels[0] ?? {}, kind: 'ptx', abi_version: 8 }]; }),
    '/kernels/0');
  assertRejected(errorsAfter('validate_post_200', (r) => { r.body = { valid: false }; }),
    'must match exactly one schema in oneOf');
  assertRejected(errorsAfter('metadata_get_200', (r) => { r.body.inputs[0].shape = [-1, 3]; }),
    '/inputs/0/shape/0');
});

test('a drifted node, nodes or cluster document fails', () => {
  // A GPU entry whose device lost its GPU members no longer matches its kind.
  assertRejected(errorsAfter('inspect_node_get_200', (r) => {
    const gpu = r.body.compatibility.find((c) => c.kind === 'gpu');
    delete gpu.device.uuid;
  }), "must have required property 'uuid'");
  assertRejected(errorsAfter('inspect_node_get_200', (r) => {
    r.body.compatibility.find((c) => c.kind === 'cpu').target = 'host';
  }), 'must be equal to constant');
  assertRejected(errorsAfter('node_get_200', (r) => { r.body.gpus[0].sm = '90'; }),
    '/gpus/0/sm must match pattern');
  assertRejected(errorsAfter('node_get_200', (r) => { r.body.probed_at = 'yesterday'; }),
    '/probed_at must match format "date-time"');
  assertRejected(errorsAfter('compatibility_post_200', (r) => { delete r.body.summary['compatible-ptx-jit']; }),
    "must have required property 'compatible-ptx-jit'");
  assertRejected(errorsAfter('compatibility_post_200', (r) => { r.body.nodes[0].checks.gpu.verdict = 'yes'; }),
    '/nodes/0/checks/gpu/verdict must be equal to one of the allowed values');
  assertRejected(errorsAfter('cluster_get_200', (r) => { r.body.peers[1].status = 'down'; }),
    '/peers/1/status must be equal to one of the allowed values');
  assertRejected(errorsAfter('cluster_get_200', (r) => { r.body.peers[0].node.gpus = null; }),
    '/peers/0/node/gpus must be array');
});

test('a wrong problem document fails', () => {
  assertRejected(errorsAfter('inspect_get_422', (r) => { r.body.title = 'Something else'; }),
    '/title must be equal to constant');
  assertRejected(errorsAfter('inspect_get_422', (r) => { r.body.status = 400; }),
    '/status must be equal to constant');
  assertRejected(errorsAfter('inspect_get_422', (r) => { delete r.body.type; }),
    "must have required property 'type'");
  assertRejected(errorsAfter('inspect_get_422', (r) => { r.body.type = 'https://pt2scope.dev/problems/oops'; }),
    '/type must be equal to one of the allowed values');
  assertRejected(errorsAfter('inspect_get_422', (r) => { r.body.instance = 'request 7'; }),
    '/instance must match pattern');
});

test('an undeclared status, media type, body or header fails', () => {
  assertRejected(errorsAfter('livez_get_200', (r) => { r.status = 418; }),
    'GET /livez: status 418 is not declared');
  assertRejected(errorsAfter('livez_get_200', (r) => { r.body = 'fine\n'; }),
    'must be equal to constant');
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.content_type = 'text/html'; }),
    "Content-Type 'text/html' is not declared");
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.body_kind = 'text'; r.body = '{"arch":'; }),
    'body is not valid JSON');
  assertRejected(errorsAfter('inspect_get_304', (r) => { r.body_kind = 'json'; r.body = {}; }),
    'the spec declares no body');
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.headers.Location = '/elsewhere'; }),
    'header Location is not declared');
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.headers.ETag = 'unquoted'; }),
    'header ETag (root) must match pattern');
  assertRejected(errorsAfter('arch_get_503', (r) => { r.headers['Retry-After'] = '0'; }),
    'header Retry-After');
  assertRejected(errorsAfter('metrics_get_200', (r) => { r.body += 'not a sample line\n'; }),
    'must match pattern');
});

test('the shared rules (HEAD, OPTIONS, 405, unknown path) are enforced', () => {
  assertRejected(errorsAfter('inspect_delete_405', (r) => { r.status = 400; }),
    'DELETE /v1/inspect: status 400 is not declared (only 405)');
  assertRejected(errorsAfter('unknown_get_404', (r) => { r.status = 200; }),
    'status 200 is not declared (only 404)');
  assertRejected(errorsAfter('inspect_options_204', (r) => { r.status = 200; }),
    'status 200 is not declared (only 204)');
  assertRejected(errorsAfter('arch_head_200', (r) => { r.status = 201; }),
    'status 201 is not declared');
  assertRejected(errorsAfter('inspect_delete_405', (r) => { r.body.type = 'https://pt2scope.dev/problems/not-found'; }),
    '/status must be equal to constant');
});

test('a declared path with a slash added may only be sent on to it (trailing-slash)', () => {
  const rec = {
    method: 'GET', path: '/docs/', query: {}, status: 301, content_type: 'text/plain; charset=utf-8',
    headers: { Location: '../docs', 'X-Request-Id': '746c433dbc63ea09921bd357cd3cc766' },
    request_json: null, body_kind: 'text', body: 'the API reference is at /docs\n',
  };
  assert.deepEqual(contract.check(rec).errors, []);
  assertRejected(contract.check({ ...rec, status: 200 }).errors, 'status 200 is not declared (only 404)');
  assertRejected(contract.check({ ...rec, path: '/nothing/' }).errors, 'status 301 is not declared (only 404)');
});

test('the tensor-spec view must follow the request', () => {
  assertRejected(errorsAfter('metadata_get_200_oip', (r) => { r.query = {}; }),
    'is an OipTensorSpec but the request asked for view=default');
  assertRejected(errorsAfter('metadata_get_200', (r) => { r.query = { view: ['oip'] }; }),
    'is not an OipTensorSpec but the request asked for view=oip');
  // A JSON body's view wins over the query string, as in the server.
  const rec = structuredClone(sample('metadata_get_200_oip'));
  rec.query = {};
  rec.request_json = { view: 'oip' };
  assert.deepEqual(contract.check(rec).errors, []);
});

test('the CLI fails on a bad record and on an empty directory, passes on good ones', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pt2scope-contract-test-'));
  const quiet = { log() {}, error() {} };
  try {
    assert.equal(run(specPath, dir, { out: quiet }), 1, 'empty directory');
    fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify(sample('inspect_get_200')));
    assert.equal(run(specPath, dir, { out: quiet }), 0, 'good record');
    const bad = sample('livez_get_200');
    bad.status = 500;
    fs.writeFileSync(path.join(dir, 'b.json'), JSON.stringify(bad));
    assert.equal(run(specPath, dir, { out: quiet }), 1, 'bad record');
    fs.writeFileSync(path.join(dir, 'b.json'), '{"truncated');
    assert.equal(run(specPath, dir, { out: quiet }), 1, 'unparsable record');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/* The errors of the OIP model metadata schema itself for the recorded answer after `mutate`. */
function oipErrors(mutate) {
  const body = structuredClone(sample('metadata_get_200_oip').body);
  mutate(body);
  return contract.validateAt('#/components/schemas/OipModelMetadata', body);
}

test('view=oip answers the Open Inference Protocol model metadata response', () => {
  // The recorded answer conforms as it is, and with the protocol's optional versions.
  assert.deepEqual(errorsAfter('metadata_get_200_oip', () => {}), []);
  assert.deepEqual(errorsAfter('metadata_get_200_oip', (r) => { r.body.versions = ['3']; }), []);
  // The old, non-conforming shape: `model` for `name`, no platform.
  assertRejected(errorsAfter('metadata_get_200_oip', (r) => {
    r.body.model = r.body.name; delete r.body.name; delete r.body.platform;
  }), 'metadata is not the OIP model metadata response but the request asked for view=oip');
  assertRejected(oipErrors((b) => { b.model = b.name; delete b.name; }),
    "must have required property 'name'");
  assertRejected(oipErrors((b) => { delete b.platform; }), "must have required property 'platform'");
  // Only the protocol's datatypes: no BF16, no invented names.
  for (const dt of ['BF16', 'COMPLEX64', 'FLOAT8_E4M3FN', 'STRING', 'fp32']) {
    assertRejected(oipErrors((b) => { b.inputs[0].datatype = dt; }),
      '/inputs/0/datatype must be equal to one of the allowed values');
    assert.notDeepEqual(errorsAfter('metadata_get_200_oip', (r) => { r.body.inputs[0].datatype = dt; }), []);
  }
  assertRejected(oipErrors((b) => { b.inputs[0].datatype = null; }), '/inputs/0/datatype must be string');
  assertRejected(oipErrors((b) => { b.inputs[0].shape = null; }), '/inputs/0/shape must be array');
  assertRejected(oipErrors((b) => { b.inputs[0].shape = [-2]; }), '/inputs/0/shape/0 must be >= -1');
  assertRejected(oipErrors((b) => { b.raw = {}; }), "must NOT have additional properties 'raw'");
  assertRejected(oipErrors((b) => { b.versions = [3]; }), '/versions/0 must be string');
  // A tensor left out is said in warnings; an empty list is not written.
  assert.deepEqual(oipErrors((b) => { b.warnings = ["input 'w' is left out"]; }), []);
  assertRejected(oipErrors((b) => { b.warnings = []; }), '/warnings must NOT have fewer than 1 items');
  // The request decides the shape of the metadata, not only of the tensors.
  assertRejected(errorsAfter('metadata_get_200', (r) => { r.query = { view: ['oip'] }; }),
    'metadata is not the OIP model metadata response but the request asked for view=oip');
  assertRejected(errorsAfter('metadata_get_200_oip', (r) => { r.query = {}; }),
    'metadata is the OIP model metadata response but the request asked for view=default');
});

test('advice goes with every verdict, null exactly when compatible', () => {
  assertRejected(errorsAfter('inspect_get_200', (r) => { delete r.body.overall.advice; }),
    "/overall must have required property 'advice'");
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.body.compatibility[0].advice = 'Rebuild.'; }),
    '/compatibility/0/advice must be null');
  assertRejected(errorsAfter('compatibility_post_200', (r) => { r.body.nodes[0].verdict = 'incompatible'; }),
    '/nodes/0/advice must be string');
  assertRejected(errorsAfter('compatibility_post_200', (r) => { r.body.nodes[0].checks.cpu.advice = ''; }),
    '/nodes/0/checks/cpu/advice must be null');
  assertRejected(errorsAfter('cluster_get_200', (r) => {
    delete r.body.peers[0].compatibility.find((c) => c.verdict === 'compatible').advice;
  }), "must have required property 'advice'");
});

test('every inspection carries a well-formed node affinity', () => {
  const terms = (r) => r.body.scheduling.node_affinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
  assertRejected(errorsAfter('inspect_get_200', (r) => { delete r.body.scheduling; }),
    "must have required property 'scheduling'");
  assertRejected(errorsAfter('inspect_get_200', (r) => { terms(r).length = 0; }),
    '/nodeSelectorTerms must NOT have fewer than 1 items');
  // Kubernetes' own rules: Gt/Lt take one integer, Exists/DoesNotExist no values.
  assertRejected(errorsAfter('inspect_get_200', (r) => {
    terms(r)[0].matchExpressions[0] = { key: 'nvidia.com/gpu.compute.major', operator: 'Gt', values: ['9', '10'] };
  }), '/matchExpressions/0 must match exactly one schema in oneOf');
  assertRejected(errorsAfter('inspect_get_200', (r) => {
    terms(r)[0].matchExpressions[0] = { key: 'kubernetes.io/os', operator: 'Exists', values: ['linux'] };
  }), '/matchExpressions/0 must match exactly one schema in oneOf');
  assertRejected(errorsAfter('inspect_get_200', (r) => {
    terms(r)[0].matchExpressions[0].key = 'not a label key';
  }), '/matchExpressions/0');
  assert.deepEqual(errorsAfter('inspect_get_200', (r) => { r.body.scheduling.node_affinity = null; }), []);
  // Only affinity=1 (or a JSON body's true, which wins) puts it in.
  assert.deepEqual(errorsAfter('inspect_get_200', (r) => { delete r.body.scheduling; r.query.affinity = ['0']; }), []);
  assert.deepEqual(errorsAfter('inspect_get_200', (r) => { delete r.body.scheduling; delete r.query.affinity; }), []);
  assertRejected(errorsAfter('inspect_get_200', (r) => { r.query.affinity = ['false']; }),
    'has scheduling but the request did not ask for affinity=1');
  assertRejected(errorsAfter('inspect_get_200', (r) => {
    delete r.body.scheduling; r.query.affinity = ['0']; r.request_json = { affinity: true };
  }), "must have required property 'scheduling'");
});

test('a framing 400 on any path is the shared malformed-request answer', () => {
  // Built from a real 400 problem, moved to an endpoint that declares no 400.
  const rec = structuredClone(sample('inspect_post_400_json'));
  rec.method = 'GET';
  rec.path = '/livez';
  rec.query = {};
  rec.request_json = null;
  let r = contract.check(rec);
  assert.deepEqual(r.errors, []);
  assert.equal(r.op, 'GET /livez');
  assert.equal(r.status, '400');
  // Only the bad-request problem: another problem type with 400 is not declared there.
  const other = structuredClone(rec);
  other.body.type = 'https://pt2scope.dev/problems/not-found';
  assertRejected(contract.check(other).errors, 'GET /livez: status 400 is not declared');
  // It is still a problem document: a plain-text 400 is not.
  rec.content_type = 'text/plain';
  rec.headers['content-type'] = 'text/plain';
  rec.body_kind = 'text';
  rec.body = 'bad';
  assertRejected(contract.check(rec).errors, 'GET /livez: status 400 is not declared');
  // An endpoint that declares 400 keeps its own answer.
  r = contract.check(sample('inspect_post_400_json'));
  assert.deepEqual([r.op, r.status, r.errors], ['POST /v1/inspect', '400', []]);
});

test('a 401 unauthorized and a 403 host-not-allowed on any path are the shared access answers', () => {
  // Built from a real problem, turned into the refusals the access checks send before routing.
  const base = structuredClone(sample('inspect_post_400_json'));
  base.method = 'GET';
  base.path = '/v1/packages';
  base.query = {};
  base.request_json = null;
  const unauth = structuredClone(base);
  unauth.status = 401;
  unauth.headers['WWW-Authenticate'] = 'Bearer realm="pt2scope", error="invalid_token"';
  Object.assign(unauth.body, {
    type: 'https://pt2scope.dev/problems/unauthorized',
    title: 'A valid bearer token is required',
    status: 401,
    detail: 'the bearer token is not valid',
  });
  let r = contract.check(unauth);
  assert.deepEqual([r.op, r.status, r.errors], ['GET /v1/packages', '401', []]);
  // Unknown paths too.
  r = contract.check({ ...structuredClone(unauth), path: '/no/such/thing' });
  assert.deepEqual([r.op, r.status, r.errors], ['GET (any path)', '401', []]);
  // The challenge is one of the two declared values; the title is the type's own.
  assertRejected(contract.check({ ...structuredClone(unauth),
    headers: { ...unauth.headers, 'WWW-Authenticate': 'Basic realm="x"' } }).errors,
  'header WWW-Authenticate');
  const wrongTitle = structuredClone(unauth);
  wrongTitle.body.title = 'Go away';
  assertRejected(contract.check(wrongTitle).errors, 'GET /v1/packages -> 401: body');
  // Another problem type with 401 is not declared anywhere.
  const other = structuredClone(unauth);
  other.body.type = 'https://pt2scope.dev/problems/not-found';
  assertRejected(contract.check(other).errors, 'GET /v1/packages: status 401 is not declared');

  const host = structuredClone(base);
  host.path = '/';
  host.status = 403;
  Object.assign(host.body, {
    type: 'https://pt2scope.dev/problems/host-not-allowed',
    title: 'This server does not answer for that Host',
    status: 403,
    detail: 'this server does not answer for that Host (see --allowed-host)',
  });
  r = contract.check(host);
  assert.deepEqual([r.op, r.status, r.errors], ['GET /', '403', []]);
  // A 403 host-not-allowed carries no WWW-Authenticate.
  assertRejected(contract.check({ ...structuredClone(host),
    headers: { ...host.headers, 'WWW-Authenticate': 'Bearer realm="pt2scope"' } }).errors,
  'header WWW-Authenticate is not declared');
  // The outside-root 403 of /v1/inspect is still that operation's own answer.
  const outside = structuredClone(host);
  outside.path = '/v1/inspect';
  Object.assign(outside.body, {
    type: 'https://pt2scope.dev/problems/outside-root',
    title: 'The path is outside every model root',
  });
  r = contract.check(outside);
  assert.deepEqual([r.op, r.status, r.errors], ['GET /v1/inspect', '403', []]);
});

test('packages at URLs: package.source and the remote problems', () => {
  // A remote answer: the inspection document plus package.source.
  const remote = (mutate) => errorsAfter('inspect_get_200', (r) => {
    r.query = { url: ['https://models.example.com/export_program.pt2'], affinity: ['1'] };
    r.body.package.source = {
      url: 'https://models.example.com/export_program.pt2',
      validator: '"66f1c2a0-1a54"',
      requests: 3,
      round_trips: 3,
      bytes_transferred: 6740,
      range_requests: true,
    };
    if (mutate) mutate(r.body.package.source, r);
  });
  assert.deepEqual(remote(), []);
  assert.deepEqual(remote((s) => { s.validator = null; s.range_requests = false; }), []);
  assertRejected(remote((s) => { delete s.range_requests; }), "must have required property 'range_requests'");
  assertRejected(remote((s) => { s.round_trips = 0; }), 'must be >= 1');
  assertRejected(remote((s) => { s.headers = {}; }), "must NOT have additional properties 'headers'");
  assertRejected(remote((s) => { s.requests = 0; }), '/package/source/requests must be >= 1');

  // Each remote problem on each operation that takes a URL, with its one status and title.
  const problems = [
    ['remote-refused', 403, 'The URL is not allowed here'],
    ['remote-unreachable', 502, 'The remote server could not be read'],
    ['remote-no-range', 502, 'The remote server does not support Range requests'],
    ['remote-changed', 409, 'The remote object changed while it was read'],
    ['remote-timeout', 504, 'The remote server did not answer in time'],
  ];
  const ops = [['GET', '/v1/inspect'], ['POST', '/v1/inspect'], ['GET', '/v1/arch'], ['POST', '/v1/arch'],
    ['GET', '/v1/metadata'], ['POST', '/v1/metadata'], ['GET', '/v1/validate'],
    ['POST', '/v1/validate'], ['POST', '/v1/compatibility']];
  for (const [slug, status, title] of problems) {
    for (const [method, p] of ops) {
      const rec = structuredClone(sample('inspect_get_422'));
      Object.assign(rec, { method, path: p, status, query: { url: ['https://models.example.com/m.pt2'] } });
      Object.assign(rec.body, { type: `https://pt2scope.dev/problems/${slug}`, title, status, detail: 'x' });
      const r = contract.check(rec);
      assert.deepEqual([r.op, r.status, r.errors], [`${method} ${p}`, String(status), []], `${slug} ${method} ${p}`);
    }
    const wrong = structuredClone(sample('inspect_get_422'));
    Object.assign(wrong.body, { type: `https://pt2scope.dev/problems/${slug}`, title, status: 422, detail: 'x' });
    assertRejected(contract.check(wrong).errors, 'GET /v1/inspect -> 422: body /status must be equal to constant');
  }
  // The listing takes a bucket prefix (url=s3://B/P/): it declares the statuses of a listing
  // that fails (502, 504), but not 409: a listing has no object to change under it.
  const listing = structuredClone(sample('inspect_get_422'));
  Object.assign(listing, { path: '/v1/packages', status: 502, query: { url: ['s3://b/p/'] } });
  Object.assign(listing.body, { type: 'https://pt2scope.dev/problems/remote-unreachable',
    title: 'The remote server could not be read', status: 502, detail: 'x' });
  assert.deepEqual(contract.check(listing).errors, []);
  Object.assign(listing, { status: 409 });
  Object.assign(listing.body, { type: 'https://pt2scope.dev/problems/remote-changed',
    title: 'The remote object changed while it was read', status: 409 });
  assertRejected(contract.check(listing).errors, 'GET /v1/packages: status 409 is not declared');
});
