import { createConnection } from 'node:net';
import type { CpuProfile } from './cpuprofile.js';

/*
 * CPU profile of a running child process, through the inspector it opens on SIGUSR1, and its
 * summary by kind of code, by library and by function.
 */

async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Runs `work` while the V8 sampling profiler runs in process `pid` (same as `node --cpu-prof`,
 * started late: SIGUSR1 opens the child's inspector on 127.0.0.1:9229, closed again after).
 */
export async function profiled<T>(pid: number, urlPart: string, work: () => Promise<T>): Promise<{ result: T; profile: CpuProfile | null; note: string }> {
  if (await portOpen(9229)) return { result: await work(), profile: null, note: 'skipped: 127.0.0.1:9229 is already in use' };
  process.kill(pid, 'SIGUSR1');
  let target: { url: string; webSocketDebuggerUrl: string } | undefined;
  for (let i = 0; i < 50 && !target; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      const list = (await (await fetch('http://127.0.0.1:9229/json/list')).json()) as Array<{ url: string; webSocketDebuggerUrl: string }>;
      target = list.find((t) => t.url.includes(urlPart));
    } catch {
      // not listening yet
    }
  }
  if (!target) return { result: await work(), profile: null, note: 'skipped: the inspector did not open' };
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error('inspector websocket failed')), { once: true });
  });
  let nextId = 0;
  const pending = new Map<number, (value: unknown) => void>();
  ws.addEventListener('message', (event: MessageEvent) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const call = <R>(method: string, params: object = {}): Promise<R> =>
    new Promise<R>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve as (value: unknown) => void);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('Profiler.enable');
    await call('Profiler.setSamplingInterval', { interval: 500 });
    await call('Profiler.start');
    const result = await work();
    const { profile } = await call<{ profile: CpuProfile }>('Profiler.stop');
    return { result, profile, note: '' };
  } finally {
    await call('Runtime.evaluate', { expression: "setTimeout(() => process.getBuiltinModule('node:inspector').close(), 50); 0" }).catch(() => undefined);
    ws.close();
  }
}

/** Who owns a script: an npm package, a part of Node, or Settle's own code ('' for native code). */
function ownerOf(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 14).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  if (url.startsWith('node:')) {
    const m = url.slice(5);
    if (/stream_base_commons|^net$|internal\/net/.test(m)) return 'node: socket I/O';
    if (/^fs$|internal\/fs/.test(m)) return 'node: fs';
    if (/crypto/.test(m)) return 'node: crypto';
    if (/http/.test(m)) return 'node: http';
    if (/streams/.test(m)) return 'node: streams';
    if (/timers/.test(m)) return 'node: timers';
    if (/task_queues|async_hooks|promise/.test(m)) return 'node: promises, ticks';
    if (/buffer/.test(m)) return 'node: buffer';
    if (/events/.test(m)) return 'node: events';
    return 'node: other';
  }
  if (url.includes('/dist/apps/')) return 'settle apps';
  if (url.includes('/dist/libs/')) return 'settle libs';
  return url ? 'other' : '';
}

/** A library or Settle's code, as opposed to Node itself or native code. */
const isLibrary = (owner: string) => owner !== '' && !owner.startsWith('node:');

/**
 * Self time three ways: by kind (native code charged to its JavaScript caller's part of Node
 * or package), by the library whose call led to it (the innermost frame of a package or of
 * Settle's code: pg's socket writes count for pg, pino's file writes for pino), and by
 * function.
 */
export function summariseProfile(profile: CpuProfile): {
  totalMs: number;
  idleMs: number;
  kinds: Array<[string, number]>;
  libraries: Array<[string, number]>;
  functions: Array<[string, number]>;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + Math.max(0, dt));
  }
  const kinds = new Map<string, number>();
  const libraries = new Map<string, number>();
  const functions = new Map<string, number>();
  const add = (m: Map<string, number>, key: string, us: number) => m.set(key, (m.get(key) ?? 0) + us);
  let idle = 0;
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    total += us;
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += us;
      continue;
    }
    // Up the stack: the first frame with a script gives the kind, the first library frame the library.
    let kind = ownerOf(node.callFrame.url);
    let library = isLibrary(kind) ? kind : '';
    for (let cursor = parent.get(id); cursor !== undefined && !library; cursor = parent.get(cursor)) {
      const owner = ownerOf(byId.get(cursor)!.callFrame.url);
      if (!kind) kind = owner;
      if (isLibrary(owner)) library = owner;
    }
    if (!kind) kind = name.startsWith('(') ? name : 'native, no JS caller';
    if (kind === 'node: streams' && /^write|^writev$/.test(name) && !node.callFrame.url) kind = 'node: socket I/O';
    add(kinds, kind, us);
    add(libraries, library || (name.startsWith('(') ? name : `${kind} (no library on the stack)`), us);
    const file = node.callFrame.url
      ? `${node.callFrame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '')}:${node.callFrame.lineNumber + 1}`
      : 'native';
    add(functions, `${name}  ${file}  [${kind}${library && library !== kind ? ` ← ${library}` : ''}]`, us);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / 1000] as [string, number]);
  return { totalMs: total / 1000, idleMs: idle / 1000, kinds: sorted(kinds), libraries: sorted(libraries), functions: sorted(functions) };
}
