import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, link, mkdir, open, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { SettleError, type ErrorKind } from '@settle/domain';

/**
 * Where signed checkpoints are published outside the database (docs/ledger.md, "Where
 * checkpoints go"): a store that deployments point at write-once storage, so that whoever can
 * write the database cannot also rewrite what was said about it. Each checkpoint is one object,
 * named by its size, written once: writing the same note again is a no-op, writing another note
 * under a size already taken is refused.
 */
export interface CheckpointSink {
  /** A name for logs and messages (the folder's path). */
  readonly describe: string;
  /**
   * Whether the checkpoint of `size` is stored.
   *
   * @throws CheckpointSinkError `CHECKPOINT_SINK.UNAVAILABLE` when the sink cannot be read.
   */
  has(size: number): Promise<boolean>;
  /**
   * Stores a signed checkpoint, durably, under its size.
   *
   * @throws CheckpointSinkError `CHECKPOINT_SINK.UNAVAILABLE` (missing, not writable, full) or
   *   `CHECKPOINT_SINK.CONFLICT` (another note is stored under that size).
   */
  write(size: number, note: string): Promise<void>;
  /**
   * Publishes a verifier key (the public key, `<name>+<id>+<key>`), once per key id.
   *
   * @throws CheckpointSinkError as {@link CheckpointSink.write}.
   */
  publishKey(verifierKey: string): Promise<void>;
  /**
   * Every checkpoint stored (of a size above `after`, when given), smallest size first, as the
   * notes were written. Read one at a time, so a sink of years of checkpoints never holds more
   * than one file open.
   *
   * @throws CheckpointSinkError `CHECKPOINT_SINK.UNAVAILABLE`.
   */
  readAll(options?: { after?: number }): Promise<Array<{ size: number; note: string }>>;
  /**
   * Every verifier key published, as written.
   *
   * @throws CheckpointSinkError `CHECKPOINT_SINK.UNAVAILABLE`.
   */
  readKeys(): Promise<string[]>;
}

/** A checkpoint sink failed: `CHECKPOINT_SINK.UNAVAILABLE` (cannot read or write it) or `CHECKPOINT_SINK.CONFLICT` (a size taken by another note). */
export class CheckpointSinkError extends SettleError {
  readonly kind: ErrorKind = 'unavailable';
  constructor(
    readonly code: 'CHECKPOINT_SINK.UNAVAILABLE' | 'CHECKPOINT_SINK.CONFLICT',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CheckpointSinkError';
  }
}

const NOTE_FILE = /^checkpoint-(\d{16})\.note$/;
const KEY_FILE = /^[0-9a-f]{8}\.vkey$/;

/**
 * The checkpoint sink on a folder (the local default, `LEDGER_CHECKPOINT_DIR`): checkpoints in
 * `<dir>/checkpoint-<size, 16 digits>.note`, verifier keys in `<dir>/keys/<key id>.vkey`. Each file
 * is written to a temporary name, flushed to disk, then hard-linked to its name, which fails if
 * the name exists: a reader never sees half a note and nothing is overwritten. The folder's file
 * system must support hard links (local disks, NFS, most block volumes; not object-storage FUSE
 * mounts, docs/ledger.md, "Where checkpoints go"). The folder itself is
 * never created here (a sink that is missing is a deployment fault to alert on, not to paper over);
 * `keys/` is, inside it. Point the folder at write-once storage in production (docs/ledger.md).
 */
export class FolderCheckpointSink implements CheckpointSink {
  readonly describe: string;

  constructor(private readonly dir: string) {
    this.describe = dir;
  }

  async has(size: number): Promise<boolean> {
    await this.checkPresent();
    try {
      await access(join(this.dir, noteName(size)), constants.F_OK);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw unavailable(this.dir, error);
    }
  }

  async write(size: number, note: string): Promise<void> {
    await this.checkPresent();
    await this.writeOnce(this.dir, noteName(size), note);
  }

  async publishKey(verifierKey: string): Promise<void> {
    const id = verifierKey.split('+')[1];
    if (!id || !/^[0-9a-f]{8}$/.test(id)) throw new RangeError('a verifier key is <name>+<8 hex digits>+<key>');
    await this.checkPresent();
    const keys = join(this.dir, 'keys');
    try {
      await mkdir(keys, { recursive: true });
    } catch (error) {
      throw unavailable(keys, error);
    }
    await this.writeOnce(keys, `${id}.vkey`, `${verifierKey}\n`);
  }

  async readAll(options: { after?: number } = {}): Promise<Array<{ size: number; note: string }>> {
    const after = options.after ?? -1;
    const names = await this.list(this.dir);
    const found = names.flatMap((name) => {
      const match = NOTE_FILE.exec(name);
      return match && Number(match[1]) > after ? [{ name, size: Number(match[1]) }] : [];
    });
    found.sort((a, b) => a.size - b.size);
    const notes: Array<{ size: number; note: string }> = [];
    for (const { name, size } of found) notes.push({ size, note: await this.read(join(this.dir, name)) });
    return notes;
  }

  async readKeys(): Promise<string[]> {
    const keys = join(this.dir, 'keys');
    const names = (await this.list(keys, true)).filter((name) => KEY_FILE.test(name)).sort();
    const texts: string[] = [];
    for (const name of names) texts.push((await this.read(join(keys, name))).trim());
    return texts;
  }

  private async checkPresent(): Promise<void> {
    try {
      await access(this.dir, constants.W_OK | constants.R_OK);
    } catch (error) {
      throw unavailable(this.dir, error);
    }
  }

  private async list(dir: string, missingIsEmpty = false): Promise<string[]> {
    try {
      return await readdir(dir);
    } catch (error) {
      if (missingIsEmpty && (error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw unavailable(dir, error);
    }
  }

  private async read(path: string): Promise<string> {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw unavailable(path, error);
    }
  }

  /** Writes `content` to `dir/name` unless it is there; the same content there already is success. */
  private async writeOnce(dir: string, name: string, content: string): Promise<void> {
    const target = join(dir, name);
    const temporary = join(dir, `.${name}.${randomUUID()}.tmp`);
    try {
      const handle = await open(temporary, 'wx', 0o444);
      try {
        await handle.writeFile(content, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await link(temporary, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unavailable(target, error);
      const stored = await this.read(target);
      if (stored !== content) throw new CheckpointSinkError('CHECKPOINT_SINK.CONFLICT', `${target} holds another note: the sink refuses to overwrite it`);
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
  }
}

function noteName(size: number): string {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('a checkpoint size is a non-negative integer');
  return `checkpoint-${String(size).padStart(16, '0')}.note`;
}

function unavailable(path: string, error: unknown): CheckpointSinkError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return new CheckpointSinkError('CHECKPOINT_SINK.UNAVAILABLE', `the checkpoint sink cannot use ${path} (${code})`, { cause: error });
}
