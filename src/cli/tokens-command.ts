import type { Command } from 'commander'
import { agentosCatalogue, definedScopes } from '../policy/catalogue/index.js'
import { undefinedScopeWarnings } from '../policy/undefined-scopes.js'
import {
  callGateway,
  CliError,
  detailOf,
  resolveTarget,
  type GatewayTarget,
  type JsonResponse,
} from './gateway-client.js'
import { isAccountId } from '../service-accounts/account-id.js'
import {
  printAccounts,
  printEvents,
  type AccountSummary,
  type EventSummary,
} from './token-output.js'

interface CommonOptions {
  url?: string
  json?: boolean
}

/**
 * The scopes of the AgentOS line the gateway runs: the one the generation uses today. Once the
 * line is chosen per upstream, the gateway should tell the CLI which (this is the one place).
 */
const AGENTOS_SCOPES = (): readonly string[] => definedScopes(agentosCatalogue('2.9'))

/** The API's largest page. */
const PAGE_LIMIT = 100

/** `portcullis tokens create|list|revoke|events`, against a running gateway's /service-accounts. */
export function registerTokensCommands(program: Command): void {
  const tokens = program
    .command('tokens')
    .description(
      'Mint, list and revoke service-account tokens on a running gateway (credential: PORTCULLIS_ADMIN_TOKEN or OS_SECURITY_KEY)',
    )
  tokens
    .command('create')
    .description(
      'Mint a token for a new service account and print it once (scopes follow AgentOS grammar: resource:action, resource:id:action)',
    )
    .argument('<name>', 'account name (lowercase slug)')
    .option(
      '-s, --scopes <scope...>',
      'scopes to grant (default: agents:run teams:run workflows:run sessions:read config:read)',
    )
    .option('--expires <when>', 'expiry: 90d, a number of days, or never', '90d')
    .option('--privileged', 'allow write, delete, admin and service_accounts scopes')
    .option('--url <url>', 'gateway URL (PORTCULLIS_URL, default http://127.0.0.1:8080)')
    .option('--json', 'print JSON (on failure: the gateway’s error body)')
    .action(
      async (
        name: string,
        options: CommonOptions & { scopes?: string[]; expires: string; privileged?: boolean },
      ) => {
        const target = resolveTarget(options.url, process.env)
        const body: Record<string, unknown> = { name, ...expiry(options.expires) }
        if (options.scopes !== undefined) {
          body.scopes = options.scopes.map((scope) => ({ scope, effect: 'allow' }))
          for (const warning of undefinedScopeWarnings(options.scopes, AGENTOS_SCOPES()))
            process.stderr.write(`portcullis: warning: ${warning}\n`)
        }
        if (options.privileged === true) body.allow_privileged_scopes = true
        const response = await callGateway(target, 'POST', '/service-accounts', body)
        if (response.status !== 201) printErrorBody(response, options)
        if (response.status === 409) {
          throw new CliError(
            `a service account named '${name}' already exists; rotate it with: portcullis tokens revoke ${name}`,
          )
        }
        if (response.status !== 201) {
          const detail = detailOf(response.body)
          // The API names its body field; on the command line the switch is --privileged.
          const hint = detail.startsWith('Privileged scope(s) require allow_privileged_scopes')
            ? ' Pass --privileged to grant them.'
            : ''
          throw new CliError(`mint failed (${response.status}): ${detail}${hint}`)
        }
        const account = response.body as AccountSummary & { token: string }
        if (options.json === true) {
          process.stdout.write(`${JSON.stringify(account, null, 2)}\n`)
          return
        }
        process.stdout.write(
          `Created ${account.principal} (id ${account.id}, expires ${account.expires_at === null ? 'never' : new Date(account.expires_at * 1000).toISOString()})\n` +
            `Scopes: ${account.scopes.map((scope) => scope.raw).join(', ') || '(none)'}\n\n` +
            `Token (shown once, store it now):\n${account.token}\n`,
        )
      },
    )
  tokens
    .command('list')
    .description(
      'List service accounts (names, ids, token prefixes, states, scopes; never a token)',
    )
    .option('--include-revoked', 'also list revoked accounts')
    .option('--url <url>', 'gateway URL')
    .option('--json', 'print JSON (on failure: the gateway’s error body)')
    .action(async (options: CommonOptions & { includeRevoked?: boolean }) => {
      const accounts = await listAll(
        resolveTarget(options.url, process.env),
        options.includeRevoked === true,
        options,
      )
      if (options.json === true) process.stdout.write(`${JSON.stringify(accounts, null, 2)}\n`)
      else printAccounts(accounts, process.stdout)
    })
  tokens
    .command('revoke')
    .description('Revoke an account by name or id: its token stops working on every replica')
    .argument('<name-or-id>', 'an active account name, or an account id')
    .option('--url <url>', 'gateway URL')
    .option('--json', 'print JSON (on failure: the gateway’s error body)')
    .action(async (nameOrId: string, options: CommonOptions) => {
      const target = resolveTarget(options.url, process.env)
      const id = isAccountId(nameOrId) ? nameOrId : await activeIdByName(target, nameOrId, options)
      const response = await callGateway(
        target,
        'DELETE',
        `/service-accounts/${encodeURIComponent(id)}`,
      )
      if (response.status !== 204 && response.status !== 200) {
        printErrorBody(response, options)
        throw new CliError(`revoke failed (${response.status}): ${detailOf(response.body)}`)
      }
      if (options.json === true) process.stdout.write(`${JSON.stringify({ revoked: id })}\n`)
      else process.stdout.write(`Revoked ${nameOrId === id ? id : `${nameOrId} (${id})`}\n`)
    })
  tokens
    .command('events')
    .description(
      'Show the audit trail, newest first: every account’s events, or those of the accounts that bore NAME (or of the account with that id)',
    )
    .argument('[name-or-id]', 'an account name (every account that bore it) or an account id')
    .option('--type <type...>', 'only these event types (mint, revoke, first_use, refused, …)')
    .option(
      '--since <when>',
      'from this time on: epoch seconds, 2025-07-01 or an ISO 8601 time with zone',
    )
    .option('--until <when>', 'before this time (same forms)')
    .option('--limit <n>', 'at most this many events', '50')
    .option('--url <url>', 'gateway URL')
    .option('--json', 'print JSON (on failure: the gateway’s error body)')
    .action(async (nameOrId: string | undefined, options: EventsOptions) => {
      const limit = Number(options.limit)
      if (!Number.isSafeInteger(limit) || limit < 1)
        throw new CliError(`--limit must be a positive whole number, not ${options.limit}`)
      const query = new URLSearchParams()
      if (nameOrId !== undefined) query.set('account', nameOrId)
      for (const type of options.type ?? []) query.append('type', type)
      if (options.since !== undefined) query.set('since', options.since)
      if (options.until !== undefined) query.set('until', options.until)
      const events = await listEvents(
        resolveTarget(options.url, process.env),
        query,
        limit,
        options,
      )
      if (options.json === true) process.stdout.write(`${JSON.stringify(events, null, 2)}\n`)
      else printEvents(events, process.stdout)
    })
}

