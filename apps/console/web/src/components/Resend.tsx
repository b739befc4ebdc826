import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ResendAccepted } from '../api/types';
import { requeuedMessage } from '../lib/deliveries';
import { errorMessage, Spinner } from './Feedback';

/**
 * Resends an entitlement event (to one endpoint, or to every endpoint that had it) and marks what
 * shows deliveries stale, so the pages read them again without a reload.
 */
export function useResend(eventId: string, onAccepted?: (answer: ResendAccepted) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (endpointId?: string) => api.resend(eventId, endpointId),
    onSuccess: async (answer) => {
      onAccepted?.(answer);
      await Promise.all(
        [['event-deliveries', eventId], ['deliveries'], ['endpoint'], ['transaction']].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
    },
  });
}

/**
 * A "Resend" button with its outcome beside it (`resend-result`): how many deliveries were put
 * back in the schedule, or why not. Render it only for roles that may resend.
 */
export function ResendButton({
  eventId,
  endpointId,
  label = 'Resend',
  testId = 'resend',
  onAccepted,
}: {
  eventId: string;
  endpointId?: string;
  label?: string;
  testId?: string;
  onAccepted?: (answer: ResendAccepted) => void;
}) {
  const resend = useResend(eventId, onAccepted);
  return (
    <span className="action">
      <button
        type="button"
        className="button button-small"
        data-testid={testId}
        onClick={(event) => {
          event.stopPropagation();
          resend.mutate(endpointId);
        }}
        disabled={resend.isPending}
      >
        {resend.isPending ? <Spinner label="Resending" /> : null}
        {resend.isPending ? 'Resending…' : label}
      </button>
      {resend.isSuccess && (
        <span className="action-result small" role="status" data-testid="resend-result">
          {requeuedMessage(resend.data.requeued, 'resend')}
        </span>
      )}
      {resend.isError && (
        <span className="action-result action-error small" role="alert" data-testid="resend-result">
          Not resent: {errorMessage(resend.error)}
        </span>
      )}
    </span>
  );
}
