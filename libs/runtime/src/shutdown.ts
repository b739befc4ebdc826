/**
 * The ordered shutdown steps: defined in `@settle/platform` (every app, HTTP ones too, stops
 * through them), re-exported here for the workers.
 */
export { stopInOrder, type ShutdownProgress, type StopStep } from '@settle/platform';
