#!/usr/bin/env node
// An independent Component Authentication Claims server (v2) on Fastify 5, written from the
// interface description alone, the way a Fastify team writes one: route schemas validated by
// Ajv, an encapsulated `/v2/api` plugin with its own not-found handler, `setErrorHandler`, and
// the plugins such a team installs: @fastify/rate-limit, @fastify/compress, @fastify/helmet,
// @fastify/cors (package.json pins them; `npm ci` in this folder installs them).
//
// Usage: node server.js [--port 0] [--rate-limit N] [--variant NAME ...] [--list-variants]
// The first line on stdout is `listening on http://127.0.0.1:PORT`. Variants also come from
// INDEP_VARIANTS (comma separated).
//
// It keeps state: a successful Authorize records its model as the claim of (component,
// environment); Auth Claims returns the current claim; the Authorize answer carries the claim
// it replaced (`previous_model`).
//
// Its choices where the description is silent (fastify.yaml declares them):
// - modelUuid travels in the request header `X-Model-Id` (variant `model-query`: the query
//   parameter `modelUuid`); missing: 417 (the route's header schema); a uuid the component has
//   no model of: 404.
// - Credentials are checked in an onRequest hook: a missing, empty or wrong X-Client-Id /
//   X-Client-Secret: 401, with `WWW-Authenticate`. X-Auth-Token missing or wrong where the
//   component requires auth: 401; a token sent to a component that does not require auth is
//   checked all the same (those components have none, so any token is a 401).
// - X-Project-Env other than `dev` / `live`: 417 (header schema, Ajv's items). None: `dev`.
// - An unknown ref: 404. Names and tags match in any letter case; a uuid in any letter case.
// - Bodies: Fastify's JSON parser. A body that is not JSON (or is empty): 400; a POST whose
//   Content-Type is not JSON: Fastify's 415; over 32 KiB: Fastify's 413. Each then made the
//   description's envelope by the error handler.
// - Field rules are JSON Schema, compiled per component by Ajv (allErrors, no type coercion):
//   a field the settings do not define is refused (417); lengths count code points; an integer
//   written 4.0 is an integer (JSON Schema says so).
// - 417 `errors` items are Ajv's own error objects {instancePath, schemaPath, keyword, params,
//   message}.
// - A GET body is not validated (Fastify may parse it; its fields are ignored).
// - `code` is the HTTP status; `request_id` is Fastify's request id (`req-` and a counter).
// - X-Project-Uuid only on error answers. helmet's security headers and CORS headers on every
//   answer; @fastify/rate-limit's x-ratelimit-* headers too.
// - Success: Auth Claims 200 {ok: true, data: {component: {uuid, name, tag, requires_auth},
//   env, model: uuid | null, claimed_at: date | null}}; Authorize 200 {ok: true, data:
//   {component, env, model, previous_model: uuid | null, authorized_at}}. No token is issued.
// - Each component has two models; claims are kept per (component, environment).
// - Rate limit: @fastify/rate-limit, a fixed window of one second per client address,
//   `--rate-limit N` requests (default 200; 0 turns it off); over it: 429 in the 7.1 shape with
//   the plugin's Retry-After (seconds) and X-Project-Uuid.
// - Compression: @fastify/compress, br, gzip or deflate as Accept-Encoding asks, for answers
//   over 128 bytes.
// - Outside /v2/api Fastify answers as Fastify does (its JSON 404 `Route GET:/x not found`).
//   Under /v2/api, another path: 404 in the envelope; another method on the interface's path:
//   405 with Allow; a URL Fastify cannot decode or a ref over its parameter length: Fastify's
//   400 / 414, in the envelope (`frameworkErrors`).
//
// Variants (`fault-...` are bugs real teams ship, not choices):
// - `model-query`: modelUuid in the query parameter `modelUuid`, not the header.
// - `limit-by-client`: the rate limit kept per X-Client-Id instead of per address.
// - `fault-env-leak`: claims stored without their environment (made in dev, read in live).
// - `fault-limit-text`: the rate limiter answers text/plain, without X-Project-Uuid.
// - `fault-compressed-no-content-type`: a compressed answer loses its Content-Type.
// - `fault-ajv-coerce`: the body validator coerces types, as Fastify's own Ajv does ("7" is
//   taken for 7, 1 for true).
// - `fault-framework-errors`: no `frameworkErrors`: a URL Fastify cannot decode gets Fastify's
//   own 400, outside the envelope.

