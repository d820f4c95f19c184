/** Cron expressions and time zones, checked and evaluated as AgentOS's scheduler does (croniter, pytz). */
import { Cron } from 'croner'

export function isValidCron(expression: string): boolean {
  try {
    new Cron(expression, { paused: true })
    return true
  } catch {
    return false
  }
}

export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone })
    return true
  } catch {
    return false
  }
}

/** The next firing after now, in epoch seconds; null when the expression never fires again. */
export function nextRunAt(expression: string, timezone: string): number | null {
  const next = new Cron(expression, { paused: true, timezone }).nextRun()
  return next === null ? null : Math.floor(next.getTime() / 1000)
}
