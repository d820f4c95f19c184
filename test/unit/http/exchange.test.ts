/**
 * WebSocket credentials without sockets: `bearer, <token>` among the offered subprotocols, and
 * the exchange that decides an upgrade as it decides an HTTP request.
 */
import t from 'tap'
import type { Credential } from '../../../src/auth/credential.js'
import { extractCredential } from '../../../src/auth/extract-credential.js'
import type { AuthPipeline, DecideOptions } from '../../../src/auth/pipeline.js'
import { admitted, type Decision } from '../../../src/auth/decision.js'
import { Exchange, type ExchangeRequest } from '../../../src/http/exchange.js'
import type { InboundRequest } from '../../../src/inbound/inbound-request.js'
import { testCatalogue } from '../../helpers/catalogue.js'
import { GatewayError } from '../../../src/errors.js'
import {
  BEARER_SUBPROTOCOL,
  subprotocolCredential,
} from '../../../src/http/subprotocol-credential.js'
import { IdentityEnforcer } from '../../../src/identity/identity-enforcer.js'
import { inboundRequest } from '../../helpers/inbound.js'
import { ANONYMOUS } from '../../../src/principal.js'
import { serviceAccountPrincipal } from '../../helpers/principals.js'

const CATALOGUE = testCatalogue()
import { authConfig } from '../auth/helpers.js'
import { testConfig } from '../identity/helpers.js'

void t.test('bearer and the token after it are the credential, and leave the list', async (t) => {
  t.same(subprotocolCredential(['graphql-ws', 'bearer', 'tok', 'v2']), {
    credential: { token: 'tok', source: 'subprotocol' },
    protocols: ['graphql-ws', 'v2'],
  })
  t.same(subprotocolCredential(['graphql-ws']), {
    credential: undefined,
    protocols: ['graphql-ws'],
  })
  t.same(
    subprotocolCredential(['v1', 'bearer']),
    { credential: undefined, protocols: ['v1', 'bearer'] },
    'bearer last, with no token: no credential, offered as is',
  )
  t.same(subprotocolCredential([]), { credential: undefined, protocols: [] })
  t.equal(BEARER_SUBPROTOCOL, 'bearer')
})

void t.test('two bearer entries are refused, as two credential headers are', async (t) => {
  const twice = (() => {
    try {
      subprotocolCredential(['bearer', 'a', 'bearer', 'b'])
    } catch (error) {
      return error
    }
    return undefined
  })()
  t.match(twice, { status: 400, reason: 'credential.duplicate_subprotocol' })
  t.throws(() => void subprotocolCredential(['bearer', 'bearer']), /Multiple credentials/)
})

/** A pipeline that records the credential it was given and decides for a service account. */
function recordingPipeline() {
  const given: (Credential | null | undefined)[] = []
  const principal = serviceAccountPrincipal('ci', ['agents:run'])
  const pipeline = {
    async decide(request: InboundRequest, options: DecideOptions = {}): Promise<Decision> {
      const credential = real.credential(request, options) ?? null
      given.push(credential)
      const route = CATALOGUE.match('GET', request.path)
      const kind = { kind: 'jwt', source: credential?.source ?? 'none' } as const
      if (credential?.token === 'bad') {
        const refusal = new GatewayError('TOKEN_INVALID', 'Invalid token', {
          reason: 'jwt.signature',
        })
        const reason = refusal.reason
        return {
          outcome: 'denied',
          reason,
          refusal,
          route,
          credential: kind,
          principal: undefined,
          authorization: undefined,
        }
      }
      const authorization = { route: undefined, accessibleIds: undefined, requiredScopes: [] }
      return { outcome: 'allowed', reason: 'ok', principal, authorization, route, credential: kind }
    },
    credential: (request: InboundRequest, options: DecideOptions = {}) =>
      real.credential(request, options),
    match: (request: InboundRequest) => CATALOGUE.match('GET', request.path),
  } as unknown as AuthPipeline
  return { pipeline, given, principal }
}

const enforcer = new IdentityEnforcer(testConfig({}), 'jwt')

/** The pipeline's credential step: given, else the header or cookie, else the fallback. */
const real = {
  credential(request: InboundRequest, options: DecideOptions): Credential | undefined {
    if (options.credential !== undefined) return options.credential ?? undefined
    return extractCredential(request, authConfig()) ?? options.fallback
  },
}

