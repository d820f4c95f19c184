import t from 'tap'
import { clientClass } from '../../../src/service-accounts/client-class.js'

void t.test('the client software becomes one word of a closed set', async (t) => {
  const cases: [string | undefined, string][] = [
    [undefined, 'none'],
    ['  ', 'none'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36', 'browser'],
    ['curl/8.5.0', 'curl'],
    ['python-httpx/0.27.0', 'python'],
    ['Python-urllib/3.12', 'python'],
    ['python-requests/2.32', 'python'],
    ['aiohttp/3.9', 'python'],
    ['node', 'node'],
    ['undici', 'node'],
    ['axios/1.7.2', 'node'],
    ['Go-http-client/1.1', 'go'],
    ['Java/17.0.2', 'java'],
    ['okhttp/4.12.0', 'java'],
    ['my-agent svc_pat_secret-in-the-header', 'other'],
  ]
  for (const [header, expected] of cases)
    t.equal(clientClass({ 'user-agent': header }), expected, String(header))
  t.equal(clientClass({}), 'none', 'no header')
})
