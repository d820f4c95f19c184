import { closeSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { start } from '../lib/cleanup.js'
import { freePort, waitForHttp } from '../lib/net.js'
import { checkVerification, type JwtCheck } from './jwt-check.js'
import { isAlive, logFile, runningSystem, tail, type RunningSystem } from './system.js'

/**
 * HAProxy's own RS256 check (2.5+): the bearer token's header must say RS256, its signature must
 * verify against the public key, and its `exp` must lie ahead. Anything else gets 401.
 */
export function jwtRules(publicKeyFile: string): string {
  return `  http-request deny deny_status 401 unless { req.hdr(authorization) -m found }
  http-request set-var(txn.bearer) http_auth_bearer
  http-request set-var(txn.alg) var(txn.bearer),jwt_header_query('$.alg')
  http-request deny deny_status 401 unless { var(txn.alg) -m str RS256 }
  http-request deny deny_status 401 unless { var(txn.bearer),jwt_verify(txn.alg,"${publicKeyFile}") -m int 1 }
  http-request set-var(txn.exp) var(txn.bearer),jwt_payload_query('$.exp','int')
  http-request set-var(txn.now) date()
  http-request deny deny_status 401 if { var(txn.exp),sub(txn.now) -m int lt 0 }
`
}

/** HAProxy in one thread, keep-alive on both sides, connection reuse towards the upstream. */
export function haproxyConfig(port: number, upstreamPort: number, rules: string): string {
  return `global
  nbthread 1
  maxconn 4096

defaults
  mode http
  timeout connect 5s
  timeout client 120s
  timeout server 120s
  timeout http-keep-alive 120s
  option http-keep-alive

frontend bench
  bind 127.0.0.1:${port}
${rules}  default_backend bench_upstream

backend bench_upstream
  http-reuse always
  server upstream 127.0.0.1:${upstreamPort} maxconn 1000
`
}

export type HaproxyJwt = JwtCheck

export async function startHaproxy(
  haproxyPath: string,
  parent: string,
  name: string,
  upstreamPort: number,
  cpus: string | null,
  jwt?: HaproxyJwt,
): Promise<RunningSystem> {
  const dir = join(parent, name)
  mkdirSync(dir, { recursive: true })
  const port = await freePort()
  let rules = ''
  if (jwt !== undefined) {
    const keyFile = join(dir, 'rs256-public.pem')
    writeFileSync(keyFile, jwt.publicKeyPem)
    rules = jwtRules(keyFile)
  }
  const conf = join(dir, 'haproxy.cfg')
  writeFileSync(conf, haproxyConfig(port, upstreamPort, rules))
  const out = logFile(join(dir, 'haproxy.out'))
  const child = start(haproxyPath, ['-db', '-f', conf], { cpus, stdio: ['ignore', out.fd, out.fd] })
  closeSync(out.fd)
  const baseUrl = `http://127.0.0.1:${port}`
  const headers: Record<string, string> =
    jwt === undefined ? {} : { authorization: `Bearer ${jwt.validToken}` }
  try {
    await waitForHttp(`${baseUrl}/health`, name, isAlive(child), 20_000, headers)
  } catch (error) {
    throw new Error(`${String(error)}\n${tail(out.path)}`, { cause: error })
  }
  if (jwt !== undefined) await checkVerification(baseUrl, jwt, 'HAProxy jwt_verify')
  return runningSystem(name, baseUrl, child)
}
