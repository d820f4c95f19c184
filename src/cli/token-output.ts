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
    account.scopes.map((scope) => scope.raw).join(' '),
  ])
  const header = ['NAME', 'ID', 'TOKEN', 'STATE', 'EXPIRES', 'LAST USED', 'SCOPES']
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
