import { isDeliveryNotConfigured } from '../lib/deliveries';
import { EmptyState, ErrorPanel } from './Feedback';

/**
 * A failed read of the Deliveries pages: a plain "not configured" state when the console has no
 * dispatcher (503 `CONSOLE.DELIVERY_NOT_CONFIGURED`), else the usual error panel with a retry.
 */
export function DeliveriesError({ error, onRetry, title }: { error: unknown; onRetry: () => void; title?: string }) {
  if (isDeliveryNotConfigured(error)) {
    return (
      <div data-testid="delivery-not-configured">
        <EmptyState title="Delivery is not configured">
          This console has no dispatcher to ask. Set <span className="mono">CONSOLE_DISPATCHER_URL</span> and{' '}
          <span className="mono">CONSOLE_DISPATCHER_ADMIN_API_KEY</span> and restart it to see endpoints and deliveries.
        </EmptyState>
      </div>
    );
  }
  return <ErrorPanel error={error} title={title} onRetry={onRetry} />;
}
