#!/usr/bin/env node
// An independent Component Authentication Claims server: Node 20, `node:http` only (no npm).
//
// Written from /work/shared/interface-description.md alone, as another team would write it.
// Where the description says "not shown", this server makes its own choices, on purpose unlike
// both the project's reference server and python_server.py, so the conformance gate can be
// shown not to fail a correct server for a choice the description leaves open.
//
// Usage: node node_server.js [--port 0] [--variant NAME ...] [--list-variants]
// The first line on stdout is `listening on http://127.0.0.1:PORT`.
// Variants also come from INDEP_VARIANTS (comma separated).
//
// Choices where the description is silent (each documented in node.yaml too):
// - modelUuid travels in the query parameter `modelUuid`.
// - A missing credential header (X-Client-Id, X-Client-Secret, or X-Auth-Token where the
//   component requires auth), or an empty one: validation failed, 417 (7.2 shape).
// - A wrong X-Client-Id / X-Client-Secret / X-Auth-Token: 401 `{code, message, status}` (no
//   request_id: the description gives no shape to statuses other than 400 and 417).
// - An X-Project-Env other than `dev` or `live`: 417. No X-Project-Env: `dev`.
// - A body that is not JSON, or not a JSON object, or fails the field rules, or no/invalid
//   modelUuid: 417; `errors` items are `{path, message}`.
// - A ref that cannot be decoded (not UTF-8, a NUL): 400 in the 7.1 shape (request_id a uuid).
// - An unknown ref: 404 `{code, message, status}`; a modelUuid the component has no model of: 403.
// - Another method on the path: 405 with Allow; any other path: 404.
// - A body over 16 KiB: 413. A Content-Type on a POST that is not JSON: 415.
// - `code` is the HTTP status. X-Project-Uuid only on errors (variant `xpu-always`: on every
//   answer). Every answer has `Cache-Control: no-store` and `Vary` (variant `etag`: an ETag too).
// - Success: Auth Claims 200 `{component, claimedBy: {modelUuid}, environment}`; Authorize 201
//   `{authorization: {token, modelUuid, expiresIn}}` with a Location header.
// - Names and tags match ignoring letter case (variant `refs-exact`: letter case matters); a
//   uuid matches in any letter case (variant `uuid-compact`: also without hyphens).
// - An X-Auth-Token sent to a component that does not require auth is still checked (401 when
//   it is not valid there).
// - The Auth Claims body is ignored.

'use strict';

const http = require('node:http');
const crypto = require('node:crypto');

const PROJECT_UUID = '2c7e4a91-5d3b-4f6e-a8c0-9b1d3e5f7a24';
const CLIENT_ID = 'node-client';
const CLIENT_SECRET = 'node-secret-Kp8w';
const BODY_LIMIT = 16 * 1024;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const COMPONENTS = [
  {
    name: 'Vault',
    tag: 'vault',
    uuid: '7c1d2e3f-4a5b-4c6d-9e7f-8a9b0c1d2e3f',
    requiresAuth: true,
    token: 'vault-token-node-4242',
    models: ['3d4e5f60-7182-4a3b-9c4d-5e6f70819203'],
    fields: {
      username: { type: 'string', required: true, min: 3, max: 32 },
      secret: { type: 'string', required: true, min: 8, max: 128 },
    },
  },
  {
    name: 'Metrics',
    tag: 'metrics',
    uuid: '0e9d8c7b-6a59-4483-b2a1-f0e9d8c7b6a5',
    requiresAuth: false,
    token: null,
    models: ['44556677-8899-4aab-bccd-deeff0011223'],
    fields: {
      bucket: { type: 'string', required: true, enum: ['cpu', 'memory', 'disk'] },
      limit: { type: 'integer', required: false, min: 1, max: 1000 },
    },
  },
  {
    name: 'Ñandú Café',
    tag: 'nandu-cafe',
    uuid: 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b',
    requiresAuth: false,
    token: null,
    models: ['a0b1c2d3-e4f5-4061-8293-a4b5c6d7e8f9'],
    fields: {
      seats: { type: 'integer', required: true, min: 1, max: 12 },
      outdoor: { type: 'boolean', required: false },
    },
  },
];

