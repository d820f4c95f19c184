import { safeEqual } from '../auth/constant-time.js'
import { eventHash, GENESIS_HASH } from './audit-chain.js'
import type { AuditEvent } from './audit-event.js'

/** Where the chain is broken, and how. */
export interface ChainProblem {
  readonly seq: number
  readonly problem: 'changed' | 'broken_link' | 'not_first'
}

export interface ChainReport {
  readonly events: number
  /** The last event verified: record it elsewhere to detect a removal at the end later. */
  readonly head: { readonly seq: number; readonly hash: string } | null
  /** The first problems found (at most `MAX_PROBLEMS`); empty: the chain is whole. */
  readonly problems: readonly ChainProblem[]
}

const PAGE = 1_000
const MAX_PROBLEMS = 100

/**
 * Walks a database's event chain in order, a page at a time, and checks that each event's hash
 * covers its contents (none changed) and that each follows the one before it without a gap and
 * links to its hash (none removed or inserted in between). The first event must be the chain's
 * start. A removal of the newest events leaves a whole, shorter chain: only a head recorded
 * elsewhere (the report's `head`) shows it.
 */
export async function verifyChain(
  eventsAfter: (seq: number, limit: number) => Promise<readonly AuditEvent[]>,
): Promise<ChainReport> {
  const problems: ChainProblem[] = []
  let previous: { seq: number; hash: string } | null = null
  let events = 0
  for (;;) {
    const page = await eventsAfter(previous?.seq ?? 0, PAGE)
    for (const event of page) {
      problems.push(...problemsOf(event, previous))
      previous = { seq: event.seq, hash: event.hash }
      events += 1
    }
    if (page.length < PAGE || problems.length >= MAX_PROBLEMS) break
  }
  return { events, head: previous, problems: problems.slice(0, MAX_PROBLEMS) }
}

function problemsOf(
  event: AuditEvent,
  previous: { seq: number; hash: string } | null,
): ChainProblem[] {
  const found: ChainProblem[] = []
  if (!safeEqual(event.hash, eventHash(event))) found.push({ seq: event.seq, problem: 'changed' })
  if (previous === null) {
    if (event.seq !== 1 || !safeEqual(event.prevHash, GENESIS_HASH))
      found.push({ seq: event.seq, problem: 'not_first' })
  } else if (event.seq !== previous.seq + 1 || !safeEqual(event.prevHash, previous.hash)) {
    found.push({ seq: event.seq, problem: 'broken_link' })
  }
  return found
}
