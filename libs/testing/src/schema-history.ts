import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './apps.js';

/** Where the Avro schemas live, from the repository root. */
export const SCHEMAS_DIR = 'libs/messaging/schemas';

/** One schema file: the working tree's text and the version committed before it, if any. */
export interface SchemaVersions {
  /** Record type, from the file name (`CheckoutRegistered` of `CheckoutRegistered.v1.avsc`). */
  type: string;
  /** Path from the repository root. */
  file: string;
  /** The working tree's text. */
  current: string;
  /**
   * The newest committed version that differs from the working tree (see `differs`), with its
   * commit; `null` when every committed version is the same (one version only, or none yet).
   */
  previous: { commit: string; text: string } | null;
  /** Committed versions of the file (`git log` of it). */
  versions: number;
}

/** The schemas' history, or why it cannot be read here. */
export type SchemaHistory = { available: true; schemas: SchemaVersions[] } | { available: false; reason: string };

const git = (args: readonly string[]): string =>
  execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20 });

/** Same JSON, whatever its layout. */
const sameJson = (a: string, b: string): boolean => JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));

/**
 * Reads the history of every schema of `libs/messaging/schemas` from git: for each file, the
 * newest committed version that `differs` from the working tree's (by default: any change of its
 * JSON, documentation included; a caller that wants the previous *shape* passes its own test).
 * A working tree that changed a file finds its last commit as the previous version; an
 * unchanged one finds the version before the file's last change.
 *
 * @returns `available: false` with the reason when git cannot answer (not a git checkout, no
 *   `git`, or a shallow clone, whose history would be cut: fetch it whole, `git fetch
 *   --unshallow`, as CI's fresh clone has it).
 */
export function schemaHistory(differs: (committed: string, current: string) => boolean = (a, b) => !sameJson(a, b)): SchemaHistory {
  try {
    if (git(['rev-parse', '--is-shallow-repository']).trim() === 'true') {
      return { available: false, reason: 'a shallow clone: the schemas’ history is cut (git fetch --unshallow)' };
    }
  } catch (error) {
    return { available: false, reason: `git cannot read the repository's history here: ${(error as Error).message.split('\n')[0]}` };
  }
  const schemas = readdirSync(join(ROOT, SCHEMAS_DIR))
    .filter((name) => name.endsWith('.avsc'))
    .sort()
    .map((name): SchemaVersions => {
      const file = `${SCHEMAS_DIR}/${name}`;
      const current = readFileSync(join(ROOT, file), 'utf8');
      const commits = git(['log', '--format=%H', '--', file]).split('\n').filter(Boolean);
      let previous: SchemaVersions['previous'] = null;
      for (const commit of commits) {
        const text = git(['show', `${commit}:${file}`]);
        if (differs(text, current)) {
          previous = { commit, text };
          break;
        }
      }
      return { type: name.split('.')[0]!, file, current, previous, versions: commits.length };
    });
  return { available: true, schemas };
}
