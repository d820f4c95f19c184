import { nullableTextColumn } from './account-row.js'
import type { StoreOperation } from './metrics.js'
import type { OwnedResource } from '../policy/catalogue/route-facts.js'
import type { RecordedOwner, ResourceOwners } from './resource-owners.js'
import { single, type SqlQueryable } from './sql-client.js'

/** Runs one store operation with its metrics and error accounting. */
export type RunOperation = <T>(operation: StoreOperation, fn: () => Promise<T>) => Promise<T>

/** `ResourceOwners` in SQL, the same for PostgreSQL and PGlite; part of the SQL store. */
export class SqlResourceOwners implements ResourceOwners {
  readonly #client: SqlQueryable
  readonly #run: RunOperation

  constructor(client: SqlQueryable, run: RunOperation) {
    this.#client = client
    this.#run = run
  }

  async record(
    kind: OwnedResource,
    id: string,
    owner: string | null,
    nowSeconds: number,
  ): Promise<string | null> {
    return this.#run('record_owner', async () => {
      // The no-op update makes the one statement return the row in force, inserted or kept,
      // also when another replica inserted it a moment before (DO NOTHING would return nothing).
      const rows = await this.#client.query(
        `INSERT INTO portcullis_resource_owners (kind, id, owner, created_at)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (kind, id) DO UPDATE SET owner = portcullis_resource_owners.owner
         RETURNING owner`,
        [kind, id, owner, nowSeconds],
      )
      return nullableTextColumn(single(rows), 'owner')
    })
  }

  async ownerOf(kind: OwnedResource, id: string): Promise<RecordedOwner> {
    return this.#run('owner_of', async () => {
      const rows = await this.#client.query(
        'SELECT owner FROM portcullis_resource_owners WHERE kind = $1 AND id = $2',
        [kind, id],
      )
      const row = rows[0]
      return row === undefined
        ? { known: false }
        : { known: true, owner: nullableTextColumn(row, 'owner') }
    })
  }

  async ownersOf(
    kind: OwnedResource,
    ids: readonly string[],
  ): Promise<ReadonlyMap<string, string | null>> {
    if (ids.length === 0) return new Map()
    return this.#run('owners_of', async () => {
      // The ids travel as one JSON array: both drivers pass it as a plain text parameter.
      const rows = await this.#client.query(
        `SELECT id, owner FROM portcullis_resource_owners
         WHERE kind = $1 AND id IN (SELECT jsonb_array_elements_text($2::jsonb))`,
        [kind, JSON.stringify(ids)],
      )
      return new Map(rows.map((row) => [String(row.id), nullableTextColumn(row, 'owner')]))
    })
  }

  async forget(kind: OwnedResource, id: string): Promise<boolean> {
    return this.#run('forget_owner', async () => {
      const rows = await this.#client.query(
        'DELETE FROM portcullis_resource_owners WHERE kind = $1 AND id = $2 RETURNING id',
        [kind, id],
      )
      return rows.length > 0
    })
  }
}
