// check.mjs - the Kubernetes manifests of docker/k8s, checked offline.
//
//   node tests/k8s/check.mjs DIR                 every check on DIR's kustomization; one
//                                                "ok"/"FAIL" line each, exit 1 on a failure
//   node tests/k8s/check.mjs --expect-fail DIR   DIR holds broken manifests and expect.txt (one
//                                                message fragment a line): each fragment must be
//                                                among the failures (proves the checks can fail)
//
// The last line is "= N ok, N failing" (tests/k8s/run.sh adds the runs up and prints the
// "k8s: N passed, N failed" line tests/run.sh counts).
//
// What is checked, per object of every file the kustomization lists:
//  - schema: the Kubernetes API's JSON schema for its apiVersion/kind, as compiled into the
//    validators of the npm package kubernetes-models (types, enums, required fields);
//  - strict: no field the API does not define (those validators accept unknown fields, as the
//    OpenAPI document does; the field lists come from the package's .d.ts interfaces, which
//    are generated from the same schemas), so a misspelt securityContext cannot pass;
//  - the Pod Security Standards "restricted" profile on every pod template and container
//    (the fields the admission controller reads), plus readOnlyRootFilesystem;
//  - pt2scope's own rules: the node name from spec.nodeName, no hard-coded namespace, the
//    spool inside its emptyDir (max-upload x max-uploads <= sizeLimit, emptyDirs within the
//    ephemeral-storage limit), a drain delay inside terminationGracePeriodSeconds, probes;
//    for a scan Job (a container running the pt2scope CLI): Indexed, --shard
//    $(JOB_COMPLETION_INDEX)/N with N = completions, the index from the pod's annotation,
//    JSON Lines out, exit 1/3 (answers) never retried, /tmp on an emptyDir.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import YAML from "yaml";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NM = path.join(HERE, "node_modules");
const DRAIN_TIMEOUT_DEFAULT_S = 25; // pt2scoped --drain-timeout default (service/daemon/pt2d_config.c)
const DEFAULT_MAX_UPLOAD = 16 * 2 ** 30; // pt2d_config.c default
const IMAGE_SPOOL_DIR = "/var/spool/pt2scope"; // docker/Dockerfile ENV PT2SCOPE_SPOOL_DIR

const results = [];
function check(name, ok, why) {
  results.push({ name, ok: !!ok, why: ok ? "" : why || "" });
}

// ---- quantities --------------------------------------------------------------------------

// A Kubernetes resource.Quantity ("17Gi", "64Mi", "500M", "1e3") in bytes; NaN if malformed.
function quantity(q) {
  const m = /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m)?$/.exec(String(q));
  if (!m) return NaN;
  const mult = {
    Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
    k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, m: 1e-3,
  }[m[2]] ?? 1;
  return Number(m[1]) * mult;
}

// pt2scoped's --max-upload ("8G", "512M", "64K", "1024"; binary units, optional B/iB).
function daemonSize(s) {
  const m = /^([0-9]+)([KkMmGgTt])?(B|iB)?$/.exec(String(s));
  if (!m || (m[3] && !m[2])) return NaN;
  const mult = { k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 }[(m[2] || "").toLowerCase()] ?? 1;
  return Number(m[1]) * mult;
}

// ---- strict fields from the .d.ts interfaces ---------------------------------------------

const ifaceCache = new Map();

