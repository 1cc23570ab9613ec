// pt2scope operator page: drop a .pt2 (or pick one under the model root) and
// read the report: targets, verdicts per GPU and typed target, CPU needs,
// models and their tensor specs, metadata, warnings; check input shapes.
//
// Plain JavaScript, no build step, no third-party code: the daemon serves
// this file from memory (service/daemon/pt2d_page.h). Every URL is relative,
// so the page also works behind a path prefix. Text from packages is only
// ever set with textContent, never parsed as HTML.
//
// State that can be shared lives in the URL: ?path=NAME&target=T&target=U
// (&driver=X.Y). An upload cannot be shared; the URL then keeps the targets.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const PAGE_SIZE = 50;
  const DEBOUNCE_MS = 350;

  // What to tell a person for each problem type (the slug of its `type` URL).
  const HINTS = {
    'not-a-zip': 'A .pt2 package is a zip archive; this file is not one. Was the right file picked?',
    truncated: 'The archive is cut short or damaged. Copy or download it again.',
    'not-a-pt2': 'This is a zip archive, but not a PyTorch .pt2 package (no package marker).',
    'torch-save-checkpoint': 'This is a torch.save checkpoint: load it with torch.load, not as an AOTInductor package.',
    unsupported: 'pt2scope recognises this package but does not support its form yet.',
    'metadata-invalid': 'A metadata document inside the package is malformed.',
    'too-large': 'The file or a structure inside it is over a size limit of this server.',
    'outside-root': 'That path leaves the model root; pick a package from the list.',
    'not-found': 'There is no such package under the model root (any more).',
    'bad-request': 'The request was not understood; check the targets and shapes.',
    'unsupported-media-type': 'The upload was not sent as a file.',
    overloaded: 'The server is busy. Try again in a moment.',
    unreadable: 'The server could not read the file.',
    internal: 'The server failed; its log has the details.',
    network: 'The server could not be reached.',
  };

  const state = {
    path: null, // a package under the model root
    file: null, // or an uploaded File
    report: null,
    targets: [],
    driver: '',
    runtimes: [],
    cursor: null,
    listSeq: 0,
    inspectSeq: 0,
  };

  // ---- small DOM helpers ---------------------------------------------------

  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function bytes(n) {
    if (typeof n !== 'number') return '–';
    if (n < 1024) return `${n} B`;
    const units = ['KiB', 'MiB', 'GiB', 'TiB'];
    let v = n / 1024;
    let i = 0;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
  }

  function slugOf(problem) {
    const t = problem && typeof problem.type === 'string' ? problem.type : '';
    return t.slice(t.lastIndexOf('/') + 1) || 'internal';
  }

  function verdictBadge(verdict, extra) {
    const words = {
      compatible: 'compatible',
      'compatible-ptx-jit': 'compatible (PTX JIT)',
      unverified: 'unverified',
      incompatible: 'incompatible',
    };
    return el('span', { class: `badge v-${verdict || 'none'}`, 'data-verdict': verdict || '' },
      words[verdict] || verdict || '–', extra || null);
  }

  // Text from the library, where `backticks` mark commands and code (advice names
  // `pt2scope affinity FILE` so): shown as code, never parsed as HTML.
  function richText(text) {
    const parts = String(text || '').split('`');
    const frag = document.createDocumentFragment();
    parts.forEach((p, i) => {
      const code = i % 2 === 1 && (parts.length % 2 === 1 || i < parts.length - 1);
      if (code) frag.append(el('code', { text: p }));
      else if (p) frag.append(document.createTextNode(i % 2 === 1 ? `\`${p}` : p));
    });
    return frag;
  }

  // A package name that may wrap between its words (after / _ - .), never inside one.
  function breakable(name) {
    const frag = document.createDocumentFragment();
    for (const part of String(name).split(/(?<=[/_.-])/)) frag.append(part, el('wbr'));
    return frag;
  }

  // ---- shell and YAML for "run it elsewhere" --------------------------------

  function shellWord(s) {
    const t = String(s);
    return /^[A-Za-z0-9_./:=+,@%-]+$/.test(t) ? t : `'${t.replace(/'/g, "'\\''")}'`;
  }

  // The CLI's own question for the page's current state: the package and the typed targets.
  function checkCommand(name) {
    const words = ['pt2scope', 'check', name];
    for (const t of state.targets) words.push('--target', t);
    for (const r of state.runtimes) words.push('--runtime', r);
    if (state.driver) words.push('--driver', state.driver);
    return words.map(shellWord).join(' ');
  }

  // The nodeAffinity as `pt2scope affinity FILE --yaml` prints it (service/cli/cli_yaml.c):
  // block mappings, sequences of mappings as "- key:", scalar sequences in flow style,
  // every scalar a JSON literal (a valid YAML double-quoted scalar).
  const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isScalar = (v) => v === null || typeof v !== 'object';

  function yamlSeq(arr, col, out, depth) {
    if (arr.length === 0 || arr.every(isScalar)) {
      out.push(` [${arr.map((x) => JSON.stringify(x)).join(', ')}]\n`);
      return;
    }
    out.push('\n');
    for (const it of arr) {
      if (isMap(it) && Object.keys(it).length > 0) yamlMap(it, col, true, out, depth + 1);
      else out.push(`${' '.repeat(col)}- ${isScalar(it) ? JSON.stringify(it) : Array.isArray(it) ? '[]' : '{}'}\n`);
    }
  }

  function yamlMap(obj, indent, dash, out, depth) {
    const col = indent + (dash ? 2 : 0);
    if (depth > 32) return;
    Object.entries(obj).forEach(([k, v], i) => {
      out.push(dash && i === 0 ? `${' '.repeat(indent)}- ${k}:` : `${' '.repeat(col)}${k}:`);
      if (isMap(v) && Object.keys(v).length > 0) {
        out.push('\n');
        yamlMap(v, col + 2, false, out, depth + 1);
      } else if (isMap(v)) {
        out.push(' {}\n');
      } else if (Array.isArray(v)) {
        yamlSeq(v, col, out, depth);
      } else {
        out.push(` ${JSON.stringify(v)}\n`);
      }
    });
  }

  function affinityYaml(nodeAffinity, name) {
    const shown = String(name).replace(/[\u0000-\u001f\u007f]/g, '?');
    const out = [`# pt2scope affinity ${shown}: the nodes it runs on, by their GPU Feature Discovery labels\n`,
      'affinity:\n  nodeAffinity:\n'];
    yamlMap(nodeAffinity, 4, false, out, 0);
    return out.join('');
  }

  // ---- talking to the API --------------------------------------------------

  // fetch + JSON; a problem document (or no answer) becomes {problem}.
  async function api(url, init) {
    let res;
    try {
      res = await fetch(url, init);
    } catch (e) {
      return { problem: { type: 'network', title: 'No answer from the server', detail: String(e) } };
    }
    let body = null;
    try {
      body = await res.json();
    } catch (e) {
      body = null;
    }
    if (!res.ok) {
      return { problem: body && body.type ? body : { type: 'internal', title: `HTTP ${res.status}`, detail: '' } };
    }
    return { body };
  }

  function targetParams(params) {
    for (const t of state.targets) params.append('target', t);
    for (const r of state.runtimes) params.append('runtime', r);
    if (state.driver) params.set('driver', state.driver);
    return params;
  }

  // ---- URL state -----------------------------------------------------------

  function readUrl() {
    const q = new URLSearchParams(location.search);
    state.path = q.get('path');
    state.targets = q.getAll('target').flatMap(splitTargets);
    state.driver = q.get('driver') || '';
    state.runtimes = q.getAll('runtime').flatMap(splitRuntimes);
    $('targets').value = state.targets.join(', ');
    $('driver').value = state.driver;
    $('runtimes').value = state.runtimes.join(' ');
  }

  function writeUrl() {
    const q = new URLSearchParams();
    if (state.path) q.set('path', state.path);
    targetParams(q);
    const s = q.toString();
    history.replaceState(null, '', s ? `?${s}` : location.pathname);
  }

  // Runtime specs hold commas ("ubuntu22.04,torch=2.8"): several are separated by spaces.
  function splitRuntimes(text) {
    return String(text).split(/[\s;]+/).filter((t) => t.length > 0);
  }

  function splitTargets(text) {
    return String(text).split(',').map((t) => t.trim()).filter((t) => t.length > 0);
  }

  // ---- states: loading, error ---------------------------------------------

  function showLoading(what) {
    const s = clear($('state'));
    s.dataset.state = 'loading';
    s.append(el('p', { class: 'loading' }, el('span', { class: 'spinner', 'aria-hidden': 'true' }), `Reading ${what}…`));
    $('report').setAttribute('aria-busy', 'true');
  }

  function showProblem(problem, where) {
    const slug = slugOf(problem);
    const s = clear($('state'));
    s.dataset.state = 'error';
    s.append(el('div', { class: `problem card`, role: 'alert', 'data-type': slug },
      el('h2', { text: problem.title || 'Something went wrong' }),
      problem.detail ? el('p', { class: 'detail', text: problem.detail }) : null,
      el('p', { class: 'hint', text: HINTS[slug] || '' }),
      el('p', { class: 'muted small' }, where ? `${where} · ` : '', el('code', { text: slug }))));
    $('report').hidden = true;
    $('report').removeAttribute('aria-busy');
  }

  function clearState() {
    const s = clear($('state'));
    s.dataset.state = 'idle';
  }

  // ---- inspect -------------------------------------------------------------

  async function inspect(opts) {
    const seq = ++state.inspectSeq;
    const params = targetParams(new URLSearchParams());
    params.set('affinity', '1'); // the page shows the nodeAffinity
    let res;
    const name = state.file ? state.file.name : state.path;
    if (!name) return;
    showLoading(name);
    if (state.file) {
      const form = new FormData();
      form.append('file', state.file, state.file.name);
      res = await api(`v1/inspect?${params}`, { method: 'POST', body: form });
    } else {
      params.set('path', state.path);
      res = await api(`v1/inspect?${params}`);
    }
    if (seq !== state.inspectSeq) return; // a newer question is on its way
    $('targets-error').hidden = true;
    if (res.problem) {
      // A mistyped target keeps the last report and says what is wrong next to the field.
      if (slugOf(res.problem) === 'bad-request' && state.report && opts && opts.targetsOnly) {
        clearState();
        $('targets-error').textContent = res.problem.detail || res.problem.title;
        $('targets-error').hidden = false;
        $('targets').setAttribute('aria-invalid', 'true');
        $('report').removeAttribute('aria-busy');
        return;
      }
      state.report = null;
      showProblem(res.problem, name);
      return;
    }
    $('targets').removeAttribute('aria-invalid');
    clearState();
    state.report = res.body;
    render(res.body);
  }

  // ---- the report ------------------------------------------------------------

  // How an upload was kept (package.source of an upload): streamed, or kept whole and why.
  function uploadNote(src) {
    if (!src || src.upload !== true) return '';
    if (src.streamed) {
      const n = src.entries_dropped || 0;
      return ` The upload was inspected as it streamed: ${bytes(src.bytes_kept)} kept` +
        (n > 0 ? `, the data of ${n} entr${n === 1 ? 'y' : 'ies'} checked and dropped.` : '.');
    }
    return ` The upload was kept whole: ${src.streamed_reason || 'not streamed'}.`;
  }

  function render(doc) {
    const pkg = doc.package || {};
    const arch = doc.arch || {};
    $('r-name').textContent = pkg.name || '(package)';
    $('r-facts').textContent = [pkg.kind, bytes(pkg.size), pkg.layout,
      `${(doc.models || []).length} model${(doc.models || []).length === 1 ? '' : 's'}`]
      .filter(Boolean).join(' · ');
    renderChips(arch);
    renderOverall(doc.overall);
    renderGpus(doc.compatibility || []);
    renderKernels(arch);
    renderRun(pkg.name || state.path || 'FILE', doc.scheduling);
    renderCpu(arch, doc.compatibility || []);
    renderRuntime(doc.runtime || {}, doc.compatibility || []);
    renderModels(doc.models || [], doc.metadata || {});
    renderExtras(pkg);
    renderValidate(doc.metadata || {});
    renderMeta(doc.metadata || {});
    renderUserMeta(doc.metadata || {});
    renderWarnings(doc.warnings || []);
    $('bytes').textContent = `Read ${Number(doc.bytes_read || 0).toLocaleString('en')} bytes of headers to answer (package ${bytes(pkg.size)}).${uploadNote(pkg.source)}`;
    $('report').hidden = false;
    $('report').removeAttribute('aria-busy');
  }

  // The targets in the listing's one-line form (arch.targets: "sm_120+PTX"), so both read alike.
  function renderChips(arch) {
    const ul = clear($('r-chips'));
    const list = arch.targets ? arch.targets.split(', ') : [];
    for (const t of list) {
      const kind = t.startsWith('compute_') ? 'ptx' : t.startsWith('gfx') ? 'amd' : t.startsWith('sm_') ? 'sass' : t.startsWith('cpu') ? 'cpu' : 'other';
      const title = kind === 'ptx' ? 'PTX (JIT-compiled by the driver)' : t.endsWith('+PTX') ? 'a cubin, and PTX for the same architecture' : null;
      ul.append(el('li', { class: `chip chip-${kind}`, title, text: t }));
    }
    if (list.length === 0) ul.append(el('li', { class: 'chip chip-cpu', text: 'no compiled code' }));
  }

  function renderOverall(overall) {
    const box = clear($('r-overall'));
    if (!overall) return;
    box.dataset.verdict = overall.verdict;
    box.append(el('p', { class: 'small muted', text: 'Overall' }), verdictBadge(overall.verdict),
      el('p', { class: 'reason' }, richText(overall.reason)));
    if (overall.advice) box.append(el('p', { class: 'advice small' }, richText(overall.advice)));
  }

  function archOf(device) {
    if (!device) return '–';
    if (device.gfx) return device.gfx;
    if (device.compute_capability) return `CC ${device.compute_capability}`;
    if (device.machine) return device.machine;
    return '–';
  }

  function renderGpus(entries) {
    const tb = clear($('r-gpus').tBodies[0]);
    const rows = entries.filter((e) => e.kind !== 'cpu' && e.kind !== 'runtime');
    for (const e of rows) {
      const where = e.kind === 'target' ? 'typed target' : 'this node';
      const dev = e.device || {};
      tb.append(el('tr', { 'data-target': e.target, 'data-kind': e.kind },
        el('th', { scope: 'row' }, el('span', { class: 'dev', text: e.target }),
          dev.name && dev.name !== e.target ? el('span', { class: 'muted small block', text: dev.name }) : null),
        el('td', { 'data-label': 'Where', text: where }),
        el('td', { 'data-label': 'Architecture', text: archOf(dev) }),
        el('td', { class: 'verdict', 'data-label': 'Verdict' }, verdictBadge(e.verdict)),
        el('td', { class: 'reason', 'data-label': 'Why' }, richText(e.reason),
          e.advice ? el('span', { class: 'advice small block' }, richText(e.advice)) : null)));
    }
    if (rows.length === 0) {
      tb.append(el('tr', { class: 'empty' }, el('td', { colspan: '5', text: 'This node has no GPU. Type targets above to see verdicts for them.' })));
    }
  }

  function renderCpu(arch, entries) {
    const dl = clear($('r-cpu'));
    const isa = arch.cpu_isa || {};
    const add = (k, v) => {
      if (v === null || v === undefined || v === '') return;
      dl.append(el('dt', { text: k }), el('dd', {}, v));
    };
    add('Host code', arch.cpu_description || 'none');
    add('Machines', [...new Set((arch.hosts || []).map((h) => h.machine))].join(', '));
    add('Vector ISA', isa.display ? `${isa.display}${isa.source ? ` (from ${isa.source})` : ''}` : null);
    add('Needs CPU features', (isa.required_features || []).length ? (isa.required_features || []).join(', ') : null);
    add('-march', isa.march || null);
    const cpu = entries.find((e) => e.kind === 'cpu');
    if (cpu) add('This node’s CPU', el('span', {}, verdictBadge(cpu.verdict), ' ', richText(cpu.reason)));
  }

  // What the loaded libraries need (runtime.needs), then one row per runtime verdict with what
  // the loader would miss.
  function renderRuntime(rt, entries) {
    const dl = clear($('r-needs'));
    const needs = rt.needs || {};
    const torch = needs.torch || {};
    const add = (k, v) => {
      if (v === null || v === undefined || v === '') return;
      dl.append(el('dt', { text: k }), el('dd', {}, v));
    };
    add('glibc', needs.glibc ? `${needs.glibc} or newer` : null);
    add('libstdc++', needs.glibcxx ? `GLIBCXX ${needs.glibcxx}${needs.cxxabi ? `, CXXABI ${needs.cxxabi}` : ''}` : null);
    add('macOS', needs.macos ? `${needs.macos} or newer` : null);
    add('torch', torch.min ? `${torch.min} or newer${torch.sure_from ? ` (surely from ${torch.sure_from})` : ''}${torch.because ? `: ${torch.because}` : ''}` : null);
    if (torch.exact_build) add('libtorch', 'one exact build (C++ imports)');
    if ((torch.unknown || []).length) add('Custom shims', torch.unknown.join(', '));
    add('Links', (needs.libraries || []).join(', ') || null);
    // The loaded Windows libraries' delay-load DLLs (pe.delay_loaded, as the library says):
    // linked, but loaded at the first call into each.
    const delayed = [...new Set((rt.libraries || []).filter((l) => l.loaded)
      .flatMap((l) => (l.pe && l.pe.delay_loaded) || []))];
    add('Delay-loaded', delayed.join(', ') || null);
    add('Custom operators', (needs.custom_ops || []).join(', ') || null);
    const tb = clear($('r-runtimes').tBodies[0]);
    const rows = entries.filter((e) => e.kind === 'runtime');
    for (const e of rows) {
      const m = e.missing || {};
      const missing = [...(m.libraries || []), ...(m.versions || []).map((v) => `${v.version} (${v.library})`), ...(m.symbols || [])];
      tb.append(el('tr', { 'data-target': e.target, 'data-kind': 'runtime' },
        el('th', { scope: 'row', class: 'mono', text: e.target }),
        el('td', { class: 'verdict', 'data-label': 'Verdict' }, verdictBadge(e.verdict)),
        el('td', { class: 'reason', 'data-label': 'Why' }, richText(e.reason),
          missing.length ? el('span', { class: 'missing small block mono', text: `missing: ${missing.join(', ')}` }) : null,
          (e.unverified || []).length ? el('span', { class: 'muted small block', text: `not settled: ${e.unverified.join(', ')}` }) : null,
          e.advice ? el('span', { class: 'advice small block' }, richText(e.advice)) : null)));
    }
    if (rows.length === 0) {
      tb.append(el('tr', { class: 'empty' }, el('td', { colspan: '3', class: 'muted', text: 'Type a runtime above (debian12, ubuntu22.04,torch=2.8) to see whether the library loads there.' })));
    }
  }

  const KERNEL_KINDS = { sass: 'SASS (cubin)', ptx: 'PTX', hsaco: 'AMD code object', spirv: 'SPIR-V', zebin: 'Intel zebin' };

  // One row per distinct (target, kind, toolkit, minimum driver): what the package carries.
  function renderKernels(arch) {
    const tb = clear($('r-kernels').tBodies[0]);
    const kernels = arch.kernels || [];
    const seen = new Set();
    for (const k of kernels) {
      const key = [k.target, k.kind, k.toolkit, k.min_driver].join('|');
      if (seen.has(key)) continue;
      seen.add(key);
      tb.append(el('tr', { 'data-target': k.target, 'data-kind': k.kind },
        el('th', { scope: 'row', class: 'mono', text: k.target }),
        el('td', { 'data-label': 'Kind', text: KERNEL_KINDS[k.kind] || k.kind }),
        el('td', { 'data-label': 'CUDA toolkit', text: k.toolkit || '–' }),
        el('td', { 'data-label': 'Minimum driver', text: k.min_driver ? `CUDA ${k.min_driver}` : '–' })));
    }
    if (kernels.length === 0) tb.append(el('tr', { class: 'empty' }, el('td', { colspan: '4', class: 'muted', text: 'No GPU kernels: host code only.' })));
    const total = typeof arch.kernels_total === 'number' ? arch.kernels_total : kernels.length;
    $('r-kernels-note').hidden = total <= kernels.length;
    $('r-kernels-note').textContent = `The first ${kernels.length} of ${total} kernel records are listed; the verdicts count them all.`;
  }

  function renderRun(name, scheduling) {
    $('r-check').textContent = checkCommand(name);
    const na = scheduling && scheduling.node_affinity;
    $('r-affinity').textContent = na ? affinityYaml(na, name) : 'No nodeAffinity in this answer.';
  }

  async function copyText(button) {
    const pre = $(button.dataset.copy);
    try {
      await navigator.clipboard.writeText(pre.textContent);
      button.textContent = 'Copied';
    } catch (e) {
      const range = document.createRange();
      range.selectNodeContents(pre);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 2000);
  }

  function shapeText(spec) {
    if (spec.shape_description) return spec.shape_description;
    if (Array.isArray(spec.shape)) return `(${spec.shape.map((d) => (d === null ? '?' : d)).join(', ')})`;
    return '?';
  }

  function specTable(title, specs) {
    const t = el('table', { class: 'table specs' },
      el('caption', { text: title }),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'Name' }), el('th', { scope: 'col', text: 'Dtype' }),
        el('th', { scope: 'col', text: 'Shape' }), el('th', { scope: 'col', text: 'Dynamic' }))));
    const tb = el('tbody');
    for (const s of specs) {
      const dyn = (s.dynamic_dims || []).map((d) => {
        const range = d.min !== null && d.min !== undefined ? ` ∈ [${d.min}, ${d.max === null || d.max === undefined ? '∞' : d.max}]` : '';
        return `axis ${d.axis}: ${d.symbol || '?'}${range}`;
      }).join('; ');
      tb.append(el('tr', { 'data-spec': s.name },
        el('th', { scope: 'row', text: s.name }),
        el('td', { text: s.dtype || s.datatype || '?' }),
        el('td', { class: 'mono', text: shapeText(s) }),
        el('td', { class: 'small', text: dyn || '–' })));
    }
    if (specs.length === 0) tb.append(el('tr', {}, el('td', { colspan: '4', class: 'muted', text: 'not recorded' })));
    t.append(tb);
    return el('div', { class: 'scroll' }, t);
  }

  function renderModels(models, meta) {
    const box = clear($('r-models'));
    if (models.length === 0) {
      box.append(el('p', { class: 'muted', text: 'No compiled model (an exported program only). Declared inputs and outputs:' }));
      box.append(specTable('Inputs', meta.inputs || []), specTable('Outputs', meta.outputs || []));
      return;
    }
    for (const m of models) {
      box.append(el('section', { class: 'model', 'data-model': m.name },
        el('h4', {}, m.name, ' ', el('span', { class: 'muted small', text: `${m.platform || m.device_key || ''}${m.targets && m.targets.length ? ` · ${m.targets.join(', ')}` : ''}` })),
        m.build === 'cpp-only' ? el('p', { class: 'model-build', text: `C++ sources only${m.cmake_target ? ` (CMake target ${m.cmake_target})` : ''}: it must be compiled on the target before it can load.` }) : null,
        librariesTable(m.libraries || []),
        specTable('Inputs', (m.inputs && m.inputs.length ? m.inputs : meta.inputs) || []),
        specTable('Outputs', (m.outputs && m.outputs.length ? m.outputs : meta.outputs) || []),
        m.size ? el('p', { class: 'muted small', text: `${m.size.constants} constants, ${bytes(m.size.bytes)}` }) : null,
        modelNeeds(m)));
    }
  }

  // One row per host library of a model, the one torch's loader takes marked.
  function librariesTable(libs) {
    if (libs.length === 0) return null;
    const os = { linux: 'Linux', macos: 'macOS', windows: 'Windows' };
    return el('table', { class: 'table libraries' },
      el('caption', { text: 'Libraries' }),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'Entry' }), el('th', { scope: 'col', text: 'Format' }),
        el('th', { scope: 'col', text: 'Machine' }), el('th', { scope: 'col', text: 'Loaded' }))),
      el('tbody', {}, ...libs.map((l) => el('tr', { 'data-loaded': l.loaded ? 'true' : 'false' },
        el('td', { class: 'mono', text: l.entry.split('/').pop() }),
        el('td', { 'data-label': 'Format', text: `${l.format}${l.os ? ` (${os[l.os] || l.os}${l.needs && l.needs.macos ? ` ${l.needs.macos}+` : ''})` : ''}` }),
        el('td', { 'data-label': 'Machine', text: l.machine }),
        el('td', { 'data-label': 'Loaded', text: l.loaded ? 'the one torch loads' : 'not loaded' })))));
  }

  // Weights, custom operators and Metal shaders: what a model needs beyond its library.
  function modelNeeds(m) {
    const out = [];
    const w = m.weights;
    if (w && w.where !== 'none') {
      out.push(`Weights: ${w.where}, ${w.entries} ${w.entries === 1 ? 'entry' : 'entries'}` +
        `${typeof w.bytes === 'number' ? `, ${bytes(w.bytes)} stored` : ''}` +
        `${typeof w.declared_bytes === 'number' ? ` (declares ${bytes(w.declared_bytes)})` : ''}` +
        `${w.missing ? `, ${w.missing} missing` : ''}`);
    }
    if (m.proxy_nodes) out.push(`Custom operators (proxy executor, ${m.proxy_nodes} nodes): ${(m.custom_ops || []).join(', ')}`);
    if (typeof m.metal_shader_libraries === 'number') out.push(`${m.metal_shader_libraries} Metal shader libraries, compiled from source at load`);
    if (out.length === 0) return null;
    return el('ul', { class: 'model-needs muted small' }, ...out.map((t) => el('li', { text: t })));
  }

  // ExecuTorch programs and pickles the package carries besides its models.
  function renderExtras(pkg) {
    const box = clear($('r-extras'));
    const items = [];
    for (const e of pkg.executorch || []) items.push(el('li', { 'data-kind': 'executorch', text: `ExecuTorch program ${e.name} (${bytes(e.size)})` }));
    for (const p of pkg.pickles || []) items.push(el('li', { 'data-kind': 'pickle', text: `Pickle ${p.entry} (${p.kind}): loading it executes code` }));
    box.hidden = items.length === 0;
    if (items.length) box.append(el('ul', {}, ...items));
  }

  function renderMeta(meta) {
    const dl = clear($('r-meta'));
    const add = (k, v) => {
      if (v === null || v === undefined || v === '') return;
      dl.append(el('dt', { text: k }), el('dd', { text: String(v) }));
    };
    add('Model', meta.model);
    add('Specs from', meta.source);
    if (dl.childElementCount === 0) add('Specs from', 'none recorded');
    $('r-raw').textContent = JSON.stringify(meta.raw || meta.aoti || {}, null, 2);
  }

  // Every metadata entry as a row: the model author's own first (AOTI metadata such as
  // mlcolvar's n_cvs, then model_metadata.json), torch's AOTI_* keys after them.
  function renderUserMeta(meta) {
    const tb = clear($('r-usermeta').tBodies[0]);
    const user = [];
    const torch = [];
    const aoti = isMap(meta.aoti) ? meta.aoti : {};
    for (const [k, v] of Object.entries(aoti)) {
      (k.startsWith('AOTI_') ? torch : user).push([k, v, k.startsWith('AOTI_') ? 'torch (AOTI metadata)' : 'the model (AOTI metadata)']);
    }
    if (isMap(meta.raw)) {
      for (const [k, v] of Object.entries(meta.raw)) {
        if (!['model', 'inputs', 'outputs'].includes(k)) user.push([k, v, meta.source || 'model_metadata.json']);
      }
    }
    for (const [k, v, by] of [...user, ...torch]) {
      tb.append(el('tr', { 'data-key': k },
        el('th', { scope: 'row', class: 'mono', text: k }),
        el('td', { class: 'mono', text: isScalar(v) ? String(v) : JSON.stringify(v) }),
        el('td', { class: 'small muted', text: by })));
    }
    if (tb.rows.length === 0) tb.append(el('tr', { class: 'empty' }, el('td', { colspan: '3', class: 'muted', text: 'none recorded' })));
  }

  function renderWarnings(warnings) {
    const ul = clear($('r-warnings'));
    for (const w of warnings) ul.append(el('li', { text: w }));
    if (warnings.length === 0) ul.append(el('li', { class: 'muted', text: 'None.' }));
  }

  // ---- validate --------------------------------------------------------------

  function defaultShape(spec) {
    if (!Array.isArray(spec.shape)) return '';
    const dyn = {};
    for (const d of spec.dynamic_dims || []) dyn[d.axis] = d;
    return spec.shape.map((d, i) => {
      if (typeof d === 'number' && d >= 0) return String(d);
      const dd = dyn[i];
      return dd && typeof dd.min === 'number' && dd.min > 0 ? String(dd.min) : '1';
    }).join(',');
  }

  function renderValidate(meta) {
    const box = clear($('v-inputs'));
    clear($('v-errors'));
    $('v-result').textContent = '';
    const inputs = meta.inputs || [];
    if (inputs.length === 0) {
      box.append(el('p', { class: 'muted', text: 'This package records no inputs to check.' }));
      $('validate-form').querySelector('button').disabled = true;
      return;
    }
    $('validate-form').querySelector('button').disabled = false;
    inputs.forEach((s, i) => {
      const id = `v-in-${i}`;
      box.append(el('div', { class: 'field input-row', 'data-input': s.name },
        el('label', { for: id }, el('span', { class: 'mono', text: s.name }), ' ', el('span', { class: 'muted small', text: `${s.dtype || ''} ${shapeText(s)}` })),
        el('input', { id, type: 'text', class: 'mono', value: defaultShape(s), 'data-name': s.name, 'aria-describedby': `${id}-err`, spellcheck: 'false', autocomplete: 'off' }),
        el('p', { id: `${id}-err`, class: 'error small', role: 'alert', hidden: true })));
    });
  }

  function parseDims(text) {
    const t = text.trim();
    if (t === '') return [];
    const parts = t.replace(/^[([]|[)\]]$/g, '').split(/[\s,x×]+/).filter((p) => p.length > 0);
    const dims = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
    return dims.some((d) => Number.isNaN(d)) ? null : dims;
  }

  async function validate(ev) {
    ev.preventDefault();
    const rows = [...document.querySelectorAll('#v-inputs [data-input]')];
    const inputs = {};
    const errs = clear($('v-errors'));
    let bad = false;
    for (const row of rows) {
      const input = row.querySelector('input');
      const err = row.querySelector('.error');
      err.hidden = true;
      input.removeAttribute('aria-invalid');
      const dims = parseDims(input.value);
      if (dims === null) {
        err.textContent = 'Write the dimensions as whole numbers, e.g. 8,3,512,512.';
        err.hidden = false;
        input.setAttribute('aria-invalid', 'true');
        bad = true;
      } else {
        inputs[input.dataset.name] = dims;
      }
    }
    if (bad) {
      $('v-result').textContent = '';
      return;
    }
    const params = new URLSearchParams({ inputs: JSON.stringify(inputs) });
    let res;
    $('v-result').textContent = 'Checking…';
    if (state.file) {
      const form = new FormData();
      form.append('file', state.file, state.file.name);
      res = await api(`v1/validate?${params}`, { method: 'POST', body: form });
    } else {
      params.set('path', state.path);
      res = await api(`v1/validate?${params}`);
    }
    if (res.problem) {
      $('v-result').textContent = '';
      errs.append(el('li', { class: 'error', role: 'alert', text: `${res.problem.title}${res.problem.detail ? `: ${res.problem.detail}` : ''}` }));
      return;
    }
    const doc = res.body;
    const n = (doc.errors || []).length;
    $('v-result').replaceChildren(el('span', { class: `badge ${doc.valid ? 'v-compatible' : 'v-incompatible'}`,
      text: doc.valid ? 'valid' : `invalid: ${n} problem${n === 1 ? '' : 's'}` }));
    $('v-result').dataset.valid = String(doc.valid);
    // Every violation next to the input it names; the rest below the form.
    for (const v of doc.errors || []) {
      const msg = v.message;
      const row = v.input != null ? rows.find((r) => r.dataset.input === v.input) : null;
      if (row) {
        const err = row.querySelector('.error');
        err.textContent = err.hidden ? msg : `${err.textContent} · ${msg}`;
        err.hidden = false;
        row.querySelector('input').setAttribute('aria-invalid', 'true');
      } else {
        errs.append(el('li', { class: 'error', text: msg }));
      }
    }
    for (const w of doc.warnings || []) errs.append(el('li', { class: 'muted', text: w }));
  }

  // ---- the model root listing -------------------------------------------------

  async function loadPackages(append, withoutTargets) {
    const seq = ++state.listSeq;
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (!withoutTargets) targetParams(params);
    const filter = $('filter').value;
    if (filter) params.set('contains', filter);
    if (append && state.cursor) params.set('cursor', state.cursor);
    $('picker-status').textContent = 'Listing…';
    const res = await api(`v1/packages?${params}`);
    if (seq !== state.listSeq) return;
    const tb = $('packages').tBodies[0];
    if (!append) clear(tb);
    if (res.problem && !withoutTargets && state.targets.length > 0 && slugOf(res.problem) === 'bad-request') {
      // Targets it cannot read (said next to their field): list without verdicts.
      loadPackages(append, true);
      return;
    }
    if (res.problem) {
      $('picker-status').textContent = `${res.problem.title}${res.problem.detail ? `: ${res.problem.detail}` : ''}`;
      $('more').hidden = true;
      return;
    }
    const items = res.body.items || [];
    const withVerdicts = state.targets.length > 0 && !withoutTargets;
    $('packages').classList.toggle('with-verdicts', withVerdicts);
    for (const it of items) tb.append(packageRow(it, withVerdicts));
    state.cursor = res.body.next;
    $('more').hidden = !state.cursor;
    const n = tb.rows.length;
    const total = typeof res.body.total === 'number' ? res.body.total : n;
    const why = (res.body.warnings || []).join(' ');
    $('picker-status').textContent = n === 0
      ? (filter ? `No package name contains “${filter}”.` : why || 'No packages under the model root.')
      : `${n === total ? n : `${n} of ${total}`} package${total === 1 ? '' : 's'}${why ? ` · ${why}` : ''}`;
  }

  function packageRow(it, withVerdicts) {
    const open = el('button', { type: 'button', class: 'link', 'data-path': it.name,
      onclick: () => choosePath(it.name) }, breakable(it.name));
    const current = state.path === it.name && !state.file;
    // The whole row picks the package; the name stays the button keyboards reach.
    const pick = (e) => {
      if (!e.target.closest('button')) choosePath(it.name);
    };
    if (it.type) {
      const slug = it.type.slice(it.type.lastIndexOf('/') + 1);
      return el('tr', { class: 'problem-row pick', 'data-name': it.name, 'aria-current': current ? 'true' : null, onclick: pick },
        el('th', { scope: 'row' }, open),
        el('td', { colspan: '2' }, el('span', { class: 'badge v-incompatible', text: slug }), ' ', el('span', { class: 'small', text: it.detail || '' })),
        el('td', { class: 'col-models' }),
        el('td', { class: 'col-size', text: bytes(it.size) }),
        el('td', { class: 'verdict-col' }));
    }
    return el('tr', { class: 'pick', 'data-name': it.name, 'aria-current': current ? 'true' : null, onclick: pick },
      el('th', { scope: 'row' }, open),
      el('td', { 'data-label': 'Kind', text: it.kind || '–' }),
      el('td', { class: 'mono small', 'data-label': 'Targets', text: it.targets || '–' }),
      el('td', { class: 'col-models', text: String(it.models) }),
      el('td', { class: 'col-size', text: bytes(it.size) }),
      el('td', { class: 'verdict-col', 'data-label': 'Overall' }, withVerdicts && it.overall ? verdictBadge(it.overall.verdict) : null));
  }

  function markCurrent() {
    for (const tr of $('packages').tBodies[0].rows) {
      if (!state.file && tr.dataset.name === state.path) tr.setAttribute('aria-current', 'true');
      else tr.removeAttribute('aria-current');
    }
  }

  // ---- choosing a package -------------------------------------------------------

  function choosePath(name) {
    state.path = name;
    state.file = null;
    $('chosen').hidden = true;
    writeUrl();
    markCurrent();
    inspect().then(() => $('report').hidden || $('report').focus({ preventScroll: false }));
  }

  function chooseFile(file) {
    if (!file) return;
    state.file = file;
    state.path = null;
    $('chosen').textContent = `Chosen: ${file.name} (${bytes(file.size)})`;
    $('chosen').hidden = false;
    writeUrl();
    markCurrent();
    inspect();
  }

  function setupDrop() {
    const zone = $('dropzone');
    const on = (e) => {
      e.preventDefault();
      zone.dataset.state = 'over';
    };
    const off = () => {
      zone.dataset.state = 'idle';
    };
    zone.addEventListener('dragenter', on);
    zone.addEventListener('dragover', on);
    zone.addEventListener('dragleave', off);
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      off();
      const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      chooseFile(f);
    });
    // A file dropped anywhere else must not make the browser navigate away.
    window.addEventListener('dragover', (e) => e.preventDefault());
    window.addEventListener('drop', (e) => e.preventDefault());
    $('file').addEventListener('change', (e) => {
      chooseFile(e.target.files[0]);
      e.target.value = '';
    });
  }

  function debounce(fn) {
    let t = null;
    return (...args) => {
      clearTimeout(t);
      t = setTimeout(() => fn(...args), DEBOUNCE_MS);
    };
  }

  function targetsChanged() {
    const next = splitTargets($('targets').value);
    const driver = $('driver').value.trim();
    const runtimes = splitRuntimes($('runtimes').value);
    if (next.join('\n') === state.targets.join('\n') && driver === state.driver &&
        runtimes.join('\n') === state.runtimes.join('\n')) return;
    state.targets = next;
    state.driver = driver;
    state.runtimes = runtimes;
    writeUrl();
    if (state.path || state.file) inspect({ targetsOnly: true });
    loadPackages(false);
  }

  async function start() {
    readUrl();
    setupDrop();
    $('validate-form').addEventListener('submit', validate);
    const onTargets = debounce(targetsChanged);
    $('targets').addEventListener('input', onTargets);
    $('driver').addEventListener('input', onTargets);
    $('runtimes').addEventListener('input', onTargets);
    $('targets-form').addEventListener('submit', (e) => {
      e.preventDefault();
      targetsChanged();
    });
    $('picker-form').addEventListener('submit', (e) => {
      e.preventDefault();
      loadPackages(false);
    });
    $('filter').addEventListener('input', debounce(() => loadPackages(false)));
    for (const b of document.querySelectorAll('button.copy')) b.addEventListener('click', () => copyText(b));
    $('more').addEventListener('click', () => loadPackages(true, $('packages').classList.contains('with-verdicts') === false && state.targets.length > 0));
    $('url-form').addEventListener('submit', (e) => e.preventDefault());

    const v = await api('v1/version');
    if (v.body) {
      $('version').textContent = `pt2scoped ${v.body.version}`;
      // Remote packages are a future capability: the URL field shows only when the server says so.
      $('url-form').hidden = v.body.remote !== true;
    }
    loadPackages(false);
    if (state.path) inspect();
    document.body.dataset.ready = 'true';
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
