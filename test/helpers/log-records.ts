import type { LogCapture } from './log-capture.js'
import { waitFor } from './wait.js'

/**
 * The access-log record of the request with this id, waiting for it: the line is written just
 * after the response's last byte, so a client can be a moment ahead of the log.
 */
export async function accessLogRecord(
  logs: LogCapture,
  requestId: string | string[] | undefined,
): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined
  await waitFor(
    () => {
      found = logs
        .records()
        .find((record) => record.msg === 'request' && record.req_id === requestId)
      return found !== undefined
    },
    `the access log line of request ${String(requestId)}`,
  )
  return found as Record<string, unknown>
}