// The first `export interface` of a generated .d.ts: its properties (name -> type text) and
// what its imported identifiers resolve to. null for a type alias (Quantity, IntOrString).
function iface(file) {
  if (ifaceCache.has(file)) return ifaceCache.get(file);
  let result = null;
  if (fs.existsSync(file)) {
    const text = fs.readFileSync(file, "utf8").replace(/\/\*\*[\s\S]*?\*\//g, "");
    const imports = new Map();
    for (const m of text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)) {
      const spec = m[2];
      imports.set(m[1], spec.startsWith(".")
        ? path.resolve(path.dirname(file), spec + ".d.ts")
        : path.join(NM, spec + ".d.ts"));
    }
    const start = /^export interface \w+(?: extends [\w, ]+)? \{$/m.exec(text);
    if (start) {
      const body = text.slice(start.index + start[0].length, text.indexOf("\n}", start.index));
      const props = new Map();
      const re = /"([^"]+)"\??:\s*/g;
      let m;
      while ((m = re.exec(body)) !== null) {
        let i = re.lastIndex, depth = 0;
        for (; i < body.length; i++) {
          const c = body[i];
          if (c === "{" || c === "<" || c === "(") depth++;
          else if (c === "}" || c === ">" || c === ")") depth--;
          else if (c === ";" && depth === 0) break;
        }
        props.set(m[1], body.slice(re.lastIndex, i).trim());
        re.lastIndex = i + 1;
      }
      result = { props, imports };
    }
  }
  ifaceCache.set(file, result);
  return result;
}

function strictValue(value, type, owner, where, errors) {
  let m;
  if ((m = /^Array<([\s\S]+)>$/.exec(type))) {
    if (Array.isArray(value))
      value.forEach((v, i) => strictValue(v, m[1].trim(), owner, `${where}[${i}]`, errors));
  } else if ((m = /^\{\s*\[key: string\]: ([\s\S]+?);?\s*\}$/.exec(type))) {
    if (value && typeof value === "object")
      for (const [k, v] of Object.entries(value))
        strictValue(v, m[1].trim(), owner, `${where}.${k}`, errors);
  } else if (/^I\w+$/.test(type) && owner.imports.has(type)) {
    const target = iface(owner.imports.get(type));
    if (target) strictObject(value, target, where, errors);
  }
}

function strictObject(obj, def, where, errors) {
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return; // the schema reports it
  for (const [k, v] of Object.entries(obj)) {
    if (!def.props.has(k)) errors.push(`${where}.${k}: no such field`);
    else strictValue(v, def.props.get(k), def, `${where}.${k}`, errors);
  }
}

// ---- schema --------------------------------------------------------------------------------

// "apps/v1" -> kubernetes-models/apps/v1, "v1" -> kubernetes-models/v1.
function modelDir(apiVersion) {
  return path.join(NM, "kubernetes-models", ...String(apiVersion).split("/"));
}

async function schemaChecks(obj, label) {
  const dir = modelDir(obj.apiVersion);
  const file = path.join(dir, `${obj.kind}.d.ts`);
  if (!fs.existsSync(path.join(dir, "index.mjs")) || !fs.existsSync(file)) {
    check(`${label}: known kind`, false, `no schema for ${obj.apiVersion} ${obj.kind}`);
    return;
  }
  const mod = await import(pathToFileURL(path.join(dir, "index.mjs")).href);
  const Model = mod[obj.kind];
  let why = "";
  try {
    new Model(obj).validate();
  } catch (e) {
    why = e.message;
  }
  check(`${label}: schema ${obj.apiVersion} ${obj.kind}`, why === "", why);
  const errors = [];
  const def = iface(file);
  if (def) strictObject(obj, def, obj.kind, errors);
  check(`${label}: no unknown fields`, def && errors.length === 0,
    def ? errors.join("; ") : `cannot read ${file}`);
}

// ---- Pod Security "restricted" -------------------------------------------------------------

const RESTRICTED_VOLUMES = new Set(["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
  "persistentVolumeClaim", "projected", "secret"]);
const SAFE_SYSCTLS = new Set(["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
  "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
  "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"]);

function allContainers(spec) {
  return [...(spec.initContainers || []), ...(spec.containers || []),
    ...(spec.ephemeralContainers || [])];
}

