/** States of a delivery (one entitlement event to one endpoint), docs/delivery.md, "Attempts". */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

/** One of {@link DELIVERY_STATES}; `failed` is a dead-lettered delivery (its retry schedule exhausted). */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A customer endpoint as the console shows it: never its signing secret. */
export interface EndpointView {
  id: string;
  url: string;
  description: string | null;
  /** The entitlement event kinds it is subscribed to (`subscription_started`, `subscription_renewed`). */
  eventKinds: string[];
  enabled: boolean;
  /** Why it is disabled: `admin`, `gone` (it answered 410), `failing` (failing continuously); `null` while enabled. */
  disabledReason: string | null;
  /** ISO 8601 UTC; `null` while enabled. */
  disabledAt: string | null;
  /** Start of its current run of failed attempts (none delivered since), ISO 8601 UTC; `null` when it is not failing. */
  failingSince: string | null;
  /** End of a secret rotation's overlap, ISO 8601 UTC; `null` when no previous secret signs. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One attempt of a delivery (a signed POST to the endpoint), docs/delivery.md, "Attempts". */
export interface DeliveryAttemptView {
  /** Attempt number within the delivery, from 1. */
  attempt: number;
  /** Start of the attempt, ISO 8601 UTC. */
  at: string;
  /** `delivered`, `gone`, `throttled` or `failed`. */
  outcome: string;
  /** The endpoint's HTTP status; `null` when no answer came (time-out, connection error). */
  httpStatus: number | null;
  /** Milliseconds from the request's start to the answer or the failure. */
  durationMs: number;
  /** The failure's code (`HTTP_500`, `TIMEOUT`, `CONNECTION.ECONNREFUSED`); `null` when delivered. */
  error: string | null;
  /** At most 512 characters of the answer, secrets redacted by the dispatcher; `null` when none. */
  responseExcerpt: string | null;
  /** When the next attempt was scheduled after this one, ISO 8601 UTC; `null` when none. */
  nextAttemptAt: string | null;
}

/** A delivery (one entitlement event to one endpoint). */
export interface DeliveryView {
  deliveryId: number;
  eventId: string;
  /** The event kind: `subscription_started` or `subscription_renewed`. */
  event: string;
  userId: string;
  endpointId: string;
  /** The endpoint's URL when the console knows the endpoint, else `null` (deleted since). */
  endpointUrl: string | null;
  state: DeliveryState;
  /** Attempts made so far, every round included. */
  attemptCount: number;
  /** ISO 8601 UTC, while `pending`; else `null`. */
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  /** HTTP status of the last attempt, `null` when none came. */
  lastStatus: number | null;
  /** Error code of the last attempt, `null` when it was delivered or none was made. */
  lastError: string | null;
  /** When the dispatcher recorded the delivery, ISO 8601 UTC. */
  recordedAt: string;
}

/** A delivery with every attempt, oldest first. */
export interface DeliveryWithAttempts extends DeliveryView {
  attempts: DeliveryAttemptView[];
}

/** Which deliveries to list: newest first, by keyset (`before` a delivery id). */
export interface DeliveryQuery {
  state?: DeliveryState;
  endpointId?: string;
  /** Only deliveries with a smaller id (the previous page's last one). */
  before?: number;
  /** 1..100. */
  limit: number;
}

/**
 * The dispatcher's deliveries and endpoints, read and acted on for the console's Deliveries pages
 * (docs/console.md, "Deliveries"; docs/delivery.md, the admin API table). The adapter is
 * `DispatcherDeliveryAdmin` (the dispatcher's admin API). Every method may also throw
 * `ConsoleError` `CONSOLE.DISPATCHER_UNAVAILABLE` (the dispatcher down, slow, answering 429 or
 * 5xx) and `CONSOLE.DISPATCHER_REJECTED` (it refused the console's key or request).
 */
export interface DeliveryAdmin {
  /** Every endpoint, deleted ones left out. */
  endpoints(): Promise<EndpointView[]>;

  /** @throws ConsoleError `CONSOLE.ENDPOINT_NOT_FOUND`. */
  endpoint(id: string): Promise<EndpointView>;

  /** One page of deliveries, newest first (`state: 'failed'`: the dead-lettered ones). */
  deliveries(query: DeliveryQuery): Promise<Array<Omit<DeliveryView, 'endpointUrl'>>>;

  /**
   * Every delivery of an entitlement event, with every attempt.
   *
   * @throws ConsoleError `CONSOLE.EVENT_NOT_FOUND` when the dispatcher never received the event.
   */
  eventDeliveries(eventId: string): Promise<Array<Omit<DeliveryWithAttempts, 'endpointUrl'>>>;

  /**
   * Puts an event back in the schedule: to one endpoint (a delivery recorded if it had none), or
   * to every endpoint that had it. Each requeued delivery starts a new round of the retry schedule.
   *
   * @returns how many deliveries were requeued.
   * @throws ConsoleError `CONSOLE.EVENT_NOT_FOUND`, `CONSOLE.ENDPOINT_NOT_FOUND`.
   */
  resend(eventId: string, endpointId?: string): Promise<number>;

  /**
   * Recovers an endpoint since a time: its deliveries dead-lettered at or after `since` again,
   * and the events received since then it is subscribed to and never had.
   *
   * @returns how many deliveries were requeued or added.
   * @throws ConsoleError `CONSOLE.ENDPOINT_NOT_FOUND`.
   */
  recover(endpointId: string, since: Date): Promise<number>;

  /**
   * Enables (its pending deliveries due at once) or disables (`disabled_reason: admin`) an endpoint.
   *
   * @returns the endpoint as it is now.
   * @throws ConsoleError `CONSOLE.ENDPOINT_NOT_FOUND`.
   */
  setEnabled(endpointId: string, enabled: boolean): Promise<EndpointView>;
}
