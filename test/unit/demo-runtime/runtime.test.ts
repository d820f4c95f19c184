import { createHash } from 'node:crypto'
import { request } from 'node:http'
import t from 'tap'
import { form, json, readSse, startRuntime } from './helpers.js'

void t.test('routing: 404 and 405 texts, HEAD, case and trailing slashes', async (t) => {
  const runtime = await startRuntime(t)
  const unknown = await fetch(`${runtime.url}/nope`)
  t.equal(unknown.status, 404)
  t.same(await json(unknown), { detail: 'Not Found' })
  const wrongMethod = await fetch(`${runtime.url}/health`, { method: 'POST' })
  t.equal(wrongMethod.status, 405)
  t.same(await json(wrongMethod), { detail: 'Method Not Allowed' })
  t.equal((await fetch(`${runtime.url}/health`, { method: 'HEAD' })).status, 405)
  t.equal((await fetch(`${runtime.url}/Agents`)).status, 404)
  t.equal((await fetch(`${runtime.url}/agents`, { method: 'POST' })).status, 404)
  t.equal((await fetch(`${runtime.url}/service-accounts`)).status, 404)
  const agents = await fetch(`${runtime.url}/agents///`)
  t.equal(agents.status, 200)
  t.match(await json(agents), [{ id: 'a1', name: 'Agent One' }, { id: 'a2' }])
  const missing = await fetch(`${runtime.url}/agents/zz`)
  t.same(await json(missing), { detail: 'Agent not found' })
  t.match(await json(await fetch(`${runtime.url}/info`)), { auth_mode: 'none', os_id: 'demo-os' })
})

void t.test(
  'a urlencoded run echoes the message and the exact user_id, and owns a new session',
  async (t) => {
    const runtime = await startRuntime(t)
    const response = await fetch(`${runtime.url}/agents/a1/runs`, {
      method: 'POST',
      body: form({ message: 'hi', user_id: 'alice' }),
    })
    t.equal(response.status, 200)
    const run = (await json(response)) as { session_id: string }
    t.match(run, { agent_id: 'a1', user_id: 'alice', content: 'echo: hi', status: 'COMPLETED' })
    const session = await fetch(`${runtime.url}/sessions/${run.session_id}`)
    t.match(await json(session), { session_id: run.session_id, user_id: 'alice' })
    const anonymous = await fetch(`${runtime.url}/teams/t1/runs`, {
      method: 'POST',
      body: form({ message: 'x' }),
    })
    t.match(await json(anonymous), { team_id: 't1', user_id: null })
    const unknown = await fetch(`${runtime.url}/workflows/nope/runs`, {
      method: 'POST',
      body: form({ message: 'x' }),
    })
    t.equal(unknown.status, 404)
  },
)

void t.test('a multipart run with a file counts the file and records the fields', async (t) => {
  const runtime = await startRuntime(t)
  const file = Buffer.alloc(300_000, 7)
  const body = new FormData()
  body.set('message', 'with file')
  body.set('user_id', 'bob')
  body.set('files', new Blob([file], { type: 'application/pdf' }), 'doc.pdf')
  const response = await fetch(`${runtime.url}/agents/a2/runs`, { method: 'POST', body })
  t.equal(response.status, 200)
  const expected = {
    field: 'files',
    filename: 'doc.pdf',
    size: file.length,
    contentType: 'application/pdf',
    sha256: createHash('sha256').update(file).digest('hex'),
  }
  t.match(await json(response), { user_id: 'bob', files: [expected] })
  const recorded = runtime.requests.at(-1)
  t.same(recorded?.form, { message: ['with file'], user_id: ['bob'] })
  t.same(recorded?.files, [expected])
})

void t.test('multipart text is read as Starlette reads it', async (t) => {
  const runtime = await startRuntime(t)
  const boundary = 'demo-charset'
  const part = (name: string, value: Buffer, head = ''): Buffer =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${head}\r\n\r\n`),
      value,
      Buffer.from('\r\n'),
    ])
  const send = async (charset: string) => {
    const body = Buffer.concat([
      part('message', Buffer.from('hi')),
      part('utf8', Buffer.from('sesión-α')),
      part('raw', Buffer.from([0x73, 0xe9])),
      part('declared', Buffer.from('é'), '\r\nContent-Type: text/plain; charset=latin1'),
      Buffer.from(`--${boundary}--\r\n`),
    ])
    const response = await fetch(`${runtime.url}/agents/a2/runs`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}${charset}` },
      body,
    })
    t.equal(response.status, 200)
    await response.arrayBuffer()
    return runtime.requests.at(-1)?.form
  }
  t.same(
    await send(''),
    { message: ['hi'], utf8: ['sesión-α'], raw: ['s\u00e9'], declared: ['é'] },
    'UTF-8 by default, latin-1 for bytes that are not, a part’s own charset ignored',
  )
  t.same(
    await send('; charset=ISO-8859-1'),
    { message: ['hi'], utf8: ['sesiÃ³n-Î±'], raw: ['s\u00e9'], declared: ['Ã©'] },
    'the request’s charset',
  )
})

