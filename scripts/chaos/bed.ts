import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from '@settle/config';
import { DEFAULT_SESSION_TIMEOUT_MS } from '@settle/messaging';
import { PROVIDER_DEFINITIONS } from '@settle/providers';
import { SandboxClient } from '../ops/clients.js';
import {
  startOwnBroker,
  type OwnBroker,
  startFaultProxy,
  type FaultProxy,
  createTestDatabase,
  startOwnPostgres,
  type OwnPostgres,
  startOwnRegistry,
  type OwnRegistry,
  freePort,
  startStack,
  type RunningStack,
  type RunningCustomer,
} from '@settle/testing';
import { startCustomerFront, type CustomerFront } from './customer-front.js';

/** Everything a chaos scenario can break, around one stack. */
export interface ChaosBed {
  stack: RunningStack;
  customer: RunningCustomer;
  /** The stack's own Kafka broker (SIGKILL and restart it). */
  broker: OwnBroker;
  /** The stack's own PostgreSQL cluster (restart it). */
  postgres: OwnPostgres;
  /** The stack's own schema registry, keeping its schemas in that cluster (kill and restart it). */
  registry: OwnRegistry;
  /** The provider sandbox's control API, reached directly. */
  sandbox: SandboxClient;
  /** The TCP fault proxy between the verifier and the provider sandbox. */
  providerProxy: FaultProxy;
  /** The HTTP front between the dispatcher and the customer backend. */
  customerFront: CustomerFront;
  /** The sweeper's inactivity window, milliseconds. */
  inactivityMs: number;
  /** Every worker's consumer-group session time-out, milliseconds. */
  sessionTimeoutMs: number;
  /** Every app's bound on its graceful shutdown (`SHUTDOWN_TIMEOUT_MS`), milliseconds. */
  shutdownTimeoutMs: number;
  close(): Promise<void>;
}

/** Options of {@link startChaosBed}. */
export interface ChaosBedOptions {
  /** The sweeper's inactivity window, milliseconds (default 3 000). */
  inactivityMs?: number;
  logLevel?: string;
}

/**
 * Starts a stack for chaos scenarios on a Kafka broker, a PostgreSQL cluster and a schema
 * registry of its own (its schemas stored in that cluster), the
 * verifier reaching the provider sandbox through a TCP fault proxy and the dispatcher reaching
 * the example customer backend through an HTTP front. Timings are scaled down: the sweeper's
 * window (3 s), every worker's consumer-group session time-out (6 s), the verifier's circuit
 * breaker probing again 5 s after it opened, the dispatcher's retry schedule (0.5, 1, 2, 4 and
 * 8 s: a delivery is given up after about 15 s of failures); every app's graceful shutdown keeps
 * its production bound (`SHUTDOWN_TIMEOUT_MS`, 30 s).
 *
 * @throws Error when any piece does not start (what started is stopped again).
 */
export async function startChaosBed(options: ChaosBedOptions = {}): Promise<ChaosBed> {
  const inactivityMs = options.inactivityMs ?? 3_000;
  // The apps run with their production defaults for what bounds recovery (the consumer groups'
  // session time-out, the providers' circuit breaker) and for the bound on a graceful shutdown:
  // the suite measures those.
  const sessionTimeoutMs = DEFAULT_SESSION_TIMEOUT_MS;
  const shutdownTimeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const cleanups: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const [broker, postgres] = await Promise.all([startOwnBroker(), startOwnPostgres()]);
    cleanups.push(
      () => broker.destroy(),
      () => postgres.destroy(),
    );
    // The registry keeps its schemas in PostgreSQL: in memory (as scripts/local/infra.sh runs it) a
    // restart loses them, and every record written before it can no longer be decoded by a
    // consumer that had not cached its schema (docs/reliability.md).
    const registryDatabase = await createTestDatabase('settle_registry', postgres.url);
    const registry = await startOwnRegistry({ kind: 'postgres', host: '127.0.0.1', port: postgres.port, database: registryDatabase.name, user: 'postgres' });
    cleanups.push(() => registry.destroy());
    const sandboxPort = await freePort();
    const providerProxy = await startFaultProxy(sandboxPort);
    cleanups.push(() => providerProxy.close());
    const providerUrl = `http://127.0.0.1:${providerProxy.port}`;
    const stack = await startStack({
      inactivityMs,
      logLevel: options.logLevel ?? 'info',
      adminDatabaseUrl: postgres.url,
      kafkaBrokers: [broker.address],
      registryUrl: registry.url,
      customerBackend: { env: { RETRY_INITIAL_DELAY_MS: '200' } },
      env: {
        // A real provider retries a webhook it could not deliver for hours: ten retries (backoff up to 5 s) outlast an app restart.
        'provider-sandbox': { SANDBOX_PORT: String(sandboxPort), SANDBOX_WEBHOOK_RETRIES: '10' },
        // Every provider verified, through the proxy in front of the sandbox.
        // A reconciliation run whose verifier died is resumed 3 s later (60 s in production).
        verifier: {
          ...Object.fromEntries(PROVIDER_DEFINITIONS.map((d) => [d.verifier.baseUrlVariable, providerUrl])),
          RECONCILIATION_LEASE_MS: '3000',
          RECONCILIATION_TICK_MS: '1000',
        },
        dispatcher: { DISPATCHER_RETRY_SCHEDULE: '500ms,1s,2s,4s,8s', DISPATCHER_ATTEMPT_TIMEOUT_MS: '2000' },
      },
    });
    cleanups.push(() => stack.stop());
    const customer = stack.customer;
    if (!customer) throw new Error('the chaos stack runs without its customer backend');
    const customerFront = await startCustomerFront(customer.url);
    cleanups.push(() => customerFront.close());
    const patched = await fetch(`${stack.dispatcherUrl}/v1/admin/endpoints/${customer.endpointId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${customerFront.url}/webhook/settle` }),
    });
    if (patched.status !== 200) throw new Error(`moving the endpoint behind the front answered ${patched.status}: ${await patched.text()}`);
    return {
      stack,
      customer,
      broker,
      postgres,
      registry,
      sandbox: new SandboxClient(`http://127.0.0.1:${sandboxPort}`),
      providerProxy,
      customerFront,
      inactivityMs,
      sessionTimeoutMs,
      shutdownTimeoutMs,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
