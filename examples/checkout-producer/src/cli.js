#!/usr/bin/env node
/**
 * Sends checkout commands to Settle over Kafka and prints each answer, one line per result:
 * reference, command, outcome and code (tab-separated; the code is the refusal's, or a
 * verification's `verification/verdict`, `-` otherwise).
 *
 *   checkout-producer register [--complete] [--file <checkouts.jsonl> | --file -] [<checkout json>...]
 *   checkout-producer complete <reference>...
 *   checkout-producer verify <reference>...
 *
 * `register` reads `POST /v1/checkouts` bodies, one JSON object a line, from the file, from
 * standard input (`--file -`, or no argument at all), or from its arguments; with `--complete`
 * each registration answered `accepted` or `duplicate` is completed next (the client paid).
 * Each result is waited for at most `--timeout-ms` (default RESULT_TIMEOUT_MS, 30,000 ms).
 *
 * Exit status: 0 every command answered and none refused; 3 every command answered, some refused;
 * 1 a result missing (time-out) or a command that could not be sent; 2 a usage error.
 * Configuration: see config.js and the README.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { connectCheckoutProducer, ResultTimeoutError } from './producer.js';

const USAGE = `usage:
  checkout-producer register [--complete] [--file <checkouts.jsonl> | --file -] [<checkout json>...]
  checkout-producer complete <reference>...
  checkout-producer verify <reference>...
options: --timeout-ms <ms> (each result's wait)  --concurrency <n> (commands in flight, default 8)`;

class UsageError extends Error {}

/**
 * The checkouts to register: JSON lines from a file or standard input, or JSON arguments.
 *
 * @param {string | undefined} file - a path, `-` for standard input.
 * @param {string[]} args
 * @returns {Promise<object[]>}
 * @throws UsageError naming the line that is not a JSON object.
 */
async function checkoutsOf(file, args) {
  let lines = args;
  let where = (i) => `argument ${i + 1}`;
  if (file !== undefined || args.length === 0) {
    const text = file === undefined || file === '-' ? await readStdin() : await readFile(file, 'utf8');
    lines = text.split('\n');
    where = (i) => `${file && file !== '-' ? file : 'stdin'}:${i + 1}`;
  }
  const checkouts = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let body;
    try {
      body = JSON.parse(line);
    } catch {
      throw new UsageError(`${where(i)} is not JSON`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new UsageError(`${where(i)} is not a JSON object`);
    checkouts.push(body);
  }
  if (checkouts.length === 0) throw new UsageError('no checkout to register');
  return checkouts;
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs `work` over `items`, at most `concurrency` at a time. */
async function pool(items, concurrency, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      file: { type: 'string' },
      complete: { type: 'boolean', default: false },
      'timeout-ms': { type: 'string' },
      concurrency: { type: 'string', default: '8' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...args] = positionals;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!['register', 'complete', 'verify'].includes(command)) throw new UsageError(command ? `unknown command ${command}` : 'a command is required');
  if (command !== 'register' && (values.file !== undefined || values.complete)) throw new UsageError('--file and --complete go with register');
  if (command !== 'register' && args.length === 0) throw new UsageError(`${command} needs at least one reference`);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError('--concurrency must be a positive integer');
  const checkouts = command === 'register' ? await checkoutsOf(values.file, args) : [];

  const config = loadConfig(process.env);
  const timeoutMs = values['timeout-ms'] === undefined ? config.resultTimeoutMs : Number(values['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new UsageError('--timeout-ms must be a positive integer (milliseconds)');

  const producer = await connectCheckoutProducer(config);
  let missing = 0;
  let failed = 0;
  let refused = 0;
  const print = (reference, name, outcome, code) => process.stdout.write(`${reference}\t${name}\t${outcome}\t${code}\n`);
  /**
   * Sends one command and prints its answers (a VerifyCheckout accepted is answered twice).
   *
   * @returns {Promise<string | null>} the last outcome, `null` when none came or the command was not sent.
   */
  const run = async (name, reference, send) => {
    let sent;
    try {
      sent = await send();
    } catch (error) {
      failed += 1;
      console.error(`${reference}: ${name} not sent: ${error.message}`);
      print(reference, name, 'not-sent', '-');
      return null;
    }
    try {
      let result = await sent.result({ timeoutMs });
      printResult(result);
      if (name === 'VerifyCheckout' && result.outcome === 'accepted') {
        result = await sent.result({ timeoutMs, final: true });
        printResult(result);
      }
      return result.outcome;
    } catch (error) {
      if (!(error instanceof ResultTimeoutError)) throw error;
      missing += 1;
      print(reference, name, 'missing', `no result within ${timeoutMs} ms`);
      return null;
    }
  };
  const printResult = (r) => {
    if (r.outcome === 'refused') refused += 1;
    const code = r.problem?.code ?? (r.verification ? `${r.verification.verification}/${r.verification.verdict ?? '-'}` : '-');
    print(r.reference, r.command, r.outcome, code);
  };

  try {
    if (command === 'register') {
      await pool(checkouts, concurrency, async (body) => {
        const reference = String(body.reference ?? '(no reference)');
        const outcome = await run('RegisterCheckout', reference, () => producer.register(body));
        if (values.complete && (outcome === 'accepted' || outcome === 'duplicate')) {
          await run('CompleteCheckout', reference, () => producer.complete(reference));
        }
      });
    } else {
      const name = command === 'complete' ? 'CompleteCheckout' : 'VerifyCheckout';
      await pool(args, concurrency, (reference) => run(name, reference, () => producer[command](reference)));
    }
  } finally {
    await producer.close();
  }
  if (missing > 0 || failed > 0) {
    console.error(`${missing} result(s) missing, ${failed} command(s) not sent`);
    return 1;
  }
  return refused > 0 ? 3 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n${USAGE}`);
      process.exitCode = 2;
    } else {
      // kafkajs and registry errors carry no credentials; the configuration's are never printed.
      console.error(error.message);
      process.exitCode = 1;
    }
  },
);
