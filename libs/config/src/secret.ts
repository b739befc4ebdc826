import { inspect } from 'node:util';

/**
 * A secret from configuration (API key, provider secret key). It never prints: `toString`,
 * `toJSON` and `util.inspect` all answer `[redacted]`, so a secret that reaches a log line,
 * an error or a response body by mistake stays hidden. Only {@link Secret.reveal} gives
 * the value, at the one place that must use it (an HMAC, an Authorization header).
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret's value. Call it only where the value is used, never to log or return it. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}
