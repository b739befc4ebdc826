import 'reflect-metadata';
import { runWorker } from '@settle/runtime';
import { DispatcherModule } from './dispatcher.module.js';

runWorker(DispatcherModule);
