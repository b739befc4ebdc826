/**
 * The OpenAPI documents of the HTTP apps (docs/api.md): each committed document is the one its
 * controllers produce, every operation documents its answer, its problems per status and its
 * authentication, and each running app serves its document and a browsable page from itself.
 * App-specific checks follow: ingestion's webhook signatures, the dispatcher's admin key (the
 * console's session and CSRF token are checked in apps/console/test/openapi.unit.spec.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { Pool } from '@settle/platform';
import { PROVIDER_REGISTRY } from '@settle/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInertConsoleApp } from '../apps/console/src/http/openapi/generate.js';
import { OPENAPI_PATHS as CONSOLE_PATHS } from '../apps/console/src/http/openapi/document.js';
import { createInertAdminApi } from '../apps/dispatcher/src/http/openapi/generate.js';
import { OPENAPI_PATHS as DISPATCHER_PATHS } from '../apps/dispatcher/src/http/openapi/document.js';
import { createInertIngestionApp } from '../apps/ingestion/src/http/openapi/generate.js';
import { OPENAPI_PATHS as INGESTION_PATHS } from '../apps/ingestion/src/http/openapi/document.js';
import { WEBHOOK_SIGNATURES } from '../apps/ingestion/src/http/openapi/security.js';
import { CUSTOMER_EVENT_MODULES, readCustomerEventSchemas, renderCustomerEventModule } from '../scripts/docs/customer-events.js';
import { GENERATED_CLIENT_FILES, renderClientFile } from '../scripts/docs/openapi-clients.js';
import { OPENAPI_APPS, openApiDocuments, type OpenApiApp } from '../scripts/docs/openapi-documents.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Operation = {
  summary?: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content?: Record<string, unknown> };
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, { description?: string; content?: Record<string, unknown> }>;
};

/** How each app is built inert and where it serves its document. */
const APPS: Record<OpenApiApp, { inert: (root: string) => Promise<{ app: NestFastifyApplication; pool: Pool }>; paths: { json: string; ui: string } }> = {
  ingestion: { inert: createInertIngestionApp, paths: INGESTION_PATHS },
  dispatcher: { inert: createInertAdminApi, paths: DISPATCHER_PATHS },
  console: { inert: createInertConsoleApp, paths: CONSOLE_PATHS },
};

const documents = openApiDocuments(ROOT);
const built = new Map<OpenApiApp, OpenAPIObject>();

beforeAll(async () => {
  for (const app of OPENAPI_APPS) built.set(app, await documents[app].build());
});

function operationsOf(document: OpenAPIObject): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = (item as Record<string, Operation | undefined>)[method];
      return op ? [{ method, path, op }] : [];
    }),
  );
}

describe.each(OPENAPI_APPS)('the %s OpenAPI document', (app) => {
  const document = () => built.get(app)!;

  it(`is the committed docs/api/${app}-openapi.json (regenerate with npm run openapi:${app})`, () => {
    expect(JSON.parse(readFileSync(documents[app].file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(document())));
  });

  it("states the repository's version and the RFC 9457 problem schema", () => {
    expect(document().info.version).toBe((JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version);
    expect(document().components?.schemas?.Problem).toMatchObject({ required: expect.arrayContaining(['type', 'title', 'status', 'code']) });
  });

  it('gives every operation a summary, a success answer, and its problems per status as RFC 9457 bodies with their codes', () => {
    const operations = operationsOf(document());
    expect(operations.length).toBeGreaterThan(5);
    for (const { method, path, op } of operations) {
      const where = `${method} ${path}`;
      const statuses = Object.keys(op.responses);
      expect(op.summary, where).toBeTruthy();
      expect(
        statuses.some((s) => s.startsWith('2')),
        `${where} has a 2xx`,
      ).toBe(true);
      const problems = statuses.filter((s) => /^[45]/.test(s));
      expect(problems.length, `${where} has problems`).toBeGreaterThan(0);
      for (const s of problems) {
        expect(Object.keys(op.responses[s]!.content ?? {}), `${where} ${s}`).toEqual(['application/problem+json']);
        // Each problem response names its stable codes (docs/errors.md), `AREA.REASON`.
        expect(op.responses[s]!.description, `${where} ${s}`).toMatch(/^`[A-Z_]+\.[A-Z_]+`(, `[A-Z_]+\.[A-Z_]+`)*$/);
      }
      for (const s of statuses.filter((x) => x.startsWith('2') && x !== '204')) {
        // A CSV export (`format=csv`) is the one other representation an answer may offer beside its JSON.
        const types = Object.keys(op.responses[s]!.content ?? {}).filter((type) => type !== 'text/csv');
        expect(types, `${where} ${s} has a JSON body`).toEqual(['application/json']);
      }
    }
  });

  it("lists the HTTP edge's refusals on every operation with a JSON body", () => {
    const withJsonBody = operationsOf(document()).filter(({ path, op }) => op.requestBody && !path.startsWith('/v1/webhooks/'));
    expect(withJsonBody.length).toBeGreaterThan(0);
    for (const { method, path, op } of withJsonBody) {
      expect(op.responses['400']?.description, `${method} ${path}`).toContain('REQUEST.DUPLICATE_KEY');
      expect(op.responses['400']?.description, `${method} ${path}`).toContain('REQUEST.VALIDATION_FAILED');
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['413', '415']));
    }
  });

  it('names only security schemes it defines, and documents every 401 with its codes', () => {
    const schemes = Object.keys(document().components?.securitySchemes ?? {});
    for (const { method, path, op } of operationsOf(document())) {
      for (const requirement of op.security ?? []) for (const name of Object.keys(requirement)) expect(schemes, `${method} ${path}`).toContain(name);
      if (op.security?.length) expect(op.responses['401'], `${method} ${path} documents its 401`).toBeDefined();
    }
  });
});

