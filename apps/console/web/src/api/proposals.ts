import { useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from './client';
import type { Proposal } from './types';

// The proposals' reads (maker-checker, docs/approvals.md), shared by the Proposals page and the
// unmatched payments queue, under one cache key so a command marks them all stale at once.

/** Every cached read of proposals starts with this key (`invalidateQueries` of it refreshes them all). */
export const PROPOSALS_KEY = ['proposals'] as const;
const PENDING_KEY = [...PROPOSALS_KEY, 'pending'] as const;
const DECIDED_KEY = [...PROPOSALS_KEY, 'decided-here'] as const;
/** Proposals wait for a second person: read again every 15 s. */
const REFRESH_MS = 15_000;

/** `GET /api/v1/proposals`: the pending proposals, oldest first (expired ones left out by the API); read only while `enabled`. */
export function usePendingProposals(enabled = true) {
  return useQuery({ queryKey: PENDING_KEY, queryFn: () => call('get', '/api/v1/proposals'), refetchInterval: REFRESH_MS, enabled });
}

/** `GET /api/v1/proposals/:id`: one proposal as it stands (any status). */
export function useProposal(id: string) {
  return useQuery({
    queryKey: [...PROPOSALS_KEY, 'one', id],
    queryFn: () => call('get', '/api/v1/proposals/{id}', { path: { id } }),
    refetchInterval: REFRESH_MS,
  });
}

/**
 * The proposals decided from this browser since sign-in (approved, rejected or withdrawn here),
 * newest first, and `remember` to add one. The API lists pending proposals only; these stay on
 * the Proposals page with how they ended. Kept in the query cache, so signing out forgets them.
 */
export function useDecidedHere(): { decided: Proposal[]; remember: (proposal: Proposal) => void } {
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: DECIDED_KEY,
    queryFn: () => queryClient.getQueryData<Proposal[]>(DECIDED_KEY) ?? [],
    staleTime: Infinity,
    initialData: [] as Proposal[],
  });
  const remember = (proposal: Proposal) => {
    queryClient.setQueryData<Proposal[]>(DECIDED_KEY, (old = []) => [proposal, ...old.filter((p) => p.id !== proposal.id)]);
    queryClient.setQueryData([...PROPOSALS_KEY, 'one', proposal.id], proposal);
  };
  return { decided: data, remember };
}
