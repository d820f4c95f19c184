import { randomUUID } from 'node:crypto'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair } from 'jose'
import { CliError } from './gateway-client.js'

const ALGORITHMS = ['RS256', 'ES256'] as const
type KeyAlgorithm = (typeof ALGORITHMS)[number]

/** `portcullis keys generate`: a signing key pair and the JWKS file the gateway verifies with. */
export function registerKeysCommands(program: Command): void {
  program
    .command('keys')
    .description('Key helpers')
    .command('generate')
    .description('Write a key pair (PEM) and a JWKS file with a kid, for auth.jwks_file')
    .option('--alg <alg>', 'RS256 or ES256', 'RS256')
    .option('--kid <kid>', 'key id (default: a random one)')
    .option('--out <dir>', 'output directory', '.')
    .action(async (options: { alg: string; kid?: string; out: string }) => {
      if (!(ALGORITHMS as readonly string[]).includes(options.alg))
        throw new CliError(`--alg must be one of ${ALGORITHMS.join(', ')}`)
      const written = await generateKeys(
        options.alg as KeyAlgorithm,
        options.kid ?? randomUUID(),
        options.out,
      )
      process.stdout.write(
        `Wrote ${written.privateKey} (keep secret), ${written.publicKey} and ${written.jwks}.\n` +
          `Verify with:  auth: { algorithm: ${options.alg}, jwks_file: ${resolve(written.jwks)} }\n` +
          "(a relative jwks_file resolves against the config file's directory)\n",
      )
    })
}

export async function generateKeys(
  alg: KeyAlgorithm,
  kid: string,
  dir: string,
): Promise<{ privateKey: string; publicKey: string; jwks: string }> {
  const pair = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'RS256' ? { modulusLength: 2048 } : {}),
  })
  const jwk = { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' }
  await mkdir(dir, { recursive: true })
  const paths = {
    privateKey: join(dir, `${kid}.private.pem`),
    publicKey: join(dir, `${kid}.public.pem`),
    jwks: join(dir, 'jwks.json'),
  }
  await writeFile(paths.privateKey, await exportPKCS8(pair.privateKey), { mode: 0o600 })
  // `mode` applies only when the file is created: an existing file keeps its mode otherwise.
  await chmod(paths.privateKey, 0o600)
  await writeFile(paths.publicKey, await exportSPKI(pair.publicKey))
  await writeFile(paths.jwks, `${JSON.stringify({ keys: [jwk] }, null, 2)}\n`)
  return paths
}
