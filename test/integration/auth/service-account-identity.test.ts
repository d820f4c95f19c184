/**
 * Service-account identity through the gateway: a multipart run with a spoofed `user_id` part and a
 * 20 MB file reaches the upstream pinned and intact; listings are filtered by the token's scopes.
 */
import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import t from 'tap'
import { httpRequest } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'
import { ids, ip, jConfig, jwt, stack, withDatabase } from '../../conformance/fixtures.js'

const runtime = await startRuntime(t)
const J = await stack(t, runtime, jConfig({}, withDatabase(t)))
const admin = await jwt(['os:admin'], { sub: 'root' })

async function mint(name: string, scopes: string[]): Promise<string> {
  const reply = await J.call('POST', '/service-accounts', {
    token: admin,
    json: { name, scopes: scopes.map((scope) => ({ scope })) },
  })
  if (reply.status !== 201) throw new Error(`mint ${name}: ${reply.status} ${reply.text}`)
  return (reply.body as { token: string }).token
}

const BOUNDARY = 'portcullis-test-boundary-7d1f'
const FILE_BYTES = 20 * 1024 * 1024
const CHUNK = 1024 * 1024

function field(name: string, value: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
}

/** A multipart body generated as it is sent; `digest` is the file's sha256 once it has been read. */
function multipartRun(): { body: Readable; digest: () => string } {
  const hash = createHash('sha256')
  let digest: string | undefined
  async function* parts(): AsyncGenerator<Buffer> {
    yield Buffer.from(
      field('user_id', 'mallory') +
        field('message', 'summarise this file') +
        field('stream', 'false') +
        field('user_id', 'sa:someone-else') +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    )
    for (let sent = 0; sent < FILE_BYTES; sent += CHUNK) {
      const chunk = randomBytes(CHUNK)
      hash.update(chunk)
      yield chunk
    }
    digest = hash.digest('hex')
    yield Buffer.from(`\r\n${field('user_id', 'mallory-again')}--${BOUNDARY}--\r\n`)
  }
  return {
    body: Readable.from(parts()),
    digest: () => {
      if (digest === undefined) throw new Error('the body was not read to its end')
      return digest
    },
  }
}

interface Run {
  user_id: string
  files: { field: string; filename: string; size: number; sha256: string }[]
}

void t.test(
  'multipart run with spoofed user_id parts and a 20 MB file: user_id "sa:uploader" once, the file intact',
  async (t) => {
    const token = await mint('uploader', ['agents:run'])
    const { body, digest } = multipartRun()
    runtime.clear()
    const reply = await httpRequest(J.gateway.url, {
      method: 'POST',
      path: '/agents/a1/runs',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      },
      body,
      timeoutMs: 120_000,
    })
    t.equal(reply.status, 200, reply.status === 200 ? 'the run answered' : reply.text)
    const upstream = runtime.requests[0]
    t.same(upstream?.form?.user_id, ['sa:uploader'], 'one user_id, the verified one')
    t.same(upstream?.form?.message, ['summarise this file'])
    t.equal(upstream?.files?.length, 1)
    t.match(upstream?.files?.[0], { field: 'files', filename: 'big.bin', size: FILE_BYTES })
    t.equal(upstream?.files?.[0]?.sha256, digest(), 'the file arrived byte for byte')
    const run = reply.json() as Run
    t.equal(run.user_id, 'sa:uploader', 'the run is attributed to the service account')
    t.equal(upstream?.headers['x-auth-user-id'], 'sa:uploader')
    t.equal(upstream?.headers['x-auth-service-account'], 'uploader')
    t.equal(upstream?.headers.authorization, undefined, 'the token is never forwarded')
  },
)

void t.test('a url-encoded run is pinned the same way', async (t) => {
  const token = await mint('form-runner', ['agents:run'])
  const reply = await J.call('POST', '/agents/a1/runs', {
    token,
    form: { message: 'hi', user_id: 'mallory' },
  })
  t.equal(reply.status, 200)
  t.same(reply.upstream?.form?.user_id, ['sa:form-runner'])
})

void t.test('listing filters apply to service-account tokens', async (t) => {
  const token = await mint('lister', ['agents:a1:read', 'workflows:*:read'])
  const agents = await J.call('GET', '/agents', { token })
  t.equal(agents.status, 200)
  t.same(ids(agents.body), ['a1'], 'the upstream listed a1 and a2; the gateway kept a1')
  t.equal(agents.upstream?.path, '/agents')
  t.same(ids((await J.call('GET', '/workflows', { token })).body), ['w1'])
  const teams = await J.call('GET', '/teams', { token })
  t.equal(teams.status, 403)
  t.equal(teams.detail, ip('teams:read'))
  t.equal(teams.upstream, undefined)
  const other = await J.call('GET', '/agents/a2', { token })
  t.equal(other.status, 403)
  t.equal(other.detail, ip('agents:read'))
})
