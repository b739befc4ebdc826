import { Secret } from '@settle/config';
import { generateNoteKey, parseSignerKey, verifierKeyText, verifierOf, type NoteSigner } from '../chain/signed-note.js';

/** Schema of the ledger projector's own vault: the checkpoint key, under master keys of its own (docs/vault.md). */
export const LEDGER_VAULT_SCHEMA = 'ledger_vault';

/** Where the checkpoint key is kept in a vault: provider `settle`, account `ledger`, name `checkpoint_signing_key`. */
export const CHECKPOINT_KEY_CREDENTIAL = { provider: 'settle', account: 'ledger', name: 'checkpoint_signing_key' } as const;

/** What the checkpoint key needs of a vault: structurally the `CredentialsVault` of `@settle/vault`. */
export interface CheckpointKeyVault {
  /** @throws an error whose `code` is `VAULT.NOT_FOUND` when no key is stored. */
  get(ref: typeof CHECKPOINT_KEY_CREDENTIAL): Promise<Secret>;
  put(ref: typeof CHECKPOINT_KEY_CREDENTIAL, secret: Secret): Promise<{ version: number }>;
}

/** The signer of checkpoints, as the checkpointer asks for it before each signature. */
export interface CheckpointKeySource {
  /** The key that signs now, and its public half's published text (`<name>+<id>+<key>`). */
  current(): Promise<{ signer: NoteSigner; verifierKey: string }>;
}

/**
 * The ledger's checkpoint key (docs/ledger.md, "The checkpoint key"): an Ed25519 signer key in a
 * vault, never in configuration, made on first use. Rotation ({@link VaultCheckpointKey.rotate})
 * stores a new key as the credential's next version, which replaces the old private key (it can
 * sign nothing more); the old public key stays published beside the checkpoints it signed, so
 * they still verify.
 */
export class VaultCheckpointKey implements CheckpointKeySource {
  /**
   * @param vault - the ledger projector's vault (schema `ledger_vault`).
   * @param name - the key's name: the ledger's origin (no space or `+`).
   */
  constructor(
    private readonly vault: CheckpointKeyVault,
    private readonly name: string,
  ) {}

  /** @throws the vault's errors but `VAULT.NOT_FOUND` (then a key is made and stored). */
  async current(): Promise<{ signer: NoteSigner; verifierKey: string }> {
    let text: Secret;
    try {
      text = await this.vault.get(CHECKPOINT_KEY_CREDENTIAL);
    } catch (error) {
      if ((error as { code?: string }).code !== 'VAULT.NOT_FOUND') throw error;
      await this.rotate();
      text = await this.vault.get(CHECKPOINT_KEY_CREDENTIAL);
    }
    const signer = parseSignerKey(text.reveal());
    return { signer, verifierKey: verifierKeyText(signer.name, verifierOf(signer).publicKey) };
  }

  /**
   * Makes a new key and stores it as the credential's next version.
   *
   * @returns the new public key's text, to publish, and the credential's version.
   */
  async rotate(): Promise<{ verifierKey: string; version: number }> {
    const { signer, verifier } = generateNoteKey(this.name);
    const { version } = await this.vault.put(CHECKPOINT_KEY_CREDENTIAL, new Secret(signer));
    return { verifierKey: verifier, version };
  }
}
