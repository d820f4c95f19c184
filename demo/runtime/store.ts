/** In-memory data behind the demo runtime: seeded components, plus whatever requests create. */
import { randomUUID } from 'node:crypto'
import type { JsonObject } from './params.js'
import type { ReceivedFile } from './types.js'

export type Family = 'agents' | 'teams' | 'workflows'
export type SessionType = 'agent' | 'team' | 'workflow'

export const FAMILIES: readonly Family[] = ['agents', 'teams', 'workflows']

export const FAMILY_INFO = {
  agents: { idKey: 'agent_id', sessionType: 'agent', label: 'Agent' },
  teams: { idKey: 'team_id', sessionType: 'team', label: 'Team' },
  workflows: { idKey: 'workflow_id', sessionType: 'workflow', label: 'Workflow' },
} as const satisfies Record<Family, { idKey: string; sessionType: SessionType; label: string }>

export function isFamily(value: string | undefined): value is Family {
  return value === 'agents' || value === 'teams' || value === 'workflows'
}

export function familyOfSessionType(type: SessionType): Family {
  return type === 'agent' ? 'agents' : type === 'team' ? 'teams' : 'workflows'
}

export interface Component {
  id: string
  name: string
  description: string
}

export interface SessionRecord {
  session_id: string
  session_type: SessionType
  component_id: string | null
  user_id: string | null
  session_name: string | null
  session_state: JsonObject
  metadata: JsonObject | null
  created_at: number
  updated_at: number
}

/** A run's file as 3.0's media storage keeps it, served by `/sessions/{id}/media/{key}`. */
export interface MediaRef {
  storage_key: string
  mime_type: string
  filename: string
  size: number
}

/** What a 3.0 run start records beyond a 2.9 one; shown with the run. */
export interface V3RunFields {
  /** the component version the run was pinned to (`version` form field) */
  version: number | null
  /** the `Idempotency-Key` header as received */
  idempotency_key: string | null
  media: MediaRef[]
  /** the form's `metadata` object, stamped with the pinned version (`agno_component_version`) */
  metadata: JsonObject | null
}

export interface RunRecord {
  run_id: string
  family: Family
  component_id: string
  session_id: string
  user_id: string | null
  message: string
  content: string
  status: string
  created_at: number
  files: ReceivedFile[]
  v3?: V3RunFields
}

/** Memories, learnings and knowledge contents share one loose shape. */
export interface OwnedRecord {
  id: string
  user_id: string | null
  fields: JsonObject
  created_at: number
  updated_at: number
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000)

export class DemoStore {
  readonly components: Record<Family, Component[]> = {
    agents: [
      { id: 'a1', name: 'Agent One', description: 'Echoes what it is told' },
      { id: 'a2', name: 'Agent Two', description: 'Also echoes' },
    ],
    teams: [{ id: 't1', name: 'Team One', description: 'A team of echoes' }],
    workflows: [{ id: 'w1', name: 'Workflow One', description: 'An echo workflow' }],
  }
  readonly sessions = new Map<string, SessionRecord>()
  readonly runs = new Map<string, RunRecord>()
  readonly memories = new Map<string, OwnedRecord>()
  readonly learnings = new Map<string, OwnedRecord>()
  readonly knowledge = new Map<string, OwnedRecord>()

  findComponent(family: Family, id: string): Component | undefined {
    return this.components[family].find((component) => component.id === id)
  }

  /** Looks a session up by id and type; with a user id, another owner's session is invisible. */
  findSession(id: string, type: SessionType, userId?: string): SessionRecord | undefined {
    const session = this.sessions.get(id)
    if (session?.session_type !== type) return undefined
    if (userId !== undefined && session.user_id !== userId) return undefined
    return session
  }

  createSession(fields: Partial<SessionRecord> & Pick<SessionRecord, 'session_type'>) {
    const now = nowSeconds()
    const session: SessionRecord = {
      session_id: randomUUID(),
      component_id: null,
      user_id: null,
      session_name: null,
      session_state: {},
      metadata: null,
      created_at: now,
      updated_at: now,
      ...fields,
    }
    this.sessions.set(session.session_id, session)
    return session
  }

  /** Runs in an existing session, or in a new one owned by the run's user. */
  createRun(
    fields: Omit<RunRecord, 'run_id' | 'created_at' | 'session_id' | 'content' | 'status'> & {
      session_id: string | undefined
    },
  ): RunRecord {
    const sessionType = FAMILY_INFO[fields.family].sessionType
    const existing =
      fields.session_id === undefined ? undefined : this.sessions.get(fields.session_id)
    const session =
      existing ??
      this.createSession({
        ...(fields.session_id === undefined ? {} : { session_id: fields.session_id }),
        session_type: sessionType,
        component_id: fields.component_id,
        user_id: fields.user_id,
      })
    session.updated_at = nowSeconds()
    const run: RunRecord = {
      ...fields,
      run_id: randomUUID(),
      session_id: session.session_id,
      content: `echo: ${fields.message}`,
      status: 'COMPLETED',
      created_at: nowSeconds(),
    }
    this.runs.set(run.run_id, run)
    return run
  }

  createOwned(map: Map<string, OwnedRecord>, userId: string | null, fields: JsonObject) {
    const now = nowSeconds()
    const record: OwnedRecord = {
      id: randomUUID(),
      user_id: userId,
      fields,
      created_at: now,
      updated_at: now,
    }
    map.set(record.id, record)
    return record
  }
}

export function runView(run: RunRecord): JsonObject {
  return {
    run_id: run.run_id,
    [FAMILY_INFO[run.family].idKey]: run.component_id,
    session_id: run.session_id,
    user_id: run.user_id,
    input: run.message,
    content: run.content,
    status: run.status,
    created_at: run.created_at,
    files: run.files,
    ...run.v3,
  }
}

export function sessionView(session: SessionRecord): JsonObject {
  const idKey = FAMILY_INFO[familyOfSessionType(session.session_type)].idKey
  return { ...session, [idKey]: session.component_id }
}

export function ownedView(record: OwnedRecord, idKey: string): JsonObject {
  return {
    ...record.fields,
    [idKey]: record.id,
    user_id: record.user_id,
    created_at: record.created_at,
    updated_at: record.updated_at,
  }
}