function restrictedChecks(spec, label) {
  const psc = spec.securityContext || {};
  check(`${label}: no host namespaces`, !spec.hostNetwork && !spec.hostPID && !spec.hostIPC,
    "hostNetwork, hostPID and hostIPC must be unset or false");
  const badVols = (spec.volumes || []).filter(
    (v) => Object.keys(v).filter((k) => k !== "name").some((k) => !RESTRICTED_VOLUMES.has(k)));
  check(`${label}: volume types`, badVols.length === 0,
    `volume ${badVols.map((v) => v.name).join(", ")} is of a type "restricted" forbids`);
  check(`${label}: pod runAsUser not 0`, psc.runAsUser !== 0, "pod runAsUser is 0");
  check(`${label}: safe sysctls`, (psc.sysctls || []).every((s) => SAFE_SYSCTLS.has(s.name)),
    "a sysctl outside the safe set");
  for (const c of allContainers(spec)) {
    const sc = c.securityContext || {};
    const cl = `${label} container ${c.name}`;
    const nonRoot = sc.runAsNonRoot ?? psc.runAsNonRoot;
    const uid = sc.runAsUser ?? psc.runAsUser;
    const seccomp = (sc.seccompProfile || psc.seccompProfile || {}).type;
    const caps = sc.capabilities || {};
    check(`${cl}: runAsNonRoot`, nonRoot === true, "runAsNonRoot must be true (pod or container)");
    check(`${cl}: runAsUser non-zero`, Number.isInteger(uid) && uid > 0,
      `runAsUser must be set and non-zero, is ${uid}`);
    check(`${cl}: allowPrivilegeEscalation false`, sc.allowPrivilegeEscalation === false,
      "securityContext.allowPrivilegeEscalation must be false");
    check(`${cl}: not privileged`, sc.privileged !== true, "privileged");
    check(`${cl}: capabilities drop ALL`, (caps.drop || []).includes("ALL"),
      "securityContext.capabilities.drop must include ALL");
    check(`${cl}: capabilities added`, (caps.add || []).every((a) => a === "NET_BIND_SERVICE"),
      `adds ${(caps.add || []).join(", ")}`);
    check(`${cl}: seccompProfile`, seccomp === "RuntimeDefault" || seccomp === "Localhost",
      `seccompProfile.type must be RuntimeDefault or Localhost, is ${seccomp}`);
    check(`${cl}: readOnlyRootFilesystem`, sc.readOnlyRootFilesystem === true,
      "securityContext.readOnlyRootFilesystem must be true");
    check(`${cl}: no hostPort`, (c.ports || []).every((p) => !p.hostPort), "hostPort set");
    check(`${cl}: procMount`, !sc.procMount || sc.procMount === "Default", "procMount");
  }
}

// ---- pt2scope ------------------------------------------------------------------------------

// The value pt2scoped would use for a flag/variable pair: the flag wins (pt2d_config.h).
function setting(c, flag, variable) {
  const args = c.args || [];
  for (let i = args.length - 1; i >= 0; i--) {
    if (args[i] === flag && i + 1 < args.length) return args[i + 1];
    if (args[i].startsWith(flag + "=")) return args[i].slice(flag.length + 1);
  }
  const e = (c.env || []).find((v) => v.name === variable);
  return e ? (e.value ?? { from: e.valueFrom }) : undefined;
}

// A container running the CLI (a scan Job), not the daemon.
const isCli = (c) => /(^|\/)pt2scope$/.test((c.command || [])[0] || "");

