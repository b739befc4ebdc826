/**
 * Prints, from the provider registry (`@settle/providers`), the secrets the local stack seeds
 * into a vault, one `<provider> <name> <variable>` line each: `vault` for the verifier's
 * provider credentials, `webhook_vault` for ingestion's webhook secrets (current names only).
 * `scripts/local/stack.sh` reads the value of each from the named variable, so a new provider needs
 * no edit there.
 *
 * Usage: node dist/scripts/local/provider-secrets.js vault|webhook_vault
 */
import { PROVIDER_DEFINITIONS } from '@settle/providers';

const vault = process.argv[2];
if (vault !== 'vault' && vault !== 'webhook_vault') {
  process.stderr.write('usage: provider-secrets vault|webhook_vault\n');
  process.exit(2);
}
for (const definition of PROVIDER_DEFINITIONS) {
  const lines =
    vault === 'vault'
      ? definition.credentialNames.map((name) => [definition.name, name, definition.stackVariables.credentials[name]])
      : [[definition.name, definition.webhook.secretNames.current, definition.stackVariables.webhookSecret]];
  for (const [provider, name, variable] of lines) {
    if (!variable) throw new Error(`${provider}: no stack variable for ${name}`);
    process.stdout.write(`${provider} ${name} ${variable}\n`);
  }
}
