import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api, ApiError, onUnauthenticated, setCsrfToken } from './client';
import type { Session } from './types';

const SESSION_KEY = ['session'] as const;

/** Reads the session; `null` when there is none (401), so the sign-in page shows. */
async function readSession(): Promise<Session | null> {
  try {
    const session = await api.session();
    setCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setCsrfToken(null);
      return null;
    }
    throw error;
  }
}

/**
 * The signed-in session, read once at start and dropped (back to the sign-in page) whenever any
 * request answers 401.
 */
export function useSession() {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      onUnauthenticated(() => {
        setCsrfToken(null);
        queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
        queryClient.setQueryData(SESSION_KEY, null);
      }),
    [queryClient],
  );
  return useQuery({ queryKey: SESSION_KEY, queryFn: readSession, staleTime: Infinity });
}

/** Signs in; on success the session is the answer, so the app shows without another read. */
export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ email, password }: { email: string; password: string }) => api.signIn(email, password),
    onSuccess: (session) => {
      setCsrfToken(session.csrfToken);
      queryClient.setQueryData(SESSION_KEY, session);
    },
  });
}

/** Signs out and forgets everything read under the session, whether or not the API could be told. */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.signOut(),
    onSettled: () => {
      setCsrfToken(null);
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
      queryClient.setQueryData(SESSION_KEY, null);
    },
  });
}
