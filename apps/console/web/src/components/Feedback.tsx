import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

/** A small spinning ring with a label for screen readers. */
export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span className="spinner" role="status" aria-label={label} />;
}

/** What the API said went wrong, for people. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 0) return error.message;
    if (error.status === 403) return 'Your role does not allow this.';
    if (error.status >= 500) return `The console API could not answer (${error.code}). Try again in a moment.`;
    return error.message;
  }
  return error instanceof Error ? error.message : 'Something went wrong.';
}

/** A panel saying a read failed, with a retry button. */
export function ErrorPanel({ error, title = 'Could not load this page', onRetry }: { error: unknown; title?: string; onRetry?: () => void }) {
  return (
    <div className="panel panel-error" role="alert">
      <div>
        <strong>{title}</strong>
        <p className="muted">{errorMessage(error)}</p>
        {error instanceof ApiError && error.status !== 0 && <p className="code muted">{error.code}</p>}
      </div>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** A panel for a list or section with nothing in it. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div className="muted">{children}</div>}
    </div>
  );
}
