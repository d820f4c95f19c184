/** AgentOS's `PaginatedResponse`: a page of `data` and its `meta`, no pages when nothing matched. */
import type { FieldRule } from '../../validation.js'

export interface Page<T> {
  data: T[]
  meta: {
    page: number
    limit: number
    total_pages: number
    total_count: number
    search_time_ms: number
  }
}

export function pageOf<T>(items: T[], page: number, limit: number): Page<T> {
  return {
    data: items.slice((page - 1) * limit, page * limit),
    meta: {
      page,
      limit,
      total_pages: Math.ceil(items.length / limit),
      total_count: items.length,
      search_time_ms: 0,
    },
  }
}

/** `page: int = Query(1, ge=1)` */
export const PAGE: FieldRule = { kind: 'int', min: 1, default: 1 }

/** `limit: int = Query(<fallback>, ge=1, le=<max>)` */
export function limitRule(fallback: number, max: number): FieldRule {
  return { kind: 'int', min: 1, max, default: fallback }
}