'use strict';

const crypto = require('node:crypto');
const Fastify = require('fastify');
const Ajv = require('ajv');

const PROJECT_UUID = 'e4d3c2b1-a098-4f7e-8d6c-5b4a39281706';
const CLIENT_ID = 'fastify-client';
const CLIENT_SECRET = 'fy-secret-Lm2v';
const BODY_LIMIT = 32 * 1024;
const DEFAULT_RATE = 200;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const VARIANTS = {
  'model-query': 'modelUuid in the query parameter `modelUuid`, not the X-Model-Id header',
  'limit-by-client': 'the rate limit kept per X-Client-Id, not per client address',
  'fault-env-leak': 'FAULT: claims stored without their environment',
  'fault-limit-text': 'FAULT: the rate limiter answers text/plain without X-Project-Uuid',
  'fault-compressed-no-content-type': 'FAULT: a compressed answer loses its Content-Type',
  'fault-ajv-coerce': 'FAULT: the body validator coerces types ("7" taken for 7)',
  'fault-framework-errors': "FAULT: a URL Fastify cannot decode gets Fastify's own 400",
};

const COMPONENTS = [
  {
    name: 'Inventory',
    tag: 'inv',
    uuid: 'c0ffee00-1234-4abc-9def-0123456789ab',
    requiresAuth: true,
    tokens: ['inv-token-fy-9001'],
    models: ['aa11bb22-cc33-4d44-8e55-ff6677889900', 'bb22cc33-dd44-4e55-9f66-00778899aabb'],
    schema: {
      type: 'object',
      required: ['sku', 'quantity', 'api_key'],
      additionalProperties: false,
      properties: {
        sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' },
        quantity: { type: 'integer', minimum: 1, maximum: 999 },
        api_key: { type: 'string', minLength: 16, maxLength: 64 },
      },
    },
  },
  {
    name: 'Mail Relay',
    tag: 'mail-relay',
    uuid: '5e1a7b2c-3d4e-4f50-a1b2-c3d4e5f60718',
    requiresAuth: false,
    tokens: [],
    models: ['11aa22bb-33cc-4dd4-a5ee-66ff77008811', '22bb33cc-44dd-4ee5-b6ff-770088119922'],
    schema: {
      type: 'object',
      required: ['sender'],
      additionalProperties: false,
      properties: {
        sender: { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' },
        priority: { type: 'string', enum: ['low', 'normal', 'high'] },
      },
    },
  },
  {
    name: 'Zürich Tram',
    tag: 'zurich-tram',
    uuid: '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
    requiresAuth: false,
    tokens: [],
    models: ['33cc44dd-55ee-4ff6-87a8-99b0c1d2e3f4', '44dd55ee-66ff-4a07-98b9-a0c1d2e3f405'],
    schema: {
      type: 'object',
      required: ['line'],
      additionalProperties: false,
      properties: {
        line: { type: 'integer', minimum: 2, maximum: 17 },
        night: { type: 'boolean' },
      },
    },
  },
];

function parseArgs(argv) {
  const out = {
    port: 0,
    rate: DEFAULT_RATE,
    variants: (process.env.INDEP_VARIANTS || '').split(',').map((s) => s.trim()).filter(Boolean),
  };
  const fail = (msg) => {
    console.error(`error: ${msg}`);
    console.error('usage: node server.js [--port 0] [--rate-limit N] [--variant NAME ...] [--list-variants]');
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--list-variants') {
      for (const [k, v] of Object.entries(VARIANTS)) console.log(`${k}: ${v}`);
      process.exit(0);
    }
    if (!['--port', '--rate-limit', '--variant'].includes(arg)) fail(`unknown argument \`${arg}\``);
    const value = argv[++i];
    if (value === undefined) fail(`${arg} needs a value`);
    if (arg === '--variant') {
      out.variants.push(value);
      continue;
    }
    if (!/^[0-9]+$/.test(value)) fail(`${arg} takes a whole number, not \`${value}\``);
    if (arg === '--port') out.port = Number(value);
    else out.rate = Number(value);
  }
  const unknown = out.variants.filter((v) => !(v in VARIANTS));
  if (unknown.length) fail(`unknown variant(s) ${unknown.join(', ')}; see --list-variants`);
  out.variants = new Set(out.variants);
  return out;
}

