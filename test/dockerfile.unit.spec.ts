/**
 * The Dockerfile's shape (docs/operations.md, "Image"), since Docker cannot run here: multi-stage,
 * the final stage running as the unprivileged `node` user with only production dependencies
 * (installed from the lock file) and the build's output, every app docker-compose.yml starts
 * inside what it copies, and a published size known for its base image (npm run image:size).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { copiesOf, parseDockerfile, readDockerfile, stageNamed, userOf, workdirOf } from '../scripts/docs/dockerfile.js';
import { BASE_IMAGE_SIZES } from '../scripts/docs/image-size.js';

const stages = readDockerfile(new URL('../Dockerfile', import.meta.url).pathname);
const final = stages.at(-1)!;
const runs = (name: string) =>
  stageNamed(stages, name)
    .instructions.filter((i) => i.keyword === 'RUN')
    .map((i) => i.args);

describe('the Dockerfile', () => {
  it('is multi-stage: dependencies and the build in their own stages, the final stage copying from them', () => {
    expect(stages.map((s) => s.name)).toEqual(['deps', 'build', null]);
    expect(copiesOf(final).every((c) => c.from !== null)).toBe(true);
    expect(final.instructions.some((i) => i.keyword === 'RUN')).toBe(false);
  });

  it('runs as the unprivileged node user', () => {
    expect(userOf(final)).toBe('node');
    expect(final.instructions.at(-1)).toEqual({ keyword: 'USER', args: 'node' });
  });

  it('installs from the lock file only: production dependencies for the image, all of them for the build', () => {
    expect(runs('deps')[0]).toMatch(/^npm ci --omit=dev\b/);
    expect(runs('build')).toEqual([expect.stringMatching(/^npm ci\b/), 'npm run build', 'rm -rf dist/libs/testing']);
    for (const stage of stages) for (const i of stage.instructions) expect(i.args, `${stage.name}: ${i.keyword}`).not.toMatch(/\bnpm (install|i)\b/);
  });

  it('copies node_modules from the production stage and only the build output the apps need', () => {
    const copies = copiesOf(final).map((c) => `${c.from}:${c.sources.join(' ')}`);
    expect(copies).toEqual([
      'deps:/app/node_modules',
      'build:/app/dist/apps',
      'build:/app/dist/libs',
      'build:/app/dist/scripts/ops',
      'build:/app/package.json',
    ]);
  });

  it('holds every app docker-compose.yml starts, and the operator command lines it documents', () => {
    const compose = parse(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8'), { merge: true }) as {
      services: Record<string, { build?: unknown; command?: string[] }>;
    };
    const copied = copiesOf(final).flatMap((c) => c.sources.map((s) => s.slice(`${workdirOf(stageNamed(stages, c.from!))}/`.length)));
    const built = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
    expect(built.map(([name]) => name).sort()).toEqual(['console', 'dispatcher', 'ingestion', 'ledger-projector', 'provider-sandbox', 'sweeper', 'verifier']);
    for (const [name, service] of built) {
      const main = service.command![1]!;
      expect(main, name).toBe(`dist/apps/${name}/src/main.js`);
      expect(
        copied.some((path) => main.startsWith(`${path}/`)),
        `${name}: ${main} is copied`,
      ).toBe(true);
    }
    expect(copied).toContain('dist/scripts/ops');
  });

  it('names a base image whose published size the image-size report adds', () => {
    expect(new Set(stages.map((s) => s.base))).toEqual(new Set([final.base]));
    expect(BASE_IMAGE_SIZES[final.base]?.compressedBytes).toBeGreaterThan(0);
  });
});

describe('the Dockerfile parser', () => {
  it('joins continued lines, skips comments and reads COPY --from, WORKDIR and USER', () => {
    const parsed = parseDockerfile(
      [
        '# a comment',
        'FROM node:24-slim AS deps',
        'WORKDIR /app',
        'RUN npm ci \\',
        '  && rm -rf x',
        'FROM node:24-slim',
        'COPY --from=deps /app/a /app/b ./',
        'USER node',
      ].join('\n'),
    );
    expect(parsed.map((s) => [s.base, s.name])).toEqual([
      ['node:24-slim', 'deps'],
      ['node:24-slim', null],
    ]);
    expect(parsed[0]!.instructions).toEqual([
      { keyword: 'WORKDIR', args: '/app' },
      { keyword: 'RUN', args: 'npm ci && rm -rf x' },
    ]);
    expect(copiesOf(parsed[1]!)).toEqual([{ from: 'deps', sources: ['/app/a', '/app/b'], destination: './' }]);
    expect(userOf(parsed[1]!)).toBe('node');
    expect(workdirOf(parsed[1]!)).toBe('/');
    expect(() => parseDockerfile('RUN true')).toThrow('RUN before the first FROM');
  });
});
