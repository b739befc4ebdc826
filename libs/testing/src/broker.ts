import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '../../../scripts/ops/clients.js';
import { freePorts } from './stack.js';

const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../../../' : '../../../', import.meta.url));

/** A throwaway single-node Kafka broker of its own, for tests that stop and restart it. */
export interface OwnBroker {
  /** `127.0.0.1:<port>` */
  address: string;
  /** Stops the broker with a signal (SIGKILL simulates a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and data, and waits until it listens. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
}

async function portOpen(port: number): Promise<boolean> {
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts a KRaft broker from the jars `scripts/local/infra.sh` provisioned (`.settle/kafka/libs`),
 * with data in a temporary folder, on free loopback ports.
 */
export async function startOwnBroker(): Promise<OwnBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'settle-broker-'));
  const [port, controller] = (await freePorts(2)) as [number, number];
  const classpath = join(process.env.SETTLE_HOME ?? join(ROOT, '.settle'), 'kafka', 'libs', '*');
  const config = join(dir, 'server.properties');
  mkdirSync(join(dir, 'data'));
  writeFileSync(
    config,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controller}`,
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
      'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      'inter.broker.listener.name=PLAINTEXT',
      `log.dirs=${join(dir, 'data')}`,
      'offsets.topic.replication.factor=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      'auto.create.topics.enable=false',
    ].join('\n'),
  );
  const java = ['-Xms128m', '-Xmx384m', `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`, '-cp', classpath];
  writeFileSync(
    join(dir, 'log4j.properties'),
    'log4j.rootLogger=ERROR, stderr\nlog4j.appender.stderr=org.apache.log4j.ConsoleAppender\nlog4j.appender.stderr.layout=org.apache.log4j.PatternLayout\n',
  );
  const format = spawnSync(
    'java',
    // `--cluster-id=` form: a base64url id may start with '-', which would read as an option.
    [...java, 'kafka.tools.StorageTool', 'format', `--cluster-id=${randomBytes(16).toString('base64url')}`, '-c', config, '--ignore-formatted'],
    {
      encoding: 'utf8',
    },
  );
  if (format.status !== 0) throw new Error(`kafka storage format failed: ${format.stderr}`);
  let child: ChildProcess | null = null;
  const broker: OwnBroker = {
    address: `127.0.0.1:${port}`,
    async start() {
      child = spawn('java', [...java, 'kafka.Kafka', config], { stdio: 'ignore' });
      await waitUntil('the test broker to listen', 60_000, async () => ((await portOpen(port)) ? true : undefined));
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const running = child;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill(signal);
      });
      child = null;
    },
    async destroy() {
      await broker.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await broker.start();
  return broker;
}
