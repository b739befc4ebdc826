/**
 * The OpenAPI pieces every HTTP app shares (libs/http/src/openapi/): problem codes merged per
 * status, answer schemas recorded for the API tests, the generator's command line, and the
 * answer-conformance hook (libs/testing/src/answer-conformance.ts) catching an answer that
 * drifts from its document, on a small app of its own.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, HttpCode, Module, Param, Post, Query } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiOperation } from '@nestjs/swagger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { z } from 'zod';
import { ApiAnswer, ApiProblems, buildOpenApiDocument, createEdgeApp, documentedAnswers, JSON_BODY_PROBLEMS, runOpenApiGenerator } from '@settle/http';
import { watchAnswers, type AnswerConformance } from '@settle/testing';

const thing = z.strictObject({ id: z.string(), count: z.number().int() });

/** Answers what the query asks for: the documented shape, a drifted one, or an undocumented status. */
@ApiProblems([503, 'SERVICE.UNAVAILABLE'])
@Controller('v1/things')
class ThingsController {
  @Get(':id')
  @ApiOperation({ summary: 'A thing' })
  @ApiAnswer(200, thing, 'The thing')
  @ApiProblems([404, 'THING.NOT_FOUND'], [503, 'THING.BUSY'])
  read(@Param('id') id: string, @Query('drift') drift?: string): unknown {
    return drift === 'field' ? { id, count: 1, extra: true } : drift === 'type' ? { id, count: 'one' } : { id, count: 1 };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Make a thing' })
  @ApiAnswer(202, thing, 'Accepted')
  @ApiProblems(...JSON_BODY_PROBLEMS)
  make(): unknown {
    return { id: 'x', count: 0 };
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

const controllers = [ThingsController];
let app: NestFastifyApplication;
let answers: AnswerConformance;

beforeAll(async () => {
  app = await createEdgeApp(ThingsModule, { bodyLimitBytes: 1024, metrics: new Registry(), logger: pino({ level: 'silent' }) });
  const document = buildOpenApiDocument(app, { title: 'Things', description: 'Test', version: '1', securitySchemes: {}, pathPrefixes: ['/v1/'], controllers });
  answers = watchAnswers(app, document, controllers);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
});

afterAll(async () => {
  await app?.close();
});

describe('the OpenAPI document builder', () => {
  it("merges a controller's problem codes with its route's, per status, as RFC 9457 bodies", () => {
    const document = buildOpenApiDocument(app, {
      title: 'Things',
      description: 'Test',
      version: '1',
      securitySchemes: {},
      pathPrefixes: ['/v1/'],
      controllers,
    });
    const responses = (document.paths['/v1/things/{id}'] as { get: { responses: Record<string, { description: string; content: unknown }> } }).get.responses;
    expect(responses['404']!.description).toBe('`THING.NOT_FOUND`');
    expect(responses['503']!.description).toBe('`SERVICE.UNAVAILABLE`, `THING.BUSY`');
    expect(responses['503']!.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    expect(Object.keys(document.components?.schemas ?? {})).toContain('Problem');
  });

  it('keys each recorded answer schema by method, Fastify route and status', () => {
    const document = buildOpenApiDocument(app, {
      title: 'Things',
      description: 'Test',
      version: '1',
      securitySchemes: {},
      pathPrefixes: ['/v1/'],
      controllers,
    });
    expect([...documentedAnswers(document, controllers).keys()].sort()).toEqual(['GET /v1/things/:id 200', 'POST /v1/things 202']);
  });
});

describe('the answer-conformance hook', () => {
  it('passes an answer of the documented shape, and names each drift: an extra field, a wrong type, an undocumented status', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/things/a' })).statusCode).toBe(200);
    expect(answers.violations).toEqual([]);
    expect([...answers.checked]).toEqual(['GET /v1/things/:id']);
    await app.inject({ method: 'GET', url: '/v1/things/a?drift=field' });
    await app.inject({ method: 'GET', url: '/v1/things/a?drift=type' });
    await app.inject({ method: 'POST', url: '/v1/things', payload: {} });
    expect(answers.violations).toHaveLength(3);
    expect(answers.violations[0]).toMatch(/^GET \/v1\/things\/:id: .*extra/s);
    expect(answers.violations[1]).toMatch(/^GET \/v1\/things\/:id: .*count/s);
    expect(answers.violations[2]).toBe('POST /v1/things: answered 201, which the document does not list');
  });
});

describe('the generator command line', () => {
  it('writes each named document to its file, every one when none is named, and refuses an unknown name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'settle-openapi-'));
    const documents = {
      one: { file: join(dir, 'one.json'), build: async () => ({ openapi: '3.0.0', info: { title: 'One', version: '1' }, paths: {} }) },
      two: { file: join(dir, 'two.json'), build: async () => ({ openapi: '3.0.0', info: { title: 'Two', version: '1' }, paths: {} }) },
    };
    expect(await runOpenApiGenerator(documents, ['two'])).toEqual([documents.two.file]);
    expect(JSON.parse(readFileSync(documents.two.file, 'utf8'))).toMatchObject({ info: { title: 'Two' } });
    expect(await runOpenApiGenerator(documents, [])).toEqual([documents.one.file, documents.two.file]);
    await expect(runOpenApiGenerator(documents, ['three'])).rejects.toThrow('unknown app three; known: one, two');
  });
});
