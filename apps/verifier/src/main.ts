import 'reflect-metadata';
import { runWorker } from '@settle/runtime';
import { VerifierModule } from './verifier.module.js';

runWorker(VerifierModule);
