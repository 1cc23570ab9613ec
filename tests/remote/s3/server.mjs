// Loopback S3 for the remote tests: s3rver (an S3 API on the file system) behind a
// proxy that verifies every request's AWS Signature Version 4, because s3rver
// itself checks only that the access key exists (its V4 check is unimplemented).
//
//   node server.mjs --dir DATADIR --bucket NAME --port-file F --log F
//        [--region us-east-1] [--access-key S3RVER] [--secret S3RVER]
//        [--allow-unsigned] [--parent PID] [KEY=]FILE...
//
// s3rver listens on 127.0.0.1:0 and stores under DATADIR; the bucket is created
// and each FILE uploaded (as KEY, or its base name) before the proxy listens on
// 127.0.0.1:0. Then "PROXYPORT S3RVERPORT" is written to the port file: the
// endpoint (AWS_ENDPOINT_URL) is http://127.0.0.1:PROXYPORT, path-style.
//
// The proxy checks, as S3 does: an Authorization header (AWS4-HMAC-SHA256) or a
// presigned query (X-Amz-Algorithm...); x-amz-content-sha256 present (header
// auth) and equal to the body's hash unless UNSIGNED-PAYLOAD; the credential
// scope (known key, date of x-amz-date, region, service s3, aws4_request); host
// and every x-amz-* header signed; x-amz-date within 15 minutes; the signature
// (canonical request, string to sign, signing key). A failure is answered here
// with S3's XML error (403 SignatureDoesNotMatch, AccessDenied,
// InvalidAccessKeyId, RequestTimeTooSkewed; 400 AuthorizationHeaderMalformed,
// InvalidRequest, XAmzContentSHA256Mismatch) and never reaches s3rver. A request
// without any signature is AccessDenied unless --allow-unsigned.
//
// Every request is logged before its answer is sent, one tab-separated line:
//   METHOD URL RANGE AUTH STATUS CODE
// AUTH: ok (signature verified), bad (signature present, refused), none (unsigned);
// CODE: the S3 error code this proxy answered, or "-" when s3rver answered.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import S3rver from 's3rver';

const opts = {
  dir: null, bucket: null, portFile: null, log: null, region: 'us-east-1',
  accessKey: 'S3RVER', secret: 'S3RVER', allowUnsigned: false, parent: 0, files: [],
};
{
  const argv = process.argv.slice(2);
  const flags = { '--dir': 'dir', '--bucket': 'bucket', '--port-file': 'portFile', '--log': 'log',
    '--region': 'region', '--access-key': 'accessKey', '--secret': 'secret', '--parent': 'parent' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--allow-unsigned') opts.allowUnsigned = true;
    else if (flags[a] && i + 1 < argv.length) opts[flags[a]] = argv[++i];
    else if (a.startsWith('--')) die(`unknown option ${a}`);
    else opts.files.push(a);
  }
  for (const k of ['dir', 'bucket', 'portFile', 'log']) if (!opts[k]) die(`--${k} is required`);
}

function die(msg) {
  process.stderr.write(`s3/server.mjs: ${msg}\n`);
  process.exit(2);
}

const MAX_BODY = 64 << 20;
const EMPTY_SHA256 = crypto.createHash('sha256').update('').digest('hex');

