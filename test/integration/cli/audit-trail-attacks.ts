/**
 * What the `portcullis audit verify` tests share: a trail of three events written through a real
 * gateway, and the attacks on it (an event changed, re-hashed or deleted straight in the
 * database, which the trigger refuses until it is disabled as an intruder would).
 */
import type { Test } from 'tap'
import { ADMIN, jwt, type Stack } from '../../conformance/fixtures.js'

export const CONFIG = ['--config', 'config/portcullis.yaml']
export const KEY = { OS_SECURITY_KEY: 'k-0123456789abcdef0123456789abcdef' }

/** Three events through the API: two mints and a revoke. */
export async function writeTrail(fixture: Stack): Promise<void> {
  const admin = await jwt([ADMIN], { sub: 'auditor' })
  const ids: string[] = []
  for (const name of ['one', 'two']) {
    const reply = await fixture.call('POST', '/service-accounts', { token: admin, json: { name } })
    if (reply.status !== 201) throw new Error(`mint: ${reply.status} ${reply.text}`)
    ids.push((reply.body as { id: string }).id)
  }
  const revoked = await fixture.call('DELETE', `/service-accounts/${ids[0]}`, { token: admin })
  if (revoked.status !== 204) throw new Error(`revoke: ${revoked.status}`)
}

export type Run = (statement: string) => Promise<unknown>

/** The attacks, each on a trail of three events; `reset` gives a fresh trail. */
export async function attacks(
  t: Test,
  verify: () => Promise<{ code: number | null; stdout: string }>,
  reset: () => Promise<Run>,
): Promise<void> {
  let run = await reset()
  const whole = await verify()
  t.equal(whole.code, 0, whole.stdout)
  t.match(whole.stdout, /^3 event\(s\) checked; newest: 3 [0-9a-f]{64}\nNo event was changed/)
  await t.rejects(
    run(`UPDATE portcullis_audit_events SET actor = 'mallory' WHERE seq = 2`),
    /append-only/,
    'the trigger refuses a change',
  )
  await t.rejects(run('DELETE FROM portcullis_audit_events WHERE seq = 2'), /append-only/)
  await run('ALTER TABLE portcullis_audit_events DISABLE TRIGGER USER')

  const tampered = async (statement: string, fresh: boolean): Promise<string> => {
    if (fresh) {
      run = await reset()
      await run('ALTER TABLE portcullis_audit_events DISABLE TRIGGER USER')
    }
    await run(statement)
    const report = await verify()
    t.equal(report.code, 1, statement)
    return report.stdout
  }
  t.match(
    await tampered(`UPDATE portcullis_audit_events SET actor = 'mallory' WHERE seq = 2`, false),
    /^event 2 changed: its hash does not cover its contents\n3 event/,
  )
  t.match(
    await tampered('DELETE FROM portcullis_audit_events WHERE seq = 2', true),
    /^event 3 does not follow the event before it/,
  )
  t.match(
    await tampered('DELETE FROM portcullis_audit_events WHERE seq = 1', true),
    /^event 2 is not the start of the chain/,
  )
}