const VARIANTS = {
  'xpu-always': 'X-Project-Uuid on every answer, not only on errors',
  'refs-exact': 'names and tags match only in their own letter case',
  'uuid-compact': 'a uuid ref also matches without hyphens',
  etag: 'an ETag header on every answer',
  chunked: 'answers sent chunked, without Content-Length',
  'unknown-ref-417': 'an unknown ref fails validation: 417 (7.2), not 404',
  'strict-content-type': 'an Authorize without Content-Type is 415, not parsed',
  'short-keep-alive': 'an idle kept-alive connection is closed after 20 ms (Node: keepAliveTimeout)',
  'rate-limit': 'at most 100 requests a second (bursts of 40): 429 with Retry-After: 1',
  // Faults, not legal variants: the gate must fail the server with each.
  'fault-env-case': 'FAULT: X-Project-Env compared ignoring letter case (DEV taken for dev)',
  'fault-html-405': 'FAULT: another method on the path answered with an HTML page',
};

// token -> {component uuid, model uuid}
const issued = new Map();

class Refusal extends Error {
  constructor(status, body, headers = {}) {
    super(body.message || 'refused');
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

// A framework's own error page (only with a `fault-` variant).
class Html extends Error {
  constructor(status, page) {
    super(page);
    this.status = status;
    this.page = page;
  }
}

const invalid = (errors) => new Refusal(417, { code: 417, errors, status: false });
const plain = (status, message, headers) =>
  new Refusal(status, { code: status, message, status: false }, headers);
const badRequest = (message) =>
  new Refusal(400, { code: 400, message, request_id: crypto.randomUUID(), status: false });

function sameSecret(given, expected) {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function findComponent(ref, variants) {
  const exact = variants.has('refs-exact');
  const fold = (s) => (exact ? s : s.toLowerCase());
  let asUuid = ref.toLowerCase();
  if (variants.has('uuid-compact') && /^[0-9a-f]{32}$/.test(asUuid)) {
    asUuid = `${asUuid.slice(0, 8)}-${asUuid.slice(8, 12)}-${asUuid.slice(12, 16)}-${asUuid.slice(16, 20)}-${asUuid.slice(20)}`;
  }
  return (
    COMPONENTS.find(
      (c) =>
        fold(c.name) === fold(ref) ||
        fold(c.tag) === fold(ref) ||
        (UUID_RE.test(asUuid) && asUuid === c.uuid),
    ) || null
  );
}

function validate(component, body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return [{ path: '', message: 'the body must be a JSON object' }];
  }
  const errors = [];
  for (const name of Object.keys(body).sort()) {
    if (!(name in component.fields)) errors.push({ path: name, message: 'unknown field' });
  }
  for (const [name, rule] of Object.entries(component.fields)) {
    if (!(name in body)) {
      if (rule.required) errors.push({ path: name, message: 'required' });
      continue;
    }
    const v = body[name];
    if (rule.type === 'string') {
      if (typeof v !== 'string') {
        errors.push({ path: name, message: 'must be a string' });
      } else if (rule.enum && !rule.enum.includes(v)) {
        errors.push({ path: name, message: `must be one of ${rule.enum.join(', ')}` });
      } else if ((rule.min !== undefined && [...v].length < rule.min) || (rule.max !== undefined && [...v].length > rule.max)) {
        errors.push({ path: name, message: `length must be ${rule.min}..${rule.max}` });
      }
    } else if (rule.type === 'integer') {
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
        errors.push({ path: name, message: 'must be an integer' });
      } else if (v < rule.min || v > rule.max) {
        errors.push({ path: name, message: `must be ${rule.min}..${rule.max}` });
      }
    } else if (rule.type === 'boolean' && typeof v !== 'boolean') {
      errors.push({ path: name, message: 'must be a boolean' });
    }
  }
  return errors;
}

function decodeRef(raw) {
  const bytes = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '%' && /^[0-9a-fA-F]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(raw[i], 'utf8'));
    }
  }
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(bytes));
  } catch {
    throw badRequest('the ref is not UTF-8');
  }
  if (text.includes('\u0000')) throw badRequest('the ref holds a NUL character');
  return text;
}