describe.each(OPENAPI_APPS)('the %s app serving its document', (name) => {
  let inert: { app: NestFastifyApplication; pool: Pool };
  beforeAll(async () => {
    inert = await APPS[name].inert(ROOT);
    await inert.app.init();
    await inert.app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await inert?.app.close();
    await inert?.pool.end();
  });

  it('answers the document as JSON and Swagger UI as a page whose files it serves itself', async () => {
    const { json, ui } = APPS[name].paths;
    const served = await inert.app.inject({ method: 'GET', url: json });
    expect(served.statusCode).toBe(200);
    expect(served.json().paths).toEqual(JSON.parse(JSON.stringify(built.get(name)!.paths)));
    const page = await inert.app.inject({ method: 'GET', url: ui });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    // No file from the internet: every script and style sheet the page names is served by the app.
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets) {
      expect(asset, 'a relative or local path').not.toMatch(/^(https?:)?\/\//);
      // Resolved as a browser would, against the page's URL.
      const url = new URL(asset, `http://settle.invalid${ui}`).pathname;
      expect((await inert.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    }
  });
});

describe("ingestion's document", () => {
  const operations = () => operationsOf(built.get('ingestion')!);
  const operation = (method: string, path: string) => operations().find((o) => o.method === method && o.path === path)!.op;

  it('asks for an API key on the checkout API and the entitlements, an admin key on reconciliation', () => {
    for (const { method, path, op } of operations()) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (path.startsWith('/v1/webhooks/')) continue;
      expect(schemes, `${method} ${path}`).toEqual([path.startsWith('/v1/admin/') ? 'adminApiKey' : 'apiKey']);
      expect(op.responses['401']?.description, `${method} ${path}`).toBe('`AUTH.MISSING_API_KEY`, `AUTH.INVALID_API_KEY`');
    }
  });

  it("authenticates the signed webhook route by any one provider's signature header, the token route by its path", () => {
    const signed = operation('post', '/v1/webhooks/{provider}');
    const names = (signed.security ?? []).map((s) => Object.keys(s));
    // Alternatives, one scheme each: a webhook carries one provider's signature.
    for (const n of names) expect(n).toHaveLength(1);
    const schemes = built.get('ingestion')!.components!.securitySchemes as Record<string, { in: string; name: string }>;
    const headers = names.map(([n]) => schemes[n!]!).map((s) => `${s.in}:${s.name}`);
    expect(headers.sort()).toEqual(['header:flutterwave-signature', 'header:stripe-signature', 'header:verif-hash', 'header:x-paystack-signature']);
    const plain = Object.values(PROVIDER_REGISTRY).filter((d) => d.webhook.route === 'plain');
    for (const d of plain) expect(WEBHOOK_SIGNATURES[d.name].length, d.name).toBeGreaterThan(0);
    expect(signed.parameters?.find((p) => p.name === 'provider')).toMatchObject({ schema: { enum: plain.map((d) => d.name) } });

    const token = operation('post', '/v1/webhooks/{provider}/{token}');
    expect(token.security).toBeUndefined();
    expect(token.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['path:provider', 'path:token']);
    expect(token.responses['403']?.description).toBe('`WEBHOOK.SOURCE_NOT_ALLOWED`');
    expect(signed.responses['503']?.description).toBe('`WEBHOOK.NOT_DURABLE`');
  });

  it("documents the registration's body with its minor units and what verification waits for", () => {
    const body = operation('post', '/v1/checkouts').requestBody?.content?.['application/json'] as {
      schema: { properties: Record<string, { description?: string }>; required: string[] };
    };
    expect(body.schema.required).toEqual(['provider', 'reference', 'amount', 'currency', 'user_id', 'customer', 'entitlement', 'access_period']);
    expect(body.schema.properties.amount!.description).toContain('minor units');
    const wait = operation('post', '/v1/checkouts/{reference}/verify').parameters?.find((p) => p.name === 'wait_ms');
    expect(wait).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 0, maximum: 10_000 } });
  });
});

