import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logger (pino). Known secret-bearing fields are redacted wherever they
 * appear; secrets held in `Secret` objects print as `[redacted]` anyway.
 *
 * @param app - app name, added to every line as `app`.
 * @param level - pino level name.
 */
export function createLogger(app: string, level = 'info'): Logger {
  return pino({
    level,
    base: { app },
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'headers.authorization',
        '*.headers.authorization',
        'secret',
        '*.secret',
        'secretKey',
        '*.secretKey',
        'password',
        '*.password',
      ],
      censor: '[redacted]',
    },
  });
}