function header(req, name) {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function handle(req, raw, variants) {
  const url = new URL(req.url, 'http://localhost');
  const m = /^\/v2\/api\/component\/([^/]+)\/auth$/.exec(url.pathname);
  if (!m) throw plain(404, 'no such path');
  if (req.method !== 'GET' && req.method !== 'POST') {
    if (variants.has('fault-html-405')) throw new Html(405, '<html><body><h1>405 Method Not Allowed</h1></body></html>');
    throw plain(405, `${req.method} is not allowed here`, { Allow: 'GET, POST' });
  }

  const missing = [];
  const clientId = header(req, 'x-client-id');
  const clientSecret = header(req, 'x-client-secret');
  if (!clientId) missing.push({ path: 'header.X-Client-Id', message: 'required' });
  if (!clientSecret) missing.push({ path: 'header.X-Client-Secret', message: 'required' });
  if (missing.length) throw invalid(missing);
  if (!sameSecret(clientId, CLIENT_ID) || !sameSecret(clientSecret, CLIENT_SECRET)) {
    throw plain(401, 'the client credentials are not valid');
  }

  const envHeader = header(req, 'x-project-env');
  let env = envHeader === undefined ? 'dev' : envHeader;
  if (variants.has('fault-env-case')) env = env.toLowerCase();
  if (env !== 'dev' && env !== 'live') {
    throw invalid([{ path: 'header.X-Project-Env', message: 'must be dev or live' }]);
  }

  const component = findComponent(decodeRef(m[1]), variants);
  if (!component) {
    if (variants.has('unknown-ref-417')) throw invalid([{ path: 'path.ref', message: 'names no component' }]);
    throw plain(404, 'no component has this ref');
  }

  const token = header(req, 'x-auth-token');
  let claimed = null;
  if (component.requiresAuth && !token) {
    throw invalid([{ path: 'header.X-Auth-Token', message: 'required by this component' }]);
  }
  if (token !== undefined) {
    if (component.token !== null && sameSecret(token, component.token)) {
      claimed = component.models[0];
    } else {
      const bound = issued.get(token);
      if (bound && bound.component === component.uuid) claimed = bound.model;
    }
    if (claimed === null) throw plain(401, 'the X-Auth-Token is not valid for this component');
  }

  if (req.method === 'GET') {
    return {
      status: 200,
      body: {
        component: { uuid: component.uuid, name: component.name, tag: component.tag },
        claimedBy: { modelUuid: claimed || component.models[0] },
        environment: env,
      },
    };
  }

  const type = header(req, 'content-type');
  if (type === undefined && variants.has('strict-content-type')) {
    throw plain(415, 'the body must be sent as application/json');
  }
  if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type.trim())) {
    throw plain(415, 'the body must be sent as application/json');
  }
  let body;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch (e) {
    throw invalid([{ path: '', message: `the body is not JSON: ${e.message}` }]);
  }
  const errors = validate(component, body);
  const model = url.searchParams.get('modelUuid');
  if (model === null) errors.push({ path: 'query.modelUuid', message: 'required' });
  else if (!UUID_RE.test(model.toLowerCase())) errors.push({ path: 'query.modelUuid', message: 'must be a uuid' });
  if (errors.length) throw invalid(errors);
  if (!component.models.includes(model.toLowerCase())) {
    throw plain(403, 'this component has no model with this modelUuid');
  }
  const newToken = `node-issued-${crypto.randomBytes(16).toString('base64url')}`;
  issued.set(newToken, { component: component.uuid, model: model.toLowerCase() });
  return {
    status: 201,
    body: { authorization: { token: newToken, modelUuid: model.toLowerCase(), expiresIn: 3600 } },
    headers: { Location: `/v2/api/component/${component.uuid}/auth` },
  };
}

