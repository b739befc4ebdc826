import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of the dispatcher, served at `GET /metrics` on its HTTP port. */
export class DispatcherMetrics {
  /** Delivery attempts by outcome (`delivered`, `gone`, `throttled`, `failed`). */
  readonly attempts: Counter<'outcome'>;

  /** Milliseconds of one attempt, from sending to the end of the answer or the failure. */
  readonly attemptDuration: Histogram;

  /** Milliseconds from the grant leaving the ledger's outbox to its delivery (a 2xx answer). */
  readonly deliveryLatency: Histogram;

  /** Deliveries given up after every retry (dead-lettered). Alert on any increase. */
  readonly deadLetters: Counter;

  /** Endpoints disabled, by reason (`gone`: answered 410; `failing`: failing continuously). Alert on any increase. */
  readonly endpointsDisabled: Counter<'reason'>;

  /** Deliveries Settle could not sign (an endpoint secret unreadable): not sent, tried again in 30 s. Alert on any increase. */
  readonly signingFailures: Counter;

  /** Entitlement events recorded while no endpoint was subscribed to their kind (delivered to nobody until a recovery). */
  readonly unsubscribedEvents: Counter;

  /** Attempts in flight in this instance. */
  readonly inFlight: Gauge;

  /** @param registry - the app's registry (`createMetricsRegistry`), where these are registered; a new empty one by default. */
  constructor(readonly registry: Registry = new Registry()) {
    this.attempts = new Counter({
      name: 'settle_delivery_attempts_total',
      help: 'Delivery attempts to customer endpoints, by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    this.attemptDuration = new Histogram({
      name: 'settle_delivery_attempt_duration_ms',
      help: 'Duration of one delivery attempt, milliseconds',
      buckets: [2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000],
      registers: [registry],
    });
    this.deliveryLatency = new Histogram({
      name: 'settle_delivery_latency_ms',
      help: 'Delay from an entitlement event being published to its successful delivery, milliseconds',
      buckets: [10, 25, 50, 100, 250, 500, 1_000, 5_000, 30_000, 300_000, 3_600_000, 86_400_000],
      registers: [registry],
    });
    this.deadLetters = new Counter({
      name: 'settle_delivery_dead_letters_total',
      help: 'Deliveries exhausted after every retry and sent to the delivery dead-letter topic',
      registers: [registry],
    });
    this.endpointsDisabled = new Counter({
      name: 'settle_endpoints_disabled_total',
      help: 'Customer endpoints disabled automatically, by reason',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
    this.signingFailures = new Counter({
      name: 'settle_delivery_signing_failures_total',
      help: 'Deliveries not sent because the endpoint secret could not be read',
      registers: [registry],
    });
    this.unsubscribedEvents = new Counter({
      name: 'settle_entitlement_events_unsubscribed_total',
      help: 'Entitlement events recorded with no subscribed endpoint',
      registers: [registry],
    });
    this.inFlight = new Gauge({
      name: 'settle_deliveries_in_flight',
      help: 'Delivery attempts in flight in this dispatcher instance',
      registers: [registry],
    });
  }
}
