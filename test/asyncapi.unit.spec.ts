import { existsSync, readFileSync } from 'node:fs';
import { AvroSchemaParser } from '@asyncapi/avro-schema-parser';
import { Parser, type Diagnostic } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, HEADERS, topicFor, topicNames } from '@settle/messaging';
import { workerConsumerGroups } from '../apps/console/src/overview/kafka-figures.js';
import { APP_TOPICS, ASYNCAPI_FILE, asyncApiDocument, DOCUMENT_PREFIX } from '../scripts/docs/asyncapi.js';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const generated = asyncApiDocument(version);

/** Errors and warnings only (Spectral severities 0 and 1); hints and information are not faults. */
const faults = (diagnostics: Diagnostic[]) =>
  diagnostics.filter((d) => (d.severity as number) <= 1).map((d) => `${d.code} at ${d.path.join('.')}: ${d.message}`);

async function parse(text: string) {
  const parser = new Parser();
  parser.registerSchemaParser(AvroSchemaParser());
  return parser.parse(text, { source: ASYNCAPI_FILE });
}

/** The text between the brackets of `name: [...]` in a source file, as the quoted or `topics.x` items. */
function listAfter(source: string, name: string): string[][] {
  return [...source.matchAll(new RegExp(`${name}: \\[([^\\]]*)\\]`, 'g'))].map((m) =>
    [...m[1]!.matchAll(/'([A-Za-z]+)'|topics\.([A-Za-z]+)/g)].map((x) => x[1] ?? x[2]!),
  );
}

describe('docs/api/asyncapi.yaml', () => {
  it('is what the code gives (run `npm run asyncapi:generate` after a topic, header or schema change)', async () => {
    await expect(generated).toMatchFileSnapshot(ASYNCAPI_FILE);
  });

  it('is a valid AsyncAPI 3.0 document, its Avro payloads parsed as Avro', async () => {
    const { document, diagnostics } = await parse(generated);
    expect(faults(diagnostics)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    const addresses = document!
      .channels()
      .all()
      .map((c) => c.address());
    expect(addresses.sort()).toEqual(Object.values(topicNames(DOCUMENT_PREFIX)).sort());
    const avro = document!
      .components()
      .messages()
      .all()
      .filter((m) => (m.schemaFormat() ?? '').startsWith('application/vnd.apache.avro'))
      .map((m) => m.name() ?? m.id());
    expect(avro.sort()).toEqual([...EVENT_TYPES].sort());
  }, 30_000);

  it('the validation refuses a broken document', async () => {
    const broken = generated.replace('action: receive', 'action: subscribe');
    expect(broken).not.toBe(generated);
    expect(faults((await parse(broken)).diagnostics).length).toBeGreaterThan(0);
  }, 30_000);

  it('every record carries the event type, correlation and causation headers, the W3C trace context while tracing is on, and is keyed', async () => {
    const { document } = await parse(generated);
    const commands = topicNames(DOCUMENT_PREFIX).checkoutCommands;
    for (const type of EVENT_TYPES) {
      const message = document!.components().messages().get(type)!;
      // Upstream producers' commands name their producer instead (docs/api.md, "Two ways in").
      const identity = topicFor(topicNames(DOCUMENT_PREFIX), type) === commands ? [HEADERS.producer] : [HEADERS.correlationId, HEADERS.causationId];
      expect(Object.keys(message.headers()?.properties() ?? {}).sort(), type).toEqual(
        [...identity, HEADERS.eventType, HEADERS.traceparent, HEADERS.tracestate].sort(),
      );
      expect(message.headers()?.required(), type).toEqual([HEADERS.eventType, ...identity]);
      expect(message.bindings().get('kafka')?.value().key, type).toMatchObject({ type: 'string' });
    }
  }, 30_000);

  it('names what each app publishes and consumes as its boot declares (a worker’s module, ingestion’s main.ts)', () => {
    for (const [app, side] of Object.entries(APP_TOPICS)) {
      // A worker declares its loops in its module (`WorkerModule.forRoot`, `@ConsumeBatches`); ingestion in its main.ts.
      const boot = new URL(`../apps/${app}/src/main.ts`, import.meta.url);
      const workerModule = new URL(`../apps/${app}/src/${app}.module.ts`, import.meta.url);
      // Ingestion, an HTTP app, declares its one consumer loop in its commands folder.
      const loops = new URL(`../apps/${app}/src/commands/checkout-commands.consumer.ts`, import.meta.url);
      const source =
        readFileSync(boot, 'utf8').includes('runWorker(') && existsSync(workerModule)
          ? readFileSync(workerModule, 'utf8')
          : readFileSync(boot, 'utf8') + (existsSync(loops) ? readFileSync(loops, 'utf8') : '');
      expect(listAfter(source, 'produces'), app).toEqual([[...side.sends]]);
      expect(listAfter(source, '\\btopics').flat(), app).toEqual([...side.receives]);
    }
  });

  it('gives each worker the consumer group the console watches', () => {
    const fromTable = Object.entries(APP_TOPICS)
      .filter(([, side]) => side.receives.length > 0)
      .map(([app, side]) => ({ worker: app, groupId: `${DOCUMENT_PREFIX}-${app}`, topics: side.receives.map((k) => topicNames(DOCUMENT_PREFIX)[k]) }));
    const byApp = (a: { worker: string }, b: { worker: string }) => a.worker.localeCompare(b.worker);
    expect([...fromTable].sort(byApp)).toEqual([...workerConsumerGroups(DOCUMENT_PREFIX)].sort(byApp));
    for (const group of fromTable) expect(generated).toContain(`- ${group.groupId}`);
  });
});
