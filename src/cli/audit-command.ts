import type { Command } from 'commander'
import { loadConfig } from '../config/load.js'
import { createLogger } from '../logger.js'
import {
  verifyChain,
  type ChainProblem,
  type ChainReport,
} from '../service-accounts/audit-verify.js'
import {
  createServiceAccountStore,
  explainStoreStartFailure,
} from '../service-accounts/create-store.js'
import { DEFAULT_CONFIG_PATH } from './defaults.js'
import { showStackTraces } from './failure.js'
import { CliError } from './gateway-client.js'

const PROBLEM_TEXT: Readonly<Record<ChainProblem['problem'], string>> = {
  changed: 'changed: its hash does not cover its contents',
  broken_link:
    'does not follow the event before it: an event was removed or inserted there, or the one before was changed',
  not_first:
    'is not the start of the chain, and no prune event records the removal of the events before it',
  bad_prune:
    'is a prune event whose record of the removal no retention run writes (a count, range or hash that cannot be right)',
}

/**
 * `portcullis audit verify`: checks the store's audit trail, read straight from the database
 * (PostgreSQL while gateways run; the embedded store only while no gateway holds it). Changes
 * nothing, not even the schema.
 */
export function registerAuditCommands(program: Command): void {
  const audit = program
    .command('audit')
    .description("The service-account audit trail in the gateway's store")
  audit
    .command('verify')
    .description(
      'Prove that no audit event was changed or removed between the first and the newest (exit 1 if one was)',
    )
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .option('--json', 'print the report as JSON')
    .action(async (options: { config: string; json?: boolean }) => {
      const config = loadConfig(options.config, { env: process.env })
      showStackTraces(config.logging.level)
      const store = await createServiceAccountStore(
        config.database,
        createLogger({ level: 'warn' }),
      )
      let report: ChainReport
      try {
        report = await verifyChain((seq, limit) => store.eventsAfter(seq, limit))
      } catch (error) {
        throw explainStoreStartFailure(config.database, error)
      } finally {
        await store.close()
      }
      process.stdout.write(
        options.json === true ? `${JSON.stringify(report, null, 2)}\n` : describe(report),
      )
      if (report.problems.length > 0) {
        throw new CliError(`the audit trail is broken at ${report.problems.length} place(s)`)
      }
    })
}

function describe(report: ChainReport): string {
  const lines = report.problems.map(
    (problem) => `event ${problem.seq} ${PROBLEM_TEXT[problem.problem]}`,
  )
  if (report.head === null) lines.push('The audit trail is empty.')
  else
    lines.push(
      ...(report.pruned === null
        ? []
        : [
            `Events up to ${report.pruned.through} were removed by retention (older than ${new Date(report.pruned.cutoff).toISOString()}), as prune event ${report.pruned.by} records; checked from ${report.pruned.through + 1}.`,
          ]),
      `${report.events} event(s) checked; newest: ${report.head.seq} ${report.head.hash}`,
      ...(report.problems.length === 0
        ? [
            'No event was changed or removed before the newest (other than by retention). Keep the newest line to check later that none after it was removed.',
          ]
        : []),
    )
  return `${lines.join('\n')}\n`
}
