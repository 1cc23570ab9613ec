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
  assertRejected(errorsAfter('inspect_get_200', (r) => {
    const gpu = r.body.compatibility.find((c) => c.kind === 'gpu');
    delete gpu.device.uuid;
  }), "must have required property 'uuid'");
  assertRejected(errorsAfter('inspect_get_200', (r) => {
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
