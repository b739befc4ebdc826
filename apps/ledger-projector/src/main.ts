import 'reflect-metadata';
import { runWorker } from '@settle/runtime';
import { LedgerProjectorModule } from './ledger-projector.module.js';

runWorker(LedgerProjectorModule);
