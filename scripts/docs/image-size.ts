/**
 * The size the Docker image would have (docs/operations.md, "Image"), measured without Docker,
 * which cannot run on the project's machines: `npm run image:size` builds the final stage's
 * contents the way the Dockerfile does, measures each of its `COPY` layers as a layer tarball
 * would hold it, and adds the base image's published size.
 *
 * - A stage that only installs (runs no `npm run build`: `deps`) is run for real in a temporary
 *   folder: its `COPY` of files from the build context, then its `RUN` lines in `sh` (`npm ci
 *   --omit=dev` from the lock file, and what the Dockerfile removes after it); then every runtime
 *   dependency of package.json must still import from it, so a removal cannot break the apps.
 * - The stage that runs `npm run build` (`build`: `npm ci`, then the build of the whole checkout)
 *   is the working tree's own build: `npm run image:size` runs `npm run build` first, and its
 *   `dist/` folders are what the image copies.
 * - Each layer is measured as `tar` writes it (uncompressed, what `docker images` adds up) and
 *   through gzip at level 6 (what a registry stores and a node pulls).
 * - The base image's compressed size is the published figure in {@link BASE_IMAGE_SIZES}; its
 *   uncompressed size is not published there, so the uncompressed total is the added layers alone.
 *
 * Prints Markdown: the layers, the totals, and the largest packages of node_modules.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createGzip } from 'node:zlib';
import { copiesOf, readDockerfile, stageNamed, workdirOf, type CopyInstruction, type Stage } from './dockerfile.js';

/**
 * Published sizes of base images, by the reference the Dockerfile names: the compressed size of
 * the linux/amd64 image (the sum of its gzipped layers), with where the figure comes from.
 */
export const BASE_IMAGE_SIZES: Readonly<Record<string, { compressedBytes: number; source: string }>> = {
  'node:24-slim': {
    compressedBytes: 80_451_137,
    source:
      'docker-library/repo-info, repos/node/remote/24-slim.md at commit 2534b852 (linux/amd64, Node 24.19.0 on Debian bookworm, built 2026-08-03): "Total Size 80.5 MB (80451137 bytes), compressed transfer size, not on-disk size"',
  },
};

/** The size of one `COPY` layer. */
export interface LayerSize {
  /** The instruction, as written. */
  instruction: string;
  files: number;
  /** Sum of the files' sizes, bytes. */
  contentBytes: number;
  /** The layer as a tar stream, bytes (headers and padding included). */
  tarBytes: number;
  /** That stream through gzip at level 6, bytes. */
  gzipBytes: number;
}

/** Whether a stage is the build of the checkout (the working tree's `npm run build` stands for it). */
const isBuildStage = (stage: Stage) => stage.instructions.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args));

/**
 * Runs an install-only stage in a temporary folder standing for its `WORKDIR`: copies its
 * context files there, then runs each `RUN` line with `sh -c`.
 *
 * @returns the folder.
 * @throws Error when a `RUN` line fails, or for a `COPY --from` (not needed by an install stage).
 */
function materialise(root: string, stage: Stage): string {
  const dir = mkdtempSync(join(tmpdir(), `settle-image-${stage.name ?? 'stage'}-`));
  for (const instruction of stage.instructions) {
    if (instruction.keyword === 'COPY') {
      const [copy] = copiesOf({ ...stage, instructions: [instruction] });
      if (copy!.from !== null) throw new Error(`an install stage copying from another stage is not supported: COPY ${instruction.args}`);
      for (const source of copy!.sources) cpSync(join(root, source), join(dir, basename(source)), { recursive: true });
    } else if (instruction.keyword === 'RUN') {
      console.error(`[image-size] ${stage.name}: RUN ${instruction.args}`);
      execFileSync('sh', ['-c', instruction.args], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  }
  assertDependenciesLoad(root, dir);
  return dir;
}

/**
 * Imports every runtime dependency of package.json from an installed folder, in a separate Node
 * process: what the Dockerfile removed from node_modules must not be something one of them loads.
 *
 * @throws Error naming the import that failed.
 */
function assertDependenciesLoad(root: string, dir: string): void {
  if (!existsSync(join(dir, 'node_modules'))) return;
  const { dependencies = {} } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const script = `for (const name of ${JSON.stringify(Object.keys(dependencies))}) await import(name);`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
}

/**
 * Where a final-stage `COPY`'s source is on this machine.
 *
 * @throws Error when the checkout is not built (run `npm run build`).
 */
function localSource(root: string, stages: readonly Stage[], copy: CopyInstruction, source: string, materialised: Map<string, string>): string {
  if (copy.from === null) return join(root, source);
  const stage = stageNamed(stages, copy.from);
  const relative = posix.relative(workdirOf(stage), source);
  if (isBuildStage(stage)) {
    const path = join(root, relative);
    if (!existsSync(path)) throw new Error(`${path} is missing: run npm run build first`);
    return path;
  }
  if (!materialised.has(copy.from)) materialised.set(copy.from, materialise(root, stage));
  return join(materialised.get(copy.from)!, relative);
}

/** Files and their total size under a path (symbolic links counted as links). */
function contents(path: string): { files: number; bytes: number } {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return { files: 1, bytes: stat.size };
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(path)) {
    const inner = contents(join(path, entry));
    files += inner.files;
    bytes += inner.bytes;
  }
  return { files, bytes };
}

/** A path as a layer tarball holds it: its size as `tar` writes it, and through gzip at level 6. */
function tarSizes(path: string): Promise<{ tarBytes: number; gzipBytes: number }> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '-cf', '-', '-C', dirname(path), basename(path)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const gzip = createGzip({ level: 6 });
    let tarBytes = 0;
    let gzipBytes = 0;
    tar.stdout.on('data', (chunk: Buffer) => (tarBytes += chunk.length));
    gzip.on('data', (chunk: Buffer) => (gzipBytes += chunk.length));
    gzip.on('end', () => resolve({ tarBytes, gzipBytes }));
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? undefined : reject(new Error(`tar exited with ${code}`))));
    tar.stdout.pipe(gzip);
  });
}

