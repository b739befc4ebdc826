import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of the dispatcher, served at `GET /metrics` on its HTTP port. */
export class DispatcherMetrics {
  readonly registry = new Registry();

  /** Delivery attempts by outcome (`delivered`, `gone`, `throttled`, `failed`). */
  readonly attempts = new Counter({
    name: 'settle_delivery_attempts_total',
    help: 'Delivery attempts to customer endpoints, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  /** Milliseconds of one attempt, from sending to the end of the answer or the failure. */
  readonly attemptDuration = new Histogram({
    name: 'settle_delivery_attempt_duration_ms',
    help: 'Duration of one delivery attempt, milliseconds',
    buckets: [2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000],
    registers: [this.registry],
  });

  /** Milliseconds from the grant leaving the ledger's outbox to its delivery (a 2xx answer). */
  readonly deliveryLatency = new Histogram({
    name: 'settle_delivery_latency_ms',
    help: 'Delay from an entitlement event being published to its successful delivery, milliseconds',
    buckets: [10, 25, 50, 100, 250, 500, 1_000, 5_000, 30_000, 300_000, 3_600_000, 86_400_000],
    registers: [this.registry],
  });

  /** Deliveries given up after every retry (dead-lettered). Alert on any increase. */
  readonly deadLetters = new Counter({
    name: 'settle_delivery_dead_letters_total',
    help: 'Deliveries exhausted after every retry and sent to the delivery dead-letter topic',
    registers: [this.registry],
  });

  /** Endpoints disabled, by reason (`gone`: answered 410; `failing`: failing continuously). Alert on any increase. */
  readonly endpointsDisabled = new Counter({
    name: 'settle_endpoints_disabled_total',
    help: 'Customer endpoints disabled automatically, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Deliveries Settle could not sign (an endpoint secret unreadable): not sent, tried again in 30 s. Alert on any increase. */
  readonly signingFailures = new Counter({
    name: 'settle_delivery_signing_failures_total',
    help: 'Deliveries not sent because the endpoint secret could not be read',
    registers: [this.registry],
  });

  /** Entitlement events recorded while no endpoint was subscribed to their kind (delivered to nobody until a recovery). */
  readonly unsubscribedEvents = new Counter({
    name: 'settle_entitlement_events_unsubscribed_total',
    help: 'Entitlement events recorded with no subscribed endpoint',
    registers: [this.registry],
  });

  /** Attempts in flight in this instance. */
  readonly inFlight = new Gauge({
    name: 'settle_deliveries_in_flight',
    help: 'Delivery attempts in flight in this dispatcher instance',
    registers: [this.registry],
  });
}
