import 'reflect-metadata';
import { runWorker } from '@settle/runtime';
import { SweeperModule } from './sweeper.module.js';

runWorker(SweeperModule);
