// page.test.mjs - the operator page at / as a person uses it, in chromium:
// drop a package, read the verdicts and the spec table, type targets, pick
// from the model root, check a shape that fails, see an error, share a URL,
// use only the keyboard, in dark mode and on a phone. Each test leaves a
// screenshot of its state in SHOTS. Exact values come from the fixtures and
// the stand-in driver's two GPUs (tests/browser/run.sh).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const FIX = 'tests/fixtures';
const TIMEOUT = 15000;
const CLI = path.join(process.env.BUILD || 'build', 'pt2scope');
// The shared corpus (real packages): tests that need one skip cleanly where it is absent.
const CORPUS = path.join(process.env.PT2SCOPE_SHARED || '../shared', 'corpus', 'pt2');

// What the CLI answers for the same question: the oracle for the page's copyable texts.
function cli(...args) {
  try {
    return execFileSync(CLI, args, { encoding: 'utf8' });
  } catch (e) {
    if (typeof e.stdout === 'string' && e.status === 1) return e.stdout; // "incompatible" is exit 1
    throw e;
  }
}

// The report's kernel table as [[target, kind, toolkit, minimum driver]].
async function kernelRows(ctx) {
  return ctx.page.$$eval('#r-kernels tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
}

// The same rows from the CLI's document: one per distinct record.
function cliKernelRows(fixture) {
  const kinds = { sass: 'SASS (cubin)', ptx: 'PTX', hsaco: 'AMD code object' };
  const rows = [];
  for (const k of JSON.parse(cli('inspect', path.join(FIX, fixture), '--json')).arch.kernels) {
    const row = [k.target, kinds[k.kind] || k.kind, k.toolkit || '–', k.min_driver ? `CUDA ${k.min_driver}` : '–'];
    if (!rows.some((r) => r.join('|') === row.join('|'))) rows.push(row);
  }
  return rows;
}

// The page's nodeAffinity and the CLI's `affinity --yaml`, but their leading comment lines
// (the CLI's second one, the Node Feature Discovery note, is not in the JSON the page reads).
function yamlBody(text) {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && lines[i].startsWith('#')) i++;
  return lines.slice(i).join('\n');
}

async function shot(ctx, name) {
  await ctx.page.screenshot({ path: path.join(ctx.env.shots, `${name}.png`), fullPage: true });
}

async function open(ctx, query) {
  await ctx.page.goto(new URL(query || '', ctx.env.base).href);
  await ctx.page.waitForSelector('body[data-ready="true"]', { timeout: TIMEOUT });
}

// Drop the file at `file` on the drop zone as a browser drag and drop does: a File in a DataTransfer.
async function dropFile(ctx, file) {
  const b64 = fs.readFileSync(file).toString('base64');
  await ctx.page.evaluate(([name, data]) => {
    const raw = atob(data);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
    const zone = document.getElementById('dropzone');
    zone.dispatchEvent(new DragEvent('dragenter', { bubbles: true, cancelable: true, dataTransfer: dt }));
    zone.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
  }, [path.basename(file), b64]);
}

async function drop(ctx, fixture) {
  await dropFile(ctx, path.join(FIX, fixture));
}

async function reportFor(ctx, name) {
  await ctx.page.waitForFunction((n) => {
    const r = document.getElementById('report');
    return !r.hidden && document.getElementById('r-name').textContent === n && !r.hasAttribute('aria-busy');
  }, name, { timeout: TIMEOUT });
}

// The GPU table as [{device, where, arch, verdict, reason}] (verdict: the badge's data-verdict).
async function gpuRows(ctx) {
  return ctx.page.$$eval('#r-gpus tbody tr', (trs) => trs.map((tr) => ({
    device: tr.querySelector('.dev') ? tr.querySelector('.dev').textContent : tr.textContent,
    where: tr.cells[1] ? tr.cells[1].textContent : '',
    arch: tr.cells[2] ? tr.cells[2].textContent : '',
    verdict: tr.querySelector('[data-verdict]') ? tr.querySelector('[data-verdict]').dataset.verdict : '',
    reason: tr.querySelector('td.reason') ? tr.querySelector('td.reason').firstChild.textContent : '',
  })));
}