/**
 * Measures every `COPY` layer of the Dockerfile's final stage.
 *
 * @param root - the repository's root (the build context).
 * @returns the layers, the final stage's base image, and the folder of each stage that was run
 *   (the caller removes them).
 */
export async function measureImage(root: string): Promise<{ base: string; layers: LayerSize[]; materialised: Map<string, string> }> {
  const stages = readDockerfile(join(root, 'Dockerfile'));
  const final = stages.at(-1)!;
  const materialised = new Map<string, string>();
  const layers: LayerSize[] = [];
  for (const copy of copiesOf(final)) {
    let files = 0;
    let contentBytes = 0;
    let tarBytes = 0;
    let gzipBytes = 0;
    for (const source of copy.sources) {
      const path = localSource(root, stages, copy, source, materialised);
      const counted = contents(path);
      const sizes = await tarSizes(path);
      files += counted.files;
      contentBytes += counted.bytes;
      tarBytes += sizes.tarBytes;
      gzipBytes += sizes.gzipBytes;
    }
    const instruction = `COPY ${copy.from ? `--from=${copy.from} ` : ''}${copy.sources.join(' ')} ${copy.destination}`;
    layers.push({ instruction, files, contentBytes, tarBytes, gzipBytes });
  }
  return { base: final.base, layers, materialised };
}

/** Decimal megabytes, as `docker images` shows sizes. */
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The largest top-level packages (scoped ones by scope) of a node_modules folder. */
function largestPackages(nodeModules: string, count: number): Array<{ name: string; bytes: number }> {
  return readdirSync(nodeModules)
    .filter((name) => !name.startsWith('.'))
    .map((name) => ({ name, bytes: contents(join(nodeModules, name)).bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, count);
}

/** Prints the report (Markdown) for the repository at the working directory. */
async function main(): Promise<void> {
  const root = process.cwd();
  const { base, layers, materialised } = await measureImage(root);
  try {
    const lines = ['| Layer | Files | Content | Uncompressed (tar) | Compressed (gzip -6) |', '|---|---:|---:|---:|---:|'];
    for (const l of layers) lines.push(`| \`${l.instruction}\` | ${l.files} | ${mb(l.contentBytes)} | ${mb(l.tarBytes)} | ${mb(l.gzipBytes)} |`);
    const tar = layers.reduce((s, l) => s + l.tarBytes, 0);
    const gzip = layers.reduce((s, l) => s + l.gzipBytes, 0);
    lines.push(
      `| **Settle's layers** | ${layers.reduce((s, l) => s + l.files, 0)} | ${mb(layers.reduce((s, l) => s + l.contentBytes, 0))} | **${mb(tar)}** | **${mb(gzip)}** |`,
    );
    const known = BASE_IMAGE_SIZES[base];
    lines.push('');
    if (known) {
      lines.push(`Base image \`${base}\`: ${mb(known.compressedBytes)} compressed (${known.source}); its uncompressed size is not published there.`);
      lines.push('');
      lines.push(
        `Image, compressed (what a registry stores and a node pulls): ${mb(known.compressedBytes)} + ${mb(gzip)} = **${mb(known.compressedBytes + gzip)}**.`,
      );
      lines.push(`Uncompressed, Settle's layers alone: **${mb(tar)}** on top of the base image.`);
    } else {
      lines.push(
        `Base image \`${base}\`: no published size is known here (BASE_IMAGE_SIZES); Settle's layers alone: ${mb(tar)} uncompressed, ${mb(gzip)} compressed.`,
      );
    }
    const nodeModules = [...materialised.values()].map((dir) => join(dir, 'node_modules')).find(existsSync);
    if (nodeModules) {
      lines.push('', 'Largest packages in node_modules:', '', '| Package | Content |', '|---|---:|');
      for (const p of largestPackages(nodeModules, 12)) lines.push(`| \`${p.name}\` | ${mb(p.bytes)} |`);
    }
    console.log(lines.join('\n'));
  } finally {
    for (const dir of materialised.values()) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
