import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Child, childEnv, tsxArgs } from '../../helpers/child-process.js'
import type { Teardown } from '../../helpers/gateway.js'

/** `portcullis <args>` in a child process, `env` over the suite's environment. */
export function portcullis(t: Teardown, args: string[], env: Record<string, string>): Child {
  return new Child(t, tsxArgs('src/main.ts', ...args), childEnv(env))
}

/** A config in security-key mode without a store, on ports 0, in front of `upstreamUrl`. */
export function tempConfig(t: Teardown, upstreamUrl: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-agentos-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'portcullis.yaml')
  writeFileSync(
    file,
    'server: {host: 127.0.0.1, port: 0, admin_host: 127.0.0.1, admin_port: 0}\n' +
      `upstream: {url: "${upstreamUrl}"}\n` +
      'auth: {security_key: a-test-key}\nservice_accounts: {enabled: false}\n',
  )
  return file
}
