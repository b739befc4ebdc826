/**
 * Credentials vault (envelope encryption): provider secrets encrypted at rest in PostgreSQL under
 * per-secret data keys, wrapped by versioned master keys from configuration; rotation by rewrap.
 */
export * from './errors.js';
export * from './credential.js';
export * from './crypto.js';
export * from './key-version.js';
export { VAULT_ENV, vaultEnv, parseMasterKeys, parseKeyFile, readKeyFile, type MasterKeyEntry, type KeyFileContents } from './master-key-config.js';
export * from './key-ring.js';
export * from './key-file-rotation.js';
export * from './store.port.js';
export * from './memory-store.js';
export * from './postgres-store.js';
export * from './vault.js';
export * from './subject-keys/subject-key-store.port.js';
export * from './subject-keys/memory-subject-key-store.js';
export * from './subject-keys/postgres-subject-key-store.js';
export {
  SubjectKeys,
  SubjectKey,
  isSealedValue,
  type Subject,
  type SubjectKeyRewrapFailure,
  type SubjectKeysRewrapResult,
} from './subject-keys/subject-keys.js';
export * from './subject-keys/privacy-vault.js';
