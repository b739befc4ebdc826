import { ConsoleError } from '../errors.js';
import type { DeliveryAdmin, DeliveryQuery, DeliveryView, DeliveryWithAttempts, EndpointView } from './delivery-admin.port.js';

/** Deliveries an endpoint's page shows, newest first. */
export const RECENT_DELIVERIES = 20;

/** A page of deliveries, newest first; `nextCursor` (a delivery id as text) is `null` on the last page. */
export interface DeliveryPage {
  items: DeliveryView[];
  nextCursor: string | null;
}

/**
 * What the console's Deliveries pages read and do (docs/console.md, "Deliveries"), over a
 * {@link DeliveryAdmin}: endpoint URLs joined to deliveries, an endpoint's recent deliveries,
 * keyset pages. Without a dispatcher configured (`CONSOLE_DISPATCHER_URL` unset) every call
 * throws `ConsoleError` `CONSOLE.DELIVERY_NOT_CONFIGURED` (503).
 */
export class DeliveriesService {
  /** @param admin - the dispatcher's admin API, or `null` when the console has none configured. */
  constructor(private readonly admin: DeliveryAdmin | null) {}

  /**
   * The admin API, for an action about to run (checked before the action is recorded, so an
   * unconfigured console records nothing).
   *
   * @throws ConsoleError `CONSOLE.DELIVERY_NOT_CONFIGURED`.
   */
  dispatcher(): DeliveryAdmin {
    if (!this.admin) {
      throw new ConsoleError(
        'CONSOLE.DELIVERY_NOT_CONFIGURED',
        'The console has no dispatcher configured (CONSOLE_DISPATCHER_URL and CONSOLE_DISPATCHER_ADMIN_API_KEY)',
      );
    }
    return this.admin;
  }

  /** Every endpoint, disabled ones first, then by URL. */
  async endpoints(): Promise<EndpointView[]> {
    const endpoints = await this.dispatcher().endpoints();
    return [...endpoints].sort((a, b) => Number(a.enabled) - Number(b.enabled) || a.url.localeCompare(b.url));
  }

  /**
   * One endpoint and its {@link RECENT_DELIVERIES} newest deliveries.
   *
   * @throws ConsoleError `CONSOLE.ENDPOINT_NOT_FOUND`.
   */
  async endpoint(id: string): Promise<{ endpoint: EndpointView; recentDeliveries: DeliveryView[] }> {
    const admin = this.dispatcher();
    const endpoint = await admin.endpoint(id);
    const recent = await admin.deliveries({ endpointId: id, limit: RECENT_DELIVERIES });
    return { endpoint, recentDeliveries: recent.map((d) => ({ ...d, endpointUrl: endpoint.url })) };
  }

  /** One page of deliveries, newest first, each with its endpoint's URL. */
  async deliveries(query: DeliveryQuery): Promise<DeliveryPage> {
    const admin = this.dispatcher();
    const [rows, urls] = await Promise.all([admin.deliveries(query), this.endpointUrls(admin)]);
    const items = rows.map((d) => ({ ...d, endpointUrl: urls.get(d.endpointId) ?? null }));
    return { items, nextCursor: items.length === query.limit ? String(items.at(-1)!.deliveryId) : null };
  }

  /**
   * Every delivery of an entitlement event with every attempt, each with its endpoint's URL.
   *
   * @throws ConsoleError `CONSOLE.EVENT_NOT_FOUND`.
   */
  async eventDeliveries(eventId: string): Promise<{ eventId: string; deliveries: DeliveryWithAttempts[] }> {
    const admin = this.dispatcher();
    const [rows, urls] = await Promise.all([admin.eventDeliveries(eventId), this.endpointUrls(admin)]);
    return { eventId, deliveries: rows.map((d) => ({ ...d, endpointUrl: urls.get(d.endpointId) ?? null })) };
  }

  private async endpointUrls(admin: DeliveryAdmin): Promise<Map<string, string>> {
    return new Map((await admin.endpoints()).map((e) => [e.id, e.url]));
  }
}
