/**
 * A point in time as the event filters take it: epoch seconds (digits only), a date
 * (`2025-07-01`, midnight UTC) or an ISO 8601 date-time with a time zone
 * (`2025-07-01T12:00:00Z`, `2025-07-01T14:00:00.250+02:00`); a date-time without one is refused
 * rather than read in some server's local time. Epoch milliseconds, or undefined when unreadable.
 */
export function parseEventTime(input: string): number | undefined {
  if (/^\d{1,12}$/.test(input)) return Number(input) * 1000
  const match = ISO.exec(input)
  if (match === null) return undefined
  const [, year, month, day, hour, minute, second, fraction, zone] = match
  const date = Date.UTC(Number(year), Number(month) - 1, Number(day))
  const calendar = new Date(date)
  // Date.UTC rolls 2025-02-30 over into March: only real dates come back unchanged.
  if (calendar.getUTCDate() !== Number(day) || calendar.getUTCMonth() !== Number(month) - 1)
    return undefined
  if (hour === undefined) return date
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) return undefined
  const offset = zoneOffsetMs(zone ?? 'Z')
  if (offset === undefined) return undefined
  const millis = Math.floor(Number(`0.${fraction ?? '0'}`) * 1000)
  const time = ((Number(hour) * 60 + Number(minute)) * 60 + Number(second ?? 0)) * 1000 + millis
  return date + time - offset
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2}))?$/

function zoneOffsetMs(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = Number(digits.slice(2))
  if (hours > 23 || minutes > 59) return undefined
  return sign * (hours * 60 + minutes) * 60_000
}
