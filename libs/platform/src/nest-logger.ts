import type { LoggerService } from '@nestjs/common';
import type { Logger } from './logger.js';

/**
 * Nest's boot chatter (modules loaded, routes mapped, "application started"): written at
 * `debug`, not `info`, so an app's boot is a few lines of its own rather than one per route.
 */
const BOOT_CONTEXTS: ReadonlySet<string> = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
  'NestMicroservice',
]);

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Whether a string is a stack trace (Nest passes `error(message, stack?, context?)`). */
const isStack = (value: unknown): value is string => typeof value === 'string' && /\n\s+at /.test(value);

/**
 * NestJS's framework logs through the app's pino logger, so every line of a Nest app is one JSON
 * object with the app's fields and redaction (`createLogger` in @settle/platform). Given to
 * `NestFactory.create` by `createEdgeApp` (and by the provider sandbox), and to every worker's `NestFactory.createMicroservice` (`runWorker` in @settle/runtime). Each line carries
 * `component: 'nest'` and Nest's `context` (the class that logged); Nest's levels map to pino's
 * (`log` is `info`, `verbose` is `trace`), except the boot chatter of {@link BOOT_CONTEXTS}, at
 * `debug`. A message that is an `Error` is logged as `err`, an object's fields are merged in.
 *
 * A small adapter rather than `nestjs-pino`: that package logs requests through `pino-http` on
 * Node's request objects, with the raw URL, where Settle logs one line per request from its
 * Fastify edge with the route template (`installRequestLog`), and it would add a second
 * request-scoped logger Settle does not use.
 */
export class PinoNestLogger implements LoggerService {
  /** @param logger - the app's logger (`createLogger`). */
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: readonly unknown[]): void {
    // Nest appends its context as the last string parameter; `error` may put a stack before it.
    const rest = [...params];
    const context = rest.length > 0 && typeof rest.at(-1) === 'string' && !isStack(rest.at(-1)) ? (rest.pop() as string) : undefined;
    const stack = rest.find(isStack);
    const effective: Level = level === 'info' && context !== undefined && BOOT_CONTEXTS.has(context) ? 'debug' : level;
    const fields: Record<string, unknown> = { component: 'nest', ...(context !== undefined ? { context } : {}) };
    if (message instanceof Error) {
      this.logger[effective]({ ...fields, err: message }, message.message);
    } else if (message !== null && typeof message === 'object') {
      this.logger[effective]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.logger[effective]({ ...fields, ...(stack !== undefined ? { stack } : {}) }, String(message));
    }
  }
}
