import { InMemoryLedger } from '@settle/ledger';
import { ledgerContract } from './ledger.contract.js';

ledgerContract('in-memory', () => new InMemoryLedger());