/** The exchange's steps for an upgrade, as the upgrade handler runs them. */
function createUpgradeGate(deps: { pipeline: AuthPipeline }) {
  const exchange = new Exchange({ pipeline: deps.pipeline, enforcer })
  return async (inbound: InboundRequest) => {
    const offered = exchange.offered(inbound)
    const request: ExchangeRequest = { inbound, route: exchange.match(inbound), body: undefined }
    const decision = admitted(await exchange.decide(request, offered))
    const plan = await exchange.plan(request, decision)
    return { plan, protocols: offered.protocols, fallbackProtocol: offered.fallbackProtocol }
  }
}
const upgrade = (rawHeaders: string[]) =>
  inboundRequest({ path: '/agents/a1/ws', transport: 'websocket', rawHeaders })

void t.test(
  'the gate: header first, else the subprotocol; the pair never goes upstream',
  async (t) => {
    const { pipeline, given, principal } = recordingPipeline()
    const gate = createUpgradeGate({ pipeline })

    const fromSubprotocol = await gate(upgrade(['Sec-WebSocket-Protocol', 'bearer, tok, v1']))
    t.same(given.pop(), { token: 'tok', source: 'subprotocol' })
    t.same(fromSubprotocol.protocols, ['v1'], 'the client offers v1 only, upstream')
    t.equal(fromSubprotocol.fallbackProtocol, 'bearer', 'answered when the upstream picks none')
    t.equal(fromSubprotocol.plan.endsWith, principal, 'the connection ends with this credential')

    const fromHeader = await gate(
      upgrade(['Authorization', 'Bearer hdr', 'Sec-WebSocket-Protocol', 'bearer, tok']),
    )
    t.same(given.pop(), { token: 'hdr', source: 'header' }, 'the header wins')
    t.same(fromHeader.protocols, [], 'the unused token is not passed on either')
    t.equal(fromHeader.fallbackProtocol, 'bearer')

    const none = await gate(upgrade(['Sec-WebSocket-Protocol', 'v1']))
    t.equal(given.pop(), null, 'no credential at all: the pipeline is told so')
    t.same(none.protocols, ['v1'])
    t.equal(none.fallbackProtocol, undefined)
  },
)

void t.test('the gate refuses what the pipeline refuses, before any plan', async (t) => {
  const { pipeline } = recordingPipeline()
  const gate = createUpgradeGate({ pipeline })
  const refusal = async (rawHeaders: string[]): Promise<unknown> => {
    try {
      await gate(upgrade(rawHeaders))
    } catch (error) {
      return error
    }
    return undefined
  }
  t.match(await refusal(['Sec-WebSocket-Protocol', 'bearer, bad']), {
    status: 401,
    reason: 'jwt.signature',
  })
  t.match(await refusal(['Sec-WebSocket-Protocol', 'bearer, a, bearer, b']), { status: 400 })
  t.match(await refusal(['Authorization', 'Bearer a', 'authorization', 'Bearer b']), {
    reason: 'credential.duplicate_header',
  })
})

void t.test(
  "a public upgrade forwards no client X-User-ID, as a public request doesn't",
  async (t) => {
    const planFor = async (isPublic: boolean) => {
      const pipeline = {
        async decide(request: InboundRequest): Promise<Decision> {
          const route = CATALOGUE.match('GET', request.path)
          const credential = { kind: 'none', source: 'none' } as const
          if (isPublic) {
            const reason = 'ok'
            return {
              outcome: 'public',
              reason,
              principal: ANONYMOUS,
              authorization: undefined,
              route,
              credential,
            }
          }
          const authorization = { route: undefined, accessibleIds: undefined, requiredScopes: [] }
          return {
            outcome: 'allowed',
            reason: 'ok',
            principal: ANONYMOUS,
            authorization,
            route,
            credential,
          }
        },
        match: (request: InboundRequest) => CATALOGUE.match('GET', request.path),
      } as unknown as AuthPipeline
      const gate = createUpgradeGate({ pipeline })
      return (await gate(upgrade(['X-User-ID', 'mallory']))).plan
    }
    t.ok((await planFor(true)).headers.drop.has('x-user-id'), 'excluded route: dropped')
    t.notOk(
      (await planFor(false)).headers.drop.has('x-user-id'),
      'an anonymous caller on a guarded route (open mode) keeps it',
    )
  },
)