interface EventsOptions extends CommonOptions {
  type?: string[]
  since?: string
  until?: string
  limit: string
}

/**
 * Up to `limit` events, newest first, page after page. An event written meanwhile pushes older
 * ones onto the next page: events seen already are skipped.
 */
async function listEvents(
  target: GatewayTarget,
  query: URLSearchParams,
  limit: number,
  options: CommonOptions,
): Promise<EventSummary[]> {
  const size = Math.min(limit, PAGE_LIMIT)
  const events = new Map<number, EventSummary>()
  for (let page = 1; events.size < limit; page++) {
    const paged = new URLSearchParams(query)
    paged.set('page', String(page))
    paged.set('limit', String(size))
    const response = await callGateway(
      target,
      'GET',
      `/service-accounts/events?${paged.toString()}`,
    )
    if (response.status !== 200) {
      printErrorBody(response, options)
      throw new CliError(`events failed (${response.status}): ${detailOf(response.body)}`)
    }
    const body = response.body as { data: EventSummary[]; meta: { total_pages: number } }
    for (const event of body.data) if (events.size < limit) events.set(event.seq, event)
    if (page >= body.meta.total_pages) break
  }
  return [...events.values()]
}

function expiry(value: string): Record<string, unknown> {
  if (value === 'never') return { never_expires: true }
  const match = /^(\d+)d?$/.exec(value)
  if (match === null) throw new CliError(`--expires must be like 90d, 30 or never, not ${value}`)
  return { expires_in_days: Number(match[1]) }
}

/** With `--json`, a refusal's body goes to standard output as the gateway sent it. */
function printErrorBody(response: JsonResponse, options: CommonOptions): void {
  if (options.json === true) process.stdout.write(`${JSON.stringify(response.body, null, 2)}\n`)
}

async function listAll(
  target: GatewayTarget,
  includeRevoked: boolean,
  options: CommonOptions,
): Promise<AccountSummary[]> {
  const accounts: AccountSummary[] = []
  for (let page = 1; ; page++) {
    const response = await callGateway(
      target,
      'GET',
      `/service-accounts?page=${page}&limit=${PAGE_LIMIT}&include_revoked=${includeRevoked}`,
    )
    if (response.status !== 200) {
      printErrorBody(response, options)
      throw new CliError(`list failed (${response.status}): ${detailOf(response.body)}`)
    }
    const body = response.body as { data: AccountSummary[]; meta: { total_pages: number } }
    accounts.push(...body.data)
    if (page >= body.meta.total_pages) return accounts
  }
}

async function activeIdByName(
  target: GatewayTarget,
  name: string,
  options: CommonOptions,
): Promise<string> {
  const account = (await listAll(target, false, options)).find(
    (candidate) => candidate.name === name,
  )
  if (account === undefined) throw new CliError(`no active service account named '${name}'`)
  return account.id
}