describe("the dispatcher's document", () => {
  it('asks for the admin key on every admin operation and the merchant key for receipts, and shows a signing secret only where one is made', () => {
    for (const { method, path, op } of operationsOf(built.get('dispatcher')!)) {
      expect(op.security, `${method} ${path}`).toEqual(path.startsWith('/v1/receipts/') ? [{ apiKey: [] }] : [{ adminApiKey: [] }]);
      const answer = Object.entries(op.responses).find(([s]) => s.startsWith('2'))![1];
      const schema = (answer.content?.['application/json'] as { schema?: { properties?: Record<string, unknown> } } | undefined)?.schema;
      const showsSecret = schema?.properties !== undefined && 'secret' in schema.properties;
      expect(showsSecret, `${method} ${path}`).toBe(
        (method === 'post' && path === '/v1/admin/endpoints') || (method === 'post' && path === '/v1/admin/endpoints/{id}/rotate-secret'),
      );
    }
  });
});

describe.each(GENERATED_CLIENT_FILES)('the generated $file', (generated) => {
  it(`is what docs/api/${generated.document}-openapi.json gives (regenerate with npm run openapi)`, async () => {
    expect(readFileSync(`${ROOT}${generated.file}`, 'utf8')).toBe(await renderClientFile(ROOT, generated));
  });
});

describe('the customer event schemas (docs/api/customer-events)', () => {
  const schemas = readCustomerEventSchemas(ROOT);

  it.each(CUSTOMER_EVENT_MODULES)('generate the committed %s (regenerate with npm run openapi)', async (module) => {
    expect(readFileSync(`${ROOT}${module}`, 'utf8')).toBe(await renderCustomerEventModule(ROOT));
  });

  it("use only the keywords the receiver kit's validator applies: string fields with lengths, date-time, enums, a pattern; the integer revision; the receipt object", () => {
    const applied = new Set(['type', 'minLength', 'maxLength', 'format', 'enum', 'description', 'minimum', 'pattern']);
    for (const { kind, schema } of schemas) {
      expect(schema.required, kind).toEqual(expect.arrayContaining(['event_id', 'event', 'entitlement', 'user_id', 'expires_at']));
      expect((schema.properties as Record<string, { enum?: string[] }>).event?.enum, kind).toEqual([kind]);
      const { receipt, ...scalars } = schema.properties as Record<string, Record<string, unknown>>;
      // The one object: the receipt, of an integer position and a hex hash, nothing else (docs/ledger.md, "Receipts").
      expect(receipt, `${kind}.receipt`).toMatchObject({ type: 'object', required: ['ledger_position', 'ledger_hash'], additionalProperties: false });
      const receiptFields = (receipt as { properties: Record<string, Record<string, unknown>> }).properties;
      expect(Object.keys(receiptFields)).toEqual(['ledger_position', 'ledger_hash']);
      expect(receiptFields.ledger_position).toMatchObject({ type: 'integer', minimum: 1 });
      expect(receiptFields.ledger_hash).toMatchObject({ type: 'string', pattern: '^[0-9a-f]{64}$' });
      for (const [field, rule] of Object.entries(scalars)) {
        // The one integer: the entitlement stream's revision (the receiver kit keeps the expiry of the highest one).
        expect(rule.type, `${kind}.${field}`).toBe(field === 'revision' ? 'integer' : 'string');
        if (rule.minimum !== undefined) expect(field, `${kind}.${field}: minimum only on the revision`).toBe('revision');
        expect(rule.pattern, `${kind}.${field}: a pattern only in the receipt`).toBeUndefined();
        expect(
          Object.keys(rule).filter((k) => !applied.has(k)),
          `${kind}.${field}`,
        ).toEqual([]);
        if (rule.format !== undefined) expect(rule.format, `${kind}.${field}`).toBe('date-time');
      }
    }
  });

  it("are the dispatcher document's webhooks, one per kind, each body its kind's schema", () => {
    const webhooks = (
      built.get('dispatcher') as unknown as { 'x-webhooks': Record<string, { post: { requestBody: { content: Record<string, { schema: unknown }> } } }> }
    )['x-webhooks'];
    expect(Object.keys(webhooks)).toEqual(schemas.map((s) => s.kind));
    for (const { kind, schema } of schemas) {
      const { $schema: _dialect, $id: _id, ...body } = schema;
      expect(webhooks[kind]!.post.requestBody.content['application/json']!.schema).toEqual(body);
    }
  });
});
