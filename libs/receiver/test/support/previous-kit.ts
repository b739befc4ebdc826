import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A previous version of the receiver kit, built from the repository's history and installed from
 * its own packed tarball, as a customer installs it.
 *
 * The tarball is cached as `.settle/packs/settle-receiver-<commit>.tgz` (git-ignored) and reused
 * when present. To build it, `libs/receiver` of `commit` is extracted (`git archive`) into a
 * scratch folder under `.settle/packs/`, inside the repository, so that its compilation by the
 * repository's TypeScript finds the repository's `@types/node`, `pg`, `ioredis` and NestJS types
 * the way the kit's own build does; its own tsconfig.json stands alone (no `extends`). Then
 * `npm pack` packs it, as scripts/local/receiver-kit.sh packs the current kit.
 */

/** Whether the repository's history holds `commit` (not in a shallow clone that lacks it). */
export function hasCommit(root: string, commit: string): boolean {
  try {
    execFileSync('git', ['-C', root, 'cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The packed tarball of the kit at `commit`, built once and cached under `.settle/packs/`. */
export function packPreviousKit(root: string, commit: string): string {
  const packs = join(root, '.settle/packs');
  const tarball = join(packs, `settle-receiver-${commit}.tgz`);
  if (existsSync(tarball)) return tarball;
  mkdirSync(packs, { recursive: true });
  const scratch = mkdtempSync(join(packs, `build-${commit}-`));
  try {
    const paths = ['src', 'package.json', 'tsconfig.json', 'README.md'].map((path) => `libs/receiver/${path}`);
    const archive = execFileSync('git', ['-C', root, 'archive', '--format=tar', commit, ...paths], { maxBuffer: 64 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', scratch], { input: archive });
    const kit = join(scratch, 'libs/receiver');
    // Its package.json's build script: `tsc -p tsconfig.json`.
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(kit, 'tsconfig.json')], { cwd: root, stdio: 'pipe' });
    const packed = execFileSync('npm', ['pack', '--pack-destination', scratch, '--loglevel=error'], { cwd: kit, encoding: 'utf8' }).trim().split('\n').at(-1)!;
    renameSync(join(scratch, packed), tarball);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return tarball;
}

/**
 * Installs `tarball` with `pg` and `ioredis` into a fresh folder, as a customer would (`npm
 * install`), offline from npm's cache, with the versions of `pg` and `ioredis` the repository has
 * installed. When the cache cannot serve them (a machine that never downloaded them), the
 * tarball is unpacked into `node_modules/@settle/receiver` and its dependencies are links to the
 * repository's own installed packages. Returns the folder and a clean-up.
 */
export function installPreviousKit(root: string, tarball: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'settle-receiver-previous-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'previous-kit-customer', private: true, type: 'module' }));
  const installed = (name: string) => (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  try {
    execFileSync(
      'npm',
      [
        'install',
        '--offline',
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        '--loglevel=error',
        tarball,
        `pg@${installed('pg')}`,
        `ioredis@${installed('ioredis')}`,
      ],
      { cwd: dir, stdio: 'pipe' },
    );
  } catch {
    rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    mkdirSync(join(dir, 'node_modules/@settle'), { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', join(dir, 'node_modules/@settle')]);
    renameSync(join(dir, 'node_modules/@settle/package'), join(dir, 'node_modules/@settle/receiver'));
    for (const name of ['standardwebhooks', 'pg', 'ioredis']) symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
