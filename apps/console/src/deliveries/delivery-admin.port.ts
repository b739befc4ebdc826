import type { paths } from '../../web/src/api/generated/console-api.js';

// The views below are the console API's own answers (its committed document,
// docs/api/console-openapi.json, and the types `npm run openapi` generates from it for the web app),
// named for the port: a field renamed or retyped in an answer's schema fails to compile in the
// adapter that fills it, instead of drifting from a copy kept here by hand.

/** The JSON body of a console API `GET`'s 200 answer. */
type ConsoleAnswer<P extends keyof paths> = paths[P]['get'] extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

/**
 * A customer endpoint as the console shows it (the `endpoint` of `GET /api/v1/endpoints/{id}`):
 * never its signing secret.
 * - `eventKinds`: the entitlement event kinds it is subscribed to (`subscription_started`, `subscription_renewed`);
 * - `disabledReason`: why it is disabled: `admin`, `gone` (it answered 410), `failing` (failing continuously); `null` while enabled;
 * - `disabledAt`: ISO 8601 UTC; `null` while enabled;
 * - `failingSince`: start of its current run of failed attempts (none delivered since), ISO 8601 UTC; `null` when it is not failing;
 * - `previousSecretExpiresAt`: end of a secret rotation's overlap, ISO 8601 UTC; `null` when no previous secret signs.
 */
export type EndpointView = ConsoleAnswer<'/api/v1/endpoints/{id}'>['endpoint'];

/**
 * A delivery (one entitlement event to one endpoint), an item of `GET /api/v1/deliveries`.
 * - `event`: the event kind, `subscription_started` or `subscription_renewed`;
 * - `endpointUrl`: the endpoint's URL when the console knows the endpoint, else `null` (deleted since);
 * - `state`: one of {@link DELIVERY_STATES};
 * - `attemptCount`: attempts made so far, every round included;
 * - `nextAttemptAt`: ISO 8601 UTC, while `pending`; else `null`;
 * - `lastStatus`: HTTP status of the last attempt, `null` when none came;
 * - `lastError`: error code of the last attempt, `null` when it was delivered or none was made;
 * - `recordedAt`: when the dispatcher recorded the delivery, ISO 8601 UTC.
 */
export type DeliveryView = ConsoleAnswer<'/api/v1/deliveries'>['items'][number];

/** A delivery with every attempt, oldest first (an item of `GET /api/v1/events/{eventId}/deliveries`). */
export type DeliveryWithAttempts = ConsoleAnswer<'/api/v1/events/{eventId}/deliveries'>['deliveries'][number];

/**
 * One attempt of a delivery (a signed POST to the endpoint), docs/delivery.md, "Attempts".
 * - `attempt`: attempt number within the delivery, from 1;
 * - `at`: start of the attempt, ISO 8601 UTC;
 * - `outcome`: `delivered`, `gone`, `throttled` or `failed`;
 * - `httpStatus`: the endpoint's HTTP status; `null` when no answer came (time-out, connection error);
 * - `durationMs`: milliseconds from the request's start to the answer or the failure;
 * - `error`: the failure's code (`HTTP_500`, `TIMEOUT`, `CONNECTION.ECONNREFUSED`); `null` when delivered;
 * - `responseExcerpt`: at most 512 characters of the answer, secrets redacted by the dispatcher; `null` when none;
 * - `nextAttemptAt`: when the next attempt was scheduled after this one, ISO 8601 UTC; `null` when none.
 */
export type DeliveryAttemptView = DeliveryWithAttempts['attempts'][number];

/** One of {@link DELIVERY_STATES}; `failed` is a dead-lettered delivery (its retry schedule exhausted). */
export type DeliveryState = DeliveryView['state'];

/** States of a delivery (one entitlement event to one endpoint), docs/delivery.md, "Attempts". */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'cancelled'] as const satisfies readonly DeliveryState[];

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
   * Enables (the events it missed while disabled get a delivery, its pending deliveries due at once) or disables (`disabled_reason: admin`) an endpoint.
   *
   * @returns the endpoint as it is now.
   * @throws ConsoleError `CONSOLE.ENDPOINT_NOT_FOUND`.
   */
  setEnabled(endpointId: string, enabled: boolean): Promise<EndpointView>;
}
