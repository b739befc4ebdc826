import { MemoryReceiverStore } from '../src/index.js';
import { storeContract } from './store.contract.js';

storeContract('in-memory', async () => new MemoryReceiverStore());
