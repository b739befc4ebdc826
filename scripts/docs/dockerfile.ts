/**
 * The Dockerfile read as data: its stages and their instructions, for the image-size report
 * (scripts/docs/image-size.ts) and the test that checks the image's shape
 * (test/dockerfile.unit.spec.ts). Only what Settle's Dockerfile uses is understood: `FROM ... AS`,
 * `WORKDIR`, `COPY [--from=<stage>] <src>... <dest>`, `RUN`, `ENV`, `USER`, comments and line
 * continuations (the Dockerfile reference, https://docs.docker.com/reference/dockerfile/).
 */
import { readFileSync } from 'node:fs';

/** One instruction: its keyword in upper case and the rest of its (joined) line. */
export interface Instruction {
  keyword: string;
  args: string;
}

/** A `COPY` of the final stage: where from (a stage's name, or the build context), what, and where to. */
export interface CopyInstruction {
  from: string | null;
  sources: string[];
  destination: string;
}

/** One build stage. */
export interface Stage {
  /** The image it starts from (`node:24-slim`). */
  base: string;
  /** Its name (`AS deps`); `null` for an unnamed stage. */
  name: string | null;
  instructions: Instruction[];
}

/**
 * Parses a Dockerfile's text into stages.
 *
 * @throws Error for an instruction before the first `FROM`.
 */
export function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword.toUpperCase() === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!match) throw new Error(`unreadable FROM: ${line}`);
      stages.push({ base: match[1]!, name: match[2] ?? null, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`${keyword} before the first FROM`);
    stage.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** Reads and parses a Dockerfile. */
export function readDockerfile(path: string): Stage[] {
  return parseDockerfile(readFileSync(path, 'utf8'));
}

/** A stage's `COPY` instructions, with their `--from` stage (flags other than `--from` are ignored). */
export function copiesOf(stage: Stage): CopyInstruction[] {
  return stage.instructions
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length) ?? null;
      const paths = words.filter((w) => !w.startsWith('--'));
      return { from, sources: paths.slice(0, -1), destination: paths.at(-1)! };
    });
}

/** The stage's working directory (its last `WORKDIR`), `/` when it sets none. */
export function workdirOf(stage: Stage): string {
  return stage.instructions.filter((i) => i.keyword === 'WORKDIR').at(-1)?.args ?? '/';
}

/** The user the stage's process runs as (its last `USER`), `null` when it sets none (root). */
export function userOf(stage: Stage): string | null {
  return stage.instructions.filter((i) => i.keyword === 'USER').at(-1)?.args ?? null;
}

/** A stage by name. @throws Error when there is none */
export function stageNamed(stages: readonly Stage[], name: string): Stage {
  const stage = stages.find((s) => s.name === name);
  if (!stage) throw new Error(`no stage named ${name}`);
  return stage;
}