void t.test('a streamed run arrives event by event', async (t) => {
  const runtime = await startRuntime(t, { sseIntervalMs: 80 })
  const sentAt = Date.now()
  const response = await fetch(`${runtime.url}/agents/a1/runs`, {
    method: 'POST',
    body: form({ message: 'stream me', stream: 'true', user_id: 'carol' }),
  })
  t.match(response.headers.get('content-type'), /^text\/event-stream/)
  const events = await readSse(response, sentAt)
  t.same(
    events.map((event) => event.event),
    ['RunStarted', 'RunContent', 'RunContent', 'RunContent', 'RunCompleted'],
  )
  t.match(events[1]?.data, { index: 0, user_id: 'carol' })
  t.match(events[4]?.data, { content: 'echo: stream me', user_id: 'carol' })
  const first = events[0]?.at ?? 0
  const last = events[4]?.at ?? 0
  t.ok(last - first >= 250, `events spread over time (${first} ms .. ${last} ms)`)
})

void t.test('sessions are filtered by user_id and hidden from other users', async (t) => {
  const runtime = await startRuntime(t)
  const create = (body: object) =>
    fetch(`${runtime.url}/sessions?type=agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  t.equal((await create({ session_id: 's-u1', user_id: 'u1' })).status, 201)
  t.equal((await create({ session_id: 's-u2', user_id: 'u2' })).status, 201)
  t.equal((await create({ session_id: 's-u1' })).status, 409)
  const listed = (await json(await fetch(`${runtime.url}/sessions?type=agent&user_id=u1`))) as {
    data: { session_id: string }[]
  }
  t.same(
    listed.data.map((session) => session.session_id),
    ['s-u1'],
  )
  const foreign = await fetch(`${runtime.url}/sessions/s-u2?user_id=u1`)
  t.equal(foreign.status, 404)
  t.same(await json(foreign), { detail: "Agent Session with id 's-u2' not found" })
  t.equal((await fetch(`${runtime.url}/sessions/s-u2?user_id=u2`)).status, 200)
})

void t.test('echo shows exactly what arrived', async (t) => {
  const runtime = await startRuntime(t)
  const response = await fetch(`${runtime.url}/echo/a%2Fb/c?x=1&x=2&y=`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-forwarded-user': 'u7' },
    body: JSON.stringify({ hello: 'world' }),
  })
  t.equal(response.status, 200)
  const echoed = await json(response)
  t.match(echoed, {
    method: 'PUT',
    path: '/echo/a/b/c',
    rawUrl: '/echo/a%2Fb/c?x=1&x=2&y=',
    query: { x: ['1', '2'], y: [''] },
    headers: { 'x-forwarded-user': 'u7' },
    json: { hello: 'world' },
    bodyBytes: 17,
  })
  t.notOk(Object.hasOwn(echoed as object, 'rawHeaders'))
  t.equal(runtime.requests.length, 1)
  t.ok(runtime.requests[0]?.rawHeaders.includes('x-forwarded-user'))
  runtime.clear()
  t.equal(runtime.requests.length, 0)
})

void t.test(
  'uploads are counted and hashed; an abandoned body is started but not recorded',
  async (t) => {
    const runtime = await startRuntime(t)
    const payload = Buffer.alloc(2_000_000, 1)
    const upload = await fetch(`${runtime.url}/upload`, { method: 'POST', body: payload })
    t.same(await json(upload), {
      bytes: payload.length,
      sha256: createHash('sha256').update(payload).digest('hex'),
    })
    runtime.clear()
    const partial = request(`${runtime.url}/upload`, {
      method: 'POST',
      headers: { 'content-length': '1000' },
    })
    partial.on('error', () => {})
    partial.write(Buffer.alloc(10))
    while (runtime.started === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    partial.destroy()
    await new Promise((resolve) => setTimeout(resolve, 50))
    t.equal(runtime.started, 1)
    t.equal(runtime.requests.length, 0)
  },
)

void t.test(
  'generic routes echo their template and user id; helpers answer as asked',
  async (t) => {
    const runtime = await startRuntime(t)
    const generic = await fetch(`${runtime.url}/components/c1/configs/current?user_id=u3`)
    t.match(await json(generic), {
      route: 'GET /components/{component_id}/configs/current',
      params: { component_id: 'c1' },
      user_id: 'u3',
    })
    const status = await fetch(`${runtime.url}/status/418`)
    t.equal(status.status, 418)
    const big = await fetch(`${runtime.url}/big?bytes=200000`)
    t.equal((await big.arrayBuffer()).byteLength, 200_000)
    await t.rejects(fetch(`${runtime.url}/destroy`))
    const slow = fetch(`${runtime.url}/slow?ms=5000`, { signal: AbortSignal.timeout(50) })
    await t.rejects(slow)
  },
)
