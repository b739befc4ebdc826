import { InMemoryVerificationStore } from '../src/verification-store.memory.js';
import { verificationStoreContract } from './verification-store.contract.js';

verificationStoreContract('in memory', () => {
  const store = new InMemoryVerificationStore();
  return {
    store,
    outboxed: (reference) =>
      Promise.resolve(
        store.outbox.filter((m) => m.payload.reference === reference).map((m) => `${m.type}:${(m.payload as { outcome?: string }).outcome ?? ''}`),
      ),
  };
});
