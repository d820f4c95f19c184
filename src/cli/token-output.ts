/** The fields of a listed account the CLI shows. */
export interface AccountSummary {
  readonly id: string
  readonly name: string
  readonly principal: string
  readonly token_prefix: string
  readonly scopes: readonly { readonly raw: string }[]
  readonly created_at: number
  readonly expires_at: number | null
  readonly last_used_at: number | null
  /** The client address of the last recorded use (Portcullis's field). */
  readonly last_used_from: string | null
  readonly revoked_at: number | null
}

const date = (seconds: number | null, none: string): string =>
  seconds === null ? none : new Date(seconds * 1000).toISOString().slice(0, 10)

/** A plain table for people; `--json` is for programs. */
export function printAccounts(
  accounts: readonly AccountSummary[],
  out: NodeJS.WritableStream,
): void {
  if (accounts.length === 0) {
    out.write('No service accounts.\n')
    return
  }
  const rows = accounts.map((account) => [
    account.name,
    account.id,
    `${account.token_prefix}…`,
    account.revoked_at === null ? 'active' : 'revoked',
    date(account.expires_at, 'never'),
    date(account.last_used_at, '-'),
    account.last_used_from ?? '-',
    account.scopes.map((scope) => scope.raw).join(' '),
  ])
  const header = [
    'NAME',
    'ID',
    'TOKEN',
    'STATE',
    'EXPIRES',
    'LAST USED',
    'LAST USED FROM',
    'SCOPES',
  ]
  printTable(header, rows, out)
}

/** The fields of an audit event the CLI shows (the API's answer, snake_case). */
export interface EventSummary {
  readonly seq: number
  readonly occurred_at: string
  readonly type: string
  readonly actor: string | null
  readonly actor_kind: string | null
  readonly account_name: string | null
  readonly client_address: string | null
  readonly details: Readonly<Record<string, unknown>>
}

/** Audit events as a table, newest first as the gateway lists them. */
export function printEvents(events: readonly EventSummary[], out: NodeJS.WritableStream): void {
  if (events.length === 0) {
    out.write('No audit events.\n')
    return
  }
  const rows = events.map((event) => [
    event.occurred_at,
    String(event.seq),
    event.type,
    event.account_name ?? '-',
    event.actor ?? (event.actor_kind === 'security_key' ? '(security key)' : '-'),
    event.client_address ?? '-',
    Object.entries(event.details)
      .map(([key, value]) => `${key}=${detailText(value)}`)
      .join(' '),
  ])
  printTable(['TIME', 'SEQ', 'TYPE', 'ACCOUNT', 'ACTOR', 'FROM', 'DETAILS'], rows, out)
}

function detailText(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return value.join(',')
  return JSON.stringify(value)
}

function printTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  out: NodeJS.WritableStream,
): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  )
  for (const row of [header, ...rows]) {
    out.write(
      `${row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    )
  }
}
