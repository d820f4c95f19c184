import { safeEqual } from '../auth/constant-time.js'
import { eventHash, GENESIS_HASH } from './audit-chain.js'
import type { AuditEvent } from './audit-event.js'
import { removalOf, type Removal } from './prune-event.js'

/** Where the chain is broken, and how. */
export interface ChainProblem {
  readonly seq: number
  readonly problem: 'changed' | 'broken_link' | 'not_first' | 'bad_prune'
}

/** Retention removed the chain's oldest events: the prune event that anchors the first kept. */
export interface PrunedStart {
  /** The last event removed (the first kept is the one after it). */
  readonly through: number
  /** The prune event recording it. */
  readonly by: number
  /** Events that occurred before it (epoch milliseconds) were due. */
  readonly cutoff: number
}

export interface ChainReport {
  readonly events: number
  /** The last event verified: record it elsewhere to detect a removal at the end later. */
  readonly head: { readonly seq: number; readonly hash: string } | null
  /** Null when the chain starts at its first event. */
  readonly pruned: PrunedStart | null
  /** The first problems found (at most `MAX_PROBLEMS`); empty: the chain is whole. */
  readonly problems: readonly ChainProblem[]
}

const PAGE = 1_000
const MAX_PROBLEMS = 100

/**
 * Walks a database's event chain in order, a page at a time, and checks that each event's hash
 * covers its contents (none changed) and that each follows the one before it without a gap and
 * links to its hash (none removed or inserted in between). The first event must be the chain's
 * start, or the first one retention kept: then an intact `prune` event later in the chain must
 * record the removal of exactly the events before it, ending with the hash it links to. A removal
 * of the newest events leaves a whole, shorter chain: only a head recorded elsewhere (the report's
 * `head`) shows it.
 */
export async function verifyChain(
  eventsAfter: (seq: number, limit: number) => Promise<readonly AuditEvent[]>,
): Promise<ChainReport> {
  const problems: ChainProblem[] = []
  let previous: { seq: number; hash: string } | null = null
  let start: AuditEvent | null = null
  let pruned: PrunedStart | null = null
  let events = 0
  let complete = false
  for (;;) {
    const page = await eventsAfter(previous?.seq ?? 0, PAGE)
    for (const event of page) {
      start ??= event
      const found = problemsOf(event, previous)
      problems.push(...found)
      if (event.type === 'prune' && found.every((problem) => problem.problem !== 'changed')) {
        const removal = removalOf(event)
        if (removal === null) problems.push({ seq: event.seq, problem: 'bad_prune' })
        else if (pruned === null && anchors(removal, start))
          pruned = { through: removal.lastSeq, by: event.seq, cutoff: removal.cutoff }
      }
      previous = { seq: event.seq, hash: event.hash }
      events += 1
    }
    if (problems.length >= MAX_PROBLEMS) break
    if (page.length < PAGE) {
      complete = true
      break
    }
  }
  // Known only once the whole chain was read: the anchoring prune event comes after the start.
  if (complete && start !== null && !isGenesis(start) && pruned === null)
    problems.unshift({ seq: start.seq, problem: 'not_first' })
  return { events, head: previous, pruned, problems: problems.slice(0, MAX_PROBLEMS) }
}

function isGenesis(event: AuditEvent): boolean {
  return event.seq === 1 && safeEqual(event.prevHash, GENESIS_HASH)
}

/** Whether a prune removed exactly the events before `start`. */
function anchors(removal: Removal, start: AuditEvent): boolean {
  return removal.lastSeq + 1 === start.seq && safeEqual(removal.lastHash, start.prevHash)
}

function problemsOf(
  event: AuditEvent,
  previous: { seq: number; hash: string } | null,
): ChainProblem[] {
  const found: ChainProblem[] = []
  if (!safeEqual(event.hash, eventHash(event))) found.push({ seq: event.seq, problem: 'changed' })
  if (
    previous !== null &&
    (event.seq !== previous.seq + 1 || !safeEqual(event.prevHash, previous.hash))
  ) {
    found.push({ seq: event.seq, problem: 'broken_link' })
  }
  return found
}
