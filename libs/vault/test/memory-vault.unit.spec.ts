import { InMemoryVaultStore } from '@settle/vault';
import { vaultContract } from './vault.contract.js';

vaultContract('in-memory', () => new InMemoryVaultStore());
