/**
 * `portcullis audit verify` on the trail a real gateway wrote to the embedded store, once the
 * gateway stopped: whole, then with an event changed or deleted straight in the database; and an
 * empty store.
 */
import t from 'tap'
import { PgliteSqlClient } from '../../../src/service-accounts/pglite-client.js'
import { jConfig, stack } from '../../conformance/fixtures.js'
import { portcullis } from '../../helpers/cli.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'
import { startRuntime } from '../../helpers/runtime.js'
import { attacks, CONFIG, KEY, writeTrail, type Run } from './audit-trail-attacks.js'

const runtime = await startRuntime(t)

void t.test('the embedded store, its gateway stopped', async (t) => {
  let dataDir = ''
  const reset = async (): Promise<Run> => {
    dataDir = await freshEmbeddedDataDir(t)
    const fixture = await stack(
      t,
      runtime,
      jConfig(
        {},
        {
          service_accounts: { enabled: true },
          database: { data_dir: dataDir },
        },
      ),
    )
    await writeTrail(fixture)
    await fixture.gateway.stop()
    return async (statement) => {
      const client = await PgliteSqlClient.open(dataDir)
      try {
        return await client.query(statement)
      } finally {
        await client.close()
      }
    }
  }
  const verify = () =>
    portcullis(t, ['audit', 'verify', ...CONFIG], { ...KEY, PORTCULLIS_DATA_DIR: dataDir })
  await attacks(t, verify, reset)

  const empty = await freshEmbeddedDataDir(t)
  const none = await portcullis(t, ['audit', 'verify', ...CONFIG], {
    ...KEY,
    PORTCULLIS_DATA_DIR: empty,
  })
  t.equal(none.code, 0)
  t.equal(none.stdout, 'The audit trail is empty.')
})