// RFC 3986 unreserved characters stay; everything else is %XX (upper case), as SigV4 wants.
function awsEncode(s, keepSlash) {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function decode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// S3 does not normalise the path: each segment is decoded once and encoded once.
function canonicalPath(rawPath) {
  return rawPath.split('/').map((seg) => awsEncode(decode(seg), false)).join('/') || '/';
}

// [[key, value]...], decoded, or as sent when asSent.
function queryPairs(rawQuery, asSent) {
  if (!rawQuery) return [];
  return rawQuery.split('&').filter((p) => p !== '').map((p) => {
    const i = p.indexOf('=');
    const k = i < 0 ? p : p.slice(0, i);
    const v = i < 0 ? '' : p.slice(i + 1);
    return asSent ? [k, v] : [decode(k), decode(v)];
  });
}

// rawPairs: the query's pairs as sent, not re-encoded (botocore, curl).
function canonicalQuery(pairs, asSent) {
  return pairs
    .map(([k, v]) => (asSent ? [k, v] : [awsEncode(k, false), awsEncode(v, false)]))
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function hmac(key, data) {
  return crypto.createHmac('sha256', key).update(data, 'utf8').digest();
}

class Refusal {
  constructor(status, code, message) {
    Object.assign(this, { status, code, message });
  }
}
const refuse = (status, code, message) => {
  throw new Refusal(status, code, message);
};

function amzDateToMs(d) {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(d || '');
  if (!m) return NaN;
  return Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
}

// Returns 'ok', 'none' (unsigned and allowed) or throws a Refusal.
function verify(req, body) {
  const [rawPath, rawQuery = ''] = req.url.split(/\?(.*)/s);
  const pairs = queryPairs(rawQuery);
  const q = new Map(pairs);
  const auth = req.headers['authorization'];
  const presigned = q.has('X-Amz-Algorithm');
  if (!auth && !presigned) {
    if (opts.allowUnsigned) return 'none';
    refuse(403, 'AccessDenied', 'Access Denied');
  }
  if (auth && presigned) {
    refuse(400, 'InvalidArgument', 'Only one auth mechanism allowed');
  }
  let credential, signedHeaders, signature, amzDate, payloadHash, queryForSig;
  if (auth) {
    const m = /^AWS4-HMAC-SHA256\s+(.*)$/s.exec(auth);
    if (!m) refuse(400, 'InvalidArgument', 'Unsupported Authorization Type');
    const parts = new Map();
    for (const comp of m[1].split(',')) {
      const c = comp.trim();
      const i = c.indexOf('=');
      if (i > 0) parts.set(c.slice(0, i), c.slice(i + 1));
    }
    for (const k of ['Credential', 'SignedHeaders', 'Signature']) {
      if (!parts.get(k)) {
        refuse(400, 'AuthorizationHeaderMalformed',
          `The authorization header is malformed; missing ${k}.`);
      }
    }
    credential = parts.get('Credential');
    signedHeaders = parts.get('SignedHeaders');
    signature = parts.get('Signature');
    amzDate = req.headers['x-amz-date'];
    payloadHash = req.headers['x-amz-content-sha256'];
    if (payloadHash === undefined) {
      refuse(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    }
    queryForSig = (p) => p;
  } else {
    if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
      refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
    }
    credential = q.get('X-Amz-Credential');
    signedHeaders = q.get('X-Amz-SignedHeaders');
    signature = q.get('X-Amz-Signature');
    amzDate = q.get('X-Amz-Date');
    if (!credential || !signedHeaders || !signature || !amzDate || !q.get('X-Amz-Expires')) {
      refuse(400, 'AuthorizationQueryParametersError', 'Query-string authentication version 4 requires the ' +
        'X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.');
    }
    payloadHash = req.headers['x-amz-content-sha256'] || 'UNSIGNED-PAYLOAD';
    queryForSig = (p) => p.filter(([k]) => decode(k) !== 'X-Amz-Signature');
  }

  const scope = credential.split('/');
  if (scope.length !== 5) {
    refuse(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".`);
  }
  const [akid, date, region, service, terminal] = scope;
  if (akid !== opts.accessKey) {
    refuse(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  }
  const t = amzDateToMs(amzDate);
  if (Number.isNaN(t)) refuse(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  if (date !== amzDate.slice(0, 8)) {
    refuse(403, 'SignatureDoesNotMatch', `The credential date ${date} does not match the date of x-amz-date`);
  }
  if (region !== opts.region) {
    refuse(400, 'AuthorizationHeaderMalformed',
      `The authorization header is malformed; the region '${region}' is wrong; expecting '${opts.region}'`);
  }
  if (service !== 's3' || terminal !== 'aws4_request') {
    refuse(403, 'SignatureDoesNotMatch', `Credential should be scoped to correct service: 's3'.`);
  }
  if (auth) {
    if (Math.abs(Date.now() - t) > 15 * 60 * 1000) {
      refuse(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
    }
  } else {
    const expires = Number(q.get('X-Amz-Expires'));
    if (!Number.isInteger(expires) || expires < 1 || expires > 604800) {
      refuse(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires must be between 1 and 604800 seconds');
    }
    if (Date.now() > t + expires * 1000) refuse(403, 'AccessDenied', 'Request has expired');
    if (t - Date.now() > 15 * 60 * 1000) refuse(403, 'RequestTimeTooSkewed', 'Request is not valid yet');
  }

  const names = signedHeaders.split(';');
  if (!names.includes('host')) {
    refuse(403, 'AccessDenied', 'host must be a signed header');
  }
  for (const h of Object.keys(req.headers)) {
    if (h.startsWith('x-amz-') && !names.includes(h)) {
      refuse(403, 'AccessDenied', `There were headers present in the request which were not signed: ${h}`);
    }
  }
  if (payloadHash !== 'UNSIGNED-PAYLOAD') {
    if (!/^[0-9a-f]{64}$/.test(payloadHash)) {
      refuse(400, 'InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a valid sha256 value.');
    }
    const actual = body.length ? crypto.createHash('sha256').update(body).digest('hex') : EMPTY_SHA256;
    if (actual !== payloadHash) {
      refuse(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    }
  }

  const canonicalHeaders = names.map((n) => {
    const v = req.headersDistinct[n];
    if (v === undefined) refuse(403, 'SignatureDoesNotMatch', `signed header ${n} is absent`);
    return `${n}:${v.map((x) => x.trim().replace(/\s+/g, ' ')).join(',')}\n`;
  }).join('');
  let key = hmac(`AWS4${opts.secret}`, date);
  key = hmac(hmac(hmac(key, region), service), 'aws4_request');
  const given = Buffer.from(String(signature));
  // The path and query as SigV4 wants them (each part decoded once, encoded
  // once, sorted), or as sent (sorted): a client that sends them already
  // encoded signs the same bytes either way; botocore and curl sign them as sent.
  const paths = [...new Set([canonicalPath(rawPath), rawPath || '/'])];
  const queries = [...new Set([canonicalQuery(queryForSig(pairs), false),
    canonicalQuery(queryForSig(queryPairs(rawQuery, true)), true)])];
  let match = false;
  for (const cpath of paths) {
    for (const cquery of queries) {
      const canonicalRequest = [req.method, cpath, cquery, canonicalHeaders, signedHeaders, payloadHash].join('\n');
      const stringToSign = ['AWS4-HMAC-SHA256', amzDate, `${date}/${region}/${service}/aws4_request`,
        crypto.createHash('sha256').update(canonicalRequest, 'utf8').digest('hex')].join('\n');
      const expected = Buffer.from(crypto.createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex'));
      if (expected.length === given.length && crypto.timingSafeEqual(expected, given)) match = true;
    }
  }
  if (!match) {
    refuse(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
  return 'ok';
}

const xmlEscape = (s) => String(s).replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function logLine(req, auth, status, code) {
  const f = [req.method, req.url, req.headers['range'] ?? '-', auth, String(status), code || '-'];
  fs.appendFileSync(opts.log, f.map((x) => String(x).replace(/[\t\n]/g, ' ')).join('\t') + '\n');
}

async function main() {
  const dir = path.resolve(opts.dir);
  fs.mkdirSync(dir, { recursive: true });
  fs.closeSync(fs.openSync(opts.log, 'a'));
  const s3 = new S3rver({
    address: '127.0.0.1', port: 0, silent: true, directory: dir,
    configureBuckets: [{ name: opts.bucket, configs: [] }],
  });
  const addr = await s3.run();
  const upstream = { host: '127.0.0.1', port: addr.port };
  const agent = new http.Agent({ keepAlive: true });

  // Upload straight to s3rver (unsigned, which it accepts).
  for (const spec of opts.files) {
    const i = spec.indexOf('=');
    const [key, file] = i > 0 ? [spec.slice(0, i), spec.slice(i + 1)] : [path.basename(spec), spec];
    const data = fs.readFileSync(file);
    const url = `http://127.0.0.1:${addr.port}/${opts.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
    const res = await fetch(url, { method: 'PUT', body: data,
      headers: { 'content-type': 'application/octet-stream' } });
    if (res.status !== 200) die(`upload of ${file} as ${key}: HTTP ${res.status} ${await res.text()}`);
  }

  const proxy = http.createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let auth;
      try {
        auth = verify(req, body);
      } catch (e) {
        if (!(e instanceof Refusal)) throw e;
        const hadSig = Boolean(req.headers['authorization']) || /[?&]X-Amz-Algorithm=/.test(req.url);
        logLine(req, hadSig ? 'bad' : 'none', e.status, e.code);
        const rid = crypto.randomBytes(8).toString('hex').toUpperCase();
        const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>' + e.code +
          '</Code><Message>' + xmlEscape(e.message) + '</Message><RequestId>' + rid +
          '</RequestId></Error>\n';
        res.writeHead(e.status, { 'Content-Type': 'application/xml', 'x-amz-request-id': rid,
          'Content-Length': req.method === 'HEAD' ? 0 : Buffer.byteLength(xml) });
        res.end(req.method === 'HEAD' ? undefined : xml);
        return;
      }
      const headers = { ...req.headers, host: `${upstream.host}:${upstream.port}` };
      const up = http.request({ ...upstream, agent, method: req.method, path: req.url, headers }, (ures) => {
        logLine(req, auth, ures.statusCode, '-');
        res.writeHead(ures.statusCode, ures.rawHeaders);
        ures.pipe(res);
      });
      up.on('error', (err) => {
        logLine(req, auth, 502, 'ProxyError');
        if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`s3rver: ${err.message}\n`);
      });
      up.end(body);
    });
  });
  await new Promise((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(0, '127.0.0.1', resolve);
  });
  if (opts.parent) {
    setInterval(() => {
      try {
        process.kill(Number(opts.parent), 0);
      } catch (e) {
        if (e.code === 'ESRCH') process.exit(0);
      }
    }, 200);
  }
  const stop = () => process.exit(0);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  fs.writeFileSync(`${opts.portFile}.tmp`, `${proxy.address().port} ${addr.port}\n`);
  fs.renameSync(`${opts.portFile}.tmp`, opts.portFile);
}

main().catch((e) => die(e.stack || String(e)));
