import { EventStoreLedgerWriter, InMemoryLedger } from '@settle/ledger';
import { ledgerWriterContract } from './ledger-writer.contract.js';

ledgerWriterContract('event store (in memory)', () => new EventStoreLedgerWriter(new InMemoryLedger(), async () => undefined));
