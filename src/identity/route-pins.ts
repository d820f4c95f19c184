import type { Principal } from '../principal.js'
import type { BodyPins } from './body-pinning.js'
import type { FieldPin } from './field-pin.js'
import type { IdentityClass } from '../policy/catalogue/route-facts.js'

export const SESSION_ID = 'session_id'
export const USER_ID = 'user_id'

const NO_PINS: readonly FieldPin[] = []

function pin(name: string, value: string, always: boolean): FieldPin {
  return { name, value, always }
}

/**
 * Query `user_id`: scoped callers everywhere (every read of ISO-2 takes it from the
 * query, and it is harmless elsewhere); on fork, every caller with a user id. A service account
 * may name its interface alias instead, to read what it ran over A2A or AG-UI (A2A-3).
 */
export function queryPinsFor(
  fork: boolean,
  uid: string | null,
  scoped: string | null,
  alias: string | null = null,
): readonly FieldPin[] {
  if (scoped !== null) {
    const scopedPin = pin(USER_ID, scoped, true)
    return [alias === null || alias === scoped ? scopedPin : { ...scopedPin, accepted: [alias] }]
  }
  if (fork && uid !== null) return [pin(USER_ID, uid, true)]
  return NO_PINS
}

/**
 * Which body fields change on this route for this caller (ISO-2, JWT-10): run routes
 * take `runUserId` (the caller's own id, admins included; null keeps the client's) and the JWT
 * `session_id` claim; `POST /sessions`
 * the caller's id; memories and learnings writes the scoped id even when absent; elsewhere a
 * scoped caller's `user_id` is replaced where present. Undefined: the body is not read at all.
 */
export function bodyPinsFor(
  route: IdentityClass | undefined,
  principal: Principal,
  scoped: string | null,
  inspect: boolean,
  observed: readonly string[],
  runUserId: string | null = principal.userId,
): BodyPins | undefined {
  const uid = principal.userId
  let form: readonly FieldPin[] = scoped === null ? NO_PINS : [pin(USER_ID, scoped, false)]
  let json = form
  if (route === 'run' || route === 'run-continue') {
    const runPins: FieldPin[] = []
    if (runUserId !== null) runPins.push(pin(USER_ID, runUserId, true))
    if (principal.sessionId !== null) runPins.push(pin(SESSION_ID, principal.sessionId, true))
    form = json = runPins
  } else if (route === 'session-create' && uid !== null) {
    json = [pin(USER_ID, uid, true)]
  } else if ((route === 'memory-write' || route === 'learnings') && scoped !== null) {
    json = [pin(USER_ID, scoped, true)]
  }
  const readsBody = form.length > 0 || json.length > 0 || inspect || observed.length > 0
  return readsBody ? { form, json, observed, inspect } : undefined
}
