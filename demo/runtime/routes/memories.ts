/** Memories (generic owned CRUD plus bulk delete, topics, stats, optimize) and learnings. */
import type { RequestContext } from '../context.js'
import { paginate, queryParam, requestedUserId, requireJsonObject, stringList } from '../params.js'
import { sendEmpty, sendJson } from '../respond.js'
import type { Router } from '../router.js'
import type { OwnedRecord } from '../store.js'
import { registerOwnedCollection, type OwnedCollection } from './owned.js'

const MEMORIES: OwnedCollection = {
  path: '/memories',
  idKey: 'memory_id',
  label: 'Memory',
  records: (store) => store.memories,
  requiredField: 'memory',
  createStatus: 200,
}

const LEARNINGS: OwnedCollection = {
  path: '/learnings',
  idKey: 'learning_id',
  label: 'Learning',
  records: (store) => store.learnings,
  requiredField: 'content',
  createStatus: 201,
}

function memoriesOf(ctx: RequestContext, userId: string | null | undefined): OwnedRecord[] {
  return [...ctx.app.store.memories.values()].filter(
    (memory) => userId === undefined || userId === null || memory.user_id === userId,
  )
}

function deleteMemories(ctx: RequestContext): void {
  const body = requireJsonObject(ctx)
  if (body === undefined) return
  const owned = new Set(memoriesOf(ctx, requestedUserId(ctx)).map((memory) => memory.id))
  for (const id of stringList(body['memory_ids'])) {
    if (owned.has(id)) ctx.app.store.memories.delete(id)
  }
  sendEmpty(ctx.res, 204)
}

function memoryStats(ctx: RequestContext): void {
  const byUser = new Map<string | null, { total_memories: number; last: number }>()
  for (const memory of memoriesOf(ctx, queryParam(ctx, 'user_id'))) {
    const stats = byUser.get(memory.user_id) ?? { total_memories: 0, last: 0 }
    stats.total_memories += 1
    stats.last = Math.max(stats.last, memory.updated_at)
    byUser.set(memory.user_id, stats)
  }
  const rows = [...byUser].map(([user_id, stats]) => ({
    user_id,
    total_memories: stats.total_memories,
    last_memory_updated_at: stats.last,
  }))
  sendJson(ctx.res, 200, paginate(ctx, rows))
}

export function registerMemoryRoutes(router: Router): void {
  router.add('DELETE', '/memories', deleteMemories)
  registerOwnedCollection(router, MEMORIES)
  registerOwnedCollection(router, LEARNINGS)
  router
    .add('GET', '/memory_topics', (ctx) => {
      const memories = memoriesOf(ctx, queryParam(ctx, 'user_id'))
      const topics = new Set(memories.flatMap((memory) => stringList(memory.fields['topics'])))
      sendJson(ctx.res, 200, [...topics].sort())
    })
    .add('GET', '/user_memory_stats', memoryStats)
    .add('POST', '/optimize-memories', (ctx) => {
      const body = requireJsonObject(ctx)
      if (body === undefined) return
      const count = memoriesOf(ctx, requestedUserId(ctx)).length
      sendJson(ctx.res, 200, {
        user_id: requestedUserId(ctx),
        memories_before: count,
        memories_after: count,
        tokens_saved: 0,
      })
    })
}