function pt2scopeChecks(spec, label) {
  const volumes = new Map((spec.volumes || []).map((v) => [v.name, v]));
  const grace = spec.terminationGracePeriodSeconds ?? 30;
  for (const c of spec.containers || []) {
    if (isCli(c)) continue; // scanJobChecks
    const cl = `${label} container ${c.name}`;
    const env = c.env || [];
    const mounts = new Map((c.volumeMounts || []).map((m) => [m.mountPath, m]));
    const node = env.find((v) => v.name === "PT2SCOPE_NODE_NAME");
    check(`${cl}: node name from spec.nodeName`,
      node?.valueFrom?.fieldRef?.fieldPath === "spec.nodeName",
      "PT2SCOPE_NODE_NAME must come from fieldRef spec.nodeName");

    // Peers: no namespace written down; $(VAR) only from the downward API's namespace.
    const dns = setting(c, "--peers-dns", "PT2SCOPE_PEERS_DNS");
    if (dns !== undefined) {
      const s = String(dns);
      const refs = [...s.matchAll(/\$\((\w+)\)/g)].map((m) => m[1]);
      const at = env.findIndex((v) => v.name === "PT2SCOPE_PEERS_DNS");
      const fromNs = refs.every((r) => {
        const i = env.findIndex((v) => v.name === r);
        return i >= 0 && (at < 0 || i < at) &&
          env[i].valueFrom?.fieldRef?.fieldPath === "metadata.namespace";
      });
      check(`${cl}: peers DNS name without a fixed namespace`,
        refs.length > 0 && fromNs && !/(^|\.)default(\.|$)/.test(s),
        `--peers-dns '${s}' must take the namespace from $(VAR) = fieldRef metadata.namespace, ` +
        "never a written namespace such as default");
    }

    // Writable paths: the spool and /tmp on emptyDirs (the root is read-only).
    const spoolDir = String(setting(c, "--spool-dir", "PT2SCOPE_SPOOL_DIR") ?? IMAGE_SPOOL_DIR);
    const emptyDirAt = (p) => {
      const m = mounts.get(p);
      const v = m && volumes.get(m.name);
      return v && v.emptyDir && !m.readOnly ? v.emptyDir : null;
    };
    const spool = emptyDirAt(spoolDir);
    check(`${cl}: spool ${spoolDir} on an emptyDir`, spool, `no writable emptyDir at ${spoolDir}`);
    check(`${cl}: /tmp on an emptyDir`, emptyDirAt("/tmp"), "no writable emptyDir at /tmp");

    // At most max-uploads x max-upload bytes are spooled at once (pt2d_server.c).
    const maxUpload = daemonSize(setting(c, "--max-upload", "PT2SCOPE_MAX_UPLOAD") ??
      DEFAULT_MAX_UPLOAD);
    const maxUploads = Number(setting(c, "--max-uploads", "PT2SCOPE_MAX_UPLOADS") ?? 0);
    const sizeLimit = spool ? quantity(spool.sizeLimit) : NaN;
    check(`${cl}: concurrent uploads capped`, Number.isInteger(maxUploads) && maxUploads > 0,
      "--max-uploads / PT2SCOPE_MAX_UPLOADS must be set: without it the spool has no bound");
    check(`${cl}: spool fits its sizeLimit`, maxUploads > 0 && maxUpload * maxUploads <= sizeLimit,
      `max-uploads x max-upload = ${maxUploads} x ${maxUpload} bytes exceeds the spool ` +
      `sizeLimit ${spool?.sizeLimit} (the kubelet evicts the pod)`);
    let emptyDirs = 0;
    for (const m of c.volumeMounts || []) {
      const v = volumes.get(m.name);
      if (v?.emptyDir) emptyDirs += quantity(v.emptyDir.sizeLimit);
    }
    const eph = quantity(c.resources?.limits?.["ephemeral-storage"]);
    check(`${cl}: emptyDirs within the ephemeral-storage limit`, emptyDirs < eph,
      `emptyDir sizeLimits (${emptyDirs} bytes; each needs one) must stay below ` +
      `limits.ephemeral-storage (${c.resources?.limits?.["ephemeral-storage"]})`);
    check(`${cl}: ephemeral-storage requested`,
      quantity(c.resources?.requests?.["ephemeral-storage"]) >= emptyDirs,
      "requests.ephemeral-storage must cover the emptyDirs, or the scheduler may pick a node " +
      "without the room");

    // Shutdown: keep serving while endpoints update, all within the grace period.
    const delay = Number(setting(c, "--drain-delay", "PT2SCOPE_DRAIN_DELAY") ?? 0);
    const sleep = c.lifecycle?.preStop?.sleep?.seconds ?? 0;
    const drain = Number(setting(c, "--drain-timeout", "PT2SCOPE_DRAIN_TIMEOUT") ??
      DRAIN_TIMEOUT_DEFAULT_S);
    check(`${cl}: drain delay`, delay > 0 || sleep > 0,
      "neither --drain-delay nor a preStop sleep: endpoints still route to a closed listener");
    check(`${cl}: drain within terminationGracePeriodSeconds`,
      delay + sleep + drain <= grace,
      `drain delay ${delay + sleep} s + drain timeout ${drain} s exceeds ` +
      `terminationGracePeriodSeconds ${grace}`);
    check(`${cl}: probes`, c.readinessProbe?.httpGet?.path === "/readyz" &&
      c.livenessProbe?.httpGet?.path === "/livez", "readiness /readyz and liveness /livez");
    const gpuEnv = env.some((v) => v.name === "NVIDIA_VISIBLE_DEVICES");
    const gpuReq = Object.keys(c.resources?.limits || {}).some((k) => k === "nvidia.com/gpu");
    check(`${cl}: one way to see GPUs`, !(gpuEnv && gpuReq),
      "NVIDIA_VISIBLE_DEVICES and a nvidia.com/gpu request together");
  }
}

