import type { ProviderName, ProviderVerdict } from '@settle/domain';
import type { PaymentProvider, VerificationRequest } from '../shared/provider.port.js';

/**
 * One scripted answer: a verdict, or a function of the request (for answers that depend on the
 * expectation, or that wait: a slow provider).
 */
export type FakeAnswer = ProviderVerdict | ((request: VerificationRequest) => ProviderVerdict | Promise<ProviderVerdict>);

/**
 * An in-memory {@link PaymentProvider} for tests: answers are scripted per reference and
 * served in order (the last one repeats), every call is recorded. A reference with no script
 * answers `not_found`, as a real provider answers an unknown reference. Like the real adapters
 * it never rejects for a provider failure: script `{ kind: 'unreachable', cause }` for one.
 */
export class FakePaymentProvider implements PaymentProvider {
  /** Every request received, in order. */
  readonly calls: VerificationRequest[] = [];
  private readonly scripts = new Map<string, FakeAnswer[]>();
  private closed = false;

  constructor(readonly name: ProviderName = 'paystack') {}

  /**
   * Scripts the answers for a reference, served one per call in order; the last one repeats.
   *
   * @returns this, for chaining.
   */
  script(reference: string, ...answers: [FakeAnswer, ...FakeAnswer[]]): this {
    this.scripts.set(reference, [...answers]);
    return this;
  }

  /** Calls received for one reference. */
  callsFor(reference: string): VerificationRequest[] {
    return this.calls.filter((call) => call.reference === reference);
  }

  /**
   * Records the call and serves the next scripted answer.
   *
   * @throws Error after {@link close} (a call on a closed adapter is a programming error).
   */
  async verify(request: VerificationRequest): Promise<ProviderVerdict> {
    if (this.closed) throw new Error(`FakePaymentProvider(${this.name}) is closed`);
    this.calls.push(request);
    const queue = this.scripts.get(request.reference);
    if (!queue || queue.length === 0) return { kind: 'not_found' };
    const answer = queue.length > 1 ? queue.shift()! : queue[0]!;
    return typeof answer === 'function' ? answer(request) : answer;
  }

  /** Like the real adapters' `close()`: no call is accepted afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
