/**
 * Attack class 18 — an unmatched route fails open (Envoy jwt_authn "no rule matched: not
 * required"; bevetu-org#106). Any path no rule names still needs a credential: without one it is
 * a 401 the upstream never sees. With `auth.deny_unmapped_routes` an authenticated caller is
 * refused (403); without it the request is forwarded with the verified identity only. Random
 * paths (fast-check, fixed seed) and unusual methods, over HTTP and WebSocket.
 */
import fc from 'fast-check'
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import {
  bearer,
  identityOf,
  jwt,
  PUBLIC_ROUTES,
  refused,
  securedGateway,
  send,
  upgrade,
  verifiedIdentity,
} from './harness.js'

const runtime = await startRuntime(t)
const open = await securedGateway(t, runtime)
const strict = await securedGateway(t, runtime, { auth: { deny_unmapped_routes: true } })
const keyed = await securedGateway(t, runtime, {
  auth: {
    verification_keys: null,
    algorithm: 'RS256',
    authorization: null,
    security_key: 'k-1-security-key-8d2f6b0a4e9c7a1f3b5d',
  },
})
const SCOPES = ['agents:read']
const alice = await jwt(SCOPES, { sub: 'alice' })
const UNMAPPED = 'Insufficient permissions. No scope mapping covers this route'

const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/).filter((s) => s !== '.' && s !== '..')
const randomPath = fc
  .array(segment, { minLength: 1, maxLength: 5 })
  .map((segments) => `/${segments.join('/')}`)
  .filter(
    (path) =>
      !PUBLIC_ROUTES.includes(path) && path !== '/docs/oauth2-redirect' && path !== '/redoc',
  )
const SEED = { seed: 18, numRuns: 150 }
const paths = fc.sample(randomPath, SEED)

void t.test('random unknown paths without a credential: 401, never proxied', async (t) => {
  for (const path of paths) {
    refused(t, await send(open, runtime, 'GET', path), 401, 'Authorization header missing', path)
    refused(t, await send(keyed, runtime, 'GET', path), 401, 'Authorization header required', path)
  }
  for (const path of paths.slice(0, 20)) {
    refused(t, await upgrade(open, runtime, path), 401, undefined, `upgrade ${path}`)
  }
})

void t.test(
  'deny_unmapped_routes: an authenticated caller is refused on unmapped routes',
  async (t) => {
    const admin = await jwt(['os:admin'], { sub: 'ops' })
    for (const path of ['/echo/x', '/unknown', '/unknown/a/b/c']) {
      refused(t, await send(strict, runtime, 'GET', path, [bearer(alice)]), 403, UNMAPPED, path)
      refused(
        t,
        await send(strict, runtime, 'GET', path, [bearer(admin)]),
        403,
        UNMAPPED,
        `${path} as admin`,
      )
    }
    refused(
      t,
      await upgrade(strict, runtime, '/ws/echo', [bearer(alice)]),
      403,
      UNMAPPED,
      'upgrade',
    )
    t.equal(
      (await send(strict, runtime, 'GET', '/agents/a1', [bearer(alice)])).status,
      200,
      'mapped ones work',
    )
  },
)

void t.test('without it: forwarded, with the verified identity only', async (t) => {
  for (const path of paths.slice(0, 30)) {
    const sent = await send(open, runtime, 'GET', path, [bearer(alice), 'X-Auth-User-Id: mallory'])
    t.same(identityOf(sent.upstream[0]?.rawHeaders ?? []), verifiedIdentity('alice', SCOPES), path)
  }
})

void t.test(
  'methods no rule names: a credential is required; deny_unmapped refuses them',
  async (t) => {
    for (const method of ['PUT', 'PURGE', 'PROPFIND', 'PATCH', 'SEARCH', 'LINK']) {
      for (const path of ['/agents/a1', '/config', '/sessions']) {
        refused(t, await send(open, runtime, method, path), 401, undefined, `${method} ${path}`)
        const denied = await send(strict, runtime, method, path, [bearer(alice)])
        refused(t, denied, 403, undefined, `${method} ${path} under deny_unmapped_routes`)
      }
    }
  },
)