// A scan Job (docker/k8s/scan-job.yaml): N pods, pod I scanning shard I of N.
function scanJobChecks(job, label) {
  const spec = job.spec || {};
  const pod = spec.template?.spec || {};
  const n = spec.completions;
  const volumes = new Map((pod.volumes || []).map((v) => [v.name, v]));
  check(`${label}: Indexed`, spec.completionMode === "Indexed", "completionMode must be Indexed");
  check(`${label}: parallelism within completions`, Number.isInteger(n) && n >= 1 &&
    (spec.parallelism ?? 1) <= n, `completions ${n}, parallelism ${spec.parallelism}`);
  check(`${label}: restartPolicy Never`, pod.restartPolicy === "Never",
    "restartPolicy must be Never (a podFailurePolicy needs it)");
  const codes = (spec.podFailurePolicy?.rules || [])
    .filter((r) => r.action === "FailIndex" || r.action === "FailJob")
    .flatMap((r) => (r.onExitCodes?.operator === "In" ? r.onExitCodes.values : []));
  check(`${label}: answers are not retried`, codes.includes(1) && codes.includes(3),
    "exit 1 (incompatible) and 3 (unreadable) are answers: a podFailurePolicy rule must fail " +
    "the index on them instead of rerunning the shard");
  for (const c of (pod.containers || []).filter(isCli)) {
    const cl = `${label} container ${c.name}`;
    const args = c.args || [];
    const shard = args[args.indexOf("--shard") + 1];
    check(`${cl}: --shard $(JOB_COMPLETION_INDEX)/completions`,
      args.includes("--shard") && shard === `$(JOB_COMPLETION_INDEX)/${n}`,
      `--shard is '${shard}', must be '$(JOB_COMPLETION_INDEX)/${n}' (N = spec.completions)`);
    const idx = (c.env || []).find((v) => v.name === "JOB_COMPLETION_INDEX");
    check(`${cl}: the index from the pod's annotation`,
      idx?.valueFrom?.fieldRef?.fieldPath ===
        "metadata.annotations['batch.kubernetes.io/job-completion-index']",
      "JOB_COMPLETION_INDEX must be declared from fieldRef metadata.annotations" +
      "['batch.kubernetes.io/job-completion-index']");
    check(`${cl}: JSON Lines`, args[0] === "scan" && args[args.indexOf("--format") + 1] === "jsonl",
      "scan --format jsonl: one item a line in the log");
    check(`${cl}: a bucket prefix`, /^s3:\/\/[^/]+\/(.*\/)?$/.test(args[args.length - 1] || ""),
      `the last argument '${args[args.length - 1]}' must be an s3://BUCKET/PREFIX/ to list`);
    const m = (c.volumeMounts || []).find((x) => x.mountPath === "/tmp");
    check(`${cl}: /tmp on an emptyDir`, m && volumes.get(m.name)?.emptyDir && !m.readOnly,
      "no writable emptyDir at /tmp (--output's report is written there)");
  }
}