function send(res, status, payload, headers, variants, isError) {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const all = {
    'Content-Type': 'application/json; charset=utf-8',
    ...(variants.has('chunked') ? {} : { 'Content-Length': body.length }),
    'Cache-Control': 'no-store',
    Vary: 'X-Client-Id, X-Auth-Token, X-Project-Env',
    ...headers,
  };
  if (isError || variants.has('xpu-always')) all['X-Project-Uuid'] = PROJECT_UUID;
  if (variants.has('etag')) all.ETag = `W/"${crypto.createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
  res.writeHead(status, all);
  if (variants.has('chunked')) {
    const half = Math.floor(body.length / 2);
    res.write(body.subarray(0, half));
    res.end(body.subarray(half));
  } else {
    res.end(body);
  }
}

function main() {
  const args = process.argv.slice(2);
  let port = 0;
  const chosen = (process.env.INDEP_VARIANTS || '').split(',').map((s) => s.trim()).filter(Boolean);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--port') port = Number(args[++i]);
    else if (args[i] === '--variant') chosen.push(args[++i]);
    else if (args[i] === '--list-variants') {
      for (const [k, v] of Object.entries(VARIANTS)) console.log(`${k}: ${v}`);
      return;
    } else {
      console.error(`error: unknown argument ${args[i]}`);
      process.exit(2);
    }
  }
  const unknown = chosen.filter((v) => !(v in VARIANTS));
  if (unknown.length) {
    console.error(`error: unknown variant(s) ${unknown.join(', ')}; see --list-variants`);
    process.exit(2);
  }
  const variants = new Set(chosen);

  // A token bucket for `rate-limit`: 40 at once, 100 a second.
  let tokens = 40;
  let refilled = Date.now();
  const overLimit = () => {
    const now = Date.now();
    tokens = Math.min(40, tokens + ((now - refilled) / 1000) * 100);
    refilled = now;
    if (tokens < 1) return true;
    tokens -= 1;
    return false;
  };

  const server = http.createServer((req, res) => {
    const chunks = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > BODY_LIMIT) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (variants.has('rate-limit') && overLimit()) {
        send(res, 429, { code: 429, message: 'too many requests', status: false }, { 'Retry-After': '1' }, variants, true);
        return;
      }
      if (over) {
        send(res, 413, { code: 413, message: `the body is over ${BODY_LIMIT} bytes`, status: false }, {}, variants, true);
        return;
      }
      try {
        const out = handle(req, Buffer.concat(chunks), variants);
        send(res, out.status, out.body, out.headers || {}, variants, false);
      } catch (e) {
        if (e instanceof Html) {
          res.writeHead(e.status, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(e.page) });
          res.end(e.page);
        } else if (e instanceof Refusal) send(res, e.status, e.body, e.headers, variants, true);
        else send(res, 500, { code: 500, message: 'internal error', status: false }, {}, variants, true);
      }
    });
  });
  server.on('clientError', (err, socket) => {
    const body = JSON.stringify({ code: 400, message: 'the request could not be read', request_id: crypto.randomUUID(), status: false });
    if (socket.writable) {
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nX-Project-Uuid: ${PROJECT_UUID}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
  });
  if (variants.has('short-keep-alive')) server.keepAliveTimeout = 20;
  server.listen(port, '127.0.0.1', () => {
    const { address, port: p } = server.address();
    console.log(`listening on http://${address}:${p}`);
  });
}

main();