async function specRows(ctx, model, caption) {
  return ctx.page.$$eval(`[data-model="${model}"] table.specs`, (tables, cap) => {
    const t = tables.find((x) => x.caption.textContent === cap);
    return [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent));
  }, caption);
}

async function waitRows(ctx, n) {
  await ctx.page.waitForFunction((k) => document.querySelectorAll('#packages tbody tr').length === k,
    n, { timeout: TIMEOUT });
}

// The model root's packages, its torch/ folder (torch's own output) included; the page lists
// them 50 at a time, and "More" fetches the rest.
const FIXTURE_COUNT = [FIX, path.join(FIX, 'torch')]
  .map((d) => fs.readdirSync(d).filter((f) => f.endsWith('.pt2')).length)
  .reduce((a, b) => a + b, 0);
const FIRST_PAGE = Math.min(FIXTURE_COUNT, 50);
const LISTED = FIRST_PAGE === FIXTURE_COUNT ? `${FIXTURE_COUNT} packages` : `${FIRST_PAGE} of ${FIXTURE_COUNT} packages`;

export const pageTests = [
  ['loads / with the model root listing and no remote field', async (ctx) => {
    await open(ctx);
    await waitRows(ctx, FIRST_PAGE);
    assert.equal(await ctx.page.title(), 'pt2scope');
    assert.match(await ctx.page.textContent('#version'), /^pt2scoped \d+\.\d+\.\d+$/);
    assert.equal(await ctx.page.textContent('#picker-status'), LISTED);
    if (FIRST_PAGE < FIXTURE_COUNT) { // the next page, appended
      await ctx.page.click('#more');
      await waitRows(ctx, FIXTURE_COUNT);
      assert.equal(await ctx.page.textContent('#picker-status'), `${FIXTURE_COUNT} packages`);
      assert.equal(await ctx.page.isVisible('#more'), false);
    }
    // Remote packages do not exist yet: /v1/version has no remote flag, so no URL field.
    assert.equal(await ctx.page.isVisible('#url-form'), false);
    assert.equal(await ctx.page.isVisible('#report'), false);
    const row = await ctx.page.$$eval('#packages tbody tr[data-name="cuda_fatbin_multi.pt2"] td',
      (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(row.slice(0, 3), ['aoti', 'sm_75, sm_80, sm_90a, sm_100f, sm_120+PTX, compute_90', '1']);
    const bad = await ctx.page.textContent('#packages tbody tr[data-name="broken_not_zip.pt2"] .badge');
    assert.equal(bad, 'not-a-zip');
    await shot(ctx, '01-start');
  }],

  ['drop a package: verdict cells for this node\'s GPUs and the spec table', async (ctx) => {
    await open(ctx);
    await drop(ctx, 'cuda_sm90a_v8.pt2');
    await reportFor(ctx, 'cuda_sm90a_v8.pt2');
    const rows = await gpuRows(ctx);
    assert.deepEqual(rows, [
      { device: 'cuda:0', where: 'this node', arch: 'CC 9.0', verdict: 'compatible',
        reason: 'sm_90a cubin runs on NVIDIA H100 80GB HBM3 (cuda:0)' },
      { device: 'cuda:1', where: 'this node', arch: 'CC 8.0', verdict: 'incompatible',
        reason: 'kernels are sm_90a only; NVIDIA A100-SXM4-40GB (cuda:1) is 8.0' },
    ]);
    assert.deepEqual(await ctx.page.$$eval('#r-chips li', (lis) => lis.map((l) => l.textContent)), ['sm_90a']);
    assert.deepEqual(await specRows(ctx, 'model', 'Inputs'), [
      ['image', 'float32', '(B, 3, 512, 512)', 'axis 0: B'],
      ['scale', 'float32', '(B)', 'axis 0: B'],
    ]);
    assert.deepEqual(await specRows(ctx, 'model', 'Outputs'), [['mask', 'float32', '(B, 1, 512, 512)', 'axis 0: B']]);
    assert.match(await ctx.page.textContent('#bytes'), /^Read [\d,]+ bytes of headers/);
    // The upload streamed (nothing in it is big enough to drop).
    assert.match(await ctx.page.textContent('#bytes'), / The upload was inspected as it streamed: 33 KiB kept\.$/);
    // An upload cannot be shared: no path in the URL.
    assert.equal(new URL(ctx.page.url()).searchParams.get('path'), null);
    // The drop zone names what was dropped.
    assert.equal(await ctx.page.textContent('#chosen'), 'Chosen: cuda_sm90a_v8.pt2 (33 KiB)');
    assert.equal(await ctx.page.isVisible('#chosen'), true);
    // The kernel table: target, kind, toolkit, the driver it needs (a CUDA 13 cubin).
    assert.deepEqual(await kernelRows(ctx), [['sm_90a', 'SASS (cubin)', '13.0', 'CUDA 13.0']]);
    assert.deepEqual(await kernelRows(ctx), cliKernelRows('cuda_sm90a_v8.pt2'));
    // The CLI's question and the nodeAffinity, as the CLI prints them.
    assert.equal(await ctx.page.textContent('#r-check'), 'pt2scope check cuda_sm90a_v8.pt2');
    const yaml = await ctx.page.textContent('#r-affinity');
    assert.equal(yaml.split('\n')[0], '# pt2scope affinity cuda_sm90a_v8.pt2: the nodes it runs on, by their GPU Feature Discovery labels');
    assert.equal(yamlBody(yaml), yamlBody(cli('affinity', path.join(FIX, 'cuda_sm90a_v8.pt2'), '--yaml')));
    // Metadata as a table: the author's model_metadata.json entries, then torch's AOTI keys.
    const meta = await ctx.page.$$eval('#r-usermeta tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const doc = JSON.parse(cli('inspect', path.join(FIX, 'cuda_sm90a_v8.pt2'), '--json')).metadata;
    assert.deepEqual(meta, [
      ...Object.entries(doc.raw).filter(([k]) => !['model', 'inputs', 'outputs'].includes(k)).map(([k, v]) => [k, String(v), doc.source]),
      ...Object.entries(doc.aoti).map(([k, v]) => [k, v, 'torch (AOTI metadata)'])]);
    assert.deepEqual(meta[0], ['framework', 'torch 2.9', 'extra/model_metadata.json']);
    assert.ok(meta.some((r) => r[0] === 'AOTI_COMPUTE_CAPABILITY' && r[1] === '90'));
    await shot(ctx, '02-dropped-report');
  }],

  ['type targets and see their verdicts appear, with reasons', async (ctx) => {
    await open(ctx, '?path=cuda_sm90a_v8.pt2');
    await reportFor(ctx, 'cuda_sm90a_v8.pt2');
    await ctx.page.fill('#targets', 'B200, 9.0');
    await ctx.page.waitForSelector('#r-gpus tr[data-target="B200"]', { timeout: TIMEOUT });
    const rows = await gpuRows(ctx);
    assert.deepEqual(rows.slice(0, 2), [
      { device: 'B200', where: 'typed target', arch: 'CC 10.0', verdict: 'incompatible',
        reason: 'kernels are sm_90a only; NVIDIA B200 is 10.0' },
      { device: '9.0', where: 'typed target', arch: 'CC 9.0', verdict: 'compatible',
        reason: 'sm_90a cubin runs on compute capability 9.0; compatible if the driver supports CUDA 13.0 (branch 580 or newer): the cubin is CUDA 13 (ELF ABI v8) and the driver version is unknown; compatible if the node\'s CPU has avx512f, avx512dq, avx512vl, avx512bw, fma (a target names no CPU)' },
    ]);
    assert.equal(await ctx.page.getAttribute('#r-overall', 'data-verdict'), 'incompatible');
    assert.equal(await ctx.page.textContent('#r-overall .reason'), 'B200: kernels are sm_90a only; NVIDIA B200 is 10.0');
    const q = new URL(ctx.page.url()).searchParams;
    assert.deepEqual([q.get('path'), ...q.getAll('target')], ['cuda_sm90a_v8.pt2', 'B200', '9.0']);
    // The command line follows the typed targets.
    await ctx.page.waitForFunction(() => document.getElementById('r-check').textContent.includes('--target 9.0'), null, { timeout: TIMEOUT });
    assert.equal(await ctx.page.textContent('#r-check'), 'pt2scope check cuda_sm90a_v8.pt2 --target B200 --target 9.0');
    // The listing carries the same targets' overall.
    await ctx.page.waitForSelector('#packages.with-verdicts', { timeout: TIMEOUT });
    await shot(ctx, '03-typed-targets');
    // A target that means nothing: said next to the field, the report stays.
    await ctx.page.fill('#targets', 'B200, H999');
    await ctx.page.waitForSelector('#targets-error:not([hidden])', { timeout: TIMEOUT });
    assert.match(await ctx.page.textContent('#targets-error'), /H999/);
    assert.equal(await ctx.page.getAttribute('#targets', 'aria-invalid'), 'true');
    assert.equal(await ctx.page.isVisible('#report'), true);
    // The listing stays, without verdicts.
    await ctx.page.waitForSelector('#packages:not(.with-verdicts) tbody tr', { timeout: TIMEOUT });
    assert.equal(await ctx.page.textContent('#picker-status'), LISTED);
    await shot(ctx, '04-bad-target');
  }],

  ['pick a package from the listing', async (ctx) => {
    await open(ctx);
    await waitRows(ctx, FIRST_PAGE);
    // The filter matches any part of the name, not only its start.
    const v7 = fs.readdirSync(FIX).filter((f) => f.endsWith('.pt2') && f.includes('_v7')).sort();
    await ctx.page.fill('#filter', '_v7');
    await waitRows(ctx, v7.length);
    assert.deepEqual(await ctx.page.$$eval('#packages tbody tr', (trs) => trs.map((tr) => tr.dataset.name)), v7);
    assert.equal(await ctx.page.textContent('#picker-status'), `${v7.length} packages`);
    await ctx.page.fill('#filter', 'model.pt');
    await waitRows(ctx, 1);
    // Anywhere on the row picks it, not only the name.
    await ctx.page.click('#packages tr[data-name="multi_model.pt2"] td.col-size');
    await reportFor(ctx, 'multi_model.pt2');
    assert.deepEqual(await ctx.page.$$eval('#r-models [data-model]', (s) => s.map((x) => x.dataset.model)), ['model', 'model2']);
    assert.deepEqual(await ctx.page.$$eval('#r-chips li', (lis) => lis.map((l) => l.textContent)), ['sm_90a', 'sm_80']);
    assert.equal(new URL(ctx.page.url()).searchParams.get('path'), 'multi_model.pt2');
    assert.equal(await ctx.page.getAttribute('#packages tr[data-name="multi_model.pt2"]', 'aria-current'), 'true');
    await shot(ctx, '05-picked');
  }],

  ['a shape that fails: every violation next to its input', async (ctx) => {
    await open(ctx, '?path=cuda_sm90a_v8.pt2');
    await reportFor(ctx, 'cuda_sm90a_v8.pt2');
    assert.equal(await ctx.page.inputValue('#v-inputs [data-input="image"] input'), '1,3,512,512');
    await ctx.page.fill('#v-inputs [data-input="image"] input', '8,3,511,512');
    await ctx.page.fill('#v-inputs [data-input="scale"] input', '8,2');
    await ctx.page.click('#validate-form button[type="submit"]');
    await ctx.page.waitForSelector('#v-result[data-valid="false"]', { timeout: TIMEOUT });
    assert.equal(await ctx.page.textContent('#v-result'), 'invalid: 2 problems');
    assert.equal(await ctx.page.textContent('#v-inputs [data-input="image"] .error'), "input 'image' axis 2: expected 512, got 511");
    assert.equal(await ctx.page.textContent('#v-inputs [data-input="scale"] .error'), "input 'scale': expected 1 dimension (B), got 2");
    await shot(ctx, '06-invalid-shape');
    await ctx.page.fill('#v-inputs [data-input="image"] input', '8,3,512,512');
    await ctx.page.fill('#v-inputs [data-input="scale"] input', '8');
    await ctx.page.click('#validate-form button[type="submit"]');
    await ctx.page.waitForSelector('#v-result[data-valid="true"]', { timeout: TIMEOUT });
    assert.equal(await ctx.page.textContent('#v-result'), 'valid');
    assert.equal(await ctx.page.isVisible('#v-inputs [data-input="image"] .error'), false);
  }],

  ['error states: a file that is not a zip, a name that is not there', async (ctx) => {
    await open(ctx);
    await drop(ctx, 'broken_not_zip.pt2');
    await ctx.page.waitForSelector('#state .problem', { timeout: TIMEOUT });
    assert.equal(await ctx.page.getAttribute('#state .problem', 'data-type'), 'not-a-zip');
    assert.equal(await ctx.page.textContent('#state .problem h2'), 'The file is not a zip archive');
    assert.equal(await ctx.page.textContent('#state .problem .detail'), 'not a zip archive (no end-of-central-directory record)');
    assert.equal(await ctx.page.getAttribute('#state .problem', 'role'), 'alert');
    assert.equal(await ctx.page.isVisible('#report'), false);
    await shot(ctx, '07-error-not-a-zip');
    await open(ctx, '?path=missing.pt2');
    await ctx.page.waitForSelector('#state .problem[data-type="not-found"]', { timeout: TIMEOUT });
    assert.equal(await ctx.page.textContent('#state .problem .detail'), "no package 'missing.pt2' under any model root");
    await open(ctx, '?path=torch_save_checkpoint.pt2');
    await ctx.page.waitForSelector('#state .problem[data-type="torch-save-checkpoint"]', { timeout: TIMEOUT });
    assert.match(await ctx.page.textContent('#state .problem .hint'), /torch\.load/);
  }],

  ['a shared URL opens the same answer', async (ctx) => {
    await open(ctx, '?path=cuda_fatbin_v7_lz4.pt2&target=B200&driver=13.0');
    await reportFor(ctx, 'cuda_fatbin_v7_lz4.pt2');
    assert.equal(await ctx.page.inputValue('#targets'), 'B200');
    assert.equal(await ctx.page.inputValue('#driver'), '13.0');
    const rows = await gpuRows(ctx);
    assert.equal(rows[0].device, 'B200');
    assert.equal(rows[0].verdict, 'compatible-ptx-jit');
    // The chips read as the listing's row does (sm_90+PTX, not sm_90 and compute_90).
    const chips = await ctx.page.$$eval('#r-chips li', (lis) => lis.map((l) => l.textContent));
    assert.deepEqual(chips, ['sm_75', 'sm_90+PTX', 'sm_90a+PTX']);
    await ctx.page.waitForSelector('#packages tr[data-name="cuda_fatbin_v7_lz4.pt2"]', { timeout: TIMEOUT });
    assert.equal(chips.join(', '), await ctx.page.textContent('#packages tr[data-name="cuda_fatbin_v7_lz4.pt2"] td:nth-of-type(2)'));
    assert.deepEqual(await kernelRows(ctx), cliKernelRows('cuda_fatbin_v7_lz4.pt2'));
    assert.deepEqual((await kernelRows(ctx)).map((r) => r[3]), ['–', '–', '–', 'CUDA 12.4', 'CUDA 12.4']);
    assert.equal(await ctx.page.textContent('#r-check'), 'pt2scope check cuda_fatbin_v7_lz4.pt2 --target B200 --driver 13.0');
  }],

  ['a node without a GPU: the one-line cause, advice with its command as code', async (ctx) => {
    // The /docs daemon of run.sh has no driver at all.
    await ctx.page.goto(new URL('?path=cuda_sm90a_v8.pt2', ctx.env.docs).href);
    await ctx.page.waitForSelector('body[data-ready="true"]', { timeout: TIMEOUT });
    await reportFor(ctx, 'cuda_sm90a_v8.pt2');
    assert.equal(await ctx.page.getAttribute('#r-overall', 'data-verdict'), 'incompatible');
    assert.equal(await ctx.page.textContent('#r-overall .reason'),
      'the package needs an NVIDIA GPU (sm_90a); this node has none: no NVIDIA driver installed (/nonexistent/pt2scope/libcuda.so.1 not found)');
    assert.equal(await ctx.page.textContent('#r-overall .advice code'), 'pt2scope affinity FILE');
    assert.ok(!(await ctx.page.textContent('#r-overall .advice')).includes('`'), 'literal backticks in the advice');
    await shot(ctx, '12-no-gpu-node');
  }],

  ['user metadata as a table (mlcolvar n_cvs, from the shared corpus)', async (ctx) => {
    const file = path.join(CORPUS, 'mlcolvar__descriptor_based_inputs_model.pt2');
    if (!fs.existsSync(file)) return; // the shared corpus is not here
    await open(ctx);
    await dropFile(ctx, file);
    await reportFor(ctx, path.basename(file));
    const rows = await ctx.page.$$eval('#r-usermeta tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const aoti = JSON.parse(cli('inspect', file, '--json')).metadata.aoti;
    const own = Object.keys(aoti).filter((k) => !k.startsWith('AOTI_'));
    // The model's own keys first, each with its value, then torch's.
    assert.deepEqual(rows.slice(0, own.length), own.map((k) => [k, aoti[k], 'the model (AOTI metadata)']));
    assert.deepEqual(rows.find((r) => r[0] === 'n_cvs'), ['n_cvs', '2', 'the model (AOTI metadata)']);
    assert.deepEqual(rows[rows.length - 1], ['AOTI_DEVICE_KEY', 'cpu', 'torch (AOTI metadata)']);
    await shot(ctx, '13-user-metadata');
  }],

  ['runtimes: the Runtime card says whether the library loads there, as the CLI does', async (ctx) => {
    const rowsOf = () => ctx.page.$$eval('#r-runtimes tbody tr', (trs) => trs.map((tr) =>
      ({ runtime: tr.cells[0].textContent, verdict: tr.querySelector('.badge') && tr.querySelector('.badge').dataset.verdict,
         reason: tr.querySelector('.reason') ? tr.querySelector('.reason').firstChild.textContent : tr.textContent })));
    // A fixture from the model root: its tiny library needs nothing RHEL 8 lacks.
    await open(ctx, '?path=cpu_x86_64.pt2&runtime=rhel8');
    await reportFor(ctx, 'cpu_x86_64.pt2');
    assert.equal(await ctx.page.inputValue('#runtimes'), 'rhel8');
    const want = JSON.parse(cli('check', path.join(FIX, 'cpu_x86_64.pt2'), '--target', 'H100', '--runtime', 'rhel8', '--json'))
      .compatibility.filter((e) => e.kind === 'runtime');
    assert.deepEqual(await rowsOf(), want.map((e) => ({ runtime: e.target, verdict: e.verdict, reason: e.reason })));
    assert.equal(await ctx.page.textContent('#r-check'), 'pt2scope check cpu_x86_64.pt2 --runtime rhel8');
    // The GPU table keeps to GPUs and targets.
    assert.ok((await gpuRows(ctx)).every((r) => r.device !== 'rhel8'));
    // A Windows library with a delay-load directory (Makefile: win_delay.pt2, where lld-link is).
    const win = path.join(process.env.BUILD || 'build', 'fixtures', 'win', 'win_delay.pt2');
    if (fs.existsSync(win)) {
      await dropFile(ctx, win);
      await reportFor(ctx, 'win_delay.pt2');
      const rows = await ctx.page.$$eval('#r-needs dt', (dts) => dts.map((d) => `${d.textContent}: ${d.nextElementSibling.textContent}`));
      assert.deepEqual(rows.filter((r) => /^(Links|Delay-loaded|torch):/.test(r)), ['torch: 2.10 or newer: aoti_torch_aten_full',
        'Links: KERNEL32.dll, torch_cpu.dll', 'Delay-loaded: torch_cpu.dll']);
    }
    // A real package from the shared corpus: needs the CLI names, refused where they fail.
    const file = path.join(CORPUS, 'mlcolvar__descriptor_based_inputs_model.pt2');
    if (!fs.existsSync(file)) return; // the shared corpus is not here
    await ctx.page.fill('#runtimes', 'debian12,torch=2.6 rhel8 ubuntu24.04,torch=2.9');
    await ctx.page.waitForFunction(() => new URLSearchParams(location.search).getAll('runtime').length === 3, null, { timeout: TIMEOUT });
    await dropFile(ctx, file);
    await reportFor(ctx, path.basename(file));
    await ctx.page.waitForFunction(() => document.querySelectorAll('#r-runtimes tbody tr[data-kind="runtime"]').length === 3, null, { timeout: TIMEOUT });
    const real = JSON.parse(cli('check', file, '--target', 'H100', '--runtime', 'debian12,torch=2.6', '--runtime', 'rhel8',
      '--runtime', 'ubuntu24.04,torch=2.9', '--json')).compatibility.filter((e) => e.kind === 'runtime');
    assert.deepEqual(await rowsOf(), real.map((e) => ({ runtime: e.target, verdict: e.verdict, reason: e.reason })));
    assert.deepEqual(real.map((e) => e.verdict), ['incompatible', 'incompatible', 'compatible']);
    const needs = await ctx.page.$$eval('#r-needs dt', (dts) => dts.map((d) => `${d.textContent}: ${d.nextElementSibling.textContent}`));
    assert.deepEqual(needs.slice(0, 3), ['glibc: 2.27 or newer', 'libstdc++: GLIBCXX 3.4.30, CXXABI 1.3.9',
      'torch: 2.7 or newer (surely from 2.9): aoti_torch_new_tensor_handle']);
    await shot(ctx, '14-runtime');
  }],

  ['keyboard only: tab to the targets, type, Enter', async (ctx) => {
    await open(ctx, '?path=cpu_x86_64.pt2');
    await reportFor(ctx, 'cpu_x86_64.pt2');
    let reached = false;
    for (let i = 0; i < 200 && !reached; i++) {
      await ctx.page.keyboard.press('Tab');
      reached = await ctx.page.evaluate(() => document.activeElement && document.activeElement.id === 'targets');
    }
    assert.ok(reached, 'Tab never reached the targets field');
    // The file picker is in the tab order too (its label shows the focus).
    const order = await ctx.page.evaluate(() => [...document.querySelectorAll('input, button, a[href]')]
      .filter((e) => e.tabIndex >= 0 && !e.closest('[hidden]')).map((e) => e.id).filter(Boolean));
    assert.ok(order.indexOf('file') >= 0 && order.indexOf('file') < order.indexOf('targets'));
    await ctx.page.keyboard.type('H100');
    await ctx.page.keyboard.press('Enter');
    await ctx.page.waitForSelector('#r-gpus tr[data-target="H100"]', { timeout: TIMEOUT });
    const rows = await gpuRows(ctx);
    assert.equal(rows[0].verdict, 'compatible');
    assert.equal(rows[0].reason, 'CPU-only package (AOTI_DEVICE_KEY cpu): runs on the host CPU, needs no GPU; compatible if the node\'s CPU has avx512f, avx512dq, avx512vl, avx512bw, fma (a target names no CPU)');
    assert.deepEqual(await ctx.page.$$eval('#r-chips li', (lis) => lis.map((l) => l.textContent)), ['cpu x86_64 AVX-512']);
    await shot(ctx, '08-keyboard-cpu');
  }],

  ['dark theme from the system setting', async (ctx) => {
    await open(ctx, '?path=rocm_gfx90a.pt2&target=MI300X&target=gfx90a');
    await reportFor(ctx, 'rocm_gfx90a.pt2');
    const bg = await ctx.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(17, 20, 24)');
    const rows = await gpuRows(ctx);
    assert.deepEqual(rows.slice(0, 2).map((r) => [r.device, r.arch, r.verdict]),
      [['MI300X', 'gfx942', 'incompatible'], ['gfx90a', 'gfx90a', 'compatible']]);
    await shot(ctx, '09-dark');
  }, { colorScheme: 'dark' }],

  ['/docs/ leads to the reference; every operation shows once; nothing it asks for fails', async (ctx) => {
    const spec = await fetch(new URL('openapi.json', ctx.env.base));
    if (spec.status === 404) return; // a daemon built without npm has no /docs
    const failed = [];
    ctx.page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
    ctx.page.on('requestfailed', (r) => failed.push(`failed ${r.url()}`));
    await ctx.page.goto(new URL('docs/', ctx.env.base).href);
    await ctx.page.waitForSelector('.opblock', { timeout: TIMEOUT });
    assert.equal(new URL(ctx.page.url()).pathname, '/docs');
    const ops = await ctx.page.$$eval('.opblock', (els) => els.map((e) =>
      `${e.querySelector('.opblock-summary-method').textContent} ${e.querySelector('.opblock-summary-path').dataset.path}`));
    assert.deepEqual(ops.filter((o) => o === 'GET /v1/packages'), ['GET /v1/packages']);
    assert.equal(new Set(ops).size, ops.length, `listed twice: ${ops.filter((o, i) => ops.indexOf(o) !== i)}`);
    assert.ok(ops.length >= 15, `only ${ops.length} operations rendered`);
    await ctx.page.waitForLoadState('load');
    assert.deepEqual(failed, []);
    await shot(ctx, '11-docs');
  }],

  ['2025-2026 layouts: every library, the loaded one marked; a C++-only build; pickles and ExecuTorch', async (ctx) => {
    await open(ctx, '?path=two_libraries.pt2');
    await reportFor(ctx, 'two_libraries.pt2');
    const rows = await ctx.page.$$eval('[data-model="model"] table.libraries tbody tr',
      (trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[2].textContent, tr.dataset.loaded]));
    const libs = JSON.parse(cli('inspect', path.join(FIX, 'two_libraries.pt2'), '--json')).models[0].libraries;
    assert.deepEqual(rows, libs.map((l) => [l.entry.split('/').pop(), l.machine, String(l.loaded)]));
    assert.deepEqual(rows.map((r) => r[2]), ['false', 'true']);
    await open(ctx, '?path=cpp_only.pt2');
    await reportFor(ctx, 'cpp_only.pt2');
    assert.equal(await ctx.page.textContent('[data-model="model"] .model-build'),
      'C++ sources only (CMake target aoti_model): it must be compiled on the target before it can load.');
    assert.equal(await ctx.page.$$eval('[data-model="model"] table.libraries', (t) => t.length), 0);
    await open(ctx, '?path=executorch_pickles.pt2');
    await reportFor(ctx, 'executorch_pickles.pt2');
    assert.deepEqual(await ctx.page.$$eval('#r-extras li', (lis) => lis.map((l) => [l.dataset.kind, l.textContent])), [
      ['executorch', 'ExecuTorch program model.pte (64 B)'],
      ['pickle', 'Pickle data/constants/custom_obj_0 (custom_obj): loading it executes code']]);
    assert.equal(await ctx.page.textContent('[data-model="model"] .model-needs li'),
      'Custom operators (proxy executor, 3 nodes): preprocess::tile_crop, mylib::fused_op');
    await open(ctx, '?path=weights_blob.pt2');
    await reportFor(ctx, 'weights_blob.pt2');
    assert.equal(await ctx.page.isVisible('#r-extras'), false);
    assert.match(await ctx.page.textContent('[data-model="model"] .model-needs li'), /^Weights: binary-blob, 1 entry, 8(\.0)? KiB stored$/);
  }],

  ['a phone: one column, nothing wider than the screen', async (ctx) => {
    await open(ctx, '?path=cuda_fatbin_multi.pt2&target=H100');
    await reportFor(ctx, 'cuda_fatbin_multi.pt2');
    const overflow = await ctx.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
    // Long names wrap between their words (after / _ - .), never inside one: in a column
    // narrower than most names (as a long model root path makes it), every part stays whole.
    await ctx.page.waitForSelector('#packages tbody tr', { timeout: TIMEOUT });
    await ctx.page.addStyleTag({ content: '#packages tbody th { width: 9rem; max-width: 9rem; }' });
    const cut = await ctx.page.$$eval('#packages button.link', (buttons) => buttons.flatMap((b) =>
      [...b.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).filter((n) => {
        const r = document.createRange();
        r.selectNodeContents(n);
        return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1;
      }).map((n) => `${b.dataset.path}: ${n.textContent}`)));
    assert.deepEqual(cut, []);
    const wrapped = await ctx.page.$$eval('#packages button.link', (buttons) => buttons.filter((b) => b.getClientRects().length > 0 && b.getBoundingClientRect().height > 30).length);
    assert.ok(wrapped > 0, 'no name needed to wrap: the check above proves nothing');
    const bg = await ctx.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(246, 247, 249)');
    await shot(ctx, '10-phone');
  }, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, colorScheme: 'light' }],
];
