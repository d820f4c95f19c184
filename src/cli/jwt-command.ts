import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { importPKCS8, SignJWT } from 'jose'
import { CliError } from './gateway-client.js'

interface MintOptions {
  key: string
  alg: string
  sub: string
  scopes?: string[]
  kid?: string
  aud?: string
  ttl: string
  allowDev?: boolean
}

/**
 * `portcullis jwt mint`: a development JWT. A gateway trusts whatever such a token says, so the
 * command refuses to run unless the caller says explicitly that this is for development.
 */
export function registerJwtCommands(program: Command): void {
  program
    .command('jwt')
    .description('JWT helpers for development')
    .command('mint')
    .description('Sign a development JWT (needs --allow-dev or PORTCULLIS_ALLOW_DEV_JWT=1)')
    .requiredOption(
      '--key <file>',
      'private key (PKCS#8 PEM) for RS/ES/EdDSA, or a file holding the HS secret',
    )
    .option('--alg <alg>', 'signing algorithm', 'RS256')
    .requiredOption('--sub <subject>', 'subject (user id)')
    .option('-s, --scopes <scope...>', 'scopes claim')
    .option('--kid <kid>', 'key id header')
    .option('--aud <audience>', 'audience claim')
    .option('--ttl <duration>', 'lifetime, e.g. 15m, 1h, 1d', '1h')
    .option('--allow-dev', 'confirm that this token is for development')
    .action(async (options: MintOptions) => {
      if (options.allowDev !== true && process.env.PORTCULLIS_ALLOW_DEV_JWT !== '1') {
        throw new CliError(
          'refusing to mint: pass --allow-dev (or set PORTCULLIS_ALLOW_DEV_JWT=1) to confirm this token is for development',
        )
      }
      process.stdout.write(`${await mintDevJwt(options)}\n`)
    })
}

export async function mintDevJwt(options: MintOptions): Promise<string> {
  const material = await readFile(options.key, 'utf8')
  const key = options.alg.startsWith('HS')
    ? new TextEncoder().encode(material.replace(/\r?\n$/, ''))
    : await importPKCS8(material, options.alg).catch(() => {
        throw new CliError(`--key must be a PKCS#8 private key PEM for ${options.alg}`)
      })
  const jwt = new SignJWT({ scopes: options.scopes ?? [] })
    .setProtectedHeader({
      alg: options.alg,
      ...(options.kid === undefined ? {} : { kid: options.kid }),
    })
    .setSubject(options.sub)
    .setIssuedAt()
    .setExpirationTime(options.ttl)
  if (options.aud !== undefined) jwt.setAudience(options.aud)
  return jwt.sign(key)
}