/** An HTTP error the error handler turns into the envelope. */
function httpError(statusCode, message, headers = {}) {
  const err = new Error(message);
  err.statusCode = statusCode;
  err.headers = headers;
  return err;
}

function sameSecret(given, expected) {
  const a = Buffer.from(String(given), 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

function findComponent(ref) {
  const folded = ref.toLowerCase();
  return (
    COMPONENTS.find(
      (c) => c.name.toLowerCase() === folded || c.tag.toLowerCase() === folded || (UUID_RE.test(ref) && c.uuid === folded),
    ) || null
  );
}

async function build({ rate, variants }) {
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: 200 },
    // URLs Fastify cannot route (a ref that is not UTF-8 once decoded, a ref over the parameter
    // length) are answered here: on this interface's path they must be the description's errors.
    frameworkErrors: variants.has('fault-framework-errors')
      ? undefined
      : (err, request, reply) => {
          reply
            .code(err.statusCode || 400)
            .header('x-project-uuid', PROJECT_UUID)
            .send({ code: err.statusCode || 400, message: err.message, request_id: request.id, status: false });
        },
  });

  // Body validation: one Ajv, one compiled schema per component. Fastify's own Ajv (route
  // schemas) coerces types; the bodies' must not.
  const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: variants.has('fault-ajv-coerce') });
  const validators = new Map(COMPONENTS.map((c) => [c.uuid, ajv.compile(c.schema)]));

  const claims = new Map();
  const claimKey = (component, env) => (variants.has('fault-env-leak') ? component.uuid : `${component.uuid} ${env}`);

  await app.register(require('@fastify/helmet'), { global: true });
  await app.register(require('@fastify/cors'), {
    origin: ['https://console.example.com'],
    methods: ['GET', 'POST'],
    allowedHeaders: ['X-Client-Id', 'X-Client-Secret', 'X-Auth-Token', 'X-Project-Env', 'X-Model-Id', 'Content-Type'],
  });
  await app.register(require('@fastify/compress'), { global: true, threshold: 128, encodings: ['br', 'gzip', 'deflate'] });
  if (rate > 0 && variants.has('fault-limit-text')) {
    // The faulty limiter also limits the server's 30th request, whatever
    // the window holds: however slow the machine, a run meets it.
    let seen = 0;
    app.addHook('onRequest', async (request, reply) => {
      seen += 1;
      if (seen === 30) {
        reply.header('retry-after', '1');
        const err = new Error('Rate limit exceeded, retry in 1 second');
        err.statusCode = 429;
        throw err;
      }
    });
  }
  if (rate > 0) {
    await app.register(require('@fastify/rate-limit'), {
      global: true,
      max: rate,
      timeWindow: 1000,
      keyGenerator: variants.has('limit-by-client')
        ? (request) => `client ${request.headers['x-client-id'] || request.ip}`
        : (request) => request.ip,
      errorResponseBuilder: (request, context) => httpError(context.statusCode, `Rate limit exceeded, retry in ${context.after}`),
    });
  }

  app.setErrorHandler((err, request, reply) => {
    if (err.validation) {
      return reply.code(417).send({ code: 417, errors: err.validation, status: false });
    }
    const status = err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (status === 429 && variants.has('fault-limit-text')) {
      return reply.code(429).type('text/plain; charset=utf-8').send(`${err.message}\n`);
    }
    if (status >= 500) console.error(err);
    for (const [name, value] of Object.entries(err.headers || {})) reply.header(name, value);
    return reply.code(status).send({
      code: status,
      message: status >= 500 ? 'Internal Server Error' : err.message,
      request_id: request.id,
      status: false,
    });
  });

  await app.register(
    async (api) => {
      api.addHook('onSend', async (request, reply, payload) => {
        const type = String(reply.getHeader('content-type') || '');
        if (reply.statusCode >= 400 && type.startsWith('application/json')) reply.header('x-project-uuid', PROJECT_UUID);
        return payload;
      });

      if (variants.has('fault-compressed-no-content-type')) {
        // A route-level onSend hook, added after @fastify/compress's own (which it adds to each
        // route), that drops the Content-Type of whatever was compressed.
        api.addHook('onRoute', (routeOptions) => {
          const strip = async (request, reply, payload) => {
            if (reply.getHeader('content-encoding')) reply.removeHeader('content-type');
            return payload;
          };
          routeOptions.onSend = [].concat(routeOptions.onSend || [], strip);
        });
      }

      api.setNotFoundHandler((request, reply) => {
        reply.code(404).send({
          code: 404,
          message: `Route ${request.method}:${request.url.split('?')[0]} not found`,
          request_id: request.id,
          status: false,
        });
      });

      // Client credentials, then the component and its token: before the body is read.
      const authenticate = async (request) => {
        const id = request.headers['x-client-id'];
        const secret = request.headers['x-client-secret'];
        const challenge = { 'www-authenticate': 'ClientCredentials realm="v2"' };
        if (!id || !secret) throw httpError(401, 'X-Client-Id and X-Client-Secret are required', challenge);
        const idOk = sameSecret(id, CLIENT_ID);
        const secretOk = sameSecret(secret, CLIENT_SECRET);
        if (!idOk || !secretOk) throw httpError(401, 'The client credentials are not valid', challenge);
      };

      const component = (request) => {
        const c = findComponent(request.params.ref);
        if (!c) throw httpError(404, 'No component has this name, tag or uuid');
        const token = request.headers['x-auth-token'];
        if (c.requiresAuth && !token) throw httpError(401, 'This component requires an X-Auth-Token');
        if (token !== undefined && !c.tokens.some((t) => sameSecret(token, t))) {
          throw httpError(401, 'The X-Auth-Token is not valid for this component');
        }
        return c;
      };

      const envHeader = { 'x-project-env': { type: 'string', enum: ['dev', 'live'] } };
      const modelInQuery = variants.has('model-query');

      api.get('/component/:ref/auth', {
        onRequest: authenticate,
        schema: { headers: { type: 'object', properties: envHeader } },
        handler: async (request) => {
          const c = component(request);
          const env = request.headers['x-project-env'] || 'dev';
          const claim = claims.get(claimKey(c, env)) || null;
          return {
            ok: true,
            data: {
              component: { uuid: c.uuid, name: c.name, tag: c.tag, requires_auth: c.requiresAuth },
              env,
              model: claim ? claim.model : null,
              claimed_at: claim ? claim.at : null,
            },
          };
        },
      });

      api.post('/component/:ref/auth', {
        onRequest: authenticate,
        schema: modelInQuery
          ? {
              headers: { type: 'object', properties: envHeader },
              querystring: {
                type: 'object',
                required: ['modelUuid'],
                properties: { modelUuid: { type: 'string', pattern: UUID_RE.source } },
              },
            }
          : {
              headers: {
                type: 'object',
                required: ['x-model-id'],
                properties: { ...envHeader, 'x-model-id': { type: 'string', pattern: UUID_RE.source } },
              },
            },
        handler: async (request) => {
          const c = component(request);
          const validate = validators.get(c.uuid);
          if (!validate(request.body)) {
            const err = new Error('body validation failed');
            err.validation = validate.errors;
            throw err;
          }
          const model = (modelInQuery ? request.query.modelUuid : request.headers['x-model-id']).toLowerCase();
          if (!c.models.includes(model)) throw httpError(404, 'The component has no model with this uuid');
          const env = request.headers['x-project-env'] || 'dev';
          const key = claimKey(c, env);
          const previous = claims.get(key) || null;
          const at = new Date().toISOString();
          claims.set(key, { model, at });
          return {
            ok: true,
            data: { component: c.uuid, env, model, previous_model: previous ? previous.model : null, authorized_at: at },
          };
        },
      });

      api.route({
        method: ['PUT', 'DELETE', 'PATCH'],
        url: '/component/:ref/auth',
        handler: async (request) => {
          throw httpError(405, `${request.method} is not allowed here`, { allow: 'GET, HEAD, POST' });
        },
      });
    },
    { prefix: '/v2/api' },
  );

  return app;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const app = await build(options);
  await app.listen({ port: options.port, host: '127.0.0.1' });
  console.log(`listening on http://127.0.0.1:${app.server.address().port}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
