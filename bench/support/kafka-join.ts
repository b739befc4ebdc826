/**
 * Waits for a consumer's first join of its group (`joined`: a promise resolved by its
 * GROUP_JOIN event, created before `connect`), at most `timeoutMs` milliseconds.
 *
 * @throws Error naming `what` when it did not join in time.
 */
export async function joinedWithin(joined: Promise<void>, what: string, timeoutMs = 60_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      joined,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not join its group within ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
