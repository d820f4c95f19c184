/**
 * Reference 11 part I, the lines the dispatch order decides (the verifier slot of this issue):
 * service-account tokens where no store is configured, and unverifiable ones on an open gateway.
 * Minting and using real tokens is the service-account issue's suite.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { forwarded, jConfig, jwt, refused, sConfig, stack, withDatabase } from './fixtures.js'

const runtime = await startRuntime(t)
const UNKNOWN = `svc_pat_${'A'.repeat(49)}`

void t.test(
  'I.144 S or J without a store: any svc_pat_ token → 401 "Service accounts are not enabled on this AgentOS instance"',
  async (t) => {
    const S = await stack(t, runtime, sConfig())
    const J = await stack(t, runtime, jConfig())
    for (const fixture of [S, J]) {
      for (const token of [UNKNOWN, 'svc_pat_x']) {
        const reply = await fixture.call('GET', '/sessions', { token })
        refused(t, reply, 401, 'Service accounts are not enabled on this AgentOS instance')
      }
    }
  },
)

void t.test(
  'I.147 O: a stale or unknown service-account token is ignored (200); so is a random bearer',
  async (t) => {
    const O = await stack(t, runtime, withDatabase(t))
    for (const path of ['/sessions', '/agents']) {
      for (const token of [UNKNOWN, 'svc_pat_x', 'not-a-pat', await jwt(['os:admin'])]) {
        const reply = await O.call('GET', path, { token })
        forwarded(t, reply, 200, path)
        t.equal(reply.upstream?.headers['x-auth-kind'], undefined, 'forwarded anonymously')
        t.equal(reply.upstream?.headers.authorization, undefined, 'the token is not forwarded')
      }
    }
  },
)
