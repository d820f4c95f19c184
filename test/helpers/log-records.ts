import type { LogCapture } from './log-capture.js'
import { waitFor } from './wait.js'

/**
 * The first access-log record `matches` accepts, waiting for it: the access log hands its lines
 * over shortly after the response's last byte, so a client can be a moment ahead of the log.
 */
export async function accessLogLine(
  logs: LogCapture,
  matches: (record: Record<string, unknown>) => boolean,
  what = 'the access log line',
): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined
  await waitFor(() => {
    found = logs.records().find((record) => record.msg === 'request' && matches(record))
    return found !== undefined
  }, what)
  return found as Record<string, unknown>
}

/** The access-log record of the request with this id, waiting for it. */
export async function accessLogRecord(
  logs: LogCapture,
  requestId: string | string[] | undefined,
): Promise<Record<string, unknown>> {
  return accessLogLine(
    logs,
    (record) => record.req_id === requestId,
    `the access log line of request ${String(requestId)}`,
  )
}
