/**
 * BACKWARD compatibility of every Avro schema against its previously committed version, asked of
 * the real schema registry (docs/operations.md, "Schema evolution"). For each file of
 * libs/messaging/schemas whose git history holds an earlier version, that version is registered
 * under a subject of this test's own (compatibility BACKWARD), then the registry is asked whether
 * the working tree's version is compatible with it (`POST /compatibility/subjects/<subject>/versions/latest`);
 * a refusal fails with the registry's reason. avsc's resolver gives its verdict beside. A file
 * with one committed version has nothing to compare: the test says so and is skipped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { backwardIncompatibility } from '@settle/messaging';
import { infra, schemaHistory } from '@settle/testing';

const REGISTRY_JSON = 'application/vnd.schemaregistry.v1+json';
const run = randomBytes(4).toString('hex');
const subjects: string[] = [];

/** One call to the registry's Confluent-compatible API; its status and JSON body. */
async function registry(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${infra.registryUrl}${path}`, {
    method,
    headers: { accept: REGISTRY_JSON, ...(body ? { 'content-type': REGISTRY_JSON } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await answer.text();
  return { status: answer.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A subject of this run's own, at compatibility BACKWARD, holding `previous` as its only version. */
async function subjectWith(type: string, previous: string): Promise<string> {
  const subject = `settle-compat-${run}-${type}`;
  subjects.push(subject);
  expect((await registry('PUT', `/config/${subject}`, { compatibility: 'BACKWARD' })).status).toBe(200);
  const registered = await registry('POST', `/subjects/${subject}/versions`, { schema: previous });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  return subject;
}

/**
 * The registry's verdict on `candidate` against the subject's latest version: `null` when
 * compatible, else its reason (the compatibility answer gives none on Apicurio, so the reason is
 * the registration's refusal, which stores nothing).
 */
async function refusal(subject: string, candidate: string): Promise<string | null> {
  const answer = await registry('POST', `/compatibility/subjects/${subject}/versions/latest?verbose=true`, { schema: candidate });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  if (answer.body.is_compatible === true) return null;
  const messages = Array.isArray(answer.body.messages) ? (answer.body.messages as string[]) : [];
  const attempt = await registry('POST', `/subjects/${subject}/versions`, { schema: candidate });
  return [
    ...messages,
    `registering it answers ${attempt.status}: ${typeof attempt.body.message === 'string' ? attempt.body.message : JSON.stringify(attempt.body)}`,
  ].join('; ');
}

afterAll(async () => {
  for (const subject of subjects) {
    await registry('DELETE', `/subjects/${subject}`).catch(() => undefined);
    await registry('DELETE', `/subjects/${subject}?permanent=true`).catch(() => undefined);
  }
});

const history = schemaHistory();

describe('schemas evolve with BACKWARD compatibility (the schema registry decides)', () => {
  if (!history.available) {
    console.warn(`[schema compatibility] skipped: ${history.reason}`);
    it.skip(`skipped: ${history.reason}`, () => undefined);
    return;
  }
  for (const schema of history.schemas) {
    if (!schema.previous) {
      const reason = `${schema.file}: ${schema.versions} committed version${schema.versions === 1 ? '' : 's'}, none that differs from the working tree: nothing to compare`;
      console.info(`[schema compatibility] ${reason}`);
      it.skip(reason, () => undefined);
      continue;
    }
    const previous = schema.previous;
    it(`${schema.file}: the working tree's version reads what ${previous.commit.slice(0, 10)}'s wrote`, async () => {
      const subject = await subjectWith(schema.type, previous.text);
      const registryReason = await refusal(subject, schema.current);
      const avscReason = backwardIncompatibility(previous.text, schema.current);
      console.info(
        `[schema compatibility] ${schema.file} against ${previous.commit.slice(0, 10)}: registry ${registryReason ?? 'compatible'}, avsc ${avscReason ?? 'compatible'}`,
      );
      expect(registryReason, `${schema.file} is not BACKWARD compatible with its version of ${previous.commit}`).toBeNull();
      expect(avscReason, `avsc cannot resolve ${schema.file} from its version of ${previous.commit}`).toBeNull();
    });
  }

  it('the check can fail: a field added without a default is refused, with the reason', async () => {
    const [first] = history.schemas;
    const parsed = JSON.parse(first!.current) as { fields: unknown[] };
    const breaking = JSON.stringify({ ...parsed, fields: [...parsed.fields, { name: 'required_without_default', type: 'string' }] });
    const subject = await subjectWith(`${first!.type}-breaking`, first!.current);
    const reason = await refusal(subject, breaking);
    expect(reason).toMatch(/409/);
    expect(reason).toMatch(/required_without_default|fields/);
    expect(backwardIncompatibility(first!.current, breaking)).toMatch(/required_without_default/);
  });
});