// ---- a kustomization -----------------------------------------------------------------------

const KUSTOMIZE_KEYS = new Set(["apiVersion", "kind", "namespace", "labels", "commonLabels",
  "commonAnnotations", "resources", "images", "namePrefix", "nameSuffix", "patches", "components",
  "configMapGenerator", "secretGenerator", "generatorOptions", "replicas"]);

async function checkDir(dir) {
  const kfile = path.join(dir, "kustomization.yaml");
  const k = YAML.parse(fs.readFileSync(kfile, "utf8"));
  check(`${dir}: kustomization kind`, k?.apiVersion === "kustomize.config.k8s.io/v1beta1" &&
    k?.kind === "Kustomization", "apiVersion/kind of a Kustomization");
  const unknown = Object.keys(k || {}).filter((x) => !KUSTOMIZE_KEYS.has(x));
  check(`${dir}: kustomization fields`, unknown.length === 0, `unknown: ${unknown.join(", ")}`);
  check(`${dir}: namespace chosen by kustomize`,
    typeof k?.namespace === "string" && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(k.namespace) &&
    k.namespace !== "default", `namespace '${k?.namespace}' (a DNS label, not default)`);
  const listed = (k?.resources || []).slice().sort();
  const present = fs.readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml").sort();
  check(`${dir}: resources list every manifest`,
    JSON.stringify(listed) === JSON.stringify(present),
    `resources ${listed.join(", ")} vs files ${present.join(", ")}`);

  for (const file of listed.filter((f) => present.includes(f))) {
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    const docs = YAML.parseAllDocuments(text);
    for (const [i, doc] of docs.entries()) {
      const label = `${file}#${i}`;
      check(`${label}: YAML`, doc.errors.length === 0, doc.errors.map((e) => e.message).join("; "));
      if (doc.errors.length) continue;
      const obj = doc.toJSON();
      if (obj === null) continue;
      const name = `${file} ${obj.kind}/${obj.metadata?.name}`;
      await schemaChecks(obj, name);
      check(`${name}: no metadata.namespace`, obj.metadata?.namespace === undefined,
        `metadata.namespace '${obj.metadata?.namespace}': the namespace is kustomize's`);
      const strings = JSON.stringify(obj);
      check(`${name}: no default namespace`, !/\.default\.svc|"namespace":"default"/.test(strings),
        "names the default namespace");
      const spec = obj.spec?.template?.spec ?? (obj.kind === "Pod" ? obj.spec : undefined);
      if (spec) {
        restrictedChecks(spec, name);
        pt2scopeChecks(spec, name);
      }
      if (obj.kind === "Job") scanJobChecks(obj, name);
    }
  }
}

// ---- main ------------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const expectFail = argv[0] === "--expect-fail";
const dir = expectFail ? argv[1] : argv[0];
if (!dir) {
  console.error("usage: check.mjs [--expect-fail] DIR");
  process.exit(2);
}
await checkDir(dir);
let pass = 0, fail = 0;
if (!expectFail) {
  for (const r of results) {
    if (r.ok) pass++;
    else fail++;
    console.log(r.ok ? `ok   ${r.name}` : `FAIL ${r.name}: ${r.why}`);
  }
} else {
  // Every fragment of expect.txt must be in some failure: the checks can fail.
  const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.why}`);
  const want = fs.readFileSync(path.join(dir, "expect.txt"), "utf8").split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"));
  for (const w of want) {
    const hit = failures.find((f) => f.includes(w));
    if (hit) pass++;
    else fail++;
    console.log(hit ? `ok   caught: ${w}` : `FAIL not caught: ${w}`);
  }
  if (fail) console.log(`failures reported:\n  ${failures.join("\n  ")}`);
}
console.log(`= ${pass} ok, ${fail} failing`);
process.exit(fail ? 1 : 0);
